/* outputs/mojo.c: Austin's MOJO 3 (the default) or 4 (--version 4), the binary form of Austin's
 * samples, streamed through the generated MOJO 3 or 4 encoder, from any profile whose frames are
 * code. austin-python and Austin's tools read it; `profcodec convert --to austin` of it is the
 * input's Austin text.
 *
 * Each sample (each of a sample's `count`) is a stack event, the definitions of what is new
 * in its process, the frame references, and its metrics:
 *  - the stack event: the thread's process id (0 unknown), interpreter id (0 unknown) and
 *    thread id in lowercase hex as Austin writes it (the decimal number the source gave, which
 *    for MOJO input is Python's int(tid, 16) of the file's text; a thread id that is not a
 *    number as Python prints one, with no leading zero and at most 4300 digits, as it is);
 *  - strings and frames are defined per process before their first use there, innermost
 *    first, as Austin does: a string's key is its model id + 2 (key 1 is "<unknown>"), a
 *    frame's its model id (with pcd_job.first_use_keys, encode --from austin's: as Austin's
 *    writer numbers them, per process in order of first use, strings from 2 and frames from 0,
 *    defined outermost first, and "<unknown>" the reserved key 1, never defined); frames carry
 *    file, function, line, line end, column and column end
 *    (MOJO's 0 is "not available", as the model's none); a NUL byte in a string (MOJO strings
 *    end at one) becomes U+FFFD;
 *  - references outermost first: code, native and heap frames as frame references; GC,
 *    invalid and kernel frames as MOJO's gc, invalid and kernel (symbol) events; labels as
 *    string references;
 *  - metrics: the time metric, the time since the thread's previous sample, in µs: for samples
 *    with times, the difference of the times (u64, wrapping, as Tachyon's deltas do; a thread's
 *    first sample from time 0), else the sample's value of the profile's time type; the idle
 *    flag; the memory metric (Austin's "memory" types: allocated, or minus "memory-released");
 *    in the order the source gave them first (Austin's own samples).
 * Metadata: a profile of Austin's own (the Austin dialect: MOJO input) keeps its metadata, in
 * place. Any other gets Austin's header before its first sample: austin (3.7.0, the release
 * that writes MOJO 3 as written here), interval (the sampling period in µs), mode (cpu when the
 * input's mode metadata says cpu, else wall), python (the input's "python" or "python_version"
 * metadata), and at the end the duration (µs), when known.
 *
 * MOJO 4 as Austin 4's writer makes it (at the end of this file):
 *  - a stack repeat where the writer would use one: when the thread's previous sample (its
 *    frame references as a reader expands them; threads as readers tell them apart, by pid and
 *    thread text) without its innermost native frames (austin-python's test: a file that
 *    neither ends in ".py" nor is "<...>") starts this sample's stack and the rest of the
 *    stack holds no Python frame (the same Python stack; native frames and markers follow);
 *  - lanes (asyncio tasks) as task stacks and links "awaited-by" as task waiters, within a
 *    sample of the lane's thread, between its stack event and its frame references (where
 *    Austin writes them). A lane sample (time T on stack S) is the time a task spent at S; a
 *    task stack says where the task is now and how long it was at its previous point, so each
 *    task stack carries the point of a lane sample and the time of the one before it: the
 *    task's first stack has time 0, and after the last sample a stack without frames (the
 *    task gone) carries the last time. A task's id is the lane's thread id, its name key the
 *    lane's name.
 * MOJO 3 has no tasks: lane samples and links are left out, and counted.
 *
 * What MOJO cannot hold is said once per kind at the end, with a count: the other metadata,
 * modes other than wall and cpu, thread statuses, NUL bytes in strings, tasks in MOJO 3. */
#include <inttypes.h>
#include <stdio.h>

#include "common/text.h"
#include "common/vec.h"
#include "outputs/mojo_out.h"
#include "outputs/render.h"

static pcd_mojo_int mpos(int64_t v) { return v == PCD_POS_NONE ? mint(0) : mint(v); }

