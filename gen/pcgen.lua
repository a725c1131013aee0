-- pcgen.lua: the profcodec generator: schema files -> generated C, fuzz harnesses, reference pages.
--
-- usage: lua5.4 gen/pcgen.lua [--check] [-o DIR] [--docs DIR] [--python DIR] [--schemas DIR] [SCHEMA.lua ...]
--   With no schema files, every schemas/**/*.lua not starting with "_" is used.
--   --check  writes nothing; reports stale files with a diff and the fix command (exit 1).
--   --python DIR  the Python binding too: each version's classes and stub, and the registry of
--            the extension (--python-package NAME, default profcodec; its module _profcodec).
-- Passes: load -> check -> lower -> emit -> sync. Nothing is written if any schema has
-- a diagnostic; diagnostics read "schema-file: type.field: message".
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path

local load = require("pcgen.load")
local check = require("pcgen.check")
local lower = require("pcgen.lower")
local emit_c = require("pcgen.emit.c")
local emit_md = require("pcgen.emit.md")
local emit_fuzz = require("pcgen.emit.fuzz")
local emit_dict = require("pcgen.emit.dict")
local registry = require("pcgen.emit.registry")
local emit_view = require("pcgen.emit.view")
local emit_py = require("pcgen.emit.python")
local emit_mut = require("pcgen.emit.mut")
local text = require("pcgen.text")
local sha256 = require("pcgen.sha256")

local GEN_VERSION = "1.0"

