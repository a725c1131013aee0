-- check/expr.lua: names in expressions: the fields, state variables, root fields
-- and the input size an expression reads, each resolved to what it refers to.
local expr = require("pcgen.expr")
local names = require("pcgen.names")

return function(cx)
  local diag, ir, fmt = cx.diag, cx.ir, cx.fmt
  local sorted_keys, as_type, int_ctype = cx.sorted_keys, cx.as_type, cx.int_ctype
  -- input_ok: the expression places or bounds data when reading (a region's size, at or
  -- count, a field's at), so it may use input_size, the size of the whole input
  function cx.resolve_expr(src, path, scope, what, input_ok)
    local ast, err = expr.parse(src)
    if not ast then diag(path, "bad expression in " .. what .. ": " .. err) return nil end
    local ok = true
    local function walk(n)
      if not n then return end
      if n.k == "id" then
        local id = n.v
        if id == "version" then
          n.ref = { version = true }
        elseif id == "input_size" then
          -- the size of the whole input, known when reading: in the root type's fields, and
          -- in expressions that place or bound data (a region's size, at or count, a field's at)
          if input_ok or ir.cur_type == cx.root_name then
            n.ref = { input_size = true }
            ir.whole = true
          else
            diag(path, "input_size (the size of the whole input) is known only when reading: use it in the root type's fields, a records region's size, at or count, or a field's at")
            ok = false
          end
        elseif id:match("^state%.") then
          local var = id:sub(7)
          local st = scope.state
          if not st or not st.vars[var] then
            diag(path, "unknown state variable '" .. var .. "' in " .. what)
            ok = false
          else
            n.ref = { state = st.vars[var], region = st.region }
          end
        elseif id:match("^root%.") then
          n.ref = { root = id:sub(6) }
          scope.root_refs[#scope.root_refs + 1] = { ast = n, path = path }
        else
          local f
          local fr = scope.frames
          local head, rest = id:match("^([%a_][%w_]*)%.(.+)$")
          while fr and not f do
            f = fr.fields[head or id]
            fr = fr.up
          end
          -- footer.count: a field of an inline struct read earlier; config.mode: a
          -- sub-field of a bits word
          local bit
          while f and rest do
            local seg
            seg, rest = rest:match("^([%a_][%w_]*)%.?(.*)$")
            if rest == "" then rest = nil end
            local sty = f.ty
            local b = sty and sty.kind == "int" and sty.bitfield_by_name and sty.bitfield_by_name[seg]
            if b and not rest then
              bit = b
              break
            end
            if not (sty and sty.kind == "struct" and not sty.named and sty.by_name and sty.by_name[seg]) then
              diag(path, "'" .. id .. "' in " .. what .. ": '" .. seg ..
                "' is not a field of an inline struct, or a sub-field of a bits word, read before")
              ok = false
              f = nil
              break
            end
            f = sty.fields[sty.by_name[seg]]
          end
          if not f and head and ok == false then
            -- already reported
          elseif not f then
            local cands, later = {}, {}
            fr = scope.frames
            while fr do
              for k in pairs(fr.fields) do cands[#cands + 1] = k end
              for k in pairs(fr.all or {}) do if not fr.fields[k] then later[#later + 1] = k end end
              fr = fr.up
            end
            table.sort(cands)
            table.sort(later)
            local near = names.near(id, cands)
            local near_later = names.near(id, later)
            local hint = ""
            if scope.frames and scope.frames.all and scope.frames.all[id] then
              hint = " ('" .. id .. "' is read after it)"
            elseif near then
              hint = " (did you mean '" .. near .. "'?)"
            elseif near_later then
              hint = " (did you mean '" .. near_later .. "'? it is read after this one)"
            end
            diag(path, "'" .. id .. "' in " .. what .. " is not a field read before this one" .. hint)
            ok = false
          else
            local k = f.ty.kind
            if k == "magic" and f.optional then
              k = "int" -- an optional magic reads as 1 when present, 0 when not
            end
            if k ~= "int" and k ~= "varint" and not (k == "bytes" and what == "union tag") then
              diag(path, "'" .. id .. "' in " .. what .. " is not an integer field")
              ok = false
            end
            n.ref = { field = f, bit = bit }
            f.referenced = true
          end
        end
      end
      walk(n.a)
      walk(n.b)
    end
    walk(ast)
    return ok and ast or nil
  end
end