pcd_status pcd_mojo_put(mojo_out *m, pcd_mojo_v4_event *ev)
{
    if (m->version == 4) return pcd_writer_record(&m->w, &pcd_mojo_v4_region_events, ev);
    pcd_mojo_v3_event e3;
    memset(&e3, 0, sizeof e3);
    e3.tag = ev->tag;
    switch (ev->which) {
    case PCD_MOJO_V4_EVENT_METADATA:
        e3.which = PCD_MOJO_V3_EVENT_METADATA;
        e3.u.metadata.key = ev->u.metadata.key;
        e3.u.metadata.value = ev->u.metadata.value;
        break;
    case PCD_MOJO_V4_EVENT_STACK:
        e3.which = PCD_MOJO_V3_EVENT_STACK;
        e3.u.stack.pid = ev->u.stack.pid;
        e3.u.stack.iid = ev->u.stack.iid;
        e3.u.stack.tid = ev->u.stack.tid;
        break;
    case PCD_MOJO_V4_EVENT_FRAME:
        e3.which = PCD_MOJO_V3_EVENT_FRAME;
        e3.u.frame.key = ev->u.frame.key;
        e3.u.frame.filename = ev->u.frame.filename;
        e3.u.frame.scope = ev->u.frame.scope;
        e3.u.frame.line = ev->u.frame.line;
        e3.u.frame.line_end = ev->u.frame.line_end;
        e3.u.frame.column = ev->u.frame.column;
        e3.u.frame.column_end = ev->u.frame.column_end;
        break;
    case PCD_MOJO_V4_EVENT_INVALID: e3.which = PCD_MOJO_V3_EVENT_INVALID; break;
    case PCD_MOJO_V4_EVENT_FRAME_REF:
        e3.which = PCD_MOJO_V3_EVENT_FRAME_REF;
        e3.u.frame_ref.key = ev->u.frame_ref.key;
        break;
    case PCD_MOJO_V4_EVENT_KERNEL:
        e3.which = PCD_MOJO_V3_EVENT_KERNEL;
        e3.u.kernel.symbol = ev->u.kernel.symbol;
        break;
    case PCD_MOJO_V4_EVENT_GC: e3.which = PCD_MOJO_V3_EVENT_GC; break;
    case PCD_MOJO_V4_EVENT_IDLE: e3.which = PCD_MOJO_V3_EVENT_IDLE; break;
    case PCD_MOJO_V4_EVENT_TIME:
        e3.which = PCD_MOJO_V3_EVENT_TIME;
        e3.u.time.value = ev->u.time.value;
        break;
    case PCD_MOJO_V4_EVENT_MEMORY:
        e3.which = PCD_MOJO_V3_EVENT_MEMORY;
        e3.u.memory.value = ev->u.memory.value;
        break;
    case PCD_MOJO_V4_EVENT_STRING:
        e3.which = PCD_MOJO_V3_EVENT_STRING;
        e3.u.string.key = ev->u.string.key;
        e3.u.string.value = ev->u.string.value;
        break;
    case PCD_MOJO_V4_EVENT_STRING_REF:
        e3.which = PCD_MOJO_V3_EVENT_STRING_REF;
        e3.u.string_ref.key = ev->u.string_ref.key;
        break;
    case PCD_MOJO_V4_EVENT_STACK_REPEAT:
    case PCD_MOJO_V4_EVENT_TASK_STACK:
    case PCD_MOJO_V4_EVENT_TASK_WAITER: return PCD_E_INTERNAL; /* never asked of version 3 */
    }
    return pcd_writer_record(&m->w, &pcd_mojo_v3_region_events, &e3);
}

static pcd_status put_simple(mojo_out *m, pcd_mojo_v4_event_case which, uint64_t tag)
{
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = which;
    ev.tag = tag;
    return pcd_mojo_put(m, &ev);
}

static pcd_status put_meta(mojo_out *m, pcd_bytes k, pcd_bytes v)
{
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_METADATA;
    ev.tag = PCD_MOJO_V4_EVENT_METADATA_TAG;
    ev.u.metadata.key = k;
    ev.u.metadata.value = v;
    return pcd_mojo_put(m, &ev);
}

static pcd_status put_meta_z(mojo_out *m, const char *k, const char *v)
{
    return put_meta(m, (pcd_bytes){ (const uint8_t *)k, strlen(k) }, (pcd_bytes){ (const uint8_t *)v, strlen(v) });
}

/* ---- text ------------------------------------------------------------------------------- */

/* b without NUL bytes (each one U+FFFD), counted. */
static pcd_status clean(mojo_out *m, pcd_bytes *b)
{
    if (!b->len || !memchr(b->ptr, 0, b->len)) return PCD_OK;
    m->warn[W_NUL]++;
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->clean, m->clean_cap, b->len * 3));
    size_t o = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->ptr[i]) {
            m->clean[o++] = b->ptr[i];
        } else {
            memcpy(m->clean + o, "\xEF\xBF\xBD", 3);
            o += 3;
        }
    }
    *b = (pcd_bytes){ m->clean, o };
    return PCD_OK;
}

/* The thread id as Austin writes it: a decimal number (with its sign: the text is Python's
 * int(tid, 16)) in hex, up to Python's 4300 digits; else (another text, a leading zero) its
 * text. */
static pcd_status tid_hex(mojo_out *m, const pcd_profile *p, const pcd_thread *th, pcd_bytes *out)
{
    pcd_bytes d = pcd_profile_text(p, th->tid_text);
    bool neg = d.len > 1 && d.ptr[0] == '-';
    if (neg) d = (pcd_bytes){ d.ptr + 1, d.len - 1 };
    bool dec = d.len > 0;
    for (size_t i = 0; i < d.len && dec; i++) dec = d.ptr[i] >= '0' && d.ptr[i] <= '9';
    if (!dec && neg) d = (pcd_bytes){ d.ptr - 1, d.len + 1 };
    if (dec && (d.len > 4300 || (d.len > 1 && d.ptr[0] == '0'))) {
        /* not a number as Python prints one (int(tid, 16) of MOJO's text): the text itself */
        *out = neg ? (pcd_bytes){ d.ptr - 1, d.len + 1 } : d;
        return PCD_OK;
    }
    if (th->has_tid || !th->tid_text || (dec && !neg && d.len <= 19)) {
        uint64_t v = th->tid;
        if (!th->has_tid && th->tid_text) {
            v = 0;
            for (size_t i = 0; i < d.len; i++) v = v * 10 + (uint64_t)(d.ptr[i] - '0');
        }
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tid, m->tid_cap, 24));
        *out = (pcd_bytes){ (const uint8_t *)m->tid, (size_t)snprintf(m->tid, 24, "%" PRIx64, v) };
        return PCD_OK;
    }
    if (!dec) {
        *out = d;
        return PCD_OK;
    }
    /* a long or negative decimal number: divided by 16 digit by digit, the hex digits from the
     * last (then the sign), reversed */
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tid, m->tid_cap, 2 * d.len + 3));
    char *num = m->tid + d.len + 2, *hex = m->tid;
    size_t n = d.len, k = 0;
    for (size_t i = 0; i < n; i++) num[i] = (char)(d.ptr[i] - '0');
    size_t lead = 0;
    while (lead < n && !num[lead]) lead++;
    while (lead < n) {
        unsigned r = 0;
        for (size_t i = lead; i < n; i++) {
            unsigned x = r * 10 + (unsigned)num[i];
            num[i] = (char)(x / 16);
            r = x % 16;
        }
        hex[k++] = "0123456789abcdef"[r];
        while (lead < n && !num[lead]) lead++;
    }
    if (!k) hex[k++] = '0';
    if (neg) hex[k++] = '-';
    for (size_t i = 0; i < k / 2; i++) {
        char c = hex[i];
        hex[i] = hex[k - 1 - i];
        hex[k - 1 - i] = c;
    }
    *out = (pcd_bytes){ (const uint8_t *)hex, k };
    return PCD_OK;
}

