-- Tachyon: the binary profile format of CPython's sampling profiler
-- (python -m profiling.sampling run --binary), format version 1, as CPython 3.15.2
-- writes and reads it. Facts: ../shared/specs/tachyon.md, corrected by NOTES-tachyon.md.
--
-- Layout, in file order:
--   [0, 64)                       header (every fixed-width integer in the writer's order)
--   [64, string_table_offset)     sample records, raw or one zstd stream (compression == 1)
--   [string_table_offset, ...)    string table (string_count entries, counted by the footer)
--   [frame_table_offset, ...)     frame table (frame_count entries)
--   optional statistics block, found by the tag "TACHSTAT" 48 bytes before the end
--   last 32 bytes                 footer
-- Stack reconstruction (the four encodings against each thread's previous stack),
-- per-thread timestamps and the checks CPython makes above the bytes are in
-- src/formats/tachyon/.
return format "tachyon" {
  version = 1,
  title = "CPython sampling profile (Tachyon)",
  doc = [[The binary output of CPython 3.15's sampling profiler (profiling.sampling,
"Tachyon"), format version 1. Fixed-width integers are in the byte order of the machine
that wrote the file, told by the magic; varints are LEB128 (zigzag for signed ones).
Samples are delta-encoded against the previous stack of the same (thread, interpreter)
and may be one zstd stream; strings and frames are tables at the end, located by the
header and counted by the footer.]],
  endian = "native",
  types = {
    file = struct {
      doc = "The whole file: header, sample records, tables, statistics, footer.",
      field "magic" (u32 { byte_order = true, equals = 0x54414348, magic = true,
        doc = "0x54414348 (\"TACH\") in the writer's byte order: the bytes HCAT mean little-endian." }),
      field "version" (u32 { equals = 1, doc = "Format version (the dispatch key)." }),
      field "python_version" (struct {
        doc = "The Python that wrote the file.",
        field "major" (u8),
        field "minor" (u8),
        field "micro" (u8),
        field "reserved" (u8 { doc = "Written as 0.", warn = { "reserved == 0", "0 (reserved)" } }),
      }),
      field "start_time_us" (u64 { unit = "us",
        doc = "Profiler start, int(time.monotonic() * 1e6); each thread's first sample is relative to it." }),
      field "sample_interval_us" (u64 { unit = "us", doc = "Sampling interval." }),
      field "sample_count" (u64 { doc = "Samples in the file (one per thread per capture); replay must decode exactly this many." }),
      field "thread_count" (u32 { doc = "Distinct (thread_id, interpreter_id) pairs in the samples." }),
      field "string_table_offset" (u64 { offset_of = "strings", min = 64, max = "input_size",
        doc = "Absolute offset of the string table; the sample records end there." }),
      field "frame_table_offset" (u64 { offset_of = "frames", min = "string_table_offset", max = "input_size",
        doc = "Absolute offset of the frame table." }),
      field "compression" (u32 { enum = { [0] = "none", [1] = "zstd" }, open = true,
        warn = { "compression <= 1", "0 (none) or 1 (zstd); CPython reads other values as none" },
        doc = "1: the sample records are zstd-compressed; any other value means none." }),
      field "config" (bits(u32) { hex = true, check = "config.mode <= 5",
        expect = "a profiling mode 0..5 in bits 0-2",
        warn = {
          { "config.features_known == 1 || (config.features == 0 && config.reserved == 0)",
            "no feature bits when bit 3 (features known) is clear" },
          { "config.reserved == 0", "no bits above bit 8 (CPython ignores them)" },
        },
        doc = "Profiling config: bits 0-2 mode+1 (0 unknown; wall, cpu, gil, all, exception), bit 3 capture features known, bits 4-8 features (all_threads, native, gc, opcodes, blocking).",
        field "mode" (3, { doc = "Profiling mode + 1: 0 unknown, 1 wall, 2 cpu, 3 gil, 4 all, 5 exception." }),
        field "features_known" (1, { doc = "1: the capture features below are known." }),
        field "features" (5, { doc = "Bit 0 all_threads, 1 native, 2 gc, 3 opcodes, 4 blocking." }),
        field "reserved" (23, { doc = "Written as 0; CPython ignores them." }),
      }),
      field "samples" (records { of = "sample", size = "string_table_offset - 64",
        compression = "compression == 1", zstd_level = 5 }),
      field "strings" (records { of = "string", at = "string_table_offset", count = "string_count" }),
      field "frames" (records { of = "frame", at = "frame_table_offset", count = "frame_count" }),
      field "stats" (records { of = "stats", at = "input_size - 32 - stats_size" },
        { when = "stats_tag" }),
      field "stats_tag" (magic "TACHSTAT", { at_end = 48, optional = true,
        doc = "Whether the statistics block is there: its tag, 48 bytes before the end." }),
      field "stats_version" (u32 { at_end = 40, when = "stats_tag", doc = "Statistics block version (1).",
        warn = { "stats_version == 1", "statistics block version 1 (CPython ignores other versions)" } }),
      field "stats_size" (u32 { at_end = 36, when = "stats_tag", size_of = "stats", size_extra = 16,
        min = 32, max = "input_size - 32",
        warn = { "stats_size == 56 || stats_size == 32", "a statistics block of 56 bytes (or 32, the legacy form)" },
        doc = "Bytes of the statistics block, its 16-byte trailer (tag, version, size) included: 56, or 32 in the legacy form." }),
      field "string_count" (u32 { at_end = 32, count_of = "strings", doc = "Footer: entries in the string table." }),
      field "frame_count" (u32 { at_end = 28, count_of = "frames", doc = "Footer: entries in the frame table." }),
      field "file_size" (u64 { at_end = 24, file_size = true, doc = "Footer: the file's size (CPython does not check it)." }),
      field "checksum" (bytes { fixed = 16 }, { at_end = 16, doc = "Footer: reserved, written as zeros (not checked)." }),
    },

    sample = struct {
      doc = "One record of the sample stream: a thread, then how its stack changed.",
      field "thread_id" (u64 { doc = "Thread id (a kernel TID on Linux)." }),
      field "interpreter_id" (u32 { doc = "Interpreter id; the thread's state is per (thread_id, interpreter_id)." }),
      field "stack" (union { tag = u8,
        doc = "The stack encoding, against this thread's previous stack (innermost frame first).",
        case(0, "repeat", struct {
          doc = "REPEAT: the thread's previous stack again (possibly empty), once per entry.",
          field "samples" (array { of = "repeat_entry", count = uleb128, count_only = "repeat_samples" }),
        }),
        case(1, "full", struct {
          doc = "FULL: the whole stack.",
          field "timestamp_delta" (uleb128 { unit = "us", wrap = true }),
          field "status" (ref "thread_status", { hex = true }),
          field "frames" (array { of = uleb128 { bits = 32 }, count = uleb128, max_count = 256 }),
        }),
        case(2, "suffix", struct {
          doc = "SUFFIX: new frames on top of the last shared_count frames of the previous stack.",
          field "timestamp_delta" (uleb128 { unit = "us", wrap = true }),
          field "status" (ref "thread_status", { hex = true }),
          field "shared_count" (uleb128 { bits = 32 }),
          field "frames" (array { of = uleb128 { bits = 32 }, count = uleb128, max_count = 256 }),
        }),
        case(3, "pop_push", struct {
          doc = "POP_PUSH: drop pop_count innermost frames of the previous stack (all if more), then push these.",
          field "timestamp_delta" (uleb128 { unit = "us", wrap = true }),
          field "status" (ref "thread_status", { hex = true }),
          field "pop_count" (uleb128 { bits = 32 }),
          field "frames" (array { of = uleb128 { bits = 32 }, count = uleb128, max_count = 256 }),
        }),
      }),
    },

    thread_status = bits(u8) {
      doc = "A thread's status in a sample.",
      field "has_gil" (1),
      field "on_cpu" (1),
      field "unknown" (1),
      field "gil_requested" (1),
      field "has_exception" (1),
      field "main_thread" (1),
      field "reserved" (2, { doc = "Not written by CPython 3.15." }),
    },

    repeat_entry = struct {
      doc = "One sample of a REPEAT record.",
      field "timestamp_delta" (uleb128 { unit = "us", wrap = true,
        doc = "Microseconds since this thread's previous sample (u64, wrapping; CPython ignores the 10th byte's high bits)." }),
      field "status" (ref "thread_status", { hex = true,
        doc = "Thread status bits: has_gil 1, on_cpu 2, unknown 4, gil_requested 8, has_exception 16, main_thread 32." }),
    },

    string = struct {
      doc = "An entry of the string table (file and function names), UTF-8 as written.",
      field "value" (string { len = uleb128 { bits = 32 } }),
    },

    frame = struct {
      doc = "An entry of the frame table. A location part of -1 means none; the end deltas are 0 then.",
      field "filename" (uleb128 { bits = 32, doc = "String index of the file name." }),
      field "funcname" (uleb128 { bits = 32, doc = "String index of the function name." }),
      field "lineno" (zigzag32 { doc = "Start line, -1 for none (synthetic frames)." }),
      field "end_lineno_delta" (zigzag32 { delta_of = "lineno", value = "end_lineno", none = -1,
        doc = "end_lineno - lineno (0 when lineno is -1)." }),
      field "column" (zigzag32 { doc = "Start column in UTF-8 bytes, -1 for none." }),
      field "end_column_delta" (zigzag32 { delta_of = "column", value = "end_column", none = -1,
        doc = "end_column - column (0 when column is -1)." }),
      field "opcode" (u8 { absent = 255, doc = "Bytecode opcode, 255 for none." }),
    },

    stats = struct {
      doc = "The profile statistics block (before its 16-byte trailer), 40 bytes, or 16 in the legacy 32-byte form.",
      field "duration_sec" (f64 { unit = "s", doc = "Profiling duration." }),
      field "sample_rate" (f64 { doc = "Achieved samples per second." }),
      field "error_rate" (f64 { doc = "Failed captures, in percent (valid when present bit 0)." },
        { when = "root.stats_size >= 56" }),
      field "missed_samples" (f64 { doc = "Missed samples, in percent (valid when present bit 1)." },
        { when = "root.stats_size >= 56" }),
      field "present" (bits(u32) { hex = true, doc = "Bit 0: error_rate is valid; bit 1: missed_samples is valid.",
        field "error_rate" (1, { doc = "1: error_rate is valid." }),
        field "missed_samples" (1, { doc = "1: missed_samples is valid." }),
        field "reserved" (30, { doc = "Written as 0." }),
      }, { when = "root.stats_size >= 56" }),
      field "reserved" (u32 { doc = "Written as 0." }, { when = "root.stats_size >= 56" }),
      field "extra" (bytes { size = "root.stats_size - 32 - 24 * (root.stats_size >= 56)",
        doc = "Bytes a block larger than its version's layout carries (kept, not interpreted)." },
        { when = "root.stats_size != 32 && root.stats_size != 56" }),
    },
  },
}
