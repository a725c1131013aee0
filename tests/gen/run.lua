-- run.lua: generator tests. Every tests/gen/ok/*.lua must generate exactly the files in
-- tests/gen/expected/<name>/, and so must every folder tests/gen/ok/<name>/ of several
-- versions of one format (its *.lua not starting with _, generated together: views across
-- versions); every tests/gen/bad/*.lua must fail with exactly the diagnostics in
-- tests/gen/bad/<name>.expected.txt, writing nothing.
-- usage: lua5.4 tests/gen/run.lua [--fix]     (from the repository root)
local fix = arg[1] == "--fix"
local failures = 0

local function read(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function write(p, s)
  local f = assert(io.open(p, "wb"))
  f:write(s)
  f:close()
end

local function list(dir, pat)
  local out = {}
  local p = io.popen("ls " .. dir .. " 2>/dev/null")
  for l in p:lines() do if l:match(pat) then out[#out + 1] = l end end
  p:close()
  table.sort(out)
  return out
end

local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p " .. tmp)

local fixtures = list("tests/gen/ok", "%.lua$")
for _, d in ipairs(list("tests/gen/ok", "^fx_[%w_]+$")) do fixtures[#fixtures + 1] = d end
table.sort(fixtures)
for _, f in ipairs(fixtures) do
  local name = f:gsub("%.lua$", "")
  local out = tmp .. "/" .. name
  os.execute("rm -rf " .. out .. " && mkdir -p " .. out)
  local schemas = "tests/gen/ok/" .. f
  if not f:match("%.lua$") then
    local s = {}
    for _, g in ipairs(list("tests/gen/ok/" .. f, "^[^_].*%.lua$")) do s[#s + 1] = "tests/gen/ok/" .. f .. "/" .. g end
    schemas = table.concat(s, " ")
  end
  local ok = os.execute("lua5.4 gen/pcgen.lua --no-registry --schemas tests/gen/ok -o " .. out ..
    " --docs " .. out .. " " .. schemas .. " >/dev/null 2>" .. out .. ".err")
  if not ok then
    io.write("FAIL ok/", f, ": generator failed:\n", read(out .. ".err") or "", "\n")
    failures = failures + 1
  else
    local exp = "tests/gen/expected/" .. name
    if fix then os.execute("rm -rf " .. exp .. " && mkdir -p " .. exp) end
    for _, g in ipairs(list(out, ".")) do
      local got, want = read(out .. "/" .. g), read(exp .. "/" .. g)
      if fix then
        write(exp .. "/" .. g, got)
      elseif got ~= want then
        io.write("FAIL ok/", f, ": ", g, " differs from tests/gen/expected/", name, "/", g,
          " (run: lua5.4 tests/gen/run.lua --fix, and review the diff)\n")
        failures = failures + 1
      end
    end
    if not fix then
      for _, g in ipairs(list(exp, ".")) do
        if not read(out .. "/" .. g) then
          io.write("FAIL ok/", f, ": ", g, " is no longer generated\n")
          failures = failures + 1
        end
      end
    end
    io.write("ok   ok/", f, "\n")
  end
end

for _, f in ipairs(list("tests/gen/bad", "%.lua$")) do
  local name = f:gsub("%.lua$", "")
  local out = tmp .. "/bad_" .. name
  os.execute("rm -rf " .. out .. " && mkdir -p " .. out)
  local ok = os.execute("lua5.4 gen/pcgen.lua --no-registry -o " .. out .. " tests/gen/bad/" .. f ..
    " >/dev/null 2>" .. out .. ".err")
  local got = read(out .. ".err") or ""
  local expf = "tests/gen/bad/" .. name .. ".expected.txt"
  if ok then
    io.write("FAIL bad/", f, ": the generator accepted it\n")
    failures = failures + 1
  elseif #list(out, ".") > 0 then
    io.write("FAIL bad/", f, ": files were written despite errors\n")
    failures = failures + 1
  elseif fix then
    write(expf, got)
  elseif got ~= read(expf) then
    io.write("FAIL bad/", f, ": diagnostics differ from ", expf, ":\n", got)
    failures = failures + 1
  else
    io.write("ok   bad/", f, "\n")
  end
end

os.execute("rm -rf " .. tmp)
if failures > 0 then
  io.write(failures, " generator test(s) failed\n")
  os.exit(1)
end
io.write("all generator tests passed\n")
