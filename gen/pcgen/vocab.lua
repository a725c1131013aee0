-- vocab.lua: the schema vocabulary: constructors that build plain tables for the checker.
--
-- Every type value is a table with a `kind`; calling it with a table of options
-- returns a refined copy, so `u32` and `u32 { min = 1 }` both work. Schemas see
-- only what `vocab.env` returns (see load.lua).
local vocab = {}

local Type = {}
Type.__index = Type

local function shallow(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function mk(t) return setmetatable(t, Type) end

Type.__call = function(self, opts)
  if type(opts) ~= "table" then
    error("a type takes a table of options, e.g. u32 { min = 1 }", 2)
  end
  local t = shallow(self)
  for k, v in pairs(opts) do t[k] = v end
  t._refined = true
  return mk(t)
end

function vocab.is_type(v) return type(v) == "table" and getmetatable(v) == Type end

local function int(bits, signed, endian)
  return mk { kind = "int", bits = bits, signed = signed, endian = endian }
end
local function float(bits, endian) return mk { kind = "float", bits = bits, endian = endian } end

function vocab.env()
  local E = {}
  -- fixed-width integers: default byte order, then explicit ones
  for _, bits in ipairs { 8, 16, 32, 64 } do
    E["u" .. bits] = int(bits, false, nil)
    E["s" .. bits] = int(bits, true, nil)
    if bits > 8 then
      for _, e in ipairs { "le", "be" } do
        E["u" .. bits .. e] = int(bits, false, e)
        E["s" .. bits .. e] = int(bits, true, e)
      end
      E["u" .. bits .. "native"] = int(bits, false, "native")
      E["s" .. bits .. "native"] = int(bits, true, "native")
    end
  end
  E.f32, E.f64 = float(32, nil), float(64, nil)
  for _, e in ipairs { "le", "be", "native" } do
    E["f32" .. e], E["f64" .. e] = float(32, e), float(64, e)
  end
  -- varints
  E.uleb128 = mk { kind = "varint", enc = "uleb128" }
  E.sleb128 = mk { kind = "varint", enc = "sleb128" }
  E.zigzag32 = mk { kind = "varint", enc = "zigzag32" }
  E.zigzag64 = mk { kind = "varint", enc = "zigzag64" }
  E.mojo_varint = mk { kind = "varint", enc = "mojo" }
  -- byte strings
  E.string = mk { kind = "bytes", text = true }
  E.bytes = mk { kind = "bytes", text = false }
  E.cstring = mk { kind = "bytes", text = true, cstring = true }
  E.fixed_string = mk { kind = "bytes", text = true, padded = true }

  -- magic "MOJ" (raw bytes) or magic(u32, 0x75D11D4D) (an integer that must match)
  E.magic = function(a, b)
    if type(a) == "string" then return mk { kind = "magic", bytes = a } end
    if vocab.is_type(a) and a.kind == "int" and math.type(b) == "integer" then
      local t = a { equals = b }
      t.magic = true
      return t
    end
    error("magic takes a byte string, or an integer type and its value", 2)
  end

  E.ref = function(name) return mk { kind = "ref", name = name } end

  -- bits(u32) { field "mode" (3, { max = 5 }), field "known" (1), ..., hex = true }: a word
  -- of named sub-fields of so many bits each, lowest first; the other keys refine the word
  E.bits = function(base)
    if not (vocab.is_type(base) and base.kind == "int") then
      error("bits takes a fixed-width integer type: bits(u32) { field \"x\" (4), ... }", 2)
    end
    return function(spec)
      if type(spec) ~= "table" then error("bits(...) takes a table of sub-fields", 2) end
      local t = shallow(base)
      t.bitfields = {}
      for k, v in pairs(spec) do
        if math.type(k) == "integer" then t.bitfields[k] = v else t[k] = v end
      end
      t._refined = true
      return mk(t)
    end
  end

  -- struct { field "a" (u8), ..., doc = "..." }
  E.struct = function(spec)
    local t = { kind = "struct", fields = {} }
    for k, v in pairs(spec) do
      if math.type(k) ~= "integer" then t[k] = v end
    end
    for i, f in ipairs(spec) do t.fields[i] = f end
    return mk(t)
  end

  -- field "name" (type) or field "name" (type, { options }); in a message,
  -- field "name" (number, type) or field "name" (number, type, { options })
  E.field = function(name)
    return function(ty, opts, more)
      if math.type(ty) == "integer" and (vocab.is_type(opts) or type(opts) == "string") then
        return { kind = "field", name = name, number = ty, type = opts, opts = more }
      end
      return { kind = "field", name = name, type = ty, opts = opts }
    end
  end

  -- protobuf: message { field "id" (1, uint64), field "line" (4, repeated "line"), ... },
  -- the scalar types of protobuf's wire format, and repeated(T) / repeated(T, { options })
  E.message = function(spec)
    if type(spec) ~= "table" then error("message takes a table: message { field \"x\" (1, int64), ... }", 2) end
    local t = { kind = "message", fields = {} }
    for k, v in pairs(spec) do
      if math.type(k) == "integer" then t.fields[k] = v else t[k] = v end
    end
    return mk(t)
  end
  for _, pbt in ipairs { "int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool",
      "fixed32", "fixed64", "sfixed32", "sfixed64", "float", "double" } do
    E[pbt] = mk { kind = "pb", pbt = pbt }
  end
  E.repeated = function(of, opts)
    if of == nil then error("repeated takes the element type: repeated(uint64), repeated \"line\"", 2) end
    local t = { kind = "repeated", of = of }
    for k, v in pairs(opts or {}) do t[k] = v end
    return mk(t)
  end

  -- union { tag = u8 | peek = u32be | on = "expr", case(...), ..., default_case(...) }
  E.union = function(spec)
    local t = { kind = "union", cases = {} }
    for k, v in pairs(spec) do
      if math.type(k) ~= "integer" then t[k] = v end
    end
    for i, c in ipairs(spec) do t.cases[i] = c end
    return mk(t)
  end
  E.case = function(values, name, ty, opts)
    if type(values) ~= "table" then values = { values } end
    return { kind = "case", values = values, name = name, type = ty, opts = opts }
  end
  E.default_case = function(name, ty, opts)
    return { kind = "case", default = true, values = {}, name = name, type = ty, opts = opts }
  end

  -- array { of = T, count = u16 | "expr", until_end = true, until = "expr" }
  E.array = function(spec)
    local t = { kind = "array" }
    for k, v in pairs(spec) do t[k] = v end
    return mk(t)
  end

  -- records { of = "packet", ... }: a nested stream of records, read one per call
  E.records = function(spec)
    local t = { kind = "records" }
    for k, v in pairs(spec) do t[k] = v end
    return mk(t)
  end

  -- view { of = "event", field "key" (mojo_varint), field "name" (cstring, { from = { "metadata.key" } }) }:
  -- one C struct for a record type across the versions of a format (views = { ... })
  E.view = function(spec)
    if type(spec) ~= "table" then error("view takes a table: view { of = \"type\", field ... }", 2) end
    local t = { kind = "view", fields = {} }
    for k, v in pairs(spec) do
      if math.type(k) == "integer" then t.fields[k] = v else t[k] = v end
    end
    return t
  end

  -- format "name" { version = ..., types = { ... } }
  E.format = function(name)
    return function(spec)
      local t = { kind = "format", name = name }
      for k, v in pairs(spec) do t[k] = v end
      return t
    end
  end

  -- helpers for sharing between versions
  E.extend = function(st, extra)
    if not (vocab.is_type(st) and st.kind == "struct") then error("extend takes a struct", 2) end
    local t = shallow(st)
    t.fields = {}
    for i, f in ipairs(st.fields) do t.fields[i] = f end
    for k, v in pairs(extra) do
      if math.type(k) == "integer" then t.fields[#t.fields + 1] = v else t[k] = v end
    end
    return mk(t)
  end
  E.copy = function(v)
    if type(v) ~= "table" then return v end
    local t = shallow(v)
    return getmetatable(v) and setmetatable(t, getmetatable(v)) or t
  end

  -- plain Lua that a declarative file may use
  E.pairs, E.ipairs, E.next, E.select = pairs, ipairs, next, select
  E.tostring, E.tonumber, E.type, E.error, E.assert = tostring, tonumber, type, error, assert
  E.math = { maxinteger = math.maxinteger, mininteger = math.mininteger, type = math.type }
  E.table = { insert = table.insert, concat = table.concat, unpack = table.unpack }
  return E
end

return vocab