/* ---- the header ------------------------------------------------------------------------- */

static pcd_status head(mojo_out *m, pcd_profile *p)
{
    if (m->head) return PCD_OK;
    m->head = true;
    if (m->austin) return PCD_OK;
    char buf[64];
    PCD_TRY(put_meta_z(m, "austin", "3.7.0"));
    uint64_t interval = pcd_out_period_us(p);
    if (interval) {
        snprintf(buf, sizeof buf, "%" PRIu64, interval);
        PCD_TRY(put_meta_z(m, "interval", buf));
    }
    pcd_bytes mode = pcd_profile_text(p, pcd_profile_meta_get(p, "mode"));
    bool cpu = pcd_bytes_is(mode, "cpu");
    if (mode.len && !cpu && !pcd_bytes_is(mode, "wall") && !pcd_bytes_is(mode, "unknown")) m->warn[W_MODE]++;
    PCD_TRY(put_meta_z(m, "mode", cpu ? "cpu" : "wall"));
    pcd_str py = pcd_profile_meta_get(p, "python");
    if (!py) py = pcd_profile_meta_get(p, "python_version");
    pcd_bytes v = pcd_profile_text(p, py);
    if (v.len && !pcd_bytes_is(v, "0.0.0")) {
        PCD_TRY(clean(m, &v));
        PCD_TRY(put_meta(m, (pcd_bytes){ (const uint8_t *)"python", 6 }, v));
    }
    return PCD_OK;
}

static pcd_status write_meta(mojo_out *m, pcd_profile *p, pcd_str key, pcd_str value);

static pcd_status m_meta(void *ud, pcd_profile *p, pcd_str key, pcd_str value)
{
    mojo_out *m = ud;
    if (!m->austin) {
        /* kept by the profile for the header; not carried as they are */
        m->warn[W_META]++;
        return PCD_OK;
    }
    if (m->version == 4 && m->any_stack) {
        /* a MOJO 4 reader ends a sample at the next stack event only: metadata after a sample go
         * after the next one, where Austin 4 writes its footer (after the last sample) */
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->held, m->held_cap, m->n_held + 1));
        m->held[m->n_held].k = key;
        m->held[m->n_held++].v = value;
        return PCD_OK;
    }
    return write_meta(m, p, key, value);
}

/* The metadata held back (MOJO 4), after the sample just written. */
static pcd_status flush_held(mojo_out *m, pcd_profile *p)
{
    for (size_t i = 0; i < m->n_held; i++) PCD_TRY(write_meta(m, p, m->held[i].k, m->held[i].v));
    m->n_held = 0;
    return PCD_OK;
}

static pcd_status write_meta(mojo_out *m, pcd_profile *p, pcd_str key, pcd_str value)
{
    pcd_bytes k = pcd_profile_text(p, key), v = pcd_profile_text(p, value);
    PCD_TRY(clean(m, &k));
    /* the key's text may be in the scratch buffer: the value gets its own copy */
    if (memchr(v.ptr, 0, v.len)) {
        pcd_memsink t;
        pcd_memsink_init(&t, m->j->al);
        pcd_status st = pcd_sink_put(&t.sink, k.ptr, k.len);
        if (st == PCD_OK) st = pcd_memsink_flush(&t);
        if (st == PCD_OK) st = clean(m, &v);
        if (st == PCD_OK) st = put_meta(m, (pcd_bytes){ t.data, t.len }, v);
        pcd_memsink_free(&t);
        return st;
    }
    return put_meta(m, k, v);
}

/* ---- definitions ------------------------------------------------------------------------- */

/* Keys: the model's ids (a string's + 2, as key 1 is "<unknown>"; a frame's as it is), or with
 * first_use as Austin numbers them: per process in order of first use, strings from 2 and
 * frames from 0, and "<unknown>" the reserved key 1, never defined. */

/* The next key of kind k (0 string, 1 frame) in process pid. */
static pcd_status next_key(mojo_out *m, pcd_mojo_int pid, int k, uint64_t *key)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->next, (pcd_hkey){ pid.mag, (uint64_t)pid.neg, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) sl->v0 = 2;
    *key = k ? sl->v1++ : sl->v0++;
    return PCD_OK;
}

uint64_t pcd_mojo_str_key(const mojo_out *m, pcd_mojo_int pid, pcd_str s)
{
    if (!m->first_use) return (uint64_t)s + 2;
    const pcd_hslot *sl = pcd_hmap_get(&m->defined, (pcd_hkey){ pid.mag, (uint64_t)pid.neg, s });
    return sl ? sl->v0 : 1;
}

uint64_t pcd_mojo_frame_key(const mojo_out *m, pcd_mojo_int pid, pcd_frame_id f)
{
    if (!m->first_use) return f;
    const pcd_hslot *sl = pcd_hmap_get(&m->defined, (pcd_hkey){ pid.mag, (uint64_t)pid.neg | 2, f });
    return sl ? sl->v0 : 0;
}

