-- emit/region.lua: the glue between a records region and the stream driver: record
-- adapters, the validation and decoding fast paths (_run, _drun), the state's start
-- values, the parent fields patched when the region closes, recovery, compression (in
-- <base>.c, beside the decoders they call), and the region's descriptor (in <base>_desc.c,
-- which points at them and at the explain functions of <base>_explain.c).
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local buf = require("pcgen.emit.cbuf")
local EM = require("pcgen.emit.message")

local cstr = C.cstr

local RG = {}

-- Validates records back to back (the validation fast path). The validators work on a local
-- copy of the cursor, put back at the end: with the record's validators inlined, whose failure
-- paths hand the runtime a copy of it (pcd_cursor.h), its address is never taken and it lives
-- in registers, not in the caller's memory (a store a field otherwise); PCD_NO_SLP keeps gcc
-- from packing its position and end into a vector register.
local RUN = [[
  /* Validates ${name} records back to back (the validation fast path). */
  PCD_NO_SLP uint64_t ${r}_run(pcd_cursor *cur, uint64_t max, pcd_status *st, const uint8_t **start)
  {
      uint64_t k = 0;
      pcd_cursor local = *cur, *c = &local;
      pcd_status s = PCD_OK;
      while (c->p < c->end && k < max) {
          *start = c->p;
          s = ${t}_validate_(c);
          if (PCD_UNLIKELY(s != PCD_OK)) break;
          k++;
      }
      *st = s;
      *cur = local;
      return k;
  }
]]

