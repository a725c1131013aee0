-- lower.lua: decides C names, member paths, locals, error paths and wire sizes, and
-- answers every question the emitters ask about the IR (which values validation needs,
-- what the encoder can evaluate, which fast path an array takes, which records open
-- regions, the magics to detect and to resynchronise on), so the emitters only print.
local names = require("pcgen.names")
local LM = require("pcgen.lower.message")
local lower = {}

local function fixed_wire(ty)
  if not ty then return nil end
  local k = ty.kind
  if k == "int" or k == "float" or k == "magic" then return ty.wire end
  if k == "bytes" and ty.mode == "fixed" then return ty.fixed end
  if k == "struct" then
    local n = 0
    for _, f in ipairs(ty.fields) do
      if f.when or f.at or f.at_end then return nil end
      local w = fixed_wire(f.ty)
      if not w then return nil end
      n = n + w
    end
    return n
  end
  return nil
end
lower.fixed_wire = fixed_wire

local min_wire
min_wire = function(ty)
  if not ty then return 0 end
  local k = ty.kind
  if k == "int" or k == "float" or k == "magic" then return ty.wire end
  if k == "varint" then return 1 end
  if k == "bytes" then
    if ty.mode == "cstring" then return 1 end
    if ty.mode == "prefix" then return min_wire(ty.prefix) end
    if ty.mode == "fixed" then return ty.fixed end
    return 0
  end
  if k == "struct" then
    if ty._min then return ty._min end
    local n = 0
    for _, f in ipairs(ty.fields) do
      if not f.when and not f.at and not f.at_end and f.ty then n = n + min_wire(f.ty) end
    end
    ty._min = n
    return n
  end
  if k == "union" then
    local m
    for _, c in ipairs(ty.cases) do
      local w = min_wire(c.ty)
      if ty.mode == "peek" then w = math.max(w, ty.tagty and ty.tagty.wire or 0) end
      if not m or w < m then m = w end
    end
    m = m or 0
    if ty.mode == "tag" and ty.tagty then m = m + ty.tagty.wire end
    return m
  end
  if k == "array" then
    if ty.mode == "prefix" then return min_wire(ty.prefix) end
    return 0
  end
  if k == "pbrecord" then return 2 end   -- a protobuf field: a key and a one-byte value
  return 0
end
lower.min_wire = min_wire

-- Can a field join a run of fixed fields read after one bounds check?
local function groupable(f)
  if f.when or f.sized_by or f.counted_by or f.delta or f.base or f.at or f.at_end or f.reset then return false end
  local k = f.ty and f.ty.kind
  if k == "int" then return not f.ty.byte_order end
  if k == "float" or k == "magic" then return true end
  if k == "bytes" and f.ty.mode == "fixed" then return true end
  return false
end
lower.groupable = groupable

---------------------------------------------------------------------------
-- questions the emitters ask

-- A derived field whose value is patched in after a region that follows it: the
-- encoder does not know it while it writes the field.
function lower.patched(f)
  local d = f.derived
  if not d or not d.target or not f.owner then return false end
  local S = f.owner
  local ti, fi = S.by_name[d.target], S.by_name[f.name]
  return ti ~= nil and fi ~= nil and ti > fi and S.fields[ti].ty and S.fields[ti].ty.kind == "records"
end

-- Can the encoder evaluate this expression before it writes the field? Not when it reads
-- the input's size, a derived field of the root (computed while writing), or a value
-- patched in later.
function lower.enc_evaluable(ast)
  local ok = true
  local function walk(n)
    if not n then return end
    local r = n.k == "id" and n.ref
    if r then
      if r.input_size then ok = false end
      if r.root and r.root.derived then ok = false end
      if r.field and lower.patched(r.field) then ok = false end
    end
    walk(n.a)
    walk(n.b)
  end
  walk(ast)
  return ok
end

-- Does validation need this field's value (checks, expressions, sizes)?
function lower.needs_value(f)
  return f.referenced or f.derived or f.equals ~= nil or f.min ~= nil or f.max ~= nil or
      f.min_expr or f.max_expr or f.check or
      (f.enum and not f.enum_open) or (f.ty and (f.ty.byte_order or f.ty.bits_checked))
end

-- Does a varint field go through any check once read?
function lower.varint_checked(f)
  local ty = f.ty
  return (f.equals or f.min or f.max or (f.enum and not f.enum_open) or
      f.min_expr or f.max_expr or f.check or (ty.enc == "uleb128" and ty.bits == 32)) and true or false
end

