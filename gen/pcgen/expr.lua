-- expr.lua: the schema's small expression language (C-like integer expressions).
--
--   expr := a C-like expression over integer literals (decimal or 0x hex),
--           names of fields read earlier (`size`, `header.version`, `state.time`),
--           ( ) and the operators || && | ^ & == != < <= > >= << >> + - * / % ! ~ -
-- Parsing gives an AST; emitting asks a resolver for the C spelling of each name.
local expr = {}

local function tokenize(s)
  local toks, i = {}, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif s:match("^0[xX]%x", i) then
      local h = s:match("^0[xX]([%x_]+)", i)
      toks[#toks + 1] = { t = "num", v = math.tointeger(tonumber((h:gsub("_", "")), 16)) }
      i = i + 2 + #h
    elseif c:match("%d") then
      local d = s:match("^[%d_]+", i)
      local v = math.tointeger(tonumber((d:gsub("_", ""))))
      if not v then return nil, "number too large: " .. d end
      toks[#toks + 1] = { t = "num", v = v }
      i = i + #d
    elseif c:match("[%a_]") then
      local id = s:match("^[%a_][%w_]*[%.%w_]*", i)
      toks[#toks + 1] = { t = "id", v = id }
      i = i + #id
    elseif c == '"' then
      local j = s:find('"', i + 1, true)
      if not j then return nil, "unterminated string" end
      toks[#toks + 1] = { t = "str", v = s:sub(i + 1, j - 1) }
      i = j + 1
    else
      local two = s:sub(i, i + 1)
      if two == "||" or two == "&&" or two == "==" or two == "!=" or two == "<=" or two == ">="
          or two == "<<" or two == ">>" then
        toks[#toks + 1] = { t = "op", v = two }
        i = i + 2
      elseif c:match("[%|%^&<>%+%-%*/%%!~%(%)]") then
        toks[#toks + 1] = { t = "op", v = c }
        i = i + 1
      else
        return nil, "unexpected character '" .. c .. "'"
      end
    end
  end
  toks[#toks + 1] = { t = "eof" }
  return toks
end

local levels = {
  { "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" }, { "<", "<=", ">", ">=" },
  { "<<", ">>" }, { "+", "-" }, { "*", "/", "%" },
}

function expr.parse(s)
  if math.type(s) == "integer" then return { k = "num", v = s } end
  if type(s) ~= "string" then return nil, "an expression must be a string or an integer" end
  local toks, err = tokenize(s)
  if not toks then return nil, err end
  local pos = 1
  local function peek() return toks[pos] end
  local function take() pos = pos + 1; return toks[pos - 1] end
  local parse_level
  local function primary()
    local t = take()
    if t.t == "num" then return { k = "num", v = t.v } end
    if t.t == "str" then return { k = "str", v = t.v } end
    if t.t == "id" then return { k = "id", v = t.v } end
    if t.t == "op" and (t.v == "!" or t.v == "~" or t.v == "-") then
      local e = primary()
      if not e then return nil end
      return { k = "un", op = t.v, a = e }
    end
    if t.t == "op" and t.v == "(" then
      local e = parse_level(1)
      if not e then return nil end
      local c = take()
      if c.t ~= "op" or c.v ~= ")" then error("expected ')'") end
      return { k = "paren", a = e }
    end
    error("unexpected " .. (t.v and tostring(t.v) or t.t))
  end
  parse_level = function(l)
    if l > #levels then return primary() end
    local left = parse_level(l + 1)
    while true do
      local t = peek()
      local hit = false
      if t.t == "op" then
        for _, op in ipairs(levels[l]) do if op == t.v then hit = true end end
      end
      if not hit then return left end
      take()
      local right = parse_level(l + 1)
      left = { k = "bin", op = t.v, a = left, b = right }
    end
  end
  local ok, res = pcall(function()
    local e = parse_level(1)
    if peek().t ~= "eof" then error("unexpected '" .. tostring(peek().v) .. "'") end
    return e
  end)
  if not ok then return nil, (tostring(res):gsub("^.-:%d+: ", "")) end
  return res
end

-- Names an expression uses, in order of appearance.
function expr.names(ast, out)
  out = out or {}
  if not ast then return out end
  if ast.k == "id" then out[#out + 1] = ast.v end
  if ast.a then expr.names(ast.a, out) end
  if ast.b then expr.names(ast.b, out) end
  return out
end

local function cnum(v)
  if v >= -2147483647 and v <= 2147483647 then return tostring(v) end
  if v < 0 then return string.format("INT64_C(%d)", v) end
  return string.format("UINT64_C(%d)", v)
end
expr.cnum = cnum

-- C for the AST; resolve(name) returns the C spelling of a name.
function expr.emit(ast, resolve)
  local k = ast.k
  if k == "num" then return cnum(ast.v) end
  if k == "str" then error("a string literal is only allowed as a union case") end
  if k == "id" then return resolve(ast.v) end
  if k == "paren" then return "(" .. expr.emit(ast.a, resolve) .. ")" end
  if k == "un" then return ast.op .. expr.emit(ast.a, resolve) end
  return "(" .. expr.emit(ast.a, resolve) .. " " .. ast.op .. " " .. expr.emit(ast.b, resolve) .. ")"
end

-- Evaluates a constant expression (names not allowed); nil if not constant.
function expr.const(ast)
  if not ast then return nil end
  if ast.k == "num" then return ast.v end
  if ast.k == "paren" then return expr.const(ast.a) end
  if ast.k == "un" then
    local a = expr.const(ast.a)
    if not a then return nil end
    if ast.op == "-" then return -a elseif ast.op == "~" then return ~a else return a == 0 and 1 or 0 end
  end
  if ast.k == "bin" then
    local a, b = expr.const(ast.a), expr.const(ast.b)
    if not a or not b then return nil end
    local op = ast.op
    if op == "+" then return a + b elseif op == "-" then return a - b
    elseif op == "*" then return a * b elseif op == "/" then return b ~= 0 and a // b or nil
    elseif op == "%" then return b ~= 0 and a % b or nil elseif op == "<<" then return a << b
    elseif op == ">>" then return a >> b elseif op == "&" then return a & b
    elseif op == "|" then return a | b elseif op == "^" then return a ~ b
    elseif op == "==" then return a == b and 1 or 0 elseif op == "!=" then return a ~= b and 1 or 0
    elseif op == "<" then return a < b and 1 or 0 elseif op == "<=" then return a <= b and 1 or 0
    elseif op == ">" then return a > b and 1 or 0 elseif op == ">=" then return a >= b and 1 or 0
    elseif op == "&&" then return (a ~= 0 and b ~= 0) and 1 or 0
    elseif op == "||" then return (a ~= 0 or b ~= 0) and 1 or 0 end
  end
  return nil
end

return expr
