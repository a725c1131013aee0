return format "bad" { version = 1, endian = "native", types = {
  file = struct {
    field "f" (u8),
    field "n" (u32 { count_of = "r", when = "f > 1" }),
    field "m" (u16 { expect = "something" }),
    field "k" (u16 { check = "k > 1", size_extra = 2 }),
    field "o" (u8 { optional = true }),
    field "r" (records { of = "rec" }),
  },
  rec = struct {
    field "x" (u32 { max = "input_size" }),
  },
} }
