-- emit/common.lua: how IR types and values are spelled in C, and the per-function
-- environment every emitter writes through (locals declared on first use).
local text = require("pcgen.text")
local expr = require("pcgen.expr")

local C = {}

function C.ctype(ty)
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then return ty.ctype end
  if k == "bytes" then return "pcd_bytes" end
  if k == "struct" or k == "union" then return ty.cname end
  if k == "records" then return "pcd_region" end
  error("no C type for " .. tostring(k))
end

-- The C type of an array's elements.
function C.elem_ctype(et)
  return (et.kind == "struct" or et.kind == "union") and et.cname or C.ctype(et)
end

-- Load expression for a fixed-width int/float at pointer p.
function C.load(ty, p)
  local bits = ty.bits
  local raw
  if bits == 8 then raw = "pcd_ld_u8(" .. p .. ")"
  elseif ty.endian == "native" then raw = "pcd_ld_u" .. bits .. "x(" .. p .. ", c->x->big)"
  else raw = "pcd_ld_u" .. bits .. ty.endian .. "(" .. p .. ")" end
  if ty.kind == "float" then return "pcd_f" .. bits .. "_from_bits(" .. raw .. ")" end
  if ty.signed then return "(int" .. bits .. "_t)" .. raw end
  return raw
end

-- Store call for a fixed-width int/float into a sink.
function C.put(ty, val, sink)
  local bits = ty.bits
  local u = "(uint" .. bits .. "_t)"
  if ty.kind == "float" then val = "pcd_f" .. bits .. "_bits(" .. val .. ")"; u = "" end
  if bits == 8 then return "pcd_put_u8(" .. sink .. ", " .. u .. "(" .. val .. "))" end
  if ty.endian == "native" then
    return "pcd_put_u" .. bits .. "x(" .. sink .. ", " .. u .. "(" .. val .. "), " .. sink .. "->x->big)"
  end
  return "pcd_put_u" .. bits .. ty.endian .. "(" .. sink .. ", " .. u .. "(" .. val .. "))"
end

-- How an error names a wire type: "u32le", "ULEB128"...
function C.type_text(ty)
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

-- How an error prints the value found.
function C.found_kind(f, ty)
  if f and (f.hex or f.magic) then return "PCD_FOUND_HEX" end
  if ty and (ty.signed or (ty.kind == "varint" and (ty.enc == "sleb128" or ty.enc:match("zigzag")))) then
    return "PCD_FOUND_INT"
  end
  return "PCD_FOUND_UINT"
end

function C.numtext(v, hex)
  if hex then return string.format("0x%X", v) end
  return tostring(v)
end

-- A constant in C, in hex where the schema documents it in hex (magics, hex fields, union
-- tags): 0xC1FC1FB7, UINT64_C(0x54414348...) past 32 bits.
function C.cnum(v, hex)
  if not hex or v < 0 then return expr.cnum(v) end
  if v > 0xFFFFFFFF then return string.format("UINT64_C(0x%X)", v) end
  return string.format("0x%X", v)
end

