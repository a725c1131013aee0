-- emit/scalar.lua: fixed-width numbers, varints and magics: decode and validate (with the
-- checks every value goes through), encode and size, side by side.
local expr = require("pcgen.expr")
local lower = require("pcgen.lower")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.kinds")
local bits = require("pcgen.emit.bits")

local cstr, cexpr, cond = C.cstr, X.cexpr, X.cond

---------------------------------------------------------------------------
-- decode / validate

-- if (PCD_UNLIKELY(cond)) return pcd_fail(...);
local function fail_if(b, env, at, condition, st, errname, expected, fk, found)
  b:t([[
    if (PCD_UNLIKELY(${cond}))
        return pcd_fail(${cur}, ${at}, ${st}, ${path}, ${expected}, ${fk}, ${found});
  ]], { cond = condition, cur = env.cur, at = at, st = st, path = cstr(errname), expected = cstr(expected),
    fk = fk, found = found })
end

-- The failure of a closed enum's check (the field's value is not one of its items).
function K.enum_fail(f, v, at, env)
  local parts = {}
  for _, it in ipairs(f.enum) do parts[#parts + 1] = it.name .. "=" .. C.numtext(it.value, f.hex) end
  return string.format("return pcd_fail(%s, %s, PCD_E_RANGE, %s, %s, %s, (uint64_t)(%s));", env.cur, at,
    cstr(f.errname), cstr("one of " .. table.concat(parts, ", ")), C.found_kind(f, f.ty), v)
end

-- A closed enum whose field is followed right away by a union chosen by it, with a case for
-- each of its values and no other: the union's switch checks the value (its default is the
-- enum's failure, at the field's bytes), and the enum's own switch is left out. Returns the
-- union field, or nil.
function K.enum_folded(f, env)
  if env.explain or (env.mode ~= "dec" and env.mode ~= "val") then return nil end
  if f.run or not f.enum or f.enum_open or #f.enum == 0 or not lower.groupable(f) then return nil end
  if f.when or f.at or f.at_end or f.sized_by or f.optional or f.reset then return nil end
  local nx = K.next_field(f)
  local U = nx and nx.ty
  if not U or U.kind ~= "union" or U.named or U.mode ~= "on" or U.string_tag or U.split then return nil end
  if nx.when or nx.at or nx.at_end or nx.sized_by or nx.optional or nx.reset then return nil end
  if not (U.on and U.on.k == "id" and U.on.ref and U.on.ref.field == f) then return nil end
  local values = {}
  for _, it in ipairs(f.enum) do values[it.value] = true end
  local n = 0
  for _, c in ipairs(U.cases) do
    if c.default or not c.values then return nil end
    for _, v in ipairs(c.values) do
      if not values[v] then return nil end
      n = n + 1
    end
  end
  if n ~= #f.enum then return nil end
  return nx
end

