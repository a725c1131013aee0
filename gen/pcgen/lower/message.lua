-- lower/message.lua: the decisions about protobuf messages and their field records: keys on
-- the wire, C members and types, descriptor kinds, which fields pack, the canonical order,
-- the cases of a field record, and what detection and the fuzzer's dictionary look for.
local names = require("pcgen.names")

local LM = {}

-- The C type of one element of field F (its value, for a singular field).
local function elem_ctype(F)
  local ty = F.ty
  if ty.kind == "message" then return ty.cname end
  return ty.ctype
end

-- What the wire type of one element is called in errors and the reference page.
LM.WIRE_TEXT = { [0] = "varint", [1] = "i64", [2] = "len", [5] = "i32" }

local function lower_message(ir, M)
  M.min = 0
  M.other_member = "unknown_"
  M.layout_member = "layout_"
  for _, F in ipairs(M.fields) do
    F.member = F.name
    F.errname = F.name
    F.owner = M
    F.elem_ctype = elem_ctype(F)
    local wire = F.ty.kind == "pb" and F.ty.wire or 2
    F.wire = wire
    F.key = F.number << 3 | wire
    if F.packable then F.key_packed = F.number << 3 | 2 end
    -- the wire types it takes, as an error says it
    if F.packable then
      F.wire_expected = LM.WIRE_TEXT[wire] .. " or a packed run (wire type " .. wire .. " or 2)"
    else
      F.wire_expected = LM.WIRE_TEXT[wire] .. " (wire type " .. wire .. ")"
    end
    -- the smallest wire size of one element in a packed run (allocation checks)
    F.elem_min = F.ty.kind == "pb" and (wire == 0 and 1 or wire == 5 and 4 or 8) or 0
    F.desc_kind = F.ty.kind == "pb" and F.ty.desc or F.ty.kind == "bytes" and (F.ty.text and "PCD_K_STRING" or "PCD_K_BYTES")
        or "PCD_K_STRUCT"
    F.nested = F.ty.kind == "message"
    -- a message that contains itself counts how deep it is
    F.guard = F.nested and F.ty.depth_guard or false
  end
  M.has_singular = false
  for _, F in ipairs(M.fields) do if not F.repeated then M.has_singular = true end end
end

-- A field record: one case per field of its message, and one for a field it does not name.
local function lower_record(ir, R)
  local M = R.msg
  R.min = 2   -- a key and a one-byte value
  R.case_enum = R.cname .. "_case"
  R.cases = {}
  for i, F in ipairs(M.fields) do
    R.cases[#R.cases + 1] = { F = F, name = F.name, index = i - 1, const = names.upper(R.cname .. "_" .. F.name) }
  end
  R.other_case = { name = "_unknown", member = "unknown_", index = #M.fields,
    const = names.upper(R.cname) .. "_UNKNOWN_" }
  R.layout_member = "layout_"
end

function LM.run(ir, T)
  if T.kind == "message" then lower_message(ir, T) else lower_record(ir, T) end
end

-- Does a region stream a message's fields (and so the format detects by structure)?
function LM.root_message(ir)
  local root = ir.root
  if not root or root.kind ~= "struct" then return nil end
  local f = root.fields[1]
  if f and f.ty and f.ty.kind == "records" and f.ty.by_field and f.ty.record then return f.ty.record.msg end
  return nil
end

-- The keys of the root message's fields, as bytes (the fuzzer's dictionary).
function LM.dict_entries(ir)
  local M = LM.root_message(ir)
  local out = {}
  if not M then return out end
  local function varint(v)
    local s = {}
    repeat
      local b = v & 0x7F
      v = v >> 7
      s[#s + 1] = string.char(v ~= 0 and (b | 0x80) or b)
    until v == 0
    return table.concat(s)
  end
  local seen = {}
  local function add(k)
    local bytes = varint(k)
    if not seen[bytes] then seen[bytes] = true; out[#out + 1] = bytes end
  end
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if T.kind == "message" then
      for _, F in ipairs(T.fields) do
        add(F.key)
        if F.key_packed then add(F.key_packed) end
      end
    end
  end
  return out
end

return LM
