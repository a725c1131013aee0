-- load.lua: loads a schema file in a sandbox that sees only the vocabulary.
local vocab = require("pcgen.vocab")
local load = {}

-- Returns the format table, or nil and a list of diagnostics.
function load.file(path, root)
  local env = vocab.env()
  local loading = {}
  -- import "heph/common" loads schemas/<name>.lua in its own sandbox, once
  local cache = {}
  env.import = function(name)
    if type(name) ~= "string" or name:find("%.%.") then error("import takes a schema name", 2) end
    if cache[name] ~= nil then return cache[name] end
    if loading[name] then error("import cycle through " .. name, 2) end
    loading[name] = true
    local p = (root or "schemas") .. "/" .. name .. ".lua"
    local chunk, err = loadfile(p, "t", env)
    if not chunk then error(err, 2) end
    local v = chunk()
    cache[name] = v
    loading[name] = nil
    return v
  end
  local chunk, err = loadfile(path, "t", env)
  if not chunk then
    return nil, { { path = "(load)", msg = tostring(err) } }
  end
  local ok, res = pcall(chunk)
  if not ok then
    return nil, { { path = "(load)", msg = tostring(res) } }
  end
  if type(res) ~= "table" or res.kind ~= "format" then
    return nil, { { path = "(load)", msg = 'the file must return format "name" { ... }' } }
  end
  return res, {}
end

return load
