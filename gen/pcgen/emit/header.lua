-- emit/header.lua: the generated header: stream state types, one C struct per type
-- (dependencies first) with the constants code above the bytes uses (case selectors, where
-- fields sit on the wire), the codec functions and the descriptors.
local lower = require("pcgen.lower")
local text = require("pcgen.text")
local names = require("pcgen.names")
local C = require("pcgen.emit.common")
local K = require("pcgen.emit.value")
local buf = require("pcgen.emit.cbuf")
local bits = require("pcgen.emit.bits")
local EM = require("pcgen.emit.message")
local SRC = require("pcgen.emit.source")

local H = {}

-- Members of a struct type.
local function struct_members(b, S)
  local n = 0
  for _, f in ipairs(S.fields) do
    if f.ty and K.has_member(f) then
      n = n + 1
      local cm = f.doc and ("  /* " .. f.doc:gsub("\n.*", ""):gsub("%*/", "* /") .. " */") or ""
      if f.when and f.ty.kind ~= "records" then b:f("bool has_%s;", f.name) end
      if f.optional then
        b:f("bool %s;%s", f.name, cm)
      elseif f.ty.kind == "array" then
        b:f("%s *%s;%s", C.elem_ctype(f.ty.of), f.name, cm)
        b:f("size_t n_%s;", f.name)
      else
        b:f("%s %s;%s", C.ctype(f.ty), f.name, cm)
      end
    end
  end
  if n == 0 then b:l("uint8_t unused_; /* no stored fields */") end
end

-- Members of a union type: which case, the tag as read, the cases.
local function union_members(b, U)
  b:f("%s which; /* the case present */", U.case_enum)
  if U.mode == "tag" and not U.name_tag then b:l("uint64_t tag; /* the tag as read */") end
  local m = 0
  for _, c in ipairs(U.cases) do if not c.empty then m = m + 1 end end
  if m == 0 then return end
  b:l("union {")
  b:nest(function()
    for _, c in ipairs(U.cases) do
      if not c.empty then
        local ty = c.ty
        if ty.kind == "array" then
          b:f("struct { %s *items; size_t n_items; } %s;", C.elem_ctype(ty.of), c.name)
        else
          b:f("%s %s;", C.ctype(ty), c.name)
        end
      end
    end
  end)
  b:l("} u;")
end

