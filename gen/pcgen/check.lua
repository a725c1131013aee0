-- check.lua: validates a loaded schema and resolves it into the IR that lower and emit use.
-- Every problem becomes a diagnostic { path = "types.event.size", msg = "..." }; the
-- checker never stops at the first one.
local expr = require("pcgen.expr")
local names = require("pcgen.names")
local vocab = require("pcgen.vocab")

local check = {}

local FIELD_OPTS = {
  doc = true, when = true, equals = true, min = true, max = true, enum = true, open = true,
  absent = true, unit = true, hex = true, size_of = true, count_of = true, total_size = true,
  delta = true, base = true, shift = true, magic = true, _refined = true, init = true,
  at = true, at_end = true, offset_of = true, file_size = true, check = true, expect = true,
  optional = true, size_extra = true, relocate = true, reset = true,
}
local KIND_OPTS = {
  int = { kind = 1, bits = 1, signed = 1, endian = 1, byte_order = 1 },
  float = { kind = 1, bits = 1, endian = 1 },
  varint = { kind = 1, enc = 1, bits = 1, wrap = 1 },
  magic = { kind = 1, bytes = 1 },
  bytes = { kind = 1, text = 1, cstring = 1, padded = 1, len = 1, size = 1, rest = 1, max_len = 1, fixed = 1 },
  struct = { kind = 1, fields = 1, name = 1 },
  union = { kind = 1, cases = 1, on = 1, tag = 1, peek = 1, tag_key = 1 },
  array = { kind = 1, of = 1, count = 1, until_end = 1, ["until"] = 1, max_count = 1, until_next = 1 },
  ref = { kind = 1, name = 1, inline = 1 },
  records = { kind = 1, of = 1, compression = 1, state = 1, recover = 1, size = 1, zstd_level = 1,
    count = 1, zstd_frame = 1, batch = 1 },
}

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == "number"
  end)
  return ks
end

