-- fx_scalars: fixed-width integers and floats in every byte order, varints, checks, named
-- values (enums, inline and named, and absent sentinels).
return format "fx_scalars" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "mark" (u32 { byte_order = true, equals = 0x01020304, magic = true,
        doc = "Byte-order mark: read swapped, every native field is swapped." }),
      field "recs" (records { of = "rec" }),
    },
    rec = struct {
      field "a" (u8 { equals = 7 }),
      field "b" (u16be { min = 1, max = 1000 }),
      field "c" (u32le),
      field "d" (s64be),
      field "e" (f32be),
      field "f" (f64le),
      field "g" (u32native { doc = "In the file's own byte order." }),
      field "h" (s16 { absent = -1, doc = "-1 means absent." }),
      field "kind" (u8 { enum = { [0] = "zero", [1] = "one", [2] = "two" } }),
      field "open_kind" (u8 { enum = "odd_kind", open = true, doc = "A named enum (its values are named once)" }),
      field "u" (uleb128),
      field "u32v" (uleb128 { bits = 32 }),
      field "s" (sleb128),
      field "z32" (zigzag32 { absent = -1 }),
      field "z64" (zigzag64),
      field "m" (mojo_varint),
    },
  },
  enums = { odd_kind = { [1] = "one" } },
}
