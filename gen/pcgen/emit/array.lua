-- emit/array.lua: arrays (a count prefix, a count field or expression, to the end of a
-- sized struct, through a terminating element, up to the bytes that follow): the count,
-- a bounded allocation, the elements (after one bounds check when they have a fixed size,
-- through a fast path when lower picks one); encode and size.
local expr = require("pcgen.expr")
local lower = require("pcgen.lower")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.kinds")
local text = require("pcgen.text")

local cstr = C.cstr

---------------------------------------------------------------------------
-- decode / validate

-- One element validated: a named type through its function, anything else inline. cur: the
-- cursor ("(&t)": a copy being walked); index: the error path's index.
local function dec_elem(b, f, env, errname, local_, cur, index)
  local et = f.ty.of
  if et.kind == "struct" or et.kind == "union" then
    -- (an explain file has not the codec file's static bodies: the exported validator)
    b:f("PCD_TRY_IN(c->x, %s(%s), %s, (int64_t)%s);", env.explain and (et.cname .. "_validate") or C.elem_fn(et, "validate"),
      cur == "(&t)" and "&t" or cur, cstr(errname), index)
  else
    K.dec_value(b, { name = f.name, ty = et, errname = errname, local_ = local_ .. "_e" }, env, nil,
      errname, local_ .. "_e", cur)
  end
end

-- The element count n, read or computed (validating elements first where counting needs it).
local function dec_count(b, f, env, errname, local_, n)
  local a, cur = f.ty, env.cur
  local fixed = lower.fixed_elem(a)
  if a.mode == "prefix" then
    -- explain: the count is a span of its own when the elements are (they have fields)
    local count_span = env.explain and (a.of.kind == "struct" or a.of.kind == "union")
    if a.prefix.kind == "int" then
      local raw = n .. "_raw"
      C.declare(env, raw, a.prefix.ctype, "0")
      b:t([[
        if (PCD_UNLIKELY(pcd_left(${cur}) < ${w}))
            return pcd_fail_short(${cur}, ${cur}->p, ${path}, "element count");
        ${span}
        ${raw} = ${load};
        ${cur}->p += ${w};
        ${n} = ${raw};
      ]], { cur = cur, w = a.prefix.wire, path = cstr(errname), raw = raw, load = C.load(a.prefix, cur .. "->p"), n = n,
        span = count_span and string.format("pcd_span_at(%s, \"_count\", %s->p, %d);", cur, cur, a.prefix.wire) or false })
    else
      if count_span then C.span_open(b, env, cur, "_count") end
      b:f("PCD_TRY(pcd_read_uleb128(%s, &%s, %s));", cur, n, cstr(errname))
      if count_span then C.span_close(b, env, cur) end
    end
  elseif a.mode == "expr" then
    b:f("%s = (uint64_t)(%s);", n, X.cexpr(a.count, env))
  elseif a.mode == "counted" then
    env.used_locals[f.counted_by] = true
    b:f("%s = (uint64_t)%s;", n, f.counted_by.local_)
  elseif a.mode == "until_end" and fixed then
    b:t([[
      if (PCD_UNLIKELY(pcd_left(${cur}) % ${w} != 0))
          return pcd_fail(${cur}, ${cur}->p, PCD_E_SIZE, ${path}, "a whole number of ${w}-byte elements", PCD_FOUND_UINT, pcd_left(${cur}));
      ${n} = pcd_left(${cur}) / ${w};
    ]], { cur = cur, w = fixed, path = cstr(errname), n = n })
  elseif a.mode == "until_end" and env.mode == "dec" then
    -- count first (validating), then allocate exactly
    b:open("{")
    b:f("pcd_cursor t = *%s;", cur)
    b:f("while (t.p < t.end) {")
    b:nest(function()
      dec_elem(b, f, env, errname, local_, "(&t)", n)
      b:f("%s++;", n)
    end)
    b:l("}")
    b:close("}")
  elseif a.mode == "until_next" and env.mode == "dec" then
    -- count the elements (validating them) up to the bytes that follow the last one
    local tl = #a.terminator
    b:open("{")
    b:f("pcd_cursor t = *%s;", cur)
    b:l("for (;;) {")
    b:nest(function()
      b:t([[
        if (pcd_left(&t) >= ${tl} && memcmp(t.p, ${term}, ${tl}) == 0) break;
        if (PCD_UNLIKELY(pcd_left(&t) == 0))
            return pcd_fail_short(&t, t.p, ${path}, ${expected});
      ]], { tl = tl, term = cstr(a.terminator), path = cstr(errname),
        expected = cstr("elements, then " .. C.magic_text(a.terminator)) })
      dec_elem(b, f, env, errname, local_, "(&t)", n)
      b:f("%s++;", n)
    end)
    b:l("}")
    b:close("}")
  elseif a.mode == "until" then
    -- decode elements into a scratch element until the terminator, counting
    local et = a.of
    local env2 = setmetatable({ obj = "(&e)", mode = "enc" }, { __index = env })
    b:t([[
      {
          pcd_cursor t = *${cur};
          ${et} e;
          for (;;) {
              PCD_TRY_IN(c->x, ${fn}(&t, &e${co}), ${path}, (int64_t)${n});
              ${n}++;
              if (${until}) break;
          }
      }
    ]], { cur = cur, et = et.cname, fn = env.explain and (et.cname .. "_decode") or C.elem_fn(et, "decode"),
      co = C.co_arg(env, et), path = cstr(errname), n = n,
      ["until"] = X.cond(a["until"], env2) })
  end
end

-- Validation of the elements of an until_next array, up to the bytes that follow the last
-- one (not consumed).
local function val_until_next(b, f, env, errname, local_, n)
  local a, cur = f.ty, env.cur
  local tl = #a.terminator
  b:l("for (;;) {")
  b:nest(function()
    b:t([[
      if (pcd_left(${cur}) >= ${tl} && memcmp(${cur}->p, ${term}, ${tl}) == 0) break;
      if (PCD_UNLIKELY(pcd_left(${cur}) == 0))
          return pcd_fail_short(${cur}, ${cur}->p, ${path}, ${expected});
    ]], { cur = cur, tl = tl, term = cstr(a.terminator), path = cstr(errname),
      expected = cstr("elements, then " .. C.magic_text(a.terminator)) })
    dec_elem(b, f, env, errname, local_, cur, n)
    b:f("%s++;", n)
  end)
  b:l("}")
end

-- The fast paths: elements read through a local pointer q while the bytes left cover their
-- largest size; the first that needs care, and those after it, take the checked loop.

-- LEB128 elements relative to the stream state (running deltas, or a base): with 8 bytes
-- left for each, read through a local pointer, the running value kept in a local (a
-- store into the array could otherwise be the state's, and each element wait for it)
local function fast_rel(b, a, env, dst, elem_ct, n, store)
  local et, E = a.of, a.elem
  local sh = E.shift and (" << " .. E.shift) or ""
  local v = { cur = env.cur, n = n, dst = dst, ct = elem_ct, sh = sh }
  if E.delta then
    env.need_state = E.delta.region
    -- the destination in a local: gcc otherwise loads the array's pointer again for every element
    -- (count only: the running value moves on, nothing is stored)
    v.init = string.format("%s run = st->%s;", E.delta.ctype, E.delta.name) ..
        (store and string.format("\n%s *dp = %s;", elem_ct, dst) or "")
    v.store = string.format("run = (%s)(run + (%s)(v%s));", E.delta.ctype, E.delta.ctype, sh) ..
        (store and string.format("\ndp[i0] = (%s)run;", elem_ct) or "")
    v.save = string.format("st->%s = run;", E.delta.name)
  else
    v.init = store and string.format("uint64_t base = (uint64_t)(%s);", X.cexpr(E.base, env)) or false
    v.store = store and string.format("%s[i0] = (%s)((base + v)%s);", dst, elem_ct, sh) or false
    v.save = false
  end
  -- signed: sign-extended by pcd_sleb_fast (constant shifts for the common 1 to 3 bytes)
  v.read = et.enc == "sleb128" and
      "int64_t sv = 0;\nunsigned len = pcd_sleb_fast(q, &sv);\nv = (uint64_t)sv;"
      or "unsigned len = pcd_leb_fast(q, &v);"
  b:t([[
    {
        uint64_t i0 = 0;
        if (pcd_left(${cur}) / 8 >= ${n}) {
            const uint8_t *q = ${cur}->p;
            ${init}
            for (; i0 < ${n}; i0++) {
                uint64_t v;
                ${read}
                if (PCD_UNLIKELY(len == 0)) break;
                ${store}
                q += len;
            }
            ${save}
            ${cur}->p = q;
        }
  ]], v)
end

-- validation of LEB128 elements nothing looks at: with 8 bytes left for each, their
-- lengths alone
local function fast_skip(b, env, n)
  b:t([[
    {
        uint64_t i0 = 0;
        if (pcd_left(${cur}) / 8 >= ${n}) {
            const uint8_t *q = ${cur}->p;
            for (; i0 < ${n}; i0++) {
                unsigned len = pcd_leb_len8(q);
                if (PCD_UNLIKELY(len == 0)) break;
                q += len;
            }
            ${cur}->p = q;
        }
  ]], { cur = env.cur, n = n })
end

-- elements of plain fields (lower.simple_elem): with their largest size left for each,
-- they read without end checks; a LEB128 over 8 bytes or a value too large ends the run
local function fast_plain(b, a, env, dst, elem_ct, n, maxw, store)
  local et = a.of
  local fields = {}
  for gi, g in ipairs(et.fields) do
    local d = store and string.format("dst[i0].%s", g.member) or nil
    local v = { i = gi, dst = d, ct = g.ty.ctype, w = g.ty.wire }
    if g.ty.kind == "varint" then
      v.bound = g.ty.bits == 32 and string.format([[
if (PCD_UNLIKELY(v%d > UINT32_MAX)) {
    q = s;
    break;
}]], gi)
      v.store = d and string.format("%s = (%s)v%d;", d, g.ty.ctype, gi) or false
      fields[#fields + 1] = text.render([[
        uint64_t v${i};
        unsigned len${i} = pcd_leb_fast(q, &v${i});
        if (PCD_UNLIKELY(len${i} == 0)) {
            q = s;
            break;
        }
        q += len${i};
        ${bound}
        ${store}
      ]], v)
    else
      v.store = d and string.format("%s = %s;", d, C.load(g.ty, "q")) or false
      fields[#fields + 1] = text.render([[
        ${store}
        q += ${w};
      ]], v)
    end
  end
  b:t([[
    {
        uint64_t i0 = 0;
        if (pcd_left(${cur}) / ${maxw} >= ${n}) {
            const uint8_t *q = ${cur}->p;
            ${dst}
            for (; i0 < ${n}; i0++) {
                const uint8_t *s = q;
                ${fields}
            }
            ${cur}->p = q;
        }
  ]], { cur = env.cur, maxw = maxw, n = n, fields = table.concat(fields),
    -- the array in a local: a store into an element could otherwise be the output
    -- struct's pointer to it, reloaded for every element
    dst = store and string.format("%s *dst = %s;", elem_ct, dst) })
end

-- unsigned LEB128 elements: with 10 bytes left for each, they decode without end checks;
-- the first one that needs care (over 8 bytes, or too large) and those after it take
-- the checked loop, which reports exactly what it always did
local function fast_leb(b, a, env, dst, elem_ct, n, store)
  local et = a.of
  b:t([[
    {
        uint64_t i0 = 0;
        if (pcd_left(${cur}) / 10 >= ${n}) {
            const uint8_t *q = ${cur}->p;
            ${dst}
            for (; i0 < ${n}; i0++) {
                uint64_t v;
                unsigned len = pcd_leb_fast(q, &v);
                if (PCD_UNLIKELY(len == 0)) break;
                q += len;
                ${bound}
                ${store}
            }
            ${cur}->p = q;
        }
  ]], { cur = env.cur, n = n,
    dst = store and string.format("%s *dst = %s;", elem_ct, dst),
    bound = et.bits == 32 and "if (PCD_UNLIKELY(v > UINT32_MAX)) break;",
    store = store and string.format("dst[i0] = %sv;", et.bits == 32 and "(uint32_t)" or "") })
end

-- The elements, after the count was checked against the bytes left: stored into dst
-- (decoding), or not (validation; decoding for the count only, where the stream state
-- still moves on as when they are stored).
local function elements(b, f, env, errname, local_, dst, elem_ct, n, store)
  local a, cur = f.ty, env.cur
  local et = a.of
  local named = (et.kind == "struct" or et.kind == "union")
  local fixed = lower.fixed_elem(a)
  if fixed then
    if store then
      b:f("for (uint64_t i = 0; i < %s; i++)", n)
      b:f("    %s[i] = %s;", dst, C.load(et, cur .. "->p + i * " .. fixed))
    end
    b:f("%s->p += %s * %d;", cur, n, fixed)
    return
  end
  local path, maxw = lower.elem_path(a, env.mode)
  -- count only: LEB128 numbers that move no running value are passed over as validation
  -- does (their lengths alone; the checked loop still reads any that needs care)
  if not store and not (a.elem and a.elem.delta) and lower.elem_path(a, "val") == "skip" then path = "skip" end
  -- explain: every element through the checked loop (whose elements are spans of their own)
  if env.explain and (et.kind == "struct" or et.kind == "union") then path = nil end
  if path == "rel" then fast_rel(b, a, env, dst, elem_ct, n, store)
  elseif path == "skip" then fast_skip(b, env, n)
  elseif path == "plain" then fast_plain(b, a, env, dst, elem_ct, n, maxw, store)
  elseif path == "leb" then fast_leb(b, a, env, dst, elem_ct, n, store) end
  local fast = path ~= nil
  if fast then b.ind = b.ind + 1 end
  -- count only: a named element decoded into a scratch one (the same checks and state as
  -- stored; its stores are dead)
  local scratch = named and env.mode == "dec" and not store
  if scratch then b:f("%s e;", et.cname) end
  b:f("for (uint64_t i = %s; i < %s; i++) {", fast and "i0" or "0", n)
  b:nest(function()
    -- explain: an element with fields of its own is a span of its own (a number is a part of
    -- the array's)
    local span = et.kind == "struct" or et.kind == "union"
    if span then C.span_open(b, env, cur, nil, "i") end
    if named and env.mode == "dec" then
      b:f("PCD_TRY_IN(c->x, %s(%s, %s%s), %s, (int64_t)i);", C.dec_fn(env, et), cur,
        scratch and "&e" or ("&" .. dst .. "[i]"), C.co_arg(env, et), cstr(errname))
    elseif named then
      b:f("PCD_TRY_IN(c->x, %s(%s), %s, (int64_t)i);", C.elem_fn(et, "validate"), cur, cstr(errname))
    else
      local el = local_ .. "_e"
      local E = a.elem or {}
      K.dec_value(b, { name = f.name, ty = et, errname = errname, local_ = el, in_array = true,
        delta = E.delta, base = E.base, shift = E.shift }, env, nil, errname, el, cur)
      if store then b:f("%s[i] = %s;", dst, el) end
    end
    if span then C.span_close(b, env, cur) end
  end)
  b:l("}")
  if fast then b:close("}") end
end

function K.dec_array(b, f, env, member, errname, local_)
  local a = f.ty
  local cur = env.cur
  local et = a.of
  if not et then return end
  local fixed = lower.fixed_elem(a)
  local minw = lower.min_wire(et)
  local n = "n_" .. local_:sub(3)
  local at = "f0_" .. local_:sub(3)
  C.declare(env, n, "uint64_t", "0")
  C.declare(env, at, "const uint8_t *", "NULL")
  b:f("%s = %s->p;", at, cur)
  dec_count(b, f, env, errname, local_, n)
  if a.max then
    b:t([[
      if (PCD_UNLIKELY(${n} > ${max}))
          return pcd_fail(${cur}, ${at}, PCD_E_LIMIT, ${path}, ${expected}, PCD_FOUND_UINT, ${n});
    ]], { n = n, max = expr.cnum(a.max), cur = cur, at = at, path = cstr(errname),
      expected = cstr("at most " .. a.max .. " elements") })
  end
  if a.mode == "until_next" and env.mode == "val" then
    val_until_next(b, f, env, errname, local_, n)
    return
  end
  if a.mode == "until_end" and not fixed and env.mode == "val" then
    -- validation: walk the elements to the end
    b:f("while (%s->p < %s->end) {", cur, cur)
    b:nest(function()
      dec_elem(b, f, env, errname, local_, cur, n)
      b:f("%s++;", n)
    end)
    b:l("}")
    return
  end
  local elem_ct = C.elem_ctype(et)
  local dst = C.out_ref(env, member)
  -- the elements stored: room in the record arena, the count, each element decoded into it
  local function stored()
    b:f("PCD_TRY(pcd_alloc_array(%s, %s, %s, sizeof(%s), %d, (void **)&%s, %s));", cur, at, n, elem_ct,
      math.max(minw, 0), dst, cstr(errname))
    b:f("%s = (size_t)%s;", C.out_ref(env, C.n_of(member)), n)
    elements(b, f, env, errname, local_, dst, elem_ct, n, true)
  end
  if env.mode == "dec" and a.count_only and not env.explain then
    -- the consumer may want the count alone (pcd_ctx.count_only): then every element is
    -- checked as it is when stored (the stream state moves on the same), none is stored
    -- (co: the decoder's parameter, a constant where its caller's copy of the run loop folds it)
    b:f("if (co & %s) {", C.count_only_const(env.ir, a.count_only))
    b:nest(function()
      b:l("/* the consumer reads the count only (pcd_ctx.count_only): each element checked, none stored */")
      b:f("PCD_TRY(pcd_check_count(%s, %s, %s, %d, %s));", cur, at, n, math.max(minw, 0), cstr(errname))
      b:f("%s = NULL;", dst)
      b:f("%s = (size_t)%s;", C.out_ref(env, C.n_of(member)), n)
      elements(b, f, env, errname, local_, dst, elem_ct, n, false)
    end)
    b:l("} else {")
    b:nest(function()
      stored()
    end)
    b:l("}")
    return
  end
  if a.in_place and et.bits ~= 8 and et.endian ~= "le" then
    error(f.name .. ": in_place needs little-endian elements (this host order is checked when decoding)")
  end
  if env.mode == "dec" and a.in_place and fixed and not a.elem and not env.explain then
    -- in_place: on a little-endian host, elements that lie aligned in the input are handed out
    -- where they are (the same checks as stored; a record's arrays last as long as its bytes)
    b:f("if (!PCD_HOST_BIG && ((uintptr_t)%s->p & (sizeof(%s) - 1)) == 0) {", cur, elem_ct)
    b:nest(function()
      b:l("/* in place: the wire bytes are the elements (the consumer only reads them) */")
      b:f("PCD_TRY(pcd_check_count(%s, %s, %s, %d, %s));", cur, at, n, math.max(minw, 0), cstr(errname))
      b:f("%s = %s ? (%s *)(uintptr_t)%s->p : NULL;", dst, n, elem_ct, cur)
      b:f("%s = (size_t)%s;", C.out_ref(env, C.n_of(member)), n)
      b:f("%s->p += %s * %d;", cur, n, fixed)
    end)
    b:l("} else {")
    b:nest(function()
      stored()
    end)
    b:l("}")
    return
  end
  if env.mode == "dec" then
    stored()
  else
    b:f("PCD_TRY(pcd_check_count(%s, %s, %s, %d, %s));", cur, at, n, minw, cstr(errname))
    elements(b, f, env, errname, local_, dst, elem_ct, n, false)
  end
end

---------------------------------------------------------------------------
-- encode / size

function K.enc_array(b, f, env, member, errname)
  local a = f.ty
  local et = a.of
  local named = et.kind == "struct" or et.kind == "union"
  local arr = env.obj .. "->" .. member
  local cnt = env.obj .. "->" .. C.n_of(member)
  local function check(condition, st, expected)
    b:f("if (PCD_UNLIKELY(%s))", condition)
    C.enc_fail(b, env, st, errname, expected, "PCD_FOUND_UINT", cnt)
  end
  if a.mode == "prefix" then
    local pf = a.prefix
    if env.mode == "size" then
      if pf.kind == "int" then C.acc(b, env, pf.wire) else C.acc(b, env, "pcd_size_uleb128(" .. cnt .. ")") end
    else
      local _, hi = C.range_of(pf)
      if hi then
        check("(uint64_t)" .. cnt .. " > (uint64_t)" .. hi, "PCD_E_RANGE",
          "an element count that fits its " .. C.type_text(pf) .. " prefix")
      end
      if pf.kind == "int" then b:f("PCD_TRY(%s);", C.put(pf, cnt, "s"))
      else b:f("PCD_TRY(pcd_put_uleb128(s, (uint64_t)%s));", cnt) end
    end
  elseif a.mode == "expr" and env.mode == "enc" then
    check("(uint64_t)" .. cnt .. " != (uint64_t)(" .. X.cexpr(a.count, env) .. ")", "PCD_E_SIZE",
      "the element count its count expression gives")
  end
  if a.max and env.mode == "enc" then
    check(cnt .. " > " .. expr.cnum(a.max), "PCD_E_LIMIT", "at most " .. a.max .. " elements")
  end
  if a.mode == "until" and env.mode == "enc" then
    check(cnt .. " == 0", "PCD_E_SIZE", "a terminating element")
  end
  local fixed = lower.fixed_elem(a)
  if fixed and env.mode == "size" then
    C.acc(b, env, "(uint64_t)" .. cnt .. " * " .. fixed)
    return
  end
  b:f("for (size_t i = 0; i < %s; i++) {", cnt)
  b:nest(function()
    if named and env.mode == "size" then
      C.acc(b, env, C.elem_fn(et, "size") .. "(x, &" .. arr .. "[i])")
    elseif named then
      b:f("PCD_TRY_IN(s->x, %s(s, &%s[i]), %s, (int64_t)i);", C.elem_fn(et, "encode"), arr, cstr(errname))
    else
      local E = a.elem or {}
      K.enc_value(b, { name = f.name, ty = et, errname = errname, local_ = f.local_ .. "_e",
        delta = E.delta, base = E.base, shift = E.shift }, env, arr .. "[i]", errname)
    end
    if a.mode == "until" and env.mode == "enc" then
      local env2 = setmetatable({ obj = "(&" .. arr .. "[i])" }, { __index = env })
      b:f("if ((%s) != (i + 1 == %s))", X.cexpr(a["until"], env2), cnt)
      C.enc_fail(b, env, "PCD_E_INVALID", errname, "the terminating element last, and only there", "PCD_FOUND_UINT", "i")
    end
  end)
  b:l("}")
end

return K
