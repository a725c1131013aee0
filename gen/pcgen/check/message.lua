-- check/message.lua: protobuf messages checked and resolved: numbered fields of protobuf's
-- scalar types, strings, bytes and other messages, singular or repeated; and the field
-- records of a message streamed field by field (records { of = "m", by_field = true }).
local names = require("pcgen.names")
local vocab = require("pcgen.vocab")

-- protobuf's scalar types: the C type, the wire type of one element, the descriptor kind
local PB = {
  int32 = { ctype = "int32_t", wire = 0, kind = "PCD_K_S32" },
  int64 = { ctype = "int64_t", wire = 0, kind = "PCD_K_S64" },
  uint32 = { ctype = "uint32_t", wire = 0, kind = "PCD_K_U32" },
  uint64 = { ctype = "uint64_t", wire = 0, kind = "PCD_K_U64" },
  sint32 = { ctype = "int32_t", wire = 0, kind = "PCD_K_S32" },
  sint64 = { ctype = "int64_t", wire = 0, kind = "PCD_K_S64" },
  bool = { ctype = "bool", wire = 0, kind = "PCD_K_BOOL" },
  fixed32 = { ctype = "uint32_t", wire = 5, kind = "PCD_K_U32" },
  fixed64 = { ctype = "uint64_t", wire = 1, kind = "PCD_K_U64" },
  sfixed32 = { ctype = "int32_t", wire = 5, kind = "PCD_K_S32" },
  sfixed64 = { ctype = "int64_t", wire = 1, kind = "PCD_K_S64" },
  float = { ctype = "float", wire = 5, kind = "PCD_K_F32" },
  double = { ctype = "double", wire = 1, kind = "PCD_K_F64" },
}

