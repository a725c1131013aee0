-- fx_pb_scalars: protobuf's scalar types in a message, singular and repeated: every varint
-- kind (int32 and int64 as two's complement, uint32, uint64, zigzag sint32 and sint64, bool, an
-- enum), fixed32/64 and their signed forms, float and double; repeated numbers packed in the
-- canonical form (the default), or not (packed = false); the file streams the message's fields.
return format "fx_pb_scalars" {
  version = 1,
  types = {
    file = struct { field "fields" (records { of = "all", by_field = true }) },
    all = message {
      doc = "One of each.",
      field "i32" (1, int32),
      field "i64" (2, int64),
      field "u32" (3, uint32),
      field "u64" (4, uint64, { hex = true }),
      field "s32" (5, sint32),
      field "s64" (6, sint64),
      field "flag" (7, bool),
      field "color" (8, int32, { enum = { [0] = "red", [1] = "green", [2] = "blue" } }),
      field "f32" (9, fixed32),
      field "f64" (10, fixed64),
      field "sf32" (11, sfixed32),
      field "sf64" (12, sfixed64),
      field "fl" (13, float),
      field "db" (14, double),
      field "many" (15, repeated(sint64), { doc = "Packed (canonical)." }),
      field "flags" (16, repeated(bool, { packed = false }), { doc = "One per occurrence (canonical)." }),
      field "fixed" (17, repeated(fixed32)),
      field "big" (2000, uint64, { doc = "A two-byte key." }),
    },
  },
}
