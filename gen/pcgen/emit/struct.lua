-- emit/struct.lua: structs field by field: runs of fixed fields after one bounds check,
-- conditions, fields placed by an offset or from the end, fields within the bytes a size
-- field counts, total sizes, where records regions lie; encode and size.
local lower = require("pcgen.lower")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.kinds")

local cstr, cexpr, cond = C.cstr, X.cexpr, X.cond

---------------------------------------------------------------------------
-- decode / validate

local function run_off_ptr(cur, off)
  if off == 0 then return cur .. "->p" end
  return cur .. "->p + " .. off
end

-- The table a run's cold helper reads to name the field that was cut, written once before
-- the first function that needs it: shared by a type's decoder and validator, and by any
-- run of the same fields. Returns its C name.
local function run_table(run, env)
  local tables = env.ir.run_tables
  if not tables then
    tables = { n = {}, by_key = {} }
    env.ir.run_tables = tables
  end
  local key = {}
  for _, f in ipairs(run.fields) do key[#key + 1] = f.errname .. "/" .. f.ty.wire .. "/" .. C.type_text(f.ty) end
  key = table.concat(key, ",")
  if not tables.by_key[key] then
    local T = env.T.tname
    tables.n[T] = (tables.n[T] or 0) + 1
    tables.by_key[key] = "k_" .. T .. "_run" .. tables.n[T]
    run.table = tables.by_key[key]
    env.runs[#env.runs + 1] = run
  end
  run.table = tables.by_key[key]
  return run.table
end

---------------------------------------------------------------------------
-- merged checks (docs/design.md, "Generated code": merged bounds checks)
--
-- A field whose code starts with a plain "are w bytes left?" check can have that check
-- made by the field before it, together with that field's own: env.ahead = { field, bytes,
-- cur } says that `bytes` bytes lie at the cursor for that field, and its emitter leaves its
-- check out (C.covered). The merged check fails over to a cold path that runs the checks
-- one by one, so an error names the same field, offset and expectation as before.

-- Does an earlier merged check cover the first w bytes of field f?
function K.covered(env, f, w)
  local a = env.ahead
  return a ~= nil and a.field == f and a.cur == env.cur and a.bytes >= w
end

-- The check a field's code starts with, when a merged check can stand for it: the bytes it
-- asks for and the failure its own check returns (the cold path's last statement). nil for
-- any other field: conditional, placed, sized, reset, or read otherwise.
function K.lead_check(f, env)
  if not f or not f.ty or env.explain then return nil end
  if f.when or f.at or f.at_end or f.sized_by or f.optional or f.reset then return nil end
  local ty, cur = f.ty, env.cur
  if f.run then
    if f.run.fields[1] ~= f then return nil end
    return f.run.wire, string.format("return pcd_fail_run(%s, %s, %d);", cur, run_table(f.run, env), #f.run.fields)
  end
  if (ty.kind == "int" or ty.kind == "float") and lower.groupable(f) then
    return ty.wire, string.format("return pcd_fail_short(%s, %s->p, %s, %s);", cur, cur, cstr(f.errname),
      cstr(C.type_text(ty)))
  end
  if ty.kind == "bytes" and ty.mode == "prefix" and ty.prefix.kind == "int" and not f.counted_by and not f.delta then
    return ty.prefix.wire, string.format('return pcd_fail_short(%s, %s->p, %s, "length");', cur, cur, cstr(f.errname))
  end
  return nil
end

-- The field after f in its struct, when f is one of the struct's own fields.
function K.next_field(f)
  local S = f.owner
  if not S or not S.fields then return nil end
  for i, g in ipairs(S.fields) do
    if g == f then
      local nx = S.fields[i + 1]
      if nx and nx.ty and nx.ty.kind ~= "records" then return nx end
      return nil
    end
  end
  return nil
end

-- A run of fixed-width fields read after one bounds check; a cold helper finds which field
-- was cut when the check fails, from the run's table (emitted before the function).
local function dec_run(b, run, env)
  local cur = env.cur
  local names_ = {}
  for _, f in ipairs(run.fields) do names_[#names_ + 1] = f.name end
  run_table(run, env)
  if K.covered(env, run.fields[1], run.wire) then
    b:f("/* %s: %d bytes of fixed fields (checked above) */", table.concat(names_, ", "), run.wire)
  else
    b:t([[
      /* ${names}: ${w} bytes of fixed fields */
      if (PCD_UNLIKELY(pcd_left(${cur}) < ${w}))
          return pcd_fail_run(${cur}, ${table}, ${n});
    ]], { names = table.concat(names_, ", "), w = run.wire, cur = cur, table = run.table, n = #run.fields })
  end
  for _, f in ipairs(run.fields) do
    local p = run_off_ptr(cur, f.run_off)
    b:doc(f)
    if env.explain then b:f("pcd_span_at(%s, %s, %s, %d);", cur, cstr(f.name), p, f.ty.wire) end
    local ty = f.ty
    if ty.kind == "magic" then
      b:t([[
        if (PCD_UNLIKELY(memcmp(${p}, ${bytes}, ${n}) != 0))
            return pcd_fail_magic(${cur}, ${p}, ${path}, ${text}, ${n});
      ]], { p = p, bytes = cstr(ty.bytes), n = #ty.bytes, cur = cur, path = cstr(f.errname),
        text = cstr(C.magic_text(ty.bytes)) })
    elseif ty.kind == "bytes" then
      C.declare(env, f.local_, "pcd_bytes", "{ NULL, 0 }")
      b:f("%s.ptr = %s;", f.local_, p)
      if ty.padded then
        b:f("%s.len = pcd_padded_len(%s, %d);", f.local_, p, ty.fixed)
      else
        b:f("%s.len = %d;", f.local_, ty.fixed)
      end
      if env.mode == "dec" then b:f("%s = %s;", C.out_ref(env, f.member), f.local_) end
    elseif env.mode == "val" and not lower.needs_value(f) then
      b:l("/* (value not needed for validation) */")
    else
      C.declare(env, f.local_, ty.ctype, "0")
      b:f("%s = %s;", f.local_, C.load(ty, p))
      if ty.kind == "int" then K.dec_checks(b, f, f.local_, p, env) end
      if env.mode == "dec" and K.has_member(f) then b:f("%s = %s;", C.out_ref(env, f.member), f.local_) end
    end
  end
  b:f("%s->p += %d;", cur, run.wire)
end

-- The run tables of the runs a function read (static, before the function).
function K.run_tables(env)
  local out = {}
  for _, run in ipairs(env.runs) do
    local items = {}
    for _, f in ipairs(run.fields) do
      items[#items + 1] = string.format("{ .name = %s, .wire = %d, .type = %s }", cstr(f.errname), f.ty.wire,
        cstr(C.type_text(f.ty)))
    end
    out[#out + 1] = "static const pcd_run_field " .. run.table .. "[] = {\n    " ..
        table.concat(items, ",\n    ") .. ",\n};\n"
  end
  return table.concat(out)
end

-- Is a field a member of its C struct? (Magics are checked, not stored; an optional magic
-- is stored as whether it is there.)
function K.has_member(f)
  if f.optional then return true end
  return f.ty and f.ty.kind ~= "magic" and not f.magic
end

-- Loads the input's size before code that uses it (a short read while the input is open).
local function load_input_size(b, env)
  b:f("PCD_TRY(pcd_input_size(%s, &input_size));", env.cur)
end

-- A field read elsewhere than at the cursor, through a cursor of its own: seek(r) is the
-- call that places cursor r; check, a template over ${cr}, what must hold after it.
local function dec_placed(b, f, env, member, seek, check, vars)
  local r = "r_" .. f.local_:sub(3)
  local cr = "c_" .. f.local_:sub(3)
  b:open("{")
  b:f("pcd_cursor %s = { 0 };", r)
  b:l(seek(r))
  b:f("pcd_cursor *%s = &%s;", cr, r)
  C.span_open(b, env, cr, f.name)
  K.dec_value(b, f, env, member, f.errname, f.local_, cr)
  C.span_close(b, env, cr)
  if check then
    vars.cr = cr
    b:t(check, vars)
  end
  b:close("}")
end

-- The value of a field, wherever it lies.
local function dec_field_body(b, f, env)
  local cur = env.cur
  if f.optional then
    -- an optional magic: present when the bytes there match, absent otherwise (no error)
    C.declare(env, f.local_, "bool", "false")
    local where = f.at and ("(uint64_t)(" .. cexpr(f.at, env) .. "), false") or (f.at_end .. ", true")
    b:f("PCD_TRY(pcd_peek_match(%s, %s, (const uint8_t *)%s, %d, &%s));", cur, where,
      cstr(f.ty.bytes), #f.ty.bytes, f.local_)
    if env.explain then
      -- where it was found
      if f.at then
        b:f("if (%s) pcd_span_offset(%s, %s, (uint64_t)(%s), %d);", f.local_, cur, cstr(f.name), cexpr(f.at, env), #f.ty.bytes)
      else
        b:t([[
          if (${v}) {
              uint64_t size_;
              PCD_TRY(pcd_input_size(${cur}, &size_));
              pcd_span_offset(${cur}, ${name}, size_ - ${at_end}, ${n});
          }
        ]], { v = f.local_, cur = cur, name = cstr(f.name), at_end = f.at_end, n = #f.ty.bytes })
      end
    end
    if env.mode == "dec" then b:f("%s = %s;", C.out_ref(env, f.member), f.local_) end
  elseif f.at then
    -- placed by a header or footer: read it there, the cursor stays where it is
    dec_placed(b, f, env, K.has_member(f) and f.member or nil, function(r)
      return "PCD_TRY(pcd_seek(" .. cur .. ", (uint64_t)(" .. cexpr(f.at, env) .. "), &" .. r .. ", " ..
          cstr(f.errname) .. "));"
    end)
  elseif f.at_end then
    dec_placed(b, f, env, K.has_member(f) and f.member or nil, function(r)
      return "PCD_TRY(pcd_seek_end(" .. cur .. ", " .. f.at_end .. ", &" .. r .. ", " .. cstr(f.errname) .. "));"
    end)
  elseif f.sized_by then
    env.used_locals[f.sized_by] = true
    dec_placed(b, f, env, f.member, function(r)
      return "PCD_TRY(pcd_take(" .. cur .. ", (uint64_t)" .. f.sized_by.local_ .. ", &" .. r .. ", " ..
          cstr(f.errname) .. ', "the bytes its size counts"));'
    end, [[
      if (PCD_UNLIKELY(${cr}->p != ${cr}->end))
          return pcd_fail(${cr}, ${cr}->p, PCD_E_SIZE, ${path}, "content that fills its size", PCD_FOUND_UINT, pcd_left(${cr}));
    ]], { path = cstr(f.sized_by.errname) })
  else
    C.span_open(b, env, cur, f.name)
    K.dec_value(b, f, env, K.has_member(f) and f.member or nil, f.errname, f.local_)
    C.span_close(b, env, env.cur)
  end
  if f.when and env.mode == "dec" then b:f("%s = true;", C.out_ref(env, C.has_of(f.member))) end
end

-- Where the cursor is after field g, counted from the start of T, when every field up to g
-- has a fixed width and is always there; nil otherwise.
local function static_offset(T, g)
  local last = g.run and g.run.last or g
  local off = 0
  for _, f in ipairs(T.fields) do
    if f.when or f.at or f.at_end or f.optional or not f.ty then return nil end
    local w = lower.fixed_wire(f.ty)
    if not w then return nil end
    off = off + w
    if f == last then return off end
  end
  return nil
end

-- After a total_size field: the rest of the named type lies within it. The decoder and the
-- validator end the cursor there while they read it (func.lua puts the end back after the
-- last field); the explain function reads it through a cursor of its own.
local function dec_total(b, g, env)
  local T = env.T
  env.used_locals[g] = true
  local v = { type = T.tname, name = g.name, v = g.local_, min = T.min, cur = env.cur, path = cstr(g.errname),
    expected = cstr("at least " .. T.min .. " (the smallest " .. T.tname .. ")") }
  if env.explain or env.cur ~= "c" or g.owner ~= T then
    b:t([[
      /* the rest of ${type} lies within its ${name} bytes */
      if (PCD_UNLIKELY(${v} < ${min}))
          return pcd_fail(${cur}, s0, PCD_E_RANGE, ${path}, ${expected}, PCD_FOUND_UINT, (uint64_t)${v});
      if (PCD_UNLIKELY((uint64_t)${v} < (uint64_t)(${cur}->p - s0)))
          return pcd_fail(${cur}, s0, PCD_E_RANGE, ${path}, "at least the bytes read so far", PCD_FOUND_UINT, (uint64_t)${v});
      PCD_TRY(pcd_take(${cur}, (uint64_t)${v} - (uint64_t)(${cur}->p - s0), &r_total, ${path}, "the bytes its size counts"));
      ${cur} = &r_total;
    ]], v)
    env.total_field = g
    return
  end
  -- the same checks as pcd_take's, then the cursor's end moves in (no second cursor)
  b:t([[
    /* the rest of ${type} lies within its ${name} bytes: the cursor ends there until its last field */
    if (PCD_UNLIKELY(${v} < ${min}))
        return pcd_fail(${cur}, s0, PCD_E_RANGE, ${path}, ${expected}, PCD_FOUND_UINT, (uint64_t)${v});
    if (PCD_UNLIKELY((uint64_t)${v} < (uint64_t)(${cur}->p - s0)))
        return pcd_fail(${cur}, s0, PCD_E_RANGE, ${path}, "at least the bytes read so far", PCD_FOUND_UINT, (uint64_t)${v});
    if (PCD_UNLIKELY((uint64_t)${v} - (uint64_t)(${cur}->p - s0) > (uint64_t)pcd_left(${cur})))
        return pcd_fail_short(${cur}, ${cur}->p, ${path}, "the bytes its size counts");
    ${cur}->end = s0 + ${v};
    ${cur}->hard = true;
  ]], v)
  env.total_field = g
  env.total_narrowed = true
  -- the size is at least the smallest T: the bytes of T's smallest form after here are
  -- there, and the next field's own check can be left out
  local off = static_offset(T, g)
  local last = g.run and g.run.last or g
  local nx = K.next_field(last)
  local w = nx and K.lead_check(nx, env)
  if off and w and T.min - off >= w then
    env.ahead = { field = nx, bytes = T.min - off, cur = env.cur }
  end
end

-- One struct field, with its condition, its size region, and total_size.
function K.dec_field(b, f, env)
  if f.run and f.run.fields[1] ~= f then return end -- emitted with its run
  if f.ty.kind == "records" then return end -- placed by dec_regions, after every other field
  local group = f.run and f.run.fields or { f }
  for _, g in ipairs(group) do
    if lower.field_uses_input_size(g) then load_input_size(b, env) break end
  end
  if f.run then
    dec_run(b, f.run, env)
  else
    b:doc(f, f.when and ("when " .. (f.when_src or "a condition holds")) or nil)
    K.emit_resets(b, f, env)
    if f.when then
      b:f("if (%s) {", cond(f.when, env))
      b:nest(function() dec_field_body(b, f, env) end)
      b:l("}")
    else
      dec_field_body(b, f, env)
    end
  end
  -- a merged check covers only the field right after it
  if env.ahead and env.ahead.field == f then env.ahead = nil end
  for _, g in ipairs(group) do
    if g.derived and g.derived.kind == "total_size" then dec_total(b, g, env) end
  end
end

-- Where one records region of S lies (read one record at a time by the stream driver).
local function dec_region(b, f, env)
  local R = f.ty
  local m = C.out_ref(env, f.member)
  b:f("/* %s: where its records lie (read one at a time by the stream driver) */", f.name)
  if f.when then
    b:t([[
      if (!(${cond})) {
          ${m}.absent = true; /* when ${src} */
      } else {
    ]], { cond = cond(f.when, env), m = m, src = f.when_src })
    b.ind = b.ind + 1
  end
  if R.at then
    b:f("%s.offset = (uint64_t)(%s);", m, cexpr(R.at, env))
  else
    b:f("%s.offset = pcd_offset(%s, %s->p);", m, env.cur, env.cur)
  end
  if f.sized_by then
    local sb = f.sized_by
    env.used_locals[sb] = true
    local extra = sb.derived and sb.derived.extra
    if extra and extra > 0 then
      -- the size also counts bytes that are not the region's
      b:t([[
        if (PCD_UNLIKELY((uint64_t)${v} < ${extra}))
            return pcd_fail(${cur}, ${cur}->p, PCD_E_RANGE, ${path}, "at least ${extra}", PCD_FOUND_UINT, (uint64_t)${v});
        ${m}.size = (uint64_t)${v} - ${extra};
      ]], { v = sb.local_, extra = extra, cur = env.cur, path = cstr(sb.errname), m = m })
    else
      b:f("%s.size = (uint64_t)%s;", m, sb.local_)
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

function K.dec_struct(b, S, env)
  for _, f in ipairs(S.fields) do
    if f.ty then K.dec_field(b, f, env) end
  end
  -- regions last, once every other field is known (their bounds may come from a footer)
  if env.mode ~= "dec" then return end
  if lower.regions_use_input_size(S) then load_input_size(b, env) end
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then dec_region(b, f, env) end
  end
end

---------------------------------------------------------------------------
-- encode / size

local function enc_field_body(b, f, env, v)
  if f.optional then
    -- an optional magic: its bytes when the record says it is there
    local m = env.obj .. "->" .. f.member
    if env.mode == "size" then
      C.acc(b, env, "(" .. m .. " ? " .. #f.ty.bytes .. " : 0)")
    else
      b:f("if (%s)", m)
      b:f("    PCD_TRY(pcd_put_bytes(s, (const uint8_t *)%s, %d));", cstr(f.ty.bytes), #f.ty.bytes)
    end
    return
  end
  K.enc_value(b, f, env, v, f.errname)
end

function K.enc_field(b, f, env)
  local v
  if f.derived then
    v = "d_" .. f.local_:sub(3)
    env.used_derived[f] = true
  elseif K.has_member(f) then
    v = env.obj .. "->" .. f.member
  end
  if f.hidden and f.ty.kind == "int" then v = C.cnum(f.equals, true) end
  b:doc(f)
  K.emit_resets(b, f, env)
  local has = env.obj .. "->" .. C.has_of(f.member)
  if f.when and not lower.enc_evaluable(f.when) then
    -- the condition reads what only decoding knows (the input's size, a size computed
    -- while writing): the record's own presence flag decides
    b:f("if (%s) { /* when %s */", has, f.when_src or "its condition holds")
    b:nest(function() enc_field_body(b, f, env, v) end)
    b:l("}")
  elseif f.when then
    local strict = env.mode == "enc" and not f.derived
    b:f("if (%s) {", cond(f.when, env))
    b:nest(function()
      if strict then
        b:f("if (PCD_UNLIKELY(!%s))", has)
        C.enc_fail(b, env, "PCD_E_INVALID", f.errname, "this field, which its condition requires", "PCD_FOUND_NONE", 0)
      end
      enc_field_body(b, f, env, v)
    end)
    if strict then
      b:f("} else if (PCD_UNLIKELY(%s)) {", has)
      C.enc_fail(b, env, "PCD_E_INVALID", f.errname, "no value here, since its condition is false", "PCD_FOUND_NONE", 0)
    end
    b:l("}")
  else
    enc_field_body(b, f, env, v)
  end
end

-- Writes S's fields; with env.segment set (named types with regions), only the fields
-- between region number env.segment and the next one (0: before the first region).
function K.enc_struct(b, S, env)
  local seg, k = env.segment, 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then
      k = k + 1
    elseif f.ty and (seg == nil or seg == k or S ~= env.T) then
      K.enc_field(b, f, env)
    end
  end
end

return K
