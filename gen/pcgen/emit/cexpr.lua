-- emit/cexpr.lua: schema expressions in C. A name becomes the local that holds the field
-- (decode, validate), the member of the record being written (encode, size) or checked
-- (warn), a state variable (st->x), a root field, the version or the input's size.
local expr = require("pcgen.expr")
local C = require("pcgen.emit.common")

local X = {}

-- A MOJO varint (sign and magnitude) as a signed number.
local function mojo_signed(v) return "(" .. v .. ".neg ? -(int64_t)" .. v .. ".mag : (int64_t)" .. v .. ".mag)" end

local name_of

-- A name, or (config.mode) a sub-field of a bits word through its accessor.
local function ref_of(n, env)
  local v = name_of(n, env)
  local b = n.ref.bit
  if not b then return v end
  return n.ref.field.ty.bits_cname .. "_" .. b.name .. "(" .. v .. ")"
end

name_of = function(n, env)
  local r = n.ref
  if r.version then return "(" .. env.xp .. "->version)" end
  if r.input_size and env.mode == "warn" then return "input_size" end -- a parameter of the warnings
  if r.input_size then
    if env.mode ~= "dec" and env.mode ~= "val" then
      error("input_size is only known when decoding (pcgen should not have asked for it here)")
    end
    C.declare(env, "input_size", "uint64_t", "0")
    return "input_size"
  end
  if r.state then
    env.need_state = r.region
    return "st->" .. r.state.name
  end
  if r.root then
    env.need_root = true
    return "((const " .. env.ir.root.cname .. " *)" .. env.xp .. "->root)->" .. r.root.member
  end
  local f = r.field
  local mojo = f.ty.kind == "varint" and f.ty.enc == "mojo"
  if env.mode == "dec" or env.mode == "val" then
    env.used_locals[f] = true
    return mojo and mojo_signed(f.local_) or f.local_
  end
  if f.derived and env.mode ~= "warn" then
    env.used_derived[f] = true
    return "d_" .. f.local_:sub(3)
  end
  local m = env.obj .. "->" .. f.member
  return mojo and mojo_signed(m) or m
end

function X.cexpr(ast, env)
  local function rec(n)
    local k = n.k
    if k == "num" then return expr.cnum(n.v) end
    if k == "paren" then return "(" .. rec(n.a) .. ")" end
    if k == "un" then return n.op .. rec(n.a) end
    if k == "bin" then return "(" .. rec(n.a) .. " " .. n.op .. " " .. rec(n.b) .. ")" end
    if k == "id" then return ref_of(n, env) end
    error("bad expression node")
  end
  return rec(ast)
end

-- An expression for if (...): without a redundant outer pair of parentheses.
function X.cond(ast, env)
  local s = X.cexpr(ast, env)
  if s:sub(1, 1) == "(" and s:sub(-1) == ")" then
    local depth = 0
    for i = 1, #s do
      local ch = s:sub(i, i)
      if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1 end
      if depth == 0 and i < #s then return s end
    end
    return s:sub(2, -2)
  end
  return s
end

return X
