return format "bad" { version = 1, endian = "middle", types = {
  file = struct { field "r" (records { of = "rec" }) },
  rec = struct {
    field "name" (string),
    field "size" (u16 { total_size = true }),
    field "both" (string { len = u8, rest = true }),
    field "v" (union { on = "size +", case(1, "one", u8) }),
    field "w" (union { case(1, "one", u8) }),
    field "inner" (struct { field "s" (u8 { total_size = true }) }),
  },
} }
