-- emit/python.lua: the Python binding of a format version (the module <package>.<name>_<vid>
-- of the extension profcodec._profcodec), its type stubs, and the registry of every format
-- the extension holds.
--
-- A class per C type of the schema: each struct (a record type, a union case's fields, a
-- nested struct), each union whose records say their case (an abstract base of its inline
-- cases), and each case of such a union whose body is not a struct (its one attribute is
-- `value`). A class is a table of attributes (the fields dump writes, with their docs) over
-- the descriptor of its C type: the runtime (src/python/) turns values into Python objects by
-- the same descriptors the JSON writer walks, so that a new kind of field needs no change here
-- and to_dict() is what `profcodec dump` writes. Nothing in this file knows a format.
local text = require("pcgen.text")
local C = require("pcgen.emit.common")
local K = require("pcgen.emit.value")

local P = {}

-- Python keywords, and names a record already has: such a field's attribute (and keyword)
-- gets a trailing underscore (`class_`); to_dict() keeps the field's name.
local RENAME = {}
for w in ([[False None True and as assert async await break class continue def del elif else except
  finally for from global if import in is lambda nonlocal not or pass raise return try while with
  yield to_dict]]):gmatch("%S+") do
  RENAME[w] = true
end

local function camel(s)
  return (s:gsub("^%l", string.upper):gsub("_(%w)", function(c) return c:upper() end))
end

function P.attr_name(name) return RENAME[name] and (name .. "_") or name end

-- A C string literal; empty docs are NULL.
local function cdoc(s)
  if s == nil or s == "" then return "NULL" end
  return text.cstr(s)
end

