return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "rec" }) },
  rec = struct {
    field "e" (mojo_varint { enum = { [1] = "one" } }),
    field "s" (mojo_varint { absent = 0 }),
  },
} }