local opts = { out = "generated", docs = nil, check = false, schemas_root = "schemas", files = {},
  python = nil, py_package = "profcodec" }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--check" then opts.check = true
  elseif a == "-o" then i = i + 1; opts.out = arg[i]
  elseif a == "--docs" then i = i + 1; opts.docs = arg[i]
  elseif a == "--python" then i = i + 1; opts.python = arg[i]
  elseif a == "--python-package" then i = i + 1; opts.py_package = arg[i]
  elseif a == "--schemas" then i = i + 1; opts.schemas_root = arg[i]
  elseif a == "--no-registry" then opts.no_registry = true
  elseif a == "-h" or a == "--help" then
    io.write("usage: lua5.4 gen/pcgen.lua [--check] [-o DIR] [--docs DIR] [--python DIR] [--python-package NAME]\n" ..
      "                           [--schemas DIR] [SCHEMA.lua ...]\n")
    os.exit(0)
  elseif a:sub(1, 1) == "-" then
    io.stderr:write("pcgen: unknown option " .. a .. "\n")
    os.exit(2)
  else
    opts.files[#opts.files + 1] = a
  end
  i = i + 1
end

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

if #opts.files == 0 then
  local p = io.popen("find '" .. opts.schemas_root .. "' -name '*.lua' ! -name '_*' | LC_ALL=C sort")
  for line in p:lines() do opts.files[#opts.files + 1] = line end
  p:close()
end
table.sort(opts.files)

local outputs = {}   -- { path, data }
local manifest = {}
local formats = {}
local with_views = {}   -- format name -> { ir, ... } of its versions that declare views
local failed = false

for _, path in ipairs(opts.files) do
  local src = read_all(path)
  if not src then
    io.stderr:write(path .. ": (load): cannot read the file\n")
    failed = true
  else
    local fmt, diags = load.file(path, opts.schemas_root)
    local ir
    if fmt then ir, diags = check.schema(fmt, path) end
    if #diags > 0 then
      for _, d in ipairs(diags) do io.stderr:write(string.format("%s: %s: %s\n", path, d.path, d.msg)) end
      failed = true
    else
      local ok, err = pcall(function()
        lower.run(ir)
        local sha = sha256(src)
        local files = emit_c(ir, sha, GEN_VERSION)
        local base = ir.name .. "_" .. ir.vid
        local list = {}
        local function out(path, data)
          outputs[#outputs + 1] = { path, data }
          list[#list + 1] = path
        end
        for _, name in ipairs({ base .. ".h", base .. ".c", base .. "_explain.c", base .. "_desc.c" }) do out(opts.out .. "/" .. name, files[name]) end
        out(opts.out .. "/" .. base .. "_fuzz.c", emit_fuzz(ir, sha, GEN_VERSION))
        out(opts.out .. "/" .. base .. ".dict", emit_dict(ir))
        out(opts.out .. "/" .. base .. "_mut.c", emit_mut.file(ir, sha, GEN_VERSION))
        if opts.docs then out(opts.docs .. "/" .. ir.name .. "-" .. ir.vid .. ".md", emit_md.page(ir, sha, GEN_VERSION)) end
        if opts.python then
          out(opts.python .. "/" .. base .. "_py.c", emit_py.c_file(ir, sha, GEN_VERSION, opts.py_package))
          out(opts.python .. "/" .. base .. ".pyi", emit_py.stub(ir, sha, GEN_VERSION, opts.py_package))
        end
        manifest[#manifest + 1] = path .. " " .. sha .. " " .. table.concat(list, " ")
        formats[#formats + 1] = { prefix = ir.prefix, base = base, name = ir.name, version = tostring(ir.version) }
        if #ir.views > 0 then
          with_views[ir.name] = with_views[ir.name] or {}
          table.insert(with_views[ir.name], { ir = ir, path = path, sha = sha })
        end
      end)
      if not ok then
        io.stderr:write(path .. ": (emit): " .. tostring(err) .. "\n")
        failed = true
      end
    end
  end
end

-- views across the versions of each format
local view_names = {}
for name in pairs(with_views) do view_names[#view_names + 1] = name end
table.sort(view_names)
for _, name in ipairs(view_names) do
  local list = with_views[name]
  table.sort(list, function(a, b) return a.path < b.path end)
  local irs, paths, shas = {}, {}, {}
  for _, v in ipairs(list) do
    irs[#irs + 1] = v.ir
    paths[#paths + 1] = v.path
    shas[#shas + 1] = v.sha
  end
  local ok, res = pcall(emit_view.files, name, irs, paths, GEN_VERSION)
  if not ok then
    io.stderr:write(tostring(res) .. "\n")
    failed = true
  else
    local files = {}
    for _, ext in ipairs({ ".h", ".c" }) do
      local f = opts.out .. "/" .. name .. "_view" .. ext
      outputs[#outputs + 1] = { f, res[name .. "_view" .. ext] }
      files[#files + 1] = f
    end
    manifest[#manifest + 1] = "views:" .. name .. " " .. sha256(table.concat(shas, " ")) .. " " .. table.concat(files, " ")
  end
end

if failed then
  io.stderr:write("pcgen: nothing written\n")
  os.exit(1)
end

if not opts.no_registry then
  -- the registry of every format, and the manifest
  table.sort(formats, function(a, b) return a.base < b.base end)
  outputs[#outputs + 1] = { opts.out .. "/pcd_formats.c", registry.formats_c(formats, GEN_VERSION) }
  outputs[#outputs + 1] = { opts.out .. "/pcd_mutators.c", emit_mut.registry(formats, GEN_VERSION) }
  outputs[#outputs + 1] = { opts.out .. "/MANIFEST", registry.manifest(manifest) }
end
if opts.python then
  -- the Python extension's registry, in the order of pcd_formats
  local sorted = {}
  for _, f in ipairs(formats) do sorted[#sorted + 1] = f end
  table.sort(sorted, function(a, b) return a.base < b.base end)
  outputs[#outputs + 1] = { opts.python .. "/pcdpy_registry.c",
    emit_py.registry(sorted, GEN_VERSION, opts.py_package, "_profcodec") }
end

local stale = {}
for _, o in ipairs(outputs) do
  local status, old = text.sync(o[1], o[2], opts.check)
  if status == "stale" then
    stale[#stale + 1] = o[1]
    io.stderr:write(text.diff(old, o[2], o[1]))
  elseif status == "written" then
    io.write("pcgen: wrote " .. o[1] .. "\n")
  end
end
if #stale > 0 then
  io.stderr:write("pcgen: stale generated files: " .. table.concat(stale, ", ") ..
    "\npcgen: fix with: make regen   (lua5.4 gen/pcgen.lua -o generated --docs docs/formats --python generated/python)\n")
  os.exit(1)
end
