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
  optional = true, size_extra = true, relocate = true, reset = true, delta_of = true, value = true,
  none = true, warn = true, key = true, ref = true, index_key = true,
}
local KIND_OPTS = {
  int = { kind = 1, bits = 1, signed = 1, endian = 1, byte_order = 1, bitfields = 1 },
  float = { kind = 1, bits = 1, endian = 1 },
  varint = { kind = 1, enc = 1, bits = 1, wrap = 1 },
  magic = { kind = 1, bytes = 1 },
  bytes = { kind = 1, text = 1, cstring = 1, padded = 1, len = 1, size = 1, rest = 1, max_len = 1, fixed = 1 },
  struct = { kind = 1, fields = 1, name = 1, metadata = 1 },
  union = { kind = 1, cases = 1, on = 1, tag = 1, peek = 1, tag_key = 1 },
  array = { kind = 1, of = 1, count = 1, until_end = 1, ["until"] = 1, max_count = 1, until_next = 1, count_only = 1, in_place = 1 },
  ref = { kind = 1, name = 1, inline = 1 },
  records = { kind = 1, of = 1, compression = 1, state = 1, recover = 1, size = 1, zstd_level = 1,
    count = 1, zstd_frame = 1, batch = 1, by_field = 1 },
  message = { kind = 1, fields = 1, pack_min = 1 },
  pb = { kind = 1, pbt = 1 },
  ["repeated"] = { kind = 1, of = 1, packed = 1, max_count = 1 },
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
        types = 1, root = 1, enums = 1, detect = 1, views = 1 })[k] then
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

  -- what the resolvers in check/*.lua share
  local cx = { diag = diag, ir = ir, fmt = fmt, enum_items = enum_items, named_enums = named_enums,
    type_names = type_names, root_name = root_name, resolving = resolving, region_of = region_of,
    sorted_keys = sorted_keys, as_type = as_type, int_ctype = int_ctype, KIND_OPTS = KIND_OPTS,
    FIELD_OPTS = FIELD_OPTS, warned = {} }
  -- key = "space" (the field's value names a target of that space: a frame key, a location id),
  -- index_key = "space" (each occurrence of the field is the next target, numbered from 0: a
  -- string table), ref = "space" (the value points at a target of that space). Declared on
  -- the fields, for the mutators (references to real, stale or missing targets) and the docs.
  ir.key_spaces, ir.ref_spaces = {}, {}
  function cx.ref_opts(F, o, fpath, ty)
    local n = 0
    for _, k in ipairs({ "key", "index_key", "ref" }) do
      if o[k] ~= nil then
        n = n + 1
        if type(o[k]) ~= "string" or not o[k]:match("^[%a_][%w_]*$") then
          diag(fpath, k .. " names a key space (an identifier)")
        else
          F[k .. "_space"] = o[k]   -- (F.key is a protobuf field's wire key)
          local set = k == "ref" and ir.ref_spaces or ir.key_spaces
          set[o[k]] = set[o[k]] or fpath
        end
      end
    end
    if n > 1 then diag(fpath, "key, index_key and ref exclude each other") end
    local vt = type(ty) == "table" and ty.kind
    if (o.key or o.ref) and vt and vt ~= "int" and vt ~= "varint" and vt ~= "ref" then
      diag(fpath, (o.key and "key" or "ref") .. " applies to integers")
    end
  end
  for _, m in ipairs({ "expr", "types", "struct", "union", "view", "message" }) do require("pcgen.check." .. m)(cx) end
  local resolve_named = cx.resolve_named

  ir.root = resolve_named(root_name, "format.root", nil, nil)
  cx.resolve_message_refs()
  for space, fpath in pairs(ir.ref_spaces) do
    if not ir.key_spaces[space] then diag(fpath, "ref = \"" .. space .. "\": no field defines that space (key or index_key)") end
  end
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
  -- warnings are checked on decoded records: the root and the records of regions
  do
    local record_types = {}
    if ir.root then record_types[ir.root] = true end
    for _, R in ipairs(ir.regions) do if R.record then record_types[R.record] = true end end
    for _, w in ipairs(cx.warned) do
      local T = ir.types[w.type]
      if T and not record_types[T] then
        diag(w.path, "warn applies to the fields of the root or of a region's records (" .. w.type .. " is neither)")
      end
    end
  end
  -- a named bits word needs no field: it may describe values that arrays or columns hold
  for _, n in ipairs(type_names) do
    local t = fmt.types[n]
    if not ir.types[n] and not ir.scalars[n] and vocab.is_type(t) and t.bitfields then
      resolve_named(n, "types." .. n, nil, nil)
    end
  end
  for _, n in ipairs(type_names) do
    if not ir.types[n] and not ir.scalars[n] then diag("types." .. n, "type '" .. n .. "' is not reachable from the root '" .. root_name .. "'") end
  end
  if #diags == 0 then cx.resolve_views() end
  if #diags > 0 then return nil, diags end
  return ir, diags
end

return check
