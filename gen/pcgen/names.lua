-- names.lua: identifier rules and the C keywords a schema name may not be.
local names = {}

local keywords = {}
for w in ([[auto break case char const continue default do double else enum extern float for goto
  if inline int long register restrict return short signed sizeof static struct switch typedef
  union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary
  _Noreturn _Static_assert _Thread_local bool true false NULL]]):gmatch("%S+") do
  keywords[w] = true
end

-- Field, case and type names: lowercase snake_case, not a C keyword, not reserved by us
-- (structs get has_x and n_x companions; unions hold `which`, `tag` and `u`; the sub-fields
-- of a bits word, what "bit", have no companions).
function names.check(name, what)
  if type(name) ~= "string" then return "a name must be a string" end
  if not name:match("^[a-z][a-z0-9_]*$") then
    return "'" .. name .. "' is not a lowercase identifier (a-z, 0-9, _)"
  end
  if keywords[name] then return "'" .. name .. "' is a C keyword" end
  if what == "case" and (name == "which" or name == "u" or name == "tag") then
    return "'" .. name .. "' is reserved for union cases by the generated C (which, tag, u)"
  end
  if what == "case" and (name:match("_tag$") or name == "tag_size") then
    return "'" .. name .. "' is reserved for union cases by the generated C (the _TAG and TAG_SIZE constants)"
  end
  if what ~= "bit" and (name:match("^has_") or name:match("^n_")) then
    return "'" .. name .. "' is reserved by the generated C (has_* and n_* name companions of fields)"
  end
  return nil
end

function names.upper(s) return (s:upper():gsub("[^%w]", "_")) end

-- "0.1" -> "v0_1", 3 -> "v3"
function names.version_id(v) return "v" .. tostring(v):gsub("[^%w]", "_") end

-- Edit distance, for "did you mean" hints.
function names.near(word, list)
  local best, bd = nil, 3
  for _, cand in ipairs(list) do
    local a, b = word, cand
    local d = {}
    for i = 0, #a do d[i] = { [0] = i } end
    for j = 0, #b do d[0][j] = j end
    for i = 1, #a do
      for j = 1, #b do
        local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
        d[i][j] = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
        if i > 1 and j > 1 and a:sub(i, i) == b:sub(j - 1, j - 1) and a:sub(i - 1, i - 1) == b:sub(j, j) then
          d[i][j] = math.min(d[i][j], d[i - 2][j - 2] + 1) -- a swap of neighbours
        end
      end
    end
    if d[#a][#b] < bd then best, bd = cand, d[#a][#b] end
  end
  return best
end

return names
