-- bad/relative: delta_of naming no field read before, or no integer, without a value name,
-- with a value named like a field, and value or none without delta_of.
return format "bad_relative" {
  version = 1,
  types = {
    file = struct {
      field "a" (u32 { delta_of = "b", value = "x" }),
      field "b" (u32),
      field "s" (string { len = u8 }),
      field "c" (u32 { delta_of = "s", value = "y" }),
      field "d" (u32 { delta_of = "b" }),
      field "e" (u32 { delta_of = "b", value = "a" }),
      field "f" (u32 { value = "z", none = "no" }),
      field "g" (string { len = u8, delta_of = "b", value = "w" }),
    },
  },
}
