-- emit/bits.lua: bits words (fixed-width integers of named sub-fields): in the header, per
-- word, where each sub-field sits (_SHIFT, _MASK), a struct of the sub-fields and inline
-- accessors (one per sub-field, _unpack, _pack, _make); in decoders, validators and
-- encoders, the checks a sub-field declares. The record keeps the word as read (the dump
-- shows it, the encoder writes it): the sub-fields are read from it on demand.
local text = require("pcgen.text")
local names = require("pcgen.names")
local C = require("pcgen.emit.common")

local B = {}

local function mask_of(b)
  return b.width == 64 and -1 or ((1 << b.width) - 1)
end

-- A constant of the word's type: 0x7u, UINT64_C(0x...) for 64-bit words.
local function word_const(v, ty)
  if ty.bits == 64 then return string.format("UINT64_C(0x%X)", v) end
  return string.format("0x%Xu", v)
end

local function bits_text(b)
  if b.width == 1 then return "bit " .. b.shift end
  return "bits " .. b.shift .. "-" .. (b.shift + b.width - 1)
end

-- The accessor of sub-field b of word ty, applied to the C expression w.
function B.get(ty, b, w) return ty.bits_cname .. "_" .. b.name .. "(" .. w .. ")" end

-- The header's declarations for one word.
function B.declarations(ty)
  local W, wt, up = ty.bits_cname, ty.ctype, names.upper(ty.bits_cname)
  local doc = { ty.bits_display .. ": a " .. C.type_text(ty) .. " of sub-fields, lowest bit first." ..
      (ty.bits_doc and (" " .. ty.bits_doc) or "") }
  local consts, members, getters, makeargs, makeparts, unpack = {}, {}, {}, {}, {}, {}
  for _, b in ipairs(ty.bitfields) do
    local U = up .. "_" .. b.name:upper()
    local m = mask_of(b)
    doc[#doc + 1] = "  " .. bits_text(b) .. " " .. b.name .. ((b.doc and b.doc ~= "") and (": " .. b.doc) or "")
    consts[#consts + 1] = string.format("#define %s_SHIFT %d", U, b.shift)
    consts[#consts + 1] = string.format("#define %s_MASK %s", U, word_const(b.width == 64 and m or (m << b.shift), ty))
    for _, it in ipairs(b.enum or {}) do
      consts[#consts + 1] = string.format("#define %s_%s %d /* a value of %s */", U, names.upper(it.name), it.value, b.name)
    end
    members[#members + 1] = string.format("    %s %s; /* %s */", b.ctype, b.name, bits_text(b))
    getters[#getters + 1] = string.format("static inline %s %s_%s(%s w) { return (%s)((w >> %d) & %s); }",
      b.ctype, W, b.name, wt, b.ctype, b.shift, word_const(m, ty))
    makeargs[#makeargs + 1] = b.ctype .. " " .. b.name
    makeparts[#makeparts + 1] = string.format("((%s)%s & %s) << %d", wt, b.name, word_const(m, ty), b.shift)
    unpack[#unpack + 1] = string.format("    b.%s = %s_%s(w);", b.name, W, b.name)
  end
  local names_ = {}
  for _, b in ipairs(ty.bitfields) do names_[#names_ + 1] = "b." .. b.name end
  return text.comment(table.concat(doc, "\n")) .. text.render([[
    ${consts}
    typedef struct ${W}_bits {
    ${members}
    } ${W}_bits;
    ${getters}
    static inline ${wt} ${W}_make(${makeargs})
    {
        return (${wt})(${makeparts});
    }
    static inline ${W}_bits ${W}_unpack(${wt} w)
    {
        ${W}_bits b;
    ${unpack}
        return b;
    }
    static inline ${wt} ${W}_pack(${W}_bits b) { return ${W}_make(${packargs}); }
  ]], { consts = table.concat(consts, "\n"), W = W, wt = wt, members = table.concat(members, "\n"),
    getters = table.concat(getters, "\n"), makeargs = table.concat(makeargs, ", "),
    makeparts = table.concat(makeparts, " |\n            "), unpack = table.concat(unpack, "\n"),
    packargs = table.concat(names_, ", ") })
end

-- The checks sub-fields declare, on a decoded word v (decode, validate) or one about to be
-- written (encode): fail(cond, status, path, expected, found) prints each. Sub-fields are
-- small numbers: decimal, whatever the word.
function B.checks(f, v, fail)
  local ty = f.ty
  if not (ty and ty.kind == "int" and ty.bitfields and ty.bits_checked) then return end
  for _, b in ipairs(ty.bitfields) do
    if b.checked then
      local x = B.get(ty, b, v)
      local path = f.errname .. "." .. b.name
      local found = "(uint64_t)" .. x
      if b.equals ~= nil then fail(x .. " != " .. C.cnum(b.equals), "PCD_E_RANGE", path, C.numtext(b.equals), found) end
      if b.min ~= nil then fail(x .. " < " .. C.cnum(b.min), "PCD_E_RANGE", path, "at least " .. C.numtext(b.min), found) end
      if b.max ~= nil then fail(x .. " > " .. C.cnum(b.max), "PCD_E_RANGE", path, "at most " .. C.numtext(b.max), found) end
      if b.enum and not b.enum_open and #b.enum > 0 then
        local conds, parts = {}, {}
        for _, it in ipairs(b.enum) do
          conds[#conds + 1] = x .. " != " .. C.cnum(it.value)
          parts[#parts + 1] = it.name .. "=" .. C.numtext(it.value)
        end
        fail(table.concat(conds, " && "), "PCD_E_RANGE", path, "one of " .. table.concat(parts, ", "), found)
      end
    end
  end
end

return B
