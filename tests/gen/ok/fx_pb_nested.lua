-- fx_pb_nested: messages inside messages (singular and repeated), strings and bytes with a
-- length limit, unknown fields kept, and the layout: Go's rule (pack_min = 3: numbers packed
-- only from 3 values on) as the canonical form, so that other orders and packings are kept.
return format "fx_pb_nested" {
  version = 1,
  types = {
    file = struct { field "fields" (records { of = "doc", by_field = true }) },
    doc = message {
      pack_min = 3,
      field "title" (1, string { max_len = 64 }),
      field "part" (2, repeated "part"),
      field "head" (3, "part", { doc = "A singular message." }),
      field "ids" (4, repeated(uint64)),
      field "blob" (5, bytes),
    },
    part = message {
      pack_min = 3,
      field "name" (1, string),
      field "ids" (2, repeated(uint64)),
      field "tags" (3, repeated(string), { max_count = 4 }),
      field "weight" (4, int64),
    },
  },
}