-- The checks every decoded integer value goes through.
function K.dec_checks(b, f, v, at, env)
  local fk = C.found_kind(f, f.ty)
  local found = "(uint64_t)(" .. v .. ")"
  if f.equals ~= nil then
    fail_if(b, env, at, v .. " != " .. C.cnum(f.equals, f.magic or f.hex), f.magic and "PCD_E_BAD_MAGIC" or "PCD_E_RANGE",
      f.errname, C.numtext(f.equals, f.magic or f.hex), f.magic and "PCD_FOUND_HEX" or fk, found)
  end
  if f.min ~= nil then
    fail_if(b, env, at, v .. " < " .. C.cnum(f.min, f.hex), "PCD_E_RANGE", f.errname,
      "at least " .. C.numtext(f.min, f.hex), fk, found)
  end
  if f.max ~= nil then
    fail_if(b, env, at, v .. " > " .. C.cnum(f.max, f.hex), "PCD_E_RANGE", f.errname,
      "at most " .. C.numtext(f.max, f.hex), fk, found)
  end
  local signed = f.ty and (f.ty.signed or (f.ty.kind == "varint" and f.ty.ctype:match("^int")))
  local wide = signed and "int64_t" or "uint64_t"
  if f.min_expr then
    fail_if(b, env, at, string.format("(%s)%s < (%s)(%s)", wide, v, wide, cexpr(f.min_expr, env)),
      "PCD_E_RANGE", f.errname, "at least " .. f.min_src, fk, found)
  end
  if f.max_expr then
    fail_if(b, env, at, string.format("(%s)%s > (%s)(%s)", wide, v, wide, cexpr(f.max_expr, env)),
      "PCD_E_RANGE", f.errname, "at most " .. f.max_src, fk, found)
  end
  if f.check then
    fail_if(b, env, at, "!(" .. cond(f.check, env) .. ")", "PCD_E_RANGE", f.errname,
      f.expect or ("a value for which " .. f.check_src), fk, found)
  end
  bits.checks(f, v, function(condition, st, path, expected, found)
    fail_if(b, env, at, condition, st, path, expected, "PCD_FOUND_UINT", found)
  end)
  if f.enum and not f.enum_open and #f.enum > 0 and K.enum_folded(f, env) then
    b:f("/* (its values checked by %s's switch below) */", K.enum_folded(f, env).name)
  elseif f.enum and not f.enum_open and #f.enum > 0 then
    local parts, labels = {}, {}
    for _, it in ipairs(f.enum) do
      parts[#parts + 1] = it.name .. "=" .. C.numtext(it.value, f.hex)
      labels[#labels + 1] = "case " .. C.cnum(it.value, f.hex) .. ":"
    end
    local rows = {}
    for i = 1, #labels, 6 do rows[#rows + 1] = table.concat(labels, " ", i, math.min(i + 5, #labels)) end
    b:t([[
      switch (${v}) {
      ${labels}
          break;
      default:
          return pcd_fail(${cur}, ${at}, PCD_E_RANGE, ${path}, ${expected}, ${fk}, ${found});
      }
    ]], { v = v, labels = table.concat(rows, "\n"), cur = env.cur, at = at, path = cstr(f.errname),
      expected = cstr("one of " .. table.concat(parts, ", ")), fk = fk, found = found })
  end
end

-- The same checks for a MOJO varint (sign and magnitude): compared as a signed number,
-- negative zero equal to zero; a failure shows the value with its sign. fail(st,
-- expected, found) prints the return statement.
function K.mojo_checks(b, f, v, fail)
  local function cmp(op, n) return string.format("pcd_mojo_cmp(%s.mag, %s.neg, %s) %s 0", v, v, expr.cnum(n), op) end
  local found = "PCD_MOJO_FOUND(" .. v .. ")"
  if f.equals ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp("!=", f.equals))
    fail(f.magic and "PCD_E_BAD_MAGIC" or "PCD_E_RANGE", C.numtext(f.equals), found)
  end
  if f.min ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp("<", f.min))
    fail("PCD_E_RANGE", "at least " .. C.numtext(f.min), found)
  end
  if f.max ~= nil then
    b:f("if (PCD_UNLIKELY(%s))", cmp(">", f.max))
    fail("PCD_E_RANGE", "at most " .. C.numtext(f.max), found)
  end
end

-- Applies delta / base transforms to a wire value w, giving the stored value.
function K.dec_transform(b, f, w, env)
  local sh = f.shift and (" << " .. f.shift) or ""
  if f.delta then
    env.need_state = f.delta.region
    b:f("st->%s = (%s)(st->%s + (%s)(%s%s));", f.delta.name, f.delta.ctype, f.delta.name, f.delta.ctype, w, sh)
    return "st->" .. f.delta.name
  end
  if f.base then
    return "(" .. f.ty.ctype .. ")(((uint64_t)(" .. cexpr(f.base, env) .. ") + (uint64_t)(" .. w .. "))" .. sh .. ")"
  end
  return w
end

-- State variables a field resets before it is read or written (option reset).
function K.emit_resets(b, f, env)
  if not f.reset then return end
  for _, stv in ipairs(f.reset) do
    env.need_state = stv.region
    b:f("st->%s = 0; /* starts again here */", stv.name)
  end
end

