-- emit/union.lua: tagged unions (a tag they read, a magic they peek at, an expression over
-- earlier fields, a string field, a NUL-padded name): the switch over the cases with each
-- case's body, decode and validate, encode and size; the case selector the descriptors use.
local expr = require("pcgen.expr")
local C = require("pcgen.emit.common")
local X = require("pcgen.emit.cexpr")
local K = require("pcgen.emit.kinds")
local buf = require("pcgen.emit.cbuf")

local cstr, cexpr = C.cstr, X.cexpr

---------------------------------------------------------------------------
-- decode / validate

-- Reads the tag into a local (tag and peek unions) or names the expression that selects
-- (on unions). Returns the C of the tag value.
local function dec_tag(b, U, env, f, errname)
  local cur = env.cur
  if U.mode == "on" then return cexpr(U.on, env) end
  local ty = U.tagty
  local tagv = "tag_" .. (f and f.local_:sub(3) or "u")
  C.declare(env, tagv, U.name_tag and "pcd_bytes" or "uint64_t", U.name_tag and "{ NULL, 0 }" or "0")
  b:t([[
    if (PCD_UNLIKELY(pcd_left(${cur}) < ${w}))
        return pcd_fail_short(${cur}, ${cur}->p, ${path}, ${expected});
  ]], { cur = cur, w = ty.wire, path = cstr(errname), expected = cstr(C.case_values_text(U)) })
  if U.name_tag then
    -- a name: NUL-padded, compared up to its first NUL
    b:f("%s.ptr = %s->p;", tagv, cur)
    b:f("%s.len = pcd_padded_len(%s->p, %d);", tagv, cur, ty.wire)
  else
    b:f("%s = %s;", tagv, C.load(ty, cur .. "->p"))
  end
  return tagv
end

-- The body of one case (after its label): which case, the tag consumed, then its value.
local function dec_case(b, U, env, c, tagv, mpre)
  local cur = env.cur
  if env.mode == "dec" then
    b:f("%s = %s;", C.out_ref(env, mpre .. "which"), c.const)
    if U.mode == "tag" and not U.name_tag then b:f("%s = %s;", C.out_ref(env, mpre .. "tag"), tagv) end
  end
  if U.mode == "tag" then
    if env.explain then b:f("pcd_span_at(%s, \"_tag\", %s->p, %d);", cur, cur, U.tagty.wire) end
    b:f("%s->p += %d;", cur, U.tagty.wire)
  end
  C.span_open(b, env, cur, c.name)
  local ty = c.ty
  if ty.kind == "struct" and not ty.named then
    K.dec_struct(b, ty, env)
  elseif ty.kind == "union" and not ty.named then
    K.dec_union(b, ty, env, { member = c.member, errname = c.errname, local_ = "v_" .. c.member:gsub("%.", "_") })
  elseif ty.named and env.mode == "dec" then
    b:f("PCD_TRY_IN(c->x, %s(%s, &%s%s), %s, -1);", C.dec_fn(env, ty), cur, C.out_ref(env, c.member),
      C.co_arg(env, ty), cstr(c.errname))
  elseif ty.named then
    b:f("PCD_TRY_IN(c->x, %s(%s), %s, -1);", C.elem_fn(ty, "validate"), cur, cstr(c.errname))
  else
    local m = ty.kind == "array" and (c.member .. ".items") or c.member
    local pf = { name = c.name, ty = ty, errname = c.errname, member = m, local_ = "v_" .. c.member:gsub("%.", "_") }
    K.dec_value(b, pf, env, m, c.errname, pf.local_)
  end
  C.span_close(b, env, cur)
end

-- A case's body with its own locals declared at its top: a union of many cases does not
-- initialise every case's locals on every call.
local function case_block(b, U, env, c, tagv, mpre)
  local outer, outer_set = env.decls, env.decl_set
  env.decls = {}
  env.decl_set = setmetatable({}, { __index = outer_set })
  local at = #b.lines
  dec_case(b, U, env, c, tagv, mpre)
  local ins = C.decl_lines(env, string.rep("    ", b.ind))
  for i, l in ipairs(ins) do table.insert(b.lines, at + i, l) end
  env.decls, env.decl_set = outer, outer_set
