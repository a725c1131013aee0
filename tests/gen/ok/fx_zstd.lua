-- fx_zstd: a header saying whether the records that follow are one zstd stream.
return format "fx_zstd" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXZ"),
      field "compression" (u8 { enum = { [0] = "none", [1] = "zstd" } }),
      field "size" (u32 { size_of = "samples" }),
      field "samples" (records { of = "sample", compression = "compression", zstd_level = 5 }),
    },
    sample = struct {
      field "tid" (u32),
      field "value" (uleb128),
    },
  },
}
