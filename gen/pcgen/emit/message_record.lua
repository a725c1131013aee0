-- emit/message_record.lua: the codec of a field record (records { of = "m", by_field = true }):
-- one field of message m as it stands on the wire, read one per call by the stream driver: a
-- message field's one element decoded whole, a string, a singular number, a repeated number's
-- run (packed or one value), or a field m does not name.
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local MC = require("pcgen.emit.message_codec")
local buf = require("pcgen.emit.cbuf")

local cstr, hex = C.cstr, MC.hex

local MR = {}

-- Is a run of k values of F canonically packed? (a C expression, or a Lua boolean)
local function canon_packed(M, F, k)
  if not F.pack then return false end
  if M.pack_min <= 1 then return true end
  return "(" .. k .. " != 1)"
end

local function validate_fn(R)
  local M = R.msg
  local b = buf(1)
  b:l("switch (key) {")
  for _, F in ipairs(M.fields) do
    local nm = cstr(F.errname)
    if F.ty.kind == "pb" then
      b:f("case %s: /* %s */", hex(F.key), F.name)
      b:f("    %s", MC.scalar_check(F.ty, "c", nm))
      b:l("    return PCD_OK;")
    end
    if F.ty.kind ~= "pb" or F.packable then
      local packed = F.ty.kind == "pb"
      b:f("case %s: { /* %s */", hex(packed and F.key_packed or F.key), F.name .. (packed and ", a packed run" or ""))
      b:nest(function()
        b:l("pcd_cursor p = { 0 };")
        b:f("PCD_TRY(pcd_pb_len(c, &p, %s));", nm)
        if packed then
          if F.ty.wire ~= 0 then
            b:l("uint64_t k;")
            b:f("PCD_TRY(pcd_pb_count_fixed(&p, %d, &k, %s));", F.ty.wire == 5 and 4 or 8, nm)
          elseif F.ty.pbt == "int32" or F.ty.pbt == "uint32" or F.ty.pbt == "sint32" then
            b:f("while (p.p < p.end) %s", MC.scalar_check(F.ty, "&p", nm))
          else
            b:f("PCD_TRY(pcd_pb_skip_varints(&p, %s));", nm)
          end
        elseif F.ty.kind == "bytes" then
          MC.len_checks(b, F, "c", "p")
        elseif F.guard then
          b:l("PCD_TRY(pcd_pb_enter(c));")
          b:f("pcd_status st = %s_validate_(&p);", F.ty.cname)
          b:l("c->x->depth--;")
          b:f("PCD_TRY_IN(c->x, st, %s, -1);", nm)
        else
          b:f("PCD_TRY_IN(c->x, %s_validate_(&p), %s, -1);", F.ty.cname, nm)
        end
        b:l("return PCD_OK;")
      end)
      b:l("}")
    end
  end
  b:l("default:")
  if #M.fields > 0 then b:f("    PCD_TRY(%s_wire_(c, at, key));", M.cname) else b:l("    (void)at;") end
  b:l('    return pcd_pb_read_other(c, key, NULL, "_unknown");')
  b:l("}")
  return text.render([[
    /* ${name}: validation only (nothing stored). */
    static inline pcd_status ${T}_validate_(pcd_cursor *c)
    {
        const uint8_t *at = c->p;
        uint32_t key = 0;
        PCD_TRY(pcd_pb_read_key(c, &key, ${msg}));
    ${body}
    }
    pcd_status ${T}_validate(pcd_cursor *c)
    {
        return ${T}_validate_(c);
    }
  ]], { name = R.tname, T = R.cname, msg = cstr(M.tname), body = b:text() })
end

-- The record's layout: one run, kept when it is not the canonical one.
local function record_layout(b, F, packed, k)
  b:t([[
    PCD_TRY(pcd_alloc_array(c, c->p, 1, sizeof(pcd_pb_run), 0, (void **)&out->layout_.runs, "_layout"));
    out->layout_.runs[0].field = ${field};
    out->layout_.runs[0].count = (uint32_t)${k};
    out->layout_.n = 1;
  ]], { field = (F.number << 1) | (packed and 1 or 0), k = k })
end

