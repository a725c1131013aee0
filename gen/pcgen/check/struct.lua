-- check/struct.lua: a struct checked and resolved field by field: options,
-- checks, derived sizes and counts, deltas, placement, conditions, and its records regions.
local names = require("pcgen.names")
local vocab = require("pcgen.vocab")

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt
  local sorted_keys, as_type, int_ctype = cx.sorted_keys, cx.as_type, cx.int_ctype
  local function resolve_expr(...) return cx.resolve_expr(...) end
  local function resolve_type(...) return cx.resolve_type(...) end
  local function resolve_named(...) return cx.resolve_named(...) end
  local region_of, enum_items = cx.region_of, cx.enum_items
  local function field_err(path, f, msg) diag(path .. "." .. (f.name or "?"), msg) end

  function cx.resolve_struct(t, path, scope, ctx)
    local st = { kind = "struct", fields = {}, doc = t.doc, by_name = {} }
    local frame = { fields = {}, up = scope.frames, all = {} }
    for _, f in ipairs(t.fields or {}) do
      if type(f) == "table" and type(f.name) == "string" then frame.all[f.name] = true end
    end
    local inner = { frames = frame, state = scope.state, root_refs = scope.root_refs }
    -- pass 1: names and size_of/count_of targets
    local targets = {}
    local offset_targets = {}
    for i, f in ipairs(t.fields) do
      if type(f) ~= "table" or f.kind ~= "field" then
        diag(path .. "[" .. i .. "]", "struct entries must be field \"name\" (type)")
        goto continue
      end
      local bad = names.check(f.name)
      if bad then field_err(path, f, bad) end
      if f.number ~= nil then field_err(path, f, "field numbers belong in a message's fields, not a struct's") end
      if st.by_name[f.name] then field_err(path, f, "duplicate field name '" .. tostring(f.name) .. "'") end
      st.by_name[f.name] = i
      local ty = as_type(f.type, path .. "." .. tostring(f.name))
      local o = {}
      if ty then for k, v in pairs(ty) do o[k] = v end end
      if f.opts then for k, v in pairs(f.opts) do o[k] = v end end
      f._o = o
      if o.offset_of then
        offset_targets[#offset_targets + 1] = { target = o.offset_of, by = f }
      end
      if o.size_of then targets[o.size_of] = { kind = "size_of", by = f } end
      if o.count_of then targets[o.count_of] = { kind = "count_of", by = f } end
      f._referenced_by_target = (o.size_of or o.count_of or o.total_size) and true or nil
      ::continue::
    end
    for tgt, d in pairs(targets) do
      if not st.by_name[tgt] then
        field_err(path, d.by, d.kind .. " names '" .. tostring(tgt) .. "', which is not a field of this struct")
      elseif st.by_name[tgt] < st.by_name[d.by.name] then
        local tf = t.fields[st.by_name[tgt]]
        local is_records = vocab.is_type(tf.type) and tf.type.kind == "records"
        if not is_records then
          field_err(path, d.by, d.kind .. " must come before the field it describes ('" .. tgt .. "')")
        end
      end
    end
    local after_records = nil
    for _, f in ipairs(t.fields) do
      if type(f) ~= "table" or f.kind ~= "field" or not f._o then goto continue end
      local o = f._o
      local fpath = path .. "." .. f.name
      local positioned = o.at ~= nil or o.at_end ~= nil or
          (vocab.is_type(f.type) and f.type.kind == "records" and f.type.at ~= nil)
      if after_records and not positioned then
        diag(fpath, "after a records region ('" .. after_records .. "') only fields placed with at or at_end may follow")
      end
      local F = { name = f.name, doc = o.doc, unit = o.unit, hex = o.hex,
        referenced = f._referenced_by_target }
      cx.ref_opts(F, o, fpath, f.type)
      local tg = targets[f.name]
      local subctx = { lift_name = (ctx.lift_base or "") .. f.name,
        sized = ctx.sized or st.after_total or (tg and tg.kind == "size_of"), in_case = ctx.in_case }
      if tg and tg.kind == "size_of" then subctx.sized_by = true; F.sized_by = tg.by end
      if tg and tg.kind == "count_of" then subctx.counted_by = true; F.counted_by = tg.by end
      F.ty = resolve_type(f.type, fpath, inner, subctx)
      local is_region = F.ty and F.ty.kind == "records"
      if o.when ~= nil then
        F.when_src = tostring(o.when)
        -- a region's condition may read any field of the struct (regions are placed last)
        if is_region then F.when_pending = o.when
        else F.when = resolve_expr(o.when, fpath, inner, "when") end
      end
      local ty = F.ty
      if ty then
        local scalar = ty.kind == "int" or ty.kind == "varint" or ty.kind == "float"
        for _, key in ipairs { "equals", "min", "max", "absent" } do
          if o[key] ~= nil then
            if not scalar then
              diag(fpath, key .. " applies to numbers only")
            elseif (key == "min" or key == "max") and type(o[key]) == "string" then
              -- a bound computed from fields read before (or the input's size)
              F[key .. "_expr"] = resolve_expr(o[key], fpath, inner, key)
              F[key .. "_src"] = o[key]
            elseif math.type(o[key]) ~= "integer" then
              diag(fpath, key .. " must be an integer" .. ((key == "min" or key == "max") and " or an expression" or ""))
            else
              F[key] = o[key]
            end
          end
        end
        if o.check ~= nil then
          if ty.kind ~= "int" and ty.kind ~= "varint" then diag(fpath, "check applies to integers only") end
          if type(o.check) ~= "string" then diag(fpath, "check must be an expression (a string)")
          else F.check_src = o.check end
          if o.expect ~= nil and type(o.expect) ~= "string" then diag(fpath, "expect must be a text") end
          F.expect = o.expect
        elseif o.expect ~= nil then
          diag(fpath, "expect describes a check; this field has none")
        end
        if o.optional then
          if ty.kind ~= "magic" or (o.at == nil and o.at_end == nil) then
            diag(fpath, "optional applies to a magic placed with at or at_end (present when its bytes match)")
          end
          F.optional = true
        end
        if o.absent ~= nil and ty.kind == "varint" and ty.enc == "mojo" then
          diag(fpath, "absent does not apply to mojo_varint (sign and magnitude)")
        end
        F.magic = o.magic
        if o.enum ~= nil then
          if ty.kind ~= "int" and ty.kind ~= "varint" then diag(fpath, "enum applies to integers only")
          elseif ty.enc == "mojo" then diag(fpath, "enum does not apply to mojo_varint (sign and magnitude); use equals, min and max")
          else
            F.enum = enum_items(o.enum, fpath)
            F.enum_open = o.open
            F.enum_name = type(o.enum) == "string" and o.enum or nil -- a named enum (its table is shared)
          end
        end
        if o.total_size then
          if ty.kind ~= "int" then diag(fpath, "total_size needs a fixed-width integer") end
          if not ctx.named_top then diag(fpath, "total_size is allowed in a named type's own fields only") end
          F.derived = { kind = "total_size" }
          st.after_total = true
        end
        if o.size_of then
          if ty.kind ~= "int" and ty.kind ~= "varint" then diag(fpath, "size_of needs an integer") end
          F.derived = { kind = "size_of", target = o.size_of }
        end
        if o.count_of then
          if ty.kind ~= "int" and ty.kind ~= "varint" then diag(fpath, "count_of needs an integer") end
          F.derived = { kind = "count_of", target = o.count_of }
        end
        if (o.size_of and 1 or 0) + (o.count_of and 1 or 0) + (o.total_size and 1 or 0) > 1 then
          diag(fpath, "a field can be only one of total_size, size_of, count_of")
        end
        if o.size_extra ~= nil then
          if not o.size_of then diag(fpath, "size_extra goes with size_of")
          elseif math.type(o.size_extra) ~= "integer" or o.size_extra < 0 then diag(fpath, "size_extra must be a byte count")
          else F.derived.extra = o.size_extra end
        end
        if F.derived and F.when then
          -- allowed after its region: the encoder knows the value when it writes the field
          local ti = F.derived.target and st.by_name[F.derived.target]
          local tf = ti and t.fields[ti]
          local after_region = ti and ti < st.by_name[f.name] and vocab.is_type(tf.type) and tf.type.kind == "records"
          if not after_region then diag(fpath, "a derived field (size/count) cannot be conditional, unless it follows its region") end
        end
        if o.delta ~= nil then
          if ty.kind ~= "int" and ty.kind ~= "varint" then diag(fpath, "delta applies to integers only") end
          local stv = scope.state and scope.state.vars[o.delta]
          if not stv then diag(fpath, "delta names '" .. tostring(o.delta) .. "', which is not a state variable of the enclosing records region")
          else F.delta = stv end
        end
        if o.reset ~= nil then
          -- running values that start again at 0 where this field starts (offsets relative
          -- to the previous one within one record's array, say)
          local list = type(o.reset) == "table" and o.reset or { o.reset }
          F.reset = {}
          for _, nm in ipairs(list) do
            local stv = scope.state and scope.state.vars[nm]
            if not stv then
              diag(fpath, "reset names '" .. tostring(nm) .. "', which is not a state variable of the enclosing records region")
            else
              F.reset[#F.reset + 1] = stv
            end
          end
        end
        if o.base ~= nil then
          F.base = resolve_expr(o.base, fpath, inner, "base")
        end
        if o.delta_of ~= nil or o.value ~= nil or o.none ~= nil then
          -- stored relative to a sibling read before: value = sibling + this field
          local base = type(o.delta_of) == "string" and frame.fields[o.delta_of]
          if o.delta_of == nil then
            diag(fpath, "value and none go with delta_of (the field this one is relative to)")
          elseif not base then
            diag(fpath, "delta_of names '" .. tostring(o.delta_of) .. "', which is not a field of this struct read before it")
          elseif not base.ty or (base.ty.kind ~= "int" and base.ty.kind ~= "varint") or
              (base.ty.kind == "varint" and base.ty.enc == "mojo") then
            diag(fpath, "delta_of names '" .. o.delta_of .. "', which is not an integer field (other than a mojo_varint)")
          end
          if ty.kind ~= "int" and ty.kind ~= "varint" or ty.enc == "mojo" then
            diag(fpath, "delta_of applies to integer fields (not mojo_varint)")
          end
          if o.delta_of ~= nil and type(o.value) ~= "string" then
            diag(fpath, "delta_of needs value = \"name\", the name of what this field and '" .. tostring(o.delta_of) .. "' add up to")
          elseif o.value ~= nil then
            local bad = names.check(o.value)
            if bad then diag(fpath, "value: " .. bad) end
            if frame.all[o.value] then diag(fpath, "value '" .. o.value .. "' is the name of a field of this struct") end
          end
          if o.none ~= nil and math.type(o.none) ~= "integer" then diag(fpath, "none must be an integer") end
          if F.delta or F.base or F.derived then diag(fpath, "a field relative to a sibling is stored as it is (no delta, base or size)") end
          if base and type(o.value) == "string" then F.rel = { base = base, value = o.value, none = o.none } end
        end
        if o.shift ~= nil then
          if math.type(o.shift) ~= "integer" or o.shift < 0 or o.shift > 16 then diag(fpath, "shift must be 0..16") end
          F.shift = o.shift
          if not F.base and not F.delta then diag(fpath, "shift needs base or delta") end
        end
        if (F.delta or F.base) and F.derived then diag(fpath, "a derived field cannot be a delta") end
        if ty.kind == "records" then
          if not (vocab.is_type(f.type) and f.type.at ~= nil) then after_records = f.name end
          F.records = true
        end
        if o.at ~= nil and o.at_end ~= nil then diag(fpath, "a field takes at or at_end, not both") end
        if o.at ~= nil and ty.kind ~= "records" then
          F.at = resolve_expr(o.at, fpath, inner, "at", true)
          ir.whole = true
        end
        if o.at_end ~= nil then
          if math.type(o.at_end) ~= "integer" or o.at_end <= 0 then diag(fpath, "at_end must be a positive byte count") end
          if ty.kind == "records" then diag(fpath, "records take at = \"expr\", not at_end") end
          F.at_end = o.at_end
          ir.whole = true
        end
        if o.offset_of then
          if ty.kind ~= "int" then diag(fpath, "offset_of needs a fixed-width integer") end
          F.derived = { kind = "offset_of", target = o.offset_of }
        end
        if o.relocate then
          if ty.kind ~= "int" or ty.signed or ty.bits < 32 then
            diag(fpath, "relocate needs an unsigned fixed-width integer of 32 or 64 bits (a file offset)")
          end
          if F.derived or o.delta ~= nil or o.base ~= nil then diag(fpath, "relocate is for offsets stored as they are") end
          F.relocate = true
          ir.relocates = true
        end
        if o.file_size then
          if ty.kind ~= "int" then diag(fpath, "file_size needs a fixed-width integer") end
          if not ctx.named_top then diag(fpath, "file_size is allowed in the root type's own fields only") end
          F.derived = { kind = "file_size" }
        end
        if ty.kind == "magic" and not F.optional then F.hidden = true end
        if F.magic then F.hidden = true end
      end
      F.path_prefix = ctx.path_prefix
      st.fields[#st.fields + 1] = F
      frame.fields[f.name] = F
      -- a check may read the field itself
      if F.check_src then F.check = resolve_expr(F.check_src, fpath, inner, "check") end
      -- warnings: what the real reader accepts but is worth a word (may read the field itself)
      if f._o and f._o.warn ~= nil then
        local w = f._o.warn
        local list = (type(w) == "table" and type(w[1]) == "table") and w or { w }
        F.warns = {}
        for i, item in ipairs(list) do
          local wpath = fpath .. ".warn" .. (#list > 1 and ("[" .. i .. "]") or "")
          if type(item) ~= "table" or type(item[1]) ~= "string" or type(item[2]) ~= "string" or #item ~= 2 then
            diag(wpath, "warn takes { \"condition\", \"what is expected\" }, or a list of them (the first that fails is reported)")
          else
            -- a warning reads the decoded record, not the decoder's locals: what it names is
            -- no reason for a validator to load a value
            local before = {}
            local fr0 = inner.frames
            while fr0 do
              for _, fr in pairs(fr0.fields) do before[fr] = fr.referenced or false end
              fr0 = fr0.up
            end
            local ast = resolve_expr(item[1], wpath, inner, "warn")
            local function unmark(n)
              if not n then return end
              if n.k == "id" and n.ref and n.ref.field and before[n.ref.field] == false then n.ref.field.referenced = nil end
              unmark(n.a)
              unmark(n.b)
            end
            unmark(ast)
            local ok = ast ~= nil
            local function walk(n)
              if not n then return end
              if n.k == "id" and n.ref and (n.ref.state or n.ref.root or n.ref.version) then
                diag(wpath, "warn reads the record's own fields (and input_size), not '" .. n.v .. "'")
                ok = false
              end
              walk(n.a)
              walk(n.b)
            end
            walk(ast)
            if ok then F.warns[#F.warns + 1] = { ast = ast, src = item[1], text = item[2] } end
          end
        end
        if ctx.in_case then
          diag(fpath, "warn applies to the fields of a named type and of its inline structs, not to a union's cases")
        elseif F.ty and F.ty.kind == "records" then
          diag(fpath, "warn applies to values, not to records regions")
        end
        cx.warned[#cx.warned + 1] = { field = F, path = fpath, type = ir.cur_type }
      end
      ::continue::
    end
    for _, ot in ipairs(offset_targets) do
      local g = frame.fields[ot.target]
      if not g or not g.ty or g.ty.kind ~= "records" then
        field_err(path, ot.by, "offset_of names '" .. tostring(ot.target) .. "', which is not a records region of this struct")
      end
    end
    -- size_of / count_of point at the IR fields, not the schema's
    for _, F in ipairs(st.fields) do
      if F.sized_by then F.sized_by = frame.fields[F.sized_by.name] end
      if F.counted_by then F.counted_by = frame.fields[F.counted_by.name] end
    end
    -- records regions: resolve their record type and state now that fields are known
    for _, F in ipairs(st.fields) do
      if F.ty and F.ty.kind == "records" then
        local t2 = F.ty.src
        local R = { kind = "records", field = F, name = F.name }
        F.ty = R
        local fpath = path .. "." .. F.name
        -- state variables, initialised from this struct's fields
        local state = { vars = {}, order = {}, region = R }
        if t2.state ~= nil then
          if type(t2.state) ~= "table" then diag(fpath, "state must be a table { name = u64 { init = \"expr\" } }") end
          for _, vn in ipairs(sorted_keys(t2.state or {})) do
            local vt = as_type(t2.state[vn], fpath .. ".state." .. tostring(vn))
            local bad = names.check(tostring(vn))
            if bad then diag(fpath .. ".state", bad) end
            if vt and vt.kind ~= "int" then diag(fpath .. ".state." .. vn, "state variables are fixed-width integers") end
            if vt then
              local V = { name = vn, ctype = int_ctype(vt.bits, vt.signed), region = R }
              if vt.init ~= nil then V.init = resolve_expr(vt.init, fpath .. ".state." .. vn, inner, "init") end
              state.vars[vn] = V
              state.order[#state.order + 1] = V
            end
          end
        end
        R.state = state
        if F.when_pending ~= nil then
          F.when = resolve_expr(F.when_pending, fpath, inner, "when")
          F.when_pending = nil
        end
        if F.sized_by then R.sized = true end
        if t2.compression ~= nil then
          R.compression = resolve_expr(t2.compression, fpath, inner, "compression")
          ir.whole = true
        end
        if t2.at ~= nil then
          R.at = resolve_expr(t2.at, fpath, inner, "at", true)
          ir.whole = true
        end
        if t2.size ~= nil then
          if F.sized_by then diag(fpath, "a region sized by a size_of field takes no size") end
          R.size_expr = resolve_expr(t2.size, fpath, inner, "size", true)
          R.sized = true
        end
        if t2.count ~= nil then
          R.count_expr = resolve_expr(t2.count, fpath, inner, "count", true)
        end
        if F.counted_by then R.counted_by = F.counted_by end
        if t2.zstd_frame ~= nil then
          if t2.zstd_frame ~= true then diag(fpath, "zstd_frame takes true") end
          if t2.compression ~= nil or R.sized or R.count_expr or F.counted_by or t2.at ~= nil then
            diag(fpath, "a zstd_frame region ends where its frame ends: it takes no compression, size, count or at")
          end
          R.zstd_frame = true
          ir.whole = true
        end
        if t2.batch ~= nil then
          if math.type(t2.batch) ~= "integer" or t2.batch < 1 or t2.batch > (1 << 24) then
            diag(fpath, "batch must be a number of elements, 1..16777216")
          else
            R.batch = t2.batch
          end
        end
        if t2.of == nil then diag(fpath, "records needs of = \"type\"") else
          local rt = as_type(t2.of, fpath .. ".of")
          if rt and rt.kind ~= "ref" then diag(fpath, "records of = must name a type") rt = nil end
          if rt then
            if not fmt.types[rt.name] then diag(fpath, "unknown type '" .. rt.name .. "'")
            else
              if region_of[rt.name] then diag(fpath, "type '" .. rt.name .. "' is already the record type of region '" .. region_of[rt.name].name .. "'") end
              region_of[rt.name] = R
              R.record = resolve_named(rt.name, fpath, nil, state, t2.batch ~= nil and { sized = true } or nil)
              if t2.by_field ~= nil then
                if t2.by_field ~= true then diag(fpath, "by_field takes true") end
                R.record = cx.message_fields(R.record, rt.name, fpath)
                R.by_field = true
              elseif R.record and R.record.kind == "message" then
                diag(fpath, "a message has no length of its own: records of a message take by_field = true " ..
                  "(each record one of its fields)")
              end
            end
          end
        end
        if R.batch and R.record then
          -- a batch is a run of fixed-width elements: the record is one until_end array of them
          local S = R.record
          local a = S.kind == "struct" and #S.fields == 1 and S.fields[1].ty
          local e = a and a.kind == "array" and a.mode == "until_end" and a.of
          if not (e and (e.kind == "int" or e.kind == "float")) then
            diag(fpath, "batch needs a record type whose only field is an until_end array of fixed-width numbers")
          else
            R.batch_bytes = R.batch * e.wire
          end
        end
        R.recover = t2.recover
        if t2.zstd_level ~= nil then
          if math.type(t2.zstd_level) ~= "integer" or t2.zstd_level < 1 or t2.zstd_level > 22 then
            diag(fpath, "zstd_level must be 1..22")
          end
          R.zstd_level = t2.zstd_level
        end
        ir.regions[#ir.regions + 1] = R
      end
    end
    -- metadata = { key = "k", value = "v" }: the record is a key-value pair of the file's
    -- metadata (readers gather the pairs that follow the header: Python's reader.metadata)
    if t.metadata ~= nil then
      local m = t.metadata
      if type(m) ~= "table" or type(m.key) ~= "string" or type(m.value) ~= "string" then
        diag(path, "metadata takes { key = \"FIELD\", value = \"FIELD\" }: the fields that hold a pair's key and value")
      else
        for _, role in ipairs { "key", "value" } do
          local F = frame.fields[m[role]]
          if not F then
            diag(path, "metadata's " .. role .. " names '" .. m[role] .. "', which is not a field of this struct")
          elseif not (F.ty and F.ty.kind == "bytes" and F.ty.text) then
            diag(path, "metadata's " .. role .. " '" .. m[role] .. "' must be a text field (cstring, a string)")
          end
        end
        for k in pairs(m) do
          if k ~= "key" and k ~= "value" then diag(path, "unknown option '" .. tostring(k) .. "' for metadata (key, value)") end
        end
        st.metadata = { key = m.key, value = m.value }
      end
    end
    return st
  end
end
