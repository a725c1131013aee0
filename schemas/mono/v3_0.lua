-- schemas/mono/v3_0.lua: the Mono log profiler format written by Mono 6.x (log profiler
-- 3.0, data version 17): mono/profiler/log.h, checked against Mono 6.8's files.
local C = import "mono/_common"
local ptr, obj, method, time, cstr, ev, plus = C.ptr, C.obj, C.method, C.time, C.cstr, C.ev, C.plus

-- backtrace (data 13+): running MonoMethod deltas, shared with the method events
local function backtrace()
  return field "backtrace" (array { of = sleb128 { delta = "method", hex = true }, count = uleb128,
    max_count = 65536, count_only = "backtrace", doc = "MonoMethod pointers, innermost first (running deltas)." })
end

local alloc = {
  time(),
  ptr("vtable", "MonoVTable* of the object."),
  obj("object"),
  field "size" (uleb128 { unit = "bytes", doc = "Size of the object in the heap." }),
}

-- metadata events: the mtype byte, the pointer, then what the type carries. The three kinds
-- differ (Mono 6.x log.c writes them, mprof-report reads them so): an image's mvid follows its
-- name only in load events (image_unloaded() writes the name alone); domains and threads carry
-- a name only in name events (exinfo 0).
local function metadata(kind)
  local load, named = kind == "load", kind == "name"
  local image = load
    and struct { cstr("name", "Image file name."), cstr("mvid", "Image MVID (empty for dynamic images).") }
    or struct { cstr("name", "Image file name (no MVID follows outside load events).") }
  local domain = named and struct { cstr("name", "Friendly name of the domain.") } or struct {}
  local thread = named and struct { cstr("name", "Name of the thread.") } or struct {}
  return {
    time(),
    field "mtype" (u8 { enum = "metadata_type", doc = "Metadata type." }),
    ptr("pointer", "The MonoClass*, MonoImage*, MonoAssembly*, domain id, thread id, context id or MonoVTable*."),
    field "detail" (union {
      on = "mtype",
      case(1, "class", struct { ptr("image", "MonoImage* of the class."), cstr("name", "Full class name.") }),
      case(2, "image", image),
      case(3, "assembly", struct { ptr("image", "MonoImage* of the assembly."), cstr("name", "Assembly name.") }),
      case(4, "domain", domain),
      case(5, "thread", thread),
      case(6, "context", struct { ptr("domain", "Domain id of the context.") }),
      case(7, "vtable", struct { ptr("domain", "Domain id (0 for proxy vtables)."), ptr("class", "MonoClass* of the vtable.") }),
    }),
  }
end

local method_ev = { time(), method("method") }
local handle = {
  time(),
  field "handle_type" (uleb128 { enum = "gc_handle_type", open = true, doc = "MonoGCHandleType; upper bits are flags." }),
  field "handle" (uleb128 { doc = "GC handle value." }),
}
local monitor = {
  time(),
  field "event" (u8 { enum = "monitor_event", open = true, doc = "MonoProfilerMonitorEvent." }),
  obj("object", "The lock object."),
}

