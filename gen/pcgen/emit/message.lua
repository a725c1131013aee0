-- emit/message.lua: protobuf messages and their field records: C structs, descriptors,
-- the functions (emit/message_codec.lua, emit/message_record.lua), detection by structure,
-- and their part of the reference page.
local text = require("pcgen.text")
local names = require("pcgen.names")
local C = require("pcgen.emit.common")
local MC = require("pcgen.emit.message_codec")
local MR = require("pcgen.emit.message_record")
local LM = require("pcgen.lower.message")
local buf = require("pcgen.emit.cbuf")

local cstr = C.cstr

local EM = {}

local function is_pb(T) return T.kind == "message" or T.kind == "pbrecord" end
EM.is_pb = is_pb

local function comment(doc)
  return doc and ("  /* " .. doc:gsub("\n.*", ""):gsub("%*/", "* /") .. " */") or ""
end

-- The named types a struct holds by value (defined before it).
function EM.deps(T)
  local out = {}
  if T.kind == "message" then
    for _, F in ipairs(T.fields) do
      if not F.repeated and F.ty.kind == "message" then out[#out + 1] = F.ty end
    end
  else
    for _, F in ipairs(T.msg.fields) do
      if F.ty.kind == "message" then out[#out + 1] = F.ty end
    end
  end
  return out
end

function EM.struct_def(ir, T)
  local b = buf(1)
  if T.kind == "message" then
    for _, F in ipairs(T.fields) do
      if F.repeated then
        b:f("%s *%s;%s", F.elem_ctype, F.member, comment(F.doc))
        b:f("size_t n_%s;", F.name)
      else
        b:f("bool has_%s;", F.name)
        b:f("%s %s;%s", F.elem_ctype, F.member, comment(F.doc))
      end
    end
    b:l("pcd_pb_field *unknown_;  /* fields the schema does not name, and earlier occurrences of singular ones */")
    b:l("size_t n_unknown_;")
    b:l("pcd_pb_layout layout_;  /* the order and packing as written (n == 0: the canonical form) */")
    local doc = text.comment(T.tname .. ((T.doc and T.doc ~= "") and (": " .. T.doc) or "") ..
      " (protobuf message; numbers: " .. EM.numbers_text(T) .. ")")
    return doc .. "typedef struct " .. T.cname .. " {\n" .. b:text() .. "} " .. T.cname .. ";\n"
  end
  -- a field record: which field, its run's layout, the value
  local items = {}
  for _, c in ipairs(T.cases) do items[#items + 1] = string.format("    %s = %d,", c.const, c.index) end
  items[#items + 1] = string.format("    %s = %d, /* a field %s does not name */", T.other_case.const,
    T.other_case.index, T.msg.tname)
  b:f("%s which; /* the field present */", T.case_enum)
  b:l("pcd_pb_layout layout_;  /* a repeated number's run: packed or not, when that is not canonical */")
  b:l("union {")
  b:nest(function()
    for _, c in ipairs(T.cases) do
      local F = c.F
      if F.repeated and F.ty.kind == "pb" then
        b:f("struct { %s *items; size_t n_items; } %s;  /* a run of values */", F.elem_ctype, F.name)
      else
        b:f("%s %s;%s", F.elem_ctype, F.name, F.repeated and "  /* one element */" or "")
      end
    end
    b:l("pcd_pb_field unknown_;")
  end)
  b:l("} u;")
  local consts = text.render([[
    /* The cases of ${name} (its `which`): the fields of ${msg}. */
    typedef enum ${E} {
    ${items}
    } ${E};
    PCD_STATIC_ASSERT(sizeof(${E}) == sizeof(uint32_t), "the runtime reads which as a uint32_t");
  ]], { name = T.tname, msg = T.msg.tname, E = T.case_enum, items = table.concat(items, "\n") })
  return consts .. text.comment(T.tname .. ": " .. T.doc) .. "typedef struct " .. T.cname .. " {\n" .. b:text() ..
      "} " .. T.cname .. ";\n"
end

function EM.numbers_text(M)
  local parts = {}
  for _, F in ipairs(M.fields) do parts[#parts + 1] = F.name .. " " .. F.number end
  return table.concat(parts, ", ")
end

---------------------------------------------------------------------------
-- functions

function EM.functions(ir, T)
  local pre = ""
  if not ir.pb_protos_done then
    ir.pb_protos_done = true
    pre = MC.prototypes(ir)
  end
  if T.kind == "message" then return pre .. MC.message(ir, T) end
  return pre .. MR.record(ir, T)
end

---------------------------------------------------------------------------
-- descriptors

local function designated(items)
  local parts = {}
  for _, it in ipairs(items) do
    if it[2] ~= nil then parts[#parts + 1] = "." .. it[1] .. " = " .. it[2] end
  end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

-- The enum table of a field (written once per field).
local function enum_table(ir, T, F, o)
  local its = {}
  for _, it in ipairs(F.enum) do
    its[#its + 1] = "    " .. designated({ { "value", C.cnum(it.value, F.hex) }, { "name", cstr(it.name) } }) .. ","
  end
  local nm = T.cname .. "_" .. F.name
  o[#o + 1] = "static const pcd_enum_item " .. nm .. "_enum_items[] = {\n" .. table.concat(its, "\n") .. "\n};\n"
  o[#o + 1] = "static const pcd_enum " .. nm .. "_enum = " ..
      designated({ { "name", cstr(F.enum_name or F.name) }, { "items", nm .. "_enum_items" }, { "n_items", #F.enum } }) .. ";\n"
  return "&" .. nm .. "_enum"
end

local function flags_of(F, extra)
  local fl = {}
  if extra then fl[#fl + 1] = extra end
  if F.index_key_space then fl[#fl + 1] = "PCD_F_INDEX_KEY" end
  if F.hex then fl[#fl + 1] = "PCD_F_HEX" end
  if F.enum then fl[#fl + 1] = "PCD_F_ENUM_OPEN" end
  return #fl > 0 and table.concat(fl, " | ") or nil
end

function EM.desc(ir, T)
  local o, rows = {}, {}
  if T.kind == "message" then
    for _, F in ipairs(T.fields) do
      local enumt = F.enum and enum_table(ir, T, F, o)
      local tref = F.ty.kind == "message" and ("&" .. F.ty.cname .. "_type") or nil
      if F.repeated then
        rows[#rows + 1] = designated({ { "name", cstr(F.name) }, { "kind", "PCD_K_ARRAY" }, { "elem_kind", F.desc_kind },
          { "flags", flags_of(F, "PCD_F_OMIT_EMPTY") }, { "offset", "offsetof(" .. T.cname .. ", " .. F.member .. ")" },
          { "aux", "offsetof(" .. T.cname .. ", n_" .. F.name .. ")" }, { "type", tref }, { "enumt", enumt },
          { "doc", F.doc and cstr(F.doc) }, { "key", (F.key_space or F.index_key_space) and cstr(F.key_space or F.index_key_space) },
          { "ref", F.ref_space and cstr(F.ref_space) }, { "number", F.number } })
      else
        rows[#rows + 1] = designated({ { "name", cstr(F.name) }, { "kind", F.desc_kind },
          { "flags", flags_of(F, "PCD_F_OPTIONAL") }, { "offset", "offsetof(" .. T.cname .. ", " .. F.member .. ")" },
          { "present", "offsetof(" .. T.cname .. ", has_" .. F.name .. ")" }, { "type", tref }, { "enumt", enumt },
          { "doc", F.doc and cstr(F.doc) }, { "key", (F.key_space or F.index_key_space) and cstr(F.key_space or F.index_key_space) },
          { "ref", F.ref_space and cstr(F.ref_space) }, { "number", F.number } })
      end
    end
    rows[#rows + 1] = designated({ { "name", cstr("_unknown") }, { "kind", "PCD_K_PB_OTHER" },
      { "offset", "offsetof(" .. T.cname .. ", unknown_)" }, { "aux", "offsetof(" .. T.cname .. ", n_unknown_)" } })
  else
    for _, c in ipairs(T.cases) do
      local F = c.F
      local enumt = F.enum and enum_table(ir, T, F, o)
      local member = "offsetof(" .. T.cname .. ", u." .. F.name .. ")"
      if F.repeated and F.ty.kind == "pb" then
        rows[#rows + 1] = designated({ { "name", cstr(F.name) }, { "kind", "PCD_K_ARRAY" }, { "elem_kind", F.desc_kind },
          { "flags", flags_of(F) }, { "offset", "offsetof(" .. T.cname .. ", u." .. F.name .. ".items)" },
          { "aux", "offsetof(" .. T.cname .. ", u." .. F.name .. ".n_items)" }, { "enumt", enumt },
          { "doc", F.doc and cstr(F.doc) }, { "key", (F.key_space or F.index_key_space) and cstr(F.key_space or F.index_key_space) },
          { "ref", F.ref_space and cstr(F.ref_space) }, { "number", F.number } })
      else
        rows[#rows + 1] = designated({ { "name", cstr(F.name) }, { "kind", F.desc_kind }, { "flags", flags_of(F) },
          { "offset", member }, { "type", F.ty.kind == "message" and ("&" .. F.ty.cname .. "_type") or nil },
          { "enumt", enumt }, { "doc", F.doc and cstr(F.doc) },
          { "key", (F.key_space or F.index_key_space) and cstr(F.key_space or F.index_key_space) }, { "ref", F.ref_space and cstr(F.ref_space) }, { "number", F.number } })
      end
    end
    rows[#rows + 1] = designated({ { "name", cstr("_unknown") }, { "kind", "PCD_K_PB_FIELD" },
      { "offset", "offsetof(" .. T.cname .. ", u.unknown_)" } })
  end
  o[#o + 1] = "static const pcd_field " .. T.cname .. "_fields[] = {\n    " .. table.concat(rows, ",\n    ") .. ",\n};\n"
  o[#o + 1] = "const pcd_type " .. T.cname .. "_type = " .. C.block({
    { "name", cstr(T.tname) },
    { "is_union", T.kind == "pbrecord" and 1 or nil },
    { "named", 1 },
    { "size", "sizeof(" .. T.cname .. ")" },
    { "fields", T.cname .. "_fields" },
    { "n_fields", #rows },
    { "doc", T.doc and cstr(T.doc) },
    { "tag_key", T.kind == "pbrecord" and cstr("_kind") or nil },
    { "layout_at", "offsetof(" .. T.cname .. ", layout_) + 1", "a pcd_pb_layout" },
  }) .. ";\n"
  return table.concat(o)
end

---------------------------------------------------------------------------
-- detection: by the structure of the message the file streams

function EM.detect_fn(ir)
  local root = LM.root_message(ir)
  if not root then return nil end
  -- the messages reachable from the root, numbered from 0 (the root)
  local list, index = {}, {}
  local function visit(M)
    if index[M] then return end
    index[M] = #list
    list[#list + 1] = M
    for _, F in ipairs(M.fields) do if F.ty.kind == "message" then visit(F.ty) end end
  end
  visit(root)
  local out = {}
  local shapes = {}
  for i, M in ipairs(list) do
    local keys, nested = {}, {}
    for _, F in ipairs(M.fields) do
      keys[#keys + 1] = MC.hex(F.key)
      nested[#nested + 1] = F.ty.kind == "message" and tostring(index[F.ty]) or "-1"
      if F.key_packed then
        keys[#keys + 1] = MC.hex(F.key_packed)
        nested[#nested + 1] = "-1"
      end
    end
    local nm = ir.prefix .. "_shape" .. (i - 1)
    out[#out + 1] = string.format("static const uint32_t %s_keys[] = { %s };\n", nm, #keys > 0 and table.concat(keys, ", ") or "0")
    out[#out + 1] = string.format("static const int16_t %s_nested[] = { %s };\n", nm, #nested > 0 and table.concat(nested, ", ") or "-1")
    shapes[#shapes + 1] = string.format("    { %s_keys, %s_nested, %d }, /* %s */", nm, nm, #keys, M.tname)
  end
  out[#out + 1] = "static const pcd_pb_shape " .. ir.prefix .. "_shapes[] = {\n" .. table.concat(shapes, "\n") .. "\n};\n\n"
  out[#out + 1] = text.render([[
    /* Detection by structure (protobuf has no magic): the first bytes are fields of ${root}, each
     * with a number and wire type it names, the messages inside them well formed. */
    static int ${prefix}_detect(const uint8_t *p, size_t n)
    {
        return pcd_pb_detect(${prefix}_shapes, p, n);
    }

  ]], { root = root.tname, prefix = ir.prefix })
  return table.concat(out)
end

---------------------------------------------------------------------------
-- the reference page

local function type_text(F)
  local ty = F.ty
  local t
  if ty.kind == "pb" then t = ty.pbt
  elseif ty.kind == "bytes" then t = ty.text and "string" or "bytes"
  else t = "[" .. ty.tname .. "](#" .. ty.tname .. ")" end
  if F.repeated then
    t = "repeated " .. t
    if F.packable then
      t = t .. (F.pack and (", packed from " .. F.owner.pack_min .. " values") or ", not packed")
    end
  end
  return t
end

function EM.page_table(out, T, level)
  local esc = function(s) return (tostring(s or ""):gsub("|", "\\|"):gsub("\n", " ")) end
  out[#out + 1] = string.rep("#", level) .. " " .. T.tname .. "\n"
  if T.kind == "pbrecord" then
    out[#out + 1] = T.doc .. " Each record is one field of [" .. T.msg.tname .. "](#" .. T.msg.tname ..
        "): `{\"_kind\": \"<field>\", ...}` with a message's fields, or `\"_value\"` (a repeated number's run " ..
        "is an array); a field it does not name is `{\"_kind\": \"_unknown\", \"field\": N, \"varint\": V}` " ..
        "(or `i64`, `i32`, `len`).\n\n"
    return
  end
  if T.doc then out[#out + 1] = T.doc .. "\n\n" end
  out[#out + 1] = "Protobuf message: fields in any order, each key a varint (number << 3 | wire type).\n\n" ..
      "| number | field | type | wire | notes |\n|---|---|---|---|---|\n"
  for _, F in ipairs(T.fields) do
    local notes = {}
    if F.doc then notes[#notes + 1] = esc(F.doc) end
    if F.unit then notes[#notes + 1] = "unit: " .. F.unit end
    if F.ty.kind == "bytes" and F.ty.max then notes[#notes + 1] = "at most " .. F.ty.max .. " bytes" end
    if F.max_count then notes[#notes + 1] = "at most " .. F.max_count .. " elements" end
    if F.enum then
      local parts = {}
      for _, it in ipairs(F.enum) do parts[#parts + 1] = it.value .. "=" .. it.name end
      notes[#notes + 1] = "values: " .. table.concat(parts, ", ") .. " (others kept)"
    end
    if F.guard then notes[#notes + 1] = "nesting counts toward the depth limit" end
    local wire = LM.WIRE_TEXT[F.wire] .. (F.packable and ", or len (packed)" or "")
    out[#out + 1] = string.format("| %d | `%s` | %s | %s | %s |\n", F.number, F.name, esc(type_text(F)), wire,
      table.concat(notes, "; "))
  end
  out[#out + 1] = "\nUnknown field numbers are kept (`_unknown`); a layout (`_layout`) keeps the order and " ..
      "packing when they differ from the canonical form (schema order, numbers packed from " .. T.pack_min ..
      " values on).\n\n"
end

return EM
