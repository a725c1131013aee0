-- fx_strings: every way a byte string can be delimited.
return format "fx_strings" {
  version = 1,
  endian = "big",
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    rec = struct {
      field "magic" (magic "STR"),
      field "c" (cstring { max_len = 16 }),
      field "p16" (string { len = u16 }),
      field "pv" (bytes { len = uleb128 }),
      field "n" (u8),
      field "sized" (string { size = "n" }),
      field "name8" (fixed_string { fixed = 8 }),
      field "raw4" (bytes { fixed = 4 }),
      field "text_size" (u16 { size_of = "text", doc = "Bytes of text, its NUL included." }),
      field "text" (cstring { max_len = 32, doc = "NUL-terminated, and filling its size." }),
      field "len" (u16 { size_of = "tail" }),
      field "tail" (bytes { doc = "Sized by len; the rest of it." }),
    },
  },
}
