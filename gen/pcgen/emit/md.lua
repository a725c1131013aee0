-- emit/md.lua: the Markdown reference page of a format version (docs/formats/).
local lower = require("pcgen.lower")
local expr = require("pcgen.expr")
local EM = require("pcgen.emit.message")

local M = {}

local function type_text(ty)
  local k = ty.kind
  if k == "int" then
    local e = ty.bits == 8 and "" or (ty.endian == "native" and " (file order)" or (ty.endian == "be" and " BE" or " LE"))
    return (ty.signed and "s" or "u") .. ty.bits .. e
  end
  if k == "float" then return "f" .. ty.bits .. (ty.endian == "native" and " (file order)" or (ty.endian == "be" and " BE" or " LE")) end
  if k == "varint" then
    return ({ uleb128 = "ULEB128", sleb128 = "SLEB128", zigzag32 = "zigzag ULEB128 (32-bit)",
      zigzag64 = "zigzag ULEB128 (64-bit)", mojo = "MOJO varint (sign + magnitude)" })[ty.enc]
  end
  if k == "magic" then
    if ty.bytes:match("^[%w%p ]+$") then return 'magic "' .. ty.bytes .. '"' end
    return "magic " .. (ty.bytes:gsub(".", function(c) return string.format("%02X ", c:byte()) end))
  end
  if k == "bytes" then
    local what = ty.text and "string" or "bytes"
    if ty.mode == "cstring" then return what .. ", NUL-terminated" end
    if ty.mode == "prefix" then return what .. ", " .. type_text(ty.prefix) .. " length prefix" end
    if ty.mode == "fixed" then return what .. "[" .. ty.fixed .. "]" .. (ty.padded and ", NUL-padded" or "") end
    if ty.mode == "rest" then return what .. ", to the end of the enclosing data" end
    if ty.mode == "sized" then return what .. ", sized by another field" end
    return what .. ", sized by an expression"
  end
  if k == "struct" then return ty.named and ("[" .. ty.tname .. "](#" .. ty.tname .. ")") or "struct (below)" end
  if k == "union" then return ty.named and ("[" .. ty.tname .. "](#" .. ty.tname .. ")") or "union (below)" end
  if k == "array" then
    local n = ty.mode == "prefix" and (type_text(ty.prefix) .. " count, then ") or ""
    local tail = ({ until_end = " until the end of the enclosing data", ["until"] = " until a terminating element",
      until_next = ty.terminator and (' up to the next "' .. ty.terminator .. '" (not consumed)') or "",
      counted = " (count in another field)", expr = " (count from an expression)" })[ty.mode] or ""
    return "array: " .. n .. (ty.of and type_text(ty.of) or "?") .. tail
  end
  if k == "records" then
    return "records of [" .. (ty.record and ty.record.tname or "?") .. "](#" .. (ty.record and ty.record.tname or "") .. ")"
  end
  return k
end

local function esc(s) return (tostring(s or ""):gsub("|", "\\|"):gsub("\n", " ")) end

