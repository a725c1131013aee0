-- emit/cbuf.lua: a buffer of C lines at an indentation, filled from templates.
--
--   b:t([[ ...C with ${holes}... ]], vars)   a template (text.render) at the current indent
--   b:l(line), b:f(fmt, ...)                  one line
--   b:open("{") ... b:close("}")              a block one level deeper
--   b:doc(f, extra)                           a field's doc comment
local text = require("pcgen.text")

local Buf = {}
Buf.__index = Buf

local function buf(indent) return setmetatable({ lines = {}, ind = indent or 1 }, Buf) end

function Buf:l(s)
  if s == "" then self.lines[#self.lines + 1] = "" return end
  self.lines[#self.lines + 1] = string.rep("    ", self.ind) .. s
end

function Buf:f(fmt, ...) self:l(string.format(fmt, ...)) end

function Buf:t(tmpl, vars)
  for line in text.render(tmpl, vars):gmatch("([^\n]*)\n") do self:l(line) end
end

function Buf:open(s) self:l(s); self.ind = self.ind + 1 end
function Buf:close(s) self.ind = self.ind - 1; self:l(s or "}") end

-- Runs fn one level deeper.
function Buf:nest(fn)
  self.ind = self.ind + 1
  fn()
  self.ind = self.ind - 1
end

-- /* name: doc (extra) */, over as many lines as the doc has.
function Buf:doc(f, extra)
  local d = f.doc
  local head = f.name .. ((d and d ~= "") and (": " .. d) or "")
  if extra then head = head .. " (" .. extra .. ")" end
  local i = 0
  for line in (head .. "\n"):gmatch("([^\n]*)\n") do
    i = i + 1
    line = line:gsub("%*/", "* /")
    self:l((i == 1 and "/* " or " * ") .. line)
  end
  self.lines[#self.lines] = self.lines[#self.lines] .. " */"
end

-- Appends another buffer's lines as they are.
function Buf:append(other)
  for _, l in ipairs(other.lines) do self.lines[#self.lines + 1] = l end
end

function Buf:text()
  if #self.lines == 0 then return "" end
  return table.concat(self.lines, "\n") .. "\n"
end

return buf
