return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "rec" }) },
  rec = struct {
    field "data" (bytes { size = "lenght" }),
    field "length" (u8),
    field "int" (u8),
    field "a" (u8),
    field "a" (u16),
  },
} }
