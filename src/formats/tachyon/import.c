/* formats/tachyon/import.c: CPython's sampling profiles (Tachyon) into the profile model.
 *
 * Read as CPython's reader reads them (read.c): the header, the tables (strings, frames,
 * statistics), then the samples replayed in file order (replay.c). Each sample becomes a
 * model sample:
 *  - the thread is (thread id, interpreter id), in order of first appearance, named as
 *    CPython's outputs name it: "Thread N", "Thread N (interpreter K)" for K other than 0;
 *    its process id is the thread id of the process's main thread (a kernel thread id, which
 *    for the main thread is the process id on Linux): a thread whose first sample has the
 *    status bit MAIN_THREAD is its process's main thread, and the other threads belong to the
 *    process of the first sample so flagged (a profile is of one process; CPython samples the
 *    main thread first, so that a look at the first record finds it), or to none;
 *  - frames are code frames as CPython's reader sees the table: names decoded as Python's
 *    bytes.decode("utf-8", "replace") does; a lineno of -1 (no location) gives no position
 *    at all; columns are 0-based in the file and 1-based in the model; frames of CPython's own
 *    bootstrap (_sync_coordinator.py) are left out, as CPython's outputs leave them out.
 *    CPython's synthetic frames (file "~", no location) "<GC>" and "<native>" are a GC and a
 *    native frame, and so are what `convert --to tachyon` writes for Austin's markers: "~" /
 *    ":INVALID:" an invalid frame, file "kernel" at line 0 a kernel frame (the function is
 *    the symbol); their texts stay as they are, so that CPython's outputs read the same;
 *  - two sample types: "time" (microseconds, the sampling interval for each sample) and
 *    "samples" (count, 1 each; secondary, so that viewers show the time), "samples" being
 *    the default metric (CPython's collapsed stacks count samples);
 *  - the time is the sample's timestamp in ns since the header's start time, which is
 *    time.monotonic(), not a date (the profile's time_origin stays unknown); samples come
 *    in file order, which is time order within each thread;
 *  - the status byte (has GIL, on CPU, ...) is the sample's status.
 * A REPEAT record's run of identical samples is handed on as one sample with a count, without
 * a time or a status, unless the consumer needs each sample's own time (PCD_NEEDS_TIMES).
 * The per-sample work is a look-up (the model stack kept in the replay's record of the stack,
 * pcd_tachyon_stack.user, which finding the stack has just read) and the call to the consumer:
 * model stacks are made once per distinct replay stack.
 *
 * The header and the statistics block go on as metadata (python_version, mode,
 * capture_features, sample_interval_us, start_time_us, sample_count, thread_count,
 * string_count, frame_count, compression, duration_sec, sample_rate, error_rate,
 * missed_samples; floats as Python's repr). The dialect is CPython's.
 *
 * A frame or string index beyond the tables in a frame a sample uses is an error with
 * CPython's words ("Invalid frame index: N", "Invalid string index in frame N"), and nothing
 * is converted; damage, including the replay's errors, ends the profile after the samples
 * before it. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/text.h"
#include "common/vec.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"
#include "model/profile.h"

enum { T_TIME, T_SAMPLES, T_N };


#define DROPPED UINT32_MAX         /* a frame CPython's outputs leave out */

typedef struct timport {
    pcd_job *j;
    pcd_profile *p;
    pcd_tachyon_v1_file root;
    pcd_tachyon_tables t;
    pcd_tachyon_replay rp;
    pcd_status st;                 /* the first error of the sample callbacks */
    uint32_t flags;                /* every sample's PCD_SAMPLE_HAS bits (its state's are added) */
    pcd_reader r2;                 /* the samples' reader (pcd_tachyon_samples_open) */
    bool r2_open;
    bool past;                     /* a record that is not a sample: the samples are over */
    uint32_t *strs;                /* string index -> model string + 1 (0: not yet) */
    uint32_t *frames;              /* frame index -> model frame + 1, DROPPED, 0: not yet */
    pcd_thread_id *threads;        /* the replay's thread index -> model thread */
    uint32_t *prev;                /* the replay's thread index -> its previous sample's stack */
    size_t n_threads, threads_cap, prev_cap;
    uint8_t *text;                 /* a decoded name */
    size_t text_cap;
    int types[T_N];
    uint64_t values[T_N];
    pcd_sample s;
    int64_t main_pid;              /* the first main thread's id (PCD_ID_NONE: none) */
} timport;

