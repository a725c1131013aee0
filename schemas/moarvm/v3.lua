-- schemas/moarvm/v3.lua: MoarVM heap snapshots, format 3 (.mvmheap), as written by
-- src/profiler/heapsnapshot.c since 2020 (MoarVM 2022.12 checked byte for byte).
-- Facts: ../shared/specs/moarvm-heap-v3.txt and NOTES-moarvm.md.

-- Column blocks: a u16 entry size, a u64 size MoarVM never fills in, then one zstd frame
-- of entries, read in batches.
local function column(bits, doc)
  return struct {
    doc = doc,
    field "entry_size" (u16 { equals = bits // 8, doc = "Bytes per entry." }),
    field "size" (u64 { doc = "Always 0: MoarVM never seeks back to fill it in. The block ends where its zstd frame ends." }),
    field "entries" (records {
      of = "u" .. bits .. "_entries",
      zstd_frame = true,
      batch = 16384,
      zstd_level = 9,
    }),
  }
end

local function entries(ty)
  return struct {
    doc = "Up to 16384 entries of a column (the column is the concatenation of these).",
    field "values" (array { of = ty, until_end = true, in_place = true }),
  }
end

return format "moarvm" {
  version = 3,
  title = "MoarVM heap snapshot",
  doc = [[
A stream of blocks after a 16-byte identification. Each block starts with an 8-byte kind
name (NUL-padded). JSON blocks (filemeta, snapmeta) carry their size; column blocks and
the string heap are one zstd frame each, whose compressed size is stored nowhere: the
block ends where the frame ends. After each snapshot's blocks come its inner table of
contents and an outer one (filemeta and every inner TOC so far); every TOC ends with the
file offset of its own start, so the last 8 bytes of an intact file point at the last
outer TOC. Strings, types and frames are incremental: each strings, reprname/typename and
sf* block holds only the rows added since the previous one, and indexes refer to the
concatenation so far. Integers are the writer's native order, in practice little-endian
(there is no marker).]],
  endian = "little",

  types = {
    file = struct {
      field "magic" (magic "MoarHeapDumpv003"),
      field "blocks" (records {
        of = "block",
        recover = { sync = true },
      }),
    },

    block = union {
      doc = "One block; its 8-byte kind name (NUL-padded, compared up to the first NUL) says which.",
      tag = fixed_string { fixed = 8 },
      case("filemeta", "filemeta", "json_block"),
      case("snapmeta", "snapmeta", "json_block"),
      case("toc", "toc", "toc_block"),
      case("strings", "strings", "strings_block"),
      case("colkind", "colkind", "column16"),
      case("colsize", "colsize", "column16"),
      case("coltofi", "coltofi", "column32"),
      case("colrfcnt", "colrfcnt", "column32"),
      case("colrfstr", "colrfstr", "column64"),
      case("colusize", "colusize", "column64"),
      case("refdescr", "refdescr", "column64"),
      case("reftrget", "reftrget", "column64"),
      case("reprname", "reprname", "column32"),
      case("typename", "typename", "column32"),
      case("sfname", "sfname", "column32"),
      case("sfcuid", "sfcuid", "column32"),
      case("sfline", "sfline", "column32"),
      case("sffile", "sffile", "column32"),
      case("topIDs", "top_ids", "column64"),
      case("topscore", "topscore", "column64"),
    },

    json_block = struct {
      doc = "filemeta (once, first) or snapmeta (one per snapshot): JSON text and a NUL.",
      field "size" (u64 { size_of = "json", doc = "Bytes of JSON text and its NUL (the header is not counted)." }),
      field "json" (cstring {
        max_len = 1048576,
        doc = "filemeta: subversion, start_time (us, uv_hrtime / 1000), pid, highscore_structure; " ..
          "snapmeta: snap_time, gc_seq_num, total_heap_size, total_objects, total_typeobjects, " ..
          "total_stables, total_frames, total_refs.",
      }),
    },

    toc_block = struct {
      doc = "A table of contents: an inner one lists a snapshot's blocks, an outer one filemeta and every inner TOC so far.",
      field "count" (u64 { count_of = "entries" }),
      field "entries" (array { of = "toc_entry" }),
      field "self" (u64 { relocate = true,
        doc = "File offset of this TOC's kind name; the end it records stops before this field." }),
    },

    toc_entry = struct {
      field "kind" (fixed_string { fixed = 8, doc = "Kind name of the block." }),
      field "start" (u64 { relocate = true, doc = "File offset of the block's kind name." }),
      field "end" (u64 { relocate = true, doc = "File offset just after the block (for a TOC: before its self pointer)." }),
    },

    strings_block = struct {
      doc = "Strings added since the previous strings block (the heap is their concatenation in file order).",
      field "size" (u64 { doc = "Always 0 (never filled in). There is no entry-size field." }),
      field "strings" (records { of = "string_entry", zstd_frame = true, zstd_level = 9 }),
    },

    string_entry = struct {
      field "text" (string { len = u32, doc = "UTF-8 as MoarVM keeps it; a NULL string is stored as <null>." }),
    },

    column16 = column(16, "colkind (1 object, 2 type object, 3 STable, 4 frame, 5-11 roots) or colsize (managed size)."),
    column32 = column(32, "coltofi, colrfcnt, reprname, typename, sfname, sfcuid, sfline or sffile."),
    column64 = column(64, "colrfstr, colusize, refdescr (words of the refdescr layout: kind in the low 2 bits), reftrget, topIDs or topscore."),
    refdescr = bits(u64) {
      doc = "An entry of the refdescr column: how a reference is described.",
      field "kind" (2, { enum = { [0] = "unknown", [1] = "index", [2] = "string" }, open = true,
        doc = "0 unknown (then the whole word is 0), 1 a numeric index, 2 a string-heap index (3 is none)." }),
      field "index" (62, { doc = "The numeric index (an array slot, a call-stack depth) or the string-heap index." }),
    },
    u16_entries = entries(u16),
    u32_entries = entries(u32),
    u64_entries = entries(u64),
  },
}