function check.schema(fmt, schema_path)
  local diags = {}
  local function diag(path, msg) diags[#diags + 1] = { path = path, msg = msg } end

  local ir = {
    name = fmt.name, version = fmt.version, title = fmt.title or fmt.name, doc = fmt.doc or "",
    endian = fmt.endian or "little", schema_path = schema_path, types = {}, order = {},
    regions = {}, enums = {}, version_num = fmt.version_num, scalars = {},
  }
  if type(fmt.name) ~= "string" or not fmt.name:match("^[a-z][a-z0-9_]*$") then
    diag("format", "the format name must be a lowercase identifier")
    return nil, diags
  end
  if fmt.version == nil then diag("format", "missing version") return nil, diags end
  ir.vid = names.version_id(fmt.version)
  ir.prefix = "pcd_" .. fmt.name .. "_" .. ir.vid
  ir.PREFIX = names.upper(ir.prefix)
  if ir.version_num == nil then
    ir.version_num = math.tointeger(tonumber(fmt.version)) or 0
  end
  if ir.endian ~= "big" and ir.endian ~= "little" and ir.endian ~= "native" then
    diag("format.endian", "endian must be \"big\", \"little\" or \"native\"")
  end
  for _, k in ipairs(sorted_keys(fmt)) do
    if not ({ kind = 1, name = 1, version = 1, version_num = 1, title = 1, doc = 1, endian = 1,
        types = 1, root = 1, enums = 1, detect = 1 })[k] then
      diag("format." .. tostring(k), "unknown format key '" .. tostring(k) .. "'")
    end
  end
  if type(fmt.types) ~= "table" then
    diag("format.types", "missing types table")
    return nil, diags
  end

  -- named enums
  local named_enums = fmt.enums or {}
  local function enum_items(e, path)
    if type(e) == "string" then
      if not named_enums[e] then diag(path, "unknown enum '" .. e .. "'") return nil end
      e = named_enums[e]
    end
    if type(e) ~= "table" then diag(path, "enum must be a table { [value] = \"name\" }") return nil end
    local items, seen = {}, {}
    for _, v in ipairs(sorted_keys(e)) do
      local n = e[v]
      if math.type(v) ~= "integer" or type(n) ~= "string" then
        diag(path, "enum entries must be [integer] = \"name\"")
      elseif seen[n] then
        diag(path, "enum name '" .. n .. "' is used twice")
      else
        seen[n] = true
        items[#items + 1] = { value = v, name = n }
      end
    end
    return items
  end

  local type_names = sorted_keys(fmt.types)
  local root_name = fmt.root or "file"
  if not fmt.types[root_name] then
    diag("format.root", "no type named '" .. root_name .. "' (the whole file)")
    return nil, diags
  end

  local resolving = {}   -- named types under construction (for cycles)
  local region_of = {}   -- named type -> records field whose records it is
  local resolve_named

  -- Resolves a type expression into IR. scope: chain of frames for expressions.
  local resolve_type, resolve_struct, resolve_union

  -- input_ok: the expression places or bounds data when reading (a region's size, at or
  -- count, a field's at), so it may use input_size, the size of the whole input
  local function resolve_expr(src, path, scope, what, input_ok)
    local ast, err = expr.parse(src)
    if not ast then diag(path, "bad expression in " .. what .. ": " .. err) return nil end
    local ok = true
    local function walk(n)
      if not n then return end
      if n.k == "id" then
        local id = n.v
        if id == "version" then
          n.ref = { version = true }
        elseif id == "input_size" then
          -- the size of the whole input, known when reading: in the root type's fields, and
          -- in expressions that place or bound data (a region's size, at or count, a field's at)
          if input_ok or ir.cur_type == root_name then
            n.ref = { input_size = true }
            ir.whole = true
          else
            diag(path, "input_size (the size of the whole input) is known only when reading: use it in the root type's fields, a records region's size, at or count, or a field's at")
            ok = false
          end
        elseif id:match("^state%.") then
          local var = id:sub(7)
          local st = scope.state
          if not st or not st.vars[var] then
            diag(path, "unknown state variable '" .. var .. "' in " .. what)
            ok = false
          else
            n.ref = { state = st.vars[var], region = st.region }
          end
        elseif id:match("^root%.") then
          n.ref = { root = id:sub(6) }
          scope.root_refs[#scope.root_refs + 1] = { ast = n, path = path }
        else
          local f
          local fr = scope.frames
          local head, rest = id:match("^([%a_][%w_]*)%.(.+)$")
          while fr and not f do
            f = fr.fields[head or id]
            fr = fr.up
          end
          -- footer.count: a field of an inline struct read earlier
          while f and rest do
            local seg
            seg, rest = rest:match("^([%a_][%w_]*)%.?(.*)$")
            if rest == "" then rest = nil end
            local sty = f.ty
            if not (sty and sty.kind == "struct" and not sty.named and sty.by_name and sty.by_name[seg]) then
              diag(path, "'" .. id .. "' in " .. what .. ": '" .. seg .. "' is not a field of an inline struct read before")
              ok = false
              f = nil
              break
            end
            f = sty.fields[sty.by_name[seg]]
          end
          if not f and head and ok == false then
            -- already reported
          elseif not f then
            local cands, later = {}, {}
            fr = scope.frames
            while fr do
              for k in pairs(fr.fields) do cands[#cands + 1] = k end
              for k in pairs(fr.all or {}) do if not fr.fields[k] then later[#later + 1] = k end end
              fr = fr.up
            end
            table.sort(cands)
            table.sort(later)
            local near = names.near(id, cands)
            local near_later = names.near(id, later)
            local hint = ""
            if scope.frames and scope.frames.all and scope.frames.all[id] then
              hint = " ('" .. id .. "' is read after it)"
            elseif near then
              hint = " (did you mean '" .. near .. "'?)"
            elseif near_later then
              hint = " (did you mean '" .. near_later .. "'? it is read after this one)"
            end
            diag(path, "'" .. id .. "' in " .. what .. " is not a field read before this one" .. hint)
            ok = false
          else
            local k = f.ty.kind
            if k == "magic" and f.optional then
              k = "int" -- an optional magic reads as 1 when present, 0 when not
            end
            if k ~= "int" and k ~= "varint" and not (k == "bytes" and what == "union tag") then
              diag(path, "'" .. id .. "' in " .. what .. " is not an integer field")
              ok = false
            end
            n.ref = { field = f }
            f.referenced = true
          end
        end
      end
      walk(n.a)
      walk(n.b)
    end
    walk(ast)
    return ok and ast or nil
  end

  local function int_ctype(bits, signed)
    return (signed and "int" or "uint") .. bits .. "_t"
  end

  -- Turns a schema value into a type node (strings are references).
  local function as_type(v, path)
    if type(v) == "string" then return { kind = "ref", name = v } end
    if vocab.is_type(v) then return v end
    if type(v) == "table" and v.kind == "ref" then return v end
    diag(path, "expected a type, found " .. type(v))
    return nil
  end

  resolve_type = function(v, path, scope, ctx)
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
      return { kind = "int", bits = t.bits, signed = t.signed, endian = e,
        ctype = int_ctype(t.bits, t.signed), wire = t.bits // 8, byte_order = t.byte_order }
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
      if t.of == nil then diag(path, "an array needs of = <type>") return nil end
      local et = as_type(t.of, path .. ".of")
      if et and (et.kind == "struct" or et.kind == "union") then
        -- anonymous element types become named types of their own
        local nm = ctx.lift_name
        et = { kind = "ref", name = nm, inline = et }
      end
      a.of = et and resolve_type(et, path .. "[]", scope, { lift_name = ctx.lift_name })
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
    end
  end

  local function field_err(path, f, msg) diag(path .. "." .. (f.name or "?"), msg) end

  resolve_struct = function(t, path, scope, ctx)
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
      local tg = targets[f.name]
      local subctx = { lift_name = (ctx.lift_base or "") .. f.name,
        sized = ctx.sized or st.after_total or (tg and tg.kind == "size_of") }
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
          else F.enum = enum_items(o.enum, fpath); F.enum_open = o.open end
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
    return st
  end

  resolve_union = function(t, path, scope, ctx)
    local u = { kind = "union", cases = {}, doc = t.doc, tag_key = t.tag_key or "_kind" }
    local n = (t.on ~= nil and 1 or 0) + (t.tag ~= nil and 1 or 0) + (t.peek ~= nil and 1 or 0)
    if n ~= 1 then diag(path, "a union needs exactly one of tag = <type>, peek = <type>, on = \"expr\"") end
    if t.on ~= nil then
      u.mode = "on"
      if type(t.on) == "string" and t.on:match("^[%a_][%w_]*$") then
        u.on = resolve_expr(t.on, path, scope, "union tag")
      else
        u.on = resolve_expr(t.on, path, scope, "union tag")
      end
      if u.on and u.on.k == "id" and u.on.ref and u.on.ref.field and u.on.ref.field.ty.kind == "bytes" then
        u.string_tag = true
      end
    elseif t.tag ~= nil or t.peek ~= nil then
      u.mode = t.tag ~= nil and "tag" or "peek"
      local tt = as_type(t.tag or t.peek, path .. ".tag")
      if tt and tt.kind == "bytes" and t.tag ~= nil and tt.padded and math.type(tt.fixed) == "integer" then
        -- a name: a NUL-padded fixed string (compared up to its first NUL)
        u.tagty = resolve_type(tt, path .. ".tag", scope, {})
        u.string_tag = true
        u.name_tag = true
      elseif tt and tt.kind ~= "int" then
        diag(path, "a union tag type must be a fixed-width integer (or, for tag =, a fixed_string { fixed = N })")
      elseif tt then u.tagty = resolve_type(tt, path .. ".tag", scope, ctx) end
    end
    local seen_names, seen_vals = {}, {}
    local has_default = false
    for i, c in ipairs(t.cases) do
      if type(c) ~= "table" or c.kind ~= "case" then
        diag(path .. "[" .. i .. "]", "union entries must be case(value, \"name\", type)")
        goto continue
      end
      local cpath = path .. "." .. tostring(c.name)
      local bad = names.check(c.name, "case")
      if bad then diag(cpath, bad) end
      if seen_names[c.name] then diag(cpath, "duplicate case name '" .. tostring(c.name) .. "'") end
      seen_names[c.name] = true
      local C = { name = c.name, values = {}, default = c.default }
      if c.default then
        if has_default then diag(cpath, "only one default_case") end
        has_default = true
      end
      for _, v in ipairs(c.values) do
        local key
        if u.string_tag then
          if type(v) ~= "string" then diag(cpath, "cases of a string tag are strings") end
          key = "s:" .. tostring(v)
        else
          if math.type(v) ~= "integer" then diag(cpath, "case values must be integers") end
          key = "i:" .. tostring(v)
        end
        if seen_vals[key] then diag(cpath, "case value " .. tostring(v) .. " is used twice") end
        seen_vals[key] = true
        C.values[#C.values + 1] = v
      end
      if #C.values == 0 and not c.default then diag(cpath, "a case needs at least one value") end
      if #C.values > 1 and u.mode == "peek" then diag(cpath, "a peeked case has exactly one value") end
      if u.name_tag then
        if c.default then diag(cpath, "a union with a name tag has no default_case (its tag could not be written back)") end
        if #C.values > 1 then diag(cpath, "a case of a name tag has exactly one name") end
        for _, v in ipairs(C.values) do
          if type(v) == "string" and (#v == 0 or #v > u.tagty.fixed or v:find("\0", 1, true)) then
            diag(cpath, "a tag name must be 1 to " .. u.tagty.fixed .. " bytes without NUL")
          end
        end
      end
      local sub = { lift_name = (ctx.lift_name or "") .. "_" .. tostring(c.name),
        path_prefix = c.name, sized = ctx.sized }
      C.ty = c.type ~= nil and resolve_type(c.type, cpath, scope, sub) or nil
      if c.type == nil then C.ty = { kind = "struct", fields = {}, by_name = {} } end
      if C.ty and C.ty.kind == "records" then diag(cpath, "a union case cannot be a records region") end
      u.cases[#u.cases + 1] = C
      ::continue::
    end
    if #u.cases == 0 then diag(path, "a union needs at least one case") end
    return u
  end

  resolve_named = function(name, path, inline, state, extra)
    local T = ir.types[name] or ir.scalars[name]
    if T then return T end
    if resolving[name] then
      diag(path, "type '" .. name .. "' contains itself")
      return nil
    end
    local bad = names.check(name)
    if bad then diag("types." .. name, bad) end
    resolving[name] = true
    local outer_type = ir.cur_type
    ir.cur_type = name
    local src = inline or fmt.types[name]
    local tpath = "types." .. name
    if inline then tpath = path end
    local scope = { frames = nil, state = state, root_refs = {} }
    local t = as_type(src, tpath)
    local node
    if t and (t.kind == "struct") then
      node = resolve_struct(t, tpath, scope, { named_top = true, lift_base = name .. "_",
        sized = extra and extra.sized })
    elseif t then
      node = resolve_type(t, tpath, scope, { lift_name = name })
    end
    resolving[name] = nil
    ir.cur_type = outer_type
    if not node then return nil end
    if node.kind ~= "struct" and node.kind ~= "union" then
      -- a named scalar or array is used inline wherever it is referenced
      ir.scalars[name] = node
      return node
    end
    node.named = true
    node.tname = name
    node.cname = ir.prefix .. "_" .. name
    node.root_refs = scope.root_refs
    node.state_region = state and state.region
    ir.types[name] = node
    ir.order[#ir.order + 1] = name
    return node
  end

  ir.root = resolve_named(root_name, "format.root", nil, nil)
  if ir.root and ir.root.kind ~= "struct" then
    diag("types." .. root_name, "the root type must be a struct")
  end
  -- root.x references must name scalar fields of the root
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    for _, rr in ipairs(T.root_refs or {}) do
      local f = ir.root and ir.root.by_name and ir.root.by_name[rr.ast.ref.root]
      if not f then
        diag(rr.path, "root." .. rr.ast.ref.root .. " is not a field of the root type")
      else
        rr.ast.ref = { root = ir.root.fields[f] }
      end
    end
  end
  for _, n in ipairs(type_names) do
    if not ir.types[n] and not ir.scalars[n] then diag("types." .. n, "type '" .. n .. "' is not reachable from the root '" .. root_name .. "'") end
  end
  if #diags > 0 then return nil, diags end
  return ir, diags
end

return check
