return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "rec" }) },
  rec = struct {
    field "tail" (bytes { rest = true }),
    field "items" (array { of = u8, until_end = true }),
  },
} }