pcd_status pcd_mojo_define_string(mojo_out *m, pcd_mojo_int pid, const pcd_profile *p, pcd_str s)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->defined, (pcd_hkey){ pid.mag, (uint64_t)pid.neg, s }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (!fresh) return PCD_OK;
    pcd_bytes b = pcd_profile_text(p, s);
    sl->v0 = (uint64_t)s + 2;
    if (m->first_use) {
        if (pcd_bytes_is(b, "<unknown>")) {
            sl->v0 = 1;
            return PCD_OK;
        }
        uint64_t key;
        PCD_TRY(next_key(m, pid, 0, &key));
        /* (next is another map: sl stays where it is) */
        sl->v0 = key;
    }
    uint64_t key = sl->v0;
    PCD_TRY(clean(m, &b));
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_STRING;
    ev.tag = PCD_MOJO_V4_EVENT_STRING_TAG;
    ev.u.string.key = (pcd_mojo_int){ key, false };
    ev.u.string.value = b;
    return pcd_mojo_put(m, &ev);
}

bool pcd_mojo_is_ref(const pcd_frame *f)
{
    return f->kind != PCD_FRAME_GC && f->kind != PCD_FRAME_INVALID && f->kind != PCD_FRAME_KERNEL &&
           f->kind != PCD_FRAME_LABEL && f->kind != PCD_FRAME_IDLE;
}

/* The function's string of frame f: its own, or for a nameless frame of code the name the outputs
 * give it (its address and module, outputs/render.h), interned in the profile's strings. */
static pcd_status function_of(mojo_out *m, pcd_profile *p, pcd_frame_id id, pcd_str *out)
{
    *out = pcd_profile_frame_at(p, id)->function;
    if (!pcd_frame_nameless(pcd_profile_frame_at(p, id))) return PCD_OK;
    pcd_memsink t;
    pcd_memsink_init(&t, m->j->al);
    pcd_status st = pcd_render_function(&t.sink, p, id, PCD_COLLAPSED_RAW);
    if (st == PCD_OK) st = pcd_memsink_flush(&t);
    if (st == PCD_OK) *out = pcd_profile_str(p, t.data, t.len);
    pcd_memsink_free(&t);
    return st == PCD_OK ? p->oom : st;
}

static pcd_status define_frame(mojo_out *m, pcd_mojo_int pid, pcd_profile *p, pcd_frame_id id)
{
    pcd_str fn;
    PCD_TRY(function_of(m, p, id, &fn));
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    if (f->kind == PCD_FRAME_LABEL || f->kind == PCD_FRAME_IDLE) return pcd_mojo_define_string(m, pid, p, f->function);
    if (!pcd_mojo_is_ref(f)) return PCD_OK;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->defined, (pcd_hkey){ pid.mag, (uint64_t)pid.neg | 2, id }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (!fresh) return PCD_OK;
    uint64_t key = id;
    if (m->first_use) PCD_TRY(next_key(m, pid, 1, &key));
    sl->v0 = key;
    /* (sl is not used after this: the definitions below may grow the map) */
    PCD_TRY(pcd_mojo_define_string(m, pid, p, f->file));
    PCD_TRY(pcd_mojo_define_string(m, pid, p, fn));
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_FRAME;
    ev.tag = PCD_MOJO_V4_EVENT_FRAME_TAG;
    ev.u.frame.key = (pcd_mojo_int){ key, false };
    ev.u.frame.filename = (pcd_mojo_int){ pcd_mojo_str_key(m, pid, f->file), false };
    ev.u.frame.scope = (pcd_mojo_int){ pcd_mojo_str_key(m, pid, fn), false };
    ev.u.frame.line = mpos(f->line);
    ev.u.frame.line_end = mpos(f->end_line);
    ev.u.frame.column = mpos(f->column);
    ev.u.frame.column_end = mpos(f->end_column);
    return pcd_mojo_put(m, &ev);
}

/* The index (+ 1) of a process, for the stacks' memo. */
static pcd_status pid_index(mojo_out *m, pcd_mojo_int pid, uint32_t *out)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->pids, (pcd_hkey){ pid.mag, (uint64_t)pid.neg, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) sl->v0 = m->pids.len;
    *out = (uint32_t)sl->v0;
    return PCD_OK;
}

/* ---- samples --------------------------------------------------------------------------------- */

pcd_status pcd_mojo_put_time(mojo_out *m, uint64_t us)
{
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_TIME;
    ev.tag = PCD_MOJO_V4_EVENT_TIME_TAG;
    ev.u.time.value = (pcd_mojo_int){ us, false };
    return pcd_mojo_put(m, &ev);
}

static pcd_status put_memory(mojo_out *m, const pcd_sample *s)
{
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_MEMORY;
    ev.tag = PCD_MOJO_V4_EVENT_MEMORY_TAG;
    if (m->released >= 0 && s->values[m->released]) ev.u.memory.value = (pcd_mojo_int){ s->values[m->released], true };
    else ev.u.memory.value = (pcd_mojo_int){ m->memory >= 0 ? s->values[m->memory] : 0, false };
    return pcd_mojo_put(m, &ev);
}

/* The time metric of one sample into *us; false when it has none. */
static pcd_status time_of(mojo_out *m, const pcd_profile *p, const pcd_sample *s, bool *has, uint64_t *us)
{
    *has = false;
    if (s->time != PCD_TIME_NONE) {
        pcd_thread_id t = s->thread;
        if (t >= m->seen_cap) {
            size_t old = m->seen_cap;
            PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->seen, m->seen_cap, (size_t)t + 1));
            memset(m->seen + old, 0, m->seen_cap - old);
        }
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->prev, m->prev_cap, (size_t)t + 1));
        int64_t now = s->time / 1000;
        *us = (uint64_t)now - (uint64_t)(m->seen[t] ? m->prev[t] : 0);
        m->seen[t] = 1;
        m->prev[t] = now;
        *has = true;
    } else if (m->pace.type >= 0 && (s->flags & PCD_SAMPLE_HAS(m->pace.type))) {
        *has = pcd_out_pace_us(&m->pace, p, s, us);
    }
    return PCD_OK;
}

