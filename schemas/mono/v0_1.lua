-- schemas/mono/v0_1.lua: the Mono log profiler format of Nov 2010 (log profiler 0.1,
-- data version 1), as documented in mono/profiler/proflog.c, with the facts the
-- document leaves out from NOTES-mono.md (objects >> 3, method deltas, monitor bits).
local C = import "mono/_common"
local ptr, obj, method, time, cstr, ev, plus = C.ptr, C.obj, C.method, C.time, C.cstr, C.ev, C.plus

-- backtrace: flags (0), then MonoMethod pointers relative to ptr_base (not running)
local function backtrace()
  return field "backtrace" (struct {
    field "flags" (uleb128 { equals = 0, doc = "Must be 0." }),
    field "frames" (array { of = sleb128 { base = "state.ptr", hex = true }, count = uleb128,
      max_count = 65536, count_only = "backtrace", doc = "MonoMethod pointers, relative to ptr_base, as the writer collected them." }),
  })
end

local alloc = {
  time(),
  ptr("class", "MonoClass* of the object."),
  obj("object"),
  field "size" (uleb128 { unit = "bytes", doc = "Size of the object in the heap." }),
}

-- metadata events: the mtype byte, the pointer, then what the type carries
local function metadata(doc)
  return {
    time(),
    field "mtype" (u8 { enum = "metadata_type",
      doc = "Metadata type (assembly 3 and domain 4 were defined, never written, and have no layout)." }),
    ptr("pointer", "The MonoClass* or MonoImage*."),
    field "detail" (union {
      on = "mtype",
      case(1, "class", struct {
        ptr("image", "MonoImage* of the class."),
        field "flags" (uleb128 { equals = 0, doc = "Must be 0." }),
        cstr("name", "Full class name."),
      }),
      case(2, "image", struct {
        field "flags" (uleb128 { equals = 0, doc = "Must be 0." }),
        cstr("name", "Image file name."),
      }),
    }),
  }
end

local method_ev = { time(), method("method") }
local monitor = { time(), obj("object", "The lock object (stored >> 3 relative to obj_base).") }

