-- emit/source.lua: the generated C sources. <base>.c: the four functions of each named type
-- in schema order, the root's fields after its regions, the region glue. <base>_desc.c: the
-- descriptors, detection and the pcd_format object, which point at the functions of <base>.c
-- and at the explain functions of <base>_explain.c (so that neither of those two refers to
-- the other: <base>_explain.c calls <base>.c, and <base>_desc.c refers to both).
local lower = require("pcgen.lower")
local text = require("pcgen.text")
local expr = require("pcgen.expr")
local C = require("pcgen.emit.common")
local F = require("pcgen.emit.func")
local RG = require("pcgen.emit.region")
local D = require("pcgen.emit.desc")
local W = require("pcgen.emit.warn")
local buf = require("pcgen.emit.cbuf")
local EM = require("pcgen.emit.message")

local cstr = C.cstr

local S = {}

-- The root's fields after each of its regions (a footer, tables placed by a header), and
-- the dispatcher the writer calls as each region closes. Returns the C and its name.
local function root_segments(ir)
  local T = ir.root
  local nreg = lower.root_segments(T)
  if nreg == 0 then return "", "NULL" end
  local parts = {}
  for s = 1, nreg do
    local fn = F.encode(ir, T, "enc", s)
    -- reuse the body: rename the function
    fn = fn:gsub("pcd_status " .. T.cname .. "_encode%(", "static pcd_status " .. T.cname .. "_segment" .. s .. "(")
    fn = fn:gsub("/%* [^\n]*writes the fields in schema order[^\n]*%*/\n",
      "/* " .. T.tname .. ": the fields after its region " .. s .. " */\n")
    parts[#parts + 1] = fn
  end
  local b = buf(1)
  b:l("switch (k) {")
  for s = 1, nreg do b:f("case %d: return %s_segment%d(s, in);", s, T.cname, s) end
  b:l("default: return PCD_OK;")
  b:l("}")
  return table.concat(parts, "\n") .. "\n" ..
      string.format("pcd_status %s_segments(pcd_sink *s, const void *in, uint32_t k)\n{\n%s}\n\n", T.cname, b:text()),
      T.cname .. "_segments"
end

-- Format detection: 2 = the bytes match a magic, 1 = too short to tell but a prefix does.
local function detect_fn(ir, magics)
  local b = buf(1)
  b:l("(void)p;")
  if #magics == 0 then
    b:l("(void)n;")
  else
    for _, m in ipairs(magics) do
      b:t([[
        if (n >= ${n} && memcmp(p, ${m}, ${n}) == 0) return 2;
        if (n < ${n} && memcmp(p, ${m}, n) == 0) return 1;
      ]], { n = #m, m = cstr(m) })
    end
  end
  b:l("return 0;")
  return "static int " .. ir.prefix .. "_detect(const uint8_t *p, size_t n)\n{\n" .. b:text() .. "}\n\n"
end

-- generated/<format>_v<N>_explain.c: every named type's decoder again, recording where each
-- field lies (profcodec explain; runtime/pcd_span.h). Kept out of the codec's file: nothing on a
-- decoding path calls it. Protobuf messages have none (the runtime walks their keys).
function S.explain_file(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  local out = {}
  out[#out + 1] = C.banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) ..
    ": explain, the decoders recording where each field lies.")
  out[#out + 1] = text.render([[
    #include "${base}.h"

    #include <string.h>

    #if PCD_RUNTIME_ABI != 4
    #error "${base}_explain.c was generated for runtime ABI 4; run make regen"
    #endif
  ]], { base = base }) .. "\n"
  -- the run tables this file uses are its own (static in each file)
  local saved = ir.run_tables
  ir.run_tables = nil
  local protos = {}
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if not EM.is_pb(T) then
      protos[#protos + 1] = string.format("static pcd_status %s_explain_(pcd_cursor *c, %s *out);", T.cname, T.cname)
    end
  end
  if #protos > 0 then out[#out + 1] = table.concat(protos, "\n") .. "\n\n" end
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if not EM.is_pb(T) then
      out[#out + 1] = "/* -------- " .. name .. " -------- */\n\n"
      out[#out + 1] = F.decode(ir, T, "dec", true) .. "\n"
    end
  end
  ir.run_tables = saved
  return table.concat(out)
end

function S.file(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  local out = {}
  out[#out + 1] = C.banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) ..
    ": decoders, validators, encoders, and the glue the descriptors (" .. base .. "_desc.c) point at.")
  out[#out + 1] = text.render([[
    #include "${base}.h"

    #include <string.h>

    #if PCD_RUNTIME_ABI != 4
    #error "${base}.c was generated for runtime ABI 4; run make regen"
    #endif
  ]], { base = base }) .. "\n"
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    out[#out + 1] = "/* -------- " .. name .. " -------- */\n\n"
    if EM.is_pb(T) then
      out[#out + 1] = EM.functions(ir, T) .. "\n"
    else
      out[#out + 1] = F.decode(ir, T, "dec") .. "\n"
      out[#out + 1] = F.decode(ir, T, "val") .. "\n"
      out[#out + 1] = F.encode(ir, T, "enc") .. "\n"
      out[#out + 1] = F.encode(ir, T, "size") .. "\n"
    end
  end
  local segs = root_segments(ir)
  out[#out + 1] = segs
  out[#out + 1] = "/* -------- regions -------- */\n\n"
  for _, R in ipairs(ir.regions) do out[#out + 1] = RG.glue(ir, R) .. "\n" end
  out[#out + 1] = "/* -------- the root -------- */\n\n"
  out[#out + 1] = text.render([[
    pcd_status ${p}_root_dec(pcd_cursor *c, void *out) { return ${root}_decode_(c, out${co}); }
    pcd_status ${p}_root_enc(pcd_sink *s, const void *in) { return ${root}_encode(s, in); }
  ]], { p = ir.prefix, root = ir.root.cname,
    co = #C.count_only_used(ir.root) > 0 and ", c->x->count_only" or "" })
  return table.concat(out)
end

-- The name of the root's segment dispatcher (root_segments), or nil.
local function root_segment_name(ir)
  return lower.root_segments(ir.root) > 0 and (ir.root.cname .. "_segments") or nil
end

-- The prototypes <base>_desc.c needs of <base>.c (in <base>.h).
function S.glue_protos(ir)
  local out = {}
  for _, R in ipairs(ir.regions) do out[#out + 1] = RG.protos(R) end
  out[#out + 1] = text.render([[
    pcd_status ${p}_root_dec(pcd_cursor *c, void *out);
    pcd_status ${p}_root_enc(pcd_sink *s, const void *in);
  ]], { p = ir.prefix })
  local seg = root_segment_name(ir)
  if seg then out[#out + 1] = "pcd_status " .. seg .. "(pcd_sink *s, const void *in, uint32_t k);\n" end
  return table.concat(out)
end

function S.desc_file(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  local out = {}
  out[#out + 1] = C.banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) ..
    ": descriptors, detection and the format, pointing at the functions of " .. base .. ".c and " ..
    base .. "_explain.c.")
  out[#out + 1] = text.render([[
    #include "${base}.h"

    #include <string.h>

    #if PCD_RUNTIME_ABI != 4
    #error "${base}_desc.c was generated for runtime ABI 4; run make regen"
    #endif
  ]], { base = base }) .. "\n"
  if #ir.regions > 0 then
    out[#out + 1] = "/* -------- regions -------- */\n\n"
    for _, R in ipairs(ir.regions) do out[#out + 1] = RG.desc(ir, R) end
  end
  if #ir.warn_types > 0 then
    out[#out + 1] = "/* -------- warnings -------- */\n\n"
    for _, T in ipairs(ir.warn_types) do out[#out + 1] = W.fn(ir, T) end
  end
  out[#out + 1] = "/* -------- descriptors -------- */\n\n"
  local descs = {}
  for _, T in ipairs(ir.all_types) do descs[#descs + 1] = D.type(ir, T) end
  out[#out + 1] = table.concat(descs, "\n") .. "\n"
  -- detection and the format
  local magics = lower.detect_magics(ir)
  local detect_min = 0
  for _, m in ipairs(magics) do if #m > detect_min then detect_min = #m end end
  local structural = EM.detect_fn(ir)
  out[#out + 1] = structural or detect_fn(ir, magics)
  local regs = {}
  for _, R in ipairs(ir.regions) do regs[#regs + 1] = "&" .. R.cname end
  if #regs > 0 then
    out[#out + 1] = "static const pcd_region_desc *const " .. ir.prefix .. "_regions[] = {\n    " ..
        table.concat(regs, ",\n    ") .. ",\n};\n\n"
  end
  local flags = {}
  if lower.streamable(ir) then flags[#flags + 1] = "PCD_FMT_STREAMABLE" end
  if ir.endian == "native" then flags[#flags + 1] = "PCD_FMT_NATIVE_ORDER" end
  if ir.relocates then flags[#flags + 1] = "PCD_FMT_RELOCATES" end
  if #ir.warn_types > 0 then flags[#flags + 1] = "PCD_FMT_WARNS" end
  -- NUL-padded strings anywhere (fields or union names): junk after the NUL is dropped
  if lower.has_padded_names(ir) then flags[#flags + 1] = "PCD_FMT_PADDED_NAMES" end
  -- detected by the structure of its first bytes, not by a magic: tried after the others
  if structural then flags[#flags + 1] = "PCD_FMT_NO_MAGIC" end
  local root = ir.root
  local pb_root = EM.is_pb(root)
  if not pb_root then
    out[#out + 1] = string.format("static pcd_status root_exp(pcd_cursor *c, void *out) { return %s_explain(c, out); }\n\n",
      root.cname)
  end
  out[#out + 1] = "const pcd_format " .. ir.prefix .. "_format = " .. C.block({
    { "name", cstr(ir.name) },
    { "version", cstr(tostring(ir.version)) },
    { "title", cstr(ir.title) },
    { "schema", cstr(ir.schema_path) },
    { "root", "&" .. root.cname .. "_type" },
    { "root_size", "sizeof(" .. root.cname .. ")" },
    { "root_decode", ir.prefix .. "_root_dec" },
    { "root_encode", ir.prefix .. "_root_enc" },
    { "root_segment", root_segment_name(ir) },
    { "regions", #regs > 0 and (ir.prefix .. "_regions") or nil },
    { "n_regions", #regs },
    { "detect", ir.prefix .. "_detect" },
    { "detect_min", detect_min },
    { "version_num", expr.cnum(ir.version_num) },
    { "flags", #flags > 0 and table.concat(flags, " | ") or nil },
    { "root_explain", not pb_root and "root_exp" or nil },
  }) .. ";\n"
  return table.concat(out)
end

return S
