return format "bad" { version = 1, types = {
  file = struct {
    field "n" (u32),
    field "b" (records { of = "blk" }),
  },
  blk = union {
    tag = fixed_string { fixed = 4 },
    case("a", "a", "col"),
    case("toolong", "b", "col2"),
    default_case("other", struct {}),
  },
  col = struct { field "e" (records { of = "pair", zstd_frame = true, batch = 8 }) },
  pair = struct { field "x" (u16), field "y" (u16) },
  col2 = struct { field "e" (records { of = "one", zstd_frame = true, size = "4", batch = 0 }) },
  one = struct { field "v" (array { of = u8, until_end = true }) },
} }