/* The frames of a stack defined in the process pid (innermost first, as Austin does; with
 * first_use outermost first, as Austin's text is read; a stack seen whole in it: nothing). fr
 * holds its n frames. */
pcd_status pcd_mojo_define_stack(mojo_out *m, pcd_mojo_int pid, pcd_profile *p, pcd_stack_id st,
                               const pcd_frame_id *fr, size_t n)
{
    uint32_t pi;
    PCD_TRY(pid_index(m, pid, &pi));
    if (st >= m->stack_pid_cap) {
        size_t old = m->stack_pid_cap;
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->stack_pid, m->stack_pid_cap, (size_t)st + 1));
        memset(m->stack_pid + old, 0, (m->stack_pid_cap - old) * sizeof *m->stack_pid);
    }
    if (m->stack_pid[st] != pi) {
        if (m->first_use)
            for (size_t i = 0; i < n; i++) PCD_TRY(define_frame(m, pid, p, fr[i]));
        else
            for (size_t i = n; i-- > 0;) PCD_TRY(define_frame(m, pid, p, fr[i]));
        m->stack_pid[st] = pi;
    }
    return PCD_OK;
}


static pcd_status one_sample(mojo_out *m, pcd_profile *p, const pcd_sample *s, size_t n)
{
    const pcd_thread *th = &p->threads[s->thread];
    pcd_mojo_int pid = mint(th->pid == PCD_ID_NONE ? 0 : th->pid);
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_STACK;
    ev.tag = PCD_MOJO_V4_EVENT_STACK_TAG;
    ev.u.stack.pid = pid;
    ev.u.stack.iid = mint(th->iid == PCD_ID_NONE ? 0 : th->iid);
    PCD_TRY(tid_hex(m, p, th, &ev.u.stack.tid));
    PCD_TRY(pcd_mojo_put(m, &ev));
    m->any_stack = true;
    /* version 4: does it repeat the thread's previous stack, and up to where (before the
     * definitions and tasks, which may use the scratch buffer the thread text is in) */
    size_t from = 0;
    if (m->version == 4) PCD_TRY(pcd_mojo_repeat_of(m, p, s->thread, &ev, n, &from));
    PCD_TRY(pcd_mojo_define_stack(m, pid, p, s->stack, m->fr, n));
    if (m->version == 4) {
        /* its tasks' events (they may define frames: the stack's are defined first) */
        PCD_TRY(pcd_mojo_flush_tasks(m, p, s->thread));
        if (from) PCD_TRY(put_simple(m, PCD_MOJO_V4_EVENT_STACK_REPEAT, PCD_MOJO_V4_EVENT_STACK_REPEAT_TAG));
    }
    /* the references, outermost first (fu a local: the test can leave the loop, where
     * m->first_use would be read again after each call) */
    const bool fu = m->first_use;
    for (size_t i = from; i < n; i++) {
        const pcd_frame *f = pcd_profile_frame_at(p, m->fr[i]);
        memset(&ev, 0, sizeof ev);
        switch (f->kind) {
        case PCD_FRAME_GC: PCD_TRY(put_simple(m, PCD_MOJO_V4_EVENT_GC, PCD_MOJO_V4_EVENT_GC_TAG)); continue;
        case PCD_FRAME_INVALID:
            PCD_TRY(put_simple(m, PCD_MOJO_V4_EVENT_INVALID, PCD_MOJO_V4_EVENT_INVALID_TAG));
            continue;
        case PCD_FRAME_KERNEL: {
            pcd_bytes sym = pcd_profile_text(p, f->function);
            const uint8_t *z = sym.len ? memchr(sym.ptr, 0, sym.len) : NULL;
            if (z) {
                m->warn[W_NUL]++;
                sym.len = (size_t)(z - sym.ptr);
            }
            ev.which = PCD_MOJO_V4_EVENT_KERNEL;
            ev.tag = PCD_MOJO_V4_EVENT_KERNEL_TAG;
            ev.u.kernel.symbol = sym;
            break;
        }
        case PCD_FRAME_LABEL:
        case PCD_FRAME_IDLE:
            ev.which = PCD_MOJO_V4_EVENT_STRING_REF;
            ev.tag = PCD_MOJO_V4_EVENT_STRING_REF_TAG;
            ev.u.string_ref.key = (pcd_mojo_int){ pcd_mojo_str_key(m, pid, f->function), false };
            break;
        default:
            ev.which = PCD_MOJO_V4_EVENT_FRAME_REF;
            ev.tag = PCD_MOJO_V4_EVENT_FRAME_REF_TAG;
            ev.u.frame_ref.key = (pcd_mojo_int){ fu ? pcd_mojo_frame_key(m, pid, m->fr[i]) : m->fr[i], false };
            break;
        }
        PCD_TRY(pcd_mojo_put(m, &ev));
    }
    /* the metrics, in the order the source gave them first */
    bool has_time;
    uint64_t us = 0;
    PCD_TRY(time_of(m, p, s, &has_time, &us));
    bool has_mem = (m->memory >= 0 && (s->flags & PCD_SAMPLE_HAS(m->memory))) ||
                   (m->released >= 0 && (s->flags & PCD_SAMPLE_HAS(m->released)));
    unsigned first = s->flags >> PCD_SAMPLE_FIRST_SHIFT & 31;
    bool mem_first = has_mem && first && (int)first - 1 != m->pace.type &&
                     ((int)first - 1 == m->memory || (int)first - 1 == m->released);
    if (mem_first) PCD_TRY(put_memory(m, s));
    if (has_time) PCD_TRY(pcd_mojo_put_time(m, us));
    if (s->flags & PCD_SAMPLE_IDLE) PCD_TRY(put_simple(m, PCD_MOJO_V4_EVENT_IDLE, PCD_MOJO_V4_EVENT_IDLE_TAG));
    if (has_mem && !mem_first) PCD_TRY(put_memory(m, s));
    return flush_held(m, p);
}

