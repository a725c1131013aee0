return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "rec" }), field "after" (u8) },
  rec = struct {
    field "t" (uleb128 { delta = "clock" }),
    field "u" (union { tag = u8, case(1, "x", u8), case(1, "y", u16) }),
    field "arr" (array { of = u8 }),
  },
  orphan = struct { field "z" (u8) },
} }