-- Where fields sit on the wire, for code above the bytes that reports on them: every
-- field after fixed-size ones (from the record's start), and footer fields (from the end).
local function wire_offsets(S)
  local out = {}
  local pos, up, cond = 0, S.cname:upper(), false
  for _, f in ipairs(S.fields) do
    if f.name and type(f.at_end) == "number" then
      out[#out + 1] = string.format("#define %s_%s_AT_END %d\n", up, f.name:upper(), f.at_end)
    elseif pos and not f.at and not f.at_end and f.name then
      cond = cond or f.when ~= nil
      out[#out + 1] = string.format("#define %s_%s_AT %d\n", up, f.name:upper(), pos)
      local w = lower.fixed_wire(f.ty)
      pos = w and pos + w or nil
    end
  end
  -- fields after variable-size ones that only fixed-size ones follow: from the record's end
  local from_end, tail = {}, 0
  for i = #S.fields, 1, -1 do
    local f = S.fields[i]
    local w = f.ty and f.ty.kind ~= "records" and not f.when and not f.at and not f.at_end and lower.fixed_wire(f.ty)
    if not w then break end
    tail = tail + w
    if not f.wpos or not f.wpos.at then
      table.insert(from_end, 1, string.format("#define %s_%s_FROM_END %d\n", up, f.name:upper(), tail))
    end
  end
  -- sizes: a size field's bytes that are not its region's
  local extra = {}
  for _, f in ipairs(S.fields) do
    if f.derived and f.derived.kind == "size_of" and f.derived.extra and f.derived.extra > 0 then
      extra[#extra + 1] = string.format("#define %s_%s_EXTRA %d /* what %s counts besides %s */\n", up,
        f.name:upper(), f.derived.extra, f.name, f.derived.target)
    end
  end
  local sizes = {}
  if S.named then
    local fixed = lower.fixed_wire(S)
    if fixed then
      sizes[#sizes + 1] = string.format("#define %s_SIZE %d /* every %s takes this many bytes */\n", up, fixed, S.tname)
    else
      sizes[#sizes + 1] = string.format("#define %s_MIN_SIZE %d /* the smallest %s */\n", up, S.min, S.tname)
      -- every fixed-size field there, conditional ones too, when only conditional fields vary
      local full, ok = 0, true
      for _, f in ipairs(S.fields) do
        local w = f.ty and not f.at and not f.at_end and lower.fixed_wire(f.ty)
        if w then full = full + w elseif not f.when or f.at or f.at_end then ok = false end
      end
      if ok and full ~= S.min then
        sizes[#sizes + 1] = string.format("#define %s_FULL_SIZE %d /* with every fixed-size conditional field */\n",
          up, full)
      end
    end
  end
  local text_ = ""
  if #out > 0 then
    text_ = "/* wire offsets of the fields at fixed places" ..
        (cond and " (of a field after conditional ones: when those are there)" or "") .. " */\n" .. table.concat(out)
  end
  if #from_end > 0 then text_ = text_ .. "/* bytes from a field's start to its record's end */\n" .. table.concat(from_end) end
  return text_ .. table.concat(extra) .. table.concat(sizes)
end

-- Named values of S's fields, for code above the bytes that compares or writes them: the
-- items of an enum (a named enum's once, before the first type that uses it, under its own
-- name), the sentinel that means absent, the most elements an array may hold.
local function value_names(ir, S)
  local out = {}
  local up = S.cname:upper()
  local function num(v, hex)
    local c = C.cnum(v, hex)
    return c:match("^%-") and ("(" .. c .. ")") or c
  end
  for _, f in ipairs(S.fields) do
    if f.name then
      local F = up .. "_" .. f.name:upper()
      if f.enum and f.enum_name then
        if not ir.enum_names_done[f.enum_name] then
          ir.enum_names_done[f.enum_name] = true
          local E = names.upper(ir.prefix .. "_" .. f.enum_name)
          for _, it in ipairs(f.enum) do
            out[#out + 1] = string.format("#define %s_%s %s\n", E, names.upper(it.name), num(it.value, f.hex))
          end
        end
      elseif f.enum then
        for _, it in ipairs(f.enum) do
          out[#out + 1] = string.format("#define %s_%s %s\n", F, names.upper(it.name), num(it.value, f.hex))
        end
      end
      if f.absent ~= nil then
        out[#out + 1] = string.format("#define %s_ABSENT %s /* the value that means none */\n", F, num(f.absent, f.hex))
      end
      if f.ty and f.ty.kind == "array" and f.ty.max then
        out[#out + 1] = string.format("#define %s_MAX_COUNT %d /* the most elements it may hold */\n", F, f.ty.max)
      end
    end
  end
  if #out == 0 then return "" end
  return "/* named values of its fields */\n" .. table.concat(out)
end

-- The unsigned type of an integer C type's width (arithmetic that wraps).
local function unsigned_of(ct) return (ct:gsub("^int", "uint")) end

-- Fields stored relative to a sibling (delta_of): the value from the record, and the
-- stored field from a value, both ways.
local function relative_accessors(S)
  local out = {}
  for _, f in ipairs(S.fields) do
    local r = f.rel
    if r then
      local bt, dt = r.base.ty.ctype, f.ty.ctype
      local ut = unsigned_of(bt)
      local none = r.none ~= nil and C.cnum(r.none)
      out[#out + 1] = text.render([[
        /* ${value}: ${base} + ${field}, in ${bits} bits${none_doc}. */
        static inline ${bt} ${S}_${value}(const ${S} *r)
        {
            return ${get};
        }
        /* The ${field} that stores ${value} after ${base}${none_doc2}. */
        static inline ${dt} ${S}_${field}_of(${bt} ${base}, ${bt} ${value})
        {
            return ${put};
        }
      ]], { value = r.value, base = r.base.name, field = f.name, bits = ut:match("%d+"), S = S.cname, bt = bt, dt = dt,
        none_doc = none and (" (" .. none .. " when " .. r.base.name .. " is " .. none .. ")") or "",
        none_doc2 = none and (" (0 when either is " .. none .. ")") or "",
        get = (none and ("r->" .. r.base.name .. " == " .. none .. " ? " .. none .. " : ") or "") ..
          string.format("(%s)((%s)r->%s + (%s)r->%s)", bt, ut, r.base.name, ut, f.name),
        put = (none and ("(" .. r.base.name .. " == " .. none .. " || " .. r.value .. " == " .. none .. ") ? 0 : ") or "") ..
          string.format("(%s)((%s)%s - (%s)%s)", dt, ut, r.value, ut, r.base.name) })
    end
  end
  return table.concat(out)
end

local function struct_def(ir, S)
  if EM.is_pb(S) then return EM.struct_def(ir, S) end
  local b = buf(1)
  local consts
  if S.kind == "struct" then
    struct_members(b, S)
    consts = wire_offsets(S) .. value_names(ir, S)
  else
    union_members(b, S)
    -- the cases as a C enum: -Wswitch checks the switches over `which` that code above the
    -- bytes writes
    local items = {}
    for _, c in ipairs(S.cases) do items[#items + 1] = string.format("    %s = %d,", c.const, c.index) end
    -- the tag values on the wire (a tag it reads or peeks at), and its size
    local tags = {}
    if (S.mode == "tag" or S.mode == "peek") and not S.name_tag then
      for _, c in ipairs(S.cases) do
        if #c.values == 1 then tags[#tags + 1] = string.format("#define %s_TAG %s", c.const, C.cnum(c.values[1], true)) end
      end
      tags[#tags + 1] = string.format("#define %s_TAG_SIZE %d", names.upper(S.cname), S.tagty.wire)
    elseif S.name_tag then
      for _, c in ipairs(S.cases) do tags[#tags + 1] = string.format("#define %s_TAG %s", c.const, C.cstr(c.values[1])) end
      tags[#tags + 1] = string.format("#define %s_TAG_SIZE %d /* NUL-padded names */", names.upper(S.cname), S.tagty.wire)
    end
    consts = text.render([[
      /* The cases of ${name} (its `which`). */
      typedef enum ${E} {
      ${items}
      } ${E};
      PCD_STATIC_ASSERT(sizeof(${E}) == sizeof(uint32_t), "the runtime reads which as a uint32_t");
      ${tags}
    ]], { name = S.display, E = S.case_enum, items = table.concat(items, "\n"),
      tags = #tags > 0 and ("/* " .. S.display .. "'s tags on the wire */\n" .. table.concat(tags, "\n")) or false })
  end
  local doc = S.doc and text.comment(S.doc) or ""
  return consts .. doc .. "typedef struct " .. S.cname .. " {\n" .. b:text() .. "} " .. S.cname .. ";\n" ..
      (S.kind == "struct" and relative_accessors(S) or "")
end

function H.file(ir, sha, gen_version)
  local base = ir.name .. "_" .. ir.vid
  local out = {}
  local guard = names.upper(base) .. "_H"
  ir.enum_names_done = {}
  out[#out + 1] = C.banner(ir, sha, gen_version, ir.title .. " " .. tostring(ir.version) .. ": types, codec functions, descriptors.")
  out[#out + 1] = text.render([[
    #ifndef ${guard}
    #define ${guard}

    #include "pcd.h"

    #if PCD_RUNTIME_ABI != 4
    #error "${base}.h was generated for runtime ABI 4; run make regen"
    #endif

  ]], { guard = guard, base = base }) .. "\n"
  if ir.doc ~= "" then out[#out + 1] = text.comment(ir.doc) .. "\n" end
  -- the bits of pcd_ctx.count_only (pcd_reader_opts.count_only) for this format's arrays
  local co = C.count_only_names(ir)
  if #co > 0 then
    out[#out + 1] = "/* Arrays a consumer may decode for their count alone (pcd_reader_opts.count_only): every\n" ..
        " * element checked, none stored (the array's pointer NULL, its count set). */\n"
    for i, name in ipairs(co) do
      out[#out + 1] = string.format("#define %s (1u << %d)\n", C.count_only_const(ir, name), i - 1)
    end
    out[#out + 1] = "\n"
  end
  -- region state types
  for _, R in ipairs(ir.regions) do
    if R.has_state then
      local b = buf(1)
      for _, V in ipairs(R.state.order) do b:f("%s %s;", V.ctype, V.name) end
      out[#out + 1] = text.comment("Stream state of the " .. R.name .. " region, reset at its start.")
      out[#out + 1] = "typedef struct " .. R.state_cname .. " {\n" .. b:text() .. "} " .. R.state_cname .. ";\n\n"
    end
  end
  -- forward declarations, then definitions (dependencies first)
  for _, S in ipairs(ir.all_types) do out[#out + 1] = "typedef struct " .. S.cname .. " " .. S.cname .. ";\n" end
  out[#out + 1] = "\n"
  if #ir.bits_layouts > 0 then
    out[#out + 1] = "/* ---- bits words ---- */\n\n"
    for _, ty in ipairs(ir.bits_layouts) do out[#out + 1] = bits.declarations(ty) .. "\n" end
  end
  local defined = {}
  local function define(S)
    if defined[S] then return end
    defined[S] = true
    -- by-value members first
    local function dep(ty)
      if ty and (ty.kind == "struct" or ty.kind == "union") and ty ~= S then define(ty) end
    end
    if EM.is_pb(S) then
      for _, T in ipairs(EM.deps(S)) do define(T) end
    elseif S.kind == "struct" then
      for _, f in ipairs(S.fields) do if f.ty and f.ty.kind ~= "array" then dep(f.ty) end end
    else
      for _, c in ipairs(S.cases) do if c.ty.kind ~= "array" then dep(c.ty) end end
    end
    out[#out + 1] = struct_def(ir, S) .. "\n"
  end
  for _, S in ipairs(ir.all_types) do define(S) end
  out[#out + 1] = "/* ---- codec functions ---- */\n\n"
  for _, name in ipairs(ir.order) do
    local T = ir.types[name]
    out[#out + 1] = text.render([[
      pcd_status ${T}_decode(pcd_cursor *c, ${T} *out);
      pcd_status ${T}_validate(pcd_cursor *c);
      pcd_status ${T}_encode(pcd_sink *s, const ${T} *in);
      uint64_t ${T}_size(pcd_ctx *x, const ${T} *in);
      ${explain}
    ]], { T = T.cname, explain = not EM.is_pb(T) and
      string.format("pcd_status %s_explain(pcd_cursor *c, %s *out); /* %s_explain.c */", T.cname, T.cname,
        ir.name .. "_" .. ir.vid) }) .. "\n"
  end
  out[#out + 1] = "/* ---- the glue the descriptors point at (" .. ir.name .. "_" .. ir.vid .. ".c, for " ..
      ir.name .. "_" .. ir.vid .. "_desc.c) ---- */\n\n"
  out[#out + 1] = SRC.glue_protos(ir) .. "\n"
  out[#out + 1] = "/* ---- descriptors (" .. ir.name .. "_" .. ir.vid .. "_desc.c) ---- */\n\n"
  for _, S in ipairs(ir.all_types) do out[#out + 1] = "extern const pcd_type " .. S.cname .. "_type;\n" end
  for _, R in ipairs(ir.regions) do out[#out + 1] = "extern const pcd_region_desc " .. R.cname .. ";\n" end
  out[#out + 1] = "extern const pcd_format " .. ir.prefix .. "_format;\n\n#endif\n"
  return table.concat(out)
end

return H
