-- perfetto: Perfetto's trace format (protobuf, package perfetto.protos), the subset that
-- Perfetto documents for traces written by other programs ("synthetic" traces): packets with a
-- timestamp and a sequence id, track descriptors for processes and threads, track events
-- (slices, instants, counters) with names inline or interned per sequence, and sampled stacks
-- as interned callstacks with PerfSample packets. The field numbers are Perfetto's own
-- (trace_packet.proto, track_descriptor.proto, track_event.proto, interned_data.proto,
-- profile_common.proto, profile_packet.proto); the fields Perfetto has beyond this subset are
-- kept as unknown fields when read.
--
-- Trace's one field (the packets) streams as records: a trace of millions of packets is read
-- in bounded memory. Perfetto's repeated numbers are proto2 and not packed (its readers take
-- them one per occurrence): packed = false.
--
-- TracePacket's fields 1 and 2 (ftrace events, the process tree) are messages this schema does
-- not describe; they are named, as bytes, so that detection by structure tells a pprof file
-- (whose first field, sample_type, holds the varints 1 and 2) from a trace.

return format "perfetto" {
  version = 1,
  title = "Perfetto trace (protobuf)",
  doc = [[A Trace message (protobuf, proto2): packets back to back, each a TracePacket. A packet
carries one thing (a track descriptor, a track event, a sampled stack) with its time and the
sequence it belongs to; names, frames and callstacks are interned per sequence: defined once in
a packet's interned_data, then used by id. Tracks are a tree (processes, their threads) that
events point into by uuid. Checks above the bytes (src/outputs/perfetto.c writes them, and
tests/outputs/test_perfetto.py reads them back): every interned id and track uuid an event uses
is defined before, slices end on the track they began on.]],
  root = "file",
  types = {
    file = struct {
      doc = "The whole file: the fields of one Trace.",
      field "trace" (records { of = "trace", by_field = true }),
    },

    trace = message {
      doc = "A trace: its packets, in the order written (readers sort them by time).",
      field "packet" (1, repeated "trace_packet", { doc = "The packets." }),
    },

    trace_packet = message {
      doc = "One packet: a time, the sequence it belongs to, and what it carries.",
      field "ftrace_events" (1, bytes, { doc = "Kernel trace events (not described here)." }),
      field "process_tree" (2, bytes, { doc = "A snapshot of processes and threads (not described here)." }),
      field "timestamp" (8, uint64, { doc = "When, in ns on the trace's clock (boot time unless the packet says).", unit = "ns" }),
      field "trusted_packet_sequence_id" (10, uint32, {
        doc = "The sequence (one writer) the packet belongs to: interned ids are per sequence." }),
      field "track_event" (11, "track_event", { doc = "A slice's begin or end, an instant, a counter value." }),
      field "interned_data" (12, "interned_data", {
        doc = "New entries of the sequence's interning tables, for this packet and the ones after it." }),
      field "sequence_flags" (13, uint32, {
        doc = "1: the sequence's interned state starts afresh here; 2: the packet uses interned state.",
        enum = { [1] = "incremental_state_cleared", [2] = "needs_incremental_state", [3] = "cleared_and_needs" } }),
      field "track_descriptor" (60, "track_descriptor", { doc = "A track: a process's, a thread's, or one under them." }),
      field "perf_sample" (66, "perf_sample", { doc = "A sampled stack of a thread, at the packet's time." }),
      field "first_packet_on_sequence" (87, bool, { doc = "The first packet its sequence wrote." }),
    },

    track_descriptor = message {
      doc = "A track events are drawn on, unique in the trace by its uuid.",
      field "uuid" (1, uint64, { doc = "The track's id (0: the trace's global track)." }),
      field "name" (2, string, { doc = "Its name (else the process's or thread's)." }),
      field "process" (3, "process_descriptor", { doc = "The process whose track this is." }),
      field "thread" (4, "thread_descriptor", { doc = "The thread whose track this is: its events run on it, nested by time." }),
      field "parent_uuid" (5, uint64, { doc = "The track it sits under (a thread's: its process's)." }),
    },

    process_descriptor = message {
      doc = "A process.",
      field "pid" (1, int32, { doc = "Process id." }),
      field "process_name" (6, string, { doc = "Its name." }),
    },

    thread_descriptor = message {
      doc = "A thread.",
      field "pid" (1, int32, { doc = "Its process's id." }),
      field "tid" (2, int32, { doc = "Thread id." }),
      field "thread_name" (5, string, { doc = "Its name." }),
    },

    track_event = message {
      doc = "An event on a track: a slice begins or ends, an instant, a counter's value.",
      field "category_iids" (3, repeated(uint64, { packed = false }), { doc = "Interned categories (event_categories)." }),
      field "type" (9, int32, {
        doc = "What the event is.",
        enum = { [1] = "slice_begin", [2] = "slice_end", [3] = "instant", [4] = "counter" } }),
      field "name_iid" (10, uint64, { doc = "Its name, interned (event_names)." }),
      field "track_uuid" (11, uint64, { doc = "The track it is on." }),
      field "categories" (22, repeated(string), { doc = "Its categories, inline." }),
      field "name" (23, string, { doc = "Its name, inline." }),
      field "counter_value" (30, int64, { doc = "A counter's value." }),
    },

    interned_data = message {
      doc = "Entries of a sequence's interning tables; each is used by its iid (nonzero) afterwards.",
      field "event_categories" (1, repeated "event_category", { doc = "Categories of track events." }),
      field "event_names" (2, repeated "event_name", { doc = "Names of track events." }),
      field "function_names" (5, repeated "interned_string", { doc = "Function names of frames." }),
      field "frames" (6, repeated "frame", { doc = "Frames of callstacks." }),
      field "callstacks" (7, repeated "callstack", { doc = "Callstacks of samples." }),
    },

    event_category = message {
      doc = "A category of track events.",
      field "iid" (1, uint64, { doc = "Its id in the sequence." }),
      field "name" (2, string, { doc = "Its name." }),
    },

    event_name = message {
      doc = "A name of track events.",
      field "iid" (1, uint64, { doc = "Its id in the sequence." }),
      field "name" (2, string, { doc = "The name." }),
    },

    interned_string = message {
      doc = "A string (a function's name).",
      field "iid" (1, uint64, { doc = "Its id in the sequence." }),
      field "str" (2, bytes, { doc = "The bytes." }),
    },

    frame = message {
      doc = "A frame of a callstack.",
      field "iid" (1, uint64, { doc = "Its id in the sequence." }),
      field "function_name_id" (2, uint64, { doc = "Its function's name (function_names)." }),
      field "mapping_id" (3, uint64, { doc = "The binary it is in (0: none)." }),
      field "rel_pc" (4, uint64, { doc = "Its address, relative to the binary.", hex = true }),
    },

    callstack = message {
      doc = "A callstack: frames from the outermost (the thread's first) to the innermost.",
      field "iid" (1, uint64, { doc = "Its id in the sequence." }),
      field "frame_ids" (2, repeated(uint64, { packed = false }), { doc = "Its frames (frames), outermost first." }),
    },

    perf_sample = message {
      doc = "A sample of a thread's stack.",
      field "cpu" (1, uint32, { doc = "The CPU it ran on." }),
      field "pid" (2, uint32, { doc = "Process id." }),
      field "tid" (3, uint32, { doc = "Thread id." }),
      field "callstack_iid" (4, uint64, { doc = "Its stack (callstacks)." }),
    },
  },
}
