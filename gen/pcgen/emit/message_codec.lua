-- emit/message_codec.lua: the codec of a protobuf message: validate (one pass in wire order:
-- keys, wire types, lengths, every varint, nested messages), fill (from bytes the validator
-- accepted: count each field's elements, allocate, then the values, and the layout kept only
-- when it is not the canonical one) and decode (the two); encode and size are in
-- emit/message_encode.lua; the helpers for one scalar element are shared with the field
-- records (emit/message_record.lua).
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local buf = require("pcgen.emit.cbuf")

local cstr = C.cstr

local MC = {}

local function hex(k) return string.format("0x%02X", k) end

---------------------------------------------------------------------------
-- one scalar element, by protobuf type

-- C that reads one element of type ty from cur into the lvalue dst (nm: the error name).
local function scalar_read(ty, cur, dst, nm)
  local p = ty.pbt
  local v = { cur = cur, dst = dst, nm = nm }
  local t = ({
    uint64 = "PCD_TRY(pcd_read_uleb128(${cur}, &${dst}, ${nm}));",
    int64 = "{ uint64_t u_ = 0; PCD_TRY(pcd_read_uleb128(${cur}, &u_, ${nm})); ${dst} = (int64_t)u_; }",
    sint64 = "PCD_TRY(pcd_read_zigzag64(${cur}, &${dst}, ${nm}));",
    bool = "{ uint64_t u_ = 0; PCD_TRY(pcd_read_uleb128(${cur}, &u_, ${nm})); ${dst} = u_ != 0; }",
    int32 = "PCD_TRY(pcd_pb_read_int32(${cur}, &${dst}, ${nm}));",
    uint32 = "PCD_TRY(pcd_pb_read_uint32(${cur}, &${dst}, ${nm}));",
    sint32 = "PCD_TRY(pcd_read_zigzag32(${cur}, &${dst}, ${nm}));",
    fixed32 = "PCD_TRY(pcd_read_u32le(${cur}, &${dst}, ${nm}));",
    sfixed32 = "{ uint32_t u_ = 0; PCD_TRY(pcd_read_u32le(${cur}, &u_, ${nm})); ${dst} = (int32_t)u_; }",
    fixed64 = "PCD_TRY(pcd_read_u64le(${cur}, &${dst}, ${nm}));",
    sfixed64 = "{ uint64_t u_ = 0; PCD_TRY(pcd_read_u64le(${cur}, &u_, ${nm})); ${dst} = (int64_t)u_; }",
    float = "{ uint32_t u_ = 0; PCD_TRY(pcd_read_u32le(${cur}, &u_, ${nm})); ${dst} = pcd_f32_from_bits(u_); }",
    double = "{ uint64_t u_ = 0; PCD_TRY(pcd_read_u64le(${cur}, &u_, ${nm})); ${dst} = pcd_f64_from_bits(u_); }",
  })[p]
  return text.render(t, v):gsub("\n$", "")
end

-- C that checks one element (the same errors as reading it).
local function scalar_check(ty, cur, nm)
  local p = ty.pbt
  local v = { cur = cur, nm = nm }
  local t = ({
    int32 = "{ int32_t v_ = 0; PCD_TRY(pcd_pb_read_int32(${cur}, &v_, ${nm})); }",
    uint32 = "{ uint32_t v_ = 0; PCD_TRY(pcd_pb_read_uint32(${cur}, &v_, ${nm})); }",
    sint32 = "{ int32_t v_ = 0; PCD_TRY(pcd_read_zigzag32(${cur}, &v_, ${nm})); }",
    fixed32 = "{ uint32_t v_ = 0; PCD_TRY(pcd_read_u32le(${cur}, &v_, ${nm})); }",
    sfixed32 = "{ uint32_t v_ = 0; PCD_TRY(pcd_read_u32le(${cur}, &v_, ${nm})); }",
    float = "{ uint32_t v_ = 0; PCD_TRY(pcd_read_u32le(${cur}, &v_, ${nm})); }",
    fixed64 = "{ uint64_t v_ = 0; PCD_TRY(pcd_read_u64le(${cur}, &v_, ${nm})); }",
    sfixed64 = "{ uint64_t v_ = 0; PCD_TRY(pcd_read_u64le(${cur}, &v_, ${nm})); }",
    double = "{ uint64_t v_ = 0; PCD_TRY(pcd_read_u64le(${cur}, &v_, ${nm})); }",
  })[p] or "PCD_TRY(pcd_skip_uleb128(${cur}, ${nm}));"
  return text.render(t, v):gsub("\n$", "")
