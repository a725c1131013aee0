-- bad/views: a view of no union, with reserved, duplicate or untyped members, unknown options,
-- and a path whose field holds something else.
return format "bad_views" {
  version = 1,
  views = {
    wrong = view { of = "file", field "x" (u8) },
    ev = view {
      of = "ev",
      field "kind" (u8),
      field "t" (u64),
      field "t" (u64),
      field "s" ("ev"),
      field "n" (u64, { from = "one.s", size = 3 }),
    },
  },
  types = {
    file = struct { field "evs" (records { of = "ev" }) },
    ev = union {
      tag = u8,
      case(1, "one", struct { field "t" (uleb128), field "s" (string { len = u8 }) }),
    },
  },
}
