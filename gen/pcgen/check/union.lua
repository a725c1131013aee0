-- check/union.lua: tagged unions checked and resolved case by case, and named
-- types (resolved once, cycles reported).
local names = require("pcgen.names")

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt
  local sorted_keys, as_type, int_ctype = cx.sorted_keys, cx.as_type, cx.int_ctype
  local function resolve_expr(...) return cx.resolve_expr(...) end
  local function resolve_type(...) return cx.resolve_type(...) end
  local function resolve_struct(...) return cx.resolve_struct(...) end
  local resolving = cx.resolving
  function cx.resolve_union(t, path, scope, ctx)
    local u = { kind = "union", cases = {}, doc = t.doc, tag_key = t.tag_key or "_kind" }
    local n = (t.on ~= nil and 1 or 0) + (t.tag ~= nil and 1 or 0) + (t.peek ~= nil and 1 or 0)
    if n ~= 1 then diag(path, "a union needs exactly one of tag = <type>, peek = <type>, on = \"expr\"") end
    if t.on ~= nil then
      u.mode = "on"
      if type(t.on) == "string" and t.on:match("^[%a_][%w_]*$") then
        u.on = resolve_expr(t.on, path, scope, "union tag")
      else
        u.on = resolve_expr(t.on, path, scope, "union tag")
      end
      if u.on and u.on.k == "id" and u.on.ref and u.on.ref.field and u.on.ref.field.ty.kind == "bytes" then
        u.string_tag = true
      end
    elseif t.tag ~= nil or t.peek ~= nil then
      u.mode = t.tag ~= nil and "tag" or "peek"
      local tt = as_type(t.tag or t.peek, path .. ".tag")
      if tt and tt.kind == "bytes" and t.tag ~= nil and tt.padded and math.type(tt.fixed) == "integer" then
        -- a name: a NUL-padded fixed string (compared up to its first NUL)
        u.tagty = resolve_type(tt, path .. ".tag", scope, {})
        u.string_tag = true
        u.name_tag = true
      elseif tt and tt.kind ~= "int" then
        diag(path, "a union tag type must be a fixed-width integer (or, for tag =, a fixed_string { fixed = N })")
      elseif tt then
        u.tagty = resolve_type(tt, path .. ".tag", scope, ctx)
        if u.tagty and u.tagty.bits_checked then
          diag(path .. ".tag", "a union's tag is checked by its cases: its sub-fields take no checks")
        end
      end
    end
    local seen_names, seen_vals = {}, {}
    local has_default = false
    for i, c in ipairs(t.cases) do
      if type(c) ~= "table" or c.kind ~= "case" then
        diag(path .. "[" .. i .. "]", "union entries must be case(value, \"name\", type)")
        goto continue
      end
      local cpath = path .. "." .. tostring(c.name)
      local bad = names.check(c.name, "case")
      if bad then diag(cpath, bad) end
      if seen_names[c.name] then diag(cpath, "duplicate case name '" .. tostring(c.name) .. "'") end
      seen_names[c.name] = true
      local C = { name = c.name, values = {}, default = c.default }
      if c.default then
        if has_default then diag(cpath, "only one default_case") end
        has_default = true
      end
      for _, v in ipairs(c.values) do
        local key
        if u.string_tag then
          if type(v) ~= "string" then diag(cpath, "cases of a string tag are strings") end
          key = "s:" .. tostring(v)
        else
          if math.type(v) ~= "integer" then diag(cpath, "case values must be integers") end
          key = "i:" .. tostring(v)
        end
        if seen_vals[key] then diag(cpath, "case value " .. tostring(v) .. " is used twice") end
        seen_vals[key] = true
        C.values[#C.values + 1] = v
      end
      if #C.values == 0 and not c.default then diag(cpath, "a case needs at least one value") end
      if #C.values > 1 and u.mode == "peek" then diag(cpath, "a peeked case has exactly one value") end
      if u.name_tag then
        if c.default then diag(cpath, "a union with a name tag has no default_case (its tag could not be written back)") end
        if #C.values > 1 then diag(cpath, "a case of a name tag has exactly one name") end
        for _, v in ipairs(C.values) do
          if type(v) == "string" and (#v == 0 or #v > u.tagty.fixed or v:find("\0", 1, true)) then
            diag(cpath, "a tag name must be 1 to " .. u.tagty.fixed .. " bytes without NUL")
          end
        end
      end
      local sub = { lift_name = (ctx.lift_name or "") .. "_" .. tostring(c.name),
        path_prefix = c.name, sized = ctx.sized, in_case = true }
      C.ty = c.type ~= nil and resolve_type(c.type, cpath, scope, sub) or nil
      if c.type == nil then C.ty = { kind = "struct", fields = {}, by_name = {} } end
      if C.ty and C.ty.kind == "records" then diag(cpath, "a union case cannot be a records region") end
      u.cases[#u.cases + 1] = C
      ::continue::
    end
    if #u.cases == 0 then diag(path, "a union needs at least one case") end
    return u
  end

  function cx.resolve_named(name, path, inline, state, extra)
    local T = ir.types[name] or ir.scalars[name]
    if T then return T end
    if resolving[name] then
      diag(path, "type '" .. name .. "' contains itself")
      return nil
    end
    local bad = names.check(name)
    if bad then diag("types." .. name, bad) end
    resolving[name] = true
    local outer_type = ir.cur_type
    ir.cur_type = name
    local src = inline or fmt.types[name]
    local tpath = "types." .. name
    if inline then tpath = path end
    local scope = { frames = nil, state = state, root_refs = {} }
    local t = as_type(src, tpath)
    local node
    if t and (t.kind == "struct") then
      node = resolve_struct(t, tpath, scope, { named_top = true, lift_base = name .. "_",
        sized = extra and extra.sized })
    elseif t then
      node = resolve_type(t, tpath, scope, { lift_name = name, named = t.kind == "message" })
    end
    resolving[name] = nil
    ir.cur_type = outer_type
    if not node then return nil end
    if node.kind ~= "struct" and node.kind ~= "union" and node.kind ~= "message" then
      -- a named scalar or array is used inline wherever it is referenced; a named bits
      -- word gives its accessors that name
      ir.scalars[name] = node
      if node.bitfields then node.bits_name = name end
      return node
    end
    node.named = true
    node.tname = name
    node.cname = ir.prefix .. "_" .. name
    node.root_refs = scope.root_refs
    node.state_region = state and state.region
    ir.types[name] = node
    ir.order[#ir.order + 1] = name
    return node
  end
end
