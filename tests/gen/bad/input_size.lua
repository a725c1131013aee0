return format "bad" { version = 1, types = {
  file = struct {
    field "n" (u32),
    field "m" (u32, { when = "input_size > 4" }),
    field "a" (array { of = u8, until_next = "" }),
    field "r" (s64 { relocate = true }),
  },
} }