-- "one of 0x1, 0x2, ..." for a union's tag values (at most 16 shown).
function C.case_values_text(u)
  local parts = {}
  local hex = u.mode == "peek" or u.mode == "tag"
  for _, c in ipairs(u.cases) do
    for _, v in ipairs(c.values) do
      if #parts >= 16 then break end
      parts[#parts + 1] = type(v) == "string" and ('"' .. v .. '"') or C.numtext(v, hex)
    end
  end
  local n = 0
  for _, c in ipairs(u.cases) do n = n + #c.values end
  if n > #parts then parts[#parts + 1] = "..." end
  return "one of " .. table.concat(parts, ", ")
end

-- How an error names a magic: "MOJ" when printable, else its bytes in hex.
function C.magic_text(bytes)
  if bytes:match("^[%w%p ]+$") then return '"' .. bytes .. '"' end
  return "bytes " .. (bytes:gsub(".", function(ch) return string.format("%02X ", ch:byte()) end)):sub(1, -2)
end

-- The smallest and largest value of a fixed-width integer type, as C macros.
function C.range_of(ty)
  if ty.kind == "int" then
    if ty.signed then return "INT" .. ty.bits .. "_MIN", "INT" .. ty.bits .. "_MAX" end
    return nil, "UINT" .. ty.bits .. "_MAX"
  end
  return nil, nil
end

-- "has_x" / "n_x" companions of a member path "a.b.x".
function C.has_of(member) return (member:gsub("([%w_]+)$", "has_%1")) end
function C.n_of(member) return (member:gsub("([%w_]+)$", "n_%1")) end

C.cstr = text.cstr

---------------------------------------------------------------------------
-- the environment of one generated function

-- The decoding function of a named type that code in env calls: its explain variant in an
-- explain function (env.explain), so that the fields of the types it reads are recorded too.
function C.dec_fn(env, T)
  return C.elem_fn(T, env.explain and "explain" or "decode")
end

-- Explain functions record where each field lies (runtime/pcd_span.h): the C that opens a
-- span at cursor cur (name a string, or nil for an array element with index), and closes it.
function C.span_open(b, env, cur, name, index)
  if not env.explain then return end
  if name then b:f("pcd_span_open(%s, %s, -1);", cur, text.cstr(name))
  else b:f("pcd_span_open(%s, NULL, (int64_t)%s);", cur, index) end
end

function C.span_close(b, env, cur)
  if env.explain then b:f("pcd_span_close(%s);", cur) end
end

-- mode: "dec" (decode), "val" (validate), "enc" (encode) or "size".
function C.new_env(ir, T, mode)
  return { ir = ir, T = T, mode = mode, cur = "c", obj = mode == "dec" and "out" or "in",
    xp = (mode == "dec" or mode == "val") and "c->x" or (mode == "enc" and "s->x" or "x"),
    decls = {}, decl_set = {}, used_locals = {}, used_derived = {}, runs = {},
    fname = "k_" .. T.tname .. "_" .. mode }
end

-- Declares a local of the function (once), with its initial value.
function C.declare(env, name, ct, init)
  if not env.decl_set[name] then
    env.decl_set[name] = true
    env.decls[#env.decls + 1] = { name = name, ctype = ct, init = init }
  end
end

-- The declarations of env's locals, one a line, at an indentation.
function C.decl_lines(env, indent)
  local out = {}
  for _, d in ipairs(env.decls) do
    local init = d.init and (" = " .. d.init) or ""
    local sp = d.ctype:sub(-1) == "*" and "" or " "
    local un = (env.mode == "val" or env.mode == "size") and "PCD_UNUSED " or ""
    out[#out + 1] = indent .. un .. d.ctype .. sp .. d.name .. init .. ";"
  end
  return out
end

function C.decls_text(env)
  local out = C.decl_lines(env, "    ")
  return table.concat(out, "\n") .. (#out > 0 and "\n" or "")
end

-- "(void)p;" lines for parameters a function body never mentions.
function C.unused_params(body, params)
  local out = {}
  for _, p in ipairs(params) do
    -- used as p->..., or passed on as an argument: (p, / , p) / , p,
    local used = body:find("%f[%w_]" .. p .. "%->") or body:find("[%(,] ?" .. p .. "[,%)]") or
        body:find("%f[%w_]" .. p .. " &")
    if not used then out[#out + 1] = "    (void)" .. p .. ";\n" end
  end
  return table.concat(out)
end

-- The stream state pointer, when the function touched state.
function C.state_decl(env)
  local R = env.need_state
  if not R then return "" end
  return "    " .. R.state_cname .. " *st = " .. env.xp .. "->state;\n"
end

function C.out_ref(env, member) return env.obj .. "->" .. member end

-- The arrays a consumer may ask the count of alone (array option count_only = "name"): the
-- names in the order they first appear (the types in ir.all_types, their fields in order),
-- each a bit of pcd_ctx.count_only. Arrays that share a name share its bit.
function C.count_only_names(ir)
  if ir.count_only_names then return ir.count_only_names end
  local order, seen = {}, {}
  local function add(ty)
    if ty and ty.kind == "array" and ty.count_only and not seen[ty.count_only] then
      seen[ty.count_only] = true
      order[#order + 1] = ty.count_only
    end
  end
  for _, S in ipairs(ir.all_types or {}) do
    if S.kind == "struct" and S.fields then
      for _, f in ipairs(S.fields) do add(f.ty) end
    elseif S.kind == "union" and S.cases then
      for _, c in ipairs(S.cases) do add(c.ty) end
    end
  end
  if #order > 32 then error(ir.name .. ": more than 32 count_only names (pcd_ctx.count_only has 32 bits)") end
  ir.count_only_names = order
  return order
end

-- The C name of a count_only name's bit: PCD_TACHYON_V1_COUNT_ONLY_REPEAT_SAMPLES.
function C.count_only_const(ir, name) return (ir.prefix .. "_count_only_" .. name):upper() end

-- The count_only names whose arrays decoding ty reaches (its own arrays, its fields' and
-- cases' types, its elements), in first-appearance order; {} when none. A decoder that
-- reaches one takes the bits as a parameter (uint32_t co) instead of reading
-- c->x->count_only at each array: a caller that passes a constant (the region's run loop,
-- one copy per choice) folds the tests away, so the stored path pays nothing for them.
local co_memo = setmetatable({}, { __mode = "k" })
function C.count_only_used(ty)
  if type(ty) ~= "table" then return {} end
  if co_memo[ty] then return co_memo[ty] end
  local names, seen = {}, {}
  co_memo[ty] = names -- a type that reaches itself adds nothing more through itself
  local function add_all(list)
    for _, n in ipairs(list) do
      if not seen[n] then seen[n] = true; names[#names + 1] = n end
    end
  end
  if ty.kind == "array" then
    if ty.count_only then add_all({ ty.count_only }) end
    add_all(C.count_only_used(ty.of))
  elseif ty.kind == "struct" then
    for _, f in ipairs(ty.fields or {}) do add_all(C.count_only_used(f.ty)) end
  elseif ty.kind == "union" then
    for _, c in ipairs(ty.cases or {}) do add_all(C.count_only_used(c.ty)) end
  end
  return names
end

-- The mask of the bits a decoder of ty tests: "(A | B)" or nil when it tests none.
function C.count_only_mask(ir, ty)
  local names = C.count_only_used(ty)
  if #names == 0 then return nil end
  local parts = {}
  for i, n in ipairs(names) do parts[i] = C.count_only_const(ir, n) end
  return #parts == 1 and parts[1] or ("(" .. table.concat(parts, " | ") .. ")")
end

-- The extra argument of a call to ty's decode_ body when it takes the bits: ", co" from a
-- decoder (its own parameter), the context's bits from elsewhere. Explain functions call the
-- exported wrappers, which read the context's bits themselves.
function C.co_arg(env, ty)
  if env.explain or #C.count_only_used(ty) == 0 then return "" end
  return env.mode == "dec" and ", co" or ", c->x->count_only"
end

-- Generated code calls the inlinable internal decode_/validate_ bodies; the exported
-- names are thin wrappers for callers outside the file.
function C.elem_fn(T, suffix)
  if suffix == "decode" or suffix == "validate" or suffix == "explain" then return T.cname .. "_" .. suffix .. "_" end
  return T.cname .. "_" .. suffix
end

-- Encoding: a failed check returns through the sink (nothing in size mode, which only counts).
function C.enc_fail(b, env, st, errname, expected, fk, found)
  if env.mode == "size" then return end
  b:f("    return pcd_sink_fail(s, %s, %s, %s, %s, (uint64_t)(%s));", st, text.cstr(errname),
    text.cstr(expected), fk, found)
end

-- Size mode: adds n bytes to the count.
function C.acc(b, env, n)
  b:f("%s += %s;", env.acc or "n", n)
end

-- A designated initialiser, one member a line: items { {member, value or nil, comment}, ... };
-- members whose value is nil are left out (zero or NULL).
function C.block(items)
  local out = {}
  for _, it in ipairs(items) do
    if it[2] ~= nil then
      out[#out + 1] = "    ." .. it[1] .. " = " .. tostring(it[2]) .. "," .. (it[3] and ("  /* " .. it[3] .. " */") or "")
    end
  end
  return "{\n" .. table.concat(out, "\n") .. "\n}"
end

-- The banner every generated C file starts with.
function C.banner(ir, sha, gen_version, what)
  return string.format(
    "/* GENERATED by pcgen %s from %s (sha256 %s). DO NOT EDIT.\n" ..
    " * %s\n" ..
    " * Regenerate: make regen (or: lua5.4 gen/pcgen.lua -o generated schemas/...) */\n",
    gen_version, ir.schema_path, sha:sub(1, 16), what)
end

return C
