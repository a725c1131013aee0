-- emit/func.lua: the four functions of a named type: decode and validate (a static inline
-- body that other generated code calls, and a thin exported wrapper), encode and size
-- (the derived values first: sizes, counts, offsets).
local lower = require("pcgen.lower")
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.value")
local buf = require("pcgen.emit.cbuf")

local cstr, cond = C.cstr, X.cond

local F = {}

-- The functions of the cases of a union that reads each case through its own (lower:
-- unions of many cases), before the union's. explain: the explain functions' (mode "dec").
local function case_functions(ir, T, mode, explain)
  if T.kind ~= "union" or not T.split then return "" end
  local out = {}
  for _, c in ipairs(T.cases) do
    if c.split then
      local env = C.new_env(ir, T, mode)
      env.explain = explain
      local b = buf(1)
      local pre = buf(1)
      local v = { fn = c.ty.cname, T = T.cname, co = F.co_param(c.ty) }
      local sig, params, ret
      if mode == "dec" or mode == "val" then
        K.dec_struct(b, c.ty, env)
        sig = explain and "static pcd_status ${fn}_explain_(pcd_cursor *c, ${T} *out)" or
            mode == "dec" and "PCD_INLINE pcd_status ${fn}_decode_(pcd_cursor *c, ${T} *out${co})" or
            "PCD_INLINE pcd_status ${fn}_validate_(pcd_cursor *c)"
        params, ret = mode == "dec" and { "c", "out", v.co ~= "" and not explain and "co" or nil } or { "c" }, "PCD_OK"
      else
        K.enc_struct(b, c.ty, env)
        F.derived_values(ir, c.ty, env, pre)
        sig = mode == "enc" and "static pcd_status ${fn}_encode(pcd_sink *s, const ${T} *in)" or
            "static uint64_t ${fn}_size(pcd_ctx *x, const ${T} *in)"
        params, ret = mode == "enc" and { "s", "in" } or { "x", "in" }, mode == "enc" and "PCD_OK" or "n"
      end
      local body = pre:text() .. b:text()
      local st = F.state_text(env)
      local doc = c.ty.display .. ((c.ty.doc and c.ty.doc ~= "") and (": " .. c.ty.doc) or "")
      out[#out + 1] = K.run_tables(env) .. text.comment(doc) .. text.render(sig, v) .. "{\n" ..
          (mode == "size" and "    uint64_t n = 0;\n" or "") .. C.decls_text(env) .. st ..
          C.unused_params(body .. st, params) .. body .. "    return " .. ret .. ";\n}\n\n"
    end
  end
  return table.concat(out)
end

-- The stream state in a function that touched it: the state itself, or (size) a copy.
function F.state_text(env)
  if env.mode ~= "size" then return C.state_decl(env) end
  if not env.need_state then return "" end
  -- sizes of deltas depend on the state; work on a copy so nothing changes
  return text.indent(text.render([[
    ${S} st_copy = *(${S} *)x->state;
    ${S} *st = &st_copy;
  ]], { S = env.need_state.state_cname }), 4)
end

-- Is T the record of a region whose records are run back to back (the _run and _drun fast
-- paths)? Its function is then inlined into the loops (always: a call a record costs as much as
-- a small record's decoding).
local function run_record(ir, T)
  for _, R in ipairs(ir.regions or {}) do
    if R.record == T and not R.opens then return true end
  end
  return false
end

-- The named types whose validate_ body is inlined always (PCD_INLINE): those a run's record
-- reaches (through the validators it calls, and theirs), each called from one place only among
-- the validators and not from itself. The run keeps its cursor in a local (region.lua, RUN),
-- which stays in registers only if every validator it reaches is inlined into it (gcc splits
-- or keeps apart some static inline ones); one call site means no body is copied twice.
local run_inlined_memo = setmetatable({}, { __mode = "k" })
local function run_inlined(ir)
  if run_inlined_memo[ir] then return run_inlined_memo[ir] end
  local calls, callees = {}, {}
  -- the named types T's validator calls (inline structs, unions and array elements looked into)
  local function scan(T, ty, out)
    if type(ty) ~= "table" then return end
    if (ty.kind == "struct" or ty.kind == "union") and ty.named and ty ~= T then
      out[#out + 1] = ty
    elseif ty.kind == "array" then
      scan(T, ty.of, out)
    elseif ty.kind == "struct" then
      for _, f in ipairs(ty.fields or {}) do scan(T, f.ty, out) end
    elseif ty.kind == "union" then
      for _, c in ipairs(ty.cases or {}) do scan(T, c.ty, out) end
    end
  end
  for _, T in ipairs(ir.all_types) do
    if T.named then
      local out = {}
      scan(T, T, out)
      callees[T] = out
      for _, U in ipairs(out) do calls[U] = (calls[U] or 0) + 1 end
    end
  end
  local function reaches(from, to, seen)
    for _, U in ipairs(callees[from] or {}) do
      if U == to then return true end
      if not seen[U] then
        seen[U] = true
        if reaches(U, to, seen) then return true end
      end
    end
    return false
  end
  local set, seen = {}, {}
  local function visit(T)
    for _, U in ipairs(callees[T] or {}) do
      if not seen[U] then
        seen[U] = true
        if calls[U] == 1 and not reaches(U, U, {}) then set[U] = true end
        visit(U)
      end
    end
  end
  for _, R in ipairs(ir.regions or {}) do
    if R.record and not R.opens and not seen[R.record] then
      seen[R.record] = true
      visit(R.record)
    end
  end
  run_inlined_memo[ir] = set
  return set
end

-- The parameter of a decode_ body that tests count_only bits (", uint32_t co": the bits of
-- pcd_ctx.count_only its caller chose), or "".
function F.co_param(T)
  return #C.count_only_used(T) > 0 and ", uint32_t co" or ""
end

-- mode "dec" or "val"; explain (mode "dec"): the explain function, which records where each
-- field lies as it decodes (runtime/pcd_span.h).
function F.decode(ir, T, mode, explain)
  local env = C.new_env(ir, T, mode)
  env.explain = explain
  local b = buf(1)
  if T.kind == "struct" then K.dec_struct(b, T, env) else K.dec_union(b, T, env, nil) end
  local head = ""
  if lower.has_total_size(T) then
    if env.total_narrowed then
      -- the cursor's end moves in to the record's size while the record is read (struct.lua,
      -- dec_total): its own end and hardness, put back after the last field
      head = "    const uint8_t *s0 = c->p;\n    const uint8_t *const end_total = c->end;\n" ..
          "    const bool hard_total = c->hard;\n"
    else
      head = "    const uint8_t *s0 = c->p;\n    pcd_cursor r_total;\n"
    end
  end
  local tail = ""
  if env.total_field then
    tail = text.indent(text.render([[
      if (PCD_UNLIKELY(c->p != c->end))
          return pcd_fail(c, c->p, PCD_E_SIZE, ${name}, "content that ends where the size says", PCD_FOUND_UINT, pcd_left(c));
    ]], { name = cstr(env.total_field.errname) }), 4)
    if env.total_narrowed then
      tail = tail .. "    c->end = end_total;\n    c->hard = hard_total;\n"
    end
  end
  local v = { T = T.cname, inl = run_record(ir, T) and "PCD_INLINE" or "static inline", co = F.co_param(T),
    cox = #C.count_only_used(T) > 0 and ", c->x->count_only" or "" }
  local sig, wrapper
  if explain then
    sig = text.render("static pcd_status ${T}_explain_(pcd_cursor *c, ${T} *out)", v)
    wrapper = text.render([[
      pcd_status ${T}_explain(pcd_cursor *c, ${T} *out)
      {
          return ${T}_explain_(c, out);
      }
    ]], v)
    if lower.may_leave_unset(T) then head = "    memset(out, 0, sizeof *out);\n" .. head end
  elseif mode == "dec" then
    sig = text.render("${inl} pcd_status ${T}_decode_(pcd_cursor *c, ${T} *out${co})", v)
    wrapper = text.render([[
      pcd_status ${T}_decode(pcd_cursor *c, ${T} *out)
      {
          return ${T}_decode_(c, out${cox});
      }
    ]], v)
    -- zeroing first is only needed when some member may be left unset (a conditional
    -- field's has_ flag, a region's optional bounds); otherwise every member the record
    -- has is assigned (a union: its case's), and skipping the memset matters for small records
    if lower.may_leave_unset(T) then head = "    memset(out, 0, sizeof *out);\n" .. head end
  else
    v.inl = (run_record(ir, T) or run_inlined(ir)[T]) and "PCD_INLINE" or "static inline"
    sig = text.render("${inl} pcd_status ${T}_validate_(pcd_cursor *c)", v)
    wrapper = text.render([[
      pcd_status ${T}_validate(pcd_cursor *c)
      {
          return ${T}_validate_(c);
      }
    ]], v)
  end
  local body = b:text()
  local doc = (T.doc and T.doc ~= "" and (T.tname .. ": " .. T.doc) or T.tname) ..
      (mode == "val" and "\nValidation only: the same checks as decoding, nothing stored." or "") ..
      (explain and "\nExplain: the decoder, recording where each field lies (pcd_span_open/_close/_at)." or "")
  local st = C.state_decl(env)
  return case_functions(ir, T, mode, explain) .. K.run_tables(env) .. text.comment(doc) .. sig .. "{\n" .. C.decls_text(env) .. st ..
      C.unused_params(head .. body .. tail .. st, mode == "dec" and { "c", "out", v.co ~= "" and not explain and "co" or nil } or { "c" }) ..
      head .. body .. tail .. "    return PCD_OK;\n}\n\n" .. wrapper
end

-- The derived values of the fields written by this function (sizes, counts, offsets,
-- the file's size), into d_ locals before the fields.
function F.derived_values(ir, T, env, pre)
  local mode = env.mode
  local in_seg = {}
  for _, g in ipairs(lower.segment_fields(T, env.segment)) do in_seg[g] = true end
  local function target_of(S, f) return S.fields[S.by_name[f.derived.target]] end
  local function scan(S)
    for _, f in ipairs(S.fields) do
      if f.derived and (S ~= T or in_seg[f]) then
        local d = "d_" .. f.local_:sub(3)
        C.declare(env, d, "uint64_t", "0")
        local k = f.derived.kind
        local of_region = (k == "offset_of" or k == "count_of" or k == "size_of") and
            target_of(S, f).ty.kind == "records"
        if k == "total_size" then
          if mode == "enc" then pre:f("%s = %s_size(s->x, in);", d, T.cname)
          else pre:f("%s = 0; /* computed below */", d) end
        elseif mode == "size" and (k == "file_size" or k == "offset_of" or
            ((k == "count_of" or k == "size_of") and of_region)) then
          pre:f("%s = 0; /* (its value does not change the size) */", d)
        elseif k == "file_size" then
          -- the file ends with this segment, whose size is fixed
          local n, opt = 0, {}
          for _, g in ipairs(lower.segment_fields(S, env.segment)) do
            local w = lower.fixed_wire(g.ty)
            if not w then
              error(ir.schema_path .. ": " .. S.tname .. "." .. f.name ..
                ": file_size needs every field after the last region to have a fixed size")
            end
            if g.optional then
              opt[#opt + 1] = "(" .. env.obj .. "->" .. g.member .. " ? " .. w .. " : 0)"
            elseif g.when and lower.enc_evaluable(g.when) then
              opt[#opt + 1] = "((" .. cond(g.when, env) .. ") ? " .. w .. " : 0)"
            elseif g.when then
              opt[#opt + 1] = "(" .. env.obj .. "->" .. C.has_of(g.member) .. " ? " .. w .. " : 0)"
            else
              n = n + w
            end
          end
          if #opt == 0 then
            pre:f("%s = pcd_sink_tell(s) + %d; /* the file ends with these %d bytes */", d, n, n)
          else
            pre:f("%s = pcd_sink_tell(s) + %d + %s; /* the file ends with these bytes */", d, n, table.concat(opt, " + "))
          end
        elseif of_region then
          local g = target_of(S, f)
          if S.by_name[f.name] > S.by_name[g.name] then
            -- written after its region: known by now
            local what = ({ offset_of = "start", count_of = "count", size_of = "size" })[k]
            local extra = (k == "size_of" and f.derived.extra and f.derived.extra > 0) and (" + " .. f.derived.extra) or ""
            pre:f("%s = s->x->rstat[%d].%s%s; /* from the region written before */", d,
              lower.region_ordinal(S, g) - 1, what, extra)
          else
            pre:f("%s = 0; /* patched when its region is finished */", d)
          end
        elseif k == "count_of" then
          pre:f("%s = (uint64_t)%s->%s;", d, env.obj, C.n_of(target_of(S, f).member))
        elseif k == "size_of" then
          local g = target_of(S, f)
          local senv = setmetatable({ mode = "size", acc = "sz" }, { __index = env })
          pre:f("{")
          pre:nest(function()
            pre:l("uint64_t sz = 0;")
            K.enc_value(pre, g, senv, env.obj .. "->" .. g.member, g.errname)
            pre:f("%s = sz;", d)
          end)
          pre:l("}")
        end
      end
      if f.ty and f.ty.kind == "struct" and not f.ty.named then scan(f.ty) end
    end
  end
  scan(T)
end

-- mode "enc" or "size"; segment: which part of a root with regions (enc only).
function F.encode(ir, T, mode, segment)
  local env = C.new_env(ir, T, mode)
  if mode == "enc" and lower.region_count(T) > 0 then env.segment = segment or 0 end
  local b = buf(1)
  if T.kind == "struct" then K.enc_struct(b, T, env) else K.enc_union(b, T, env, nil) end
  local pre = buf(1)
  if T.kind == "struct" then
    F.derived_values(ir, T, env, pre)
    -- a conditional region just closed: it may hold records only when its condition holds
    if mode == "enc" and env.segment and env.segment > 0 then
      for _, g in ipairs(T.fields) do
        if g.ty and g.ty.kind == "records" and g.when and lower.region_ordinal(T, g) == env.segment and
            lower.enc_evaluable(g.when) then
          pre:t([[
            if (PCD_UNLIKELY(!(${cond}) && s->x->rstat[${k}].count != 0))
                return pcd_sink_fail(s, PCD_E_INVALID, ${path}, ${expected}, PCD_FOUND_UINT, s->x->rstat[${k}].count);
          ]], { cond = cond(g.when, env), k = env.segment - 1, path = cstr(g.errname),
            expected = cstr("no records, since its condition (" .. g.when_src .. ") is false") })
        end
      end
    end
  end
  local body, pre_text = b:text(), pre:text()
  local cases = case_functions(ir, T, mode)
  if mode == "enc" then
    local st = C.state_decl(env)
    return cases .. text.comment(T.tname .. ": writes the fields in schema order; sizes and counts are computed.") ..
        string.format("pcd_status %s_encode(pcd_sink *s, const %s *in)", T.cname, T.cname) ..
        "\n{\n" .. C.decls_text(env) .. st .. C.unused_params(pre_text .. body .. st, { "s", "in" }) ..
        pre_text .. body .. "    return PCD_OK;\n}\n"
  end
  local st = F.state_text(env)
  return cases .. text.comment(T.tname .. ": the number of bytes " .. T.cname .. "_encode writes.") ..
      string.format("uint64_t %s_size(pcd_ctx *x, const %s *in)", T.cname, T.cname) ..
      "\n{\n    uint64_t n = 0;\n" .. C.decls_text(env) .. st .. C.unused_params(pre_text .. body .. st, { "x", "in" }) ..
      pre_text .. body .. "    return n;\n}\n"
end

return F
