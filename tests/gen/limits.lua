-- limits.lua: size limits that keep the generator and its output readable: no file of the
-- generator (gen/) over 800 lines, no generated C function (generated/, and the fixtures'
-- expected C) over 400 lines. Prints each one over its limit and exits 1.
-- usage: lua5.4 tests/gen/limits.lua [--report]   (from the repository root; --report also
-- prints the longest functions)
local report = arg[1] == "--report"
local MAX_GEN_LINES, MAX_FN_LINES = 800, 400
local failures = 0

local function lines_of(path)
  local f = assert(io.open(path, "rb"))
  local t = {}
  for l in f:lines() do t[#t + 1] = l end
  f:close()
  return t
end

local function list(cmd)
  local out = {}
  local p = io.popen(cmd)
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  table.sort(out)
  return out
end

for _, path in ipairs(list("find gen -name '*.lua'")) do
  local n = #lines_of(path)
  if n > MAX_GEN_LINES then
    io.write(string.format("FAIL %s: %d lines (at most %d)\n", path, n, MAX_GEN_LINES))
    failures = failures + 1
  end
end

-- A function definition: a line at the start of a line that ends with ")", then "{" alone,
-- then its body up to the "}" alone at the start of a line.
local longest = {}
for _, path in ipairs(list("find generated tests/gen/expected -name '*.c'")) do
  local L = lines_of(path)
  local i = 1
  while i < #L do
    if L[i]:match("^[%a_][^;]*%)$") and L[i + 1] == "{" then
      local j = i + 2
      while j <= #L and L[j] ~= "}" do j = j + 1 end
      local n = j - i + 1
      local name = L[i]:match("([%w_]+)%(") or L[i]
      longest[#longest + 1] = { n = n, where = path .. ":" .. i .. ": " .. name }
      if n > MAX_FN_LINES then
        io.write(string.format("FAIL %s:%d: %s is %d lines (at most %d)\n", path, i, name, n, MAX_FN_LINES))
        failures = failures + 1
      end
      i = j
    end
    i = i + 1
  end
end

if report then
  table.sort(longest, function(a, b) return a.n > b.n end)
  for k = 1, math.min(15, #longest) do io.write(string.format("%5d  %s\n", longest[k].n, longest[k].where)) end
end
if failures > 0 then
  io.write(failures, " over their size limits\n")
  os.exit(1)
end
io.write("sizes within limits: gen/ files at most ", MAX_GEN_LINES, " lines, generated functions at most ",
  MAX_FN_LINES, " lines\n")
