-- emit/message_encode.lua: encoding a protobuf message and measuring it: in the canonical form
-- (schema order, repeated numbers packed from pack_min values on, unknown fields last), or run
-- by run as its layout says (checking that the runs place every value exactly once).
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local MC = require("pcgen.emit.message_codec")
local buf = require("pcgen.emit.cbuf")

local cstr, hex = C.cstr, MC.hex
local scalar_size, scalar_put = MC.scalar_size, MC.scalar_put

---------------------------------------------------------------------------
-- encode and size

-- Writes (or measures) elements [from, from + k) of repeated field F, packed or not.
local function put_fn(M, F, mode)
  local v = { T = M.cname, f = F.name, key = hex(F.key) }
  local b = buf(1)
  local item = "in->" .. F.member .. "[i]"
  if F.ty.kind == "pb" then
    v.kp = F.key_packed and hex(F.key_packed) or "0"
    b:l("if (packed) {")
    b:nest(function()
      b:l("uint64_t len = 0;")
      if F.ty.wire == 0 and F.ty.pbt ~= "bool" then
        b:f("for (size_t i = from; i < from + k; i++) len += %s;", scalar_size(F.ty, item))
      else
        b:f("len = (uint64_t)k * %s;", scalar_size(F.ty, item))
      end
      if mode == "enc" then
        b:f("PCD_TRY(pcd_put_uleb128(s, %s));", v.kp)
        b:l("PCD_TRY(pcd_put_uleb128(s, len));")
        b:f("for (size_t i = from; i < from + k; i++) PCD_TRY(%s);", scalar_put(F.ty, item))
      else
        b:f("n += pcd_size_uleb128(%s) + pcd_size_uleb128(len) + len;", v.kp)
      end
    end)
    b:l("} else {")
    b:nest(function()
      if mode == "enc" then
        b:l("for (size_t i = from; i < from + k; i++) {")
        b:f("    PCD_TRY(pcd_put_uleb128(s, %s));", v.key)
        b:f("    PCD_TRY(%s);", scalar_put(F.ty, item))
        b:l("}")
      else
        b:f("for (size_t i = from; i < from + k; i++) n += pcd_size_uleb128(%s) + %s;", v.key, scalar_size(F.ty, item))
      end
    end)
    b:l("}")
  elseif F.ty.kind == "bytes" then
    b:l("(void)packed;")
    b:l("for (size_t i = from; i < from + k; i++) {")
    b:nest(function()
      if mode == "enc" then
        if F.ty.max then
          b:t([[
            if (PCD_UNLIKELY(${item}.len > ${max}))
                return pcd_sink_fail(s, PCD_E_LIMIT, ${nm}, ${expected}, PCD_FOUND_UINT, ${item}.len);
          ]], { item = item, max = F.ty.max, nm = cstr(F.errname), expected = cstr("at most " .. F.ty.max .. " bytes") })
        end
        b:f("PCD_TRY(pcd_put_uleb128(s, %s));", v.key)
        b:f("PCD_TRY(pcd_put_uleb128(s, %s.len));", item)
        b:f("PCD_TRY(pcd_sink_put(s, %s.ptr, %s.len));", item, item)
      else
        b:f("n += pcd_size_uleb128(%s) + pcd_size_uleb128(%s.len) + %s.len;", v.key, item, item)
      end
    end)
    b:l("}")
  else
    b:l("(void)packed;")
    b:l("for (size_t i = from; i < from + k; i++) {")
    b:nest(function()
      if mode == "enc" then
        b:f("PCD_TRY(pcd_put_uleb128(s, %s));", v.key)
        b:f("PCD_TRY(pcd_put_uleb128(s, %s_size(s->x, &%s)));", F.ty.cname, item)
        b:f("PCD_TRY_IN(s->x, %s_encode(s, &%s), %s, (int64_t)i);", F.ty.cname, item, cstr(F.errname))
      else
        b:l("uint64_t m;")
        b:f("m = %s_size(x, &%s);", F.ty.cname, item)
        b:f("n += pcd_size_uleb128(%s) + pcd_size_uleb128(m) + m;", v.key)
      end
    end)
    b:l("}")
  end
  if mode == "enc" then
    return text.render([[
      static pcd_status ${T}_put_${f}_(pcd_sink *s, const ${T} *in, size_t from, size_t k, bool packed)
      {
      ${body}
          return PCD_OK;
      }
    ]], { T = M.cname, f = F.name, body = b:text() })
  end
  return text.render([[
    static uint64_t ${T}_size_${f}_(pcd_ctx *x, const ${T} *in, size_t from, size_t k, bool packed)
    {
        uint64_t n = 0;
        (void)x;
        (void)in;
    ${body}
        return n;
    }
  ]], { T = M.cname, f = F.name, body = b:text() })
