-- fx_unions: unions by tag byte, by a nibble of an earlier byte, and by a peeked magic.
return format "fx_unions" {
  version = 1,
  endian = "little",
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    rec = union {
      peek = u16,
      case(0x4141, "a", "rec_a"),
      case(0x4242, "b", "rec_b"),
    },
    rec_a = struct {
      field "magic" (magic "AA"),
      field "size" (u16 { total_size = true }),
      field "ev" (u8 { hex = true, doc = "Low nibble: type; high nibble: flags." }),
      field "body" (union {
        on = "ev & 0x0f",
        case(1, "alloc", struct {
          field "size" (uleb128),
          field "bt" (array { of = sleb128, count = uleb128, when = "(ev & 0x80) != 0" }),
        }),
        case({ 2, 3 }, "gc", struct {
          field "gen" (u8, { when = "(ev & 0x0f) == 3" }),
        }),
        default_case("other", bytes { rest = true }),
      }),
    },
    rec_b = struct {
      field "magic" (magic "BB"),
      field "len" (u8 { size_of = "item" }),
      field "item" (union {
        tag = u8,
        case(1, "num", u32),
        case({ 2, 3 }, "pair", struct { field "x" (u8), field "y" (u8) }),
        case(4, "empty", struct {}),
      }),
    },
  },
}
