-- emit_c.lua: IR -> the generated C header and source of one format version.
--
-- Decode, validate, encode and size functions are straight-line code, one block
-- per schema field in schema order, each under the field's doc string. Descriptor
-- tables (for the JSON dumper, the JSON encoder and the stream driver) come last.
local expr = require("pcgen.expr")
local lower = require("pcgen.lower")
local text = require("pcgen.text")
local names = require("pcgen.names")

local E = {}
local select_fn, segment_fields, region_ordinal

---------------------------------------------------------------------------
-- small helpers

local function ctype(ty)
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then return ty.ctype end
  if k == "bytes" then return "pcd_bytes" end
  if k == "struct" or k == "union" then return ty.cname end
  if k == "records" then return "pcd_region" end
  error("no C type for " .. tostring(k))
end

local function has_member(f)
  if f.optional then return true end -- an optional magic: stored as whether it is there
  return f.ty and f.ty.kind ~= "magic" and not f.magic
end

-- A derived field whose value is patched in after a region that follows it: the
-- encoder does not know it while it writes the field.
local function patched(f)
  local d = f.derived
  if not d or not d.target or not f.owner then return false end
  local S = f.owner
  local ti, fi = S.by_name[d.target], S.by_name[f.name]
  return ti ~= nil and fi ~= nil and ti > fi and S.fields[ti].ty and S.fields[ti].ty.kind == "records"
end

-- Can the encoder evaluate this expression before it writes the field? Not when it reads
-- the input's size, a derived field of the root (computed while writing), or a value
-- patched in later.
local function enc_evaluable(ast)
  local ok = true
  local function walk(n)
    if not n then return end
    local r = n.k == "id" and n.ref
    if r then
      if r.input_size then ok = false end
      if r.root and r.root.derived then ok = false end
      if r.field and patched(r.field) then ok = false end
    end
    walk(n.a)
    walk(n.b)
  end
  walk(ast)
  return ok
end

local function desc_kind(ty)
  local k = ty.kind
  if k == "int" then return "PCD_K_" .. (ty.signed and "S" or "U") .. ty.bits end
  if k == "float" then return "PCD_K_F" .. ty.bits end
  if k == "varint" then
    if ty.enc == "mojo" then return "PCD_K_MOJO" end
    if ty.ctype == "uint64_t" then return "PCD_K_U64" end
    if ty.ctype == "uint32_t" then return "PCD_K_U32" end
    if ty.ctype == "int32_t" then return "PCD_K_S32" end
    return "PCD_K_S64"
  end
  if k == "bytes" then return ty.text and "PCD_K_STRING" or "PCD_K_BYTES" end
  if k == "struct" then return "PCD_K_STRUCT" end
  if k == "union" then return "PCD_K_UNION" end
  if k == "array" then return "PCD_K_ARRAY" end
  if k == "records" then return "PCD_K_REGION" end
  return "0"
end

-- Load expression for a fixed-width int/float at pointer p.
local function load(ty, p)
  local bits = ty.bits
  local raw
  if bits == 8 then raw = "pcd_ld_u8(" .. p .. ")"
  elseif ty.endian == "native" then raw = "pcd_ld_u" .. bits .. "x(" .. p .. ", c->x->big)"
  else raw = "pcd_ld_u" .. bits .. ty.endian .. "(" .. p .. ")" end
  if ty.kind == "float" then return "pcd_f" .. bits .. "_from_bits(" .. raw .. ")" end
  if ty.signed then return "(int" .. bits .. "_t)" .. raw end
  return raw
end

local function put(ty, val, sink)
  local bits = ty.bits
  local u = "(uint" .. bits .. "_t)"
  if ty.kind == "float" then val = "pcd_f" .. bits .. "_bits(" .. val .. ")"; u = "" end
  if bits == 8 then return "pcd_put_u8(" .. sink .. ", " .. u .. "(" .. val .. "))" end
  if ty.endian == "native" then
    return "pcd_put_u" .. bits .. "x(" .. sink .. ", " .. u .. "(" .. val .. "), " .. sink .. "->x->big)"
  end
  return "pcd_put_u" .. bits .. ty.endian .. "(" .. sink .. ", " .. u .. "(" .. val .. "))"
end

local function type_text(ty)
  local k = ty.kind
  if k == "int" then
    local e = ty.bits == 8 and "" or ty.endian
    return (ty.signed and "s" or "u") .. ty.bits .. e
  end
  if k == "float" then return "f" .. ty.bits .. ty.endian end
  if k == "varint" then return ty.enc == "mojo" and "MOJO varint" or ty.enc end
  if k == "magic" then return "magic" end
  return k
end

local function found_kind(f, ty)
  if f and (f.hex or f.magic) then return "PCD_FOUND_HEX" end
  if ty and (ty.signed or (ty.kind == "varint" and (ty.enc == "sleb128" or ty.enc:match("zigzag")))) then
    return "PCD_FOUND_INT"
  end
  return "PCD_FOUND_UINT"
end

local function numtext(v, hex)
  if hex then return string.format("0x%X", v) end
  return tostring(v)
end

local function case_values_text(u)
  local parts = {}
  local hex = u.mode == "peek" or u.mode == "tag"
  for _, c in ipairs(u.cases) do
    for _, v in ipairs(c.values) do
      if #parts >= 16 then break end
      parts[#parts + 1] = type(v) == "string" and ('"' .. v .. '"') or numtext(v, hex)
    end
  end
  local n = 0
  for _, c in ipairs(u.cases) do n = n + #c.values end
  if n > #parts then parts[#parts + 1] = "..." end
  return "one of " .. table.concat(parts, ", ")
end

local function upper(s) return names.upper(s) end

-- How an error names a magic: "MOJ" when printable, else its bytes in hex.
local function magic_text(bytes)
  if bytes:match("^[%w%p ]+$") then return '"' .. bytes .. '"' end
  return "bytes " .. (bytes:gsub(".", function(ch) return string.format("%02X ", ch:byte()) end)):sub(1, -2)
end

---------------------------------------------------------------------------
-- code buffer with indentation

local Buf = {}
Buf.__index = Buf
local function buf(indent) return setmetatable({ lines = {}, ind = indent or 1 }, Buf) end
function Buf:l(s)
  if s == "" then self.lines[#self.lines + 1] = "" return end
  self.lines[#self.lines + 1] = string.rep("    ", self.ind) .. s
end
function Buf:f(fmt, ...) self:l(string.format(fmt, ...)) end
function Buf:open(s) self:l(s); self.ind = self.ind + 1 end
function Buf:close(s) self.ind = self.ind - 1; self:l(s or "}") end
function Buf:doc(f, extra)
  local d = f.doc
  local head = f.name .. ((d and d ~= "") and (": " .. d) or "")
  if extra then head = head .. " (" .. extra .. ")" end
  for i, line in ipairs((function()
    local t = {}
    for l in (head .. "\n"):gmatch("([^\n]*)\n") do t[#t + 1] = l end
    return t
  end)()) do
    line = line:gsub("%*/", "* /")
    if i == 1 then self:l("/* " .. line) else self:l(" * " .. line) end
  end
  self.lines[#self.lines] = self.lines[#self.lines] .. " */"
end
function Buf:text()
  if #self.lines == 0 then return "" end
  return table.concat(self.lines, "\n") .. "\n"
end

-- "(void)p;" lines for parameters a function body never mentions.
local function unused_params(body, params)
  local out = {}
  for _, p in ipairs(params) do
    -- used as p->..., or passed on as an argument: (p, / , p) / , p,
    local used = body:find("%f[%w_]" .. p .. "%->") or body:find("[%(,] ?" .. p .. "[,%)]")
    if not used then out[#out + 1] = "    (void)" .. p .. ";\n" end
  end
  return table.concat(out)
end

---------------------------------------------------------------------------
-- expressions

local function resolver(env)
  return function(name, node)
    error("unresolved " .. name)
  end
end

local function cexpr(ast, env)
  local function rec(n)
    local k = n.k
    if k == "num" then return expr.cnum(n.v) end
    if k == "paren" then return "(" .. rec(n.a) .. ")" end
    if k == "un" then return n.op .. rec(n.a) end
    if k == "bin" then return "(" .. rec(n.a) .. " " .. n.op .. " " .. rec(n.b) .. ")" end
    if k == "id" then
      local r = n.ref
      if r.version then return "(" .. env.xp .. "->version)" end
      if r.input_size then
        if env.mode ~= "dec" and env.mode ~= "val" then
          error("input_size is only known when decoding (pcgen should not have asked for it here)")
        end
        if not env.decl_set.input_size then
          env.decl_set.input_size = true
          env.decls[#env.decls + 1] = { name = "input_size", ctype = "uint64_t", init = "0" }
        end
        return "input_size"
      end
      if r.state then
        env.need_state = r.region
        return "st->" .. r.state.name
      end
      if r.root then
        env.need_root = true
        local f = r.root
        return "((const " .. env.ir.root.cname .. " *)" .. env.xp .. "->root)->" .. f.member
      end
      local f = r.field
      if env.mode == "dec" or env.mode == "val" then
        env.used_locals[f] = true
        if f.ty.kind == "varint" and f.ty.enc == "mojo" then
          return "(" .. f.local_ .. ".neg ? -(int64_t)" .. f.local_ .. ".mag : (int64_t)" .. f.local_ .. ".mag)"
        end
        return f.local_
      else
        if f.derived then
          env.used_derived[f] = true
          return "d_" .. f.local_:sub(3)
        end
        local m = env.obj .. "->" .. f.member
        if f.ty.kind == "varint" and f.ty.enc == "mojo" then
          return "(" .. m .. ".neg ? -(int64_t)" .. m .. ".mag : (int64_t)" .. m .. ".mag)"
        end
        return m
      end
    end
    error("bad expression node")
  end
  return rec(ast)
end

-- An expression for if (...): without a redundant outer pair of parentheses.
local function cond(ast, env)
  local s = cexpr(ast, env)
  if s:sub(1, 1) == "(" and s:sub(-1) == ")" then
    local depth = 0
    for i = 1, #s do
      local ch = s:sub(i, i)
      if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1 end
      if depth == 0 and i < #s then return s end
    end
    return s:sub(2, -2)
  end
  return s
end

---------------------------------------------------------------------------
-- decode / validate

local dec_struct, dec_field, dec_union, dec_value

local function out_ref(env, member)
  return env.obj .. "->" .. member
end

-- Does validation need this field's value (checks, expressions, sizes)?
local function needs_value(f)
  return f.referenced or f.derived or f.equals ~= nil or f.min ~= nil or f.max ~= nil or
      f.min_expr or f.max_expr or f.check or
      (f.enum and not f.enum_open) or (f.ty and f.ty.byte_order)
end

-- Emits the checks every decoded integer value goes through.
local function dec_checks(b, f, v, at, env)
  local fk = found_kind(f, f.ty)
  local cur = env.cur
  local function cast(x) return "(uint64_t)(" .. x .. ")" end
  if f.equals ~= nil then
    local st = f.magic and "PCD_E_BAD_MAGIC" or "PCD_E_RANGE"
    b:f("if (PCD_UNLIKELY(%s != %s))", v, expr.cnum(f.equals))
    b:f("    return pcd_fail(%s, %s, %s, %s, %s, %s, %s);", cur, at, st, text.cstr(f.errname),
      text.cstr(numtext(f.equals, f.magic or f.hex)), f.magic and "PCD_FOUND_HEX" or fk, cast(v))
  end
  if f.min ~= nil then
    b:f("if (PCD_UNLIKELY(%s < %s))", v, expr.cnum(f.min))
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr("at least " .. numtext(f.min, f.hex)), fk, cast(v))
  end
  if f.max ~= nil then
    b:f("if (PCD_UNLIKELY(%s > %s))", v, expr.cnum(f.max))
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr("at most " .. numtext(f.max, f.hex)), fk, cast(v))
  end
  local signed = f.ty and (f.ty.signed or (f.ty.kind == "varint" and f.ty.ctype:match("^int")))
  local wide = signed and "int64_t" or "uint64_t"
  if f.min_expr then
    b:f("if (PCD_UNLIKELY((%s)%s < (%s)(%s)))", wide, v, wide, cexpr(f.min_expr, env))
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr("at least " .. f.min_src), fk, cast(v))
  end
  if f.max_expr then
    b:f("if (PCD_UNLIKELY((%s)%s > (%s)(%s)))", wide, v, wide, cexpr(f.max_expr, env))
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr("at most " .. f.max_src), fk, cast(v))
  end
  if f.check then
    b:f("if (PCD_UNLIKELY(!(%s)))", cond(f.check, env))
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr(f.expect or ("a value for which " .. f.check_src)), fk, cast(v))
  end
  if f.enum and not f.enum_open and #f.enum > 0 then
    local parts = {}
    for _, it in ipairs(f.enum) do parts[#parts + 1] = it.name .. "=" .. numtext(it.value, f.hex) end
    b:f("switch (%s) {", v)
    local cases = {}
    for _, it in ipairs(f.enum) do cases[#cases + 1] = "case " .. expr.cnum(it.value) .. ":" end
    for i = 1, #cases, 6 do b:l(table.concat(cases, " ", i, math.min(i + 5, #cases))) end
    b:l("    break;")
    b:l("default:")
    b:f("    return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, %s);", cur, at, text.cstr(f.errname),
      text.cstr("one of " .. table.concat(parts, ", ")), fk, cast(v))
    b:l("}")
  end
end

-- The same checks for a MOJO varint (sign and magnitude): compared as a signed number,
-- negative zero equal to zero; a failure shows the value with its sign.
local function mojo_checks(b, f, v, at, cur, fail)
  local function cmp(op, n) return string.format("pcd_mojo_cmp(%s.mag, %s.neg, %s) %s 0", v, v, expr.cnum(n), op) end
  local found = "PCD_MOJO_FOUND(" .. v .. ")"
  if f.equals ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp("!=", f.equals))
    fail(f.magic and "PCD_E_BAD_MAGIC" or "PCD_E_RANGE", numtext(f.equals), found)
  end
  if f.min ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp("<", f.min))
    fail("PCD_E_RANGE", "at least " .. numtext(f.min), found)
  end
  if f.max ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp(">", f.max))
    fail("PCD_E_RANGE", "at most " .. numtext(f.max), found)
  end
end

local function dec_mojo_checks(b, f, v, at, env)
  mojo_checks(b, f, v, at, env.cur, function(st, expected, found)
    b:f("    return pcd_fail(%s, %s, %s, %s, %s, %s);", env.cur, at, st, text.cstr(f.errname),
      text.cstr(expected), found)
  end)
end

-- Applies delta / base transforms to a wire value `w` giving the stored value.
local function dec_transform(b, f, w, env)
  if f.delta then
    env.need_state = f.delta.region
    local sh = f.shift and (" << " .. f.shift) or ""
    b:f("st->%s = (%s)(st->%s + (%s)(%s%s));", f.delta.name, f.delta.ctype, f.delta.name,
      f.delta.ctype, w, sh)
    return "st->" .. f.delta.name
  end
  if f.base then
    local sh = f.shift and (" << " .. f.shift) or ""
    return "(" .. f.ty.ctype .. ")(((uint64_t)(" .. cexpr(f.base, env) .. ") + (uint64_t)(" .. w .. "))" .. sh .. ")"
  end
  return w
end

-- State variables a field resets before it is read or written (option reset).
local function emit_resets(b, f, env)
  if not f.reset then return end
  for _, stv in ipairs(f.reset) do
    env.need_state = stv.region
    b:f("st->%s = 0; /* starts again here */", stv.name)
  end
end

local function declare(env, name, ct, init)
  if not env.decl_set[name] then
    env.decl_set[name] = true
    env.decls[#env.decls + 1] = { name = name, ctype = ct, init = init }
  end
end

-- One scalar (int/float/varint) read standalone (not in a run).
local function dec_scalar(b, f, env, member, errname, local_)
  local ty = f.ty
  local cur = env.cur
  local k = ty.kind
  if k == "int" or k == "float" then
    local w = ty.wire
    declare(env, local_, ty.ctype, "0")
    b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, w)
    b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname),
      text.cstr(type_text(ty)))
    if ty.byte_order then
      -- a magic that decides the byte order of every "native" field after it
      local v = f.equals
      local swapped = 0
      for i = 0, ty.wire - 1 do swapped = swapped | (((v >> (8 * i)) & 0xff) << (8 * (ty.wire - 1 - i))) end
      b:f("%s = pcd_ld_u%dle(%s->p);", local_, ty.bits, cur)
      b:f("if (%s == %s) {", local_, expr.cnum(v))
      b:f("    c->x->big = false;")
      b:f("} else if (%s == %s) {", local_, expr.cnum(swapped))
      b:f("    c->x->big = true;")
      b:f("    %s = %s;", local_, expr.cnum(v))
      b:l("} else {")
      b:f("    return pcd_fail(%s, %s->p, PCD_E_BAD_MAGIC, %s, %s, PCD_FOUND_HEX, %s);", cur, cur,
        text.cstr(errname), text.cstr(numtext(v, true) .. " in either byte order"), local_)
      b:l("}")
    elseif env.mode == "val" and not needs_value(f) then
      b:f("/* (value not needed for validation) */")
    else
      b:f("%s = %s;", local_, load(ty, cur .. "->p"))
      if k == "int" then dec_checks(b, f, local_, cur .. "->p", env) end
    end
    b:f("%s->p += %d;", cur, w)
  elseif k == "varint" then
    local enc = ty.enc
    local has_checks = f.equals or f.min or f.max or (f.enum and not f.enum_open) or
        f.min_expr or f.max_expr or f.check or (enc == "uleb128" and ty.bits == 32)
    local at = "f0_" .. local_:sub(3)
    if has_checks then
      declare(env, at, "const uint8_t *", "NULL")
      b:f("%s = %s->p;", at, cur)
    end
    if env.mode == "val" and not has_checks and not needs_value(f) and (enc == "uleb128" or enc == "sleb128") then
      -- validation of a value nothing looks at: its length is all that matters
      b:f("PCD_TRY(pcd_skip_%s%s(%s, %s));", enc, ty.wrap and "_wrap" or "", cur, text.cstr(errname))
    elseif enc == "uleb128" then
      declare(env, local_, "uint64_t", "0")
      b:f("PCD_TRY(pcd_read_uleb128%s(%s, &%s, %s));", ty.wrap and "_wrap" or "", cur, local_, text.cstr(errname))
      if ty.bits == 32 then
        b:f("if (PCD_UNLIKELY(%s > UINT32_MAX))", local_)
        b:f("    return pcd_fail(%s, %s, PCD_E_OVERFLOW, %s, \"a 32-bit value\", PCD_FOUND_UINT, %s);",
          cur, at, text.cstr(errname), local_)
      end
    elseif enc == "sleb128" then
      declare(env, local_, "int64_t", "0")
      b:f("PCD_TRY(pcd_read_sleb128(%s, &%s, %s));", cur, local_, text.cstr(errname))
    elseif enc == "zigzag64" then
      declare(env, local_, "int64_t", "0")
      b:f("PCD_TRY(pcd_read_zigzag64(%s, &%s, %s));", cur, local_, text.cstr(errname))
    elseif enc == "zigzag32" then
      declare(env, local_, "int32_t", "0")
      b:f("PCD_TRY(pcd_read_zigzag32(%s, &%s, %s));", cur, local_, text.cstr(errname))
    else
      declare(env, local_, "pcd_mojo_int", "{ 0, false }")
      b:f("PCD_TRY(pcd_read_mojo(%s, &%s.mag, &%s.neg, %s));", cur, local_, local_, text.cstr(errname))
    end
    if has_checks and enc ~= "mojo" then dec_checks(b, f, local_, at, env) end
    if has_checks and enc == "mojo" then dec_mojo_checks(b, f, local_, at, env) end
  end
  if env.mode == "dec" and not member and f.in_array and (f.delta or f.base) then
    -- an array element: the stored value replaces the wire value in the local
    b:f("%s = %s;", local_, dec_transform(b, f, local_, env))
  elseif env.mode == "dec" and member then
    local v = dec_transform(b, f, local_, env)
    if k == "varint" and ty.enc == "uleb128" and ty.bits == 32 then v = "(uint32_t)" .. v end
    b:f("%s = %s;", out_ref(env, member), v)
    if v ~= local_ and (f.delta or f.base) then b:f("%s = %s;", local_, out_ref(env, member)) end
  elseif env.mode == "val" and (f.delta or f.base) then
    -- validation does not track stream state
  end