return format "mono" {
  version = "0.1",
  version_num = 1,
  title = "Mono log profiler data",
  doc = [[
Files written by Mono's log profiler (`mono --profile=log`) of November 2010: log profiler
version 0.1, data version 1. A 32-byte header, then buffers.
]] .. C.doc_buffers .. [[

Header fields this writer did not fill (startup time, timer overhead, pid, sysid) are 0.]],
  endian = "little",
  types = {
    file = struct {
      doc = "The 32-byte header, then buffers until the end of the file.",
      field "id" (magic "\1ZPM"),
      field "major" (u8 { equals = 0, doc = "Log profiler major version." }),
      field "minor" (u8 { equals = 1, doc = "Log profiler minor version." }),
      field "data_version" (u8 { equals = 1, doc = "Version of the data format." }),
      field "ptr_size" (u8 { unit = "bytes", doc = "Size of a pointer in the profiled program." }),
      field "startup_ms" (u64 { unit = "ms", doc = "Program start, ms since the Unix epoch." }),
      field "timer_overhead" (u32 { unit = "ns", doc = "Approximate overhead of the timer." }),
      field "flags" (u32 { equals = 0, doc = "File format flags, 0." }),
      field "pid" (u32 { doc = "Process id of the profiled program." }),
      field "sysid" (u32 { doc = "Operating system and architecture identifier." }),
      field "buffers" (records { of = "buffer", recover = { size = "len", sync = true } }),
    },

    buffer = C.buffer(),

    event = union {
      doc = "One event: a byte (sub-type in the high nibble, type in the low one), then its data.",
      tag = C.event_tag,
      ev(0x00, "alloc", "An object was allocated.", alloc),
      ev(0x10, "alloc_bt", "An object was allocated; with the allocating backtrace.", plus(alloc, backtrace())),
      ev(0x11, "gc_event", "A GC phase.", {
        time(),
        field "event" (uleb128 { enum = "gc_event", open = true, doc = "MONO_GC_EVENT_*." }),
        field "generation" (uleb128 { doc = "Generation the event is about." }),
      }),
      ev(0x21, "gc_resize", "The heap was resized.", {
        time(),
        field "heap_size" (uleb128 { unit = "bytes", doc = "New heap size." }),
      }),
      ev(0x31, "gc_move", "Objects moved: old and new addresses, alternating.", {
        time(),
        field "objects" (array { of = sleb128 { base = "state.obj", shift = 3, hex = true }, count = uleb128,
          doc = "Old address, new address, ... (the count counts addresses)." }),
      }),
      ev(0x12, "metadata_start_load", "Metadata is being loaded.", metadata()),
      ev(0x22, "metadata_load", "Metadata was loaded.", metadata()),
      ev(0x32, "metadata_start_unload", "Metadata is being unloaded.", metadata()),
      ev(0x42, "metadata_unload", "Metadata was unloaded.", metadata()),
      ev(0x92, "metadata_start_load_err", "Loading metadata failed (TYPE_LOAD_ERR; never written).", metadata()),
      ev(0xA2, "metadata_load_err", "Loading metadata failed (TYPE_LOAD_ERR; never written).", metadata()),
      ev(0xB2, "metadata_start_unload_err", "Unloading metadata failed (TYPE_LOAD_ERR; never written).", metadata()),
      ev(0xC2, "metadata_unload_err", "Unloading metadata failed (TYPE_LOAD_ERR; never written).", metadata()),
      ev(0x13, "method_leave", "A method returned.", method_ev),
      ev(0x23, "method_enter", "A method was entered.", method_ev),
      ev(0x33, "method_exc_leave", "A method was left by an exception.", method_ev),
      ev(0x43, "jit", "A method was compiled.", plus(method_ev,
        ptr("code", "Start of the native code."),
        field "code_size" (uleb128 { unit = "bytes", doc = "Size of the native code." }),
        cstr("name", "Full method name."))),
      ev(0x04, "throw", "An exception was thrown.", { time(), obj("object", "The exception object.") }),
      ev(0x84, "throw_bt", "An exception was thrown; with the backtrace.",
        { time(), obj("object", "The exception object."), backtrace() }),
      ev(0x14, "clause", "An exception clause ran.", {
        time(),
        field "clause_type" (uleb128 { enum = "clause_type", open = true, doc = "ECMA clause flags." }),
        field "clause_index" (uleb128 { doc = "The clause's number in the method header." }),
        method("method"),
      }),
      ev(0x15, "monitor_contention", "A thread waits for a lock.", monitor),
      ev(0x95, "monitor_contention_bt", "A thread waits for a lock; with the backtrace.", plus(monitor, backtrace())),
      ev(0x25, "monitor_done", "A thread took a lock after waiting.", monitor),
      ev(0x35, "monitor_fail", "A thread gave up waiting for a lock.", monitor),
      ev(0x06, "heap_start", "A heap walk starts.", { time() }),
      ev(0x16, "heap_end", "A heap walk ended.", { time() }),
      ev(0x26, "heap_object", "An object found by the heap walk (no time field in this version).", {
        obj("object"),
        ptr("class", "MonoClass* of the object."),
        field "size" (uleb128 { unit = "bytes", doc = "Size of the object in the heap." }),
        field "refs" (array { of = sleb128 { base = "state.obj", shift = 3, hex = true }, count = uleb128,
          doc = "Objects it references." }),
      }),
    },
  },
  enums = C.plus_enums {
    -- assembly 3 and domain 4 were defined, never written, and have no layout
    metadata_type = { [1] = "class", [2] = "image" },
    gc_event = { [0] = "start", [1] = "mark_start", [2] = "mark_end", [3] = "reclaim_start", [4] = "reclaim_end",
      [5] = "end", [6] = "pre_stop_world", [7] = "post_stop_world", [8] = "pre_start_world", [9] = "post_start_world" },
  },
}
