-- fx_blocks: a stream of blocks named by 8-byte NUL-padded kinds (a union with a name tag);
-- some blocks hold one zstd frame whose compressed size is stored nowhere (the block ends
-- where the frame ends), read as batches of fixed-width entries; an index of file offsets
-- that the encoder relocates.
return format "fx_blocks" {
  version = 1,
  endian = "little",
  types = {
    file = struct {
      field "magic" (magic "FXBLOCKS"),
      field "blocks" (records { of = "block", recover = { sync = true } }),
    },
    block = union {
      doc = "A block; its kind name says which.",
      tag = fixed_string { fixed = 8 },
      case("note", "note", "note_block"),
      case("u16s", "u16s", "column16"),
      case("u16more", "u16_more", "column16"),
      case("u64s", "u64s", "column64"),
      case("exactly8", "exactly8", struct {}),
      case("index", "index", "index_block"),
    },
    index_block = struct {
      doc = "Where two earlier blocks start: file offsets that move with them when encoding.",
      field "first" (u64 { relocate = true }),
      field "last" (u64 { relocate = true }),
    },
    note_block = struct { field "text" (string { len = u16 }) },
    column16 = struct {
      field "width" (u16 { equals = 2 }),
      field "entries" (records { of = "u16_batch", zstd_frame = true, batch = 4, zstd_level = 9 }),
    },
    u16_batch = struct { field "v" (array { of = u16, until_end = true }) },
    column64 = struct {
      field "entries" (records { of = "u64_batch", zstd_frame = true, batch = 1000 }),
    },
    u64_batch = struct { field "v" (array { of = u64, until_end = true }) },
  },
}