end

local function run_off_ptr(cur, off)
  if off == 0 then return cur .. "->p" end
  return cur .. "->p + " .. off
end

-- A run of fixed-width fields read after one bounds check.
local function dec_run(b, run, env)
  local cur = env.cur
  local names_ = {}
  for _, f in ipairs(run.fields) do names_[#names_ + 1] = f.name end
  env.runs[#env.runs + 1] = run
  run.table = env.fname .. "_run" .. #env.runs
  b:f("/* %s: %d bytes of fixed fields */", table.concat(names_, ", "), run.wire)
  b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, run.wire)
  b:f("    return pcd_fail_run(%s, %s, %d);", cur, run.table, #run.fields)
  for _, f in ipairs(run.fields) do
    local p = run_off_ptr(cur, f.run_off)
    b:doc(f)
    local ty = f.ty
    if ty.kind == "magic" then
      b:f("if (PCD_UNLIKELY(memcmp(%s, %s, %d) != 0))", p, text.cstr(ty.bytes), #ty.bytes)
      b:f("    return pcd_fail_magic(%s, %s, %s, %s, %d);", cur, p, text.cstr(f.errname),
        text.cstr(magic_text(ty.bytes)), #ty.bytes)
    elseif ty.kind == "bytes" then
      declare(env, f.local_, "pcd_bytes", "{ NULL, 0 }")
      b:f("%s.ptr = %s;", f.local_, p)
      if ty.padded then
        b:f("%s.len = pcd_padded_len(%s, %d);", f.local_, p, ty.fixed)
      else
        b:f("%s.len = %d;", f.local_, ty.fixed)
      end
      if env.mode == "dec" then b:f("%s = %s;", out_ref(env, f.member), f.local_) end
    elseif env.mode == "val" and not needs_value(f) then
      b:f("/* (value not needed for validation) */")
    else
      declare(env, f.local_, ty.ctype, "0")
      b:f("%s = %s;", f.local_, load(ty, p))
      if ty.kind == "int" then dec_checks(b, f, f.local_, p, env) end
      if env.mode == "dec" and has_member(f) then b:f("%s = %s;", out_ref(env, f.member), f.local_) end
    end
  end
  b:f("%s->p += %d;", cur, run.wire)
end


-- Generated code calls the inlinable internal decode_/validate_ bodies; the exported
-- names are thin wrappers for callers outside the file.
local function elem_fn(T, suffix)
  if suffix == "decode" or suffix == "validate" then return T.cname .. "_" .. suffix .. "_" end
  return T.cname .. "_" .. suffix
end

-- Arrays: count, bounded allocation, elements.
-- A named struct an array's fast path can read with a plain pointer: fixed-width integers
-- and unsigned LEB128s, nothing checked but a 32-bit bound, nothing else (no conditions,
-- positions, state, sizes). Returns its largest wire size, or nil.
local SIMPLE_FIELD_KEYS = { doc = true, errname = true, local_ = true, member = true, name = true, owner = true,
  ty = true, unit = true, hex = true }
local SIMPLE_TYPE_KEYS = { int = { bits = true, ctype = true, endian = true, kind = true, signed = true, wire = true },
  varint = { bits = true, ctype = true, enc = true, kind = true, wrap = true } }
local function simple_elem(T)
  if T.kind ~= "struct" or not T.named or #T.fields == 0 then return nil end
  local maxw = 0
  for _, g in ipairs(T.fields) do
    for k in pairs(g) do if not SIMPLE_FIELD_KEYS[k] then return nil end end
    local tk = SIMPLE_TYPE_KEYS[g.ty.kind]
    if not tk then return nil end
    for k in pairs(g.ty) do if not tk[k] then return nil end end
    if g.ty.kind == "varint" then
      if g.ty.enc ~= "uleb128" then return nil end
      maxw = maxw + 10
    else
      maxw = maxw + g.ty.wire
    end
  end
  return maxw
end

local function dec_array(b, f, env, member, errname, local_)
  local a = f.ty
  local cur = env.cur
  local et = a.of
  if not et then return end
  local named = (et.kind == "struct" or et.kind == "union")
  -- elements with a stream transform are read one by one
  local fixed = (et.kind == "int" or et.kind == "float") and not a.elem and et.wire or nil
  local minw = lower.min_wire(et)
  local n = "n_" .. local_:sub(3)
  local at = "f0_" .. local_:sub(3)
  declare(env, n, "uint64_t", "0")
  declare(env, at, "const uint8_t *", "NULL")
  b:f("%s = %s->p;", at, cur)
  if a.mode == "prefix" then
    local pf = { name = f.name, errname = errname, ty = a.prefix, local_ = n .. "_raw" }
    if a.prefix.kind == "int" then
      declare(env, pf.local_, a.prefix.ctype, "0")
      b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, a.prefix.wire)
      b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname), text.cstr("element count"))
      b:f("%s = %s;", pf.local_, load(a.prefix, cur .. "->p"))
      b:f("%s->p += %d;", cur, a.prefix.wire)
      b:f("%s = %s;", n, pf.local_)
    else
      b:f("PCD_TRY(pcd_read_uleb128(%s, &%s, %s));", cur, n, text.cstr(errname))
    end
  elseif a.mode == "expr" then
    b:f("%s = (uint64_t)(%s);", n, cexpr(a.count, env))
  elseif a.mode == "counted" then
    env.used_locals[f.counted_by] = true
    b:f("%s = (uint64_t)%s;", n, f.counted_by.local_)
  elseif a.mode == "until_end" then
    if fixed then
      b:f("if (PCD_UNLIKELY(pcd_left(%s) %% %d != 0))", cur, fixed)
      b:f("    return pcd_fail(%s, %s->p, PCD_E_SIZE, %s, \"a whole number of %d-byte elements\", PCD_FOUND_UINT, pcd_left(%s));",
        cur, cur, text.cstr(errname), fixed, cur)
      b:f("%s = pcd_left(%s) / %d;", n, cur, fixed)
    elseif env.mode == "dec" then
      -- count first (validating), then allocate exactly
      b:open("{")
      b:f("pcd_cursor t = *%s;", cur)
      b:f("while (t.p < t.end) {")
      b.ind = b.ind + 1
      if named then
        b:f("PCD_TRY_IN(c->x, %s(&t), %s, (int64_t)%s);", elem_fn(et, "validate"), text.cstr(errname), n)
      else
        dec_value(b, { name = f.name, ty = et, errname = errname, local_ = local_ .. "_e" }, env, nil,
          errname, local_ .. "_e", "(&t)")
      end
      b:f("%s++;", n)
      b:close("}")
      b:close("}")
    end
  elseif a.mode == "until_next" and env.mode == "dec" then
    -- count the elements (validating them) up to the bytes that follow the last one
    local tl = #a.terminator
    b:open("{")
    b:f("pcd_cursor t = *%s;", cur)
    b:l("for (;;) {")
    b.ind = b.ind + 1
    b:f("if (pcd_left(&t) >= %d && memcmp(t.p, %s, %d) == 0) break;", tl, text.cstr(a.terminator), tl)
    b:f("if (PCD_UNLIKELY(pcd_left(&t) == 0))")
    b:f("    return pcd_fail_short(&t, t.p, %s, %s);", text.cstr(errname),
      text.cstr("elements, then " .. magic_text(a.terminator)))
    if named then
      b:f("PCD_TRY_IN(c->x, %s(&t), %s, (int64_t)%s);", elem_fn(et, "validate"), text.cstr(errname), n)
    else
      dec_value(b, { name = f.name, ty = et, errname = errname, local_ = local_ .. "_e" }, env, nil,
        errname, local_ .. "_e", "(&t)")
    end
    b:f("%s++;", n)
    b:close("}")
    b:close("}")
  elseif a.mode == "until" then
    -- decode elements into a scratch element until the terminator, counting
    b:open("{")
    b:f("pcd_cursor t = *%s;", cur)
    b:f("%s e;", et.cname)
    b:l("for (;;) {")
    b.ind = b.ind + 1
    b:f("PCD_TRY_IN(c->x, %s(&t, &e), %s, (int64_t)%s);", elem_fn(et, "decode"), text.cstr(errname), n)
    b:f("%s++;", n)
    local env2 = setmetatable({ obj = "(&e)", mode = "enc" }, { __index = env })
    b:f("if (%s) break;", cond(a["until"], env2))
    b:close("}")
    b:close("}")
  end
  if a.max then
    b:f("if (PCD_UNLIKELY(%s > %s))", n, expr.cnum(a.max))
    b:f("    return pcd_fail(%s, %s, PCD_E_LIMIT, %s, %s, PCD_FOUND_UINT, %s);", cur, at,
      text.cstr(errname), text.cstr("at most " .. a.max .. " elements"), n)
  end
  if a.mode == "until_next" and env.mode == "val" then
    -- validation: elements up to the bytes that follow the last one (not consumed)
    local tl = #a.terminator
    b:l("for (;;) {")
    b.ind = b.ind + 1
    b:f("if (pcd_left(%s) >= %d && memcmp(%s->p, %s, %d) == 0) break;", cur, tl, cur, text.cstr(a.terminator), tl)
    b:f("if (PCD_UNLIKELY(pcd_left(%s) == 0))", cur)
    b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname),
      text.cstr("elements, then " .. magic_text(a.terminator)))
    if named then
      b:f("PCD_TRY_IN(c->x, %s(%s), %s, (int64_t)%s);", elem_fn(et, "validate"), cur, text.cstr(errname), n)
    else
      dec_value(b, { name = f.name, ty = et, errname = errname, local_ = local_ .. "_e" }, env, nil,
        errname, local_ .. "_e", cur)
    end
    b:f("%s++;", n)
    b:close("}")
    return
  end
  local until_dec = a.mode == "until_end" and not fixed and env.mode == "val"
  if until_dec then
    -- validation: walk the elements to the end
    b:f("while (%s->p < %s->end) {", cur, cur)
    b.ind = b.ind + 1
    if named then
      b:f("PCD_TRY_IN(c->x, %s(%s), %s, (int64_t)%s);", elem_fn(et, "validate"), cur, text.cstr(errname), n)
    else
      dec_value(b, { name = f.name, ty = et, errname = errname, local_ = local_ .. "_e" }, env, nil,
        errname, local_ .. "_e", cur)
    end
    b:f("%s++;", n)
    b:close("}")
    return
  end
  local elem_ct = (named and et.cname) or ctype(et)
  if env.mode == "dec" then
    b:f("PCD_TRY(pcd_alloc_array(%s, %s, %s, sizeof(%s), %d, (void **)&%s, %s));", cur, at, n, elem_ct,
      math.max(minw, 0), out_ref(env, member), text.cstr(errname))
    b:f("%s = (size_t)%s;", out_ref(env, (member:gsub("([%w_]+)$", "n_%1"))), n)
  else
    b:f("PCD_TRY(pcd_check_count(%s, %s, %s, %d, %s));", cur, at, n, minw, text.cstr(errname))
  end
  if fixed then
    if env.mode == "dec" then
      b:f("for (uint64_t i = 0; i < %s; i++)", n)
      b:f("    %s[i] = %s;", out_ref(env, member), load(et, cur .. "->p + i * " .. fixed))
    end
    b:f("%s->p += %s * %d;", cur, n, fixed)
    return
  end
  local X0 = a.elem or {}
  local fast = not named and et.kind == "varint" and et.enc == "uleb128" and
      not X0.delta and not X0.base and not X0.shift
  local sw = named and simple_elem(et)
  local skip = env.mode == "val" and not named and et.kind == "varint" and
      (et.enc == "sleb128" or (et.enc == "uleb128" and et.bits ~= 32))
  local ev = env.mode == "dec" and not named and et.kind == "varint" and
      (et.enc == "sleb128" or (et.enc == "uleb128" and et.bits ~= 32)) and (X0.delta or X0.base)
  if ev then
    -- LEB128 elements relative to the stream state (running deltas, or a base): with 8 bytes
    -- left for each, read through a local pointer, the running value kept in a local (a
    -- store into the array could otherwise be the state's, and each element wait for it);
    -- the first element over 8 bytes and those after it take the checked loop below
    fast = true
    b:l("{")
    b.ind = b.ind + 1
    b:l("uint64_t i0 = 0;")
    b:f("if (pcd_left(%s) / 8 >= %s) {", cur, n)
    b.ind = b.ind + 1
    b:f("const uint8_t *q = %s->p;", cur)
    local sh = X0.shift and (" << " .. X0.shift) or ""
    if X0.delta then
      env.need_state = X0.delta.region
      b:f("%s run = st->%s;", X0.delta.ctype, X0.delta.name)
    else
      b:f("uint64_t base = (uint64_t)(%s);", cexpr(X0.base, env))
    end
    b:f("for (; i0 < %s; i0++) {", n)
    b.ind = b.ind + 1
    b:l("uint64_t v;")
    b:l("unsigned len = pcd_leb_fast(q, &v);")
    b:l("if (PCD_UNLIKELY(len == 0)) break;")
    if et.enc == "sleb128" then
      b:l("if ((v >> (7 * len - 1)) & 1) v |= ~UINT64_C(0) << (7 * len); /* the sign, from the last byte's bit 6 */")
    end
    if X0.delta then
      b:f("run = (%s)(run + (%s)(v%s));", X0.delta.ctype, X0.delta.ctype, sh)
      b:f("%s[i0] = (%s)run;", out_ref(env, member), elem_ct)
    else
      b:f("%s[i0] = (%s)((base + v)%s);", out_ref(env, member), elem_ct, sh)
    end
    b:l("q += len;")
    b:close("}")
    if X0.delta then b:f("st->%s = run;", X0.delta.name) end
    b:f("%s->p = q;", cur)
    b:close("}")
  elseif skip then
    -- validation of LEB128 elements nothing looks at: with 8 bytes left for each, their
    -- lengths alone, through a local pointer; the first over 8 bytes and those after it take
    -- the checked loop below
    fast = true
    b:l("{")
    b.ind = b.ind + 1
    b:l("uint64_t i0 = 0;")
    b:f("if (pcd_left(%s) / 8 >= %s) {", cur, n)
    b.ind = b.ind + 1
    b:f("const uint8_t *q = %s->p;", cur)
    b:f("for (; i0 < %s; i0++) {", n)
    b.ind = b.ind + 1
    b:l("unsigned len = pcd_leb_len8(q);")
    b:l("if (PCD_UNLIKELY(len == 0)) break;")
    b:l("q += len;")
    b:close("}")
    b:f("%s->p = q;", cur)
    b:close("}")
  elseif sw then
    -- elements of plain fields: with their largest size left for each, they read through a
    -- local pointer without end checks; the first that needs care (a LEB128 over 8 bytes,
    -- a value too large) and those after it take the checked loop below
    fast = true
    b:l("{")
    b.ind = b.ind + 1
    b:l("uint64_t i0 = 0;")
    b:f("if (pcd_left(%s) / %d >= %s) {", cur, sw, n)
    b.ind = b.ind + 1
    b:f("const uint8_t *q = %s->p;", cur)
    if env.mode == "dec" then
      -- the array in a local: a store into an element could otherwise be the output
      -- struct's pointer to it, reloaded for every element
      b:f("%s *dst = %s;", elem_ct, out_ref(env, member))
    end
    b:f("for (; i0 < %s; i0++) {", n)
    b.ind = b.ind + 1
    b:l("const uint8_t *s = q;")
    for gi, g in ipairs(et.fields) do
      local dst = env.mode == "dec" and string.format("dst[i0].%s", g.member) or nil
      if g.ty.kind == "varint" then
        b:f("uint64_t v%d;", gi)
        b:f("unsigned len%d = pcd_leb_fast(q, &v%d);", gi, gi)
        b:f("if (PCD_UNLIKELY(len%d == 0)) {", gi)
        b:l("    q = s;")
        b:l("    break;")
        b:l("}")
        b:f("q += len%d;", gi)
        if g.ty.bits == 32 then
          b:f("if (PCD_UNLIKELY(v%d > UINT32_MAX)) {", gi)
          b:l("    q = s;")
          b:l("    break;")
          b:l("}")
        end
        if dst then b:f("%s = (%s)v%d;", dst, g.ty.ctype, gi) end
      else
        if dst then b:f("%s = %s;", dst, load(g.ty, "q")) end
        b:f("q += %d;", g.ty.wire)
      end
    end
    b:close("}")
    b:f("%s->p = q;", cur)
    b:close("}")
  elseif fast then
    -- unsigned LEB128 elements: with 10 bytes left for each, they decode without end checks;
    -- the first one that needs care (over 8 bytes, or too large) and those after it take
    -- the checked loop below, which reports exactly what it always did
    b:l("{")
    b.ind = b.ind + 1
    b:l("uint64_t i0 = 0;")
    b:f("if (pcd_left(%s) / 10 >= %s) {", cur, n)
    b.ind = b.ind + 1
    b:f("const uint8_t *q = %s->p;", cur)
    if env.mode == "dec" then b:f("%s *dst = %s;", elem_ct, out_ref(env, member)) end
    b:f("for (; i0 < %s; i0++) {", n)
    b.ind = b.ind + 1
    b:l("uint64_t v;")
    b:l("unsigned len = pcd_leb_fast(q, &v);")
    b:l("if (PCD_UNLIKELY(len == 0)) break;")
    b:l("q += len;")
    if et.bits == 32 then b:l("if (PCD_UNLIKELY(v > UINT32_MAX)) break;") end
    if env.mode == "dec" then
      b:f("dst[i0] = %sv;", et.bits == 32 and "(uint32_t)" or "")
    end
    b:close("}")
    b:f("%s->p = q;", cur)
    b:close("}")
  end
  b:f("for (uint64_t i = %s; i < %s; i++) {", fast and "i0" or "0", n)
  b.ind = b.ind + 1
  if named then
    if env.mode == "dec" then
      b:f("PCD_TRY_IN(c->x, %s(%s, &%s[i]), %s, (int64_t)i);", elem_fn(et, "decode"), cur,
        out_ref(env, member), text.cstr(errname))
    else
      b:f("PCD_TRY_IN(c->x, %s(%s), %s, (int64_t)i);", elem_fn(et, "validate"), cur, text.cstr(errname))
    end
  else
    local el = local_ .. "_e"
    local X = a.elem or {}
    dec_value(b, { name = f.name, ty = et, errname = errname, local_ = el, in_array = true,
      delta = X.delta, base = X.base, shift = X.shift }, env, nil, errname, el, cur)
    if env.mode == "dec" then b:f("%s[i] = %s;", out_ref(env, member), el) end
  end
  b:close("}")
  if fast then b:close("}") end
end

-- Byte strings.
local function dec_bytes(b, f, env, member, errname, local_)
  local ty = f.ty
  local cur = env.cur
  declare(env, local_, "pcd_bytes", "{ NULL, 0 }")
  local mode = ty.mode
  if mode == "cstring" then
    b:f("PCD_TRY(pcd_read_cstring(%s, %s, &%s, %s));", cur, expr.cnum(ty.max or 0), local_, text.cstr(errname))
  elseif mode == "prefix" then
    local n = "len_" .. local_:sub(3)
    local pf = ty.prefix
    if pf.kind == "int" then
      declare(env, n, "uint64_t", "0")
      b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, pf.wire)
      b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname), text.cstr("length"))
      b:f("%s = %s;", n, load(pf, cur .. "->p"))
      b:f("%s->p += %d;", cur, pf.wire)
    else
      declare(env, n, "uint64_t", "0")
      b:f("PCD_TRY(pcd_read_uleb128(%s, &%s, %s));", cur, n, text.cstr(errname))
    end
    if ty.max then
      b:f("if (PCD_UNLIKELY(%s > %s))", n, expr.cnum(ty.max))
      b:f("    return pcd_fail(%s, %s->p, PCD_E_LIMIT, %s, %s, PCD_FOUND_UINT, %s);", cur, cur,
        text.cstr(errname), text.cstr("at most " .. ty.max .. " bytes"), n)
    end
    b:f("PCD_TRY(pcd_read_bytes(%s, %s, &%s, %s));", cur, n, local_, text.cstr(errname))
  elseif mode == "expr" then
    b:f("PCD_TRY(pcd_read_bytes(%s, (uint64_t)(%s), &%s, %s));", cur, cexpr(ty.size, env), local_, text.cstr(errname))
  elseif mode == "fixed" then
    b:f("PCD_TRY(pcd_read_bytes(%s, %d, &%s, %s));", cur, ty.fixed, local_, text.cstr(errname))
    if ty.padded then b:f("%s.len = pcd_padded_len(%s.ptr, %d);", local_, local_, ty.fixed) end
  else -- rest, sized
    b:f("%s.ptr = %s->p;", local_, cur)
    b:f("%s.len = pcd_left(%s);", local_, cur)
    b:f("%s->p = %s->end;", cur, cur)
  end
  if env.mode == "dec" and member then b:f("%s = %s;", out_ref(env, member), local_) end