-- Decodes records back to back into one record and hands each to a callback.
local DRUN = [[
  /* Decodes ${name} records back to back into *rec and hands each to fn (the decoding
   * fast path: no call into the stream driver per record). Stops at the cursor's end,
   * after max records, at a failure (*start: where the record began), or when fn
   * returns anything but PCD_OK (*start: NULL).${statedoc} */
  ${sig}
  {
      uint64_t k = 0;
      ${t} *out = (${t} *)rec->data;
      ${sdecl}
      *st = PCD_OK;
      while (c->p < c->end && k < max) {
          const uint8_t *s = c->p;
          *start = s;
          ${reset}
          ${ssave}
          *st = ${t}_decode_(c, out${co});
          if (PCD_UNLIKELY(*st != PCD_OK)) {
              ${srestore}
              break;
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
]]

-- A record whose decoder tests count_only bits: the loop is a body that takes the bits (co),
-- always inlined into two functions of their own that pass a constant (_drun_stored: 0;
-- _drun_counted: the record's bits), and _drun reads the bits once a run to choose one, so
-- the stored path tests nothing per array.
local DRUN_CO = [[
  ${doc}
  uint64_t ${r}_drun(pcd_cursor *c, uint64_t max, pcd_status *st,
      const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud)
  {
      const uint32_t co = c->x->count_only & ${mask};
      if (co == 0)
          return ${r}_drun_stored(c, max, st, start, rec, fn, ud);
      return ${r}_drun_counted(c, max, st, start, rec, fn, ud${coarg});
  }
]]

-- The two copies of the loop, each a function of its own (one copy inside one function makes
-- a function twice the size, which the compiler optimises worse: Mono's run loop +5 %).
local DRUN_COPIES = [[
  /* ${r}_drun's loop with every array stored (co = 0: no test left). */
  static PCD_NOINLINE uint64_t ${r}_drun_stored(pcd_cursor *c, uint64_t max, pcd_status *st,
      const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud)
  {
      return ${r}_drun_(c, max, st, start, rec, fn, ud, 0);
  }
  /* ${r}_drun's loop with ${which} counted, not stored. */
  static PCD_NOINLINE uint64_t ${r}_drun_counted(pcd_cursor *c, uint64_t max, pcd_status *st,
      const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud${coparam})
  {
      return ${r}_drun_(c, max, st, start, rec, fn, ud, ${coval});
  }
]]

local function drun(ir, R)
  local T = R.record
  local st = R.has_state
  local mask = C.count_only_mask(ir, T)
  local sig = "uint64_t ${r}_drun(pcd_cursor *c, uint64_t max, pcd_status *st,\n" ..
      "    const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud)"
  if mask then
    sig = "PCD_INLINE uint64_t ${r}_drun_(pcd_cursor *c, uint64_t max, pcd_status *st,\n" ..
        "    const uint8_t **start, pcd_record *rec, pcd_record_fn fn, void *ud, uint32_t co)"
  end
  sig = text.render(sig, { r = R.cname }):gsub("\n$", "")
  local loop = text.render(DRUN, { name = R.name, r = R.cname, t = T.cname, sig = sig, co = mask and ", co" or "",
    reset = R.may_allocate and "if (c->x->arena && c->x->arena->used) pcd_arena_reset(c->x->arena);",
    statedoc = st and "\n * The stream state (c->x->state) moves on record by record; a record that fails\n * leaves it as it was before that record (as the stream driver does)." or "",
    sdecl = st and (R.state_cname .. " *sp = c->x->state, saved;"),
    ssave = st and "saved = *sp;",
    srestore = st and "*sp = saved;" })
  if not mask then return loop end
  -- the loop's body with the bits as a parameter; its doc is the wrapper's
  local doc = loop:match("^(/%*.-) %*/\n") .. "\n * The bits of pcd_ctx.count_only are read once a run, to choose a copy of the loop\n" ..
      " * (_drun_stored, _drun_counted): the stored one tests no array. */"
  loop = loop:gsub("^/%*.-%*/\n", "/* The loop of " .. R.cname .. "_drun, for the count_only bits co. */\n")
  -- one name: the counted copy's bits are a constant too; several: the bits as read (a test
  -- per array left in the counted copy only)
  local one = #C.count_only_used(T) == 1
  local copies = text.render(DRUN_COPIES, { r = R.cname, which = one and "the marked arrays" or "the arrays of the bits set in co",
    coparam = one and "" or ", uint32_t co", coval = one and mask or "co" })
  return loop .. copies .. text.render(DRUN_CO, { doc = doc, r = R.cname, mask = mask, coarg = one and "" or ", co" })
end

-- The state's start values, from the parent's fields.
local function init_fn(ir, R)
  local PT = R.parent
  local b = buf(1)
  b:f("%s *st = state;", R.state_cname)
  b:f("const %s *in = parent;", PT.cname)
  b:l("(void)in;")
  b:l("(void)x;")
  local env = C.new_env(ir, PT, "enc")
  env.xp = "x"
  for _, V in ipairs(R.state.order) do
    if V.init then b:f("st->%s = (%s)(%s);", V.name, V.ctype, X.cexpr(V.init, env))
    else b:f("st->%s = 0;", V.name) end
  end
  return string.format("void %s_init(void *state, const void *parent, const pcd_ctx *x)\n{\n%s}\n",
    R.cname, b:text())
end

-- Patches the parent's size, count or offset fields that come before the region.
local function finish_fn(R)
  local b = buf(1)
  b:t([[
    uint8_t tmp[8];
    (void)parent;
    (void)region_start;
    (void)region_size;
    (void)region_records;
  ]])
  for _, p in ipairs(R.patches) do
    local f = p.f
    local v = ({ size_of = "region_size", count_of = "region_records", offset_of = "region_start" })[f.derived.kind]
    local ty = f.ty
    local _, hi = C.range_of(ty)
    if ty.bits < 64 then
      b:t([[
        if (${v} > ${hi})
            return pcd_sink_fail(s, PCD_E_RANGE, ${path}, "a value that fits in ${type}", PCD_FOUND_UINT, ${v});
      ]], { v = v, hi = hi, path = cstr(f.errname), type = C.type_text(ty) })
    end
    if ty.bits == 8 then b:f("tmp[0] = (uint8_t)%s;", v)
    elseif ty.endian == "native" then b:f("pcd_st_u%dx(tmp, (uint%d_t)%s, s->x->big);", ty.bits, ty.bits, v)
    else b:f("pcd_st_u%d%s(tmp, (uint%d_t)%s);", ty.bits, ty.endian, ty.bits, v) end
    b:f("PCD_TRY(pcd_sink_patch(s, parent_offset + %d, tmp, %d));", p.off, ty.wire)
  end
  return string.format("pcd_status %s_finish(pcd_sink *s, void *parent, uint64_t parent_offset,\n" ..
    "                                 uint64_t region_start, uint64_t region_size, uint64_t region_records)\n{\n%s    return PCD_OK;\n}\n",
    R.cname, b:text())
end

-- The glue of one region (in <base>.c): the functions its descriptor points at.
function RG.glue(ir, R)
  local out = {}
  local T, PT = R.record, R.parent
  local v = { r = R.cname, t = T.cname, name = R.name,
    cox = #C.count_only_used(T) > 0 and ", c->x->count_only" or "" }
  out[#out + 1] = text.render([[
    pcd_status ${r}_dec(pcd_cursor *c, void *out) { return ${t}_decode_(c, out${cox}); }
    pcd_status ${r}_enc(pcd_sink *s, const void *in) { return ${t}_encode(s, in); }
  ]], v)
  if not R.opens then
    -- records that open regions must be decoded, not only validated
    out[#out + 1] = text.render("pcd_status ${r}_val(pcd_cursor *c) { return ${t}_validate_(c); }", v)
    out[#out + 1] = text.render(RUN, v)
    out[#out + 1] = drun(ir, R)
  end
  if R.has_state then out[#out + 1] = init_fn(ir, R) end
  if #R.patches > 0 then out[#out + 1] = finish_fn(R) end
  if R.compression then
    local env = C.new_env(ir, PT, "enc")
    env.xp = "((const pcd_ctx *)NULL)"
    out[#out + 1] = text.render([[
      uint8_t ${r}_compression(const void *parent)
      {
          const ${P} *in = parent;
          return (uint8_t)(${e});
      }
    ]], { r = R.cname, P = PT.cname, e = X.cexpr(R.compression, env) })
  elseif R.zstd_frame then
    out[#out + 1] = text.render([[
      uint8_t ${r}_compression(const void *parent)
      {
          (void)parent;
          return PCD_REGION_ZSTD_FRAME; /* one zstd frame, its end found by parsing it */
      }
    ]], v)
  end
  return table.concat(out)
end

-- The prototypes of RG.glue's functions (in <base>.h, for <base>_desc.c).
function RG.protos(R)
  local v = { r = R.cname }
  local out = {}
  out[#out + 1] = text.render([[
    pcd_status ${r}_dec(pcd_cursor *c, void *out);
    pcd_status ${r}_enc(pcd_sink *s, const void *in);
  ]], v)
  if not R.opens then
    out[#out + 1] = text.render([[
      pcd_status ${r}_val(pcd_cursor *c);
      uint64_t ${r}_run(pcd_cursor *c, uint64_t max, pcd_status *st, const uint8_t **start);
      uint64_t ${r}_drun(pcd_cursor *c, uint64_t max, pcd_status *st, const uint8_t **start, pcd_record *rec,
          pcd_record_fn fn, void *ud);
    ]], v)
  end
  if R.has_state then out[#out + 1] = text.render("void ${r}_init(void *state, const void *parent, const pcd_ctx *x);\n", v) end
  if #R.patches > 0 then
    out[#out + 1] = text.render([[
      pcd_status ${r}_finish(pcd_sink *s, void *parent, uint64_t parent_offset, uint64_t region_start,
                             uint64_t region_size, uint64_t region_records);
    ]], v)
  end
  if R.compression or R.zstd_frame then out[#out + 1] = text.render("uint8_t ${r}_compression(const void *parent);\n", v) end
  return table.concat(out)
end

-- The descriptor of one region (in <base>_desc.c): its sync markers, its explain adapter and
-- the table the stream driver reads.
function RG.desc(ir, R)
  local out = {}
  local T, PT = R.record, R.parent
  local v = { r = R.cname, t = T.cname, name = R.name }
  local pb = EM.is_pb(T)
  if not pb then
    out[#out + 1] = text.render("static pcd_status ${r}_exp(pcd_cursor *c, void *out) { return ${t}_explain(c, out); }", v)
  end
  local sync_c, synclen_c = "NULL", "NULL"
  if #R.sync > 0 then
    local items, lens = {}, {}
    for i, m in ipairs(R.sync) do
      out[#out + 1] = string.format("static const uint8_t %s_sync%d[] = { %s };\n", R.cname, i,
        (m:gsub(".", function(ch) return string.format("0x%02x, ", ch:byte()) end)):sub(1, -3))
      items[#items + 1] = R.cname .. "_sync" .. i
      lens[#lens + 1] = tostring(#m)
    end
    out[#out + 1] = string.format("static const uint8_t *const %s_sync[] = { %s, NULL };\n", R.cname, table.concat(items, ", "))
    out[#out + 1] = string.format("static const uint8_t %s_sync_len[] = { %s };\n", R.cname, table.concat(lens, ", "))
    sync_c, synclen_c = R.cname .. "_sync", R.cname .. "_sync_len"
  end
  local comp_fn = (R.compression or R.zstd_frame) and (R.cname .. "_compression") or "NULL"
  local rs = R.recover_size
  local recover = rs.off >= 0
  out[#out + 1] = "const pcd_region_desc " .. R.cname .. " = " .. C.block({
    { "name", cstr(R.name) },
    { "record", "&" .. T.cname .. "_type" },
    { "record_size", "sizeof(" .. T.cname .. ")" },
    { "decode", R.cname .. "_dec" },
    -- records that open regions must be decoded, not only validated
    { "validate", not R.opens and (R.cname .. "_val") or nil },
    { "validate_run", not R.opens and (R.cname .. "_run") or nil },
    { "encode", R.cname .. "_enc" },
    { "state_size", R.has_state and ("sizeof(" .. R.state_cname .. ")") or nil },
    { "state_init", R.has_state and (R.cname .. "_init") or nil },
    { "finish", #R.patches > 0 and (R.cname .. "_finish") or nil },
    { "region_field", "offsetof(" .. PT.cname .. ", " .. R.field.member .. ")" },
    { "size_off", rs.off, recover and "where a damaged record's size is" or "no size to skip a damaged record by" },
    { "size_width", recover and rs.w or nil },
    { "size_big", recover and rs.big ~= 0 and 1 or nil },
    { "size_native", recover and rs.native ~= 0 and 1 or nil },
    { "size_add", recover and rs.add ~= 0 and rs.add or nil },
    { "size_min", recover and rs.min or nil },
    { "sync", sync_c ~= "NULL" and sync_c or nil },
    { "sync_len", synclen_c ~= "NULL" and synclen_c or nil },
    { "compression", comp_fn ~= "NULL" and comp_fn or nil },
    { "zstd_level", R.zstd_level or 3 },
    { "record_min", (T.min or 0) ~= 0 and T.min or nil, "the smallest record's bytes" },
    { "decode_run", not R.opens and (R.cname .. "_drun") or nil },
    { "batch_bytes", R.batch_bytes, R.batch_bytes and ("records of at most " .. R.batch .. " elements") },
    { "explain", not pb and (R.cname .. "_exp") or nil },
  }) .. ";\n\n"
  return table.concat(out)
end

return RG