/* ---- tables ------------------------------------------------------------------------------ */

/* The model string of string i (< n_strings), as CPython decodes it. */
static pcd_str str_of(timport *m, uint32_t i)
{
    if (m->strs[i]) return m->strs[i] - 1;
    pcd_bytes b = m->t.strings[i];
    if (PCD_VEC_RESERVE(m->j->al, m->text, m->text_cap, PCD_UTF8_REPLACED_MAX(b.len) + 1) != PCD_OK) {
        m->p->oom = PCD_E_NOMEM;
        return 0;
    }
    size_t n = pcd_utf8_replace(b.ptr, b.len, m->text);
    pcd_str s = pcd_profile_str(m->p, m->text, n);
    m->strs[i] = s + 1;
    return s;
}

/* The model frame of frame index f into *out (DROPPED for CPython's own frames). */
static pcd_status frame_of(timport *m, uint32_t f, uint32_t *out)
{
    if (PCD_UNLIKELY(f >= m->t.n_frames))
        return pcd_job_fail(m->j, PCD_E_INVALID, "Invalid frame index: %u", f);
    if (m->frames[f]) {
        *out = m->frames[f] == DROPPED ? DROPPED : m->frames[f] - 1;
        return PCD_OK;
    }
    const pcd_tachyon_v1_frame *fr = &m->t.frames[f];
    if (fr->filename >= m->t.n_strings || fr->funcname >= m->t.n_strings)
        return pcd_job_fail(m->j, PCD_E_INVALID, "Invalid string index in frame %u", f);
    pcd_profile *p = m->p;
    pcd_frame mf = pcd_frame_blank(PCD_FRAME_CODE);
    mf.file = str_of(m, fr->filename);
    pcd_bytes file = pcd_profile_text(p, mf.file);
    if (pcd_tachyon_internal_file(file.ptr, file.len)) {
        m->frames[f] = *out = DROPPED;
        return PCD_OK;
    }
    mf.function = str_of(m, fr->funcname);
    pcd_tachyon_loc l = pcd_tachyon_frame_loc(fr);
    /* the texts again: interning the function may have moved the file's */
    file = pcd_profile_text(p, mf.file);
    pcd_bytes fn = pcd_profile_text(p, mf.function);
    if (l.none && pcd_bytes_is(file, "~")) {
        if (pcd_bytes_is(fn, "<GC>")) mf.kind = PCD_FRAME_GC;
        else if (pcd_bytes_is(fn, "<native>")) mf.kind = PCD_FRAME_NATIVE;
        else if (pcd_bytes_is(fn, ":INVALID:")) mf.kind = PCD_FRAME_INVALID;
    } else if (!l.none && l.lineno == 0 && pcd_bytes_is(file, "kernel")) {
        mf.kind = PCD_FRAME_KERNEL;
    }
    if (!l.none) {
        mf.line = l.lineno;
        mf.end_line = l.end_lineno;
        if (l.column != -1) {
            mf.column = (int64_t)l.column + 1;
            mf.end_column = (int64_t)l.end_column + 1;
        }
    }
    if (p->oom) return p->oom;
    pcd_frame_id id = pcd_profile_frame(p, &mf);
    if (p->oom) return p->oom;
    m->frames[f] = id + 1;
    *out = id;
    return PCD_OK;
}

/* The model stack of th's current stack, the replay's stack `node`, made once. A new stack
 * is mostly the thread's previous one with a few frames changed on top: from the model stack
 * of the previous one, up as many frames as were popped, then the new frames pushed. */
static pcd_status map_stack(timport *m, const pcd_tachyon_thread *th, uint32_t node, uint32_t *out)
{
    uint32_t d = th->depth, pd, c = 0;
    const uint32_t *f = th->frames; /* outermost first: the frames of `node` */
    const uint32_t *pf = pcd_tachyon_replay_stack(&m->rp, m->prev[th->index], &pd);
    while (c < pd && c < d && pf[c] == f[c]) c++;
    pcd_stack_id s = m->rp.stacks.ids[m->prev[th->index]].user - 1; /* mapped: it had a sample */
    for (uint32_t i = pd; i-- > c;)
        if (m->frames[pf[i]] != DROPPED) s = pcd_stack_parent(m->p, s);
    for (uint32_t i = c; i < d; i++) {
        uint32_t fid = DROPPED;
        PCD_TRY(frame_of(m, f[i], &fid));
        if (fid != DROPPED) s = pcd_profile_push(m->p, s, fid);
    }
    if (m->p->oom) return m->p->oom;
    m->rp.stacks.ids[node].user = s + 1;
    *out = s + 1;
    return PCD_OK;
}