end

-- Any value (used for fields, union cases and array elements). cur overrides env.cur.
function dec_value(b, f, env, member, errname, local_, cur)
  local saved = env.cur
  if cur then env.cur = cur end
  local ty = f.ty
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then
    dec_scalar(b, f, env, member, errname, local_)
  elseif k == "magic" then
    b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", env.cur, #ty.bytes)
    b:f("    return pcd_fail_short(%s, %s->p, %s, \"magic\");", env.cur, env.cur, text.cstr(errname))
    b:f("if (PCD_UNLIKELY(memcmp(%s->p, %s, %d) != 0))", env.cur, text.cstr(ty.bytes), #ty.bytes)
    b:f("    return pcd_fail_magic(%s, %s->p, %s, %s, %d);", env.cur, env.cur, text.cstr(errname),
      text.cstr(magic_text(ty.bytes)), #ty.bytes)
    b:f("%s->p += %d;", env.cur, #ty.bytes)
  elseif k == "bytes" then
    dec_bytes(b, f, env, member, errname, local_)
  elseif k == "array" then
    dec_array(b, f, env, member, errname, local_)
  elseif k == "struct" or k == "union" then
    if ty.named then
      if env.mode == "dec" then
        b:f("PCD_TRY_IN(c->x, %s(%s, &%s), %s, -1);", elem_fn(ty, "decode"), env.cur,
          out_ref(env, member), text.cstr(errname))
      else
        b:f("PCD_TRY_IN(c->x, %s(%s), %s, -1);", elem_fn(ty, "validate"), env.cur, text.cstr(errname))
      end
    elseif k == "struct" then
      dec_struct(b, ty, env)
    else
      dec_union(b, ty, env, f)
    end
  elseif k == "records" then
    -- placed by dec_regions once every other field is known
    local _ = k
  end
  env.cur = saved
end

-- Does any expression of these fields read the input's size?
local function ast_uses_input_size(ast)
  if not ast then return false end
  if ast.k == "id" and ast.ref and ast.ref.input_size then return true end
  return ast_uses_input_size(ast.a) or ast_uses_input_size(ast.b)
end

local function field_uses_input_size(f)
  local ty = f.ty or {}
  return ast_uses_input_size(f.when) or ast_uses_input_size(f.at) or ast_uses_input_size(f.min_expr) or
      ast_uses_input_size(f.max_expr) or ast_uses_input_size(f.check) or
      (ty.kind == "bytes" and ast_uses_input_size(ty.size)) or (ty.kind == "array" and ast_uses_input_size(ty.count))
end

-- Loads the input's size before code that uses it (a short read while the input is open).
local function load_input_size(b, env)
  b:f("PCD_TRY(pcd_input_size(%s, &input_size));", env.cur)
end

-- One struct field, with its condition, its size region, and total_size.
function dec_field(b, f, env)
  if f.run and f.run.fields[1] ~= f then return end -- emitted with its run
  if f.ty.kind == "records" then return end -- placed by dec_regions, after every other field
  local needs_size = false
  for _, g in ipairs(f.run and f.run.fields or { f }) do needs_size = needs_size or field_uses_input_size(g) end
  if needs_size then load_input_size(b, env) end
  if f.run then
    dec_run(b, f.run, env)
  else
    local extra = f.when and ("when " .. (f.when_src or "a condition holds")) or nil
    if f.ty.kind ~= "records" then b:doc(f, extra) end
    emit_resets(b, f, env)
    local function body()
      if f.optional then
        -- an optional magic: present when the bytes there match, absent otherwise (no error)
        declare(env, f.local_, "bool", "false")
        local where = f.at and ("(uint64_t)(" .. cexpr(f.at, env) .. "), false") or (f.at_end .. ", true")
        b:f("PCD_TRY(pcd_peek_match(%s, %s, (const uint8_t *)%s, %d, &%s));", env.cur, where,
          text.cstr(f.ty.bytes), #f.ty.bytes, f.local_)
        if env.mode == "dec" then b:f("%s = %s;", out_ref(env, f.member), f.local_) end
      elseif (f.at or f.at_end) and f.ty.kind ~= "records" then
        -- placed by a header or footer: read it there, the cursor stays where it is
        local r = "r_" .. f.local_:sub(3)
        local cr = "c_" .. f.local_:sub(3)
        b:open("{")
        b:f("pcd_cursor %s = { 0 };", r)
        if f.at then
          b:f("PCD_TRY(pcd_seek(%s, (uint64_t)(%s), &%s, %s));", env.cur, cexpr(f.at, env), r, text.cstr(f.errname))
        else
          b:f("PCD_TRY(pcd_seek_end(%s, %d, &%s, %s));", env.cur, f.at_end, r, text.cstr(f.errname))
        end
        b:f("pcd_cursor *%s = &%s;", cr, r)
        dec_value(b, f, env, has_member(f) and f.member or nil, f.errname, f.local_, cr)
        b:close("}")
      elseif f.sized_by and f.ty.kind ~= "records" then
        local r = "r_" .. f.local_:sub(3)
        local cr = "c_" .. f.local_:sub(3)
        env.used_locals[f.sized_by] = true
        b:open("{")
        b:f("pcd_cursor %s = { 0 };", r)
        b:f("PCD_TRY(pcd_take(%s, (uint64_t)%s, &%s, %s, \"the bytes its size counts\"));", env.cur,
          f.sized_by.local_, r, text.cstr(f.errname))
        b:f("pcd_cursor *%s = &%s;", cr, r)
        dec_value(b, f, env, f.member, f.errname, f.local_, cr)
        b:f("if (PCD_UNLIKELY(%s->p != %s->end))", cr, cr)
        b:f("    return pcd_fail(%s, %s->p, PCD_E_SIZE, %s, \"content that fills its size\", PCD_FOUND_UINT, pcd_left(%s));",
          cr, cr, text.cstr(f.sized_by.errname), cr)
        b:close("}")
      else
        dec_value(b, f, env, has_member(f) and f.member or nil, f.errname, f.local_)
      end
      if f.when and env.mode == "dec" then b:f("%s = true;", out_ref(env, (f.member:gsub("([%w_]+)$", "has_%1")))) end
    end
    if f.when then
      b:f("if (%s) {", cond(f.when, env))
      b.ind = b.ind + 1
      body()
      b:close("}")
    else
      body()
    end
  end
  -- a total size: the rest of the named type lies within it
  local last = f.run and f.run.last or f
  for _, g in ipairs(f.run and f.run.fields or { f }) do
    if g.derived and g.derived.kind == "total_size" then
      local T = env.T
      env.used_locals[g] = true
      b:f("/* the rest of %s lies within its %s bytes */", T.tname, g.name)
      b:f("if (PCD_UNLIKELY(%s < %d))", g.local_, T.min)
      b:f("    return pcd_fail(%s, s0, PCD_E_RANGE, %s, %s, PCD_FOUND_UINT, (uint64_t)%s);", env.cur,
        text.cstr(g.errname), text.cstr("at least " .. T.min .. " (the smallest " .. T.tname .. ")"),
        g.local_)
      b:f("if (PCD_UNLIKELY((uint64_t)%s < (uint64_t)(%s->p - s0)))", g.local_, env.cur)
      b:f("    return pcd_fail(%s, s0, PCD_E_RANGE, %s, \"at least the bytes read so far\", PCD_FOUND_UINT, (uint64_t)%s);",
        env.cur, text.cstr(g.errname), g.local_)
      b:f("PCD_TRY(pcd_take(%s, (uint64_t)%s - (uint64_t)(%s->p - s0), &r_total, %s, %s));", env.cur,
        g.local_, env.cur, text.cstr(g.errname), text.cstr("the bytes its size counts"))
      b:f("%s = &r_total;", env.cur)
      env.total_field = g
    end
  end
  local _ = last
end

-- Where each records region of S lies, once every other field is known (its bounds may
-- come from a footer read after it).
local function dec_regions(b, S, env)
  if env.mode == "dec" then
    for _, f in ipairs(S.fields) do
      local R = f.ty
      if R and R.kind == "records" and (ast_uses_input_size(f.when) or ast_uses_input_size(R.at) or
          ast_uses_input_size(R.size_expr) or ast_uses_input_size(R.count_expr) or
          ast_uses_input_size(R.compression)) then
        load_input_size(b, env)
        break
      end
    end
  end
  for _, f in ipairs(S.fields) do
    local R = f.ty
    if R and R.kind == "records" and env.mode == "dec" then
      local m = out_ref(env, f.member)
      b:f("/* %s: where its records lie (read one at a time by the stream driver) */", f.name)
      if f.when then
        b:f("if (!(%s)) {", cond(f.when, env))
        b:f("    %s.absent = true; /* when %s */", m, f.when_src)
        b:l("} else {")
        b.ind = b.ind + 1
      end
      if R.at then
        b:f("%s.offset = (uint64_t)(%s);", m, cexpr(R.at, env))
      else
        b:f("%s.offset = pcd_offset(%s, %s->p);", m, env.cur, env.cur)
      end
      if f.sized_by then
        env.used_locals[f.sized_by] = true
        local extra = f.sized_by.derived and f.sized_by.derived.extra
        if extra and extra > 0 then
          -- the size also counts bytes that are not the region's
          b:f("if (PCD_UNLIKELY((uint64_t)%s < %d))", f.sized_by.local_, extra)
          b:f("    return pcd_fail(%s, %s->p, PCD_E_RANGE, %s, \"at least %d\", PCD_FOUND_UINT, (uint64_t)%s);",
            env.cur, env.cur, text.cstr(f.sized_by.errname), extra, f.sized_by.local_)
          b:f("%s.size = (uint64_t)%s - %d;", m, f.sized_by.local_, extra)
        else
          b:f("%s.size = (uint64_t)%s;", m, f.sized_by.local_)
        end
        b:f("%s.sized = true;", m)
      elseif R.size_expr then
        b:f("%s.size = (uint64_t)(%s);", m, cexpr(R.size_expr, env))
        b:f("%s.sized = true;", m)
      end
      if R.counted_by then
        env.used_locals[R.counted_by] = true
        b:f("%s.count = (uint64_t)%s;", m, R.counted_by.local_)
        b:f("%s.counted = true;", m)
      elseif R.count_expr then
        b:f("%s.count = (uint64_t)(%s);", m, cexpr(R.count_expr, env))
        b:f("%s.counted = true;", m)
      end
      if R.compression then
        b:f("%s.compression = (uint8_t)(%s);", m, cexpr(R.compression, env))
      elseif R.zstd_frame then
        b:f("%s.compression = PCD_REGION_ZSTD_FRAME;", m)
      end
      if f.when then b:close("}") end
    end
  end
end

function dec_struct(b, S, env)
  for _, f in ipairs(S.fields) do
    if f.ty then dec_field(b, f, env) end
  end
  dec_regions(b, S, env)
end

function dec_union(b, U, env, f)
  local cur = env.cur
  local mpre = f and (f.member .. ".") or ""
  local errname = f and f.errname or U.tname
  local tagv
  if U.mode == "peek" then
    local ty = U.tagty
    tagv = "tag_" .. (f and f.local_:sub(3) or "u")
    declare(env, tagv, "uint64_t", "0")
    b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, ty.wire)
    b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname), text.cstr(case_values_text(U)))
    b:f("%s = %s;", tagv, load(ty, cur .. "->p"))
  elseif U.mode == "tag" and U.name_tag then
    -- a name: NUL-padded, compared up to its first NUL
    local ty = U.tagty
    tagv = "tag_" .. (f and f.local_:sub(3) or "u")
    declare(env, tagv, "pcd_bytes", "{ NULL, 0 }")
    b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, ty.wire)
    b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname), text.cstr(case_values_text(U)))
    b:f("%s.ptr = %s->p;", tagv, cur)
    b:f("%s.len = pcd_padded_len(%s->p, %d);", tagv, cur, ty.wire)
  elseif U.mode == "tag" then
    local ty = U.tagty
    tagv = "tag_" .. (f and f.local_:sub(3) or "u")
    declare(env, tagv, "uint64_t", "0")
    b:f("if (PCD_UNLIKELY(pcd_left(%s) < %d))", cur, ty.wire)
    b:f("    return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, text.cstr(errname), text.cstr(case_values_text(U)))
    b:f("%s = %s;", tagv, load(ty, cur .. "->p"))
  else
    tagv = cexpr(U.on, env)
  end
  local at = cur .. "->p"
  local after_tag = U.mode == "tag" and (cur .. "->p += " .. U.tagty.wire .. ";") or nil
  local case_body_
  -- Each case declares its own locals in its block: a union of many cases does not
  -- initialise every case's locals on every call.
  local function case_body(c)
    local outer, outer_set = env.decls, env.decl_set
    env.decls = {}
    env.decl_set = setmetatable({}, { __index = outer_set })
    local at = #b.lines
    case_body_(c)
    local ins = {}
    for _, d in ipairs(env.decls) do
      local init = d.init and (" = " .. d.init) or ""
      local sp = d.ctype:sub(-1) == "*" and "" or " "
      local un = (env.mode == "val" or env.mode == "size") and "PCD_UNUSED " or ""
      ins[#ins + 1] = string.rep("    ", b.ind) .. un .. d.ctype .. sp .. d.name .. init .. ";"
    end
    for i, l in ipairs(ins) do table.insert(b.lines, at + i, l) end
    env.decls, env.decl_set = outer, outer_set
  end
  case_body_ = function(c)
    if env.mode == "dec" then
      b:f("%s = %s;", out_ref(env, mpre .. "which"), c.const)
      if U.mode == "tag" and not U.name_tag then b:f("%s = %s;", out_ref(env, mpre .. "tag"), tagv) end
    end
    if after_tag then b:l(after_tag) end
    local ty = c.ty
    if ty.kind == "struct" and not ty.named then
      dec_struct(b, ty, env)
    elseif ty.kind == "union" and not ty.named then
      dec_union(b, ty, env, { member = c.member, errname = c.errname, local_ = "v_" .. c.member:gsub("%.", "_") })
    elseif ty.named then
      if env.mode == "dec" then
        b:f("PCD_TRY_IN(c->x, %s(%s, &%s), %s, -1);", elem_fn(ty, "decode"), cur, out_ref(env, c.member),
          text.cstr(c.errname))
      else
        b:f("PCD_TRY_IN(c->x, %s(%s), %s, -1);", elem_fn(ty, "validate"), cur, text.cstr(c.errname))
      end
    else
      local m = ty.kind == "array" and (c.member .. ".items") or c.member
      local pf = { name = c.name, ty = ty, errname = c.errname, member = m,
        local_ = "v_" .. c.member:gsub("%.", "_") }
      dec_value(b, pf, env, m, c.errname, pf.local_)
    end
  end
  if U.string_tag then
    local first = true
    local dflt
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c else
        local conds = {}
        for _, v in ipairs(c.values) do
          conds[#conds + 1] = string.format("pcd_bytes_eq(%s, %s, %d)", tagv, text.cstr(v), #v)
        end
        b:f("%sif (%s) {", first and "" or "} else ", table.concat(conds, " || "))
        first = false
        b.ind = b.ind + 1
        case_body(c)
        b.ind = b.ind - 1
      end
    end
    if dflt then
      b:l(first and "{" or "} else {")
      b.ind = b.ind + 1
      case_body(dflt)
      b.ind = b.ind - 1
      b:l("}")
    elseif U.name_tag then
      b:l("} else {")
      b:f("    return pcd_fail_name_tag(%s, %s, %s, %s, %d);", cur, at, text.cstr(errname),
        text.cstr(case_values_text(U)), U.tagty.wire)
      b:l("}")
    else
      b:l("} else {")
      b:f("    return pcd_fail(%s, %s, PCD_E_BAD_TAG, %s, %s, PCD_FOUND_NONE, 0);", cur, at,
        text.cstr(errname), text.cstr(case_values_text(U)))
      b:l("}")
    end
    return
  end
  b:f("switch (%s) {", tagv)
  local dflt
  for _, c in ipairs(U.cases) do
    if c.default then dflt = c else
      local labels = {}
      for _, v in ipairs(c.values) do labels[#labels + 1] = "case " .. expr.cnum(v) .. ":" end
      for i = 1, #labels, 6 do b:l(table.concat(labels, " ", i, math.min(i + 5, #labels))) end
      b.ind = b.ind + 1
      b:l("{")
      b.ind = b.ind + 1
      case_body(c)
      b.ind = b.ind - 1
      b:l("}")
      b:l("break;")
      b.ind = b.ind - 1
    end
  end
  b:l("default:")
  b.ind = b.ind + 1
  if dflt then
    b:l("{")
    b.ind = b.ind + 1
    case_body(dflt)
    b.ind = b.ind - 1
    b:l("}")
    b:l("break;")
  else
    b:f("return pcd_fail(%s, %s, PCD_E_BAD_TAG, %s, %s, PCD_FOUND_HEX, (uint64_t)(%s));", cur, at,
      text.cstr(errname), text.cstr(case_values_text(U)), tagv)
  end
  b.ind = b.ind - 1
  b:l("}")
end

---------------------------------------------------------------------------
-- encode / size

local enc_struct, enc_value, enc_union

local function enc_fail(b, env, st, errname, expected, fk, found)
  if env.mode == "size" then return end
  b:f("    return pcd_sink_fail(s, %s, %s, %s, %s, (uint64_t)(%s));", st, text.cstr(errname),
    text.cstr(expected), fk, found)
end

local function acc(b, env, n)
  b:f("%s += %s;", env.acc or "n", n)
end

-- The wire value of an integer field given its stored value (delta, base).
local function enc_transform(b, f, v, env, wt)
  if f.delta then
    env.need_state = f.delta.region
    local w = "w_" .. f.local_:sub(3)
    declare(env, w, wt, "0")
    local sh = f.shift and (" >> " .. f.shift) or ""
    b:f("%s = (%s)((%s)((uint64_t)(%s)%s) - st->%s);", w, wt, f.delta.ctype, v, sh, f.delta.name)
    b:f("st->%s = (%s)((uint64_t)(%s)%s);", f.delta.name, f.delta.ctype, v, sh)
    return w
  end
  if f.base then
    local w = "w_" .. f.local_:sub(3)
    declare(env, w, wt, "0")
    local sh = f.shift and (" >> " .. f.shift) or ""
    if f.shift and env.mode == "enc" then
      b:f("if (PCD_UNLIKELY(((uint64_t)(%s) & %d) != 0))", v, (1 << f.shift) - 1)
      enc_fail(b, env, "PCD_E_RANGE", f.errname, "a multiple of " .. (1 << f.shift), "PCD_FOUND_HEX", v)
    end
    b:f("%s = (%s)(((uint64_t)(%s)%s) - (uint64_t)(%s));", w, wt, v, sh, cexpr(f.base, env))
    return w
  end
  return v
end

local function enc_checks(b, f, v, env)
  if env.mode == "size" then return end
  if patched(f) then return end -- its value is only known after its region
  local fk = found_kind(f, f.ty)
  local signed = f.ty and (f.ty.signed or (f.ty.kind == "varint" and f.ty.ctype:match("^int")))
  local wide = signed and "int64_t" or "uint64_t"
  if f.min_expr and enc_evaluable(f.min_expr) then
    b:f("if (PCD_UNLIKELY((%s)(%s) < (%s)(%s)))", wide, v, wide, cexpr(f.min_expr, env))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, "at least " .. f.min_src, fk, v)
  end
  if f.max_expr and enc_evaluable(f.max_expr) then
    b:f("if (PCD_UNLIKELY((%s)(%s) > (%s)(%s)))", wide, v, wide, cexpr(f.max_expr, env))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, "at most " .. f.max_src, fk, v)
  end
  if f.check and enc_evaluable(f.check) then
    b:f("if (PCD_UNLIKELY(!(%s)))", cond(f.check, env))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, f.expect or ("a value for which " .. f.check_src), fk, v)
  end
  if f.equals ~= nil and not f.magic then
    b:f("if (PCD_UNLIKELY(%s != %s))", v, expr.cnum(f.equals))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, numtext(f.equals, f.hex), fk, v)
  end
  if f.min ~= nil then
    b:f("if (PCD_UNLIKELY(%s < %s))", v, expr.cnum(f.min))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, "at least " .. numtext(f.min, f.hex), fk, v)
  end
  if f.max ~= nil then
    b:f("if (PCD_UNLIKELY(%s > %s))", v, expr.cnum(f.max))
    enc_fail(b, env, "PCD_E_RANGE", f.errname, "at most " .. numtext(f.max, f.hex), fk, v)
  end
  if f.enum and not f.enum_open and #f.enum > 0 then
    b:f("switch (%s) {", v)
    local cases = {}
    for _, it in ipairs(f.enum) do cases[#cases + 1] = "case " .. expr.cnum(it.value) .. ":" end
    for i = 1, #cases, 6 do b:l(table.concat(cases, " ", i, math.min(i + 5, #cases))) end
    b:l("    break;")
    b:l("default:")
    enc_fail(b, env, "PCD_E_RANGE", f.errname, "a value of its enum", fk, v)
    b:l("}")
  end
end

local function range_of(ty)
  if ty.kind == "int" then
    if ty.signed then
      return "INT" .. ty.bits .. "_MIN", "INT" .. ty.bits .. "_MAX"
    end
    return nil, "UINT" .. ty.bits .. "_MAX"
  end
  return nil, nil
end

local function enc_scalar(b, f, env, v)
  local ty = f.ty
  local k = ty.kind
  if k == "int" or k == "float" then
    if env.mode == "size" then acc(b, env, ty.wire) return end
    if k == "int" then enc_checks(b, f, v, env) end
    local w = v
    if k == "int" then w = enc_transform(b, f, v, env, ty.ctype) end
    if f.derived and k == "int" and ty.bits < 64 then
      local _, hi = range_of(ty)
      b:f("if (PCD_UNLIKELY((uint64_t)(%s) > %s))", v, hi)
      enc_fail(b, env, "PCD_E_RANGE", f.errname, "a value that fits in " .. type_text(ty), "PCD_FOUND_UINT", v)
    end
    if f.relocate then
      -- an offset into the stream: it moves with the record it points into
      local r = "o_" .. f.local_:sub(3)
      declare(env, r, "uint64_t", "0")
      b:f("%s = (uint64_t)(%s);", r, w)
      b:f("if (s->x->reloc && PCD_UNLIKELY(!s->x->reloc(s->x->reloc_ud, %s, &%s)))", r, r)
      enc_fail(b, env, "PCD_E_INVALID", f.errname, "an offset into a record written before it (to move with that record)",
        "PCD_FOUND_UINT", w)
      if ty.bits < 64 then
        local _, hi = range_of(ty)
        b:f("if (PCD_UNLIKELY(%s > %s))", r, hi)
        enc_fail(b, env, "PCD_E_RANGE", f.errname, "an offset that fits in " .. type_text(ty), "PCD_FOUND_UINT", r)
      end
      w = r
    end
    b:f("PCD_TRY(%s);", put(ty, w, "s"))
  elseif k == "varint" then
    local enc = ty.enc
    if enc ~= "mojo" then enc_checks(b, f, v, env) end
    if enc == "mojo" and env.mode ~= "size" then
      mojo_checks(b, f, "(" .. v .. ")", nil, "s", function(st, expected, found)
        if st == "PCD_E_BAD_MAGIC" then st = "PCD_E_RANGE" end
        b:f("    return pcd_sink_fail(s, %s, %s, %s, %s);", st, text.cstr(f.errname), text.cstr(expected), found)
      end)
    end
    if enc == "uleb128" then
      local w = enc_transform(b, f, v, env, "uint64_t")
      if env.mode == "size" then acc(b, env, "pcd_size_uleb128((uint64_t)(" .. w .. "))") return end
      b:f("PCD_TRY(pcd_put_uleb128(s, (uint64_t)(%s)));", w)
    elseif enc == "sleb128" then
      local w = enc_transform(b, f, v, env, "int64_t")
      if env.mode == "size" then acc(b, env, "pcd_size_sleb128((int64_t)(" .. w .. "))") return end
      b:f("PCD_TRY(pcd_put_sleb128(s, (int64_t)(%s)));", w)
    elseif enc == "zigzag64" then
      local w = enc_transform(b, f, v, env, "int64_t")
      if env.mode == "size" then acc(b, env, "pcd_size_uleb128(pcd_zigzag64((int64_t)(" .. w .. ")))") return end
      b:f("PCD_TRY(pcd_put_zigzag64(s, (int64_t)(%s)));", w)
    elseif enc == "zigzag32" then
      local w = enc_transform(b, f, v, env, "int32_t")
      if env.mode == "size" then acc(b, env, "pcd_size_uleb128(pcd_zigzag32((int32_t)(" .. w .. ")))") return end
      b:f("PCD_TRY(pcd_put_zigzag32(s, (int32_t)(%s)));", w)
    else
      if env.mode == "size" then acc(b, env, "pcd_size_mojo((" .. v .. ").mag)") return end
      b:f("PCD_TRY(pcd_put_mojo(s, (%s).mag, (%s).neg));", v, v)
    end
  end
end

local function enc_bytes(b, f, env, v, errname)
  local ty = f.ty
  local mode = ty.mode
  if mode == "cstring" then
    if env.mode == "size" then acc(b, env, "(" .. v .. ").len + 1") return end
    b:f("if (PCD_UNLIKELY(pcd_bytes_has_nul(%s)))", v)
    enc_fail(b, env, "PCD_E_RANGE", errname, "a string without NUL bytes", "PCD_FOUND_NONE", 0)
    if ty.max then
      b:f("if (PCD_UNLIKELY((%s).len > %s))", v, expr.cnum(ty.max))
      enc_fail(b, env, "PCD_E_LIMIT", errname, "at most " .. ty.max .. " bytes", "PCD_FOUND_UINT", "(" .. v .. ").len")
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
    b:l("PCD_TRY(pcd_put_u8(s, 0));")
  elseif mode == "prefix" then
    local pf = ty.prefix
    if env.mode == "size" then
      if pf.kind == "int" then acc(b, env, pf.wire .. " + (" .. v .. ").len")
      else acc(b, env, "pcd_size_uleb128((" .. v .. ").len) + (" .. v .. ").len") end
      return
    end
    local _, hi = range_of(pf)
    local lim = ty.max and expr.cnum(ty.max) or hi
    if lim then
      b:f("if (PCD_UNLIKELY((uint64_t)(%s).len > (uint64_t)%s))", v, lim)
      enc_fail(b, env, "PCD_E_RANGE", errname, "a length that fits its " .. type_text(pf) .. " prefix",
        "PCD_FOUND_UINT", "(" .. v .. ").len")
    end
    if pf.kind == "int" then
      b:f("PCD_TRY(%s);", put(pf, "(" .. v .. ").len", "s"))
    else
      b:f("PCD_TRY(pcd_put_uleb128(s, (uint64_t)(%s).len));", v)
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
  elseif mode == "fixed" then
    if env.mode == "size" then acc(b, env, ty.fixed) return end
    if ty.padded then
      b:f("if (PCD_UNLIKELY((%s).len > %d || pcd_bytes_has_nul(%s)))", v, ty.fixed, v)
      enc_fail(b, env, "PCD_E_RANGE", errname, "at most " .. ty.fixed .. " bytes without NUL", "PCD_FOUND_UINT", "(" .. v .. ").len")
      b:f("PCD_TRY(pcd_put_padded(s, %s, %d));", v, ty.fixed)
    else
      b:f("if (PCD_UNLIKELY((%s).len != %d))", v, ty.fixed)
      enc_fail(b, env, "PCD_E_RANGE", errname, "exactly " .. ty.fixed .. " bytes", "PCD_FOUND_UINT", "(" .. v .. ").len")
      b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, %d));", v, ty.fixed)
    end
  elseif mode == "expr" then
    if env.mode == "size" then acc(b, env, "(" .. v .. ").len") return end
    if enc_evaluable(ty.size) then
      b:f("if (PCD_UNLIKELY((uint64_t)(%s).len != (uint64_t)(%s)))", v, cexpr(ty.size, env))
      enc_fail(b, env, "PCD_E_SIZE", errname, "the length its size expression gives", "PCD_FOUND_UINT", "(" .. v .. ").len")
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
  else
    if env.mode == "size" then acc(b, env, "(" .. v .. ").len") return end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
  end