end

-- Writes (or measures) singular field F.
local function put_one(b, F, mode)
  local v = "in->" .. F.member
  if mode == "enc" then
    b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key))
    if F.ty.kind == "pb" then
      b:f("PCD_TRY(%s);", scalar_put(F.ty, v))
    elseif F.ty.kind == "bytes" then
      if F.ty.max then
        b:t([[
          if (PCD_UNLIKELY(${v}.len > ${max}))
              return pcd_sink_fail(s, PCD_E_LIMIT, ${nm}, ${expected}, PCD_FOUND_UINT, ${v}.len);
        ]], { v = v, max = F.ty.max, nm = cstr(F.errname), expected = cstr("at most " .. F.ty.max .. " bytes") })
      end
      b:f("PCD_TRY(pcd_put_uleb128(s, %s.len));", v)
      b:f("PCD_TRY(pcd_sink_put(s, %s.ptr, %s.len));", v, v)
    else
      b:f("PCD_TRY(pcd_put_uleb128(s, %s_size(s->x, &%s)));", F.ty.cname, v)
      b:f("PCD_TRY_IN(s->x, %s_encode(s, &%s), %s, -1);", F.ty.cname, v, cstr(F.errname))
    end
  else
    if F.ty.kind == "pb" then
      b:f("n += pcd_size_uleb128(%s) + %s;", hex(F.key), scalar_size(F.ty, v))
    elseif F.ty.kind == "bytes" then
      b:f("n += pcd_size_uleb128(%s) + pcd_size_uleb128(%s.len) + %s.len;", hex(F.key), v, v)
    else
      b:l("{")
      b:f("    uint64_t m = %s_size(x, &%s);", F.ty.cname, v)
      b:f("    n += pcd_size_uleb128(%s) + pcd_size_uleb128(m) + m;", hex(F.key))
      b:l("}")
    end
  end
end

-- The canonical form: fields in schema order, unknown ones last.
local function canonical_body(b, M, mode)
  for _, F in ipairs(M.fields) do
    if F.repeated then
      local packed = (F.packable and F.pack) and string.format("in->n_%s >= %d", F.name, M.pack_min) or "false"
      if mode == "enc" then
        b:f("PCD_TRY(%s_put_%s_(s, in, 0, in->n_%s, %s));", M.cname, F.name, F.name, packed)
      else
        b:f("n += %s_size_%s_(x, in, 0, in->n_%s, %s);", M.cname, F.name, F.name, packed)
      end
    else
      b:f("if (in->has_%s) {", F.name)
      b:nest(function() put_one(b, F, mode) end)
      b:l("}")
    end
  end
  if mode == "enc" then
    b:l('for (size_t i = 0; i < in->n_unknown_; i++) PCD_TRY_IN(s->x, pcd_pb_put_other(s, &in->unknown_[i]), "_unknown", (int64_t)i);')
  else
    b:l("for (size_t i = 0; i < in->n_unknown_; i++) n += pcd_pb_other_size(&in->unknown_[i]);")
  end
end

