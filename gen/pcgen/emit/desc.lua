-- emit/desc.lua: descriptor tables (pcd_type, pcd_field, pcd_enum) for reflection only:
-- the generic JSON writer, the JSON reader and the stream driver walk them; no field is
-- decoded through a table. Written with designated initialisers, members left at zero or
-- NULL left out; an enum's table is written once however many fields use it.
local C = require("pcgen.emit.common")
local K = require("pcgen.emit.value")
local EM = require("pcgen.emit.message")

local cstr = C.cstr

local D = {}

local function desc_kind(ty)
  local k = ty.kind
  if k == "int" then return "PCD_K_" .. (ty.signed and "S" or "U") .. ty.bits end
  if k == "float" then return "PCD_K_F" .. ty.bits end
  if k == "varint" then
    if ty.enc == "mojo" then return "PCD_K_MOJO" end
    if ty.ctype == "uint64_t" then return "PCD_K_U64" end
    if ty.ctype == "uint32_t" then return "PCD_K_U32" end
    if ty.ctype == "int32_t" then return "PCD_K_S32" end
    return "PCD_K_S64"
  end
  if k == "bytes" then return ty.text and "PCD_K_STRING" or "PCD_K_BYTES" end
  if k == "struct" then return "PCD_K_STRUCT" end
  if k == "union" then return "PCD_K_UNION" end
  if k == "array" then return "PCD_K_ARRAY" end
  if k == "records" then return "PCD_K_REGION" end
  return "0"
end

