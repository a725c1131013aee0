-- fx_footer: sections named by 4 bytes up to an index whose length the file's last field
-- gives (the sections' size depends on the size of the whole input), and a list of strings
-- that ends where the next section's name begins.
return format "fx_footer" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXF1"),
      field "sections" (records { of = "section", size = "input_size - 4 - 16 * (n + 1)" }),
      field "index" (records { of = "index_entry", at = "input_size - 16 * (n + 1)", count = "n" }),
      field "total" (u64 { at_end = 16, doc = "Anything the writer notes." }),
      field "n" (u64 { at_end = 8, count_of = "index" }),
    },
    section = union {
      tag = fixed_string { fixed = 4 },
      case("strs", "strs", struct {
        field "first" (u64),
        field "strings" (array { of = string { len = u32 }, until_next = "done" }),
      }),
      case("done", "done", struct { field "x" (u8) }),
    },
    index_entry = struct { field "a" (u64), field "b" (u64) },
  },
}
