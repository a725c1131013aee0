-- text.lua: C emission helpers: dedent-and-fill templates, identifiers, literals, write-if-changed.
local text = {}

-- Renders C written as an indented long string (upb-style): strips the common indentation
-- and fills ${name} holes from vars. A missing hole is a generator bug.
-- A line that is nothing but one hole takes a whole block: false or "" drops the line, a
-- text of several lines is indented as the hole is (a nested body, an optional statement).
function text.render(tmpl, vars)
  local lines, indent = {}, math.huge
  tmpl = tmpl:gsub("^\n", "")
  for line in (tmpl .. "\n"):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
    local lead = line:match("^( *)%S")
    if lead and #lead < indent then indent = #lead end
  end
  while #lines > 0 and lines[#lines]:match("^%s*$") do lines[#lines] = nil end
  if indent == math.huge then indent = 0 end
  local out = {}
  local function hole(k)
    local v = vars and vars[k]
    if v == nil then error("template hole '" .. k .. "' is not set", 3) end
    return v
  end
  for _, line in ipairs(lines) do
    line = line:sub(indent + 1)
    local pad, whole = line:match("^( *)%${([%w_]+)}$")
    if whole then
      local v = hole(whole)
      if v ~= false and v ~= "" then
        v = tostring(v):gsub("\n$", "")
        for l in (v .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = l == "" and "" or (pad .. l) end
      end
    else
      out[#out + 1] = line:gsub("%${([%w_]+)}", function(k) return tostring(hole(k)) end)
    end
  end
  if #out == 0 then return "" end
  return table.concat(out, "\n") .. "\n"
end

-- Indents every non-empty line of s by n spaces.
function text.indent(s, n)
  local pad = string.rep(" ", n)
  return (s:gsub("([^\n]*)\n", function(l)
    if l == "" then return "\n" end
    return pad .. l .. "\n"
  end))
end

-- A C string literal for arbitrary bytes.
function text.cstr(s)
  if s == nil then return "NULL" end
  local out = s:gsub('[%c"\\\128-\255]', function(ch)
    local b = ch:byte()
    if ch == '"' then return '\\"' end
    if ch == "\\" then return "\\\\" end
    if ch == "\n" then return "\\n" end
    if ch == "\t" then return "\\t" end
    return string.format("\\%03o", b)
  end)
  return '"' .. out .. '"'
end

-- A C comment body: no "*/", one line per input line.
function text.comment(s, indent)
  indent = indent or ""
  s = tostring(s):gsub("%*/", "* /"):gsub("%s+$", "")
  local lines = {}
  for l in (s .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l:gsub("%s+$", "") end
  if #lines == 1 then return indent .. "/* " .. lines[1] .. " */\n" end
  local out = { indent .. "/* " .. lines[1] .. "\n" }
  for i = 2, #lines do
    out[#out + 1] = indent .. (lines[i] == "" and " *" or (" * " .. lines[i])) .. "\n"
  end
  out[#out + 1] = indent .. " */\n"
  return table.concat(out)
end

-- Writes path only if its bytes change. Returns "same", "stale" (check mode) or "written".
function text.sync(path, data, check_only)
  local f = io.open(path, "rb")
  local old = f and f:read("a")
  if f then f:close() end
  if old == data then return "same", old end
  if check_only then return "stale", old end
  local tmp = path .. ".tmp"
  f = assert(io.open(tmp, "wb"))
  assert(f:write(data))
  assert(f:close())
  assert(os.rename(tmp, path))
  return "written", old
end

-- A minimal unified-style diff (line based, LCS) for staleness reports.
function text.diff(old, new, name)
  local a, b = {}, {}
  for l in ((old or "") .. "\n"):gmatch("([^\n]*)\n") do a[#a + 1] = l end
  for l in (new .. "\n"):gmatch("([^\n]*)\n") do b[#b + 1] = l end
  -- trim the common head and tail, then LCS on the middle (bounded)
  local s = 1
  while s <= #a and s <= #b and a[s] == b[s] do s = s + 1 end
  local ea, eb = #a, #b
  while ea >= s and eb >= s and a[ea] == b[eb] do ea, eb = ea - 1, eb - 1 end
  local out = { "--- " .. name .. " (checked in)", "+++ " .. name .. " (regenerated)",
    string.format("@@ -%d,%d +%d,%d @@", s, ea - s + 1, s, eb - s + 1) }
  local n = 0
  for i = s, ea do n = n + 1; if n > 60 then break end; out[#out + 1] = "-" .. a[i] end
  for i = s, eb do n = n + 1; if n > 120 then out[#out + 1] = "..."; break end; out[#out + 1] = "+" .. b[i] end
  return table.concat(out, "\n") .. "\n"
end

return text
