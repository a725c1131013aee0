-- schemas/mono/_common.lua: what the versions of the Mono log profiler format share
-- (mono/profiler/proflog.c of Nov 2010, and log.h of Mono 6.x; see NOTES-mono.md).
-- Every multi-byte integer is little-endian; event data is mostly LEB128.
local M = {}

M.doc_buffers = [[

Buffers are written back to back. Each buffer holds the events of one thread,
after a 48-byte header that gives the bases its events are relative to. Times are running
uleb128 deltas from the buffer's time base; pointers are sleb128 differences from the
pointer base; object addresses are stored shifted right by 3 as differences from the
object base; MonoMethod pointers in method events are running sleb128 deltas from the
method base. `dump` shows every such value resolved (absolute) and `encode` derives the
deltas again. If a value makes no sense, the rest of its buffer is dropped and reading
goes on with the next buffer.]]

-- A pointer stored as a difference from the buffer's ptr_base.
function M.ptr(name, doc)
  return field(name)(sleb128 { base = "state.ptr", hex = true, doc = doc })
end
-- An object address: (address >> 3) - obj_base on the wire.
function M.obj(name, doc)
  return field(name)(sleb128 { base = "state.obj", shift = 3, hex = true,
    doc = doc or "Object address (stored >> 3 relative to obj_base)." })
end
-- A MonoMethod pointer as a running delta from the previous one in the buffer.
function M.method(name, doc)
  return field(name)(sleb128 { delta = "method", hex = true,
    doc = doc or "MonoMethod* (running delta from the previous method of the buffer)." })
end
function M.time()
  return field "time" (uleb128 { delta = "time", unit = "ns",
    doc = "Event time in ns (a delta from the previous time of the buffer)." })
end
function M.cstr(name, doc)
  return field(name)(cstring { max_len = 1048576, doc = doc })
end

-- The 48-byte buffer header and its events, with the state the events run on.
function M.buffer()
  return struct {
    doc = "Events of one thread, after a header with the bases they are relative to.",
    field "id" (magic "\1LPM"),
    field "len" (u32 { size_of = "events", doc = "Bytes of events after this 48-byte header." }),
    field "time_base" (u64 { unit = "ns", doc = "Time base in ns since an unspecified epoch." }),
    field "ptr_base" (u64 { hex = true, doc = "Base of pointer fields." }),
    field "obj_base" (u64 { hex = true, doc = "Base of object fields (an address >> 3)." }),
    field "thread_id" (u64 { hex = true, doc = "System thread id (pthread_t) of the events." }),
    field "method_base" (u64 { hex = true, doc = "Start of the running MonoMethod* deltas." }),
    field "events" (records {
      of = "event",
      state = {
        time = u64 { init = "time_base" },
        ptr = u64 { init = "ptr_base" },
        obj = u64 { init = "obj_base" },
        method = u64 { init = "method_base" },
        ref_offset = u64 {},   -- heap references' offsets, running within one heap object event
      },
    }),
  }
end

-- The event byte: what kind of event (the type) in the low nibble, which of its kind (the
-- sub-type) in the high one.
M.event_tag = bits(u8) {
  field "type" (4, { doc = "0 alloc, 1 gc, 2 metadata, 3 method, 4 exception, 5 monitor, 6 heap, 7 sample, 8 runtime, 9 coverage, 10 meta." }),
  field "subtype" (4, { doc = "Which event of its type (with a backtrace, a start or an end...)." }),
}

-- A case of the event union: the event byte's value, a name, and the fields after it.
function M.ev(code, name, doc, fields)
  local s = { doc = doc }
  for i, f in ipairs(fields) do s[i] = f end
  return case(code, name, struct(s))
end

-- A copy of a list of fields with more appended.
function M.plus(list, ...)
  local out = {}
  for _, f in ipairs(list) do out[#out + 1] = f end
  for _, f in ipairs({ ... }) do out[#out + 1] = f end
  return out
end

-- The shared enums and a version's own.
function M.plus_enums(own)
  local out = {}
  for k, v in pairs(M.enums) do out[k] = v end
  for k, v in pairs(own) do out[k] = v end
  return out
end

M.enums = {
  gc_handle_type = { [0] = "weak", [1] = "weaktrack", [2] = "normal", [3] = "pinned" },
  clause_type = { [0] = "catch", [1] = "filter", [2] = "finally", [4] = "fault" },
  monitor_event = { [1] = "contention", [2] = "done", [3] = "fail" },
}

return M