/* The model thread of a replay thread, made at its first sample (whose status it is). */
static pcd_status thread_of(timport *m, const pcd_tachyon_thread *th, uint8_t status)
{
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->threads, m->threads_cap, (size_t)th->index + 1));
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->prev, m->prev_cap, (size_t)th->index + 1));
    while (m->n_threads <= th->index) {
        m->prev[m->n_threads] = 0; /* the empty stack, mapped first (run) */
        const pcd_tachyon_thread *t = m->rp.threads[m->n_threads];
        pcd_thread mt = pcd_thread_blank();
        mt.tid = t->tid;
        mt.has_tid = true;
        mt.iid = t->interp;
        if (t == th && (status & PCD_TACHYON_V1_THREAD_STATUS_MAIN_THREAD_MASK) && t->tid <= (uint64_t)INT64_MAX) {
            mt.pid = (int64_t)t->tid;
            if (m->main_pid == PCD_ID_NONE) m->main_pid = mt.pid;
        } else {
            mt.pid = m->main_pid;
        }
        char name[64];
        if (t->interp) snprintf(name, sizeof name, "Thread %" PRIu64 " (interpreter %u)", t->tid, t->interp);
        else snprintf(name, sizeof name, "Thread %" PRIu64, t->tid);
        mt.name = pcd_profile_strz(m->p, name);
        m->threads[m->n_threads++] = pcd_profile_thread(m->p, &mt);
        if (m->p->oom) return m->p->oom;
    }
    return PCD_OK;
}

/* ---- samples ----------------------------------------------------------------------------- */

/* ns since the start time: a timestamp before it is negative (u64 differences wrap). */
static int64_t ns_since(uint64_t ts, uint64_t start)
{
    int64_t d = (int64_t)(ts - start);
    const int64_t lim = INT64_MAX / 1000;
    return (d > lim ? lim : d < -lim ? -lim : d) * 1000;
}

/* Hands on `count` samples of th's stack `node`. */
PCD_INLINE void hand_on(timport *m, const pcd_tachyon_thread *th, uint32_t node, int64_t time, uint8_t status, uint64_t count)
{
    if (PCD_UNLIKELY(m->st != PCD_OK)) return;
    if (PCD_UNLIKELY(th->index >= m->n_threads)) {
        if ((m->st = thread_of(m, th, status)) != PCD_OK) return;
    }
    uint32_t ms = m->rp.stacks.ids[node].user;
    if (PCD_UNLIKELY(!ms)) {
        if ((m->st = map_stack(m, th, node, &ms)) != PCD_OK) return;
    }
    pcd_sample *s = &m->s;
    s->thread = m->threads[th->index];
    s->stack = ms - 1;
    s->time = time;
    s->count = count;
    s->status = status;
    s->flags = m->flags | pcd_tachyon_state_flags(status);
    s->offset = m->rp.offset;
    m->prev[th->index] = node;
    m->st = pcd_profile_sample(m->p, s);
}

/* Every sample with its time (PCD_NEEDS_TIMES). */
static void on_sample_timed(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    timport *m = ud;
    hand_on(m, th, node, ns_since(ts, m->root.start_time_us), status, 1);
}

/* Without times: a sample of a record other than REPEAT ... */
static void on_sample(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    (void)ts;
    hand_on(ud, th, node, PCD_TIME_NONE, status, 1);
}

/* ... and a REPEAT record's run, as one sample with a count. */
static void on_repeat(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t n)
{
    hand_on(ud, th, node, PCD_TIME_NONE, 0, n);
}

/* ---- the header ---------------------------------------------------------------------------- */

