-- emit/view.lua: generated/<format>_view.{h,c}: the views the schemas of a format declare
-- (views = { name = view { ... } }), one C struct per view across the versions that declare
-- it: which case (an enum of every version's cases), the version, the tag, and each member
-- with a has_ flag; an accessor per version, and one that takes any decoded record.
-- An accessor sets the has_ flags (kept together, so that clearing them is a store or two)
-- and the members its case has, nothing else: the others keep whatever they held. Values
-- made of two parts (pcd_bytes, pcd_mojo_int) are copied part by part, as the decoder
-- stored them (a load of the whole just after stores of its parts waits for them).
local text = require("pcgen.text")
local names = require("pcgen.names")
local C = require("pcgen.emit.common")
local buf = require("pcgen.emit.cbuf")

local V = {}

local function member_decl(M)
  local t = M.type
  local doc = M.doc and ("  /* " .. M.doc:gsub("\n.*", ""):gsub("%*/", "* /") .. " */") or ""
  if t.kind == "array" then
    return { string.format("const %s *%s;%s", t.elem.ctype, M.name, doc), string.format("size_t n_%s;", M.name) }
  end
  return { string.format("%s %s;%s", t.ctype, M.name, doc) }
end

-- The statements that copy acc into member m of v.
local function copy(M, m, acc)
  if M.type.kind == "num" then return { string.format("v->%s = (%s)%s;", m, M.type.ctype, acc) } end
  if M.type.ctype == "pcd_bytes" then
    return { string.format("v->%s.ptr = %s.ptr;", m, acc), string.format("v->%s.len = %s.len;", m, acc) }
  end
  if M.type.ctype == "pcd_mojo_int" then
    return { string.format("v->%s.mag = %s.mag;", m, acc), string.format("v->%s.neg = %s.neg;", m, acc) }
  end
  return { string.format("v->%s = %s;", m, acc) }
end

-- Checks that every version declares the same view; returns the list of views by name, each
-- { name, doc, members, versions = { {ir, view} } , cases = ordered case names }.
local function merge(format, versions)
  local by_name, order = {}, {}
  for _, ir in ipairs(versions) do
    for _, view in ipairs(ir.views) do
      local m = by_name[view.name]
      if not m then
        m = { name = view.name, doc = view.doc, members = view.members, versions = {}, cases = {}, case_seen = {},
          tag = true }
        by_name[view.name] = m
        order[#order + 1] = m
      else
        local same = #m.members == #view.members
        for i = 1, math.min(#m.members, #view.members) do
          local a, b = m.members[i], view.members[i]
          same = same and a.name == b.name and a.type.kind == b.type.kind and a.type.ctype == b.type.ctype and
              (a.type.kind ~= "array" or a.type.elem.ctype == b.type.elem.ctype)
        end
        if not same then
          error(ir.schema_path .. ": views." .. view.name .. ": the view differs from the one " ..
            m.versions[1].ir.schema_path .. " declares (every version must declare the same members)", 0)
        end
      end
      m.versions[#m.versions + 1] = { ir = ir, view = view }
      local U = view.of
      if not (U.mode == "tag" and not U.name_tag) then m.tag = false end
      for _, c in ipairs(U.cases) do
        if not m.case_seen[c.name] then
          m.case_seen[c.name] = true
          m.cases[#m.cases + 1] = c.name
        end
      end
    end
  end
  -- every path a member names must be there in some version (a misspelt one is in none)
  for _, m in ipairs(order) do
    for i, M in ipairs(m.members) do
      for _, p in ipairs(M.paths) do
        local found = false
        for _, vv in ipairs(m.versions) do found = found or vv.view.members[i].matched[p] end
        if not found then
          error(m.versions[1].ir.schema_path .. ": views." .. m.name .. "." .. M.name .. ": '" .. p ..
            "' names no field of a case of " .. m.versions[1].view.of.tname .. " in any version", 0)
        end
      end
    end
  end
  return order
end

-- The C that fills the members a case has, from e.
local function fill_case(b, U, c, view)
  local pre = (c.ty.kind == "struct" and c.ty.named) and (c.member .. ".") or ""
  for _, M in ipairs(view.members) do
    local srcs = M.by_case[c]
    for i, src in ipairs(srcs or {}) do
      local acc, cnt, has
      if src.case_value then
        acc = c.ty.kind == "array" and ("e->" .. c.member .. ".items") or ("e->" .. c.member)
        cnt = "e->" .. c.member .. ".n_items"
      else
        acc = "e->" .. pre .. src.field.member
        cnt = "e->" .. pre .. C.n_of(src.field.member)
        if src.field.when then has = "e->" .. pre .. C.has_of(src.field.member) end
      end
      local conds = {}
      for _, x in ipairs(src.conds) do
        conds[#conds + 1] = "e->" .. pre .. x.union_field.member .. ".which == " .. x.case.const
      end
      if has then conds[#conds + 1] = has end
      local set = { string.format("v->has_%s = true;", M.name) }
      if M.type.kind == "array" then
        set[#set + 1] = string.format("v->%s = %s;", M.name, acc)
        set[#set + 1] = string.format("v->n_%s = %s;", M.name, cnt)
      else
        for _, l in ipairs(copy(M, M.name, acc)) do set[#set + 1] = l end
      end
      if #conds == 0 then
        if i > 1 then b:l("} else {") b.ind = b.ind + 1 end
        for _, l in ipairs(set) do b:l(l) end
        if i > 1 then b.ind = b.ind - 1 b:l("}") end
      else
        b:f("%sif (%s) {", i > 1 and "} else " or "", table.concat(conds, " && "))
        b:nest(function() for _, l in ipairs(set) do b:l(l) end end)
        if i == #srcs then b:l("}") end
      end
    end
  end
end

function V.files(format, versions, sources, gen_version)
  table.sort(versions, function(a, b) return a.version_num < b.version_num end)
  local views = merge(format, versions)
  local base = format .. "_view"
  local P, UP = "pcd_" .. format, names.upper("pcd_" .. format)
  local banner = string.format(
    "/* GENERATED by pcgen %s from %s. DO NOT EDIT.\n * %%s\n" ..
    " * Regenerate: make regen (or: lua5.4 gen/pcgen.lua -o generated schemas/...) */\n",
    gen_version, table.concat(sources, ", "))
  local H, S = {}, {}
  H[#H + 1] = string.format(banner, "Views of " .. format .. " records across its versions: one struct whatever the version.")
  local includes = {}
  for _, ir in ipairs(versions) do includes[#includes + 1] = '#include "' .. ir.name .. "_" .. ir.vid .. '.h"' end
  H[#H + 1] = text.render([[
    #ifndef ${G}
    #define ${G}

    ${includes}

  ]], { G = names.upper(base) .. "_H", includes = table.concat(includes, "\n") }) .. "\n"
  S[#S + 1] = string.format(banner, "Views of " .. format .. " records across its versions.")
  S[#S + 1] = '#include "' .. base .. '.h"\n\n'
  for _, view in ipairs(views) do
    local T = P .. "_" .. view.name .. "_view"
    local E = P .. "_" .. view.name .. "_kind"
    local items = {}
    for i, cname in ipairs(view.cases) do
      items[#items + 1] = string.format("    %s_%s_%s = %d,", UP, names.upper(view.name), names.upper(cname), i - 1)
    end
    local members = buf(1)
    members:l(E .. " kind; /* the case */")
    members:l("uint32_t version; /* the format version (its dispatch key) */")
    if view.tag then members:l("uint64_t tag; /* the tag as read */") end
    members:l("/* which members the case has (the others are not set) */")
    for _, M in ipairs(view.members) do members:f("bool has_%s;", M.name) end
    for _, M in ipairs(view.members) do for _, l in ipairs(member_decl(M)) do members:l(l) end end
    local protos = {}
    for _, vv in ipairs(view.versions) do
      local U = vv.view.of
      protos[#protos + 1] = string.format("void %s_view(const %s *e, %s *v);", U.cname, U.cname, T)
    end
    H[#H + 1] = text.render([[
      /* ${name}: the cases of every version. */
      typedef enum ${E} {
      ${items}
      } ${E};

      ${doc}typedef struct ${T} {
      ${members}} ${T};

      /* Fills v from one ${name} of any version (rec->type says which); false for other records. */
      bool ${T}_of(const pcd_record *rec, ${T} *v);
      /* Fills v from one ${name} of one version: the members its case has, and every has_. */
      ${protos}

    ]], { name = view.name, E = E, items = table.concat(items, "\n"), T = T, members = members:text(),
      doc = text.comment(view.name .. ": " .. (view.doc or ("a " .. view.name .. " of any version")) ..
        "\nA member is set when the record's case has it (has_ true); the others are not."),
      protos = table.concat(protos, "\n") }) .. "\n"
    -- the accessors
    local any = buf(1)
    any:l("if (!rec->data) return false;")
    for _, vv in ipairs(view.versions) do
      local ir, U = vv.ir, vv.view.of
      local b = buf(1)
      -- a union of many cases (lower: split): a function per case that has members to fill
      local case_fns = {}
      if U.split then
        for _, c in ipairs(U.cases) do
          local cb = buf(1)
          fill_case(cb, U, c, vv.view)
          if #cb.lines > 0 then
            case_fns[c] = c.ty.cname .. "_view"
            S[#S + 1] = string.format("static void %s(const %s *e, %s *v)\n{\n%s}\n\n", case_fns[c], U.cname, T, cb:text())
          end
        end
      end
      for _, M in ipairs(vv.view.members) do b:f("v->has_%s = false;", M.name) end
      b:f("v->version = %s;", C.cnum(ir.version_num))
      if view.tag then b:l("v->tag = e->tag;") end
      b:l("switch (e->which) {")
      for _, c in ipairs(U.cases) do
        b:f("case %s:", c.const)
        b:nest(function()
          b:f("v->kind = %s_%s_%s;", UP, names.upper(view.name), names.upper(c.name))
          if case_fns[c] then b:f("%s(e, v);", case_fns[c]) elseif not U.split then fill_case(b, U, c, vv.view) end
          b:l("break;")
        end)
      end
      b:l("}")
      S[#S + 1] = text.comment(U.tname .. " of " .. ir.schema_path .. " as a " .. T .. ".") ..
          string.format("void %s_view(const %s *e, %s *v)\n{\n%s}\n\n", U.cname, U.cname, T, b:text())
      any:f("if (rec->type == &%s_type) {", U.cname)
      any:f("    %s_view(rec->data, v);", U.cname)
      any:l("    return true;")
      any:l("}")
    end
    any:l("return false;")
    S[#S + 1] = string.format("bool %s_of(const pcd_record *rec, %s *v)\n{\n%s}\n\n", T, T, any:text())
  end
  H[#H + 1] = "#endif\n"
  return { [base .. ".h"] = table.concat(H), [base .. ".c"] = table.concat(S):gsub("\n\n$", "\n") }
end

return V