end

local function enc_array(b, f, env, member, errname)
  local a = f.ty
  local et = a.of
  local named = et.kind == "struct" or et.kind == "union"
  local arr = env.obj .. "->" .. member
  local cnt = env.obj .. "->" .. member:gsub("([%w_]+)$", "n_%1")
  if a.mode == "prefix" then
    local pf = a.prefix
    if env.mode == "size" then
      if pf.kind == "int" then acc(b, env, pf.wire) else acc(b, env, "pcd_size_uleb128(" .. cnt .. ")") end
    else
      local _, hi = range_of(pf)
      if hi then
        b:f("if (PCD_UNLIKELY((uint64_t)%s > (uint64_t)%s))", cnt, hi)
        enc_fail(b, env, "PCD_E_RANGE", errname, "an element count that fits its " .. type_text(pf) .. " prefix", "PCD_FOUND_UINT", cnt)
      end
      if pf.kind == "int" then b:f("PCD_TRY(%s);", put(pf, cnt, "s"))
      else b:f("PCD_TRY(pcd_put_uleb128(s, (uint64_t)%s));", cnt) end
    end
  elseif a.mode == "expr" and env.mode == "enc" then
    b:f("if (PCD_UNLIKELY((uint64_t)%s != (uint64_t)(%s)))", cnt, cexpr(a.count, env))
    enc_fail(b, env, "PCD_E_SIZE", errname, "the element count its count expression gives", "PCD_FOUND_UINT", cnt)
  end
  if a.max and env.mode == "enc" then
    b:f("if (PCD_UNLIKELY(%s > %s))", cnt, expr.cnum(a.max))
    enc_fail(b, env, "PCD_E_LIMIT", errname, "at most " .. a.max .. " elements", "PCD_FOUND_UINT", cnt)
  end
  if a.mode == "until" and env.mode == "enc" then
    b:f("if (PCD_UNLIKELY(%s == 0))", cnt)
    enc_fail(b, env, "PCD_E_SIZE", errname, "a terminating element", "PCD_FOUND_UINT", cnt)
  end
  local fixed = (et.kind == "int" or et.kind == "float") and not a.elem and et.wire
  if fixed and env.mode == "size" then
    acc(b, env, "(uint64_t)" .. cnt .. " * " .. fixed)
    return
  end
  b:f("for (size_t i = 0; i < %s; i++) {", cnt)
  b.ind = b.ind + 1
  if named then
    if env.mode == "size" then
      acc(b, env, elem_fn(et, "size") .. "(x, &" .. arr .. "[i])")
    else
      b:f("PCD_TRY_IN(s->x, %s(s, &%s[i]), %s, (int64_t)i);", elem_fn(et, "encode"), arr, text.cstr(errname))
    end
  else
    local X = a.elem or {}
    enc_value(b, { name = f.name, ty = et, errname = errname, local_ = f.local_ .. "_e",
      delta = X.delta, base = X.base, shift = X.shift }, env, arr .. "[i]", errname)
  end
  if a.mode == "until" and env.mode == "enc" then
    local env2 = setmetatable({ obj = "(&" .. arr .. "[i])" }, { __index = env })
    b:f("if ((%s) != (i + 1 == %s))", cexpr(a["until"], env2), cnt)
    enc_fail(b, env, "PCD_E_INVALID", errname, "the terminating element last, and only there", "PCD_FOUND_UINT", "i")
  end
  b:close("}")