end

-- The wire size of one element v (a C expression).
local function scalar_size(ty, v)
  local p = ty.pbt
  if ty.wire == 5 then return "4" end
  if ty.wire == 1 then return "8" end
  if p == "bool" then return "1" end
  if p == "sint64" then return "pcd_size_uleb128(pcd_zigzag64(" .. v .. "))" end
  if p == "sint32" then return "pcd_size_uleb128(pcd_zigzag32(" .. v .. "))" end
  if p == "int32" then return "pcd_size_uleb128((uint64_t)(int64_t)(" .. v .. "))" end
  return "pcd_size_uleb128((uint64_t)(" .. v .. "))"
end

-- A call that writes one element v (a pcd_status).
local function scalar_put(ty, v)
  local p = ty.pbt
  if p == "bool" then return "pcd_put_u8(s, (" .. v .. ") ? 1 : 0)" end
  if p == "sint64" then return "pcd_put_zigzag64(s, " .. v .. ")" end
  if p == "sint32" then return "pcd_put_zigzag32(s, " .. v .. ")" end
  if p == "int32" then return "pcd_put_uleb128(s, (uint64_t)(int64_t)(" .. v .. "))" end
  if p == "float" then return "pcd_put_u32le(s, pcd_f32_bits(" .. v .. "))" end
  if p == "double" then return "pcd_put_u64le(s, pcd_f64_bits(" .. v .. "))" end
  if ty.wire == 5 then return "pcd_put_u32le(s, (uint32_t)(" .. v .. "))" end
  if ty.wire == 1 then return "pcd_put_u64le(s, (uint64_t)(" .. v .. "))" end
  return "pcd_put_uleb128(s, (uint64_t)(" .. v .. "))"
end
MC.scalar_read, MC.scalar_size, MC.scalar_put = scalar_read, scalar_size, scalar_put

-- The canonical run of a repeated number with n elements: packed from pack_min on.
local function canon_field(M, F, n)
  if F.packable and F.pack then
    return string.format("(%s >= %d ? %d : %d)", n, M.pack_min, (F.number << 1) | 1, F.number << 1)
  end
  return tostring(F.number << 1)
end

-- The checks of a string's length (max_len).
local function len_checks(b, F, cur, p)
  if F.ty.max then
    b:t([[
      if (PCD_UNLIKELY((uint64_t)(${p}.end - ${p}.p) > ${max}))
          return pcd_fail(${cur}, ${p}.p, PCD_E_LIMIT, ${nm}, ${expected}, PCD_FOUND_UINT, (uint64_t)(${p}.end - ${p}.p));
    ]], { p = p, max = F.ty.max, cur = cur, nm = cstr(F.errname), expected = cstr("at most " .. F.ty.max .. " bytes") })
  end
end

---------------------------------------------------------------------------
-- validate: one pass in wire order