end

-- A case read by its own function (lower: unions of many cases): which case, the tag, then
-- the call.
local function split_case(b, U, env, c, tagv)
  local dec = env.mode == "dec"
  if env.explain then
    -- the case's span around the call
    b:t([[
      ${which}
      ${settag}
      ${tagspan}
      ${skip}
      pcd_span_open(${cur}, ${name}, -1);
      PCD_TRY(${fn}(${cur}, ${obj}));
      pcd_span_close(${cur});
      return PCD_OK;
    ]], { which = string.format("%s->which = %s;", env.obj, c.const),
      settag = U.mode == "tag" and string.format("%s->tag = %s;", env.obj, tagv) or false,
      tagspan = U.mode == "tag" and string.format("pcd_span_at(%s, \"_tag\", %s->p, %d);", env.cur, env.cur, U.tagty.wire) or false,
      skip = U.mode == "tag" and string.format("%s->p += %d;", env.cur, U.tagty.wire) or false,
      cur = env.cur, name = cstr(c.name), fn = c.ty.cname .. "_explain_", obj = env.obj })
    return
  end
  b:t([[
    ${which}
    ${settag}
    ${skip}
    return ${fn}(${args});
  ]], { which = dec and string.format("%s->which = %s;", env.obj, c.const),
    settag = dec and U.mode == "tag" and string.format("%s->tag = %s;", env.obj, tagv),
    skip = U.mode == "tag" and string.format("%s->p += %d;", env.cur, U.tagty.wire),
    fn = c.ty.cname .. (dec and "_decode_" or "_validate_"),
    args = env.cur .. (dec and (", " .. env.obj .. C.co_arg(env, c.ty)) or "") })
end