local function fill_fn(R)
  local M = R.msg
  local b = buf(1)
  b:l("switch (key) {")
  for _, c in ipairs(R.cases) do
    local F = c.F
    local u = "out->u." .. F.name
    if F.ty.kind == "pb" then
      b:f("case %s: /* %s */", hex(F.key), F.name)
      b:nest(function()
        b:f("out->which = %s;", c.const)
        if F.repeated then
          b:f("PCD_TRY(pcd_alloc_array(c, c->p, 1, sizeof(%s), 0, (void **)&%s.items, NULL));", F.elem_ctype, u)
          b:l(MC.scalar_read(F.ty, "c", u .. ".items[0]", "NULL"))
          b:f("%s.n_items = 1;", u)
          if canon_packed(M, F, 1) == true then record_layout(b, F, false, 1) end
        else
          b:l(MC.scalar_read(F.ty, "c", u, "NULL"))
        end
        b:l("return PCD_OK;")
      end)
    end
    if F.ty.kind ~= "pb" or F.packable then
      local packed = F.ty.kind == "pb"
      b:f("case %s: { /* %s */", hex(packed and F.key_packed or F.key), F.name .. (packed and ", a packed run" or ""))
      b:nest(function()
        b:l("pcd_cursor p = { 0 };")
        b:l("PCD_TRY(pcd_pb_len(c, &p, NULL));")
        b:f("out->which = %s;", c.const)
        if packed then
          b:l("uint64_t k;")
          if F.ty.wire == 0 then b:l("PCD_TRY(pcd_pb_count_varints(&p, &k, NULL));")
          else b:f("PCD_TRY(pcd_pb_count_fixed(&p, %d, &k, NULL));", F.ty.wire == 5 and 4 or 8) end
          b:f("PCD_TRY(pcd_alloc_array(c, p.p, k, sizeof(%s), 0, (void **)&%s.items, NULL));", F.elem_ctype, u)
          b:f("%s.n_items = 0;", u)
          b:f("while (p.p < p.end) {")
          b:f("    %s", MC.scalar_read(F.ty, "&p", u .. ".items[" .. u .. ".n_items]", "NULL"))
          b:f("    %s.n_items++;", u)
          b:l("}")
          local cp = canon_packed(M, F, "k")
          if cp == false then
            record_layout(b, F, true, "k")
          elseif cp ~= true then
            b:l("if (k == 1) {")
            b:nest(function() record_layout(b, F, true, "k") end)
            b:l("}")
          end
        elseif F.ty.kind == "bytes" then
          b:f("%s.ptr = p.p;", u)
          b:f("%s.len = (size_t)(p.end - p.p);", u)
        else
          b:f("PCD_TRY(%s_fill_(&p, &%s));", F.ty.cname, u)
        end
        b:l("return PCD_OK;")
      end)
      b:l("}")
    end
  end
  b:l("default:")
  b:f("    out->which = %s;", R.other_case.const)
  b:l("    return pcd_pb_read_other(c, key, &out->u.unknown_, NULL);")
  b:l("}")
  return text.render([[
    /* ${name}: fills *out from bytes ${T}_validate_ accepted. */
    static pcd_status ${T}_fill_(pcd_cursor *c, ${T} *out)
    {
        uint32_t key = 0;
        PCD_TRY(pcd_pb_read_key(c, &key, NULL));
        out->layout_.runs = NULL;
        out->layout_.n = 0;
    ${body}
    }

    /* ${name}: one field: checks its bytes, then fills *out. */
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
  ]], { name = R.tname, T = R.cname, body = b:text() })
end

