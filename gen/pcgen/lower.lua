-- lower.lua: decides C names, member paths, locals, error paths and wire sizes, so
-- the emitters only format decisions already made here.
local names = require("pcgen.names")
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

function lower.run(ir)
  ir.all_types = {}   -- every C struct type, dependencies first
  ir.case_consts = {}
  local seen = {}

  local walk_struct, walk_union

  local function walk_type(ty, member, err, flat, cname, T)
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
    for i, c in ipairs(U.cases) do
      c.index = i - 1
      c.const = names.upper(U.cname .. "_" .. c.name)
      c.member = mpre .. "u." .. c.name
      c.errname = (epre ~= "" and (epre .. "." .. c.name) or c.name)
      if c.ty and c.ty.kind == "struct" and not c.ty.named then
        c.ty.cname = U.cname .. "_" .. c.name
        walk_struct(c.ty, c.member .. ".", c.errname .. ".", fpre .. c.name .. "_", T)
      elseif c.ty and c.ty.kind == "union" and not c.ty.named then
        c.ty.cname = U.cname .. "_" .. c.name
        walk_union(c.ty, c.member .. ".", c.errname, fpre .. c.name .. "_", T)
      end
      c.empty = c.ty and c.ty.kind == "struct" and #c.ty.fields == 0
    end
    if not seen[U] then seen[U] = true; ir.all_types[#ir.all_types + 1] = U end
  end

  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    if T.kind == "struct" then
      walk_struct(T, "", "", "", T)
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
  return ir
end

return lower
