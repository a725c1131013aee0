return format "bad" { version = 1, types = {
  file = struct { field "r" (records { of = "recrod" }) },
  rec = struct { field "a" (string) },
} }