-- The fields a struct's class shows: stored in its C struct and written by dump (a protobuf
-- message: each of its fields).
local function attributes(S)
  if S.kind == "message" then return S.fields end
  local out = {}
  for _, f in ipairs(S.fields) do
    if f.ty and K.has_member(f) and f.ty.kind ~= "records" and not f.hidden then out[#out + 1] = f end
  end
  return out
end
P.attributes = attributes

-- A union whose values say their case (a tag read or peeked at): its cases are classes of
-- their own. A union chosen by other fields ("on") gives its case's value bare.
local function tagged(U) return (U.kind == "union" and U.mode ~= "on") or U.kind == "pbrecord" end

-- A case's type (a protobuf field record's case: its field's), and whether it is a struct of
-- fields (a message is one).
local function case_ty(c) return c.ty or c.F.ty end
local function structured(ty) return ty.kind == "struct" or ty.kind == "message" end

-- The cases of a union whose values say their case (a field record: one more, for a field the
-- schema does not name).
local function cases_of(T)
  if T.kind ~= "pbrecord" then return T.cases end
  local out = {}
  for _, c in ipairs(T.cases) do out[#out + 1] = c end
  out[#out + 1] = { name = "_unknown", index = T.other_case.index, unknown = true }
  return out
end

-- The classes of a format version, bases before the classes derived from them:
-- { name, T (the C type), what = "struct" | "union" | "value", base (a class), case }.
function P.classes(ir)
  local out, of_type, base_of = {}, {}, {}
  for _, T in ipairs(ir.all_types) do
    if tagged(T) then
      local cl = { name = camel(T.cname:sub(#ir.prefix + 2)), T = T, what = "union" }
      out[#out + 1] = cl
      of_type[T] = cl
      for _, c in ipairs(cases_of(T)) do
        if not c.unknown and case_ty(c).kind == "struct" and not case_ty(c).named then base_of[case_ty(c)] = cl end
      end
    end
  end
  for _, T in ipairs(ir.all_types) do
    if structured(T) then
      local cl = { name = camel(T.cname:sub(#ir.prefix + 2)), T = T, what = "struct", base = base_of[T] }
      out[#out + 1] = cl
      of_type[T] = cl
    elseif tagged(T) then
      for _, c in ipairs(cases_of(T)) do
        if c.unknown or not structured(case_ty(c)) then
          local name = c.unknown and (camel(T.cname:sub(#ir.prefix + 2)) .. "Unknown")
              or camel(T.cname:sub(#ir.prefix + 2) .. "_" .. c.name)
          out[#out + 1] = { name = name, T = T, what = "value", base = of_type[T], case = c }
        end
      end
    end
  end
  for i, cl in ipairs(out) do cl.index = i - 1 end
  return out, of_type
end

-- Is the class a case of a union whose values say their case, with several tags (or the
-- default case)? Its values then carry the tag they were read with (`_tag`, a keyword too).
local function multi_tag(cl, ir)
  local function multi(U, c) return U.mode == "tag" and c.values and (#c.values > 1 or c.default) end
  if cl.what == "value" then return multi(cl.T, cl.case) end
  if cl.what ~= "struct" then return false end
  for _, U in ipairs(ir.all_types) do
    if tagged(U) then
      for _, c in ipairs(cases_of(U)) do
        if not c.unknown and case_ty(c) == cl.T then return multi(U, c) end
      end
    end
  end
  return false
end

-- The signature line of a class's doc: Name(*, a, b, size=None).
local function signature(cl, ir)
  local parts = { "*" }
  if multi_tag(cl, ir) then parts[#parts + 1] = "_tag" end
  if cl.what == "value" then
    parts[#parts + 1] = "value"
  else
    for _, f in ipairs(attributes(cl.T)) do
      local opt = f.derived or f.when or f.optional or cl.T.kind == "message"
      parts[#parts + 1] = P.attr_name(f.name) .. (opt and "=None" or "")
    end
  end
  if #parts == 1 then return cl.name .. "()" end
  return cl.name .. "(" .. table.concat(parts, ", ") .. ")"
end

local function class_doc(cl, ir)
  local d = cl.T.doc
  if cl.what == "value" then d = "The case " .. cl.case.name .. " of " .. (cl.T.tname or cl.T.display or "a union") end
  if cl.what == "union" then return d or ("A union: " .. (cl.T.tname or cl.T.display or "")) end
  return signature(cl, ir) .. "\n--\n\n" .. (d or "")
end

-- The C file of a format version's classes.
function P.c_file(ir, sha, gen_version, package)
  local base = ir.name .. "_" .. ir.vid
  local mod = base
  local classes = P.classes(ir)
  local out = {}
  out[#out + 1] = C.banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) ..
    ": its Python classes (" .. package .. "." .. mod .. "), one per record type, union case and struct.")
  out[#out + 1] = text.render([[
    #include "pcdpy.h"
    #include "${base}.h"

  ]], { base = base }) .. "\n"
  local specs, rows = {}, {}
  for _, cl in ipairs(classes) do
    local T = cl.T
    local what = cl.what == "value" and ((T.tname or T.display) .. "." .. cl.case.name) or (T.tname or T.display)
    out[#out + 1] = text.comment(cl.name .. ": " .. what .. (T.doc and (": " .. T.doc) or ""), "")
    local slots = { "    { Py_tp_doc, (void *)" .. cdoc(class_doc(cl, ir)) .. " }," }
    local getset = {}
    if cl.what == "value" then
      getset[#getset + 1] = string.format('    { "value", pcdpy_get, NULL, %s, (void *)0 },',
        cdoc("The value of the case " .. cl.case.name .. "."))
    elseif cl.what == "struct" then
      for i, f in ipairs(attributes(T)) do
        getset[#getset + 1] = string.format("    { %s, pcdpy_get, NULL, %s, (void *)%d },",
          text.cstr(P.attr_name(f.name)), cdoc(f.doc), i - 1)
      end
    end
    if #getset > 0 then
      out[#out + 1] = "static PyGetSetDef " .. cl.name .. "_getset[] = {\n" .. table.concat(getset, "\n") ..
          "\n    { NULL, NULL, NULL, NULL, NULL },\n};\n"
      slots[#slots + 1] = "    { Py_tp_getset, " .. cl.name .. "_getset },"
    end
    out[#out + 1] = "static PyType_Slot " .. cl.name .. "_slots[] = {\n" .. table.concat(slots, "\n") ..
        "\n    { 0, NULL },\n};\n\n"
    specs[#specs + 1] = string.format('    { "%s.%s.%s", PCDPY_BASICSIZE, 0, %s, %s_slots },', package, mod, cl.name,
      cl.what == "union" and "Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE" or "Py_TPFLAGS_DEFAULT", cl.name)
    -- a metadata pair's key and value: their attribute indices (-1: not a metadata record)
    local mk, mv = -1, -1
    if cl.what == "struct" and T.metadata then
      for i, f in ipairs(attributes(T)) do
        if f.name == T.metadata.key then mk = i - 1 end
        if f.name == T.metadata.value then mv = i - 1 end
      end
    end
    rows[#rows + 1] = string.format("    { %s, &%s_type, %s, %d, %d, &specs[%d], %d, %d },", text.cstr(cl.name), T.cname,
      cl.what == "union" and "PCDPY_UNION" or (cl.what == "value" and "PCDPY_VALUE" or "PCDPY_STRUCT"),
      cl.case and cl.case.index or -1, cl.base and cl.base.index or -1, cl.index, mk, mv)
  end
  out[#out + 1] = "static PyType_Spec specs[] = {\n" .. table.concat(specs, "\n") .. "\n};\n\n"
  out[#out + 1] = "/* name, C type, what, the case (value classes), the base class (-1: Record), spec, a metadata\n" ..
      " * pair's key and value attributes (-1 -1: not one) */\n" ..
      "static const pcdpy_class classes[] = {\n" .. table.concat(rows, "\n") .. "\n};\n\n"
  out[#out + 1] = "const pcdpy_format pcdpy_" .. ir.prefix:gsub("^pcd_", "") .. " = " .. C.block({
    { "format", "&" .. ir.prefix .. "_format" },
    { "module", text.cstr(mod) },
    { "doc", cdoc(ir.title .. " " .. tostring(ir.version) .. " (" .. ir.schema_path .. ")" ..
      (ir.doc and ("\n\n" .. ir.doc) or "")) },
    { "classes", "classes" },
    { "n_classes", #classes },
  }) .. ";\n"
  return table.concat(out)
end

---------------------------------------------------------------------------
-- type stubs

local function pystr(s) return '"' .. s:gsub("\\", "\\\\"):gsub('"', '\\"') .. '"' end

-- The Python type of a value of IR type ty (f: the field, for enums).
local function hint(ty, f, of_type)
  local k = ty.kind
  if k == "int" or k == "varint" then
    if f and f.enum and #f.enum > 0 then
      local names = {}
      for _, it in ipairs(f.enum) do names[#names + 1] = pystr(it.name) end
      return "Literal[" .. table.concat(names, ", ") .. "] | int"
    end
    return "int"
  end
  if k == "float" then return "float" end
  if k == "pb" then
    if ty.pbt == "bool" then return "bool" end
    if ty.pbt == "float" or ty.pbt == "double" then return "float" end
    return hint({ kind = "int" }, f, of_type)
  end
  if k == "bytes" then return ty.text and "str | bytes" or "bytes" end
  if k == "struct" or k == "message" then return of_type[ty] and of_type[ty].name or "Any" end
  if k == "union" then
    if tagged(ty) then return of_type[ty] and of_type[ty].name or "Any" end
    local seen, parts = {}, {}
    for _, c in ipairs(ty.cases) do
      local h = hint(c.ty, nil, of_type)
      if not seen[h] then seen[h] = true; parts[#parts + 1] = h end
    end
    return table.concat(parts, " | ")
  end
  if k == "array" then return "tuple[" .. (ty.of and hint(ty.of, nil, of_type) or "Any") .. ", ...]" end
  return "Any"
end

-- (a message's field: a tuple when repeated, else None when absent)
local function attr_hint(f, of_type)
  if f.number then
    local h = hint(f.ty, f, of_type)
    return f.repeated and ("tuple[" .. h .. ", ...]") or (h .. " | None")
  end
  if f.optional then return "bool" end
  local h = hint(f.ty, f, of_type)
  if f.absent ~= nil or f.when then h = h .. " | None" end
  return h
end

-- What a constructor takes for a field: its value as an attribute gives it, or what
-- to_dict() writes (dicts for structs, names or numbers for enums, strings for big numbers).
local function param_hint(f, of_type)
  local h = attr_hint(f, of_type)
  local k = f.ty.kind
  if k == "struct" or k == "union" or k == "array" or k == "message" or f.repeated then h = h .. " | Any" end
  return h
end

local function docstring(s, indent)
  if not s or s == "" then return "" end
  s = s:gsub("\\", "\\\\"):gsub('"""', '\\"\\"\\"')
  return indent .. '"""' .. s:gsub("\n", "\n" .. indent) .. '"""\n'
end

-- The .pyi stub of a format version's module.
function P.stub(ir, sha, gen_version, package)
  local classes, of_type = P.classes(ir)
  local out = {
    string.format("# GENERATED by pcgen %s from %s (sha256 %s). DO NOT EDIT.\n", gen_version, ir.schema_path,
      sha:sub(1, 16)),
    "# Type stubs of " .. package .. "." .. ir.name .. "_" .. ir.vid .. ": " .. ir.title .. " " ..
        tostring(ir.version) .. ".\n",
    "from typing import Any, Literal\n\n",
    "from " .. package .. " import Record\n\n",
    "FORMAT: str\nVERSION: str\n",
  }
  for _, cl in ipairs(classes) do
    local T = cl.T
    local body = {}
    local doc = cl.what == "union" and T.doc or (cl.what == "value" and ("The case " .. cl.case.name .. ".") or T.doc)
    local d = docstring(doc, "    ")
    if d ~= "" then body[#body + 1] = d end
    local params = {}
    if multi_tag(cl, ir) then
      body[#body + 1] = "    _tag: int\n"
      params[#params + 1] = "_tag: int"
    end
    if cl.what == "value" then
      local c = cl.case
      -- (a field record's case: one element, or a packed run of numbers)
      local h
      if c.unknown then
        h = "dict[str, Any]"
      elseif c.F then
        h = hint(c.F.ty, c.F, of_type)
        if c.F.repeated and c.F.ty.kind == "pb" then h = "tuple[" .. h .. ", ...]" end
      else
        h = hint(c.ty, nil, of_type)
      end
      body[#body + 1] = "    value: " .. h .. "\n"
      params[#params + 1] = "value: " .. h .. " | Any"
    elseif cl.what == "struct" then
      for _, f in ipairs(attributes(T)) do
        local name = P.attr_name(f.name)
        body[#body + 1] = "    " .. name .. ": " .. attr_hint(f, of_type) .. "\n"
        body[#body + 1] = docstring(f.doc, "    ")
        local opt = f.derived or f.when or f.optional or T.kind == "message"
        params[#params + 1] = name .. ": " .. param_hint(f, of_type) .. (opt and " = ..." or "")
      end
    end
    if cl.what ~= "union" then
      body[#body + 1] = "    def __init__(self" .. (#params > 0 and (", *, " .. table.concat(params, ", ")) or "") ..
          ") -> None: ...\n"
    end
    if #body == 0 then body[1] = "    ...\n" end
    out[#out + 1] = "\n\nclass " .. cl.name .. "(" .. (cl.base and cl.base.name or "Record") .. "):\n" ..
        table.concat(body)
  end
  return table.concat(out)
end

---------------------------------------------------------------------------
-- the registry

-- formats: { prefix } sorted as pcd_formats is; module: the extension's name ("_profcodec").
function P.registry(formats, gen_version, package, module)
  local ext, items = {}, {}
  for _, f in ipairs(formats) do
    local sym = "pcdpy_" .. f.prefix:gsub("^pcd_", "")
    ext[#ext + 1] = "extern const pcdpy_format " .. sym .. ";"
    items[#items + 1] = "    &" .. sym .. ","
  end
  return text.render([[
    /* GENERATED by pcgen ${gen} from every schema in schemas/. DO NOT EDIT.
     * The formats of the Python extension ${package}.${module}, and its init function. */
    #include "pcdpy.h"

    ${ext}

    static const pcdpy_format *const formats[] = {
    ${items}
        NULL,
    };

    static const pcdpy_registry registry = {
        .package = "${package}",
        .module = "${module}",
        .formats = formats,
        .n_formats = ${n},
    };

    PyMODINIT_FUNC PyInit_${module}(void);
    PyMODINIT_FUNC PyInit_${module}(void) { return pcdpy_module_init(&registry); }
  ]], { gen = gen_version, package = package, module = module, ext = table.concat(ext, "\n"),
    items = table.concat(items, "\n"), n = #formats })
end

return P