static pcd_status m_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    mojo_out *m = ud;
    PCD_TRY(head(m, p));
    if (p->threads[s->thread].lane_of) {
        /* a task's time at a point: version 4's task stacks, written with its thread's next sample */
        uint64_t us = 0;
        if (m->version != 4 || !p->threads[s->thread].has_tid) {
            m->warn[W_LANES] += s->count;
            return PCD_OK;
        }
        if (m->pace.type >= 0) pcd_out_pace_us(&m->pace, p, s, &us);
        for (uint64_t k = 0; k < s->count; k++) PCD_TRY(pcd_mojo_add_task_ev(m, (task_ev){ s->thread, UINT32_MAX, s->stack, us }));
        return PCD_OK;
    }
    if (s->status) m->warn[W_STATUS]++;
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->fr, m->fr_cap, pcd_stack_depth(p, s->stack)));
    size_t n = pcd_stack_frames(p, s->stack, m->fr);
    for (uint64_t k = 0; k < s->count; k++) PCD_TRY(one_sample(m, p, s, n));
    return PCD_OK;
}

/* ---- the output ------------------------------------------------------------------------------- */

static pcd_status m_begin(void *ud, pcd_profile *p)
{
    mojo_out *m = ud;
    pcd_dialect d;
    PCD_TRY(pcd_out_dialect(m->j, p, &d));
    m->austin = d == PCD_DIALECT_AUSTIN || d == PCD_DIALECT_AUSTIN2;
    pcd_out_pace_init(&m->pace, p);
    m->memory = pcd_profile_find_type(p, "memory");
    m->released = pcd_profile_find_type(p, "memory-released");
    if (m->version == 4) {
        pcd_writer_open(&m->w, &pcd_mojo_v4_format, m->out, m->j->al);
        m->w_open = true;
        pcd_mojo_v4_file root;
        memset(&root, 0, sizeof root);
        root.version = mint(4);
        return pcd_writer_root(&m->w, &root);
    }
    pcd_writer_open(&m->w, &pcd_mojo_v3_format, m->out, m->j->al);
    m->w_open = true;
    pcd_mojo_v3_file root;
    memset(&root, 0, sizeof root);
    root.version = mint(3);
    return pcd_writer_root(&m->w, &root);
}

static pcd_status m_end(void *ud, pcd_profile *p)
{
    mojo_out *m = ud;
    if (!m->w_open) return PCD_OK; /* begin failed */
    PCD_TRY(head(m, p));
    if (m->version == 4) {
        PCD_TRY(pcd_mojo_close_tasks(m, p));
        PCD_TRY(flush_held(m, p));
    }
    if (!m->austin && p->duration != PCD_TIME_NONE && p->duration >= 0) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRId64, p->duration / 1000 + (p->duration % 1000 >= 500));
        PCD_TRY(put_meta_z(m, "duration", buf));
    }
    pcd_status st = pcd_writer_finish(&m->w);
    if (st != PCD_OK) {
        if (st == PCD_E_NOMEM) return st;
        char msg[400];
        pcd_error_format(pcd_writer_error(&m->w), msg, sizeof msg);
        return pcd_job_fail(m->j, st, "cannot write the MOJO output: %s", msg);
    }
    const uint64_t *w = m->warn;
    if (w[W_STATUS])
        pcd_job_note(m->j, "warning: thread statuses (GIL, on-CPU, exception...) of %" PRIu64
                           " samples dropped (MOJO has no such field)", w[W_STATUS]);
    if (w[W_MODE]) {
        pcd_bytes mode = pcd_profile_text(p, pcd_profile_meta_get(p, "mode"));
        pcd_job_note(m->j, "warning: mode %.*s written as MOJO mode wall (MOJO has wall, cpu, memory and full)",
                     (int)mode.len, (const char *)mode.ptr);
    }
    if (w[W_META])
        pcd_job_note(m->j, "warning: %" PRIu64 " metadata entries dropped but for what Austin's interval, mode, python "
                           "and duration metadata say", w[W_META]);
    if (w[W_NUL]) pcd_job_note(m->j, "warning: %" PRIu64 " strings with NUL bytes (U+FFFD in MOJO)", w[W_NUL]);
    if (w[W_LANES])
        pcd_job_note(m->j, "warning: %" PRIu64 " samples of asyncio tasks left out (%s)", w[W_LANES],
                     m->version == 4 ? "no sample of a thread to write them in" : "MOJO 3 has no tasks: --version 4");
    if (w[W_LINKS])
        pcd_job_note(m->j, "warning: %" PRIu64 " links between tasks left out (%s)", w[W_LINKS],
                     m->version == 4 ? "MOJO 4 has only task waiters" : "MOJO 3 has no tasks: --version 4");
    return PCD_OK;
}

static pcd_status m_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    mojo_out *m = state;
    m->j = j;
    m->out = out;
    m->pace.type = m->memory = m->released = -1;
    pcd_hmap_init(&m->defined, j->al);
    pcd_hmap_init(&m->pids, j->al);
    pcd_hmap_init(&m->tasks, j->al);
    pcd_hmap_init(&m->next, j->al);
    m->first_use = j->first_use_keys;
    m->version = 3;
    if (j->version) {
        if (strcmp(j->version, "4") == 0) m->version = 4;
        else if (strcmp(j->version, "3") != 0)
            return pcd_job_fail(j, PCD_E_ARG, "--to mojo writes MOJO 3 or 4 (--version 3 or 4), not '%s'", j->version);
    }
    c->ud = m;
    c->needs = PCD_NEEDS_TIMES; /* a MOJO sample per sample, with its time */
    c->begin = m_begin;
    c->meta = m_meta;
    c->sample = m_sample;
    c->end = m_end;
    c->link = pcd_mojo_link;
    return PCD_OK;
}