-- A fixed-width number read on its own (not in a run).
local function dec_fixed(b, f, env, errname, local_)
  local ty, cur = f.ty, env.cur
  C.declare(env, local_, ty.ctype, "0")
  if K.covered(env, f, ty.wire) then
    b:f("/* (its %d byte%s checked above) */", ty.wire, ty.wire == 1 and "" or "s")
  else
    b:t([[
      if (PCD_UNLIKELY(pcd_left(${cur}) < ${w}))
          return pcd_fail_short(${cur}, ${cur}->p, ${path}, ${what});
    ]], { cur = cur, w = ty.wire, path = cstr(errname), what = cstr(C.type_text(ty)) })
  end
  if ty.byte_order then
    -- a magic that decides the byte order of every "native" field after it
    local v = f.equals
    local swapped = 0
    for i = 0, ty.wire - 1 do swapped = swapped | (((v >> (8 * i)) & 0xff) << (8 * (ty.wire - 1 - i))) end
    b:t([[
      ${l} = pcd_ld_u${bits}le(${cur}->p);
      if (${l} == ${v}) {
          c->x->big = false;
      } else if (${l} == ${swapped}) {
          c->x->big = true;
          ${l} = ${v};
      } else {
          return pcd_fail(${cur}, ${cur}->p, PCD_E_BAD_MAGIC, ${path}, ${expected}, PCD_FOUND_HEX, ${l});
      }
    ]], { l = local_, bits = ty.bits, cur = cur, v = C.cnum(v, true), swapped = C.cnum(swapped, true),
      path = cstr(errname), expected = cstr(C.numtext(v, true) .. " in either byte order") })
  elseif env.mode == "val" and not lower.needs_value(f) then
    b:l("/* (value not needed for validation) */")
  else
    b:f("%s = %s;", local_, C.load(ty, cur .. "->p"))
    if ty.kind == "int" then K.dec_checks(b, f, local_, cur .. "->p", env) end
  end
  b:f("%s->p += %d;", cur, ty.wire)
end

local VARINT_CTYPE = { uleb128 = "uint64_t", sleb128 = "int64_t", zigzag64 = "int64_t", zigzag32 = "int32_t" }

-- A varint.
local function dec_varint(b, f, env, errname, local_)
  local ty, cur = f.ty, env.cur
  local enc = ty.enc
  local checked = lower.varint_checked(f)
  local at = "f0_" .. local_:sub(3)
  if checked then
    C.declare(env, at, "const uint8_t *", "NULL")
    b:f("%s = %s->p;", at, cur)
  end
  local wrap = ty.wrap and "_wrap" or ""
  if env.mode == "val" and not checked and not lower.needs_value(f) and (enc == "uleb128" or enc == "sleb128") then
    -- validation of a value nothing looks at: its length is all that matters
    b:f("PCD_TRY(pcd_skip_%s%s(%s, %s));", enc, wrap, cur, cstr(errname))
  elseif enc == "mojo" then
    C.declare(env, local_, "pcd_mojo_int", "{ 0, false }")
    b:f("PCD_TRY(pcd_read_mojo(%s, &%s.mag, &%s.neg, %s));", cur, local_, local_, cstr(errname))
  else
    C.declare(env, local_, VARINT_CTYPE[enc], "0")
    b:f("PCD_TRY(pcd_read_%s%s(%s, &%s, %s));", enc, wrap, cur, local_, cstr(errname))
    if enc == "uleb128" and ty.bits == 32 then
      b:t([[
        if (PCD_UNLIKELY(${l} > UINT32_MAX))
            return pcd_fail(${cur}, ${at}, PCD_E_OVERFLOW, ${path}, "a 32-bit value", PCD_FOUND_UINT, ${l});
      ]], { l = local_, cur = cur, at = at, path = cstr(errname) })
    end
  end
  if checked and enc ~= "mojo" then K.dec_checks(b, f, local_, at, env) end
  if checked and enc == "mojo" then
    K.mojo_checks(b, f, local_, function(st, expected, found)
      b:f("    return pcd_fail(%s, %s, %s, %s, %s, %s);", cur, at, st, cstr(f.errname), cstr(expected), found)
    end)
  end
end

-- One number read standalone: checks, then the stored value (delta, base) into member.
function K.dec_scalar(b, f, env, member, errname, local_)
  local ty = f.ty
  if ty.kind == "varint" then dec_varint(b, f, env, errname, local_) else dec_fixed(b, f, env, errname, local_) end
  if env.mode == "dec" and not member and f.in_array and (f.delta or f.base) then
    -- an array element: the stored value replaces the wire value in the local
    b:f("%s = %s;", local_, K.dec_transform(b, f, local_, env))
  elseif env.mode == "dec" and member then
    local v = K.dec_transform(b, f, local_, env)
    if ty.kind == "varint" and ty.enc == "uleb128" and ty.bits == 32 then v = "(uint32_t)" .. v end
    b:f("%s = %s;", C.out_ref(env, member), v)
    if v ~= local_ and (f.delta or f.base) then b:f("%s = %s;", local_, C.out_ref(env, member)) end
  end
  -- validation does not track stream state
