-- fx_tables: a whole-file layout: a header pointing at a table, a sample region that may
-- be zstd, a table placed by the header and counted by a footer read from the end.
return format "fx_tables" {
  version = 1,
  endian = "native",
  types = {
    file = struct {
      field "mark" (u32 { byte_order = true, equals = 0x54424C31, magic = true }),
      field "compression" (u16 { enum = { [0] = "none", [1] = "zstd" } }),
      field "flags" (u16),
      field "names_at" (u64 { offset_of = "names", doc = "Absolute offset of the name table." }),
      field "values_size" (u32 { size_of = "values" }),
      field "values" (records { of = "value", compression = "compression" }),
      field "names" (records { of = "name", at = "names_at", count = "name_count" }),
      field "name_count" (u32 { at_end = 16, count_of = "names", doc = "Footer: names in the table." }),
      field "file_size" (u64 { at_end = 12, file_size = true, doc = "Footer: the file's size." }),
      field "end" (magic "END!", { at_end = 4 }),
    },
    value = struct { field "v" (zigzag64) },
    name = struct { field "s" (string { len = uleb128 }) },
  },
}
