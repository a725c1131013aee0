-- emit/warn.lua: the warnings of a record type (warn = { "condition", "expected" }): what
-- the real program's reader accepts but the schema flags. One function per type that
-- declares any, run on a decoded record (pcd_record_warnings), reporting each through the
-- caller's function with the field's offset and path; the first failing warning of a field
-- is its only one. Validation reports them as warnings, and as errors with --strict.
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local buf = require("pcgen.emit.cbuf")

local W = {}

local function offset_of(f)
  local p = f.wpos
  if p and p.at_end then return "(input_size >= " .. p.at_end .. " ? input_size - " .. p.at_end .. " : 0)" end
  if p and p.at then return p.at == 0 and "offset" or ("offset + " .. p.at) end
  return "offset" -- after variable-size fields: the record's start
end

-- The warnings of S's fields (and its inline structs'), each under the conditions that
-- make the field present.
local function fields(b, S, env, guards)
  for _, f in ipairs(S.fields) do
    local g = guards
    if f.when then
      g = {}
      for _, x in ipairs(guards) do g[#g + 1] = x end
      g[#g + 1] = env.obj .. "->" .. C.has_of(f.member)
    end
    if f.warns and #f.warns > 0 then
      b:doc(f, f.when and ("when " .. (f.when_src or "a condition holds")) or nil)
      local mojo = f.ty.kind == "varint" and f.ty.enc == "mojo"
      local v = env.obj .. "->" .. f.member
      local found = mojo and ("PCD_MOJO_FOUND(" .. v .. ")") or (C.found_kind(f, f.ty) .. ", (uint64_t)(" .. v .. ")")
      for i, w in ipairs(f.warns) do
        local cond = table.concat(g, " && ") .. (#g > 0 and " && " or "") .. "!(" .. X.cond(w.ast, env) .. ")"
        b:t([[
          ${kw} (${cond})
              pcd_warn(warn, ud, ${at}, ${path}, ${expected}, ${found});
        ]], { kw = i == 1 and "if" or "else if", cond = cond, at = offset_of(f), path = C.cstr(f.errname),
          expected = C.cstr(w.text), found = found })
      end
    end
    if f.ty and f.ty.kind == "struct" and not f.ty.named then fields(b, f.ty, env, g) end
  end
end

function W.fn(ir, T)
  local env = C.new_env(ir, T, "warn")
  env.obj = "in"
  local b = buf(1)
  fields(b, T, env, {})
  local body = b:text()
  return text.comment(T.tname .. ": what the real reader accepts but the schema flags (warn = ...), on a decoded record.") ..
      text.render([[
        static void ${fn}(const void *rec, uint64_t offset, uint64_t input_size, pcd_warn_fn warn, void *ud)
        {
            const ${T} *in = rec;
      ]], { fn = T.warn_fn, T = T.cname }) ..
      (body:find("%f[%w_]offset%f[^%w_]") and "" or "    (void)offset;\n") ..
      (body:find("%f[%w_]input_size%f[^%w_]") and "" or "    (void)input_size;\n") .. body .. "}\n\n"
end

return W