-- { .a = x, .b = y }: members whose value is nil are left out. items: { {name, value}, ... }.
-- Filled to 110 columns, continued two spaces in; the doc string last.
local function designated(items, indent)
  local parts = {}
  for _, it in ipairs(items) do
    if it[2] ~= nil then parts[#parts + 1] = "." .. it[1] .. " = " .. it[2] end
  end
  local lines, cur = {}, "{ "
  for i, p in ipairs(parts) do
    local piece = p .. (i < #parts and "," or " }")
    if cur ~= "{ " and #indent + #cur + #piece > 110 then
      lines[#lines + 1] = cur:gsub(" $", "")
      cur = indent .. "  "
    end
    cur = cur .. piece .. " "
  end
  lines[#lines + 1] = cur:gsub(" $", "")
  return table.concat(lines, "\n")
end

local block = C.block

-- The enum a field uses, its tables written before the first type that needs them.
-- Returns the C name of its pcd_enum.
local function enum_ref(ir, S, f, o)
  local seen = ir.enum_tables
  local its, key = {}, {}
  for _, it in ipairs(f.enum) do
    its[#its + 1] = "    " .. designated({ { "value", C.cnum(it.value, f.hex) }, { "name", cstr(it.name) } }, "    ") .. ","
    key[#key + 1] = it.value .. "=" .. it.name
  end
  key = table.concat(key, ",")
  local items = seen.items[key]
  if not items then
    items = (f.enum_name and (ir.prefix .. "_" .. f.enum_name) or (S.cname .. "_" .. f.name)) .. "_enum_items"
    seen.items[key] = items
    o[#o + 1] = "static const pcd_enum_item " .. items .. "[] = {\n" .. table.concat(its, "\n") .. "\n};\n"
  end
  local ekey = f.name .. "|" .. key
  local e = seen.enums[ekey]
  if not e then
    e = S.cname .. "_" .. f.name .. "_enum"
    seen.enums[ekey] = e
    o[#o + 1] = "static const pcd_enum " .. e .. " = " ..
        designated({ { "name", cstr(f.name) }, { "items", items }, { "n_items", #f.enum } }, "") .. ";\n"
  end
  return e
end

-- One pcd_field row.
local function field_row(name, ty, member, aux, flags, f, present, enumt)
  local elem, tref
  if ty.kind == "struct" or ty.kind == "union" then tref = "&" .. ty.cname .. "_type" end
  if ty.kind == "array" then
    local et = ty.of
    elem = desc_kind(et)
    if et.kind == "struct" or et.kind == "union" then tref = "&" .. et.cname .. "_type" end
  end
  return designated({
    { "name", cstr(name) },
    { "kind", (f and f.optional) and "PCD_K_BOOL" or desc_kind(ty) },
    { "elem_kind", elem },
    { "flags", flags },
    { "offset", member },
    { "aux", aux },
    { "present", present },
    { "type", tref },
    { "enumt", enumt and ("&" .. enumt) },
    { "sentinel", (f and f.absent) and C.cnum(f.absent, f.hex) },
    { "doc", f and f.doc and cstr(f.doc) },
    { "region", ty.kind == "records" and ("&" .. ty.cname) or nil },
    { "key", f and (f.key_space or f.index_key_space) and cstr(f.key_space or f.index_key_space) },
    { "ref", f and f.ref_space and cstr(f.ref_space) },
  }, "    ")
end

local function field_flags(f)
  local flags = {}
  if f.derived then flags[#flags + 1] = "PCD_F_DERIVED" end
  if f.when and f.ty.kind ~= "records" then flags[#flags + 1] = "PCD_F_OPTIONAL" end
  if f.hidden then flags[#flags + 1] = "PCD_F_HIDDEN" end
  if f.absent then flags[#flags + 1] = "PCD_F_SENTINEL" end
  if f.hex then flags[#flags + 1] = "PCD_F_HEX" end
  if f.enum_open then flags[#flags + 1] = "PCD_F_ENUM_OPEN" end
  if f.index_key_space then flags[#flags + 1] = "PCD_F_INDEX_KEY" end
  return #flags > 0 and table.concat(flags, " | ") or nil
end

-- The descriptors of one C type (and, for unions chosen by an expression, its selector).
function D.type(ir, S)
  if EM.is_pb(S) then return EM.desc(ir, S) end
  ir.enum_tables = ir.enum_tables or { items = {}, enums = {} }
  local items, o = {}, {}
  if S.kind == "struct" then
    for _, f in ipairs(S.fields) do
      if f.ty and K.has_member(f) then
        local aux, present
        if f.ty.kind == "array" then aux = "offsetof(" .. S.cname .. ", n_" .. f.name .. ")" end
        if f.when and f.ty.kind ~= "records" then present = "offsetof(" .. S.cname .. ", has_" .. f.name .. ")" end
        items[#items + 1] = field_row(f.name, f.ty, "offsetof(" .. S.cname .. ", " .. f.name .. ")", aux,
          field_flags(f), f, present, f.enum and enum_ref(ir, S, f, o))
      end
    end
  else
    for _, c in ipairs(S.cases) do
      local member = not c.empty and ("offsetof(" .. S.cname .. ", u." .. c.name .. ")") or nil
      local aux
      if c.ty.kind == "array" then
        member = "offsetof(" .. S.cname .. ", u." .. c.name .. ".items)"
        aux = "offsetof(" .. S.cname .. ", u." .. c.name .. ".n_items)"
      end
      items[#items + 1] = field_row(c.name, c.ty, member, aux,
        (S.mode == "tag" and (#c.values > 1 or c.default)) and "PCD_F_TAG_MULTI" or nil, nil)
    end
  end
  if #items > 0 then
    o[#o + 1] = "static const pcd_field " .. S.cname .. "_fields[] = {\n    " .. table.concat(items, ",\n    ") .. ",\n};\n"
  end
  local sel, tag_key
  if S.kind == "union" then
    if S.mode == "on" then
      sel = S.cname .. "_select"
      o[#o + 1] = K.select_fn(ir, S)
    else
      tag_key = S.tag_key or "_kind"
    end
  end
  o[#o + 1] = "const pcd_type " .. S.cname .. "_type = " .. block({
    { "name", cstr(S.tname or S.cname:sub(#ir.prefix + 2)) },
    { "is_union", S.kind == "union" and 1 or nil },
    { "named", S.named and 1 or nil },
    { "size", "sizeof(" .. S.cname .. ")" },
    { "fields", #items > 0 and (S.cname .. "_fields") or nil },
    { "n_fields", #items > 0 and #items or nil },
    { "doc", S.doc and cstr(S.doc) },
    { "tag_key", tag_key and cstr(tag_key) },
    { "select", sel },
    -- the tag's bytes before a case (named tag unions: where a case's regions are patched)
    { "tag_wire", (S.kind == "union" and S.named and S.mode == "tag") and S.tagty.wire or nil },
    { "warn", S.warn_fn },
  }) .. ";\n"
  return table.concat(o)
end

return D
