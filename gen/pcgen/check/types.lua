-- check/types.lua: a type expression checked and resolved into IR: numbers,
-- varints, magics, byte strings, arrays, references (structs and unions: struct.lua, union.lua).
local expr = require("pcgen.expr")
local names = require("pcgen.names")
local vocab = require("pcgen.vocab")

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt
  local sorted_keys, as_type, int_ctype = cx.sorted_keys, cx.as_type, cx.int_ctype
  local function resolve_expr(...) return cx.resolve_expr(...) end
  local function resolve_type(...) return cx.resolve_type(...) end
  local function resolve_struct(...) return cx.resolve_struct(...) end
  local function resolve_union(...) return cx.resolve_union(...) end
  local function resolve_named(...) return cx.resolve_named(...) end
  local KIND_OPTS, FIELD_OPTS, type_names = cx.KIND_OPTS, cx.FIELD_OPTS, cx.type_names
  local BIT_OPTS = { doc = true, equals = true, min = true, max = true, enum = true, open = true }

  -- The sub-fields of a bits word, lowest first: each a name and a width in bits, with
  -- checks of its own (equals, min, max, enum; an open enum only names values); together
  -- they name every bit of the word.
  local function resolve_bitfields(t, path, w)
    local out, by_name, shift = {}, {}, 0
    if w.signed then diag(path, "bits takes an unsigned integer type (u8, u16, u32, u64)") end
    for i, b in ipairs(t.bitfields) do
      if type(b) ~= "table" or b.kind ~= "field" then
        diag(path .. "[" .. i .. "]", "the entries of bits are field \"name\" (width in bits)")
        goto continue
      end
      do
        local bpath = path .. "." .. tostring(b.name)
        local bad = names.check(b.name, "bit")
        if bad then diag(bpath, bad) end
        if by_name[b.name] then diag(bpath, "duplicate sub-field name '" .. tostring(b.name) .. "'") end
        local width = b.type
        if math.type(width) ~= "integer" or width < 1 or width > 64 then
          diag(bpath, "a sub-field's type is its width in bits, 1 to 64")
          goto continue
        end
        local o = b.opts or {}
        for _, k in ipairs(sorted_keys(o)) do
          if not BIT_OPTS[k] then
            diag(bpath, "unknown option '" .. tostring(k) .. "' for a sub-field (doc, equals, min, max, enum, open)")
          end
        end
        local top = width == 64 and math.maxinteger or ((1 << width) - 1)
        local B = { name = b.name, shift = shift, width = width, doc = o.doc, errname = nil,
          ctype = width <= 8 and "uint8_t" or width <= 16 and "uint16_t" or width <= 32 and "uint32_t" or "uint64_t" }
        for _, key in ipairs({ "equals", "min", "max" }) do
          if o[key] ~= nil then
            if math.type(o[key]) ~= "integer" or o[key] < 0 or (width < 64 and o[key] > top) then
              diag(bpath, key .. " must be an integer that fits in " .. width .. " bits")
            else
              B[key] = o[key]
            end
          end
        end
        if o.enum ~= nil then
          B.enum = cx.enum_items(o.enum, bpath)
          B.enum_name = type(o.enum) == "string" and o.enum or nil
          B.enum_open = o.open == true
        elseif o.open ~= nil then
          diag(bpath, "open applies to an enum")
        end
        B.checked = B.equals ~= nil or B.min ~= nil or B.max ~= nil or (B.enum ~= nil and not B.enum_open)
        if B.checked then w.bits_checked = true end
        by_name[b.name] = B
        out[#out + 1] = B
        shift = shift + width
      end
      ::continue::
    end
    if #out == 0 then diag(path, "bits needs at least one sub-field") end
    if shift ~= w.bits then
      diag(path, "the sub-fields cover " .. shift .. " bits of the " .. w.bits ..
        "-bit word: name every bit (call the unused ones reserved)")
    end
    w.bitfields, w.bitfield_by_name, w.bits_doc = out, by_name, t.doc
  end

  function cx.resolve_type(v, path, scope, ctx)
    local t = as_type(v, path)
    if not t then return nil end
    local allowed = KIND_OPTS[t.kind]
    if not allowed then diag(path, "unknown type kind '" .. tostring(t.kind) .. "'") return nil end
    for _, k in ipairs(sorted_keys(t)) do
      if not allowed[k] and not FIELD_OPTS[k] then
        local all = {}
        for a in pairs(allowed) do all[#all + 1] = a end
        for a in pairs(FIELD_OPTS) do all[#all + 1] = a end
        table.sort(all)
        local near = names.near(tostring(k), all)
        diag(path, "unknown option '" .. tostring(k) .. "' for " .. t.kind
          .. (near and (" (did you mean '" .. near .. "'?)") or ""))
      end
    end
    local k = t.kind
    if k == "int" then
      local e = t.endian or (t.bits == 8 and "le") or ir.endian
      e = ({ big = "be", little = "le" })[e] or e
      if t.byte_order then e = "native" end -- written in the writer's own order
      local r = { kind = "int", bits = t.bits, signed = t.signed, endian = e,
        ctype = int_ctype(t.bits, t.signed), wire = t.bits // 8, byte_order = t.byte_order }
      if t.bitfields then resolve_bitfields(t, path, r) end
      return r
    elseif k == "float" then
      local e = t.endian or ir.endian
      e = ({ big = "be", little = "le" })[e] or e
      return { kind = "float", bits = t.bits, endian = e,
        ctype = t.bits == 32 and "float" or "double", wire = t.bits // 8 }
    elseif k == "varint" then
      local bits = t.bits or ((t.enc == "zigzag32") and 32 or 64)
      local ct
      if t.enc == "uleb128" then ct = bits == 32 and "uint32_t" or "uint64_t"
      elseif t.enc == "sleb128" or t.enc == "zigzag64" then ct = "int64_t"
      elseif t.enc == "zigzag32" then ct = "int32_t"
      else ct = "pcd_mojo_int" end
      if t.enc == "uleb128" and bits ~= 32 and bits ~= 64 then diag(path, "uleb128 bits must be 32 or 64") end
      if t.wrap ~= nil and (t.enc ~= "uleb128" or bits ~= 64 or t.wrap ~= true) then
        diag(path, "wrap = true applies to 64-bit uleb128 only")
      end
      return { kind = "varint", enc = t.enc, bits = bits, ctype = ct, wrap = t.wrap }
    elseif k == "magic" then
      if type(t.bytes) ~= "string" or #t.bytes == 0 then diag(path, "magic needs bytes") return nil end
      return { kind = "magic", bytes = t.bytes, wire = #t.bytes }
    elseif k == "bytes" then
      local b = { kind = "bytes", text = t.text, ctype = "pcd_bytes", max = t.max_len }
      local modes = 0
      if t.cstring then b.mode = "cstring"; modes = modes + 1 end
      if t.len then
        local lt = as_type(t.len, path .. ".len")
        if lt and lt.kind ~= "int" and lt.kind ~= "varint" then
          diag(path, "len must be an integer type (the length prefix)")
        elseif lt then
          b.mode = "prefix"
          b.prefix = resolve_type(lt, path .. ".len", scope, ctx)
        end
        modes = modes + 1
      end
      if t.size ~= nil then
        b.mode = "expr"
        b.size = resolve_expr(t.size, path, scope, "size")
        b.size_const = b.size and expr.const(b.size)
        modes = modes + 1
      end
      if t.fixed ~= nil then
        if math.type(t.fixed) ~= "integer" or t.fixed <= 0 then diag(path, "fixed must be a positive integer") end
        b.mode = "fixed"
        b.fixed = t.fixed
        b.padded = t.padded
        b.wire = t.fixed
        modes = modes + 1
      end
      if t.rest then
        b.mode = "rest"
        modes = modes + 1
        if not ctx.sized then
          diag(path, "rest = true needs a bounded place: after a total_size field, or in a field a size_of measures")
        end
      end
      if ctx.sized_by and b.mode == "cstring" and modes == 1 then
        -- a NUL-terminated string that fills its size exactly (the NUL is counted)
        b.sized_cstring = true
      elseif ctx.sized_by then
        if modes > 0 then diag(path, "a field sized by another (size_of) needs no length of its own") end
        b.mode = "sized"
        modes = 1
      end
      if modes == 0 then
        diag(path, "a string or bytes field needs one of: len = <type>, size = \"expr\", fixed = N, rest = true, or cstring")
      elseif modes > 1 then
        diag(path, "a string or bytes field takes only one of len, size, fixed, rest, cstring")
      end
      if t.padded and not t.fixed then diag(path, "fixed_string needs fixed = N") end
      return b
    elseif k == "struct" then
      return resolve_struct(t, path, scope, ctx)
    elseif k == "union" then
      return resolve_union(t, path, scope, ctx)
    elseif k == "array" then
      local a = { kind = "array", max = t.max_count }
      local modes = 0
      if t.count ~= nil then
        modes = modes + 1
        if type(t.count) == "string" or math.type(t.count) == "integer" then
          a.mode = "expr"
          a.count = resolve_expr(t.count, path, scope, "count")
        else
          local ct = as_type(t.count, path .. ".count")
          if ct and ct.kind ~= "int" and ct.kind ~= "varint" then
            diag(path, "count must be an integer type (a count prefix) or an expression")
          elseif ct then
            a.mode = "prefix"
            a.prefix = resolve_type(ct, path .. ".count", scope, ctx)
          end
        end
      end
      if t.until_end then
        a.mode = "until_end"
        modes = modes + 1
        if not ctx.sized then
          diag(path, "until_end needs a bounded place: after a total_size field, or in a field a size_of measures")
        end
      end
      if ctx.counted_by then a.mode = "counted"; modes = modes + 1 end
      if ctx.sized_by then
        if a.mode == nil then a.mode = "until_end"; modes = modes + 1 end
      end
      if t["until"] ~= nil then a.mode = "until"; a.until_src = t["until"]; modes = modes + 1 end
      if t.until_next ~= nil then
        if type(t.until_next) ~= "string" or #t.until_next == 0 then
          diag(path, "until_next takes the bytes that follow the last element (a string)")
        end
        a.mode = "until_next"
        a.terminator = t.until_next
        modes = modes + 1
      end
      if modes == 0 then diag(path, "an array needs count = <type or expr>, until_end = true, until = \"expr\" or until_next = \"bytes\"") end
      if modes > 1 then diag(path, "an array takes only one of count, until_end, until, until_next") end
      if t.count_only ~= nil then
        -- a consumer may ask for the count alone (pcd_ctx.count_only): a name its bit goes by
        if type(t.count_only) ~= "string" or not t.count_only:match("^[a-z][a-z0-9_]*$") then
          diag(path, "count_only takes a name (a lowercase identifier) for the bit a consumer sets")
        elseif a.mode ~= "prefix" and a.mode ~= "expr" and a.mode ~= "counted" then
          diag(path, "count_only applies to an array with a count (count = ..., or a count_of field)")
        else
          a.count_only = t.count_only
        end
      end
      if t.of == nil then diag(path, "an array needs of = <type>") return nil end
      local et = as_type(t.of, path .. ".of")
      if t.in_place ~= nil then
        -- decoding may hand out the wire bytes themselves as the elements (no copy) where the
        -- host's order and the element's alignment allow it; the consumer only reads them
        if t.in_place ~= true then
          diag(path, "in_place takes true")
        elseif not et or et.kind ~= "int" or t.count_only ~= nil or et.byte_order
            or (et.endian ~= nil and et.endian ~= "le") then
          diag(path, "in_place applies to an array of little-endian integers (without count_only)")
        else
          a.in_place = true
        end
      end
      if et and (et.kind == "struct" or et.kind == "union") then
        -- anonymous element types become named types of their own
        local nm = ctx.lift_name
        et = { kind = "ref", name = nm, inline = et }
      end
      a.of = et and resolve_type(et, path .. "[]", scope, { lift_name = ctx.lift_name })
      if a.of and a.of.bits_checked then
        diag(path, "array elements are not checked one by one: a bits word whose sub-fields have checks cannot be an element")
      end
      -- stream transforms on each scalar element: delta, base, shift
      if vocab.is_type(et) and (et.delta ~= nil or et.base ~= nil or et.shift ~= nil) then
        local epath = path .. "[]"
        if a.of and a.of.kind ~= "int" and a.of.kind ~= "varint" then
          diag(epath, "delta, base and shift apply to integer elements only")
        elseif a.of then
          local X = {}
          if et.delta ~= nil then
            local stv = scope.state and scope.state.vars[et.delta]
            if not stv then
              diag(epath, "delta names '" .. tostring(et.delta) .. "', which is not a state variable of the enclosing records region")
            else
              X.delta = stv
            end
          end
          if et.base ~= nil then X.base = resolve_expr(et.base, epath, scope, "base") end
          if et.shift ~= nil then
            if math.type(et.shift) ~= "integer" or et.shift < 0 or et.shift > 16 then diag(epath, "shift must be 0..16") end
            X.shift = et.shift
            if et.base == nil and et.delta == nil then diag(epath, "shift needs base or delta") end
          end
          a.elem = X
        end
      end
      if a.of and a.of.kind == "bytes" and a.of.mode == "rest" then
        diag(path, "array elements cannot be rest-of-data strings")
      end
      if a.mode == "until" and a.of then
        if a.of.kind ~= "struct" then
          diag(path, "until = \"expr\" needs struct elements (the expression reads the element's fields)")
        else
          local fr = { fields = {}, up = nil }
          for _, f in ipairs(a.of.fields) do fr.fields[f.name] = f end
          a["until"] = resolve_expr(a.until_src, path, { frames = fr, state = scope.state,
            root_refs = scope.root_refs }, "until")
        end
      end
      return a
    elseif k == "ref" then
      if type(t.name) ~= "string" then diag(path, "ref needs a type name") return nil end
      if t.inline then
        if fmt.types[t.name] then diag(path, "the lifted element type name '" .. t.name .. "' is taken") end
        return resolve_named(t.name, path, t.inline, scope.state)
      end
      if not fmt.types[t.name] then
        local near = names.near(t.name, type_names)
        diag(path, "unknown type '" .. t.name .. "'" .. (near and (" (did you mean '" .. near .. "'?)") or ""))
        return nil
      end
      return resolve_named(t.name, path, nil, scope.state)
    elseif k == "records" then
      return { kind = "records", src = t }
    elseif k == "message" then
      return cx.resolve_message(t, path, scope, ctx)
    elseif k == "pb" or k == "repeated" then
      diag(path, (k == "pb" and t.pbt or "repeated") .. " is a protobuf type: it belongs in a message's fields")
      return nil
    end
  end
end
