-- fx_warn: warnings (warn = { "condition", "what is expected" }): what a real reader accepts
-- but the schema flags, checked on a decoded record (pcd_record_warnings) with the field's
-- offset and path; a field reports the first of its warnings that fails; conditional fields
-- only when they are there; footer fields at their place from the end.
return format "fx_warn" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXW1"),
      field "header" (struct {
        field "major" (u8),
        field "reserved" (u8 { warn = { "reserved == 0", "0 (reserved)" } }),
      }),
      field "mode" (u32 { hex = true, warn = {
        { "mode != 0", "a mode other than 0 (readers treat 0 as 1)" },
        { "mode <= 3", "a mode 1..3" },
      } }),
      field "extra" (u16, { when = "mode >= 2", warn = { "extra < 100", "below 100" } }),
      field "recs" (records { of = "rec", size = "input_size - 10 - 2 * (mode >= 2) - 8" }),
      field "size" (u64 { at_end = 8, warn = { "size == input_size", "the input's size" } }),
    },
    rec = struct {
      field "name" (string { len = u8 }),
      field "level" (u8 { warn = { "level < 10", "a level below 10" } }),
    },
  },
}