function K.dec_union(b, U, env, f)
  local cur = env.cur
  local mpre = f and (f.member .. ".") or ""
  local errname = f and f.errname or U.tname
  local tagv = dec_tag(b, U, env, f, errname)
  local at = cur .. "->p"
  if U.string_tag then
    local first, dflt = true, nil
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c else
        local conds = {}
        for _, v in ipairs(c.values) do
          conds[#conds + 1] = string.format("pcd_bytes_eq(%s, %s, %d)", tagv, cstr(v), #v)
        end
        b:f("%sif (%s) {", first and "" or "} else ", table.concat(conds, " || "))
        first = false
        b:nest(function() case_block(b, U, env, c, tagv, mpre) end)
      end
    end
    if dflt then
      b:l(first and "{" or "} else {")
      b:nest(function() case_block(b, U, env, dflt, tagv, mpre) end)
      b:l("}")
    elseif U.name_tag then
      b:t([[
        } else {
            return pcd_fail_name_tag(${cur}, ${at}, ${path}, ${expected}, ${w});
        }
      ]], { cur = cur, at = at, path = cstr(errname), expected = cstr(C.case_values_text(U)), w = U.tagty.wire })
    else
      b:t([[
        } else {
            return pcd_fail(${cur}, ${at}, PCD_E_BAD_TAG, ${path}, ${expected}, PCD_FOUND_NONE, 0);
        }
      ]], { cur = cur, at = at, path = cstr(errname), expected = cstr(C.case_values_text(U)) })
    end
    return
  end
  b:f("switch (%s) {", tagv)
  local dflt
  for _, c in ipairs(U.cases) do
    if c.default then dflt = c else
      local labels = {}
      for _, v in ipairs(c.values) do labels[#labels + 1] = "case " .. C.cnum(v, U.hex) .. ":" end
      for i = 1, #labels, 6 do b:l(table.concat(labels, " ", i, math.min(i + 5, #labels))) end
      b:nest(function()
        if c.split then
          split_case(b, U, env, c, tagv)
        else
          b:l("{")
          b:nest(function() case_block(b, U, env, c, tagv, mpre) end)
          b:l("}")
          b:l("break;")
        end
      end)
    end
  end
  b:l("default:")
  b:nest(function()
    if dflt and dflt.split then
      split_case(b, U, env, dflt, tagv)
    elseif dflt then
      b:l("{")
      b:nest(function() case_block(b, U, env, dflt, tagv, mpre) end)
      b:l("}")
      b:l("break;")
    elseif f and f.owner and U.mode == "on" and U.on.ref and U.on.ref.field and K.enum_folded(U.on.ref.field, env) == f then
      -- the value the union is chosen by is not one of its enum's: that enum's failure, at its bytes
      local g = U.on.ref.field
      b:l(K.enum_fail(g, g.local_, cur .. "->p - " .. g.ty.wire, env))
    else
      b:f("return pcd_fail(%s, %s, PCD_E_BAD_TAG, %s, %s, PCD_FOUND_HEX, (uint64_t)(%s));", cur, at,
        cstr(errname), cstr(C.case_values_text(U)), tagv)
    end
  end)
  b:l("}")
end

---------------------------------------------------------------------------
-- encode / size

-- The tag values of cases as a condition on the selecting value t.
local function tag_conds(U, t, values, conds)
  for _, v in ipairs(values) do
    if U.string_tag then conds[#conds + 1] = string.format("pcd_bytes_eq(%s, %s, %d)", t, cstr(v), #v)
    else conds[#conds + 1] = t .. " == " .. C.cnum(v, U.hex) end
  end
  return conds
end

-- Before a case's value: its tag written (tag unions), or (on unions) a check that the
-- fields the union is chosen by select this case.
local function enc_case_tag(b, U, env, c, tagv, mpre, errname)
  if U.mode == "on" and env.mode == "enc" then
    if c.default then
      local conds = {}
      for _, c2 in ipairs(U.cases) do tag_conds(U, tagv, c2.values, conds) end
      if #conds > 0 then
        b:f("if (PCD_UNLIKELY(%s))", table.concat(conds, " || "))
        C.enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a tag no named case takes, for case " .. c.name, "PCD_FOUND_NONE", 0)
      end
    else
      b:f("if (PCD_UNLIKELY(!(%s)))", table.concat(tag_conds(U, tagv, c.values, {}), " || "))
      C.enc_fail(b, env, "PCD_E_BAD_TAG", errname, "the tag that selects case " .. c.name,
        U.string_tag and "PCD_FOUND_NONE" or "PCD_FOUND_HEX", U.string_tag and "0" or tagv)
    end
  elseif U.mode == "tag" and env.mode == "size" then
    C.acc(b, env, U.tagty.wire)
  elseif U.mode == "tag" and U.name_tag then
    b:f("PCD_TRY(pcd_put_padded(s, (pcd_bytes){ (const uint8_t *)%s, %d }, %d));", cstr(c.values[1]),
      #c.values[1], U.tagty.wire)
  elseif U.mode == "tag" and c.default then
    -- the default case keeps the tag as read: one no named case takes
    local tg = env.obj .. "->" .. mpre .. "tag"
    local conds = {}
    for _, c2 in ipairs(U.cases) do tag_conds(U, tg, c2.values, conds) end
    if #conds > 0 then
      b:f("if (PCD_UNLIKELY(%s))", table.concat(conds, " || "))
      C.enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a tag no named case takes, for case " .. c.name, "PCD_FOUND_HEX", tg)
    end
    b:f("PCD_TRY(%s);", C.put(U.tagty, tg, "s"))
  elseif U.mode == "tag" and #c.values == 1 then
    b:f("PCD_TRY(%s);", C.put(U.tagty, C.cnum(c.values[1], U.hex), "s"))
  elseif U.mode == "tag" then
    local tg = env.obj .. "->" .. mpre .. "tag"
    local conds = {}
    for _, v in ipairs(c.values) do conds[#conds + 1] = tg .. " == " .. C.cnum(v, U.hex) end
    b:f("if (PCD_UNLIKELY(!(%s)))", table.concat(conds, " || "))
    C.enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a tag of case " .. c.name, "PCD_FOUND_HEX", tg)
    b:f("PCD_TRY(%s);", C.put(U.tagty, tg, "s"))
  end
end

local function enc_case(b, env, c)
  local ty = c.ty
  if ty.kind == "struct" and not ty.named then
    K.enc_struct(b, ty, env)
  elseif ty.kind == "union" and not ty.named then
    K.enc_union(b, ty, env, { member = c.member, errname = c.errname, local_ = "v_" .. c.member:gsub("%.", "_") })
  elseif ty.named and env.mode == "size" then
    C.acc(b, env, C.elem_fn(ty, "size") .. "(x, &" .. env.obj .. "->" .. c.member .. ")")
  elseif ty.named then
    b:f("PCD_TRY_IN(s->x, %s(s, &%s->%s), %s, -1);", C.elem_fn(ty, "encode"), env.obj, c.member, cstr(c.errname))
  else
    local m = ty.kind == "array" and (c.member .. ".items") or c.member
    local pf = { name = c.name, ty = ty, errname = c.errname, member = m, local_ = "v_" .. c.member:gsub("%.", "_") }
    K.enc_value(b, pf, env, env.obj .. "->" .. m, c.errname)
  end
end

function K.enc_union(b, U, env, f)
  local mpre = f and (f.member .. ".") or ""
  local errname = f and f.errname or U.tname
  local which = env.obj .. "->" .. mpre .. "which"
  local tagv
  if U.mode == "on" and U.string_tag then
    tagv = cexpr(U.on, env)
  elseif U.mode == "on" then
    tagv = "t_" .. (f and f.local_:sub(3) or "u")
    C.declare(env, tagv, "uint64_t", "0")
    b:f("%s = (uint64_t)(%s);", tagv, cexpr(U.on, env))
  end
  b:f("switch (%s) {", which)
  for _, c in ipairs(U.cases) do
    b:f("case %s:", c.const)
    b:nest(function()
      enc_case_tag(b, U, env, c, tagv, mpre, errname)
      if c.split and env.mode == "size" then
        C.acc(b, env, c.ty.cname .. "_size(x, in)")
        b:l("break;")
      elseif c.split then
        b:f("return %s_encode(s, in);", c.ty.cname)
      else
        enc_case(b, env, c)
        b:l("break;")
      end
    end)
  end
  b:l("default:")
  if env.mode == "size" then
    b:l("    break;")
  else
    C.enc_fail(b, env, "PCD_E_BAD_TAG", errname, "a valid case index", "PCD_FOUND_UINT", which)
  end
  b:l("}")
end

---------------------------------------------------------------------------
-- descriptors

-- For a union chosen by an expression: which case the owner's other fields select.
function K.select_fn(ir, U)
  local owner = U.owner
  local env = C.new_env(ir, owner, "enc")
  env.xp = "((const pcd_ctx *)NULL)"
  local b = buf(1)
  b:f("const %s *in = owner_;", owner.cname)
  local dflt = -1
  if U.string_tag then
    local tagv = cexpr(U.on, env)
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c.index else
        for _, v in ipairs(c.values) do
          b:f("if (pcd_bytes_eq(%s, %s, %d)) return %d;", tagv, cstr(v), #v, c.index)
        end
      end
    end
    b:f("return %d;", dflt)
  else
    b:f("switch ((uint64_t)(%s)) {", cexpr(U.on, env))
    for _, c in ipairs(U.cases) do
      if c.default then dflt = c.index else
        for _, v in ipairs(c.values) do b:f("case %s: return %d;", C.cnum(v, U.hex), c.index) end
      end
    end
    b:f("default: return %d;", dflt)
    b:l("}")
  end
  return string.format("static int32_t %s_select(const void *owner_)\n{\n%s}\n", U.cname, b:text())
end

return K
