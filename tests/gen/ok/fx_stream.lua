-- fx_stream: a header, then buffers whose events sit in a sized region with stream
-- state: a running time (delta) and object addresses relative to a base, shifted.
return format "fx_stream" {
  version = 2,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXS"),
      field "version" (u8 { equals = 2 }),
      field "buffers" (records { of = "buffer", recover = { size = "len" } }),
    },
    buffer = struct {
      field "id" (u32 { equals = 0x42554646, magic = true }),
      field "len" (u32 { size_of = "events", doc = "Bytes of events after this header." }),
      field "time_base" (u64),
      field "obj_base" (u64),
      field "events" (records {
        of = "event",
        state = { time = u64 { init = "time_base" }, obj = u64 { init = "obj_base" } },
      }),
    },
    event = struct {
      field "type" (u8 { enum = { [1] = "tick", [2] = "alloc" } }),
      field "time" (uleb128 { delta = "time", doc = "ns since the previous event." }),
      field "obj" (sleb128 { base = "state.obj", shift = 3, when = "type == 2" }),
    },
  },
}
