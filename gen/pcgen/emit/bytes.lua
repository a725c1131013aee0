-- emit/bytes.lua: byte strings (length-prefixed, NUL-terminated, fixed, NUL-padded, sized
-- by an expression or by another field, the rest of a sized struct): decode and validate,
-- encode and size. Decoded strings are views into the input.
local expr = require("pcgen.expr")
local lower = require("pcgen.lower")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.kinds")

local cstr = C.cstr

-- Can a length-prefixed string merge its check with the next field's? Only a field of its
-- struct read where it lies, always (not an array's element, not placed or conditional).
local function merge_ok(f, env)
  if env.explain or not f.owner or f.when or f.at or f.at_end or f.sized_by or f.optional then return false end
  return f.owner.fields ~= nil
end

function K.dec_bytes(b, f, env, member, errname, local_)
  local ty = f.ty
  local cur = env.cur
  C.declare(env, local_, "pcd_bytes", "{ NULL, 0 }")
  local mode = ty.mode
  local v = { cur = cur, l = local_, path = cstr(errname) }
  if mode == "cstring" then
    v.max = expr.cnum(ty.max or 0)
    b:t("PCD_TRY(pcd_read_cstring(${cur}, ${max}, &${l}, ${path}));", v)
  elseif mode == "prefix" then
    local pf = ty.prefix
    v.n = "len_" .. local_:sub(3)
    C.declare(env, v.n, "uint64_t", "0")
    if pf.kind == "int" then
      v.w, v.load = pf.wire, C.load(pf, cur .. "->p")
      if K.covered(env, f, pf.wire) then
        b:f("/* (its %d-byte length checked above) */", pf.wire)
      else
        b:t([[
          if (PCD_UNLIKELY(pcd_left(${cur}) < ${w}))
              return pcd_fail_short(${cur}, ${cur}->p, ${path}, "length");
        ]], v)
      end
      b:t([[
        ${n} = ${load};
        ${cur}->p += ${w};
      ]], v)
    else
      b:t("PCD_TRY(pcd_read_uleb128(${cur}, &${n}, ${path}));", v)
    end
    if ty.max then
      v.max, v.expected = expr.cnum(ty.max), cstr("at most " .. ty.max .. " bytes")
      b:t([[
        if (PCD_UNLIKELY(${n} > ${max}))
            return pcd_fail(${cur}, ${cur}->p, PCD_E_LIMIT, ${path}, ${expected}, PCD_FOUND_UINT, ${n});
      ]], v)
    end
    -- the bytes and the fixed check the next field starts with, in one check; when it fails,
    -- the checks one by one say which of them did
    local nx = pf.kind == "int" and pf.bits <= 32 and merge_ok(f, env) and K.next_field(f)
    local w, fail
    if nx then w, fail = K.lead_check(nx, env) end
    if w then
      v.w2, v.fail, v.next, v.bytes, v.me = w, fail, nx.name, w == 1 and "byte" or "bytes", f.name
      b:t([[
        /* ${me}'s bytes and ${next}'s first ${w2} ${bytes}: one check (one by one when it fails) */
        if (PCD_UNLIKELY(${n} + ${w2} > pcd_left(${cur}))) {
            PCD_TRY(pcd_read_bytes(${cur}, ${n}, &${l}, ${path}));
            ${fail}
        }
        ${l}.ptr = ${cur}->p;
        ${l}.len = (size_t)${n};
        ${cur}->p += ${n};
      ]], v)
      env.ahead = { field = nx, bytes = w, cur = cur }
    else
      b:t("PCD_TRY(pcd_read_bytes(${cur}, ${n}, &${l}, ${path}));", v)
    end
  elseif mode == "expr" then
    v.size = X.cexpr(ty.size, env)
    b:t("PCD_TRY(pcd_read_bytes(${cur}, (uint64_t)(${size}), &${l}, ${path}));", v)
  elseif mode == "fixed" then
    v.n = ty.fixed
    b:t("PCD_TRY(pcd_read_bytes(${cur}, ${n}, &${l}, ${path}));", v)
    if ty.padded then b:t("${l}.len = pcd_padded_len(${l}.ptr, ${n});", v) end
  else -- rest, sized
    b:t([[
      ${l}.ptr = ${cur}->p;
      ${l}.len = pcd_left(${cur});
      ${cur}->p = ${cur}->end;
    ]], v)
  end
  if env.mode == "dec" and member then b:f("%s = %s;", C.out_ref(env, member), local_) end
end

function K.enc_bytes(b, f, env, v, errname)
  local ty = f.ty
  local mode = ty.mode
  local len = "(" .. v .. ").len"
  if env.mode == "size" then
    if mode == "cstring" then C.acc(b, env, len .. " + 1")
    elseif mode == "prefix" and ty.prefix.kind == "int" then C.acc(b, env, ty.prefix.wire .. " + " .. len)
    elseif mode == "prefix" then C.acc(b, env, "pcd_size_uleb128(" .. len .. ") + " .. len)
    elseif mode == "fixed" then C.acc(b, env, ty.fixed)
    else C.acc(b, env, len) end
    return
  end
  local function check(condition, st, expected, fk, found)
    b:f("if (PCD_UNLIKELY(%s))", condition)
    C.enc_fail(b, env, st, errname, expected, fk, found)
  end
  if mode == "cstring" then
    check("pcd_bytes_has_nul(" .. v .. ")", "PCD_E_RANGE", "a string without NUL bytes", "PCD_FOUND_NONE", 0)
    if ty.max then
      check(len .. " > " .. expr.cnum(ty.max), "PCD_E_LIMIT", "at most " .. ty.max .. " bytes", "PCD_FOUND_UINT", len)
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
    b:l("PCD_TRY(pcd_put_u8(s, 0));")
  elseif mode == "prefix" then
    local pf = ty.prefix
    local _, hi = C.range_of(pf)
    local lim = ty.max and expr.cnum(ty.max) or hi
    if lim then
      check("(uint64_t)" .. len .. " > (uint64_t)" .. lim, "PCD_E_RANGE",
        "a length that fits its " .. C.type_text(pf) .. " prefix", "PCD_FOUND_UINT", len)
    end
    if pf.kind == "int" then
      b:f("PCD_TRY(%s);", C.put(pf, len, "s"))
    else
      b:f("PCD_TRY(pcd_put_uleb128(s, (uint64_t)%s));", len)
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
  elseif mode == "fixed" then
    if ty.padded then
      check(string.format("%s > %d || pcd_bytes_has_nul(%s)", len, ty.fixed, v), "PCD_E_RANGE",
        "at most " .. ty.fixed .. " bytes without NUL", "PCD_FOUND_UINT", len)
      b:f("PCD_TRY(pcd_put_padded(s, %s, %d));", v, ty.fixed)
    else
      check(len .. " != " .. ty.fixed, "PCD_E_RANGE", "exactly " .. ty.fixed .. " bytes", "PCD_FOUND_UINT", len)
      b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, %d));", v, ty.fixed)
    end
  else
    if mode == "expr" and lower.enc_evaluable(ty.size) then
      check("(uint64_t)" .. len .. " != (uint64_t)(" .. X.cexpr(ty.size, env) .. ")", "PCD_E_SIZE",
        "the length its size expression gives", "PCD_FOUND_UINT", len)
    end
    b:f("PCD_TRY(pcd_put_bytes(s, (%s).ptr, (%s).len));", v, v)
  end
end

return K
