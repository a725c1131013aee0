-- fx_elems: stream transforms on array elements (a running delta, a base with a shift),
-- anonymous struct elements whose offsets run within their array (reset), and a
-- NUL-terminated string measured by a size field that counts its NUL; arrays a consumer
-- may decode for their count only (count_only: two names, one of them shared).
return format "fx_elems" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXE"),
      field "name_size" (u32 { size_of = "name", doc = "Bytes of the name, its NUL included." }),
      field "name" (cstring { max_len = 64 }),
      field "blocks" (records { of = "block", recover = { size = "len" } }),
    },
    block = struct {
      field "id" (u32 { equals = 0x4B4C4F42, magic = true }),
      field "len" (u32 { size_of = "events", doc = "Bytes of events after this header." }),
      field "method_base" (u64),
      field "obj_base" (u64),
      field "events" (records {
        of = "event",
        state = { method = u64 { init = "method_base" }, obj = u64 { init = "obj_base" }, off = u64 {} },
      }),
    },
    event = struct {
      field "frames" (array { of = sleb128 { delta = "method" }, count = uleb128, count_only = "frames",
        doc = "Each frame relative to the previous method of the block." }),
      field "objs" (array { of = sleb128 { base = "state.obj", shift = 3 }, count = u8, count_only = "objs" }),
      field "method" (sleb128 { delta = "method" }),
      field "pairs" (array { count = u8, reset = "off", count_only = "frames",
        doc = "Anonymous struct elements (a type of their own); offsets run from 0 in each event.", of = struct {
        field "offset" (uleb128 { delta = "off" }),
        field "obj" (sleb128 { base = "state.obj", shift = 3 }),
      } }),
    },
  },
}