return format "mono" {
  version = "3.0",
  version_num = 3017,
  title = "Mono log profiler data",
  doc = [[
Files written by Mono 6.x's log profiler (`mono --profile=log`): log profiler version 3.0,
data version 17. A header with the profiler's arguments, architecture and OS, then buffers.
]] .. C.doc_buffers .. [[

Every event has a time delta right after its event byte.]],
  endian = "little",
  types = {
    file = struct {
      doc = "The header, then buffers until the end of the file.",
      field "id" (magic "\1ZPM"),
      field "major" (u8 { equals = 3, doc = "Log profiler major version." }),
      field "minor" (u8 { equals = 0, doc = "Log profiler minor version." }),
      field "data_version" (u8 { equals = 17, doc = "Version of the data format." }),
      field "ptr_size" (u8 { unit = "bytes", doc = "Size of a pointer in the profiled program." }),
      field "startup_ms" (u64 { unit = "ms", doc = "Program start, ms since the Unix epoch." }),
      field "startup_ns" (u64 { unit = "ns", doc = "Program start, ns since an unspecified epoch (that of the time bases)." }),
      field "timer_overhead" (u32 { unit = "ns", doc = "Approximate overhead of the timer." }),
      field "flags" (u32 { equals = 0, doc = "File format flags, 0." }),
      field "pid" (u32 { doc = "Process id of the profiled program." }),
      field "port" (u16 { doc = "TCP port of the command server, 0 if none." }),
      field "args_size" (u32 { size_of = "args", doc = "Bytes of args, its NUL included." }),
      cstr("args", "The profiler's arguments."),
      field "arch_size" (u32 { size_of = "arch", doc = "Bytes of arch, its NUL included." }),
      cstr("arch", "Architecture the profiler ran on."),
      field "os_size" (u32 { size_of = "os", doc = "Bytes of os, its NUL included." }),
      cstr("os", "Operating system the profiler ran on."),
      field "buffers" (records { of = "buffer", recover = { size = "len", sync = true } }),
    },

    buffer = C.buffer(),

    event = union {
      doc = "One event: a byte (sub-type in the high nibble, type in the low one), the time, then its data.",
      tag = C.event_tag,
      ev(0x00, "alloc", "An object was allocated.", alloc),
      ev(0x10, "alloc_bt", "An object was allocated; with the allocating backtrace.", plus(alloc, backtrace())),
      ev(0x11, "gc_event", "A GC phase.", {
        time(),
        field "event" (u8 { enum = "gc_event", open = true, doc = "MonoProfilerGCEvent (1-4 are no longer written)." }),
        field "generation" (u8 { doc = "Generation the event is about." }),
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
      ev(0x41, "gc_handle_created", "A GC handle was created.", plus(handle, obj("object", "The object it holds."))),
      ev(0x51, "gc_handle_destroyed", "A GC handle was destroyed.", handle),
      ev(0x61, "gc_handle_created_bt", "A GC handle was created; with the backtrace.",
        plus(handle, obj("object", "The object it holds."), backtrace())),
      ev(0x71, "gc_handle_destroyed_bt", "A GC handle was destroyed; with the backtrace.", plus(handle, backtrace())),
      ev(0x81, "gc_finalize_start", "The finalizer queue is being processed.", { time() }),
      ev(0x91, "gc_finalize_end", "The finalizer queue was processed.", { time() }),
      ev(0xA1, "gc_finalize_object_start", "An object is being finalized.", { time(), obj("object") }),
      ev(0xB1, "gc_finalize_object_end", "An object was finalized.", { time(), obj("object") }),
      ev(0x02, "metadata_name", "A domain or thread was named.", metadata("name")),
      ev(0x22, "metadata_load", "Metadata was loaded (or a domain, thread, context started).", metadata("load")),
      ev(0x42, "metadata_unload", "Metadata was unloaded (or a domain, thread, context ended).", metadata("unload")),
      ev(0x13, "method_leave", "A method returned.", method_ev),
      ev(0x23, "method_enter", "A method was entered.", method_ev),
      ev(0x33, "method_exc_leave", "A method was left by an exception.", method_ev),
      ev(0x43, "jit", "A method was compiled.", plus(method_ev,
        ptr("code", "Start of the native code (may be 0)."),
        field "code_size" (uleb128 { unit = "bytes", doc = "Size of the native code (may be 0)." }),
        cstr("name", "Full method name."))),
      ev(0x04, "throw", "An exception was thrown.", { time(), obj("object", "The exception object.") }),
      ev(0x84, "throw_bt", "An exception was thrown; with the backtrace.",
        { time(), obj("object", "The exception object."), backtrace() }),
      ev(0x14, "clause", "An exception clause ran.", {
        time(),
        field "clause_type" (u8 { enum = "clause_type", open = true, doc = "MonoExceptionEnum." }),
        field "clause_index" (uleb128 { doc = "Index of the clause in the method." }),
        method("method"),
        obj("object", "The exception object."),
      }),
      ev(0x05, "monitor", "A monitor (lock) event.", monitor),
      ev(0x85, "monitor_bt", "A monitor (lock) event; with the backtrace.", plus(monitor, backtrace())),
      ev(0x06, "heap_start", "A heap walk starts.", { time() }),
      ev(0x16, "heap_end", "A heap walk ended.", { time() }),
      ev(0x26, "heap_object", "An object found by the heap walk.", {
        time(),
        obj("object"),
        ptr("vtable", "MonoVTable* of the object."),
        field "size" (uleb128 { unit = "bytes", doc = "Size in the heap (0: more references of an object already reported)." }),
        field "generation" (u8 { doc = "Generation the object is in." }),
        field "refs" (array { count = uleb128, reset = "ref_offset",
          doc = "Objects it references, by increasing offset.", of = struct {
          field "offset" (uleb128 { delta = "ref_offset", unit = "bytes",
            doc = "Offset of the reference in the object (stored as the difference from the previous reference's, the first from 0)." }),
          obj("object", "The referenced object."),
        } }),
      }),
      ev(0x36, "heap_root", "GC roots found by the heap walk.", {
        time(),
        field "roots" (array { count = uleb128, doc = "Root addresses and the objects they hold.", of = struct {
          ptr("address", "Address of the root."),
          obj("object", "The object it holds."),
        } }),
      }),
      ev(0x46, "heap_root_register", "A root region was registered.", {
        time(),
        ptr("start", "Start of the root region."),
        field "size" (uleb128 { unit = "bytes", doc = "Size of the root region." }),
        field "source" (u8 { doc = "MonoGCRootSource." }),
        ptr("key", "Root key (meaning depends on the source)."),
        cstr("name", "Description of the root."),
      }),
      ev(0x56, "heap_root_unregister", "A root region was unregistered.", { time(), ptr("start", "Start of the root region.") }),
      ev(0x07, "sample_hit", "A statistical sample.", {
        time(),
        ptr("thread", "Thread id of the sampled thread."),
        field "ips" (array { of = sleb128 { base = "state.ptr", hex = true }, count = uleb128, max_count = 65536,
          doc = "Instruction pointers." }),
        field "frames" (array { of = sleb128 { delta = "method", hex = true }, count = uleb128, max_count = 65536,
          count_only = "backtrace", doc = "Managed backtrace: MonoMethod pointers, innermost first (running deltas)." }),
      }),
      ev(0x17, "sample_usym", "An unmanaged symbol.", {
        time(),
        ptr("address", "Symbol address."),
        field "size" (uleb128 { unit = "bytes", doc = "Symbol size (0 if unknown)." }),
        cstr("name", "Symbol name."),
      }),
      ev(0x37, "sample_counters_desc", "Descriptions of counters.", {
        time(),
        field "counters" (array { count = uleb128, doc = "The counters described.", of = struct {
          field "section" (uleb128 { doc = "Counter section (1 << 15: performance counters, named)." }),
          field "section_name" (cstring { max_len = 65536, doc = "Section name." }, { when = "section == 32768" }),
          cstr("name", "Counter name."),
          field "type" (uleb128 { doc = "Counter type (MONO_COUNTER_INT 0 ... TIME_INTERVAL 7)." }),
          field "unit" (uleb128 { doc = "Counter unit." }),
          field "variance" (uleb128 { doc = "Counter variance." }),
          field "index" (uleb128 { doc = "Unique index of the counter." }),
        } }),
      }),
      ev(0x47, "sample_counters", "Counter values.", {
        time(),
        field "values" (array { ["until"] = "index == 0", doc = "Values, until index 0.", of = struct {
          field "index" (uleb128 { doc = "Index of the counter; 0 ends the list." }),
          field "type" (uleb128 { doc = "Type of the value." }, { when = "index != 0" }),
          field "value" (union {
            on = "type",
            case({ 1, 4 }, "uint", uleb128),
            case(5, "real", f64),
            case(6, "text", struct {
              field "present" (u8 { doc = "0: no value." }),
              field "text" (cstring { max_len = 1048576 }, { when = "present != 0" }),
            }),
            default_case("sint", sleb128),
          }, { when = "index != 0" }),
        } }),
      }),
      ev(0x18, "jit_helper", "Code the JIT generated that is not a method.", {
        time(),
        field "kind" (u8 { enum = { [0] = "method", [1] = "method_trampoline", [2] = "unbox_trampoline",
          [3] = "imt_trampoline", [4] = "generics_trampoline", [5] = "specific_trampoline",
          [6] = "helper", [7] = "monitor", [8] = "delegate_invoke", [9] = "exception_handling" }, open = true,
          doc = "MonoProfilerCodeBufferType." }),
        ptr("start", "Start of the code."),
        field "size" (uleb128 { unit = "bytes", doc = "Size of the code." }),
        field "name" (cstring { max_len = 1048576, doc = "Name (specific trampolines only)." }, { when = "kind == 5" }),
      }),
      ev(0x0A, "sync_point", "A sync point.", {
        time(),
        field "kind" (u8 { enum = { [0] = "periodic", [1] = "world_stop", [2] = "world_start" }, open = true,
          doc = "MonoProfilerSyncPointType." }),
      }),
      ev(0x1A, "aot_id", "The runtime's AOT id.", { time(), cstr("aot_id", "The AOT id.") }),
    },
  },
  enums = C.plus_enums {
    metadata_type = { [1] = "class", [2] = "image", [3] = "assembly", [4] = "domain", [5] = "thread", [6] = "context",
      [7] = "vtable" },
    gc_event = { [0] = "start", [1] = "mark_start", [2] = "mark_end", [3] = "reclaim_start", [4] = "reclaim_end",
      [5] = "end", [6] = "pre_stop_world", [7] = "post_stop_world", [8] = "pre_start_world", [9] = "post_start_world",
      [10] = "pre_stop_world_locked", [11] = "post_start_world_unlocked" },
  },
}
