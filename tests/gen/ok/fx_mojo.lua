-- fx_mojo: MOJO varints (sign and magnitude) with checks, in expressions, and a magic
-- header whose version field picks the schema (as Austin's MOJO does).
return format "fx_mojo" {
  version = 2,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "MJX"),
      field "version" (mojo_varint { equals = 2, doc = "Only version 2 is this schema's." }),
      field "recs" (records { of = "rec" }),
    },
    rec = struct {
      field "a" (mojo_varint { min = -5, max = 1000 }),
      field "b" (mojo_varint { equals = -3 }),
      field "c" (mojo_varint, { when = "a > 10" }),
      field "d" (mojo_varint),
    },
  },
}