-- encode (mode "enc") or size ("size") of a record
local function encode_fn(R, mode)
  local M = R.msg
  local enc = mode == "enc"
  local b = buf(1)
  b:l("switch (in->which) {")
  for _, c in ipairs(R.cases) do
    local F = c.F
    local u = "in->u." .. F.name
    b:f("case %s: {", c.const)
    b:nest(function()
      if F.ty.kind == "message" then
        if enc then
          b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key))
          b:f("PCD_TRY(pcd_put_uleb128(s, %s_size(s->x, &%s)));", F.ty.cname, u)
          b:f("PCD_TRY_IN(s->x, %s_encode(s, &%s), %s, -1);", F.ty.cname, u, cstr(F.errname))
          b:l("return PCD_OK;")
        else
          b:f("uint64_t m = %s_size(x, &%s);", F.ty.cname, u)
          b:f("return pcd_size_uleb128(%s) + pcd_size_uleb128(m) + m;", hex(F.key))
        end
      elseif F.ty.kind == "bytes" then
        if enc then
          if F.ty.max then
            b:t([[
              if (PCD_UNLIKELY(${u}.len > ${max}))
                  return pcd_sink_fail(s, PCD_E_LIMIT, ${nm}, ${expected}, PCD_FOUND_UINT, ${u}.len);
            ]], { u = u, max = F.ty.max, nm = cstr(F.errname), expected = cstr("at most " .. F.ty.max .. " bytes") })
          end
          b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key))
          b:f("PCD_TRY(pcd_put_uleb128(s, %s.len));", u)
          b:f("return pcd_sink_put(s, %s.ptr, %s.len);", u, u)
        else
          b:f("return pcd_size_uleb128(%s) + pcd_size_uleb128(%s.len) + %s.len;", hex(F.key), u, u)
        end
      elseif not F.repeated then
        if enc then
          b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key))
          b:f("return %s;", MC.scalar_put(F.ty, u))
        else
          b:f("return pcd_size_uleb128(%s) + %s;", hex(F.key), MC.scalar_size(F.ty, u))
        end
      else
        -- a repeated number's run: packed as the layout says, else canonically
        local cp = canon_packed(M, F, "k")
        b:f("size_t k = %s.n_items;", u)
        b:f("bool packed = %s;", cp == true and "true" or cp == false and "false" or cp)
        b:l("if (in->layout_.n) {")
        b:nest(function()
          if enc then
            b:f("if (in->layout_.n != 1 || in->layout_.runs[0].field >> 1 != %d || in->layout_.runs[0].count != k)", F.number)
            b:f("    return pcd_pb_fail_layout(s, \"_layout\", %s, in->layout_.n);",
              cstr("one run of " .. F.name .. " with as many values as the record (\"" .. F.number .. "\" or \"" .. F.number .. "pK\")"))
          end
          b:l("packed = in->layout_.runs[0].field & 1;")
        end)
        b:l("}")
        b:l("if (!packed) {")
        b:nest(function()
          if enc then
            b:l("if (k != 1)")
            b:f("    return pcd_sink_fail(s, PCD_E_INVALID, %s, \"one value in a field that is not packed\", PCD_FOUND_UINT, k);",
              cstr(F.errname))
            b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key))
            b:f("return %s;", MC.scalar_put(F.ty, u .. ".items[0]"))
          else
            b:f("return k ? pcd_size_uleb128(%s) + %s : 0;", hex(F.key), MC.scalar_size(F.ty, u .. ".items[0]"))
          end
        end)
        b:l("}")
        b:l("uint64_t len = 0;")
        b:f("for (size_t i = 0; i < k; i++) len += %s;", MC.scalar_size(F.ty, u .. ".items[i]"))
        if enc then
          b:f("PCD_TRY(pcd_put_uleb128(s, %s));", hex(F.key_packed))
          b:l("PCD_TRY(pcd_put_uleb128(s, len));")
          b:f("for (size_t i = 0; i < k; i++) PCD_TRY(%s);", MC.scalar_put(F.ty, u .. ".items[i]"))
          b:l("return PCD_OK;")
        else
          b:f("return pcd_size_uleb128(%s) + pcd_size_uleb128(len) + len;", hex(F.key_packed))
        end
      end
    end)
    b:l("}")
  end
  b:f("case %s:", R.other_case.const)
  b:f("    return %s;", enc and "pcd_pb_put_other(s, &in->u.unknown_)" or "pcd_pb_other_size(&in->u.unknown_)")
  b:l("}")
  if enc then
    b:f("return pcd_sink_fail(s, PCD_E_RANGE, \"_kind\", %s, PCD_FOUND_UINT, (uint64_t)in->which);",
      cstr("a field of " .. M.tname))
    return text.render([[
      /* ${name}: writes the field: its key, then its value (a length first for messages,
       * strings and packed runs). */
      pcd_status ${T}_encode(pcd_sink *s, const ${T} *in)
      {
      ${body}
      }
    ]], { name = R.tname, T = R.cname, body = b:text() })
  end
  b:l("return 0;")
  return text.render([[
    /* ${name}: the number of bytes ${T}_encode writes. */
    uint64_t ${T}_size(pcd_ctx *x, const ${T} *in)
    {
        (void)x;
    ${body}
    }
  ]], { name = R.tname, T = R.cname, body = b:text() })
end

function MR.record(ir, R)
  return table.concat({ validate_fn(R), fill_fn(R), encode_fn(R, "enc"), encode_fn(R, "size") }, "\n")
end

return MR
