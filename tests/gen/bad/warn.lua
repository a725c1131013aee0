-- bad/warn: warnings that are not { "condition", "expected" }, read stream state, sit in a
-- union's case or on a type that is no record.
return format "bad_warn" {
  version = 1,
  types = {
    file = struct {
      field "a" (u8 { warn = "a < 3" }),
      field "b" (u8 { warn = { "b < 3" } }),
      field "recs" (records { of = "rec", state = { t = u64 {} } }),
    },
    rec = union {
      tag = u8,
      case(1, "one", struct { field "x" (u8 { warn = { "x != 0", "not 0" } }) }),
      case(2, "two", "pair"),
      case(3, "three", struct { field "y" (u8 { warn = { "y != state.t", "the state" } }) }),
    },
    pair = struct { field "p" (u8 { warn = { "p != 0", "not 0" } }) },
  },
}