-- Does an expression read the input's size?
local function uses_input_size(ast)
  if not ast then return false end
  if ast.k == "id" and ast.ref and ast.ref.input_size then return true end
  return uses_input_size(ast.a) or uses_input_size(ast.b)
end
lower.uses_input_size = uses_input_size

function lower.field_uses_input_size(f)
  local ty = f.ty or {}
  return uses_input_size(f.when) or uses_input_size(f.at) or uses_input_size(f.min_expr) or
      uses_input_size(f.max_expr) or uses_input_size(f.check) or
      (ty.kind == "bytes" and uses_input_size(ty.size)) or (ty.kind == "array" and uses_input_size(ty.count))
end

-- Does placing S's regions read the input's size?
function lower.regions_use_input_size(S)
  for _, f in ipairs(S.fields) do
    local R = f.ty
    if R and R.kind == "records" and (uses_input_size(f.when) or uses_input_size(R.at) or
        uses_input_size(R.size_expr) or uses_input_size(R.count_expr) or uses_input_size(R.compression)) then
      return true
    end
  end
  return false
end

-- A named struct an array's fast path can read with a plain pointer: fixed-width integers
-- and unsigned LEB128s, nothing checked but a 32-bit bound, nothing else (no conditions,
-- positions, state, sizes). Returns its largest wire size, or nil.
local SIMPLE_FIELD_KEYS = { doc = true, errname = true, local_ = true, member = true, name = true, owner = true, wpos = true,
  ty = true, unit = true, hex = true }
local SIMPLE_TYPE_KEYS = { int = { bits = true, ctype = true, endian = true, kind = true, signed = true, wire = true,
  bitfields = true, bitfield_by_name = true, bits_cname = true, bits_display = true, bits_name = true,
  bits_doc = true },
  varint = { bits = true, ctype = true, enc = true, kind = true, wrap = true } }
function lower.simple_elem(T)
  if T.kind ~= "struct" or not T.named or #T.fields == 0 then return nil end
  local maxw = 0
  for _, g in ipairs(T.fields) do
    for k in pairs(g) do if not SIMPLE_FIELD_KEYS[k] then return nil end end
    local tk = SIMPLE_TYPE_KEYS[g.ty.kind]
    if not tk or g.ty.bits_checked then return nil end
    for k in pairs(g.ty) do if not tk[k] then return nil end end
    if g.ty.kind == "varint" then
      if g.ty.enc ~= "uleb128" then return nil end
      maxw = maxw + 10
    else
      maxw = maxw + g.ty.wire
    end
  end
  return maxw
end

-- Which fast path the elements of array a take before the checked loop, in mode
-- ("dec" or "val"): "rel" (LEB128s relative to the stream state), "skip" (LEB128 lengths
-- only), "plain" (named structs of plain fields; also returns their largest size), "leb"
-- (unsigned LEB128s), or nil (the checked loop alone).
function lower.elem_path(a, mode)
  local et = a.of
  local named = et.kind == "struct" or et.kind == "union"
  local X = a.elem or {}
  local leb = not named and et.kind == "varint" and
      (et.enc == "sleb128" or (et.enc == "uleb128" and et.bits ~= 32))
  if mode == "dec" and leb and (X.delta or X.base) then return "rel" end
  if mode == "val" and leb then return "skip" end
  local sw = named and lower.simple_elem(et)
  if sw then return "plain", sw end
  if not named and et.kind == "varint" and et.enc == "uleb128" and not X.delta and not X.base and not X.shift then
    return "leb"
  end
  return nil
end

-- The element size of an array read after one bounds check (fixed-width numbers with no
-- stream transform), or nil.
function lower.fixed_elem(a)
  local et = a.of
  return (et.kind == "int" or et.kind == "float") and not a.elem and et.wire or nil
end

-- Can decoding T leave a member of its C struct unassigned (conditional fields, regions),
-- looking into inline structs and unions (named ones are decoded by their own functions)?
function lower.may_leave_unset(T)
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do
      if f.when or (f.ty and f.ty.kind == "records") then return true end
      if f.ty and (f.ty.kind == "struct" or f.ty.kind == "union") and not f.ty.named and lower.may_leave_unset(f.ty) then
        return true
      end
    end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do
      if c.ty and (c.ty.kind == "struct" or c.ty.kind == "union") and not c.ty.named and lower.may_leave_unset(c.ty) then
        return true
      end
    end
  end
  return false
end

