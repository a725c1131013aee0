-- schemas/mojo/_common.lua: what MOJO versions 1 to 4 share (Austin's binary sample
-- format; ../shared/specs/mojo-v3.txt, corrected by NOTES-mojo.md; version 4: docs/mojo.md).
-- A version file calls M.format(version, { stack = ..., frame = ..., more = ... }) with its
-- own stack and frame events, and the cases it adds after event 12.
local M = {}

local DOC = [[
Austin's binary frame-stack samples: "MOJ", the version, then events until the end of
the file, each a one-byte id and its fields. Integers are MOJO varints (sign and
magnitude: first byte more(7) sign(6) 6 bits, then 7 bits a byte, at most 10 bytes);
strings end with a NUL and need not be UTF-8. A sample is a stack event followed by
frame references, markers and metrics; string and frame keys are defined per process
(the pid of the latest stack event) and may be redefined. Keys are references, not
bytes: the checks on them are above the bytes (src/formats/mojo/).]]

-- Events common to every version (case bodies by event id).
M.metadata = struct {
  doc = "A key-value pair: austin, interval, mode, memory, multiprocess, python (header); duration, gc, sampling, saturation, errors (footer); map (austinp).",
  field "key" (cstring { doc = "Metadata key." }),
  field "value" (cstring { doc = "Metadata value (printf-formatted text)." }),
  metadata = { key = "key", value = "value" },
}

M.frame_v1 = struct {
  doc = "Defines a frame key in the current process (may redefine it).",
  field "key" (mojo_varint { key = "frame", doc = "Frame key: (code object address & (2^27-1)) << 16 | lasti; 2^64-1 when lasti is -1; a PC for native frames." }),
  field "filename" (mojo_varint { ref = "string", doc = "String key of the file name (1: <unknown>)." }),
  field "scope" (mojo_varint { ref = "string", doc = "String key of the function (qualified) name (1: <unknown>)." }),
  field "line" (mojo_varint { doc = "Line number (native frames: offset of the PC in the symbol)." }),
}

M.frame_v2 = extend(M.frame_v1, {
  field "line_end" (mojo_varint { doc = "Last line of the instruction (0: not available)." }),
  field "column" (mojo_varint { doc = "Start column + 1 (0: not available)." }),
  field "column_end" (mojo_varint { doc = "End column + 1 (0: not available)." }),
})

M.stack_v1 = struct {
  doc = "Starts a sample: the thread whose frames follow.",
  field "pid" (mojo_varint { doc = "Process id; also the scope of the keys defined after it." }),
  field "tid" (cstring { doc = "Thread id as printf %lx (lowercase hex), or any text." }),
}

M.stack_v3 = struct {
  doc = "Starts a sample: the thread whose frames follow.",
  field "pid" (mojo_varint { doc = "Process id; also the scope of the keys defined after it." }),
  field "iid" (mojo_varint { doc = "Interpreter id (0: the main interpreter)." }),
  field "tid" (cstring { doc = "Thread id as printf %lx (lowercase hex), or any text." }),
}

-- Version 4 (Austin 4.x): the same fields; the interpreter id may be negative and the thread is
-- named by its Python name when Austin knows it.
M.stack_v4 = struct {
  doc = "Starts a sample: the thread whose frames follow.",
  field "pid" (mojo_varint { doc = "Process id; also the scope of the keys defined after it." }),
  field "iid" (mojo_varint { doc = "Interpreter id (0: the main interpreter; may be negative)." }),
  field "tid" (cstring { doc = "The thread's Python name when known, else its id as lowercase hex (printf %zx)." }),
}

-- The events version 4 adds (Austin 4.x, src/mojo.h: MOJO_STACK_REPEAT, MOJO_TASK_STACK,
-- MOJO_TASK_WAITER).
M.cases_v4 = {
  case(13, "stack_repeat", struct {
    doc = "In place of a sample's frame references: this thread's previous stack again (native frame references may follow).",
  }),
  case(14, "task_stack", struct {
    doc = "An asyncio task seen at a new suspension point: its frame references and one time metric follow.",
    field "task" (mojo_varint { doc = "Task id: the address of its TaskObj, masked to 27 bits." }),
    field "name" (mojo_varint { ref = "string", doc = "String key of the task's name (0: not resolved)." }),
  }),
  case(15, "task_waiter", struct {
    doc = "One edge of the tasks' waiter graph: task is awaited by waiter (a task's waiters come together).",
    field "task" (mojo_varint { doc = "Task id of the awaited task." }),
    field "waiter" (mojo_varint { doc = "Task id of a task that awaits it." }),
  }),
}

