return format "bad" { version = 1, types = {
  file = struct { field "x" (u32 { mni = 1 }), field "r" (records { of = "rec" }) },
  rec = struct { field "a" (u8) },
} }
