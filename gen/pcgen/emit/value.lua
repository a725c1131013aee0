-- emit/value.lua: any value (a field, a union case, an array element) by its kind: the
-- dispatch every kind module calls through. Requiring it loads every kind.
local C = require("pcgen.emit.common")
local K = require("pcgen.emit.kinds")
require("pcgen.emit.scalar")
require("pcgen.emit.bytes")
require("pcgen.emit.array")
require("pcgen.emit.union")
require("pcgen.emit.struct")

local cstr = C.cstr

-- Decodes or validates a value; cur overrides env.cur (a value read through another cursor).
function K.dec_value(b, f, env, member, errname, local_, cur)
  local saved = env.cur
  if cur then env.cur = cur end
  local ty = f.ty
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then
    K.dec_scalar(b, f, env, member, errname, local_)
  elseif k == "magic" then
    K.dec_magic(b, f, env, errname)
  elseif k == "bytes" then
    K.dec_bytes(b, f, env, member, errname, local_)
  elseif k == "array" then
    K.dec_array(b, f, env, member, errname, local_)
  elseif (k == "struct" or k == "union") and ty.named then
    if env.mode == "dec" then
      b:f("PCD_TRY_IN(c->x, %s(%s, &%s%s), %s, -1);", C.dec_fn(env, ty), env.cur, C.out_ref(env, member),
        C.co_arg(env, ty), cstr(errname))
    else
      b:f("PCD_TRY_IN(c->x, %s(%s), %s, -1);", C.elem_fn(ty, "validate"), env.cur, cstr(errname))
    end
  elseif k == "struct" then
    K.dec_struct(b, ty, env)
  elseif k == "union" then
    K.dec_union(b, ty, env, f)
  end
  -- records: placed by dec_struct once every other field is known
  env.cur = saved
end

-- Encodes or measures a value; v is the C expression of the stored value.
function K.enc_value(b, f, env, v, errname)
  local ty = f.ty
  local k = ty.kind
  if k == "int" or k == "float" or k == "varint" then
    K.enc_scalar(b, f, env, v)
  elseif k == "magic" then
    K.enc_magic(b, f, env)
  elseif k == "bytes" then
    K.enc_bytes(b, f, env, v, errname)
  elseif k == "array" then
    K.enc_array(b, f, env, f.member, errname)
  elseif (k == "struct" or k == "union") and ty.named then
    if env.mode == "size" then
      C.acc(b, env, C.elem_fn(ty, "size") .. "(x, &" .. v .. ")")
    else
      b:f("PCD_TRY_IN(s->x, %s(s, &%s), %s, -1);", C.elem_fn(ty, "encode"), v, cstr(errname))
    end
  elseif k == "struct" then
    K.enc_struct(b, ty, env)
  elseif k == "union" then
    K.enc_union(b, ty, env, f)
  end
  -- records: written record by record by the stream writer
end

return K
