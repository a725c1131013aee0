return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "rec", state = { m = u64 } }) },
  rec = struct {
    field "a" (array { of = cstring { delta = "m" }, count = u8 }),
    field "b" (array { of = sleb128 { delta = "clock" }, count = u8 }),
    field "c" (array { of = sleb128 { shift = 3 }, count = u8 }),
    field "d" (array { of = u8, count = u8, reset = "nope" }),
    field "e" (array { of = u8, count = u8, count_only = 5 }),
    field "f" (array { of = u8, until_next = "x", count_only = "f" }),
    field "g" (array { of = u32, count = u8, in_place = 1 }),
    field "h" (array { of = cstring, count = u8, in_place = true }),
    field "i" (array { of = u32be, count = u8, in_place = true }),
  },
} }
