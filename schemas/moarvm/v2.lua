-- schemas/moarvm/v2.lua: MoarVM heap snapshots, format 2 (.mvmheap), what MoarVM writes when
-- it is built without libzstd (Debian's stock moarvm 2022.12, for one). Layout established
-- from MoarVM's src/profiler/heapsnapshot.c (the *_to_filehandle_ver2 functions and
-- index_to_filehandle), checked on ../shared/corpus/moarvm/nqp-v2-stock-debian.mvmheap.
return format "moarvm" {
  version = 2,
  title = "MoarVM heap snapshot",
  doc = [[
Uncompressed. After the 16-byte identification come, per snapshot, a coll block (the
collectables), a refs block (the references), and strs, type and fram blocks with the
strings, types and static frames added since the last snapshot; when profiling ends, one
more strs/type/fram group. Blocks start with 4 bytes of name. The file ends with an index:
per snapshot the byte sizes of its coll and refs blocks, then the sizes of the last strs,
type and fram blocks and the number of snapshots (the last 8 bytes). A strs block does not
say how many strings it holds: they run until the type block's name. Integers are the
writer's native order, in practice little-endian.]],
  endian = "little",

  -- One struct for a reference whatever its width: what the format 2 adapter
  -- (src/formats/moarvm/v2.c) reads, and packs as format 3's refdescr column holds it.
  views = {
    ref = view {
      of = "ref",
      doc = "A reference of a refs block, whatever the width of its fields.",
      field "descr" (u64, { doc = "How it is described: the kind of a format 3 refdescr (0 unknown, 1 index, 2 string)." }),
      field "index" (u64, { doc = "The numeric or string-heap index." }),
      field "target" (u64, { doc = "The collectable it points to." }),
    },
  },

  types = {
    file = struct {
      field "magic" (magic "MoarHeapDumpv002"),
      field "blocks" (records {
        of = "block",
        size = "input_size - 16 - 32 * (snapshots + 1)",
        recover = { sync = true },
      }),
      field "index" (records { of = "index_entry", at = "input_size - 32 * (snapshots + 1)", count = "snapshots" }),
      field "stringheap_size" (u64 { at_end = 32, doc = "Bytes of the last strs block." }),
      field "types_size" (u64 { at_end = 24, doc = "Bytes of the last type block." }),
      field "staticframes_size" (u64 { at_end = 16, doc = "Bytes of the last fram block." }),
      field "snapshots" (u64 { at_end = 8, count_of = "index", doc = "Snapshots in the file (entries of the index)." }),
    },

    block = union {
      doc = "One block; its 4-byte name says which.",
      tag = fixed_string { fixed = 4 },
      case("coll", "coll", "coll_block"),
      case("refs", "refs", "refs_block"),
      case("strs", "strs", "strs_block"),
      case("type", "type", "type_block"),
      case("fram", "fram", "fram_block"),
    },

    coll_block = struct {
      doc = "The collectables of one snapshot.",
      field "count" (u64 { count_of = "collectables" }),
      field "entry_size" (u64 { equals = 28, doc = "Bytes per collectable." }),
      field "collectables" (records { of = "collectable", count = "count" }),
    },

    collectable = struct {
      field "kind" (u16 { doc = "1 object, 2 type object, 3 STable, 4 frame, 5-11 roots (9 the root)." }),
      field "tofi" (u32 { doc = "Type index (kinds 1-3), static frame index (4), 0 for roots." }),
      field "size" (u16 { doc = "Managed size." }),
      field "unmanaged_size" (u64),
      field "refs_start" (u64 { doc = "First of its references (0 when it has none)." }),
      field "refs_count" (u32),
    },

    refs_block = struct {
      doc = "The references of one snapshot; each entry is as wide as its largest value needs.",
      field "count" (u64 { count_of = "refs" }),
      field "entry_size" (u64 { equals = 17, doc = "Bytes of the widest entry." }),
      field "refs" (records { of = "ref", count = "count" }),
    },

    ref = union {
      doc = "A reference: '0', '1', '3' or '6' says whether its fields are 8, 16, 32 or 64 bits wide.",
      tag = u8,
      case(0x30, "ref8", struct { field "descr" (u8), field "index" (u8), field "target" (u8) }),
      case(0x31, "ref16", struct { field "descr" (u8), field "index" (u16), field "target" (u16) }),
      case(0x33, "ref32", struct { field "descr" (u8), field "index" (u32), field "target" (u32) }),
      case(0x36, "ref64", struct { field "descr" (u8), field "index" (u64), field "target" (u64) }),
    },

    strs_block = struct {
      doc = "Strings added since the last strs block.",
      field "first" (u64 { doc = "Strings written before this block (the index of its first)." }),
      field "strings" (array { of = string { len = u64 }, until_next = "type",
        doc = "Until the name of the type block that always follows." }),
    },

    type_block = struct {
      doc = "Types added since the last type block.",
      field "count" (u64 { count_of = "types" }),
      field "entry_size" (u64 { equals = 16 }),
      field "types" (array { of = "type_row" }),
    },

    type_row = struct {
      doc = [[MoarVM writes 8 bytes from each of its two 32-bit fields: the row is repr_name and
type_name, then type_name again and 4 bytes of whatever followed in its memory.]],
      field "repr_name" (u32 { doc = "String index." }),
      field "type_name" (u32 { doc = "String index." }),
      field "type_name_again" (u32),
      field "spill" (u32 { doc = "Not data: the next 4 bytes of the writer's memory." }),
    },

    fram_block = struct {
      doc = "Static frames added since the last fram block.",
      field "count" (u64 { count_of = "frames" }),
      field "entry_size" (u64 { equals = 32 }),
      field "frames" (array { of = "frame_row" }),
    },

    frame_row = struct {
      doc = [[MoarVM writes 8 bytes from each of its four 32-bit fields: every field but the first
appears twice, and the row ends in 4 bytes of whatever followed in its memory.]],
      field "name" (u32 { doc = "String index." }),
      field "cuid" (u32 { doc = "String index (compilation unit id)." }),
      field "cuid_again" (u32),
      field "line" (u32),
      field "line_again" (u32),
      field "file" (u32 { doc = "String index." }),
      field "file_again" (u32),
      field "spill" (u32 { doc = "Not data: the next 4 bytes of the writer's memory." }),
    },

    index_entry = struct {
      doc = "One snapshot in the index.",
      field "collectables_size" (u64 { doc = "Bytes of its coll block." }),
      field "full_refs_size" (u64 { doc = "Bytes of its refs block." }),
      field "refs_middlepoint" (u64 { doc = "Bytes into the refs block where its second half starts." }),
      field "incremental_data" (u64 { doc = "Always 0." }),
    },
  },
}
