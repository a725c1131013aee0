-- fx_trailer: what a whole-file layout with an optional trailer needs: the input's size in
-- expressions, bounds computed from fields, a check over bits of a field, an optional magic
-- found from the end, a conditional region sized by a later field that also counts its
-- trailer (size_extra), conditions the encoder decides by presence, and a varint whose 10th
-- byte may carry bits past 64 (wrap).
return format "fx_trailer" {
  version = 1,
  endian = "native",
  types = {
    file = struct {
      field "mark" (u32 { byte_order = true, equals = 0x46585452, magic = true }),
      field "mode" (u16 { hex = true, check = "(mode & 7) <= 5", expect = "a mode 0..5 in bits 0-2" }),
      field "items_at" (u32 { offset_of = "items", min = 10, max = "input_size" }),
      field "items" (records { of = "item", at = "items_at", count = "item_count" }),
      field "extra" (records { of = "extra", at = "input_size - 4 - extra_size" }, { when = "extra_tag" }),
      field "extra_tag" (magic "XTRA", { at_end = 12, optional = true, doc = "Whether the extra block is there." }),
      field "extra_size" (u32 { at_end = 8, when = "extra_tag", size_of = "extra", size_extra = 8,
        min = 8, max = "input_size - 4", doc = "The extra block's bytes, its tag and this size included." }),
      field "item_count" (u32 { at_end = 4, count_of = "items" }),
    },
    item = struct { field "v" (uleb128), field "w" (uleb128 { wrap = true }) },
    extra = struct {
      field "a" (u16),
      field "b" (u16, { when = "root.extra_size >= 12" }),
      field "rest" (bytes { size = "root.extra_size - 10 - 2 * (root.extra_size >= 12)" },
        { when = "root.extra_size > 12" }),
    },
  },
}