local MESSAGE_OPTS = { kind = 1, fields = 1, doc = 1, pack_min = 1 }
local FIELD_OPTS = { doc = 1, unit = 1, hex = 1, enum = 1, open = 1, key = 1, ref = 1, index_key = 1 }
local REPEATED_OPTS = { kind = 1, of = 1, packed = 1, max_count = 1 }

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt
  local sorted_keys = cx.sorted_keys
  local resolving = cx.resolving

  -- A message another one names: resolved now, or (while it is being resolved: a message that
  -- contains itself) a reference filled in at the end.
  local pending = {}
  local function message_ref(name, path, F)
    local src = fmt.types[name]
    if not (vocab.is_type(src) and src.kind == "message") then
      local near = names.near(name, cx.type_names)
      diag(path, (src and ("'" .. name .. "' is not a message") or ("unknown type '" .. name .. "'")) ..
        (not src and near and (" (did you mean '" .. near .. "'?)") or ""))
      return nil
    end
    if resolving[name] then
      if not F.repeated then
        diag(path, "'" .. name .. "' contains this field: a message may contain itself through repeated fields only")
        return nil
      end
      pending[#pending + 1] = { F = F, name = name }
      return { kind = "msgref", name = name }
    end
    return cx.resolve_named(name, path, nil, nil)
  end

  -- The type of one message field (or of a repeated field's elements).
  local function field_type(v, path, F)
    if type(v) == "string" then return message_ref(v, path, F) end
    if type(v) == "table" and v.kind == "ref" and not vocab.is_type(v) then return message_ref(v.name, path, F) end
    if not vocab.is_type(v) then diag(path, "expected a type, found " .. type(v)) return nil end
    if v.kind == "ref" then return message_ref(v.name, path, F) end
    if v.kind == "pb" then
      for _, k in ipairs(sorted_keys(v)) do
        if k ~= "kind" and k ~= "pbt" and k ~= "_refined" and not FIELD_OPTS[k] then
          diag(path, "unknown option '" .. tostring(k) .. "' for " .. v.pbt .. " (doc, unit, hex, enum)")
        end
      end
      local p = PB[v.pbt]
      return { kind = "pb", pbt = v.pbt, ctype = p.ctype, wire = p.wire, desc = p.kind }
    end
    if v.kind == "bytes" then
      if v.len or v.size or v.fixed or v.rest or v.cstring or v.padded then
        diag(path, "a string or bytes field of a message has its length on the wire: it takes no len, size, fixed or rest")
      end
      if v.max_len ~= nil and (math.type(v.max_len) ~= "integer" or v.max_len < 0) then
        diag(path, "max_len must be a byte count")
      end
      return { kind = "bytes", text = v.text, mode = "pb", ctype = "pcd_bytes", max = v.max_len, wire = 2 }
    end
    if v.kind == "repeated" then diag(path, "repeated(repeated(...)) is not a protobuf type") return nil end
    diag(path, "a message field takes a protobuf type (int32, int64, uint32, uint64, sint32, sint64, bool, " ..
      "fixed32, fixed64, sfixed32, sfixed64, float, double), string, bytes or a message's name, not " ..
      (v.kind == "int" and ((v.signed and "s" or "u") .. v.bits) or v.kind))
    return nil
  end

  function cx.resolve_message(t, path, scope, ctx)
    local M = { kind = "message", fields = {}, by_name = {}, by_number = {}, doc = t.doc, pack_min = 1 }
    for _, k in ipairs(sorted_keys(t)) do
      if not MESSAGE_OPTS[k] and k ~= "_refined" then
        diag(path, "unknown option '" .. tostring(k) .. "' for message (doc, pack_min)")
      end
    end
    if t.pack_min ~= nil then
      if math.type(t.pack_min) ~= "integer" or t.pack_min < 1 then
        diag(path, "pack_min must be a count of at least 1 (the fewest elements the canonical form packs)")
      else
        M.pack_min = t.pack_min
      end
    end
    if not (ctx and ctx.named) then diag(path, "a message is a named type (types = { name = message { ... } })") end
    for i, f in ipairs(t.fields) do
      if type(f) ~= "table" or f.kind ~= "field" then
        diag(path .. "[" .. i .. "]", "message entries are field \"name\" (number, type)")
        goto continue
      end
      do
        local fpath = path .. "." .. tostring(f.name)
        if type(f.name) ~= "string" or not f.name:match("^[a-z][a-z0-9_]*$") then
          diag(fpath, "'" .. tostring(f.name) .. "' is not a lowercase identifier (a-z, 0-9, _)")
        elseif f.name:match("_$") then
          diag(fpath, "'" .. f.name .. "' ends with _: the generated C keeps those names (unknown_, layout_)")
        else
          local bad = names.check(f.name)
          -- has_ and n_ names are allowed in messages (protobuf's own, such as has_functions)
          -- unless they collide with another field's companion (below)
          if bad and not bad:match("reserved by the generated C") then diag(fpath, bad) end
        end
        if M.by_name[f.name] then diag(fpath, "duplicate field name '" .. tostring(f.name) .. "'") end
        if f.number == nil then
          diag(fpath, "a message field has a number: field \"" .. tostring(f.name) .. "\" (1, int64)")
          goto continue
        end
        if math.type(f.number) ~= "integer" or f.number < 1 or f.number > 0x1FFFFFFF then
          diag(fpath, "a field number is 1 .. 536870911")
          goto continue
        end
        if M.by_number[f.number] then
          diag(fpath, "field number " .. f.number .. " is also '" .. M.by_number[f.number].name .. "'")
        end
        local F = { name = f.name, number = f.number, doc = nil, index = #M.fields }
        local ty = f.type
        local o = {}
        if vocab.is_type(ty) then for k, v in pairs(ty) do o[k] = v end end
        if f.opts then
          if type(f.opts) ~= "table" then diag(fpath, "a field's options are a table") else
            for k, v in pairs(f.opts) do o[k] = v end
          end
        end
        for _, k in ipairs(sorted_keys(f.opts or {})) do
          if not FIELD_OPTS[k] and not REPEATED_OPTS[k] and k ~= "max_len" then
            diag(fpath, "unknown option '" .. tostring(k) .. "' for a message field (doc, unit, hex, enum, max_len, max_count, key, ref, index_key)")
          end
        end
        F.doc, F.unit, F.hex = o.doc, o.unit, o.hex
        cx.ref_opts(F, o, fpath, nil)
        if vocab.is_type(ty) and ty.kind == "repeated" then
          F.repeated = true
          for _, k in ipairs(sorted_keys(ty)) do
            if not REPEATED_OPTS[k] and not FIELD_OPTS[k] and k ~= "_refined" then
              diag(fpath, "unknown option '" .. tostring(k) .. "' for repeated (packed, max_count)")
            end
          end
          if o.max_count ~= nil then
            if math.type(o.max_count) ~= "integer" or o.max_count < 0 then diag(fpath, "max_count must be a count")
            else F.max_count = o.max_count end
          end
          if ty.packed ~= nil and type(ty.packed) ~= "boolean" then diag(fpath, "packed takes true or false") end
          F.ty = field_type(ty.of, fpath, F)
          if vocab.is_type(ty.of) then
            for k, v in pairs(ty.of) do if FIELD_OPTS[k] and o[k] == nil then o[k] = v end end
            F.unit, F.hex = o.unit, o.hex
          end
          if F.ty and F.ty.kind == "pb" then
            F.packable = true
            F.pack = ty.packed ~= false
          elseif ty.packed ~= nil then
            diag(fpath, "packed applies to repeated numbers (strings, bytes and messages are never packed)")
          end
        else
          F.ty = field_type(ty, fpath, F)
          if o.max_count ~= nil or o.packed ~= nil then diag(fpath, "max_count and packed apply to repeated fields") end
        end
        if F.ty and F.ty.kind == "bytes" and o.max_len ~= nil then F.ty.max = o.max_len end
        if o.enum ~= nil then
          if not (F.ty and F.ty.kind == "pb" and F.ty.wire == 0 and F.ty.pbt ~= "bool") then
            diag(fpath, "enum applies to varint integers (int32, int64, uint32, uint64, sint32, sint64)")
          else
            F.enum = cx.enum_items(o.enum, fpath)
            F.enum_name = type(o.enum) == "string" and o.enum or nil
            F.enum_open = true   -- protobuf's enums are open: other values are kept
          end
        end
        if o.open ~= nil and o.enum == nil then diag(fpath, "open goes with enum") end
        M.by_name[f.name] = F
        M.by_number[f.number] = F
        M.fields[#M.fields + 1] = F
      end
      ::continue::
    end
    -- has_x and n_x companions in C must not be another field's name
    for _, F in ipairs(M.fields) do
      for _, comp in ipairs({ "has_" .. F.name, "n_" .. F.name }) do
        if M.by_name[comp] then
          diag(path .. "." .. comp, "'" .. comp .. "' is the name the generated C gives to a companion of '" .. F.name .. "'")
        end
      end
    end
    return M
  end

  -- records { of = "m", by_field = true }: each record is one field of message m as it stands
  -- on the wire (a packed run is one record); a named type of its own, <m>_field.
  function cx.message_fields(M, name, path)
    if not M or M.kind ~= "message" then
      diag(path, "by_field = true streams the fields of a message: of names a message")
      return nil
    end
    local tname = name .. "_field"
    if fmt.types[tname] then
      diag(path, "the field records of '" .. name .. "' are the type '" .. tname .. "', a name the schema takes")
      return nil
    end
    if ir.types[tname] then return ir.types[tname] end
    local R = { kind = "pbrecord", msg = M, named = true, tname = tname, cname = ir.prefix .. "_" .. tname,
      doc = "A field of " .. name .. " as it stands on the wire (a packed run is one record).", root_refs = {} }
    ir.types[tname] = R
    ir.order[#ir.order + 1] = tname
    return R
  end

  -- after every type: references to messages that contain themselves
  function cx.resolve_message_refs()
    for _, p in ipairs(pending) do
      local T = ir.types[p.name]
      p.F.ty = T
      if T then T.depth_guard = true end
    end
  end
end
