-- emit/desc.lua: descriptor tables (pcd_type, pcd_field, pcd_enum) for reflection only:
-- the generic JSON writer, the JSON reader and the stream driver walk them; no field is
-- decoded through a table.
local expr = require("pcgen.expr")
local C = require("pcgen.emit.common")
local K = require("pcgen.emit.value")

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

-- One pcd_field row.
local function field_row(S, name, ty, member, aux, flags, f, present)
  local kind = (f and f.optional) and "PCD_K_BOOL" or desc_kind(ty)
  local elem, tref = "0", "NULL"
  if ty.kind == "struct" or ty.kind == "union" then tref = "&" .. ty.cname .. "_type" end
  if ty.kind == "array" then
    local et = ty.of
    elem = desc_kind(et)
    if et.kind == "struct" or et.kind == "union" then tref = "&" .. et.cname .. "_type" end
  end
  local en = (f and f.enum) and ("&" .. S.cname .. "_" .. name .. "_enum") or "NULL"
  local region = ty.kind == "records" and ("&" .. ty.cname) or "NULL"
  local sentinel = (f and f.absent) and expr.cnum(f.absent) or "0"
  return string.format("{ %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s }", cstr(name), kind, elem,
    flags, member, aux, present or "0", tref, en, sentinel, cstr(f and f.doc or nil), region)
end

local function field_flags(f)
  local flags = {}
  if f.derived then flags[#flags + 1] = "PCD_F_DERIVED" end
  if f.when and f.ty.kind ~= "records" then flags[#flags + 1] = "PCD_F_OPTIONAL" end
  if f.hidden then flags[#flags + 1] = "PCD_F_HIDDEN" end
  if f.absent then flags[#flags + 1] = "PCD_F_SENTINEL" end
  if f.hex then flags[#flags + 1] = "PCD_F_HEX" end
  if f.enum_open then flags[#flags + 1] = "PCD_F_ENUM_OPEN" end
  return #flags > 0 and table.concat(flags, " | ") or "0"
end

-- The descriptors of one C type (and, for unions chosen by an expression, its selector).
function D.type(ir, S)
  local items, enums = {}, {}
  if S.kind == "struct" then
    for _, f in ipairs(S.fields) do
      if f.ty and K.has_member(f) then
        local member = "offsetof(" .. S.cname .. ", " .. f.name .. ")"
        local aux, present = "0", "0"
        if f.ty.kind == "array" then aux = "offsetof(" .. S.cname .. ", n_" .. f.name .. ")" end
        if f.when and f.ty.kind ~= "records" then present = "offsetof(" .. S.cname .. ", has_" .. f.name .. ")" end
        items[#items + 1] = field_row(S, f.name, f.ty, member, aux, field_flags(f), f, present)
        if f.enum then enums[#enums + 1] = { name = f.name, items = f.enum } end
      end
    end
  else
    for _, c in ipairs(S.cases) do
      local member = c.empty and "0" or ("offsetof(" .. S.cname .. ", u." .. c.name .. ")")
      local aux = "0"
      if c.ty.kind == "array" then
        member = "offsetof(" .. S.cname .. ", u." .. c.name .. ".items)"
        aux = "offsetof(" .. S.cname .. ", u." .. c.name .. ".n_items)"
      end
      items[#items + 1] = field_row(S, c.name, c.ty, member, aux,
        (S.mode == "tag" and #c.values > 1) and "PCD_F_TAG_MULTI" or "0", nil)
    end
  end
  local o = {}
  for _, e in ipairs(enums) do
    local its = {}
    for _, it in ipairs(e.items) do its[#its + 1] = string.format("{ %s, %s }", expr.cnum(it.value), cstr(it.name)) end
    o[#o + 1] = string.format("static const pcd_enum_item %s_%s_enum_items[] = {\n    %s,\n};\n",
      S.cname, e.name, table.concat(its, ",\n    "))
    o[#o + 1] = string.format("static const pcd_enum %s_%s_enum = { %s, %s_%s_enum_items, %d };\n",
      S.cname, e.name, cstr(e.name), S.cname, e.name, #e.items)
  end
  if #items > 0 then
    o[#o + 1] = string.format("static const pcd_field %s_fields[] = {\n    %s,\n};\n", S.cname,
      table.concat(items, ",\n    "))
  end
  local tname = S.tname or S.cname:sub(#ir.prefix + 2)
  local sel, tag_key = "NULL", nil
  if S.kind == "union" then
    if S.mode == "on" then
      sel = S.cname .. "_select"
      o[#o + 1] = K.select_fn(ir, S)
    else
      tag_key = S.tag_key or "_kind"
    end
  end
  -- the tag's bytes before a case (named tag unions: where a case's regions are patched)
  local tag_wire = ""
  if S.kind == "union" and S.named and S.mode == "tag" then tag_wire = ", " .. S.tagty.wire end
  o[#o + 1] = string.format("const pcd_type %s_type = { %s, %d, %d, sizeof(%s), %s, %d, %s, %s, %s%s };\n",
    S.cname, cstr(tname), S.kind == "union" and 1 or 0, S.named and 1 or 0, S.cname,
    #items > 0 and (S.cname .. "_fields") or "NULL", #items, cstr(S.doc), cstr(tag_key), sel, tag_wire)
  return table.concat(o)
end

return D