static pcd_status meta(timport *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static pcd_status meta(timport *m, const char *key, const char *fmt, ...)
{
    char v[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    pcd_profile *p = m->p;
    pcd_str k = pcd_profile_strz(p, key), s = pcd_profile_strz(p, v);
    if (p->oom) return p->oom;
    return pcd_profile_meta(p, k, s);
}

static pcd_status float_meta(timport *m, const char *key, double v)
{
    char f[40];
    pcd_tachyon_py_float_repr(f, sizeof f, v);
    return meta(m, key, "%s", f);
}

/* What the header and the statistics block say, in the profile and as metadata. */
static pcd_status header(timport *m)
{
    const pcd_tachyon_v1_file *h = &m->root;
    pcd_profile *p = m->p;
    int mode = pcd_tachyon_config_mode(h->config), feat = pcd_tachyon_config_features(h->config);
    p->types[m->types[T_TIME]].title = pcd_profile_strz(p, mode == 0 ? "Wall time" : mode == 1 ? "CPU time" : "Time");
    p->period = (int64_t)(h->sample_interval_us > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : h->sample_interval_us);
    m->values[T_TIME] = h->sample_interval_us;
    /* CPython reads the statistics block only in version 1 */
    const pcd_tachyon_v1_stats *st = m->t.have_stats && h->stats_version == 1 ? &m->t.stats : NULL;
    if (st && isfinite(st->duration_sec) && st->duration_sec >= 0 && st->duration_sec < 9e9)
        p->duration = (int64_t)(st->duration_sec * 1e9 + 0.5);
    PCD_TRY(pcd_profile_begin(p));
    PCD_TRY(meta(m, "python_version", "%u.%u.%u", h->python_version.major, h->python_version.minor,
                 h->python_version.micro));
    PCD_TRY(meta(m, "mode", "%s", mode < 0 ? "unknown" : pcd_tachyon_mode_names[mode]));
    if (feat >= 0) {
        char f[96];
        size_t n = 0;
        f[0] = 0;
        for (int i = 0; i < 5; i++)
            if (feat & (1 << i))
                n += (size_t)snprintf(f + n, sizeof f - n, "%s%s", n ? " " : "", pcd_tachyon_feature_names[i]);
        PCD_TRY(meta(m, "capture_features", "%s", n ? f : "none"));
    }
    PCD_TRY(meta(m, "sample_interval_us", "%" PRIu64, h->sample_interval_us));
    PCD_TRY(meta(m, "start_time_us", "%" PRIu64, h->start_time_us));
    PCD_TRY(meta(m, "sample_count", "%" PRIu64, h->sample_count));
    PCD_TRY(meta(m, "thread_count", "%u", h->thread_count));
    PCD_TRY(meta(m, "string_count", "%u", h->string_count));
    PCD_TRY(meta(m, "frame_count", "%u", h->frame_count));
    PCD_TRY(meta(m, "compression", "%s", h->compression == PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD ? "zstd" : "none"));
    if (st) {
        PCD_TRY(float_meta(m, "duration_sec", st->duration_sec));
        PCD_TRY(float_meta(m, "sample_rate", st->sample_rate));
        if (st->has_present && pcd_tachyon_v1_stats_present_error_rate(st->present))
            PCD_TRY(float_meta(m, "error_rate", st->error_rate));
        if (st->has_present && pcd_tachyon_v1_stats_present_missed_samples(st->present))
            PCD_TRY(float_meta(m, "missed_samples", st->missed_samples));
    }
    return PCD_OK;
}

/* ---- the import ---------------------------------------------------------------------------- */

/* The header and the tables (at the file's end), then the second reader the samples come
 * from. */
static pcd_status setup(timport *m, pcd_reader **from)
{
    pcd_job *j = m->j;
    pcd_profile *p = m->p;
    /* the sample types first: a profile ended by damage in the header still has them */
    p->dialect = PCD_DIALECT_CPYTHON;
    m->types[T_TIME] = pcd_profile_add_type(p, "time", "microseconds", "Time");
    m->types[T_SAMPLES] = pcd_profile_add_type(p, "samples", "count", "Samples");
    p->types[m->types[T_SAMPLES]].secondary = true;
    p->default_type = m->types[T_SAMPLES];
    p->period_type = m->types[T_TIME];
    m->values[T_SAMPLES] = 1;
    if (p->oom) return p->oom;

    PCD_TRY(pcd_tachyon_read_head(j, &m->root, &m->t));
    if (j->damaged) return PCD_END;
    size_t ns = m->t.n_strings ? m->t.n_strings : 1, nf = m->t.n_frames ? m->t.n_frames : 1;
    m->strs = pcd_alloc_get(j->al, ns * sizeof *m->strs);
    m->frames = pcd_alloc_get(j->al, nf * sizeof *m->frames);
    if (!m->strs || !m->frames) return PCD_E_NOMEM;
    memset(m->strs, 0, ns * sizeof *m->strs);
    memset(m->frames, 0, nf * sizeof *m->frames);
    uint64_t main;
    if (pcd_tachyon_find_main(j, &m->root, &main) && main <= (uint64_t)INT64_MAX) m->main_pid = (int64_t)main;
    PCD_TRY(header(m));

    PCD_TRY(pcd_tachyon_replay_init(&m->rp, &m->root, j->al, true, false));
    m->rp.stacks.ids[0].user = PCD_STACK_EMPTY + 1; /* the empty stack is the model's */
    m->rp.ud = m;
    if (p->consumer.needs & PCD_NEEDS_TIMES) {
        m->rp.on_sample = on_sample_timed;
    } else {
        /* nobody needs the times: REPEAT runs are counted, their deltas not summed */
        m->rp.on_sample = on_sample;
        m->rp.on_repeat = on_repeat;
        m->rp.no_times = true;
    }
    m->s.values = m->values;
    m->flags = PCD_SAMPLE_HAS(m->types[T_TIME]) | PCD_SAMPLE_HAS(m->types[T_SAMPLES]);
    pcd_status st = pcd_tachyon_samples_open(j, &m->r2);
    if (st != PCD_OK) return st;
    m->r2_open = true;
    /* without times a REPEAT record's entries are only counted: checked, not stored */
    if (m->rp.no_times) pcd_reader_set_count_only(&m->r2, PCD_TACHYON_V1_COUNT_ONLY_REPEAT_SAMPLES);
    *from = &m->r2;
    return PCD_OK;
}

/* The tables come after the samples in the file, and a sample means nothing without them: the
 * importer reads the header and the tables from the job's reader first, then hands the
 * pipeline a second reader over the same input, from the first sample. */
static pcd_status tachyon_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    timport *m = ctx;
    m->j = j;
    m->p = p;
    m->main_pid = PCD_ID_NONE;
    pcd_tachyon_tables_init(&m->t, j->al);
    return setup(m, from);
}

static pcd_status tachyon_record(void *ctx, const pcd_record *rec)
{
    timport *m = ctx;
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (PCD_UNLIKELY(!s)) {
        m->past = true;
        return PCD_END;
    }
    pcd_status st = pcd_tachyon_replay_record(&m->rp, s, rec);
    if (PCD_UNLIKELY(st != PCD_OK)) return st;
    return m->st;
}

static pcd_status tachyon_end(void *ctx, pcd_status st)
{
    timport *m = ctx;
    pcd_job *j = m->j;
    if (m->r2_open) {
        pcd_reader_close(&m->r2);
        st = pcd_tachyon_samples_done(j, &m->rp, st, m->past);
    }
    if (st == PCD_E_NOMEM && !j->msg[0])
        pcd_job_fail(j, st, "out of memory for the profile's tables (raise --max-memory)");
    pcd_alloc *al = j->al;
    if (m->strs) pcd_alloc_free(al, m->strs, (m->t.n_strings ? m->t.n_strings : 1) * sizeof *m->strs);
    if (m->frames) pcd_alloc_free(al, m->frames, (m->t.n_frames ? m->t.n_frames : 1) * sizeof *m->frames);
    PCD_VEC_FREE(al, m->prev, m->prev_cap);
    PCD_VEC_FREE(al, m->threads, m->threads_cap);
    PCD_VEC_FREE(al, m->text, m->text_cap);
    pcd_tachyon_replay_free(&m->rp);
    pcd_tachyon_tables_free(&m->t);
    return st;
}

const pcd_model_importer pcd_tachyon_model = { PCD_HAS_SAMPLES | PCD_HAS_TIMES | PCD_HAS_CODE, sizeof(timport),
                                               tachyon_begin, tachyon_record, tachyon_end };
