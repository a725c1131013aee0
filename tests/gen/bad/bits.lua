-- bad/bits: words of sub-fields that do not name every bit, name one twice, take unknown
-- options (open without an enum) or checks where nothing checks them, and an expression naming
-- no sub-field.
return format "bad_bits" {
  version = 1,
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    half = bits(u16) { field "a" (4), field "b" (4) },
    rec = union {
      tag = bits(u8) { field "type" (4, { max = 9 }), field "sub" (4) },
      case(2, "one_tag", struct {}),
      case(1, "one", struct {
        field "w" (bits(u8) { field "a" (4), field "a" (4) }),
        field "s" (bits(s16) { field "x" (16) }),
        field "z" (bits(u8) { field "zero" (0), field "rest" (8) }),
        field "o" (bits(u8) { field "lo" (4, { hex = true }), field "hi" (4, { min = 16 }) }),
        field "p" (bits(u8) { field "lo" (4, { open = true }), field "hi" (4) }),
        field "e" (array { of = bits(u8) { field "v" (8, { max = 3 }) }, count = u8 }),
        field "n" (u8, { when = "w.c != 0" }),
      }),
    },
  },
}
