-- fx_arrays: arrays counted by a prefix, by an earlier field, by an expression,
-- to the end of a sized struct, and until a terminating element.
return format "fx_arrays" {
  version = 1,
  endian = "little",
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    rec = struct {
      field "size" (u32 { total_size = true }),
      field "pfx" (array { of = u16, count = u8 }),
      field "n" (uleb128 { count_of = "counted" }),
      field "counted" (array { of = "point" }),
      field "k" (u8),
      field "twice" (array { of = u8, count = "k * 2" }),
      field "strs" (array { of = cstring, count = u8 }),
      field "dims" (struct { field "w" (u8), field "h" (u8) }),
      field "grid" (array { of = u8, count = "dims.w * dims.h" }),
      field "counters" (array { of = "counter", ["until"] = "index == 0" }),
      field "rest" (array { of = "point", until_end = true }),
    },
    point = struct { field "x" (s32), field "y" (s32) },
    counter = struct {
      field "index" (uleb128),
      field "value" (sleb128, { when = "index != 0" }),
    },
  },
}