end

function K.dec_magic(b, f, env, errname)
  local ty = f.ty
  b:t([[
    if (PCD_UNLIKELY(pcd_left(${cur}) < ${n}))
        return pcd_fail_short(${cur}, ${cur}->p, ${path}, "magic");
    if (PCD_UNLIKELY(memcmp(${cur}->p, ${bytes}, ${n}) != 0))
        return pcd_fail_magic(${cur}, ${cur}->p, ${path}, ${text}, ${n});
    ${cur}->p += ${n};
  ]], { cur = env.cur, n = #ty.bytes, path = cstr(errname), bytes = cstr(ty.bytes), text = cstr(C.magic_text(ty.bytes)) })
end

---------------------------------------------------------------------------
-- encode / size

-- The wire value of an integer field given its stored value (delta, base).
local function enc_transform(b, f, v, env, wt)
  if not f.delta and not f.base then return v end
  local w = "w_" .. f.local_:sub(3)
  C.declare(env, w, wt, "0")
  local sh = f.shift and (" >> " .. f.shift) or ""
  if f.delta then
    env.need_state = f.delta.region
    b:f("%s = (%s)((%s)((uint64_t)(%s)%s) - st->%s);", w, wt, f.delta.ctype, v, sh, f.delta.name)
    b:f("st->%s = (%s)((uint64_t)(%s)%s);", f.delta.name, f.delta.ctype, v, sh)
    return w
  end
  if f.shift and env.mode == "enc" then
    b:f("if (PCD_UNLIKELY(((uint64_t)(%s) & %d) != 0))", v, (1 << f.shift) - 1)
    C.enc_fail(b, env, "PCD_E_RANGE", f.errname, "a multiple of " .. (1 << f.shift), "PCD_FOUND_HEX", v)
  end
  b:f("%s = (%s)(((uint64_t)(%s)%s) - (uint64_t)(%s));", w, wt, v, sh, cexpr(f.base, env))
  return w
end

-- The decoder's checks, when encoding: the encoder never writes what the decoder rejects.
local function enc_checks(b, f, v, env)
  if env.mode == "size" then return end
  if lower.patched(f) then return end -- its value is only known after its region
  local fk = C.found_kind(f, f.ty)
  local signed = f.ty and (f.ty.signed or (f.ty.kind == "varint" and f.ty.ctype:match("^int")))
  local wide = signed and "int64_t" or "uint64_t"
  local function check(condition, expected)
    b:f("if (PCD_UNLIKELY(%s))", condition)
    C.enc_fail(b, env, "PCD_E_RANGE", f.errname, expected, fk, v)
  end
  if f.min_expr and lower.enc_evaluable(f.min_expr) then
    check(string.format("(%s)(%s) < (%s)(%s)", wide, v, wide, cexpr(f.min_expr, env)), "at least " .. f.min_src)
  end
  if f.max_expr and lower.enc_evaluable(f.max_expr) then
    check(string.format("(%s)(%s) > (%s)(%s)", wide, v, wide, cexpr(f.max_expr, env)), "at most " .. f.max_src)
  end
  if f.check and lower.enc_evaluable(f.check) then
    check("!(" .. cond(f.check, env) .. ")", f.expect or ("a value for which " .. f.check_src))
  end
  if f.equals ~= nil and not f.magic then check(v .. " != " .. C.cnum(f.equals, f.hex), C.numtext(f.equals, f.hex)) end
  if f.min ~= nil then check(v .. " < " .. C.cnum(f.min, f.hex), "at least " .. C.numtext(f.min, f.hex)) end
  if f.max ~= nil then check(v .. " > " .. C.cnum(f.max, f.hex), "at most " .. C.numtext(f.max, f.hex)) end
  bits.checks(f, v, function(condition, st, path, expected, found)
    b:f("if (PCD_UNLIKELY(%s))", condition)
    C.enc_fail(b, env, st, path, expected, "PCD_FOUND_UINT", found)
  end)
  if f.enum and not f.enum_open and #f.enum > 0 then
    b:f("switch (%s) {", v)
    local cases = {}
    for _, it in ipairs(f.enum) do cases[#cases + 1] = "case " .. C.cnum(it.value, f.hex) .. ":" end
    for i = 1, #cases, 6 do b:l(table.concat(cases, " ", i, math.min(i + 5, #cases))) end
    b:l("    break;")
    b:l("default:")
    C.enc_fail(b, env, "PCD_E_RANGE", f.errname, "a value of its enum", fk, v)
    b:l("}")
  end
end

local function enc_fixed(b, f, env, v)
  local ty = f.ty
  if env.mode == "size" then C.acc(b, env, ty.wire) return end
  local w = v
  if ty.kind == "int" then
    enc_checks(b, f, v, env)
    w = enc_transform(b, f, v, env, ty.ctype)
  end
  if f.derived and ty.kind == "int" and ty.bits < 64 then
    local _, hi = C.range_of(ty)
    b:f("if (PCD_UNLIKELY((uint64_t)(%s) > %s))", v, hi)
    C.enc_fail(b, env, "PCD_E_RANGE", f.errname, "a value that fits in " .. C.type_text(ty), "PCD_FOUND_UINT", v)
  end
  if f.relocate then
    -- an offset into the stream: it moves with the record it points into
    local r = "o_" .. f.local_:sub(3)
    C.declare(env, r, "uint64_t", "0")
    b:f("%s = (uint64_t)(%s);", r, w)
    b:f("if (s->x->reloc && PCD_UNLIKELY(!s->x->reloc(s->x->reloc_ud, %s, &%s)))", r, r)
    C.enc_fail(b, env, "PCD_E_INVALID", f.errname, "an offset into a record written before it (to move with that record)",
      "PCD_FOUND_UINT", w)
    if ty.bits < 64 then
      local _, hi = C.range_of(ty)
      b:f("if (PCD_UNLIKELY(%s > %s))", r, hi)
      C.enc_fail(b, env, "PCD_E_RANGE", f.errname, "an offset that fits in " .. C.type_text(ty), "PCD_FOUND_UINT", r)
    end
    w = r
  end
  b:f("PCD_TRY(%s);", C.put(ty, w, "s"))
end

-- How each varint is written and measured, given its wire value w.
local VARINT_OUT = {
  uleb128 = { wt = "uint64_t", put = "pcd_put_uleb128(s, (uint64_t)(%s))", size = "pcd_size_uleb128((uint64_t)(%s))" },
  sleb128 = { wt = "int64_t", put = "pcd_put_sleb128(s, (int64_t)(%s))", size = "pcd_size_sleb128((int64_t)(%s))" },
  zigzag64 = { wt = "int64_t", put = "pcd_put_zigzag64(s, (int64_t)(%s))",
    size = "pcd_size_uleb128(pcd_zigzag64((int64_t)(%s)))" },
  zigzag32 = { wt = "int32_t", put = "pcd_put_zigzag32(s, (int32_t)(%s))",
    size = "pcd_size_uleb128(pcd_zigzag32((int32_t)(%s)))" },
}

local function enc_varint(b, f, env, v)
  local enc = f.ty.enc
  if enc == "mojo" then
    if env.mode == "size" then C.acc(b, env, "pcd_size_mojo((" .. v .. ").mag)") return end
    K.mojo_checks(b, f, "(" .. v .. ")", function(st, expected, found)
      if st == "PCD_E_BAD_MAGIC" then st = "PCD_E_RANGE" end
      b:f("    return pcd_sink_fail(s, %s, %s, %s, %s);", st, cstr(f.errname), cstr(expected), found)
    end)
    b:f("PCD_TRY(pcd_put_mojo(s, (%s).mag, (%s).neg));", v, v)
    return
  end
  enc_checks(b, f, v, env)
  local o = VARINT_OUT[enc]
  local w = enc_transform(b, f, v, env, o.wt)
  if env.mode == "size" then C.acc(b, env, string.format(o.size, w)) return end
  b:f("PCD_TRY(" .. o.put .. ");", w)
end

-- v: C expression of the stored value.
function K.enc_scalar(b, f, env, v)
  if f.ty.kind == "varint" then enc_varint(b, f, env, v) else enc_fixed(b, f, env, v) end
end

function K.enc_magic(b, f, env)
  local ty = f.ty
  if env.mode == "size" then C.acc(b, env, #ty.bytes) return end
  b:f("PCD_TRY(pcd_put_bytes(s, (const uint8_t *)%s, %d));", cstr(ty.bytes), #ty.bytes)
end

return K