-- The case of one key of field F in a validator (cur: the message's cursor).
local function val_case(b, M, F, packed)
  local nm = cstr(F.errname)
  local key = packed and F.key_packed or F.key
  local what = F.name .. (packed and ", a packed run" or "")
  if F.ty.kind == "pb" and not packed then
    b:f("case %s: /* %s */", hex(key), what)
    b:nest(function()
      b:l(scalar_check(F.ty, "c", nm))
      if F.max_count then b:f("k_%s++;", F.name) end
      b:l("break;")
    end)
    return
  end
  b:f("case %s: { /* %s */", hex(key), what)
  b:nest(function()
    b:l("pcd_cursor p = { 0 };")
    b:f("PCD_TRY(pcd_pb_len(c, &p, %s));", nm)
    if packed then
      if F.ty.wire == 0 then
        if F.max_count then
          b:l("uint64_t k;")
          b:f("PCD_TRY(pcd_pb_count_varints(&p, &k, %s));", nm)
          b:f("k_%s += k;", F.name)
        end
        if F.ty.pbt == "int32" or F.ty.pbt == "uint32" or F.ty.pbt == "sint32" then
          b:f("while (p.p < p.end) %s", scalar_check(F.ty, "&p", nm))
        else
          b:f("PCD_TRY(pcd_pb_skip_varints(&p, %s));", nm)
        end
      else
        b:l("uint64_t k;")
        b:f("PCD_TRY(pcd_pb_count_fixed(&p, %d, &k, %s));", F.ty.wire == 5 and 4 or 8, nm)
        if F.max_count then b:f("k_%s += k;", F.name) end
      end
    elseif F.ty.kind == "bytes" then
      len_checks(b, F, "c", "p")
      if F.max_count then b:f("k_%s++;", F.name) end
    else
      local T2 = F.ty
      local idx = F.repeated and string.format("(int64_t)i_%s", F.name) or "-1"
      if F.guard then
        b:l("PCD_TRY(pcd_pb_enter(c));")
        b:f("pcd_status st = %s_validate_(&p);", T2.cname)
        b:l("c->x->depth--;")
        b:f("PCD_TRY_IN(c->x, st, %s, %s);", nm, idx)
      else
        b:f("PCD_TRY_IN(c->x, %s_validate_(&p), %s, %s);", T2.cname, nm, idx)
      end
      if F.repeated then b:f("i_%s++;", F.name) end
      if F.max_count then b:f("k_%s++;", F.name) end
    end
    b:l("break;")
  end)
  b:l("}")
end

local function max_count_checks(b, M)
  for _, F in ipairs(M.fields) do
    if F.max_count then
      b:t([[
        if (PCD_UNLIKELY(k_${f} > ${max}))
            return pcd_fail(c, start, PCD_E_LIMIT, ${nm}, ${expected}, PCD_FOUND_UINT, k_${f});
      ]], { f = F.name, max = F.max_count, nm = cstr(F.errname), expected = cstr("at most " .. F.max_count .. " elements") })
    end
  end
end

local function validate_fn(M)
  local b = buf(1)
  local decl = buf(1)
  local counters = false
  for _, F in ipairs(M.fields) do
    if F.max_count then decl:f("uint64_t k_%s = 0;", F.name); counters = true end
    if F.repeated and F.nested then decl:f("uint64_t i_%s = 0;", F.name) end
  end
  if counters then decl:l("const uint8_t *const start = c->p;") end
  b:l("while (c->p < c->end) {")
  b:nest(function()
    b:l("const uint8_t *at = c->p;")
    b:l("uint32_t key = 0;")
    b:l("PCD_TRY(pcd_pb_read_key(c, &key, NULL));")
    b:l("switch (key) {")
    for _, F in ipairs(M.fields) do
      val_case(b, M, F, false)
      if F.packable then val_case(b, M, F, true) end
    end
    b:l("default:")
    b:nest(function()
      if #M.fields > 0 then b:f("PCD_TRY(%s_wire_(c, at, key));", M.cname) else b:l("(void)at;") end
      b:l('PCD_TRY(pcd_pb_read_other(c, key, NULL, "_unknown"));')
    end)
    b:l("}")
  end)
  b:l("}")
  max_count_checks(b, M)
  return text.render([[
    /* ${name}: its fields in wire order (keys, wire types, lengths, every value, nested
     * messages). Validation only: nothing stored. */
    static inline pcd_status ${T}_validate_(pcd_cursor *c)
    {
    ${decls}
    ${body}
        return PCD_OK;
    }
    pcd_status ${T}_validate(pcd_cursor *c)
    {
        return ${T}_validate_(c);
    }
  ]], { name = M.tname, T = M.cname, decls = decl:text(), body = b:text() })
end

-- The known numbers of M with the wrong wire type.
local function wire_fn(M)
  if #M.fields == 0 then return "" end
  local b = buf(1)
  b:l("switch (key >> 3) {")
  for _, F in ipairs(M.fields) do
    b:f("case %d: return pcd_pb_fail_wire(c, at, %s, %s, key);", F.number, cstr(F.errname), cstr(F.wire_expected))
  end
  b:l("}")
  return text.render([[
    /* ${name}: a field it names, with a wire type that field does not take, is an error;
     * PCD_OK for the numbers it does not name (kept as unknown fields). */
    static pcd_status ${T}_wire_(const pcd_cursor *c, const uint8_t *at, uint32_t key)
    {
    ${body}
        return PCD_OK;
    }
  ]], { name = M.tname, T = M.cname, body = b:text() })
end

---------------------------------------------------------------------------
-- fill: counts, room, values

-- First pass: the case of one key (counting).
local function count_case(b, M, F, packed)
  local key = packed and F.key_packed or F.key
  local run = (F.number << 1) | (packed and 1 or 0)
  local n = F.repeated and ("n_" .. F.name) or ("o_" .. F.name)
  if F.ty.kind == "pb" and not packed then
    b:f("case %s: /* %s */", hex(key), F.name)
    b:nest(function()
      if F.ty.wire == 0 then b:l("PCD_TRY(pcd_skip_uleb128(c, NULL));")
      else b:l("PCD_TRY(pcd_pb_read_other(c, key, NULL, NULL));") end
      b:f("%s++;", n)
      b:f("pcd_pb_runc_add(&rc, %d);", run)
      b:l("break;")
    end)
    return
  end
  b:f("case %s: { /* %s */", hex(key), F.name .. (packed and ", a packed run" or ""))
  b:nest(function()
    b:l("pcd_cursor p = { 0 };")
    b:l("PCD_TRY(pcd_pb_len(c, &p, NULL));")
    if packed then
      b:l("uint64_t k;")
      if F.ty.wire == 0 then b:l("PCD_TRY(pcd_pb_count_varints(&p, &k, NULL));")
      else b:f("PCD_TRY(pcd_pb_count_fixed(&p, %d, &k, NULL));", F.ty.wire == 5 and 4 or 8) end
      b:f("%s += k;", n)
    else
      b:f("%s++;", n)
    end
    b:f("pcd_pb_runc_add(&rc, %d);", run)
    b:l("break;")
  end)
  b:l("}")
end

-- Second pass: the case of one key (values).
local function fill_case(b, M, F, packed)
  local key = packed and F.key_packed or F.key
  local run = (F.number << 1) | (packed and 1 or 0)
  local nm = "NULL"
  if F.repeated then
    local item = string.format("out->%s[out->n_%s]", F.member, F.name)
    if F.ty.kind == "pb" and not packed then
      b:f("case %s: /* %s */", hex(key), F.name)
      b:nest(function()
        b:l(scalar_read(F.ty, "c", item, nm))
        b:f("out->n_%s++;", F.name)
        b:f("pcd_pb_runs_add(out->layout_.runs, &out->layout_.n, %d, 1);", run)
        b:l("break;")
      end)
      return
    end
    b:f("case %s: { /* %s */", hex(key), F.name .. (packed and ", a packed run" or ""))
    b:nest(function()
      b:l("pcd_cursor p = { 0 };")
      b:l("PCD_TRY(pcd_pb_len(c, &p, NULL));")
      if packed then
        b:f("size_t k0 = out->n_%s;", F.name)
        b:l("while (p.p < p.end) {")
        b:nest(function()
          b:l(scalar_read(F.ty, "&p", item, nm))
          b:f("out->n_%s++;", F.name)
        end)
        b:l("}")
        b:f("pcd_pb_runs_add(out->layout_.runs, &out->layout_.n, %d, (uint32_t)(out->n_%s - k0));", run, F.name)
      else
        if F.ty.kind == "bytes" then
          b:f("%s.ptr = p.p;", item)
          b:f("%s.len = (size_t)(p.end - p.p);", item)
        else
          b:f("PCD_TRY(%s_fill_(&p, &%s));", F.ty.cname, item)
        end
        b:f("out->n_%s++;", F.name)
        b:f("pcd_pb_runs_add(out->layout_.runs, &out->layout_.n, %d, 1);", run)
      end
      b:l("break;")
    end)
    b:l("}")
    return
  end
  -- singular: the last occurrence is the value, earlier ones are kept raw
  b:f("case %s: /* %s */", hex(key), F.name)
  b:nest(function()
    b:f("if (o_%s-- > 1) {", F.name)
    b:l("    PCD_TRY(pcd_pb_read_other(c, key, &out->unknown_[out->n_unknown_++], NULL));")
    b:l("} else {")
    b:nest(function()
      if F.ty.kind == "pb" then
        b:l(scalar_read(F.ty, "c", "out->" .. F.member, nm))
      else
        b:l("pcd_cursor p = { 0 };")
        b:l("PCD_TRY(pcd_pb_len(c, &p, NULL));")
        if F.ty.kind == "bytes" then
          b:f("out->%s.ptr = p.p;", F.member)
          b:f("out->%s.len = (size_t)(p.end - p.p);", F.member)
        else
          b:f("PCD_TRY(%s_fill_(&p, &out->%s));", F.ty.cname, F.member)
        end
      end
      b:f("out->has_%s = true;", F.name)
    end)
    b:l("}")
    b:f("pcd_pb_runs_add(out->layout_.runs, &out->layout_.n, %d, 1);", run)
    b:l("break;")
  end)
end

-- fill in one pass, where it can (value_type, label, sample, ...): a message whose singular
-- fields are scalars or strings and whose repeated ones scalars, strings or one kind of
-- message. The values go into *out (singular ones) and into buffers on the stack (repeated
-- ones; a message's bytes are noted, not read), as long as every field is a known one, each
-- singular field comes at most once and the arrays stay small (FAST_MAX scalars, FAST_MAX_REF
-- strings or messages, FAST_RUNS runs of the layout, or a few more than the message has fields):
-- what writers do. Then the arena takes the
-- same arrays in the same order as the general path's (so that a limit fails the same way and
-- the same memory is taken), the buffers are copied and the messages filled in wire order.
-- Anything else goes back to the start and takes the general two passes; nothing is taken
-- from the arena before that is decided.
local FAST_MAX, FAST_MAX_REF, FAST_RUNS = 128, 32, 16

local function fast_ok(M)
  if #M.fields == 0 then return false end
  local nrep, nmsg = 0, 0
  for _, F in ipairs(M.fields) do
    local k = F.ty.kind
    if F.repeated then
      nrep = nrep + 1
      if k == "message" then
        if F.guard then return false end
        nmsg = nmsg + 1
      elseif k ~= "pb" and k ~= "bytes" then
        return false
      end
    elseif k ~= "pb" and k ~= "bytes" then
      return false
    end
  end
  -- (the buffers are on the stack; messages of one repeated field only, filled in wire order)
  return nrep <= 4 and nmsg <= 1
end

local function fast_runs(M) return math.max(FAST_RUNS, #M.fields + 4) end

local function fast_case(b, M, F, i, packed, flat)
  local key = packed and F.key_packed or F.key
  local run = (F.number << 1) | (packed and 1 or 0)
  local k, bf = "k_" .. F.name, "b_" .. F.name
  local push = string.format("if (!pcd_pb_runs_push(runs_, &nr_, %d, %d, 1)) return PCD_OK;", fast_runs(M), run)
  local scalar = F.ty.kind == "pb"
  if not F.repeated then
    b:f("case %s: /* %s */", hex(key), F.name)
    b:nest(function()
      b:f("if (out->has_%s) return PCD_OK;", F.name)
      if scalar then
        b:l(scalar_read(F.ty, "c", "out->" .. F.member, "NULL"))
      else
        b:l("{")
        b:l("    pcd_cursor p = { 0 };")
        b:l("    PCD_TRY(pcd_pb_len(c, &p, NULL));")
        b:f("    out->%s.ptr = p.p;", F.member)
        b:f("    out->%s.len = (size_t)(p.end - p.p);", F.member)
        b:l("}")
      end
      b:f("out->has_%s = true;", F.name)
      if flat then
        -- each field once, none unknown: canonical when they come in the schema's order
        b:f("if (%d < last_) canon_ = false;", i)
        b:f("last_ = %d;", i)
        b:f("seen_[nr_++] = %d;", run)
      else
        b:l(push)
      end
      b:l("break;")
    end)
    return
  end
  if scalar and not packed then
    b:f("case %s: /* %s */", hex(key), F.name)
    b:nest(function()
      b:f("if (%s == %d) return PCD_OK;", k, FAST_MAX)
      b:l(scalar_read(F.ty, "c", bf .. "[" .. k .. "]", "NULL"))
      b:f("%s++;", k)
      b:l(push)
      b:l("break;")
    end)
    return
  end
  b:f("case %s: { /* %s */", hex(key), F.name .. (packed and ", a packed run" or ""))
  b:nest(function()
    b:l("pcd_cursor p = { 0 };")
    b:l("PCD_TRY(pcd_pb_len(c, &p, NULL));")
    if packed then
      b:f("size_t k0 = %s;", k)
      b:l("while (p.p < p.end) {")
      b:nest(function()
        b:f("if (%s == %d) return PCD_OK;", k, FAST_MAX)
        b:l(scalar_read(F.ty, "&p", bf .. "[" .. k .. "]", "NULL"))
        b:f("%s++;", k)
      end)
      b:l("}")
      b:f("if (!pcd_pb_runs_push(runs_, &nr_, %d, %d, (uint32_t)(%s - k0))) return PCD_OK;", fast_runs(M), run, k)
    else
      b:f("if (%s == %d) return PCD_OK;", k, FAST_MAX_REF)
      if F.ty.kind == "bytes" then
        b:f("%s[%s].ptr = p.p;", bf, k)
        b:f("%s[%s].len = (size_t)(p.end - p.p);", bf, k)
      else
        b:f("%s[%s][0] = p.p;", bf, k)
        b:f("%s[%s][1] = p.end;", bf, k)
      end
      b:f("%s++;", k)
      b:l(push)
    end
    b:l("break;")
  end)
  b:l("}")
end

-- The one-pass filler, a function of its own (the general filler's length stays readable), inlined
-- into the filler (a call of its own cost pprof validate 2 % of its instructions): it
-- returns PCD_OK with *done still false where it gives up, and the general path fills *out anew.
local function fast_fill(M, canon_conds)
  local flat = true
  for _, F in ipairs(M.fields) do if F.repeated then flat = false end end
  local b = buf(0)
  b:f("/* %s: one pass while every field is a known one, singular ones once, arrays small; sets", M.tname)
  b:l(" * *done when *out is filled, and returns with it false (PCD_OK) on anything else: an unknown")
  b:l(" * field, a singular one twice, an array past its buffer (the general filler then starts over). */")
  b:f("PCD_INLINE pcd_status %s_fill_fast_(pcd_cursor *c, %s *out, bool *done)", M.cname, M.cname)
  b:l("{")
  b:nest(function()
    b:l("const uint8_t *const start = c->p;")
    for _, F in ipairs(M.fields) do
      if F.repeated then
        if F.ty.kind == "message" then
          b:f("const uint8_t *b_%s[%d][2];", F.name, FAST_MAX_REF)
        else
          b:f("%s b_%s[%d];", F.elem_ctype, F.name, F.ty.kind == "pb" and FAST_MAX or FAST_MAX_REF)
        end
        b:f("size_t k_%s = 0;", F.name)
      end
    end
    if flat then
      b:f("uint32_t seen_[%d];", #M.fields)
      b:l("bool canon_ = true;")
      b:l("int last_ = -1;")
    else
      b:f("pcd_pb_run runs_[%d];", fast_runs(M))
    end
    b:l("size_t nr_ = 0;")
    b:l("while (c->p < c->end) {")
    b:nest(function()
      b:l("uint32_t key = 0;")
      b:l("PCD_TRY(pcd_pb_read_key(c, &key, NULL));")
      b:l("switch (key) {")
      for i, F in ipairs(M.fields) do
        fast_case(b, M, F, i - 1, false, flat)
        if F.packable then fast_case(b, M, F, i - 1, true, flat) end
      end
      b:l("default:")
      b:l("    return PCD_OK;")
      b:l("}")
    end)
    b:l("}")
    for _, F in ipairs(M.fields) do
      if F.repeated then
        b:f("PCD_TRY(pcd_alloc_array(c, start, k_%s, sizeof(%s), 0, (void **)&out->%s, %s));", F.name,
          F.elem_ctype, F.member, cstr(F.errname))
      end
    end
    b:l('PCD_TRY(pcd_alloc_array(c, start, nr_, sizeof(pcd_pb_run), 0, (void **)&out->layout_.runs, "_layout"));')
    for _, F in ipairs(M.fields) do
      if F.repeated and F.ty.kind ~= "message" then
        b:f("if (k_%s) memcpy(out->%s, b_%s, k_%s * sizeof *out->%s);", F.name, F.member, F.name, F.name, F.member)
        b:f("out->n_%s = k_%s;", F.name, F.name)
      elseif F.repeated then
        b:f("for (size_t j = 0; j < k_%s; j++) {", F.name)
        b:nest(function()
          b:l("pcd_cursor p = { 0 };")
          b:f("p.p = b_%s[j][0];", F.name)
          b:f("p.end = b_%s[j][1];", F.name)
          b:l("p.x = c->x;")
          b:l("p.hard = true;")
          b:f("PCD_TRY(%s_fill_(&p, &out->%s[j]));", F.ty.cname, F.member)
          b:f("out->n_%s++;", F.name)
        end)
        b:l("}")
      end
    end
    if flat then
      b:l("if (!canon_) {")
      b:l("    for (size_t j = 0; j < nr_; j++) {")
      b:l("        out->layout_.runs[j].field = seen_[j];")
      b:l("        out->layout_.runs[j].count = 1;")
      b:l("    }")
      b:l("    out->layout_.n = nr_;")
      b:l("}")
    else
      b:l("if (nr_) memcpy(out->layout_.runs, runs_, nr_ * sizeof *runs_);")
      b:l("out->layout_.n = nr_;")
      b:l("size_t i = 0, n = out->layout_.n;")
      b:l("const pcd_pb_run *r = out->layout_.runs;")
      b:l("if (" .. table.concat(canon_conds, " &&\n            ") .. ")")
      b:l("    out->layout_.n = 0;")
    end
    b:l("*done = true;")
    b:l("return PCD_OK;")
  end)
  b:l("}")
  return b:text()
end

-- The filler of a message with a one-pass filler: that, then the general one when it gave up.
local FILL_BOTH = [[
  /* ${name}: fills *out from bytes ${T}_validate_ accepted, in one pass when it can. */
  static pcd_status ${T}_fill_(pcd_cursor *c, ${T} *out)
  {
      const uint8_t *const start = c->p;
      bool done = false;
      memset(out, 0, sizeof *out);
      PCD_TRY(${T}_fill_fast_(c, out, &done));
      if (done) return PCD_OK;
      c->p = start;
      return ${T}_fill_general_(c, out);
  }
]]

local function fill_fn(M)
  local decl, pass1, alloc, pass2, canon = buf(1), buf(1), buf(1), buf(1), buf(1)
  for _, F in ipairs(M.fields) do
    decl:f("uint64_t %s_%s = 0;", F.repeated and "n" or "o", F.name)
  end
  decl:l("uint64_t n_unknown = 0;")
  -- counting
  pass1:l("while (c->p < c->end) {")
  pass1:nest(function()
    pass1:l("uint32_t key = 0;")
    pass1:l("PCD_TRY(pcd_pb_read_key(c, &key, NULL));")
    pass1:l("switch (key) {")
    for _, F in ipairs(M.fields) do
      count_case(pass1, M, F, false)
      if F.packable then count_case(pass1, M, F, true) end
    end
    pass1:l("default:")
    pass1:l("    PCD_TRY(pcd_pb_read_other(c, key, NULL, NULL));")
    pass1:l("    n_unknown++;")
    pass1:l("    pcd_pb_runc_add(&rc, key >> 3 << 1);")
    pass1:l("}")
  end)
  pass1:l("}")
  local dups = {}
  for _, F in ipairs(M.fields) do
    if not F.repeated then
      pass1:f("if (o_%s > 1) n_unknown += o_%s - 1; /* earlier occurrences: kept raw */", F.name, F.name)
      dups[#dups + 1] = "o_" .. F.name .. " > 1"
    end
  end
  if #dups > 0 then
    -- (the second pass counts the occurrences down)
    pass1:l("const bool twice = " .. table.concat(dups, " || ") .. ";")
  end
  -- room
  for _, F in ipairs(M.fields) do
    if F.repeated then
      alloc:f("PCD_TRY(pcd_alloc_array(c, start, n_%s, sizeof(%s), 0, (void **)&out->%s, %s));", F.name,
        F.elem_ctype, F.member, cstr(F.errname))
    end
  end
  alloc:l('PCD_TRY(pcd_alloc_array(c, start, n_unknown, sizeof(pcd_pb_field), 0, (void **)&out->unknown_, "_unknown"));')
  alloc:l('PCD_TRY(pcd_alloc_array(c, start, rc.n, sizeof(pcd_pb_run), 0, (void **)&out->layout_.runs, "_layout"));')
  -- values
  pass2:l("c->p = start;")
  pass2:l("while (c->p < c->end) {")
  pass2:nest(function()
    pass2:l("uint32_t key = 0;")
    pass2:l("PCD_TRY(pcd_pb_read_key(c, &key, NULL));")
    pass2:l("switch (key) {")
    for _, F in ipairs(M.fields) do
      fill_case(pass2, M, F, false)
      if F.packable then fill_case(pass2, M, F, true) end
    end
    pass2:l("default:")
    pass2:l("    PCD_TRY(pcd_pb_read_other(c, key, &out->unknown_[out->n_unknown_++], NULL));")
    pass2:l("    pcd_pb_runs_add(out->layout_.runs, &out->layout_.n, key >> 3 << 1, 1);")
    pass2:l("}")
  end)
  pass2:l("}")
  -- the canonical form?
  local conds, fconds = {}, {}
  if #dups > 0 then
    -- a singular field written twice: only the layout says which value came last
    conds[#conds + 1] = "!twice"
  end
  for _, F in ipairs(M.fields) do
    if F.repeated then
      conds[#conds + 1] = string.format("pcd_pb_canon(r, n, &i, %s, out->n_%s)", canon_field(M, F, "out->n_" .. F.name), F.name)
    else
      conds[#conds + 1] = string.format("pcd_pb_canon(r, n, &i, %d, out->has_%s)", F.number << 1, F.name)
    end
  end
  conds[#conds + 1] = "pcd_pb_canon_other(r, n, &i, out->unknown_, out->n_unknown_)"
  conds[#conds + 1] = "i == n"
  for j = (#dups > 0 and 2 or 1), #conds do
    if conds[j]:match("^pcd_pb_canon_other") then fconds[#fconds + 1] = "i == n" break end
    fconds[#fconds + 1] = conds[j]
  end
  canon:l("/* the layout is kept only when it is not the canonical form */")
  canon:l("size_t i = 0, n = out->layout_.n;")
  canon:l("const pcd_pb_run *r = out->layout_.runs;")
  canon:l("if (" .. table.concat(conds, " &&\n        ") .. ")")
  canon:l("    out->layout_.n = 0;")
  local fast = fast_ok(M)
  local general = text.render([[
    /* ${name}: fills *out from bytes ${T}_validate_ accepted: counts each field's elements,
     * makes room for them in the arena, then reads the values and the runs they came in. */
    static pcd_status ${T}_${fill}(pcd_cursor *c, ${T} *out)
    {
        const uint8_t *const start = c->p;
        pcd_pb_runc rc = PCD_PB_RUNC_INIT;
    ${decls}
        memset(out, 0, sizeof *out);
    ${pass1}
    ${alloc}
    ${pass2}
    ${canon}
        return PCD_OK;
    }
  ]], { name = M.tname, T = M.cname, fill = fast and "fill_general_" or "fill_", decls = decl:text(),
    pass1 = pass1:text(), alloc = alloc:text(), pass2 = pass2:text(), canon = canon:text() })
  if not fast then return general end
  return table.concat({ fast_fill(M, fconds), general, text.render(FILL_BOTH, { name = M.tname, T = M.cname }) }, "\n")
end

local DECODE = [[
  /* ${name}: checks its bytes, then fills *out (arrays in the record arena, strings as views
   * into the input). */
  static inline pcd_status ${T}_decode_(pcd_cursor *c, ${T} *out)
  {
      const uint8_t *const start = c->p;
      PCD_TRY(${T}_validate_(c));
      const uint8_t *const end = c->p;
      c->p = start;
      PCD_TRY(${T}_fill_(c, out));
      c->p = end;
      return PCD_OK;
  }
  pcd_status ${T}_decode(pcd_cursor *c, ${T} *out)
  {
      return ${T}_decode_(c, out);
  }
]]

-- Every function of a message, in an order C accepts (the validators and fillers of every
-- message are declared first by MC.prototypes).
function MC.message(ir, M)
  return table.concat({
    wire_fn(M), validate_fn(M), fill_fn(M), text.render(DECODE, { name = M.tname, T = M.cname }),
    require("pcgen.emit.message_encode")(M) }, "\n")
end

-- The static functions of every message, declared before the first (messages refer to one another).
function MC.prototypes(ir)
  local out = {}
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if T.kind == "message" then
      out[#out + 1] = string.format("static inline pcd_status %s_validate_(pcd_cursor *c);", T.cname)
      out[#out + 1] = string.format("static pcd_status %s_fill_(pcd_cursor *c, %s *out);", T.cname, T.cname)
    end
  end
  return table.concat(out, "\n") .. "\n\n"
end

MC.hex, MC.canon_field, MC.len_checks, MC.scalar_check = hex, canon_field, len_checks, scalar_check

return MC