-- As the layout says: run by run.
local function layout_body(b, M, mode)
  local enc = mode == "enc"
  local function fail(expected, found)
    if enc then b:f("return pcd_pb_fail_layout(s, \"_layout\", %s, %s);", cstr(expected), found)
    else b:l("return n; /* (the encoder reports it) */") end
  end
  for _, F in ipairs(M.fields) do
    if F.repeated then b:f("size_t i_%s = 0;", F.name) else b:f("bool done_%s = false;", F.name) end
  end
  b:l("size_t i_unknown = 0;")
  b:l("for (size_t r = 0; r < in->layout_.n; r++) {")
  b:nest(function()
    b:l("uint32_t number = in->layout_.runs[r].field >> 1, k = in->layout_.runs[r].count;")
    b:l("bool packed = in->layout_.runs[r].field & 1;")
    b:l("switch (number) {")
    for _, F in ipairs(M.fields) do
      b:f("case %d: /* %s */", F.number, F.name)
      b:nest(function()
        if F.repeated then
          if not F.packable then
            b:l("if (packed) {")
            b:nest(function() fail("no packed run of " .. F.name .. " (only numbers are packed)", "k") end)
            b:l("}")
          end
          b:f("if (k > in->n_%s - i_%s) {", F.name, F.name)
          b:nest(function() fail("runs of " .. F.name .. " no longer than the values left", "k") end)
          b:l("}")
          if enc then b:f("PCD_TRY(%s_put_%s_(s, in, i_%s, k, packed));", M.cname, F.name, F.name)
          else b:f("n += %s_size_%s_(x, in, i_%s, k, packed);", M.cname, F.name, F.name) end
          b:f("i_%s += k;", F.name)
        else
          b:l("if (packed) {")
          b:nest(function() fail("no packed run of " .. F.name .. " (a singular field)", "k") end)
          b:l("}")
          b:l("for (uint32_t j = 0; j < k; j++) {")
          b:nest(function()
            b:f("if (i_unknown < in->n_unknown_ && in->unknown_[i_unknown].number == %d) {", F.number)
            b:nest(function()
              b:l("/* an earlier occurrence, kept raw */")
              if enc then b:l('PCD_TRY_IN(s->x, pcd_pb_put_other(s, &in->unknown_[i_unknown]), "_unknown", (int64_t)i_unknown);')
              else b:l("n += pcd_pb_other_size(&in->unknown_[i_unknown]);") end
              b:l("i_unknown++;")
            end)
            b:f("} else if (in->has_%s && !done_%s) {", F.name, F.name)
            b:nest(function()
              put_one(b, F, mode)
              b:f("done_%s = true;", F.name)
            end)
            b:l("} else {")
            b:nest(function() fail("one occurrence of " .. F.name .. " in the layout per value", "k") end)
            b:l("}")
          end)
          b:l("}")
        end
        b:l("break;")
      end)
    end
    b:l("default:")
    b:nest(function()
      b:l("if (packed) {")
      b:nest(function() fail("no packed run of a field the schema does not name", "number") end)
      b:l("}")
      b:l("for (uint32_t j = 0; j < k; j++) {")
      b:nest(function()
        b:l("if (i_unknown >= in->n_unknown_ || in->unknown_[i_unknown].number != number) {")
        b:nest(function() fail("the _unknown fields in the order of the layout's runs", "number") end)
        b:l("}")
        if enc then b:l('PCD_TRY_IN(s->x, pcd_pb_put_other(s, &in->unknown_[i_unknown]), "_unknown", (int64_t)i_unknown);')
        else b:l("n += pcd_pb_other_size(&in->unknown_[i_unknown]);") end
        b:l("i_unknown++;")
      end)
      b:l("}")
    end)
    b:l("}")
  end)
  b:l("}")
  if enc then
    local left = {}
    for _, F in ipairs(M.fields) do
      if F.repeated then left[#left + 1] = string.format("i_%s != in->n_%s", F.name, F.name)
      else left[#left + 1] = string.format("(in->has_%s && !done_%s)", F.name, F.name) end
    end
    left[#left + 1] = "i_unknown != in->n_unknown_"
    b:l("if (" .. table.concat(left, " ||\n    ") .. ")")
    b:l('    return pcd_pb_fail_layout(s, "_layout", "runs that place every value of the message", in->layout_.n);')
  end
end

return function(M)
  local out = {}
  for _, F in ipairs(M.fields) do
    if F.repeated then
      out[#out + 1] = put_fn(M, F, "enc")
      out[#out + 1] = put_fn(M, F, "size")
    end
  end
  local lay, can = buf(1), buf(1)
  layout_body(lay, M, "enc")
  canonical_body(can, M, "enc")
  local slay, scan = buf(1), buf(1)
  layout_body(slay, M, "size")
  canonical_body(scan, M, "size")
  out[#out + 1] = text.render([[
    /* ${name}: the fields as its layout says, run by run. */
    static pcd_status ${T}_encode_layout_(pcd_sink *s, const ${T} *in)
    {
    ${lay}
        return PCD_OK;
    }

    /* ${name}: writes its fields (the message's body, without a key or a length): in the
     * canonical form (schema order, numbers packed from ${pack_min} values on, unknown fields
     * last), or as its layout says. */
    pcd_status ${T}_encode(pcd_sink *s, const ${T} *in)
    {
        if (in->layout_.n) return ${T}_encode_layout_(s, in);
    ${can}
        return PCD_OK;
    }

    static uint64_t ${T}_size_layout_(pcd_ctx *x, const ${T} *in)
    {
        uint64_t n = 0;
        (void)x;
    ${slay}
        return n;
    }

    /* ${name}: the number of bytes ${T}_encode writes. */
    uint64_t ${T}_size(pcd_ctx *x, const ${T} *in)
    {
        uint64_t n = 0;
        (void)x;
        if (in->layout_.n) return ${T}_size_layout_(x, in);
    ${scan}
        return n;
    }
  ]], { name = M.tname, T = M.cname, lay = lay:text(), can = can:text(), slay = slay:text(), scan = scan:text(),
    pack_min = M.pack_min })
  return table.concat(out, "\n")
end