local function notes(f)
  local n = {}
  if f.doc then n[#n + 1] = esc(f.doc) end
  if f.when then n[#n + 1] = "present only when " .. esc(f.when_src or "the condition holds") end
  if f.optional then n[#n + 1] = "optional: present when these bytes are there (a boolean in JSON)" end
  if f.equals ~= nil and not f.magic then n[#n + 1] = "must be " .. f.equals end
  if f.magic and f.equals then n[#n + 1] = string.format("magic 0x%X", f.equals) end
  if f.min ~= nil then n[#n + 1] = "at least " .. f.min end
  if f.min_src then n[#n + 1] = "at least `" .. esc(f.min_src) .. "`" end
  if f.max ~= nil then n[#n + 1] = "at most " .. f.max end
  if f.max_src then n[#n + 1] = "at most `" .. esc(f.max_src) .. "`" end
  if f.key_space then n[#n + 1] = "defines a `" .. f.key_space .. "` key" end
  if f.index_key_space then n[#n + 1] = "each one is the next `" .. f.index_key_space .. "` (numbered from 0)" end
  if f.ref_space then n[#n + 1] = "refers to a `" .. f.ref_space .. "`" end
  if f.check_src then n[#n + 1] = "must satisfy `" .. esc(f.check_src) .. "`" .. (f.expect and (" (" .. esc(f.expect) .. ")") or "") end
  if f.ty and f.ty.wrap then n[#n + 1] = "bits past 64 in a 10th byte are dropped" end
  if f.absent ~= nil then n[#n + 1] = f.absent .. " means absent (null in JSON)" end
  if f.unit then n[#n + 1] = "unit: " .. f.unit end
  if f.derived then
    local d = f.derived
    if d.kind == "total_size" then n[#n + 1] = "size of the whole record, this field included (computed when encoding)"
    elseif d.kind == "size_of" then
      n[#n + 1] = "byte size of `" .. d.target .. "`" .. (d.extra and d.extra > 0 and (" plus " .. d.extra) or "") .. " (computed when encoding)"
    elseif d.kind == "offset_of" then n[#n + 1] = "file offset of `" .. d.target .. "` (computed when encoding)"
    elseif d.kind == "file_size" then n[#n + 1] = "size of the whole file (computed when encoding)"
    else n[#n + 1] = "element count of `" .. d.target .. "` (computed when encoding)" end
  end
  if f.at then n[#n + 1] = "placed at an offset another field gives" end
  if f.relocate then n[#n + 1] = "a file offset; the encoder moves it with the record it points into" end
  if f.at_end then n[#n + 1] = f.at_end .. " bytes before the end of the file"
  end
  if f.delta then n[#n + 1] = "stored as a delta from state `" .. f.delta.name .. "`; dumped absolute" end
  if f.base then n[#n + 1] = "stored relative to a base" .. (f.shift and (", shifted right by " .. f.shift) or "") .. "; dumped absolute" end
  if f.enum then
    local parts = {}
    for _, it in ipairs(f.enum) do parts[#parts + 1] = string.format("%s=%s", it.value, it.name) end
    n[#n + 1] = "values: " .. table.concat(parts, ", ") .. (f.enum_open and " (others allowed)" or "")
  end
  if f.ty and f.ty.byte_order then n[#n + 1] = "byte-order mark: read swapped, it flips every file-order field" end
  if f.ty and f.ty.bitfields then n[#n + 1] = M.bits_text(f.ty) end
  for _, w in ipairs(f.warns or {}) do
    n[#n + 1] = "warning (not an error) unless `" .. esc(w.src) .. "`: " .. esc(w.text)
  end
  if f.rel then
    n[#n + 1] = "stored relative to `" .. f.rel.base.name .. "`: `" .. f.rel.value .. "` = `" .. f.rel.base.name ..
        "` + this" .. (f.rel.none ~= nil and (" (" .. f.rel.none .. " when `" .. f.rel.base.name .. "` is " ..
        f.rel.none .. ", and this is 0)") or "") .. "; dumped as stored"
  end
  return table.concat(n, "; ")
end

local function struct_table(out, S, title, level)
  out[#out + 1] = string.rep("#", level) .. " " .. title .. "\n"
  if S.doc then out[#out + 1] = S.doc .. "\n" end
  if #S.fields == 0 then out[#out + 1] = "(no fields)\n" return end
  out[#out + 1] = "| offset | field | type | notes |\n|---|---|---|---|\n"
  local off = 0
  local subs = {}
  for _, f in ipairs(S.fields) do
    local o = off and tostring(off) or "…"
    out[#out + 1] = string.format("| %s | `%s` | %s | %s |\n", o, f.name, esc(type_text(f.ty)), notes(f))
    local w = (not f.when) and f.ty and lower.fixed_wire(f.ty)
    off = (off and w) and (off + w) or nil
    if f.ty and (f.ty.kind == "struct" or f.ty.kind == "union") and not f.ty.named then
      subs[#subs + 1] = { ty = f.ty, title = S.tname and (S.tname .. "." .. f.name) or f.name }
    end
  end
  out[#out + 1] = "\n"
  for _, s in ipairs(subs) do
    if s.ty.kind == "struct" then struct_table(out, s.ty, s.title, level + 1)
    else M.union_table(out, s.ty, s.title, level + 1) end
  end
end

-- "bits 0-2 `mode` (at most 5), bit 3 `known`, ...": a bits word's sub-fields, lowest first.
function M.bits_text(ty)
  local parts = {}
  for _, b in ipairs(ty.bitfields) do
    local where = b.width == 1 and ("bit " .. b.shift) or ("bits " .. b.shift .. "-" .. (b.shift + b.width - 1))
    local checks = {}
    if b.equals ~= nil then checks[#checks + 1] = "must be " .. b.equals end
    if b.min ~= nil then checks[#checks + 1] = "at least " .. b.min end
    if b.max ~= nil then checks[#checks + 1] = "at most " .. b.max end
    if b.enum then
      local e = {}
      for _, it in ipairs(b.enum) do e[#e + 1] = it.value .. "=" .. it.name end
      checks[#checks + 1] = "values " .. table.concat(e, ", ") .. (b.enum_open and "; others accepted" or "")
    end
    if b.doc then checks[#checks + 1] = esc(b.doc) end
    parts[#parts + 1] = where .. " `" .. b.name .. "`" .. (#checks > 0 and (" (" .. table.concat(checks, "; ") .. ")") or "")
  end
  return "bits, lowest first: " .. table.concat(parts, ", ") .. " (`" .. ty.bits_cname .. "_<name>()` reads one)"
end

function M.union_table(out, U, title, level)
  out[#out + 1] = string.rep("#", level) .. " " .. title .. "\n"
  if U.doc then out[#out + 1] = U.doc .. "\n" end
  local how = U.mode == "peek" and ("chosen by the next " .. type_text(U.tagty) .. " (not consumed)")
      or U.mode == "tag" and ("tag: " .. type_text(U.tagty))
      or ("chosen by an expression over earlier fields")
  if U.tagty and U.tagty.bitfields then how = how .. "; the tag's " .. M.bits_text(U.tagty) end
  out[#out + 1] = "Union, " .. how .. ".\n\n| tag | case | type |\n|---|---|---|\n"
  local subs = {}
  for _, c in ipairs(U.cases) do
    local vals = {}
    for _, v in ipairs(c.values) do
      vals[#vals + 1] = type(v) == "string" and ('"' .. v .. '"') or string.format("0x%X", v)
    end
    local t = c.default and "any other" or table.concat(vals, ", ")
    out[#out + 1] = string.format("| %s | `%s` | %s |\n", t, c.name, esc(type_text(c.ty)))
    if (c.ty.kind == "struct" or c.ty.kind == "union") and not c.ty.named and not c.empty then
      subs[#subs + 1] = { ty = c.ty, title = title .. " / " .. c.name }
    end
  end
  out[#out + 1] = "\n"
  for _, s in ipairs(subs) do
    if s.ty.kind == "struct" then struct_table(out, s.ty, s.title, level + 1)
    else M.union_table(out, s.ty, s.title, level + 1) end
  end
end

function M.page(ir, sha, gen_version)
  local out = {}
  out[#out + 1] = string.format("<!-- GENERATED by pcgen %s from %s (sha256 %s). DO NOT EDIT; run make regen. -->\n\n",
    gen_version, ir.schema_path, sha:sub(1, 16))
  out[#out + 1] = string.format("# %s, version %s\n\n", ir.title, tostring(ir.version))
  out[#out + 1] = string.format("Format name `%s`, schema `%s`, C prefix `%s`.\n\n", ir.name, ir.schema_path, ir.prefix)
  if ir.doc ~= "" then out[#out + 1] = ir.doc .. "\n\n" end
  local bo = ({ big = "big-endian", little = "little-endian",
    native = "the writer's own (detected from a byte-order mark; the other order is read byte-swapped)" })[ir.endian]
  out[#out + 1] = "Fixed-width integers are " .. bo .. " unless a field says otherwise.\n\n"
  out[#out + 1] = "## File structure\n\n"
  out[#out + 1] = "The whole file is [" .. ir.root.tname .. "](#" .. ir.root.tname .. ")."
  if #ir.regions > 0 then
    out[#out + 1] = " Records regions (read one record at a time):\n\n"
    for _, R in ipairs(ir.regions) do
      local st = {}
      for _, V in ipairs(R.state and R.state.order or {}) do st[#st + 1] = "`" .. V.name .. "`" end
      local rec = {}
      if R.recover and R.recover.size then rec[#rec + 1] = "skips a damaged record by its `" .. R.recover.size .. "` field" end
      if R.recover and R.recover.sync then rec[#rec + 1] = "resynchronises on the next record magic" end
      out[#out + 1] = string.format("- `%s`: records of [%s](#%s)%s%s%s%s%s\n", R.name, R.record.tname, R.record.tname,
        R.by_field and (", the fields of " .. R.record.msg.tname .. " one by one, to the end of the enclosing data") or
        R.zstd_frame and ", one zstd frame whose compressed size is stored nowhere (the region ends where the frame ends)"
          or R.sized and ", sized by its parent" or ", to the end of the enclosing data",
        R.compression and ", possibly zstd-compressed" or "",
        R.batch and (", read in batches of up to " .. R.batch .. " elements (the element count is the decoded length / the element size)") or "",
        #st > 0 and (", stream state " .. table.concat(st, ", ")) or "",
        #rec > 0 and ("; recovery: " .. table.concat(rec, ", ")) or "")
    end
  end
  out[#out + 1] = "\n\n## Types\n\n"
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if EM.is_pb(T) then EM.page_table(out, T, 3)
    elseif T.kind == "struct" then struct_table(out, T, name, 3) else M.union_table(out, T, name, 3) end
  end
  local named = {}
  for _, ty in ipairs(ir.bits_layouts) do if ty.bits_name then named[#named + 1] = ty end end
  if #named > 0 then
    out[#out + 1] = "## Bits words\n\nWords of named sub-fields; the dump shows the word, the header reads and builds it " ..
        "(`_<name>()`, `_unpack()`, `_pack()`, `_make()`, `_SHIFT`, `_MASK`).\n\n| word | type | sub-fields |\n|---|---|---|\n"
    for _, ty in ipairs(named) do
      out[#out + 1] = string.format("| `%s` | %s | %s |\n", ty.bits_name, type_text(ty),
        esc((ty.bits_doc and (ty.bits_doc .. " ") or "") .. M.bits_text(ty)))
    end
    out[#out + 1] = "\n"
  end
  out[#out + 1] = "## JSON Lines (dump and encode)\n\n" ..
      "`profcodec dump` writes one object per record: the first names the format (`\"_kind\": \"" ..
      ir.root.tname .. "\"`, `_format`, `_version`), every other has `\"_kind\"` (its record type or union case) and " ..
      "`\"_offset\"`, then the fields by name (keys starting with `_` are never field names). " ..
      "Magic constants are left out; sizes and counts are written " ..
      "but recomputed by `profcodec encode`; strings that are not UTF-8 and byte fields are `{\"hex\": \"...\"}`; " ..
      "integers beyond 2^63-1 are strings; non-finite floats are strings (`\"NaN\"`, `\"Infinity\"`); " ..
      "a sentinel value that means \"absent\" is `null`.\n"
  return table.concat(out)
end

return M