end

-- v: C expression of the stored value.
function enc_value(b, f, env, v, errname)
  local ty = f.ty
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then
    enc_scalar(b, f, env, v)
  elseif k == "magic" then
    if env.mode == "size" then acc(b, env, #ty.bytes) return end
    b:f("PCD_TRY(pcd_put_bytes(s, (const uint8_t *)%s, %d));", text.cstr(ty.bytes), #ty.bytes)
  elseif k == "bytes" then
    enc_bytes(b, f, env, v, errname)
  elseif k == "array" then
    enc_array(b, f, env, f.member, errname)
  elseif k == "struct" or k == "union" then
    if ty.named then
      if env.mode == "size" then
        acc(b, env, elem_fn(ty, "size") .. "(x, &" .. v .. ")")
      else
        b:f("PCD_TRY_IN(s->x, %s(s, &%s), %s, -1);", elem_fn(ty, "encode"), v, text.cstr(errname))
      end
    elseif k == "struct" then
      enc_struct(b, ty, env)
    else
      enc_union(b, ty, env, f)
    end
  elseif k == "records" then
    -- written record by record by the stream writer
  end
end

local function enc_field(b, f, env)
  local v
  if f.derived then
    v = "d_" .. f.local_:sub(3)
    env.used_derived[f] = true
  elseif has_member(f) then
    v = env.obj .. "->" .. f.member
  end
  if f.hidden and f.ty.kind == "int" then v = expr.cnum(f.equals) end
  b:doc(f)
  emit_resets(b, f, env)
  local function body()
    if f.optional then
      -- an optional magic: its bytes when the record says it is there
      local m = env.obj .. "->" .. f.member
      if env.mode == "size" then
        acc(b, env, "(" .. m .. " ? " .. #f.ty.bytes .. " : 0)")
      else
        b:f("if (%s)", m)
        b:f("    PCD_TRY(pcd_put_bytes(s, (const uint8_t *)%s, %d));", text.cstr(f.ty.bytes), #f.ty.bytes)
      end
      return
    end
    enc_value(b, f, env, v, f.errname)
  end
  if f.when and not enc_evaluable(f.when) then
    -- the condition reads what only decoding knows (the input's size, a size computed
    -- while writing): the record's own presence flag decides
    local has = env.obj .. "->" .. f.member:gsub("([%w_]+)$", "has_%1")
    b:f("if (%s) { /* when %s */", has, f.when_src or "its condition holds")
    b.ind = b.ind + 1
    body()
    b:close("}")
  elseif f.when then
    local has = env.obj .. "->" .. f.member:gsub("([%w_]+)$", "has_%1")
    b:f("if (%s) {", cond(f.when, env))
    b.ind = b.ind + 1
    if env.mode == "enc" and not f.derived then
      b:f("if (PCD_UNLIKELY(!%s))", has)
      enc_fail(b, env, "PCD_E_INVALID", f.errname, "this field, which its condition requires", "PCD_FOUND_NONE", 0)
    end
    body()
    b.ind = b.ind - 1
    if env.mode == "enc" and not f.derived then
      b:f("} else if (PCD_UNLIKELY(%s)) {", has)
      enc_fail(b, env, "PCD_E_INVALID", f.errname, "no value here, since its condition is false", "PCD_FOUND_NONE", 0)
    end
    b:l("}")
  else
    body()
  end
end

-- Writes S's fields; with env.segment set (named types with regions), only the fields
-- between region number env.segment and the next one (0: before the first region).
function enc_struct(b, S, env)
  local seg, k = env.segment, 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then
      k = k + 1
    elseif f.ty and (seg == nil or seg == k or S ~= env.T) then
      enc_field(b, f, env)
    end
  end
end

function enc_union(b, U, env, f)
  local mpre = f and (f.member .. ".") or ""
  local errname = f and f.errname or U.tname
  local which = env.obj .. "->" .. mpre .. "which"
  local tagv
  if U.mode == "on" then
    if not U.string_tag then
      tagv = "t_" .. (f and f.local_:sub(3) or "u")
      declare(env, tagv, "uint64_t", "0")
      b:f("%s = (uint64_t)(%s);", tagv, cexpr(U.on, env))
    else
      tagv = cexpr(U.on, env)
    end
  end
  b:f("switch (%s) {", which)
  for _, c in ipairs(U.cases) do
    b:f("case %s:", c.const)
    b.ind = b.ind + 1
    if U.mode == "on" and env.mode == "enc" then
      local conds = {}
      if c.default then
        for _, c2 in ipairs(U.cases) do
          for _, v in ipairs(c2.values) do
            if U.string_tag then conds[#conds + 1] = string.format("pcd_bytes_eq(%s, %s, %d)", tagv, text.cstr(v), #v)
            else conds[#conds + 1] = tagv .. " == " .. expr.cnum(v) end
          end
        end
        if #conds > 0 then
          b:f("if (PCD_UNLIKELY(%s))", table.concat(conds, " || "))
          enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a tag no named case takes, for case " .. c.name, "PCD_FOUND_NONE", 0)
        end
      else
        for _, v in ipairs(c.values) do
          if U.string_tag then conds[#conds + 1] = string.format("pcd_bytes_eq(%s, %s, %d)", tagv, text.cstr(v), #v)
          else conds[#conds + 1] = tagv .. " == " .. expr.cnum(v) end
        end
        b:f("if (PCD_UNLIKELY(!(%s)))", table.concat(conds, " || "))
        enc_fail(b, env, "PCD_E_BAD_TAG", errname, "the tag that selects case " .. c.name, U.string_tag and "PCD_FOUND_NONE" or "PCD_FOUND_HEX", U.string_tag and "0" or tagv)
      end
    elseif U.mode == "tag" and U.name_tag then
      local ty = U.tagty
      if env.mode == "size" then
        acc(b, env, ty.wire)
      else
        b:f("PCD_TRY(pcd_put_padded(s, (pcd_bytes){ (const uint8_t *)%s, %d }, %d));", text.cstr(c.values[1]),
          #c.values[1], ty.wire)
      end
    elseif U.mode == "tag" then
      local ty = U.tagty
      if env.mode == "size" then
        acc(b, env, ty.wire)
      elseif #c.values == 1 then
        b:f("PCD_TRY(%s);", put(ty, expr.cnum(c.values[1]), "s"))
      else
        local tg = env.obj .. "->" .. mpre .. "tag"
        local conds = {}
        for _, v in ipairs(c.values) do conds[#conds + 1] = tg .. " == " .. expr.cnum(v) end
        b:f("if (PCD_UNLIKELY(!(%s)))", table.concat(conds, " || "))
        enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a tag of case " .. c.name, "PCD_FOUND_HEX", tg)
        b:f("PCD_TRY(%s);", put(ty, tg, "s"))
      end
    end
    local ty = c.ty
    if ty.kind == "struct" and not ty.named then
      enc_struct(b, ty, env)
    elseif ty.kind == "union" and not ty.named then
      enc_union(b, ty, env, { member = c.member, errname = c.errname, local_ = "v_" .. c.member:gsub("%.", "_") })
    elseif ty.named then
      if env.mode == "size" then
        acc(b, env, elem_fn(ty, "size") .. "(x, &" .. env.obj .. "->" .. c.member .. ")")
      else
        b:f("PCD_TRY_IN(s->x, %s(s, &%s->%s), %s, -1);", elem_fn(ty, "encode"), env.obj, c.member, text.cstr(c.errname))
      end
    else
      local m = ty.kind == "array" and (c.member .. ".items") or c.member
      local pf = { name = c.name, ty = ty, errname = c.errname, member = m,
        local_ = "v_" .. c.member:gsub("%.", "_") }
      enc_value(b, pf, env, env.obj .. "->" .. m, c.errname)
    end
    b:l("break;")
    b.ind = b.ind - 1
  end
  b:l("default:")
  if env.mode == "size" then
    b:l("    break;")
  else
    enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a valid case index", "PCD_FOUND_UINT", which)
  end
  b:l("}")
end

---------------------------------------------------------------------------
-- functions per named type

local function decls_text(env)
  local out = {}
  for _, d in ipairs(env.decls) do
    local init = d.init and (" = " .. d.init) or ""
    local sp = d.ctype:sub(-1) == "*" and "" or " "
    local un = (env.mode == "val" or env.mode == "size") and "PCD_UNUSED " or ""
    out[#out + 1] = "    " .. un .. d.ctype .. sp .. d.name .. init .. ";"
  end
  return table.concat(out, "\n") .. (#out > 0 and "\n" or "")
end

local function new_env(ir, T, mode)
  return { ir = ir, T = T, mode = mode, cur = "c", obj = mode == "dec" and "out" or "in",
    xp = (mode == "dec" or mode == "val") and "c->x" or (mode == "enc" and "s->x" or "x"),
    decls = {}, decl_set = {}, used_locals = {}, used_derived = {}, runs = {},
    fname = "k_" .. T.tname .. "_" .. mode }
end

local function state_decl(ir, env)
  local R = env.need_state
  if not R then return "" end
  return "    " .. R.state_cname .. " *st = " .. env.xp .. "->state;\n"
end

local function run_tables(env)
  local out = {}
  for _, run in ipairs(env.runs) do
    local items = {}
    for _, f in ipairs(run.fields) do
      items[#items + 1] = string.format("{ %s, %d, %s }", text.cstr(f.errname), f.ty.wire,
        text.cstr(type_text(f.ty)))
    end
    out[#out + 1] = "static const pcd_run_field " .. run.table .. "[] = {\n    " ..
        table.concat(items, ",\n    ") .. ",\n};\n"
  end
  return table.concat(out)
end

local function fn_decode(ir, T, mode)
  local env = new_env(ir, T, mode)
  local b = buf(1)
  local has_total = false
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do
      if f.derived and f.derived.kind == "total_size" then has_total = true end
    end
    dec_struct(b, T, env)
  else
    dec_union(b, T, env, nil)
  end
  local head = ""
  if has_total then
    head = head .. "    const uint8_t *s0 = c->p;\n    pcd_cursor r_total;\n"
  end
  local tail = ""
  if env.total_field then
    local g = env.total_field
    tail = tail .. text.render([[
      if (PCD_UNLIKELY(c->p != c->end))
          return pcd_fail(c, c->p, PCD_E_SIZE, ${name}, "content that ends where the size says", PCD_FOUND_UINT, pcd_left(c));
    ]], { name = text.cstr(g.errname) })
    tail = text.indent(tail, 4)
  end
  local sig, wrapper
  if mode == "dec" then
    sig = string.format("static inline pcd_status %s_decode_(pcd_cursor *c, %s *out)", T.cname, T.cname)
    wrapper = string.format("pcd_status %s_decode(pcd_cursor *c, %s *out)\n{\n    return %s_decode_(c, out);\n}\n",
      T.cname, T.cname, T.cname)
    -- zeroing first is only needed when some member may be left unset (a conditional
    -- field's has_ flag, a region's optional bounds); otherwise every member the record
    -- has is assigned (a union: its case's), and skipping the memset matters for small records
    if E.may_leave_unset(T) then head = "    memset(out, 0, sizeof *out);\n" .. head end
  else
    sig = string.format("static inline pcd_status %s_validate_(pcd_cursor *c)", T.cname)
    wrapper = string.format("pcd_status %s_validate(pcd_cursor *c)\n{\n    return %s_validate_(c);\n}\n",
      T.cname, T.cname)
  end
  local body = b:text()
  local out = run_tables(env)
  out = out .. text.comment((T.doc and T.doc ~= "" and (T.tname .. ": " .. T.doc) or T.tname) ..
      (mode == "val" and "\nValidation only: the same checks as decoding, nothing stored." or ""))
  local all = head .. body .. tail .. state_decl(ir, env)
  out = out .. sig .. "\n{\n" .. decls_text(env) .. state_decl(ir, env) ..
      unused_params(all, mode == "dec" and { "c", "out" } or { "c" }) .. head .. body .. tail ..
      "    return PCD_OK;\n}\n\n" .. wrapper
  return out
end

-- The fields of segment seg of S (nil: all of them), regions excluded.
segment_fields = function(S, seg)
  local out, k = {}, 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then k = k + 1
    elseif f.ty and (seg == nil or seg == k) then out[#out + 1] = f end
  end
  return out
end

-- Position (1-based) of region field g among S's regions.
region_ordinal = function(S, g)
  local k = 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then
      k = k + 1
      if f == g then return k end
    end
  end
  return 0
end

-- Does a record type open records regions: its own fields, or (a union) a case's named struct?
local function opens_regions(T)
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do if f.ty and f.ty.kind == "records" then return true end end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do
      if c.ty and c.ty.kind == "struct" and c.ty.named and opens_regions(c.ty) then return true end
    end
  end
  return false
end

local function has_regions(T)
  if T.kind ~= "struct" then return 0 end
  local n = 0
  for _, f in ipairs(T.fields) do if f.ty and f.ty.kind == "records" then n = n + 1 end end
  return n
end

local function fn_encode(ir, T, mode, segment)
  local env = new_env(ir, T, mode)
  if mode == "enc" and has_regions(T) > 0 then env.segment = segment or 0 end
  local b = buf(1)
  if T.kind == "struct" then enc_struct(b, T, env) else enc_union(b, T, env, nil) end
  local pre = buf(1)
  -- derived values first: sizes, counts, offsets
  if T.kind == "struct" then
    local in_seg = {}
    for _, g in ipairs(segment_fields(T, env.segment)) do in_seg[g] = true end
    local function scan(S)
      for _, f in ipairs(S.fields) do
        if f.derived and (S ~= T or in_seg[f]) then
          local d = "d_" .. f.local_:sub(3)
          declare(env, d, "uint64_t", "0")
          local k = f.derived.kind
          if k == "total_size" then
            if mode == "enc" then pre:f("%s = %s_size(s->x, in);", d, T.cname)
            else pre:f("%s = 0; /* computed below */", d) end
          elseif mode == "size" and (k == "file_size" or k == "offset_of" or
              ((k == "count_of" or k == "size_of") and S.fields[S.by_name[f.derived.target]].ty.kind == "records")) then
            pre:f("%s = 0; /* (its value does not change the size) */", d)
          elseif k == "file_size" then
            -- the file ends with this segment, whose size is fixed
            local n, seg_fields = 0, segment_fields(S, env.segment)
            local opt = {}
            for _, g in ipairs(seg_fields) do
              local w = lower.fixed_wire(g.ty)
              if not w then
                error(ir.schema_path .. ": " .. S.tname .. "." .. f.name ..
                  ": file_size needs every field after the last region to have a fixed size")
              end
              if g.optional then
                opt[#opt + 1] = "(" .. env.obj .. "->" .. g.member .. " ? " .. w .. " : 0)"
              elseif g.when and enc_evaluable(g.when) then
                opt[#opt + 1] = "((" .. cond(g.when, env) .. ") ? " .. w .. " : 0)"
              elseif g.when then
                opt[#opt + 1] = "(" .. env.obj .. "->" .. g.member:gsub("([%w_]+)$", "has_%1") .. " ? " .. w .. " : 0)"
              else
                n = n + w
              end
            end
            if #opt == 0 then
              pre:f("%s = pcd_sink_tell(s) + %d; /* the file ends with these %d bytes */", d, n, n)
            else
              pre:f("%s = pcd_sink_tell(s) + %d + %s; /* the file ends with these bytes */", d, n,
                table.concat(opt, " + "))
            end
          elseif (k == "offset_of" or k == "count_of" or k == "size_of") and
              S.fields[S.by_name[f.derived.target]].ty.kind == "records" then
            local g = S.fields[S.by_name[f.derived.target]]
            if S.by_name[f.name] > S.by_name[g.name] then
              -- written after its region: known by now
              local ord = region_ordinal(S, g)
              local what = ({ offset_of = "start", count_of = "count", size_of = "size" })[k]
              local extra = (k == "size_of" and f.derived.extra and f.derived.extra > 0) and (" + " .. f.derived.extra) or ""
              pre:f("%s = s->x->rstat[%d].%s%s; /* from the region written before */", d, ord - 1, what, extra)
            else
              pre:f("%s = 0; /* patched when its region is finished */", d)
            end
          elseif k == "count_of" then
            local g = S.fields[S.by_name[f.derived.target]]
            pre:f("%s = (uint64_t)%s->%s;", d, env.obj, g.member:gsub("([%w_]+)$", "n_%1"))
          elseif k == "size_of" then
            local g = S.fields[S.by_name[f.derived.target]]
            do
              local sb = buf(pre.ind)
              local senv = setmetatable({ mode = "size", acc = "sz" }, { __index = env })
              sb:f("{")
              sb.ind = sb.ind + 1
              sb:l("uint64_t sz = 0;")
              enc_value(sb, g, senv, env.obj .. "->" .. g.member, g.errname)
              sb:f("%s = sz;", d)
              sb.ind = sb.ind - 1
              sb:l("}")
              for _, l in ipairs(sb.lines) do pre.lines[#pre.lines + 1] = l end
            end
          end
        end
        if f.ty and f.ty.kind == "struct" and not f.ty.named then scan(f.ty) end
      end
    end
    scan(T)
    -- a conditional region just closed: it may hold records only when its condition holds
    if mode == "enc" and env.segment and env.segment > 0 then
      for _, g in ipairs(T.fields) do
        if g.ty and g.ty.kind == "records" and g.when and region_ordinal(T, g) == env.segment and
            enc_evaluable(g.when) then
          pre:f("if (PCD_UNLIKELY(!(%s) && s->x->rstat[%d].count != 0))", cond(g.when, env), env.segment - 1)
          pre:f("    return pcd_sink_fail(s, PCD_E_INVALID, %s, %s, PCD_FOUND_UINT, s->x->rstat[%d].count);",
            text.cstr(g.errname), text.cstr("no records, since its condition (" .. g.when_src .. ") is false"),
            env.segment - 1)
        end
      end
    end
  end
  local sig
  local body = b:text()
  local out
  if mode == "enc" then
    sig = string.format("pcd_status %s_encode(pcd_sink *s, const %s *in)", T.cname, T.cname)
    out = text.comment(T.tname .. ": writes the fields in schema order; sizes and counts are computed.")
    local all = pre:text() .. body .. state_decl(ir, env)
    out = out .. sig .. "\n{\n" .. decls_text(env) .. state_decl(ir, env) ..
        unused_params(all, { "s", "in" }) .. pre:text() .. body .. "    return PCD_OK;\n}\n"
  else
    sig = string.format("uint64_t %s_size(pcd_ctx *x, const %s *in)", T.cname, T.cname)
    local st = ""
    if env.need_state then
      -- sizes of deltas depend on the state; work on a copy so nothing changes
      st = "    " .. env.need_state.state_cname .. " st_copy = *(" .. env.need_state.state_cname ..
          " *)x->state;\n    " .. env.need_state.state_cname .. " *st = &st_copy;\n"
    end
    out = text.comment(T.tname .. ": the number of bytes " .. T.cname .. "_encode writes.")
    local all = pre:text() .. body .. st
    out = out .. sig .. "\n{\n    uint64_t n = 0;\n" .. decls_text(env) .. st ..
        unused_params(all, { "x", "in" }) .. pre:text() .. body .. "    return n;\n}\n"
  end
  return out
end

---------------------------------------------------------------------------
-- types (header)

local function struct_def(ir, S)
  local b = buf(1)
  if S.kind == "struct" then
    local n = 0
    for _, f in ipairs(S.fields) do
      if f.ty and has_member(f) then
        n = n + 1
        local cm = f.doc and ("  /* " .. f.doc:gsub("\n.*", ""):gsub("%*/", "* /") .. " */") or ""
        if f.when and f.ty.kind ~= "records" then b:f("bool has_%s;", f.name) end
        if f.optional then
          b:f("bool %s;%s", f.name, cm)
        elseif f.ty.kind == "array" then
          local et = f.ty.of
          local ct = (et.kind == "struct" or et.kind == "union") and et.cname or ctype(et)
          b:f("%s *%s;%s", ct, f.name, cm)
          b:f("size_t n_%s;", f.name)
        else
          b:f("%s %s;%s", ctype(f.ty), f.name, cm)
        end
      end
    end
    if n == 0 then b:l("uint8_t unused_; /* no stored fields */") end
  else
    b:l("uint32_t which; /* the case present: one of the constants above */")
    if S.mode == "tag" and not S.name_tag then b:l("uint64_t tag; /* the tag as read */") end
    local m = 0
    for _, c in ipairs(S.cases) do if not c.empty then m = m + 1 end end
    if m > 0 then
      b:l("union {")
      b.ind = b.ind + 1
      for _, c in ipairs(S.cases) do
        if not c.empty then
          local ty = c.ty
          if ty.kind == "array" then
            local et = ty.of
            local ct = (et.kind == "struct" or et.kind == "union") and et.cname or ctype(et)
            b:f("struct { %s *%s; size_t n_%s; } %s;", ct, "items", "items", c.name)
          else
            b:f("%s %s;", ctype(ty), c.name)
          end
        end
      end
      b.ind = b.ind - 1
      b:l("} u;")
    end
  end
  local consts = ""
  if S.kind == "union" then
    for _, c in ipairs(S.cases) do
      consts = consts .. string.format("#define %s %d\n", c.const, c.index)
    end
  else
    -- where fields sit on the wire, for code above the bytes that reports on them: every
    -- field after fixed-size ones (from the record's start), and footer fields (from the end)
    local pos, up, cond = 0, S.cname:upper(), false
    for _, f in ipairs(S.fields) do
      if f.name and type(f.at_end) == "number" then
        consts = consts .. string.format("#define %s_%s_AT_END %d\n", up, f.name:upper(), f.at_end)
      elseif pos and not f.at and not f.at_end and f.name then
        cond = cond or f.when ~= nil
        consts = consts .. string.format("#define %s_%s_AT %d\n", up, f.name:upper(), pos)
        local w = lower.fixed_wire(f.ty)
        pos = w and pos + w or nil
      end
    end
    if consts ~= "" then
      consts = "/* wire offsets of the fields at fixed places" ..
        (cond and " (of a field after conditional ones: when those are there)" or "") .. " */\n" .. consts
    end
  end
  local doc = S.doc and text.comment(S.doc) or ""
  return consts .. doc .. "typedef struct " .. S.cname .. " {\n" .. b:text() .. "} " .. S.cname .. ";\n"
end

---------------------------------------------------------------------------
-- descriptors

-- For a union chosen by an expression: which case the owner's other fields select.
select_fn = function(ir, U)
  local owner = U.owner
  local env = new_env(ir, owner, "enc")
  env.xp = "((const pcd_ctx *)NULL)"
  local b = buf(1)
  b:f("const %s *in = owner_;", owner.cname)
  if U.string_tag then
    local tagv = cexpr(U.on, env)
    local dflt = -1
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c.index else
        for _, v in ipairs(c.values) do
          b:f("if (pcd_bytes_eq(%s, %s, %d)) return %d;", tagv, text.cstr(v), #v, c.index)
        end
      end
    end
    b:f("return %d;", dflt)
  else
    b:f("switch ((uint64_t)(%s)) {", cexpr(U.on, env))
    local dflt = -1
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c.index else
        for _, v in ipairs(c.values) do b:f("case %s: return %d;", expr.cnum(v), c.index) end
      end
    end
    b:f("default: return %d;", dflt)
    b:l("}")
  end
  return string.format("static int32_t %s_select(const void *owner_)\n{\n%s}\n", U.cname, b:text())
end

local function desc_fields(ir, S, out)
  local items = {}
  local function fdesc(name, ty, member, aux, flags, f, present)
    local kind = (f and f.optional) and "PCD_K_BOOL" or desc_kind(ty)
    local elem = "0"
    local tref = "NULL"
    if ty.kind == "struct" or ty.kind == "union" then tref = "&" .. ty.cname .. "_type" end
    if ty.kind == "array" then
      local et = ty.of
      elem = desc_kind(et)
      if et.kind == "struct" or et.kind == "union" then tref = "&" .. et.cname .. "_type" end
    end
    local en = "NULL"
    if f and f.enum then en = "&" .. S.cname .. "_" .. name .. "_enum" end
    local region = "NULL"
    if ty.kind == "records" then region = "&" .. ty.cname end
    local sentinel = (f and f.absent) and expr.cnum(f.absent) or "0"
    return string.format("{ %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s }", text.cstr(name), kind, elem,
      flags, member, aux, present or "0", tref, en, sentinel, text.cstr(f and f.doc or nil), region)
  end
  local enums = {}
  if S.kind == "struct" then
    for _, f in ipairs(S.fields) do
      if f.ty and has_member(f) then
        local flags = {}
        if f.derived then flags[#flags + 1] = "PCD_F_DERIVED" end
        if f.when and f.ty.kind ~= "records" then flags[#flags + 1] = "PCD_F_OPTIONAL" end
        if f.hidden then flags[#flags + 1] = "PCD_F_HIDDEN" end
        if f.absent then flags[#flags + 1] = "PCD_F_SENTINEL" end
        if f.hex then flags[#flags + 1] = "PCD_F_HEX" end
        if f.enum_open then flags[#flags + 1] = "PCD_F_ENUM_OPEN" end
        local fl = #flags > 0 and table.concat(flags, " | ") or "0"
        local member = "offsetof(" .. S.cname .. ", " .. f.name .. ")"
        local aux, present = "0", "0"
        if f.ty.kind == "array" then aux = "offsetof(" .. S.cname .. ", n_" .. f.name .. ")" end
        if f.when and f.ty.kind ~= "records" then present = "offsetof(" .. S.cname .. ", has_" .. f.name .. ")" end
        items[#items + 1] = fdesc(f.name, f.ty, member, aux, fl, f, present)
        if f.enum then enums[#enums + 1] = { name = f.name, items = f.enum } end
      end
    end
  else
    for _, c in ipairs(S.cases) do
      local member = c.empty and "0" or ("offsetof(" .. S.cname .. ", u." .. c.name .. ")")
      local aux = "0"
      local ty = c.ty
      if ty.kind == "array" then
        member = "offsetof(" .. S.cname .. ", u." .. c.name .. ".items)"
        aux = "offsetof(" .. S.cname .. ", u." .. c.name .. ".n_items)"
      end
      items[#items + 1] = fdesc(c.name, ty, member, aux,
        (S.mode == "tag" and #c.values > 1) and "PCD_F_TAG_MULTI" or "0", nil)
    end
  end
  local o = {}
  for _, e in ipairs(enums) do
    local its = {}
    for _, it in ipairs(e.items) do its[#its + 1] = string.format("{ %s, %s }", expr.cnum(it.value), text.cstr(it.name)) end
    o[#o + 1] = string.format("static const pcd_enum_item %s_%s_enum_items[] = {\n    %s,\n};\n",
      S.cname, e.name, table.concat(its, ",\n    "))
    o[#o + 1] = string.format("static const pcd_enum %s_%s_enum = { %s, %s_%s_enum_items, %d };\n",
      S.cname, e.name, text.cstr(e.name), S.cname, e.name, #e.items)
  end
  if #items > 0 then
    o[#o + 1] = string.format("static const pcd_field %s_fields[] = {\n    %s,\n};\n", S.cname,
      table.concat(items, ",\n    "))
  end
  local tname = S.tname or S.cname:sub(#ir.prefix + 2)
  local sel = "NULL"
  local tag_key = nil
  if S.kind == "union" then
    if S.mode == "on" then
      sel = S.cname .. "_select"
      o[#o + 1] = select_fn(ir, S)
    else
      tag_key = S.tag_key or "_kind"
    end
  end
  -- the tag's bytes before a case (named tag unions: where a case's regions are patched)
  local tag_wire = ""
  if S.kind == "union" and S.named and S.mode == "tag" then tag_wire = ", " .. S.tagty.wire end
  o[#o + 1] = string.format("const pcd_type %s_type = { %s, %d, %d, sizeof(%s), %s, %d, %s, %s, %s%s };\n",
    S.cname, text.cstr(tname), S.kind == "union" and 1 or 0, S.named and 1 or 0, S.cname,
    #items > 0 and (S.cname .. "_fields") or "NULL", #items, text.cstr(S.doc), text.cstr(tag_key), sel, tag_wire)
  out[#out + 1] = table.concat(o)
end

---------------------------------------------------------------------------
-- files

local function banner(ir, sha, gen_version, what)
  return string.format(
    "/* GENERATED by pcgen %s from %s (sha256 %s). DO NOT EDIT.\n" ..
    " * %s\n" ..
    " * Regenerate: make regen (or: lua5.4 gen/pcgen.lua -o generated schemas/...) */\n",
    gen_version, ir.schema_path, sha:sub(1, 16), what)
end

-- Byte strings a file can start with (for format detection), in file order.
local function detect_magics(ir)
  local out = {}
  local root = ir.root
  local function magics_of(ty, endian_cb)
    if not ty then return end
    if ty.kind == "magic" then out[#out + 1] = ty.bytes return true end
    if ty.kind == "struct" and ty.fields[1] then
      local f = ty.fields[1]
      if f.ty and f.ty.kind == "magic" then out[#out + 1] = f.ty.bytes return true end
      if f.ty and f.ty.kind == "int" and f.equals and f.magic then
        local v, w = f.equals, f.ty.wire
        local le = string.pack("<I" .. w, v)
        local be = string.pack(">I" .. w, v)
        if f.ty.byte_order or f.ty.endian == "native" then out[#out + 1] = le; out[#out + 1] = be
        elseif f.ty.endian == "be" or f.ty.endian == "big" then out[#out + 1] = be
        else out[#out + 1] = le end
        return true
      end
      if f.ty and f.ty.kind == "records" and f.ty.record then return magics_of(f.ty.record) end
    end
    if ty.kind == "union" and ty.mode == "peek" then
      for _, c in ipairs(ty.cases) do
        for _, v in ipairs(c.values) do
          local w = ty.tagty.wire
          local e = ty.tagty.endian
          if e == "native" then out[#out + 1] = string.pack("<I" .. w, v); out[#out + 1] = string.pack(">I" .. w, v)
          elseif e == "be" or e == "big" then out[#out + 1] = string.pack(">I" .. w, v)
          else out[#out + 1] = string.pack("<I" .. w, v) end
        end
      end
      return true
    end
  end
  magics_of(root)
  return out
end
E.detect_magics = detect_magics

-- Can decoding T leave a member of its C struct unassigned (conditional fields, regions),
-- looking into inline structs and unions (named ones are decoded by their own functions)?
function E.may_leave_unset(T)
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do
      if f.when or (f.ty and f.ty.kind == "records") then return true end
      if f.ty and (f.ty.kind == "struct" or f.ty.kind == "union") and not f.ty.named and E.may_leave_unset(f.ty) then
        return true
      end
    end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do
      if c.ty and (c.ty.kind == "struct" or c.ty.kind == "union") and not c.ty.named and E.may_leave_unset(c.ty) then
        return true
      end
    end
  end
  return false
end

-- Can decoding T allocate in the record arena (arrays anywhere inside)?
function E.may_allocate(T, seen)
  seen = seen or {}
  if not T or seen[T] then return false end
  seen[T] = true
  if T.kind == "array" then return true end
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do if f.ty and E.may_allocate(f.ty, seen) then return true end end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do if c.ty and E.may_allocate(c.ty, seen) then return true end end
  end
  return false
end

-- Sync magics for a region's records (for recovery by scanning).
local function sync_magics(R)
  local T = R.record
  local out = {}
  if not T then return out end
  if T.kind == "union" and T.name_tag then
    for _, c in ipairs(T.cases) do
      for _, v in ipairs(c.values) do out[#out + 1] = v .. string.rep("\0", T.tagty.wire - #v) end
    end
  elseif T.kind == "union" and (T.mode == "peek" or T.mode == "tag") then
    for _, c in ipairs(T.cases) do
      for _, v in ipairs(c.values) do
        local w, e = T.tagty.wire, T.tagty.endian
        out[#out + 1] = string.pack(((e == "be" or e == "big") and ">" or "<") .. "I" .. w, v)
      end
    end
  elseif T.kind == "struct" and T.fields[1] and T.fields[1].ty.kind == "magic" then
    out[#out + 1] = T.fields[1].ty.bytes
  end
  return out
end

function E.files(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  local H, C = {}, {}
  local guard = upper(base) .. "_H"
  H[#H + 1] = banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) .. ": types, codec functions, descriptors.")
  H[#H + 1] = "#ifndef " .. guard .. "\n#define " .. guard .. "\n\n#include \"pcd.h\"\n\n"
  H[#H + 1] = "#if PCD_RUNTIME_ABI != 1\n#error \"" .. base .. ".h was generated for runtime ABI 1; run make regen\"\n#endif\n\n"
  if ir.doc ~= "" then H[#H + 1] = text.comment(ir.doc) .. "\n" end
  -- region state types
  for _, R in ipairs(ir.regions) do
    if R.state and #R.state.order > 0 then
      local b = buf(1)
      for _, V in ipairs(R.state.order) do b:f("%s %s;", V.ctype, V.name) end
      H[#H + 1] = text.comment("Stream state of the " .. R.name .. " region, reset at its start.")
      H[#H + 1] = "typedef struct " .. R.state_cname .. " {\n" .. b:text() .. "} " .. R.state_cname .. ";\n\n"
    end
  end
  -- forward declarations, then definitions (dependencies first)
  for _, S in ipairs(ir.all_types) do
    H[#H + 1] = "typedef struct " .. S.cname .. " " .. S.cname .. ";\n"
  end
  H[#H + 1] = "\n"
  local defined = {}
  local function define(S)
    if defined[S] then return end
    defined[S] = true
    -- by-value members first
    local function deps(ty)
      if not ty then return end
      if (ty.kind == "struct" or ty.kind == "union") and ty ~= S then define(ty) end
    end
    if S.kind == "struct" then
      for _, f in ipairs(S.fields) do if f.ty and f.ty.kind ~= "array" then deps(f.ty) end end
    else
      for _, c in ipairs(S.cases) do if c.ty.kind ~= "array" then deps(c.ty) end end
    end
    H[#H + 1] = struct_def(ir, S) .. "\n"
  end
  for _, S in ipairs(ir.all_types) do define(S) end
  -- functions
  H[#H + 1] = "/* ---- codec functions ---- */\n\n"
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    H[#H + 1] = string.format("pcd_status %s_decode(pcd_cursor *c, %s *out);\n", T.cname, T.cname)
    H[#H + 1] = string.format("pcd_status %s_validate(pcd_cursor *c);\n", T.cname)
    H[#H + 1] = string.format("pcd_status %s_encode(pcd_sink *s, const %s *in);\n", T.cname, T.cname)
    H[#H + 1] = string.format("uint64_t %s_size(pcd_ctx *x, const %s *in);\n\n", T.cname, T.cname)
  end
  H[#H + 1] = "/* ---- descriptors ---- */\n\n"
  for _, S in ipairs(ir.all_types) do H[#H + 1] = "extern const pcd_type " .. S.cname .. "_type;\n" end
  for _, R in ipairs(ir.regions) do H[#H + 1] = "extern const pcd_region_desc " .. R.cname .. ";\n" end
  H[#H + 1] = "extern const pcd_format " .. ir.prefix .. "_format;\n\n#endif\n"

  -- source
  C[#C + 1] = banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) .. ": decoders, validators, encoders, descriptors.")
  C[#C + 1] = "#include \"" .. base .. ".h\"\n\n#include <string.h>\n\n"
  C[#C + 1] = "#if PCD_RUNTIME_ABI != 1\n#error \"" .. base .. ".c was generated for runtime ABI 1; run make regen\"\n#endif\n\n"
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    C[#C + 1] = "/* -------- " .. name .. " -------- */\n\n"
    C[#C + 1] = fn_decode(ir, T, "dec") .. "\n"
    C[#C + 1] = fn_decode(ir, T, "val") .. "\n"
    C[#C + 1] = fn_encode(ir, T, "enc") .. "\n"
    C[#C + 1] = fn_encode(ir, T, "size") .. "\n"
  end
  -- the root's fields after its regions (a footer, tables placed by a header)
  local root_segment = "NULL"
  do
    local T = ir.root
    local nreg, after = has_regions(T), false
    local k = 0
    for _, f in ipairs(T.fields) do
      if f.ty and f.ty.kind == "records" then k = k + 1 elseif k > 0 then after = true end
    end
    if nreg > 0 and after then
      local parts = {}
      for s = 1, nreg do
        local fn = fn_encode(ir, T, "enc", s)
        -- reuse the body: rename the function
        fn = fn:gsub("pcd_status " .. T.cname .. "_encode%(", "static pcd_status " .. T.cname .. "_segment" .. s .. "(")
        fn = fn:gsub("/%* [^\n]*writes the fields in schema order[^\n]*%*/\n",
          "/* " .. T.tname .. ": the fields after its region " .. s .. " */\n")
        parts[#parts + 1] = fn
      end
      C[#C + 1] = table.concat(parts, "\n") .. "\n"
      local b = buf(1)
      b:l("switch (k) {")
      for s = 1, nreg do b:f("case %d: return %s_segment%d(s, in);", s, T.cname, s) end
      b:l("default: return PCD_OK;")
      b:l("}")
      C[#C + 1] = string.format("static pcd_status %s_segments(pcd_sink *s, const void *in, uint32_t k)\n{\n%s}\n\n",
        T.cname, b:text())
      root_segment = T.cname .. "_segments"
    end
  end
  -- region glue: record adapters, state init, finish
  C[#C + 1] = "/* -------- regions -------- */\n\n"
  for _, R in ipairs(ir.regions) do
    local T = R.record
    local P = R.field.owner
    local PT = nil
    for _, name in ipairs(ir.order) do
      local t = ir.types[name]
      if t.kind == "struct" then
        for _, f in ipairs(t.fields) do if f == R.field then PT = t end end
      end
    end
    C[#C + 1] = string.format(
      "static pcd_status %s_dec(pcd_cursor *c, void *out) { return %s_decode_(c, out); }\n" ..
      "static pcd_status %s_enc(pcd_sink *s, const void *in) { return %s_encode(s, in); }\n",
      R.cname, T.cname, R.cname, T.cname)
    local opens = opens_regions(T)
    if not opens then
      C[#C + 1] = string.format("static pcd_status %s_val(pcd_cursor *c) { return %s_validate_(c); }\n",
        R.cname, T.cname)
      C[#C + 1] = text.render([[
        /* Validates ${name} records back to back (the validation fast path). */
        static uint64_t ${r}_run(pcd_cursor *c, uint64_t max, pcd_status *st, const uint8_t **start)
        {
            uint64_t k = 0;
            *st = PCD_OK;
            while (c->p < c->end && k < max) {
                *start = c->p;
                *st = ${t}_validate_(c);
                if (PCD_UNLIKELY(*st != PCD_OK)) break;
                k++;
            }
            return k;
        }
      ]], { name = R.name, r = R.cname, t = T.cname })
    end
    local has_state = R.state and #R.state.order > 0
    if not opens then
      C[#C + 1] = text.render([[
        /* Decodes ${name} records back to back into *rec and hands each to fn (the decoding
         * fast path: no call into the stream driver per record). Stops at the cursor's end,
         * after max records, at a failure (*start: where the record began), or when fn
         * returns anything but PCD_OK (*start: NULL).${statedoc} */
        static uint64_t ${r}_drun(pcd_cursor *c, uint64_t max, pcd_status *st,
            const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud)
        {
            uint64_t k = 0;
            ${t} *out = (${t} *)rec->data;
        ${sdecl}    *st = PCD_OK;
            while (c->p < c->end && k < max) {
                const uint8_t *s = c->p;
                *start = s;
        ${reset}${ssave}        *st = ${t}_decode_(c, out);
                if (PCD_UNLIKELY(*st != PCD_OK)) {
        ${srestore}            break;
                }
                k++;
                rec->offset = pcd_offset(c, s);
                rec->size = (uint64_t)(c->p - s);
                *st = fn(ud, rec);
                rec->index++;
                if (PCD_UNLIKELY(*st != PCD_OK)) {
                    *start = NULL; /* stopped by fn, not by the data */
                    break;
                }
            }
            return k;
        }
      ]], { name = R.name, r = R.cname, t = T.cname,
        reset = E.may_allocate(T) and "        if (c->x->arena && c->x->arena->used) pcd_arena_reset(c->x->arena);\n" or "",
        statedoc = has_state and "\n * The stream state (c->x->state) moves on record by record; a record that fails\n * leaves it as it was before that record (as the stream driver does)." or "",
        sdecl = has_state and ("    " .. R.state_cname .. " *sp = c->x->state, saved;\n") or "",
        ssave = has_state and "        saved = *sp;\n" or "",
        srestore = has_state and "            *sp = saved;\n" or "" })
    end
    if has_state then
      local b = buf(1)
      b:f("%s *st = state;", R.state_cname)
      b:f("const %s *in = parent;", PT.cname)
      b:l("(void)in;")
      b:l("(void)x;")
      local env = new_env(ir, PT, "enc")
      env.xp = "x"
      for _, V in ipairs(R.state.order) do
        if V.init then b:f("st->%s = (%s)(%s);", V.name, V.ctype, cexpr(V.init, env))
        else b:f("st->%s = 0;", V.name) end
      end
      C[#C + 1] = string.format("static void %s_init(void *state, const void *parent, const pcd_ctx *x)\n{\n%s}\n",
        R.cname, b:text())
    end
    -- finish: patch derived sizes/counts of the parent that depend on this region
    local patches = {}
    local off = 0
    local const_off = true
    local before = true
    for _, f in ipairs(PT.fields) do
      if f == R.field then before = false end
      if before and f.derived and f.derived.target == R.field.name then
        if not const_off or f.ty.kind ~= "int" then
          error(ir.schema_path .. ": " .. PT.tname .. "." .. f.name ..
            ": a region's size or count must be a fixed-width field at a fixed offset")
        end
        patches[#patches + 1] = { f = f, off = off }
      end
      local w = f.ty and lower.fixed_wire(f.ty)
      if not w or f.when then const_off = false else off = off + w end
    end
    local finish = "NULL"
    if #patches > 0 then
      local b = buf(1)
      b:l("uint8_t tmp[8];")
      b:l("(void)parent;")
      b:l("(void)region_start;")
      b:l("(void)region_size;")
      b:l("(void)region_records;")
      for _, p in ipairs(patches) do
        local f = p.f
        local v = ({ size_of = "region_size", count_of = "region_records", offset_of = "region_start" })[f.derived.kind]
        local ty = f.ty
        local _, hi = range_of(ty)
        if ty.bits < 64 then
          b:f("if (%s > %s)", v, hi)
          b:f("    return pcd_sink_fail(s, PCD_E_RANGE, %s, \"a value that fits in %s\", PCD_FOUND_UINT, %s);",
            text.cstr(f.errname), type_text(ty), v)
        end
        if ty.bits == 8 then b:f("tmp[0] = (uint8_t)%s;", v)
        elseif ty.endian == "native" then b:f("pcd_st_u%dx(tmp, (uint%d_t)%s, s->x->big);", ty.bits, ty.bits, v)
        else b:f("pcd_st_u%d%s(tmp, (uint%d_t)%s);", ty.bits, ty.endian, ty.bits, v) end
        b:f("PCD_TRY(pcd_sink_patch(s, parent_offset + %d, tmp, %d));", p.off, ty.wire)
      end
      C[#C + 1] = string.format("static pcd_status %s_finish(pcd_sink *s, void *parent, uint64_t parent_offset,\n" ..
        "                                 uint64_t region_start, uint64_t region_size, uint64_t region_records)\n{\n%s    return PCD_OK;\n}\n",
        R.cname, b:text())
      finish = R.cname .. "_finish"
    end
    local sync = sync_magics(R)
    local sync_c, synclen_c = "NULL", "NULL"
    if R.recover and R.recover.sync and #sync > 0 then
      local items, lens = {}, {}
      for i, m in ipairs(sync) do
        C[#C + 1] = string.format("static const uint8_t %s_sync%d[] = { %s };\n", R.cname, i,
          (m:gsub(".", function(ch) return string.format("0x%02x, ", ch:byte()) end)):sub(1, -3))
        items[#items + 1] = R.cname .. "_sync" .. i
        lens[#lens + 1] = tostring(#m)
      end
      C[#C + 1] = string.format("static const uint8_t *const %s_sync[] = { %s, NULL };\n", R.cname, table.concat(items, ", "))
      C[#C + 1] = string.format("static const uint8_t %s_sync_len[] = { %s };\n", R.cname, table.concat(lens, ", "))
      sync_c, synclen_c = R.cname .. "_sync", R.cname .. "_sync_len"
    end
    local size_off, size_w, size_big, size_native, size_add, size_min = -1, 0, 0, 0, 0, 0
    if R.recover and R.recover.size then
      local sf, off2, size_S = nil, 0, nil
      local T2 = T
      if T2.kind == "union" then T2 = nil end
      local cand = {}
      if T.kind == "union" then
        for _, c in ipairs(T.cases) do if c.ty.kind == "struct" then cand[#cand + 1] = c.ty end end
      else
        cand[1] = T
      end
      for _, S in ipairs(cand) do
        local o = 0
        for _, f in ipairs(S.fields) do
          if f.name == R.recover.size then
            local so = o
            if sf and (off2 ~= so or sf.ty.wire ~= f.ty.wire) then
              error(ir.schema_path .. ": recover.size must be at the same offset in every case")
            end
            sf, off2, size_S = f, so, S
            break
          end
          local w = f.ty and lower.fixed_wire(f.ty)
          if not w then break end
          o = o + w
        end
      end
      if not sf or sf.ty.kind ~= "int" then
        error(ir.schema_path .. ": " .. R.name .. ".recover.size names no fixed-offset integer field")
      end
      size_off, size_w = off2, sf.ty.wire
      size_big = (sf.ty.endian == "be") and 1 or 0
      size_native = (sf.ty.endian == "native") and 1 or 0
      size_add = sf.derived and sf.derived.kind == "total_size" and 0 or (off2 + sf.ty.wire)
      if sf.derived and sf.derived.kind == "size_of" and size_S then
        -- the size counts the measured field: add the fixed bytes before it
        local o = 0
        for _, g in ipairs(size_S.fields) do
          if g.name == sf.derived.target then size_add = o break end
          local w = g.ty and not g.when and lower.fixed_wire(g.ty)
          if not w then break end
          o = o + w
        end
      end
      size_min = T.min or 1
    end
    local comp_fn = "NULL"
    if R.compression then
      local env = new_env(ir, PT, "enc")
      env.xp = "((const pcd_ctx *)NULL)"
      C[#C + 1] = string.format("static uint8_t %s_compression(const void *parent)\n{\n" ..
        "    const %s *in = parent;\n    return (uint8_t)(%s);\n}\n", R.cname, PT.cname, cexpr(R.compression, env))
      comp_fn = R.cname .. "_compression"
    elseif R.zstd_frame then
      C[#C + 1] = string.format("static uint8_t %s_compression(const void *parent)\n{\n" ..
        "    (void)parent;\n    return PCD_REGION_ZSTD_FRAME; /* one zstd frame, its end found by parsing it */\n}\n",
        R.cname)
      comp_fn = R.cname .. "_compression"
    end
    C[#C + 1] = string.format([[
const pcd_region_desc %s = {
    %s, &%s_type, sizeof(%s),
    %s_dec, %s, %s, %s_enc,
    %s, %s, %s,
    offsetof(%s, %s),
    %d, %d, %d, %d, %d, %d,
    %s, %s,
    %s, %d, %d,
    %s,%s
};

]], R.cname, text.cstr(R.name), T.cname, T.cname, R.cname,
      -- records that open regions must be decoded, not only validated
      opens and "NULL" or (R.cname .. "_val"), opens and "NULL" or (R.cname .. "_run"), R.cname,
      has_state and ("sizeof(" .. R.state_cname .. ")") or "0", has_state and (R.cname .. "_init") or "NULL",
      finish, PT.cname, R.field.member, size_off, size_w, size_big, size_native, size_add, size_min,
      sync_c, synclen_c, comp_fn, R.zstd_level or 3, T.min or 0,
      opens and "NULL" or (R.cname .. "_drun"),
      R.batch_bytes and string.format("\n    %d, /* batch: records of at most %d elements */", R.batch_bytes, R.batch) or "")
  end
  -- descriptors
  C[#C + 1] = "/* -------- descriptors -------- */\n\n"
  local descs = {}
  for _, S in ipairs(ir.all_types) do desc_fields(ir, S, descs) end
  C[#C + 1] = table.concat(descs, "\n") .. "\n"
  -- detection and the format
  local magics = detect_magics(ir)
  local det = buf(1)
  local detect_min = 0
  for _, m in ipairs(magics) do if #m > detect_min then detect_min = #m end end
  det:l("(void)p;")
  if #magics == 0 then
    det:l("(void)n;")
    det:l("return 0;")
  else
    for _, m in ipairs(magics) do
      det:f("if (n >= %d && memcmp(p, %s, %d) == 0) return 2;", #m, text.cstr(m), #m)
      det:f("if (n < %d && memcmp(p, %s, n) == 0) return 1;", #m, text.cstr(m))
    end
    det:l("return 0;")
  end
  C[#C + 1] = "static int " .. ir.prefix .. "_detect(const uint8_t *p, size_t n)\n{\n" .. det:text() .. "}\n\n"
  local regs = {}
  for _, R in ipairs(ir.regions) do regs[#regs + 1] = "&" .. R.cname end
  if #regs > 0 then
    C[#C + 1] = "static const pcd_region_desc *const " .. ir.prefix .. "_regions[] = {\n    " ..
        table.concat(regs, ",\n    ") .. ",\n};\n\n"
  end
  local flags = {}
  local streamable = not ir.whole
  for _, R in ipairs(ir.regions) do if R.compression then streamable = false end end
  if streamable then flags[#flags + 1] = "PCD_FMT_STREAMABLE" end
  if ir.endian == "native" then flags[#flags + 1] = "PCD_FMT_NATIVE_ORDER" end
  if ir.relocates then flags[#flags + 1] = "PCD_FMT_RELOCATES" end
  do
    -- NUL-padded strings anywhere (fields or union names): junk after the NUL is dropped
    local padded = false
    local function scan(ty)
      if not ty or padded then return end
      if ty.kind == "bytes" and ty.padded then padded = true
      elseif ty.kind == "struct" then for _, f in ipairs(ty.fields) do scan(f.ty) end
      elseif ty.kind == "union" then
        if ty.name_tag then padded = true end
        for _, c in ipairs(ty.cases) do scan(c.ty) end
      elseif ty.kind == "array" then scan(ty.of) end
    end
    for _, name in ipairs(ir.order) do scan(ir.types[name]) end
    if padded then flags[#flags + 1] = "PCD_FMT_PADDED_NAMES" end
  end
  local root = ir.root
  C[#C + 1] = string.format([[
static pcd_status root_dec(pcd_cursor *c, void *out) { return %s_decode_(c, out); }
static pcd_status root_enc(pcd_sink *s, const void *in) { return %s_encode(s, in); }

const pcd_format %s_format = {
    %s, %s, %s, %s,
    &%s_type, sizeof(%s), root_dec, root_enc, %s,
    %s, %d,
    %s_detect, %d, %s, %s,
};
]], root.cname, root.cname, ir.prefix, text.cstr(ir.name), text.cstr(tostring(ir.version)),
    text.cstr(ir.title), text.cstr(ir.schema_path), root.cname, root.cname, root_segment,
    #regs > 0 and (ir.prefix .. "_regions") or "NULL", #regs, ir.prefix, detect_min,
    expr.cnum(ir.version_num), #flags > 0 and table.concat(flags, " | ") or "0")
  return {
    [base .. ".h"] = table.concat(H),
    [base .. ".c"] = table.concat(C),
  }
end

return E