static void m_close(void *state)
{
    mojo_out *m = state;
    pcd_alloc *al = m->j->al;
    if (m->w_open) pcd_writer_close(&m->w);
    pcd_hmap_free(&m->defined);
    pcd_hmap_free(&m->pids);
    PCD_VEC_FREE(al, m->stack_pid, m->stack_pid_cap);
    PCD_VEC_FREE(al, m->prev, m->prev_cap);
    PCD_VEC_FREE(al, m->seen, m->seen_cap);
    PCD_VEC_FREE(al, m->fr, m->fr_cap);
    PCD_VEC_FREE(al, m->tfr, m->tfr_cap);
    PCD_VEC_FREE(al, m->clean, m->clean_cap);
    PCD_VEC_FREE(al, m->tid, m->tid_cap);
    for (size_t i = 0; i < m->n_rt; i++) PCD_VEC_FREE(al, m->rt[i].fr, m->rt[i].fr_cap);
    PCD_VEC_FREE(al, m->rt, m->rt_cap);
    PCD_VEC_FREE(al, m->texts, m->texts_cap);
    PCD_VEC_FREE(al, m->rt_of, m->rt_of_cap);
    PCD_VEC_FREE(al, m->tev, m->tev_cap);
    PCD_VEC_FREE(al, m->held, m->held_cap);
    pcd_hmap_free(&m->tasks);
    pcd_hmap_free(&m->next);
}

const pcd_exporter pcd_out_mojo = {
    "mojo", "Austin MOJO 3, or 4 with --version 4 (the time metric: the time since the thread's previous sample), read by austin-python and Austin's tools",
    PCD_HAS_SAMPLES | PCD_HAS_CODE, 0, sizeof(mojo_out), m_open, m_close, NULL, PCD_WANTS_FILE,
};

/* ---- what only MOJO 4 writes: stack repeats where Austin 4's writer would use them, and asyncio
 * tasks (lanes) as task stacks and task waiters ---------------------------------------------- */

/* austin-python's native frame: a file that neither ends in ".py" nor is "<...>". */
static bool is_native(const pcd_profile *p, const pcd_frame *f)
{
    pcd_bytes b = pcd_profile_text(p, f->file);
    if (b.len >= 3 && memcmp(b.ptr + b.len - 3, ".py", 3) == 0) return false;
    return !(b.len >= 1 && b.ptr[0] == '<' && b.ptr[b.len - 1] == '>');
}

/* The thread as readers tell threads apart (pid and the thread text written), made if new. */
static pcd_status rthread_of(mojo_out *m, pcd_thread_id t, const pcd_mojo_v4_event *stack, rthread **out)
{
    if (t >= m->rt_of_cap) {
        size_t old = m->rt_of_cap;
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->rt_of, m->rt_of_cap, (size_t)t + 1));
        memset(m->rt_of + old, 0, (m->rt_of_cap - old) * sizeof *m->rt_of);
    }
    if (!m->rt_of[t]) {
        pcd_mojo_int pid = stack->u.stack.pid;
        pcd_bytes text = stack->u.stack.tid;
        size_t i = 0;
        for (; i < m->n_rt; i++) {
            const rthread *r = &m->rt[i];
            if (r->pid.mag == pid.mag && r->pid.neg == pid.neg && r->text_len == text.len &&
                (!text.len || memcmp(m->texts + r->text_off, text.ptr, text.len) == 0))
                break;
        }
        if (i == m->n_rt) {
            PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->rt, m->rt_cap, m->n_rt + 1));
            PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->texts, m->texts_cap, m->texts_len + text.len));
            rthread *r = &m->rt[m->n_rt++];
            memset(r, 0, sizeof *r);
            r->pid = pid;
            r->text_off = m->texts_len;
            r->text_len = text.len;
            if (text.len) memcpy(m->texts + m->texts_len, text.ptr, text.len);
            m->texts_len += text.len;
        }
        m->rt_of[t] = (uint32_t)i + 1;
    }
    *out = &m->rt[m->rt_of[t] - 1];
    return PCD_OK;
}

/* Whether this sample (m->fr, n frames) repeats its thread's previous one as Austin 4's writer
 * would say it: *from is where its references go on after a stack repeat, 0 when there is none.
 * The thread's previous frames become this sample's. */
pcd_status pcd_mojo_repeat_of(mojo_out *m, const pcd_profile *p, pcd_thread_id t, const pcd_mojo_v4_event *stack,
                            size_t n, size_t *from)
{
    rthread *r;
    PCD_TRY(rthread_of(m, t, stack, &r));
    size_t k = r->n_fr;
    while (k && is_native(p, pcd_profile_frame_at(p, r->fr[k - 1]))) k--;
    *from = 0;
    if (k && k <= n) {
        bool same = memcmp(r->fr, m->fr, k * sizeof *m->fr) == 0;
        for (size_t i = k; same && i < n; i++) {
            const pcd_frame *f = pcd_profile_frame_at(p, m->fr[i]);
            if (pcd_mojo_is_ref(f) && !is_native(p, f)) same = false; /* a Python frame more: not the same stack */
        }
        if (same) *from = k;
    }
    /* what a reader keeps of this sample for the next repeat: its frame references */
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, r->fr, r->fr_cap, n));
    r->n_fr = 0;
    for (size_t i = 0; i < n; i++)
        if (pcd_mojo_is_ref(pcd_profile_frame_at(p, m->fr[i]))) r->fr[r->n_fr++] = m->fr[i];
    return PCD_OK;
}