-- One struct for an event of any version: what the sample assembler (src/formats/mojo/asm.c)
-- reads.
M.views = {
  event = view {
    of = "event",
    doc = "An event of any MOJO version.",
    field "key" (mojo_varint, { doc = "frame, frame_ref, string, string_ref: the key it defines or references." }),
    field "filename" (mojo_varint),
    field "scope" (mojo_varint),
    field "line" (mojo_varint),
    field "line_end" (mojo_varint, { doc = "From version 2." }),
    field "column" (mojo_varint, { doc = "From version 2." }),
    field "column_end" (mojo_varint, { doc = "From version 2." }),
    field "pid" (mojo_varint),
    field "iid" (mojo_varint, { doc = "From version 3." }),
    field "tid" (cstring),
    field "meta_key" (cstring, { from = "metadata.key", doc = "metadata: its key." }),
    field "text" (cstring, { from = { "metadata.value", "string.value" }, doc = "metadata: its value; string: the string." }),
    field "symbol" (cstring),
    field "value" (mojo_varint, { doc = "time, memory: the metric." }),
    field "task" (mojo_varint, { doc = "task_stack, task_waiter: the task id (from version 4)." }),
    field "name" (mojo_varint, { doc = "task_stack: the string key of its name (from version 4)." }),
    field "waiter" (mojo_varint, { doc = "task_waiter: the waiter's task id (from version 4)." }),
  },
}

-- The format of one version: v is 1 to 4; ev gives its stack and frame events, and
-- ev.more the cases it adds after the twelve every version has.
function M.format(v, ev)
  local cases = {
    case(1, "metadata", M.metadata),
    case(2, "stack", ev.stack),
    case(3, "frame", ev.frame),
    case(4, "invalid", struct { doc = "A frame that could not be read (rendered :INVALID:)." }),
    case(5, "frame_ref", struct {
      doc = "The next frame of the sample, outermost first.",
      field "key" (mojo_varint { ref = "frame", doc = "Frame key defined in the current process." }),
    }),
    case(6, "kernel", struct {
      doc = "A kernel frame (austinp -k), after the frame references.",
      field "symbol" (cstring { doc = "Kernel symbol." }),
    }),
    case(7, "gc", struct { doc = "The garbage collector was running (austin -g)." }),
    case(8, "idle", struct { doc = "The thread was idle (full mode only)." }),
    case(9, "time", struct {
      doc = "Time metric of the sample.",
      field "value" (mojo_varint { unit = "us", doc = "Microseconds since the previous sampling round." }),
    }),
    case(10, "memory", struct {
      doc = "Memory metric of the sample.",
      field "value" (mojo_varint { unit = "bytes", doc = "Resident set delta (negative: released)." }),
    }),
    case(11, "string", struct {
      doc = "Defines a string key in the current process (may redefine it).",
      field "key" (mojo_varint { key = "string", doc = "String key (an address masked to 27 bits)." }),
      field "value" (cstring { doc = "The string (not necessarily UTF-8)." }),
    }),
    case(12, "string_ref", struct {
      doc = "A reference to a string key (never written by Austin 3.7).",
      field "key" (mojo_varint { ref = "string", doc = "String key defined in the current process." }),
    }),
  }
  for _, c in ipairs(ev.more or {}) do cases[#cases + 1] = c end
  cases.doc = "One event: its id, then its fields."
  cases.tag = u8
  return format "mojo" {
    version = tostring(v),
    version_num = v,
    title = "Austin MOJO",
    doc = DOC,
    endian = "little",
    views = M.views,
    types = {
      file = struct {
        doc = "A MOJO file: header, then events to the end of the file.",
        field "magic" (magic "MOJ"),
        field "version" (mojo_varint { equals = v, doc = "Format version: Austin 3.4 wrote 1, 3.5 wrote 2, 3.6 and 3.7 write 3, 4.x writes 4" }),
        field "events" (records { of = "event" }),
      },
      event = union(cases),
    },
  }
end

return M
