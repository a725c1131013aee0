-- schemas/heph/v0_1.lua: Heph's trace format 0.1.0 (rt/src/trace.rs and doc/Trace Format.md).
return format "heph" {
  version = "0.1",
  version_num = 1,
  title = "Heph trace",
  doc = [[
Packets written back to back by heph-rt's trace writer: metadata packets (options
such as the epoch) and event packets (one finished event of a stream). There is no
file header and no version marker; every integer is big-endian. Each packet starts
with a magic and its total size, so a damaged packet can be skipped.]],
  endian = "big",

  types = {
    file = struct {
      doc = "A trace: packets until the end of the file.",
      field "packets" (records {
        of = "packet",
        recover = { size = "size", sync = true },
      }),
    },

    packet = union {
      doc = "One packet; its magic says which kind.",
      peek = u32,
      case(0x75D11D4D, "metadata", "metadata_packet"),
      case(0xC1FC1FB7, "event", "event_packet"),
    },

    metadata_packet = struct {
      doc = "Sets one option for the whole trace (Heph writes only `epoch`, first).",
      field "magic" (magic(u32, 0x75D11D4D)),
      field "size" (u32 { total_size = true, doc = "Bytes in the packet, magic and size included." }),
      field "option" (string { len = u16, doc = "Option name (UTF-8)." }),
      field "value" (union {
        on = "option",
        doc = "The option's value; unknown options keep their bytes.",
        case("epoch", "epoch", u64 { unit = "ns", doc = "Wall-clock zero of the event times, ns since the Unix epoch." }),
        default_case("other", bytes { rest = true }),
      }),
    },

    event_packet = struct {
      doc = "One event of a stream, written when it finished.",
      field "magic" (magic(u32, 0xC1FC1FB7)),
      field "size" (u32 { total_size = true, doc = "Bytes in the packet, magic and size included." }),
      field "stream_id" (u32 { doc = "Stream (thread) the event belongs to." }),
      field "stream_counter" (u32 { doc = "Per-stream event counter; wraps, may repeat on stream 0." }),
      field "substream_id" (u64 { doc = "Substream (e.g. actor) within the stream." }),
      field "start_ns" (u64 { unit = "ns", doc = "Start, ns since the trace epoch." }),
      field "end_ns" (u64 { unit = "ns", doc = "End, ns since the trace epoch." }),
      field "description" (string { len = u16, doc = "What happened (UTF-8)." }),
      field "attributes" (array { of = "attribute", until_end = true,
        doc = "Key-value pairs until the end of the packet." }),
    },

    attribute = struct {
      doc = "One key-value pair of an event.",
      field "name" (string { len = u16 }),
      field "type" (bits(u8) {
        doc = "Value type; 0x80 marks an array of that type.",
        hex = true,
        enum = { [0x01] = "u64", [0x02] = "i64", [0x03] = "f64", [0x04] = "string",
                 [0x81] = "u64_array", [0x82] = "i64_array", [0x83] = "f64_array",
                 [0x84] = "string_array" },
        field "kind" (7, { doc = "1 u64, 2 i64, 3 f64, 4 string." }),
        field "array" (1, { doc = "1: an array of values of that kind." }),
      }),
      field "value" (union {
        on = "type",
        case(0x01, "u64", u64),
        case(0x02, "i64", s64),
        case(0x03, "f64", f64),
        case(0x04, "string", string { len = u16 }),
        case(0x81, "u64_array", array { of = u64, count = u16 }),
        case(0x82, "i64_array", array { of = s64, count = u16 }),
        case(0x83, "f64_array", array { of = f64, count = u16 }),
        case(0x84, "string_array", array { of = string { len = u16 }, count = u16 }),
      }),
    },
  },
}