static pcd_status put_task_stack(mojo_out *m, pcd_profile *p, const pcd_thread *lane, pcd_stack_id st,
                                 uint64_t us)
{
    pcd_mojo_int pid = mint(lane->pid == PCD_ID_NONE ? 0 : lane->pid);
    /* (m->fr holds the sample being written) */
    size_t n = pcd_stack_depth(p, st);
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tfr, m->tfr_cap, n));
    n = pcd_stack_frames(p, st, m->tfr);
    PCD_TRY(pcd_mojo_define_stack(m, pid, p, st, m->tfr, n));
    if (lane->name) PCD_TRY(pcd_mojo_define_string(m, pid, p, lane->name));
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_TASK_STACK;
    ev.tag = PCD_MOJO_V4_EVENT_TASK_STACK_TAG;
    ev.u.task_stack.task = (pcd_mojo_int){ lane->tid, false };
    ev.u.task_stack.name = (pcd_mojo_int){ lane->name ? pcd_mojo_str_key(m, pid, lane->name) : 0, false };
    PCD_TRY(pcd_mojo_put(m, &ev));
    for (size_t i = 0; i < n; i++) {
        if (!pcd_mojo_is_ref(pcd_profile_frame_at(p, m->tfr[i]))) continue; /* a task's stack is its frames */
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V4_EVENT_FRAME_REF;
        ev.tag = PCD_MOJO_V4_EVENT_FRAME_REF_TAG;
        ev.u.frame_ref.key = (pcd_mojo_int){ pcd_mojo_frame_key(m, pid, m->tfr[i]), false };
        PCD_TRY(pcd_mojo_put(m, &ev));
    }
    return pcd_mojo_put_time(m, us);
}

/* The task events waiting for a sample of thread t (all of them: t UINT32_MAX), in order. */
pcd_status pcd_mojo_flush_tasks(mojo_out *m, pcd_profile *p, pcd_thread_id t)
{
    size_t keep = 0;
    for (size_t i = 0; i < m->n_tev; i++) {
        task_ev e = m->tev[i];
        const pcd_thread *lane = &p->threads[e.lane];
        if (t != UINT32_MAX && lane->lane_of - 1 != t) {
            m->tev[keep++] = e;
            continue;
        }
        if (e.waiter != UINT32_MAX) {
            pcd_mojo_v4_event ev;
            memset(&ev, 0, sizeof ev);
            ev.which = PCD_MOJO_V4_EVENT_TASK_WAITER;
            ev.tag = PCD_MOJO_V4_EVENT_TASK_WAITER_TAG;
            ev.u.task_waiter.task = (pcd_mojo_int){ lane->tid, false };
            ev.u.task_waiter.waiter = (pcd_mojo_int){ p->threads[e.waiter].tid, false };
            PCD_TRY(pcd_mojo_put(m, &ev));
            continue;
        }
        /* this point now, the time at the one before (0 for the task's first) */
        bool fresh;
        pcd_hslot *sl = pcd_hmap_put(&m->tasks, (pcd_hkey){ e.lane, 0, 0 }, &fresh);
        if (!sl) return PCD_E_NOMEM;
        PCD_TRY(put_task_stack(m, p, lane, e.stack, fresh ? 0 : sl->v1));
        sl->v0 = (uint64_t)e.stack + 1;
        sl->v1 = e.us;
    }
    m->n_tev = keep;
    return PCD_OK;
}

/* The end: each task's last time on a task stack without frames. */
pcd_status pcd_mojo_close_tasks(mojo_out *m, pcd_profile *p)
{
    if (!m->any_stack) {
        /* nothing to put them in */
        m->warn[W_LANES] += m->n_tev;
        m->n_tev = 0;
        return PCD_OK;
    }
    PCD_TRY(pcd_mojo_flush_tasks(m, p, UINT32_MAX));
    for (size_t i = 0; i < m->tasks.cap; i++) {
        const pcd_hslot *sl = &m->tasks.slots[i];
        if (!sl->used || !sl->v0) continue;
        const pcd_thread *lane = &p->threads[sl->k.a];
        pcd_mojo_int pid = mint(lane->pid == PCD_ID_NONE ? 0 : lane->pid);
        if (lane->name) PCD_TRY(pcd_mojo_define_string(m, pid, p, lane->name));
        pcd_mojo_v4_event ev;
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V4_EVENT_TASK_STACK;
        ev.tag = PCD_MOJO_V4_EVENT_TASK_STACK_TAG;
        ev.u.task_stack.task = (pcd_mojo_int){ lane->tid, false };
        ev.u.task_stack.name = (pcd_mojo_int){ lane->name ? pcd_mojo_str_key(m, pid, lane->name) : 0, false };
        PCD_TRY(pcd_mojo_put(m, &ev));
        PCD_TRY(pcd_mojo_put_time(m, sl->v1));
    }
    return PCD_OK;
}

pcd_status pcd_mojo_add_task_ev(mojo_out *m, task_ev e)
{
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tev, m->tev_cap, m->n_tev + 1));
    m->tev[m->n_tev++] = e;
    return PCD_OK;
}

pcd_status pcd_mojo_link(void *ud, pcd_profile *p, const pcd_link *l)
{
    mojo_out *m = ud;
    const pcd_thread *a = &p->threads[l->from], *b = &p->threads[l->to];
    if (m->version != 4 || !pcd_bytes_is(pcd_profile_text(p, l->kind), "awaited-by") || !a->lane_of ||
        !b->lane_of || !a->has_tid || !b->has_tid) {
        m->warn[W_LINKS]++;
        return PCD_OK;
    }
    return pcd_mojo_add_task_ev(m, (task_ev){ l->from, l->to, 0, 0 });
}