-- Can decoding T allocate in the record arena (arrays anywhere inside)?
function lower.may_allocate(T, seen)
  seen = seen or {}
  if not T or seen[T] then return false end
  seen[T] = true
  if T.kind == "array" or T.kind == "message" or T.kind == "pbrecord" then return true end
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do if f.ty and lower.may_allocate(f.ty, seen) then return true end end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do if c.ty and lower.may_allocate(c.ty, seen) then return true end end
  end
  return false
end

-- Does a record type open records regions: its own fields, or (a union) a case's named struct?
function lower.opens_regions(T)
  if T.kind == "struct" then
    for _, f in ipairs(T.fields) do if f.ty and f.ty.kind == "records" then return true end end
  elseif T.kind == "union" then
    for _, c in ipairs(T.cases) do
      if c.ty and c.ty.kind == "struct" and c.ty.named and lower.opens_regions(c.ty) then return true end
    end
  end
  return false
end

-- How many records regions a struct's own fields open.
function lower.region_count(T)
  if T.kind ~= "struct" then return 0 end
  local n = 0
  for _, f in ipairs(T.fields) do if f.ty and f.ty.kind == "records" then n = n + 1 end end
  return n
end

-- Does T have a total_size field?
function lower.has_total_size(T)
  if T.kind ~= "struct" then return false end
  for _, f in ipairs(T.fields) do
    if f.derived and f.derived.kind == "total_size" then return true end
  end
  return false
end

