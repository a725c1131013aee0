-- fx_bits: words of named sub-fields (lowest bit first): a field's, a named word's (also as
-- array elements), a union tag's, and one no field holds; sub-field checks when decoding and
-- encoding; an expression that reads a sub-field; an array of structs with a word, read by the
-- elements' fast path; named values of a sub-field (an enum, open or not). The record keeps
-- the word as read.
return format "fx_bits" {
  version = 1,
  endian = "little",
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    status = bits(u8) {
      field "busy" (1, { doc = "Working." }),
      field "level" (3, { max = 5 }),
      field "mode" (2, { enum = { [0] = "off", [1] = "on", [2] = "auto" } }),
      field "reserved" (2, { equals = 0 }),
    },
    handle = bits(u64) {
      doc = "A kind (its values named, none checked: an open enum) and an index.",
      field "kind" (2, { enum = { [0] = "none", [1] = "number", [2] = "name" }, open = true }),
      field "index" (62),
    },
    spare = bits(u32) {
      doc = "A word no field holds (one that arrays or columns elsewhere keep).",
      field "lo" (16),
      field "hi" (16),
    },
    pair = struct {
      doc = "Plain fields (one a bits word without checks): the elements' fast path reads them.",
      field "n" (uleb128),
      field "h" (ref "handle"),
    },
    rec = union {
      tag = bits(u8) { field "type" (4), field "sub" (4) },
      case(0x01, "plain", struct {
        field "flags" (bits(u16) { hex = true, field "a" (4), field "b" (12) }),
        field "st" (ref "status", { hex = true }),
        field "handles" (array { of = "handle", count = u8 }),
        field "n" (u8, { when = "flags.a != 0" }),
        field "pairs" (array { of = "pair", count = u8 }),
      }),
      case(0x12, "other", struct {}),
    },
  },
}
