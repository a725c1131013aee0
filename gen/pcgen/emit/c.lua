-- emit/c.lua: IR -> the generated C header and source of one format version.
--
-- Decode, validate, encode and size functions are straight-line code, one block per schema
-- field in schema order, each under the field's doc string; descriptor tables (for the JSON
-- dumper, the JSON encoder and the stream driver) come last. Each kind's emitters, all four
-- directions side by side, are in emit/<kind>.lua; the file skeletons in header.lua and
-- source.lua. The explain functions (decoders that record where each field lies) go to a file
-- of their own, <base>_explain.c, and the descriptors, which point at both, to <base>_desc.c.
local H = require("pcgen.emit.header")
local S = require("pcgen.emit.source")

return function(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  return {
    [base .. ".h"] = H.file(ir, sha, gen_version),
    [base .. ".c"] = S.file(ir, sha, gen_version),
    [base .. "_explain.c"] = S.explain_file(ir, sha, gen_version),
    [base .. "_desc.c"] = S.desc_file(ir, sha, gen_version),
  }
end