-- The fields of segment seg of S (nil: all of them), regions excluded: segment k holds the
-- fields after the k-th region (0: before the first).
function lower.segment_fields(S, seg)
  local out, k = {}, 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then k = k + 1
    elseif f.ty and (seg == nil or seg == k) then out[#out + 1] = f end
  end
  return out
end

-- Position (1-based) of region field g among S's regions.
function lower.region_ordinal(S, g)
  local k = 0
  for _, f in ipairs(S.fields) do
    if f.ty and f.ty.kind == "records" then
      k = k + 1
      if f == g then return k end
    end
  end
  return 0
end

-- Does the root have fields after its regions (a footer, tables placed by a header)?
function lower.root_segments(T)
  local k, after = 0, false
  for _, f in ipairs(T.fields) do
    if f.ty and f.ty.kind == "records" then k = k + 1 elseif k > 0 then after = true end
  end
  return k > 0 and after and k or 0
end

local function pack_int(v, w, e)
  return string.pack(((e == "be" or e == "big") and ">" or "<") .. "I" .. w, v)
end

-- Byte strings a file can start with (for format detection), in file order.
function lower.detect_magics(ir)
  local out = {}
  local function magics_of(ty)
    if not ty then return end
    if ty.kind == "magic" then out[#out + 1] = ty.bytes return true end
    if ty.kind == "struct" and ty.fields[1] then
      local f = ty.fields[1]
      if f.ty and f.ty.kind == "magic" then out[#out + 1] = f.ty.bytes return true end
      if f.ty and f.ty.kind == "int" and f.equals and f.magic then
        local v, w = f.equals, f.ty.wire
        local le = string.pack("<I" .. w, v)
        local be = string.pack(">I" .. w, v)
        if f.ty.byte_order or f.ty.endian == "native" then out[#out + 1] = le; out[#out + 1] = be
        elseif f.ty.endian == "be" or f.ty.endian == "big" then out[#out + 1] = be
        else out[#out + 1] = le end
        return true
      end
      if f.ty and f.ty.kind == "records" and f.ty.record then return magics_of(f.ty.record) end
    end
    if ty.kind == "union" and ty.mode == "peek" then
      for _, c in ipairs(ty.cases) do
        for _, v in ipairs(c.values) do
          local w, e = ty.tagty.wire, ty.tagty.endian
          if e == "native" then out[#out + 1] = string.pack("<I" .. w, v); out[#out + 1] = string.pack(">I" .. w, v)
          else out[#out + 1] = pack_int(v, w, e) end
        end
      end
      return true
    end
  end
  magics_of(ir.root)
  return out
end

-- Sync magics for a region's records (for recovery by scanning).
function lower.sync_magics(R)
  local T = R.record
  local out = {}
  if not T then return out end
  if T.kind == "union" and T.name_tag then
    for _, c in ipairs(T.cases) do
      for _, v in ipairs(c.values) do out[#out + 1] = v .. string.rep("\0", T.tagty.wire - #v) end
    end
  elseif T.kind == "union" and (T.mode == "peek" or T.mode == "tag") then
    for _, c in ipairs(T.cases) do
      for _, v in ipairs(c.values) do out[#out + 1] = pack_int(v, T.tagty.wire, T.tagty.endian) end
    end
  elseif T.kind == "struct" and T.fields[1] and T.fields[1].ty.kind == "magic" then
    out[#out + 1] = T.fields[1].ty.bytes
  end
  return out
end

-- Byte strings worth giving a fuzzer: the detection magics, then every union tag's bytes.
function lower.dict_entries(ir)
  local out, seen = {}, {}
  local function add(bytes)
    if seen[bytes] then return end
    seen[bytes] = true
    out[#out + 1] = bytes
  end
  for _, m in ipairs(lower.detect_magics(ir)) do add(m) end
  for _, k in ipairs(LM.dict_entries(ir)) do add(k) end
  for _, name in ipairs(ir.order) do
    local U = ir.types[name]
    if U.kind == "union" then
      for _, c in ipairs(U.cases) do
        for _, v in ipairs(c.values) do
          if U.name_tag then
            add(v .. string.rep("\0", U.tagty.wire - #v))
          elseif math.type(v) == "integer" and U.tagty then
            add(string.pack((U.tagty.endian == "be" and ">" or "<") .. "I" .. U.tagty.wire, v))
          elseif type(v) == "string" then add(v) end
        end
      end
    end
  end
  return out
end

-- Does the format hold NUL-padded strings anywhere (fields or union names)?
function lower.has_padded_names(ir)
  local padded = false
  local function scan(ty)
    if not ty or padded then return end
    if ty.kind == "bytes" and ty.padded then padded = true
    elseif ty.kind == "struct" then for _, f in ipairs(ty.fields) do scan(f.ty) end
    elseif ty.kind == "union" then
      if ty.name_tag then padded = true end
      for _, c in ipairs(ty.cases) do scan(c.ty) end
    elseif ty.kind == "array" then scan(ty.of) end
  end
  for _, name in ipairs(ir.order) do scan(ir.types[name]) end
  return padded
end

-- Can the format be read as a stream (no placement by offsets, no compressed regions)?
function lower.streamable(ir)
  if ir.whole then return false end
  for _, R in ipairs(ir.regions) do if R.compression then return false end end
  return true
end

-- The derived fields of a region's parent that are patched when the region closes (its
-- size, count or offset, written before it), with their offsets in the parent.
local function region_patches(ir, R, PT)
  local patches = {}
  local off, const_off, before = 0, true, true
  for _, f in ipairs(PT.fields) do
    if f == R.field then before = false end
    if before and f.derived and f.derived.target == R.field.name then
      if not const_off or f.ty.kind ~= "int" then
        error(ir.schema_path .. ": " .. PT.tname .. "." .. f.name ..
          ": a region's size or count must be a fixed-width field at a fixed offset")
      end
      patches[#patches + 1] = { f = f, off = off }
    end
    local w = f.ty and fixed_wire(f.ty)
    if not w or f.when then const_off = false else off = off + w end
  end
  return patches
end

-- Where recovery finds a damaged record's size (recover = { size = ... }): the offset,
-- width and byte order of the size field, the bytes it does not count, the smallest record.
local function recover_size(ir, R)
  local T = R.record
  local rs = { off = -1, w = 0, big = 0, native = 0, add = 0, min = 0 }
  if not (R.recover and R.recover.size) then return rs end
  local sf, off2, size_S = nil, 0, nil
  local cand = {}
  if T.kind == "union" then
    for _, c in ipairs(T.cases) do if c.ty.kind == "struct" then cand[#cand + 1] = c.ty end end
  else
    cand[1] = T
  end
  for _, S in ipairs(cand) do
    local o = 0
    for _, f in ipairs(S.fields) do
      if f.name == R.recover.size then
        if sf and (off2 ~= o or sf.ty.wire ~= f.ty.wire) then
          error(ir.schema_path .. ": recover.size must be at the same offset in every case")
        end
        sf, off2, size_S = f, o, S
        break
      end
      local w = f.ty and fixed_wire(f.ty)
      if not w then break end
      o = o + w
    end
  end
  if not sf or sf.ty.kind ~= "int" then
    error(ir.schema_path .. ": " .. R.name .. ".recover.size names no fixed-offset integer field")
  end
  rs.off, rs.w = off2, sf.ty.wire
  rs.big = (sf.ty.endian == "be") and 1 or 0
  rs.native = (sf.ty.endian == "native") and 1 or 0
  rs.add = sf.derived and sf.derived.kind == "total_size" and 0 or (off2 + sf.ty.wire)
  if sf.derived and sf.derived.kind == "size_of" and size_S then
    -- the size counts the measured field: add the fixed bytes before it
    local o = 0
    for _, g in ipairs(size_S.fields) do
      if g.name == sf.derived.target then rs.add = o break end
      local w = g.ty and not g.when and fixed_wire(g.ty)
      if not w then break end
      o = o + w
    end
  end
  rs.min = T.min or 1
  return rs
end

-- Everything the region glue needs to know about each region.
local function lower_regions(ir)
  for _, R in ipairs(ir.regions) do
    local PT
    for _, name in ipairs(ir.order) do
      local t = ir.types[name]
      if t.kind == "struct" then
        for _, f in ipairs(t.fields) do if f == R.field then PT = t end end
      end
    end
    R.parent = PT
    R.opens = lower.opens_regions(R.record)
    R.has_state = R.state and #R.state.order > 0
    R.may_allocate = lower.may_allocate(R.record)
    R.patches = region_patches(ir, R, PT)
    R.sync = (R.recover and R.recover.sync) and lower.sync_magics(R) or {}
    R.recover_size = recover_size(ir, R)
  end
end

-- A named union of this many cases or more reads each case through a function of its own.
lower.SPLIT_CASES = 16

function lower.run(ir)
  ir.all_types = {}   -- every C struct type, dependencies first
  ir.case_consts = {}
  local seen = {}

  -- bits words: the C name their accessors take (a named word its own; another the field,
  -- union tag or case that holds it), named ones first
  ir.bits_layouts = {}
  local function note_bits(ty, cname)
    if not (ty and ty.kind == "int" and ty.bitfields) then return end
    if not ty.bits_cname then
      ty.bits_cname = ty.bits_name and (ir.prefix .. "_" .. ty.bits_name) or cname
      ty.bits_display = ty.bits_name or cname:sub(#ir.prefix + 2)
      ir.bits_layouts[#ir.bits_layouts + 1] = ty
    end
  end
  local scalar_names = {}
  for name in pairs(ir.scalars) do scalar_names[#scalar_names + 1] = name end
  table.sort(scalar_names)
  for _, name in ipairs(scalar_names) do note_bits(ir.scalars[name]) end

  local walk_struct, walk_union

  local function walk_type(ty, member, err, flat, cname, T)
    if (ty.kind == "struct" or ty.kind == "union") and not ty.named then
      -- how comments name an inline struct or union: type.field.field (no union's u.)
      ty.display = T.tname .. "." .. member:gsub("^u%.", ""):gsub("%.u%.", ".")
    end
    if ty.kind == "struct" and not ty.named then
      ty.cname = cname
      walk_struct(ty, member .. ".", err .. ".", flat .. "_", T)
    elseif ty.kind == "union" and not ty.named then
      ty.cname = cname
      walk_union(ty, member .. ".", err, flat .. "_", T)
    elseif ty.kind == "array" and ty.of then
      -- element types of arrays are named (lifted) or scalar
    end
  end

  walk_struct = function(S, mpre, epre, fpre, T)
    S.min = min_wire(S)
    for _, f in ipairs(S.fields) do
      f.member = mpre .. f.name
      f.errname = epre .. f.name
      f.local_ = "v_" .. (fpre .. f.name):gsub("%.", "_")
      f.owner = S
      if f.ty then
        walk_type(f.ty, f.member, f.errname, fpre .. f.name, S.cname .. "_" .. f.name, T)
        note_bits(f.ty, S.cname .. "_" .. f.name)
        if f.ty.kind == "array" then note_bits(f.ty.of, S.cname .. "_" .. f.name) end
      end
    end
    -- runs of fixed fields
    local runs, cur = {}, nil
    for i, f in ipairs(S.fields) do
      if groupable(f) then
        if not cur then cur = { first = i, fields = {}, wire = 0 }; runs[#runs + 1] = cur end
        f.run = cur
        f.run_off = cur.wire
        cur.fields[#cur.fields + 1] = f
        cur.wire = cur.wire + fixed_wire(f.ty)
      else
        cur = nil
      end
    end
    -- a run of one field is just that field
    local kept = {}
    for _, r in ipairs(runs) do
      if #r.fields > 1 then
        kept[#kept + 1] = r
      else
        r.fields[1].run = nil
        r.fields[1].run_off = nil
      end
    end
    for i, r in ipairs(kept) do
      r.id = i
      r.last = r.fields[#r.fields]
    end
    S.runs = kept
    if not seen[S] then seen[S] = true; ir.all_types[#ir.all_types + 1] = S end
  end

  walk_union = function(U, mpre, epre, fpre, T)
    U.consts = {}
    U.owner = T
    U.case_enum = U.cname .. "_case"
    -- tags are written in hex where the schema documents them so: a tag the union reads
    -- or peeks at, or a hex field it is chosen by
    local on = U.on and U.on.k == "id" and U.on.ref and U.on.ref.field
    U.hex = U.mode == "tag" or U.mode == "peek" or (on and on.hex) or false
    -- a named union of many cases reads each case (an inline struct with fields) through a
    -- function of its own: no function of the generated code grows with the cases
    U.split = U.named and (U.mode == "tag" or U.mode == "peek") and #U.cases >= lower.SPLIT_CASES
    note_bits(U.tagty, U.cname .. "_tag")
    for i, c in ipairs(U.cases) do
      c.index = i - 1
      c.const = names.upper(U.cname .. "_" .. c.name)
      c.member = mpre .. "u." .. c.name
      c.errname = (epre ~= "" and (epre .. "." .. c.name) or c.name)
      if c.ty and (c.ty.kind == "struct" or c.ty.kind == "union") and not c.ty.named then
        c.ty.display = U.display .. "." .. c.name
      end
      if c.ty and c.ty.kind == "struct" and not c.ty.named then
        c.ty.cname = U.cname .. "_" .. c.name
        -- a case read by a function of its own: its locals need no prefix
        c.split = U.split and #c.ty.fields > 0 or nil
        walk_struct(c.ty, c.member .. ".", c.errname .. ".", c.split and "" or (fpre .. c.name .. "_"), T)
      elseif c.ty and c.ty.kind == "union" and not c.ty.named then
        c.ty.cname = U.cname .. "_" .. c.name
        walk_union(c.ty, c.member .. ".", c.errname, fpre .. c.name .. "_", T)
      end
      c.empty = c.ty and c.ty.kind == "struct" and #c.ty.fields == 0
      note_bits(c.ty, U.cname .. "_" .. c.name)
    end
    if not seen[U] then seen[U] = true; ir.all_types[#ir.all_types + 1] = U end
  end

  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    T.display = T.tname
    if T.kind == "struct" then
      walk_struct(T, "", "", "", T)
    elseif T.kind == "message" or T.kind == "pbrecord" then
      LM.run(ir, T)
      if not seen[T] then seen[T] = true; ir.all_types[#ir.all_types + 1] = T end
    else
      walk_union(T, "", "", "", T)
    end
    T.min = min_wire(T)
  end

  -- regions: names and indices (a field name that several types use for a region is
  -- qualified by the type that owns it)
  local uses = {}
  for _, R in ipairs(ir.regions) do uses[R.name] = (uses[R.name] or 0) + 1 end
  for i, R in ipairs(ir.regions) do
    R.index = i - 1
    local nm = R.name
    if uses[R.name] > 1 then
      for _, tname in ipairs(ir.order) do
        local T = ir.types[tname]
        if T.kind == "struct" then
          for _, f in ipairs(T.fields) do if f == R.field then nm = tname .. "_" .. R.name end end
        end
      end
    end
    R.cname = ir.prefix .. "_region_" .. nm
    R.state_cname = ir.prefix .. "_" .. nm .. "_state"
  end
  lower_regions(ir)
  -- where each field of a named type sits, for warnings (and the _AT constants): from the
  -- record's start for fields after fixed-size ones, from the input's end for at_end ones
  local function positions(S, base)
    local pos = 0
    for _, f in ipairs(S.fields) do
      if f.name and type(f.at_end) == "number" then
        f.wpos = { at_end = f.at_end }
      elseif pos and not f.at and not f.at_end and f.name then
        f.wpos = { at = base + pos }
        if f.ty and f.ty.kind == "struct" and not f.ty.named then positions(f.ty, base + pos) end
        local w = fixed_wire(f.ty)
        pos = w and pos + w or nil
      end
    end
  end
  ir.warn_types = {}
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if T.kind == "struct" then
      positions(T, 0)
      local function any(S)
        for _, f in ipairs(S.fields) do
          if f.warns and #f.warns > 0 then return true end
          if f.ty and f.ty.kind == "struct" and not f.ty.named and any(f.ty) then return true end
        end
        return false
      end
      if any(T) then
        T.warn_fn = T.cname .. "_warnings"
        ir.warn_types[#ir.warn_types + 1] = T
      end
    end
  end
  return ir
end

return lower
