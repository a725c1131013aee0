-- check/view.lua: views (views = { name = view { of = "union", field ... } }): one C struct
-- for a union across its cases and across the versions of a format. A member is filled from
-- the field of its name (or the paths `from` lists, in order) in whichever case holds one of
-- a type it can hold; a path is field.field through inline structs, may cross an inline union
-- (each of its cases, or the one it names when more follows), and may start with a case
-- name (that case only).
local names = require("pcgen.names")
local vocab = require("pcgen.vocab")

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt

  local VARINT_CT = { sleb128 = "int64_t", zigzag64 = "int64_t", zigzag32 = "int32_t" }

  -- What a member holds: a number (its C type), a MOJO varint, a byte string, an array.
  local function member_type(t, path)
    if not vocab.is_type(t) then diag(path, "a view member's type is a number, a byte string or an array of them") return nil end
    if t.kind == "int" then return { kind = "num", ctype = cx.int_ctype(t.bits, t.signed) } end
    if t.kind == "float" then return { kind = "num", ctype = t.bits == 32 and "float" or "double" } end
    if t.kind == "varint" then
      if t.enc == "mojo" then return { kind = "mojo", ctype = "pcd_mojo_int" } end
      local ct = VARINT_CT[t.enc] or ((t.bits == 32) and "uint32_t" or "uint64_t")
      return { kind = "num", ctype = ct }
    end
    if t.kind == "bytes" then return { kind = "bytes", ctype = "pcd_bytes" } end
    if t.kind == "array" then
      local e = t.of and member_type(t.of, path .. "[]")
      if e and e.kind ~= "array" then return { kind = "array", elem = e } end
      if e then diag(path, "a view member is an array of numbers or byte strings, not of arrays") end
      return nil
    end
    diag(path, "a view member's type is a number, a byte string or an array of them")
    return nil
  end

  -- Can a field of IR type ty fill a member of type m?
  local function fits(ty, m)
    if not ty then return false end
    if m.kind == "num" then
      return ty.kind == "int" or ty.kind == "float" or (ty.kind == "varint" and ty.enc ~= "mojo")
    end
    if m.kind == "mojo" then return ty.kind == "varint" and ty.enc == "mojo" end
    if m.kind == "bytes" then return ty.kind == "bytes" end
    if m.kind == "array" then
      local e = ty.kind == "array" and ty.of
      if not e or not fits(e, m.elem) then return false end
      local ct = (e.kind == "bytes") and "pcd_bytes" or e.ctype
      return ct == m.elem.ctype
    end
    return false
  end

  -- The places segs names in struct S: { field, conds } (conds: inner unions' cases).
  local function find(S, segs, i, conds, out)
    local f = S.by_name and S.by_name[segs[i]] and S.fields[S.by_name[segs[i]]]
    if not f or not f.ty then return end
    if i == #segs then
      out[#out + 1] = { field = f, conds = conds }
      return
    end
    local ty = f.ty
    if ty.kind == "struct" and not ty.named then
      find(ty, segs, i + 1, conds, out)
    elseif ty.kind == "union" and not ty.named then
      local named_case
      -- detail.class.name: case class's name; detail.class: any case's field class
      if i + 2 <= #segs then
        for _, c in ipairs(ty.cases) do if c.name == segs[i + 1] then named_case = c end end
      end
      for _, c in ipairs(ty.cases) do
        local j = named_case and i + 2 or i + 1
        if (not named_case or c == named_case) and j <= #segs and c.ty.kind == "struct" and not c.ty.named then
          local c2 = {}
          for _, x in ipairs(conds) do c2[#c2 + 1] = x end
          c2[#c2 + 1] = { union_field = f, case = c }
          find(c.ty, segs, j, c2, out)
        end
      end
    end
  end

  local function resolve_view(vname, V, path)
    local U = type(V.of) == "string" and ir.types[V.of]
    if not U or U.kind ~= "union" then
      diag(path, "of must name a union of this version (the record type the view is of)")
      return nil
    end
    U.case_by_name = U.case_by_name or {}
    for _, c in ipairs(U.cases) do U.case_by_name[c.name] = c end
    local view = { name = vname, doc = V.doc, of = U, members = {} }
    local seen = {}
    for _, k in ipairs(cx.sorted_keys(V)) do
      if k ~= "kind" and k ~= "of" and k ~= "doc" and k ~= "fields" then
        diag(path, "unknown view key '" .. tostring(k) .. "' (of, doc, and its fields)")
      end
    end
    for i, f in ipairs(V.fields) do
      if type(f) ~= "table" or f.kind ~= "field" then
        diag(path .. "[" .. i .. "]", "a view's entries are field \"name\" (type, { from = {...} })")
        goto continue
      end
      do
        local mpath = path .. "." .. tostring(f.name)
        local bad = names.check(f.name)
        if bad then diag(mpath, bad) end
        if f.name == "kind" or f.name == "version" or f.name == "tag" then
          diag(mpath, "'" .. f.name .. "' is reserved in a view (its case, version and tag)")
        end
        if seen[f.name] then diag(mpath, "duplicate member '" .. f.name .. "'") end
        seen[f.name] = true
        local m = member_type(f.type, mpath)
        local o = f.opts or {}
        for _, k in ipairs(cx.sorted_keys(o)) do
          if k ~= "from" and k ~= "doc" then diag(mpath, "unknown option '" .. tostring(k) .. "' for a view member (from, doc)") end
        end
        local from = o.from
        if type(from) == "string" then from = { from } end
        if from ~= nil and type(from) ~= "table" then diag(mpath, "from takes a path or a list of paths") from = nil end
        local M = { name = f.name, type = m, doc = o.doc or (vocab.is_type(f.type) and f.type.doc), by_case = {},
          paths = from or { f.name }, matched = {} }
        if m then
          local explicit = from ~= nil
          local mismatched = {} -- a path the schema names that holds something else
          for _, p in ipairs(from or { f.name }) do
            local segs = {}
            for s in tostring(p):gmatch("[^.]+") do segs[#segs + 1] = s end
            local only = #segs > 1 and U.case_by_name[segs[1]]
            local matched = false
            for _, c in ipairs(U.cases) do
              if not only or only == c then
                local list = {}
                local rest = only and { table.unpack(segs, 2) } or segs
                if c.ty.kind == "struct" then
                  find(c.ty, rest, 1, {}, list)
                elseif #rest == 1 and rest[1] == c.name then
                  list[1] = { case_value = c }
                end
                for _, src in ipairs(list) do
                  local ty = src.case_value and c.ty or src.field.ty
                  if fits(ty, m) then
                    src.case = c
                    M.by_case[c] = M.by_case[c] or {}
                    local srcs = M.by_case[c]
                    -- an unconditional source ends the list for this case
                    if not (#srcs > 0 and #srcs[#srcs].conds == 0) then
                      src.conds = src.conds or {}
                      srcs[#srcs + 1] = src
                    end
                    matched = true
                  elseif explicit then
                    mismatched[#mismatched + 1] = { case = c, path = p }
                  end
                end
              end
            end
            -- a path another version has is fine: pcgen checks that some version has each
            if matched then M.matched[p] = true end
          end
          -- another of the paths may fill the case instead; if none does, say so
          for _, mm in ipairs(mismatched) do
            if not M.by_case[mm.case] then
              diag(mpath, "'" .. mm.path .. "' in case " .. mm.case.name .. " is not what member " .. f.name .. " holds")
            end
          end
          view.members[#view.members + 1] = M
        end
      end
      ::continue::
    end
    return view
  end

  function cx.resolve_views()
    ir.views = {}
    if fmt.views == nil then return end
    if type(fmt.views) ~= "table" then diag("format.views", "views = { name = view { of = \"type\", field ... } }") return end
    for _, vname in ipairs(cx.sorted_keys(fmt.views)) do
      local V = fmt.views[vname]
      local path = "views." .. tostring(vname)
      local bad = names.check(vname)
      if bad then diag(path, bad)
      elseif type(V) ~= "table" or V.kind ~= "view" then diag(path, "views = { name = view { of = \"type\", field ... } }")
      else
        local view = resolve_view(vname, V, path)
        if view then ir.views[#ir.views + 1] = view end
      end
    end
  end
end
