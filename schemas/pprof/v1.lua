-- pprof: google/pprof's proto/profile.proto (package perftools.profiles), protobuf's wire
-- format, as `go tool pprof` and Go's runtime/pprof write it: usually gzip-compressed (the
-- CLI reads gzip whatever the format). profile.proto has no version number of its own: this
-- is its one version, with its newer fields (Line.column, Profile.doc_url, Location.is_folded).
--
-- Profile's fields stream as records, one per field on the wire (a file of millions of samples
-- is read in bounded memory); every other message is decoded whole with its record. Go packs a
-- repeated number only when it has more than 2 elements (runtime/pprof's protobuf.go and
-- google/pprof's profile/proto.go): pack_min = 3 makes that the canonical form, so that a dump
-- of their files needs a _layout only where the order differs (runtime/pprof writes a Sample's
-- values before its location ids, a Location's lines before its mapping id).
local PACK = 3

return format "pprof" {
  version = 1,
  title = "pprof profile.proto",
  doc = [[A Profile message (protobuf, proto3): samples with values per sample type and stacks of
location ids; locations with their lines, functions and mappings; one table of strings that
everything else indexes (string_table[0] is ""). The file is the message's fields back to back,
in any order, usually gzip-compressed. Checks above the bytes (src/formats/pprof): ids unique and
nonzero, references to ids that exist, string indexes in range, one value per sample type.]],
  root = "file",
  types = {
    file = struct {
      doc = "The whole file: the fields of one Profile.",
      field "profile" (records { of = "profile", by_field = true }),
    },

    profile = message {
      doc = "A profile: its samples, what they measure, and the tables they index.",
      pack_min = PACK,
      field "sample_type" (1, repeated "value_type", {
        doc = "What each Sample.value is: [[\"cpu\",\"nanoseconds\"]], [[\"alloc_space\",\"bytes\"]] ..." }),
      field "sample" (2, repeated "sample", { doc = "The samples." }),
      field "mapping" (3, repeated "mapping", {
        doc = "Address ranges and the binaries mapped there; mapping[0] is the main binary." }),
      field "location" (4, repeated "location", { doc = "Locations the samples reference." }),
      field "function" (5, repeated "function", { doc = "Functions the locations reference." }),
      field "string_table" (6, repeated(string), { index_key = "string", doc = "Strings everything else indexes; string_table[0] is \"\"." }),
      field "drop_frames" (7, int64, { ref = "string", doc = "Index into string_table: a regexp of frames to drop, with their callers." }),
      field "keep_frames" (8, int64, { ref = "string", doc = "Index into string_table: a regexp of frames to keep even if dropped." }),
      field "time_nanos" (9, int64, { doc = "When the profile was collected, ns since the Unix epoch (UTC).", unit = "ns" }),
      field "duration_nanos" (10, int64, { doc = "How long the profile covers, in ns.", unit = "ns" }),
      field "period_type" (11, "value_type", { doc = "The kind of events between sampled occurrences." }),
      field "period" (12, int64, { doc = "The number of events (of period_type) between sampled occurrences." }),
      field "comment" (13, repeated(int64), { ref = "string", doc = "Indexes into string_table: free-form text for people." }),
      field "default_sample_type" (14, int64, { ref = "string", doc = "Index into string_table: the preferred sample type's name." }),
      field "doc_url" (15, int64, { ref = "string", doc = "Index into string_table: an absolute URL documenting this profile type." }),
    },

    value_type = message {
      doc = "What a value measures and in which unit.",
      pack_min = PACK,
      field "type" (1, int64, { ref = "string", doc = "Index into string_table: \"cpu\", \"alloc_space\"..." }),
      field "unit" (2, int64, { ref = "string", doc = "Index into string_table: \"nanoseconds\", \"bytes\", \"count\"..." }),
    },

    sample = message {
      doc = "Values measured at one stack (and labels).",
      pack_min = PACK,
      field "location_id" (1, repeated(uint64), { ref = "location", doc = "Location ids, the leaf first." }),
      field "value" (2, repeated(int64), { doc = "One value per Profile.sample_type." }),
      field "label" (3, repeated "label", { doc = "Context: a thread, an allocation size, a request..." }),
    },

    label = message {
      doc = "A key with a string or a number (and the number's unit).",
      pack_min = PACK,
      field "key" (1, int64, { ref = "string", doc = "Index into string_table." }),
      field "str" (2, int64, { ref = "string", doc = "Index into string_table: the value, when it is a string." }),
      field "num" (3, int64, { doc = "The value, when it is a number." }),
      field "num_unit" (4, int64, { ref = "string", doc = "Index into string_table: num's unit (\"bytes\", \"requests\"...)." }),
    },

    mapping = message {
      doc = "An address range and the binary mapped into it.",
      pack_min = PACK,
      field "id" (1, uint64, { key = "mapping", doc = "Unique nonzero id." }),
      field "memory_start" (2, uint64, { doc = "Where the binary is loaded.", hex = true }),
      field "memory_limit" (3, uint64, { doc = "The end of the address range it occupies.", hex = true }),
      field "file_offset" (4, uint64, { doc = "Offset in the binary of the first mapped address.", hex = true }),
      field "filename" (5, int64, { ref = "string", doc = "Index into string_table: the binary or library, or a name such as [vdso]." }),
      field "build_id" (6, int64, { ref = "string", doc = "Index into string_table: an id of the binary's version (GNU build-id)." }),
      field "has_functions" (7, bool, { doc = "Symbolized: function names." }),
      field "has_filenames" (8, bool, { doc = "Symbolized: source files." }),
      field "has_line_numbers" (9, bool, { doc = "Symbolized: line numbers." }),
      field "has_inline_frames" (10, bool, { doc = "Symbolized: inlined functions." }),
    },

    location = message {
      doc = "An address, and the source lines it stands for (several: inlined functions, the caller last).",
      pack_min = PACK,
      field "id" (1, uint64, { key = "location", doc = "Unique nonzero id." }),
      field "mapping_id" (2, uint64, { ref = "mapping", doc = "The Mapping it belongs to (0: none)." }),
      field "address" (3, uint64, { doc = "The instruction address.", hex = true }),
      field "line" (4, repeated "line", { doc = "Source lines: functions inlined into the last one come first." }),
      field "is_folded" (5, bool, { doc = "Several symbols share this address (identical code folding)." }),
    },

    line = message {
      doc = "A function and a position in its source.",
      pack_min = PACK,
      field "function_id" (1, uint64, { ref = "function", doc = "The Function." }),
      field "line" (2, int64, { doc = "Line number." }),
      field "column" (3, int64, { doc = "Column number." }),
    },

    ["function"] = message {
      doc = "A function: its names and source file.",
      pack_min = PACK,
      field "id" (1, uint64, { key = "function", doc = "Unique nonzero id." }),
      field "name" (2, int64, { ref = "string", doc = "Index into string_table: the name people read." }),
      field "system_name" (3, int64, { ref = "string", doc = "Index into string_table: the name the system knows (a mangled C++ name)." }),
      field "filename" (4, int64, { ref = "string", doc = "Index into string_table: the source file." }),
      field "start_line" (5, int64, { doc = "The line the function starts at." }),
    },
  },
}
