-- fx_relative: fields stored relative to a sibling (delta_of): the header computes the value
-- from the record and the stored field from a value; the dump shows what is stored.
return format "fx_relative" {
  version = 1,
  endian = "little",
  types = {
    file = struct { field "spans" (records { of = "span" }) },
    span = struct {
      field "line" (zigzag32 { doc = "First line, -1 for none." }),
      field "end_delta" (zigzag32 { delta_of = "line", value = "end_line", none = -1,
        doc = "end_line - line (0 when line is -1)." }),
      field "start" (u64),
      field "length" (u32 { delta_of = "start", value = "stop" }),
    },
  },
}
