/* formats/xformat/mojo_tachyon.c: Austin MOJO <-> CPython Tachyon, above the bytes.
 *
 * MOJO -> Tachyon: the MOJO assembler (mojo_asm.c) gives samples; the Tachyon writer
 * (tachyon_writer.c) writes them as CPython's writer would. Tachyon -> MOJO: the Tachyon
 * replay (tachyon_replay.c) gives samples with resolved stacks; MOJO 3 events go through
 * the generated MOJO 3 encoder. The mapping, field by field, is in docs/mojo.md and
 * docs/tachyon.md ("Converting between MOJO and Tachyon"); what one side cannot hold is
 * counted and said once per kind on a->err at the end. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/mojo/asm.h"
#include "mojo_v3.h"
#include "common/hmap.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/writer.h"
#include "formats/xformat/xformat.h"

/* Tachyon thread status bits (schemas/tachyon/v1.lua, thread_status). */
#define ST_ON_CPU PCD_TACHYON_V1_THREAD_STATUS_ON_CPU_MASK
#define ST_UNKNOWN PCD_TACHYON_V1_THREAD_STATUS_UNKNOWN_MASK
#define ST_MAIN PCD_TACHYON_V1_THREAD_STATUS_MAIN_THREAD_MASK
/* Tachyon capture feature bits, within config's features (the schema's doc: bit 0 all_threads,
 * 2 gc). */
enum { FEAT_ALL_THREADS = 1, FEAT_GC = 4 };

static bool bytes_is(pcd_bytes b, const char *z) { return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0; }

/* Decimal text to u64; false when it is not one (sign, other characters, overflow). */
static bool dec_u64(const uint8_t *p, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A MOJO line/column part to Tachyon's int32 (0: "not available" -> -1, shift: columns are
 * 1-based in MOJO, 0-based in Tachyon). *bad when it does not fit. */
static int32_t loc_part(pcd_mojo_int v, int shift, bool *bad)
{
    if (v.mag == 0) return -1;
    if (v.neg || v.mag - (uint64_t)shift > INT32_MAX) {
        *bad = true;
        return -1;
    }
    return (int32_t)(v.mag - (uint64_t)shift);
}

/* ==== MOJO -> Tachyon ======================================================================= */

enum { W_MEMORY, W_PROCESSES, W_DEEP, W_NOTIME, W_NEGTIME, W_TID, W_IID, W_LOC, W_MODE, W_META, W_N };

typedef struct m2t {
    const pcd_conv_args *a;
    mojo_asm *as;
    pcd_tachyon_writer tw;
    bool open;
    pcd_status wst;                  /* the first output error */
    /* from the metadata */
    int mode;                        /* 0 wall, 1 cpu, 2 memory, 3 full, -1 none or other */
    uint64_t interval;
    bool have_interval;
    uint8_t python[3];
    /* threads: (tid, interp) -> timestamp; tid string id -> Tachyon tid (synthetic ones) */
    pcd_hmap ts;
    pcd_hmap tids;
    uint64_t next_synthetic;
    pcd_hmap pids;                   /* distinct pids */
    /* MOJO frame id -> Tachyon frame index + 1; kernel symbols and string refs by string id */
    uint32_t *fmap;
    size_t fmap_cap;
    pcd_hmap special;
    uint32_t gc_frame, invalid_frame; /* + 1 */
    bool any_gc;
    uint32_t *ids;                   /* a sample's frame indexes, innermost first */
    size_t ids_cap;
    uint64_t warn[W_N];
} m2t;

static uint8_t py_part(const uint8_t *p, size_t n)
{
    uint64_t v;
    return dec_u64(p, n, &v) && v <= 255 ? (uint8_t)v : 0;
}

static void m2t_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    m2t *c = ud;
    pcd_bytes k = mojo_str(c->as, key), v = mojo_str(c->as, value);
    if (bytes_is(k, "mode")) {
        c->mode = bytes_is(v, "wall") ? 0 : bytes_is(v, "cpu") ? 1 : bytes_is(v, "memory") ? 2 : bytes_is(v, "full") ? 3 : -1;
        if (c->mode < 0) c->warn[W_MODE]++;
        if (c->open) c->warn[W_META]++;
    } else if (bytes_is(k, "interval")) {
        c->have_interval = dec_u64(v.ptr, v.len, &c->interval);
        if (c->open) c->warn[W_META]++;
    } else if (bytes_is(k, "python")) {
        /* "X.Y.Z" (Z may be "?") */
        size_t i = 0;
        for (int part = 0; part < 3; part++) {
            size_t j = i;
            while (j < v.len && v.ptr[j] != '.') j++;
            c->python[part] = i < v.len ? py_part(v.ptr + i, j - i) : 0;
            i = j + 1;
        }
        if (c->open) c->warn[W_META]++;
    }
}

static pcd_status m2t_open(m2t *c)
{
    pcd_tachyon_writer_opts o;
    memset(&o, 0, sizeof o);
    o.start_time_us = 0;
    o.sample_interval_us = c->have_interval ? c->interval : 100; /* Austin's default */
    memcpy(o.python, c->python, 3);
    o.mode = c->mode == 1 ? 1 : c->mode < 0 ? -1 : 0;
    o.features = FEAT_ALL_THREADS; /* Austin samples every thread; gc is added at the end */
    const char *comp = c->a->compression;
    o.compression = comp && strcmp(comp, "none") == 0 ? PCD_TACHYON_V1_FILE_COMPRESSION_NONE : PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD;
    pcd_status st = pcd_tachyon_writer_open(&c->tw, c->a->out, c->a->al, &o);
    c->open = true;
    return st;
}

/* The Tachyon frame of a synthetic or kernel item (interned once per kind and string). */
static pcd_status special_frame(m2t *c, uint32_t kind, uint32_t sid, uint32_t *out)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->special, (pcd_hkey){ kind, sid, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (!fresh) {
        *out = (uint32_t)sl->v0;
        return PCD_OK;
    }
    pcd_tachyon_wframe f;
    memset(&f, 0, sizeof f);
    f.lineno = f.end_lineno = f.column = f.end_column = -1;
    f.opcode = -1;
    pcd_bytes b = { (const uint8_t *)"", 0 };
    switch (kind) {
    case MOJO_IT_GC: b = (pcd_bytes){ (const uint8_t *)"<GC>", 4 }; break;
    case MOJO_IT_INVALID: b = (pcd_bytes){ (const uint8_t *)":INVALID:", 9 }; break;
    default: b = mojo_str(c->as, sid); break;
    }
    if (kind == MOJO_IT_KERNEL) {
        /* kernel:<symbol>:0, as Austin's text writes it */
        f.filename = (const uint8_t *)"kernel";
        f.filename_len = 6;
        f.lineno = 0;
    } else {
        f.filename = (const uint8_t *)"~";
        f.filename_len = 1;
    }
    f.funcname = b.ptr;
    f.funcname_len = b.len;
    PCD_TRY(pcd_tachyon_writer_intern(&c->tw, &f, out));
    sl->v0 = *out;
    return PCD_OK;
}

static pcd_status frame_of(m2t *c, const mojo_item *it, uint32_t *out)
{
    switch (it->kind) {
    case MOJO_IT_FRAME:
        break;
    case MOJO_IT_GC:
        c->any_gc = true;
        return special_frame(c, it->kind, 0, out);
    case MOJO_IT_INVALID:
        return special_frame(c, it->kind, 0, out);
    default:
        return special_frame(c, it->kind, it->id, out);
    }
    if (it->id >= c->fmap_cap) {
        size_t ncap = c->fmap_cap ? c->fmap_cap : 256;
        while (ncap <= it->id) ncap *= 2;
        uint32_t *nf = realloc(c->fmap, ncap * sizeof *nf);
        if (!nf) return PCD_E_NOMEM;
        memset(nf + c->fmap_cap, 0, (ncap - c->fmap_cap) * sizeof *nf);
        c->fmap = nf;
        c->fmap_cap = ncap;
    }
    if (c->fmap[it->id]) {
        *out = c->fmap[it->id] - 1;
        return PCD_OK;
    }
    const mojo_frame *fr = &c->as->fr[it->id];
    pcd_bytes file = mojo_str(c->as, fr->file), scope = mojo_str(c->as, fr->scope);
    bool bad = false;
    pcd_tachyon_wframe f = { file.ptr, file.len, scope.ptr, scope.len, loc_part(fr->line, 0, &bad),
                      loc_part(fr->line_end, 0, &bad), loc_part(fr->column, 1, &bad), loc_part(fr->column_end, 1, &bad),
                      -1 };
    if (bad) c->warn[W_LOC]++;
    PCD_TRY(pcd_tachyon_writer_intern(&c->tw, &f, out));
    c->fmap[it->id] = *out + 1;
    return PCD_OK;
}

/* The Tachyon thread id of a MOJO thread: Python's int(tid, 16) when it fits a u64 (Austin
 * writes the kernel thread id in hex, CPython records the same number), else a synthetic
 * id from 2^63 on. */
static pcd_status thread_id(m2t *c, uint32_t tid, uint64_t *out)
{
    pcd_bytes t = mojo_tid_text(c->as, tid);
    if (dec_u64(t.ptr, t.len, out)) return PCD_OK;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->tids, (pcd_hkey){ tid, 0, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) {
        sl->v0 = (UINT64_C(1) << 63) + c->next_synthetic++;
        c->warn[W_TID]++;
    }
    *out = sl->v0;
    return PCD_OK;
}

static void m2t_sample(void *ud, const mojo_sample *s)
{
    m2t *c = ud;
    if (c->wst != PCD_OK) return;
    pcd_status st = PCD_OK;
    if (!c->open) st = m2t_open(c);
    uint64_t tid = 0;
    if (st == PCD_OK) st = thread_id(c, s->tid, &tid);
    uint32_t interp = 0;
    if (s->has_iid && (s->iid.neg || s->iid.mag > UINT32_MAX)) c->warn[W_IID]++;
    else if (s->has_iid) interp = (uint32_t)s->iid.mag;
    bool fresh;
    if (st == PCD_OK) {
        pcd_hslot *p = pcd_hmap_put(&c->pids, (pcd_hkey){ s->pid.mag, s->pid.neg && s->pid.mag, 0 }, &fresh);
        if (!p) st = PCD_E_NOMEM;
        else if (fresh && c->pids.len == 2) c->warn[W_PROCESSES]++;
    }
    /* the stack, innermost first (Tachyon keeps the innermost 256 frames) */
    size_t n = s->n_items, d = n < PCD_TACHYON_MAX_DEPTH ? n : PCD_TACHYON_MAX_DEPTH;
    if (n > PCD_TACHYON_MAX_DEPTH) c->warn[W_DEEP]++;
    if (st == PCD_OK && d > c->ids_cap) {
        size_t ncap = d < 64 ? 64 : d;
        uint32_t *ni = realloc(c->ids, ncap * sizeof *ni);
        if (!ni) st = PCD_E_NOMEM;
        else {
            c->ids = ni;
            c->ids_cap = ncap;
        }
    }
    for (size_t i = 0; st == PCD_OK && i < d; i++) st = frame_of(c, &s->items[n - 1 - i], &c->ids[i]);
    /* time: each time metric is the time since the thread's previous sample */
    uint64_t delta = 0;
    if (s->n_time && !s->time.neg) delta = s->time.mag;
    else if (s->n_time) c->warn[W_NEGTIME]++;
    else if (c->mode == 2) delta = c->have_interval ? c->interval : 100;
    else c->warn[W_NOTIME]++;
    if (s->n_memory) c->warn[W_MEMORY]++;
    uint8_t status = c->mode == 1 ? ST_ON_CPU : c->mode == 3 ? (s->idle ? 0 : ST_ON_CPU) : ST_UNKNOWN;
    /* the process's main thread: Austin and CPython both record kernel thread ids, and
     * the main thread's is the process id */
    if (!s->pid.neg && tid == s->pid.mag) status |= ST_MAIN;
    if (st == PCD_OK) {
        pcd_hslot *t = pcd_hmap_put(&c->ts, (pcd_hkey){ tid, interp, 0 }, &fresh);
        if (!t) st = PCD_E_NOMEM;
        else {
            t->v0 += delta; /* wraps as Tachyon's deltas do */
            st = pcd_tachyon_writer_sample_ids(&c->tw, tid, interp, status, t->v0, c->ids, d);
        }
    }
    c->wst = st;
}

static void m2t_warnings(const m2t *c)
{
    FILE *e = c->a->err;
    const char *in = c->a->input_name;
    const uint64_t *w = c->warn;
    if (w[W_MEMORY])
        fprintf(e, "%s: warning: memory metrics of %" PRIu64 " samples dropped (Tachyon has no memory metric)\n", in,
                w[W_MEMORY]);
    if (w[W_PROCESSES])
        fprintf(e,
                "%s: warning: %zu processes written as one (Tachyon has no process id; threads keep their ids, "
                "each process's main thread is flagged)\n",
                in, c->pids.len);
    if (w[W_DEEP])
        fprintf(e, "%s: warning: %" PRIu64 " stacks deeper than 256 frames cut to their innermost 256 (as CPython does)\n",
                in, w[W_DEEP]);
    if (w[W_NOTIME])
        fprintf(e, "%s: warning: %" PRIu64 " samples without a time metric written with the time of the one before\n",
                in, w[W_NOTIME]);
    if (w[W_NEGTIME])
        fprintf(e, "%s: warning: %" PRIu64 " negative time metrics written as 0\n", in, w[W_NEGTIME]);
    if (w[W_TID])
        fprintf(e, "%s: warning: %" PRIu64 " thread ids that are not 64-bit hex numbers given ids from 2^63 on\n", in,
                w[W_TID]);
    if (w[W_IID])
        fprintf(e, "%s: warning: %" PRIu64 " samples with an interpreter id beyond 32 bits written with interpreter 0\n",
                in, w[W_IID]);
    if (w[W_LOC])
        fprintf(e, "%s: warning: %" PRIu64 " frames with lines or columns beyond Tachyon's 32-bit range written without them\n",
                in, w[W_LOC]);
    if (w[W_MODE]) fprintf(e, "%s: warning: an unknown MOJO mode: the profile's mode is not recorded\n", in);
    if (w[W_META])
        fprintf(e, "%s: warning: mode, interval or python metadata after the first sample ignored (the header was written)\n",
                in);
}

int xf_mojo_to_tachyon_run(const pcd_conv_args *a)
{
    if (a->compression && strcmp(a->compression, "zstd") != 0 && strcmp(a->compression, "none") != 0) {
        fprintf(a->err, "profcodec convert: --compression takes zstd or none\n");
        return 2;
    }
    static const mojo_asm_ops ops = { m2t_sample, m2t_meta };
    mojo_asm as;
    m2t c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.as = &as;
    c.mode = -1;
    pcd_hmap_init(&c.ts, a->al);
    pcd_hmap_init(&c.tids, a->al);
    pcd_hmap_init(&c.pids, a->al);
    pcd_hmap_init(&c.special, a->al);
    if (mojo_asm_init(&as, a->al, (int)a->f->version_num, &ops, &c, NULL, NULL) != PCD_OK) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    int rc = mojo_drive_all(a, &as, &c.wst);
    if (c.wst == PCD_OK && !c.open) c.wst = m2t_open(&c); /* no samples: an empty profile */
    if (c.wst == PCD_OK) {
        if (c.any_gc) /* rewritten with the totals */
            c.tw.root.config |= (uint32_t)FEAT_GC << PCD_TACHYON_V1_FILE_CONFIG_FEATURES_SHIFT;
        c.wst = pcd_tachyon_writer_finish(&c.tw);
    }
    if (c.wst != PCD_OK) {
        char msg[512];
        if (c.open && pcd_tachyon_writer_error(&c.tw)->status) pcd_error_format(pcd_tachyon_writer_error(&c.tw), msg, sizeof msg);
        else snprintf(msg, sizeof msg, "%s", pcd_status_name(c.wst));
        fprintf(a->err, "%s: cannot write the Tachyon output: %s\n", a->input_name,
                c.wst == PCD_E_NOMEM ? "out of memory (raise --max-memory)" : msg);
        rc = 2;
    } else if (rc != 2) {
        mojo_warn_problems(a, &as);
        m2t_warnings(&c);
    }
    if (c.open) pcd_tachyon_writer_close(&c.tw);
    free(c.fmap);
    free(c.ids);
    pcd_hmap_free(&c.ts);
    pcd_hmap_free(&c.tids);
    pcd_hmap_free(&c.pids);
    pcd_hmap_free(&c.special);
    mojo_asm_free(&as);
    return rc;
}

/* ==== Tachyon -> MOJO ======================================================================= */

enum { T_STATUS, T_OPCODE, T_MODE, T_STATS, T_NUL, T_N };

typedef struct t2m {
    const pcd_conv_args *a;
    pcd_writer w;
    pcd_status wst;
    const pcd_tachyon_tables *t;
    pcd_tachyon_replay rp;
    /* pass 1: which threads are flagged main (their tid is their process's id) */
    uint8_t *is_main;                /* by thread index */
    uint32_t main_cap;
    uint64_t first_main;
    bool have_main;
    /* pass 2 */
    uint64_t *prev_ts;               /* by thread index; UINT64_MAX + 1 trick avoided: a flag */
    uint8_t *seen;
    uint32_t prev_cap;
    uint64_t start;
    pcd_hmap defined;                /* (pid, 0 string | 1 frame, index) */
    uint8_t *clean;                  /* a string's bytes without NUL (scratch) */
    size_t clean_cap;
    uint64_t warn[T_N];
} t2m;

static bool grow_thread_arrays(t2m *c, uint32_t idx)
{
    if (idx < c->prev_cap) return true;
    uint32_t ncap = c->prev_cap ? c->prev_cap : 16;
    while (ncap <= idx) ncap *= 2;
    uint64_t *p = realloc(c->prev_ts, ncap * sizeof *p);
    if (!p) return false;
    c->prev_ts = p;
    uint8_t *s = realloc(c->seen, ncap);
    if (!s) return false;
    c->seen = s;
    memset(c->seen + c->prev_cap, 0, ncap - c->prev_cap);
    c->prev_cap = ncap;
    return true;
}

static void t2m_scan(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    (void)node;
    (void)ts;
    t2m *c = ud;
    if (!(status & ST_MAIN) || c->wst != PCD_OK) return;
    if (th->index >= c->main_cap) {
        uint32_t ncap = c->main_cap ? c->main_cap : 16;
        while (ncap <= th->index) ncap *= 2;
        uint8_t *m = realloc(c->is_main, ncap);
        if (!m) {
            c->wst = PCD_E_NOMEM;
            return;
        }
        memset(m + c->main_cap, 0, ncap - c->main_cap);
        c->is_main = m;
        c->main_cap = ncap;
    }
    c->is_main[th->index] = 1;
    if (!c->have_main) {
        c->have_main = true;
        c->first_main = th->tid;
    }
}

static pcd_mojo_int MI(uint64_t v) { return (pcd_mojo_int){ v, false }; }

static pcd_status put_ev(t2m *c, const pcd_mojo_v3_event *ev)
{
    return pcd_writer_record(&c->w, &pcd_mojo_v3_region_events, ev);
}

static pcd_status put_meta(t2m *c, const char *k, const char *v)
{
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V3_EVENT_METADATA;
    ev.tag = PCD_MOJO_V3_EVENT_METADATA_TAG;
    ev.u.metadata.key = (pcd_bytes){ (const uint8_t *)k, strlen(k) };
    ev.u.metadata.value = (pcd_bytes){ (const uint8_t *)v, strlen(v) };
    return put_ev(c, &ev);
}

static pcd_status put_simple(t2m *c, uint32_t which, uint64_t tag)
{
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = which;
    ev.tag = tag;
    return put_ev(c, &ev);
}

/* Defines string idx (key idx + 2: key 1 is <unknown>) in process pid if it is new there. */
static pcd_status define_string(t2m *c, uint64_t pid, uint32_t idx)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->defined, (pcd_hkey){ pid, 0, idx }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (!fresh) return PCD_OK;
    pcd_bytes b = c->t->strings[idx];
    /* MOJO strings end at a NUL byte: one inside becomes U+FFFD */
    if (memchr(b.ptr, 0, b.len)) {
        c->warn[T_NUL]++;
        if (b.len * 3 > c->clean_cap) {
            uint8_t *q = realloc(c->clean, b.len * 3);
            if (!q) return PCD_E_NOMEM;
            c->clean = q;
            c->clean_cap = b.len * 3;
        }
        size_t o = 0;
        for (size_t i = 0; i < b.len; i++) {
            if (b.ptr[i]) c->clean[o++] = b.ptr[i];
            else {
                memcpy(c->clean + o, "\xEF\xBF\xBD", 3);
                o += 3;
            }
        }
        b = (pcd_bytes){ c->clean, o };
    }
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V3_EVENT_STRING;
    ev.tag = PCD_MOJO_V3_EVENT_STRING_TAG;
    ev.u.string.key = MI((uint64_t)idx + 2);
    ev.u.string.value = b;
    return put_ev(c, &ev);
}

/* What a Tachyon frame becomes in MOJO. */
enum { K_FRAME, K_GC, K_INVALID, K_KERNEL };

static int frame_kind(const t2m *c, const pcd_tachyon_v1_frame *fr)
{
    pcd_bytes file = c->t->strings[fr->filename], func = c->t->strings[fr->funcname];
    if (bytes_is(file, "~") && fr->lineno == -1) {
        if (bytes_is(func, "<GC>")) return K_GC;
        if (bytes_is(func, ":INVALID:")) return K_INVALID;
    }
    if (bytes_is(file, "kernel") && fr->lineno == 0) return K_KERNEL;
    return K_FRAME;
}

/* A Tachyon location part to MOJO (-1: none -> 0; columns 1-based in MOJO). */
static pcd_mojo_int mojo_loc(int32_t v, int shift) { return v < 0 ? MI(0) : MI((uint64_t)v + (uint64_t)shift); }

static pcd_status define_frame(t2m *c, uint64_t pid, uint32_t f)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->defined, (pcd_hkey){ pid, 1, f }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (!fresh) return PCD_OK;
    const pcd_tachyon_v1_frame *fr = &c->t->frames[f];
    PCD_TRY(define_string(c, pid, fr->filename));
    PCD_TRY(define_string(c, pid, fr->funcname));
    pcd_tachyon_loc l = pcd_tachyon_frame_loc(fr);
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V3_EVENT_FRAME;
    ev.tag = PCD_MOJO_V3_EVENT_FRAME_TAG;
    ev.u.frame.key = MI(f);
    ev.u.frame.filename = MI((uint64_t)fr->filename + 2);
    ev.u.frame.scope = MI((uint64_t)fr->funcname + 2);
    ev.u.frame.line = mojo_loc(l.lineno, 0);
    ev.u.frame.line_end = mojo_loc(l.end_lineno, 0);
    ev.u.frame.column = mojo_loc(l.column, 1);
    ev.u.frame.column_end = mojo_loc(l.end_column, 1);
    return put_ev(c, &ev);
}

static pcd_status t2m_sample_st(t2m *c, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    uint32_t frames[PCD_TACHYON_MAX_DEPTH];
    uint32_t d = pcd_tachyon_replay_stack_inner(&c->rp, node, frames); /* innermost first */
    for (uint32_t i = 0; i < d; i++) {
        if (frames[i] >= c->t->n_frames) return PCD_E_INVALID;
        const pcd_tachyon_v1_frame *fr = &c->t->frames[frames[i]];
        if (fr->filename >= c->t->n_strings || fr->funcname >= c->t->n_strings) return PCD_E_INVALID;
    }
    if (!grow_thread_arrays(c, th->index)) return PCD_E_NOMEM;
    if (status & ~ST_MAIN) c->warn[T_STATUS]++;
    /* the process: a main thread's id is its process's; other threads belong to the first
     * main thread's process (one process per Tachyon profile), or to process 0 */
    bool main = th->index < c->main_cap && c->is_main[th->index];
    uint64_t pid = main ? th->tid : c->have_main ? c->first_main : 0;
    char tid[24];
    snprintf(tid, sizeof tid, "%" PRIx64, th->tid);
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V3_EVENT_STACK;
    ev.tag = PCD_MOJO_V3_EVENT_STACK_TAG;
    ev.u.stack.pid = MI(pid);
    ev.u.stack.iid = MI(th->interp);
    ev.u.stack.tid = (pcd_bytes){ (const uint8_t *)tid, strlen(tid) };
    PCD_TRY(put_ev(c, &ev));
    /* definitions, innermost first as Austin makes them, then the references outermost first */
    for (uint32_t i = 0; i < d; i++)
        if (frame_kind(c, &c->t->frames[frames[i]]) == K_FRAME) PCD_TRY(define_frame(c, pid, frames[i]));
    for (uint32_t i = d; i-- > 0;) {
        const pcd_tachyon_v1_frame *fr = &c->t->frames[frames[i]];
        if (fr->opcode != PCD_TACHYON_V1_FRAME_OPCODE_ABSENT) c->warn[T_OPCODE]++;
        memset(&ev, 0, sizeof ev);
        switch (frame_kind(c, fr)) {
        case K_GC: PCD_TRY(put_simple(c, PCD_MOJO_V3_EVENT_GC, PCD_MOJO_V3_EVENT_GC_TAG)); break;
        case K_INVALID: PCD_TRY(put_simple(c, PCD_MOJO_V3_EVENT_INVALID, PCD_MOJO_V3_EVENT_INVALID_TAG)); break;
        case K_KERNEL:
            ev.which = PCD_MOJO_V3_EVENT_KERNEL;
            ev.tag = PCD_MOJO_V3_EVENT_KERNEL_TAG;
            ev.u.kernel.symbol = c->t->strings[fr->funcname];
            if (memchr(ev.u.kernel.symbol.ptr, 0, ev.u.kernel.symbol.len)) {
                c->warn[T_NUL]++;
                ev.u.kernel.symbol.len = (size_t)((const uint8_t *)memchr(ev.u.kernel.symbol.ptr, 0, ev.u.kernel.symbol.len) -
                                                  ev.u.kernel.symbol.ptr);
            }
            PCD_TRY(put_ev(c, &ev));
            break;
        default:
            ev.which = PCD_MOJO_V3_EVENT_FRAME_REF;
            ev.tag = PCD_MOJO_V3_EVENT_FRAME_REF_TAG;
            ev.u.frame_ref.key = MI(frames[i]);
            PCD_TRY(put_ev(c, &ev));
        }
    }
    /* the time metric: the time since the thread's previous sample (its first: since the
     * header's start time), which is Tachyon's own timestamp delta */
    uint64_t prev = c->seen[th->index] ? c->prev_ts[th->index] : c->start;
    c->seen[th->index] = 1;
    c->prev_ts[th->index] = ts;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V3_EVENT_TIME;
    ev.tag = PCD_MOJO_V3_EVENT_TIME_TAG;
    ev.u.time.value = MI(ts - prev);
    return put_ev(c, &ev);
}

static void t2m_sample(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    t2m *c = ud;
    if (c->wst == PCD_OK) c->wst = t2m_sample_st(c, th, node, ts, status);
}

static void t2m_warnings(const t2m *c, const pcd_tachyon_v1_file *h, int mode)
{
    FILE *e = c->a->err;
    const char *in = c->a->input_name;
    if (c->warn[T_STATUS])
        fprintf(e,
                "%s: warning: thread statuses (GIL, on-CPU, exception...) of %" PRIu64
                " samples dropped (MOJO has no such field)\n",
                in, c->warn[T_STATUS]);
    if (c->warn[T_OPCODE])
        fprintf(e, "%s: warning: opcodes of %" PRIu64 " frame references dropped (MOJO frames have none)\n", in,
                c->warn[T_OPCODE]);
    if (c->warn[T_MODE])
        fprintf(e, "%s: warning: Tachyon mode %s written as MOJO mode wall (MOJO has wall, cpu, memory and full)\n", in,
                mode >= 0 ? pcd_tachyon_mode_names[mode] : "unknown");
    if (c->warn[T_STATS])
        fprintf(e,
                "%s: warning: the statistics block dropped but for its duration (MOJO's duration metadata): sample rate, "
                "error rate, missed samples\n",
                in);
    if (c->warn[T_NUL]) fprintf(e, "%s: warning: %" PRIu64 " strings with NUL bytes (U+FFFD in MOJO)\n", in, c->warn[T_NUL]);
    (void)h;
}

int xf_tachyon_to_mojo_run(const pcd_conv_args *a)
{
    t2m c;
    memset(&c, 0, sizeof c);
    c.a = a;
    pcd_hmap_init(&c.defined, a->al);
    pcd_tachyon_v1_file root;
    pcd_tachyon_tables t;
    pcd_tachyon_tables_init(&t, a->al);
    c.t = &t;
    pcd_reader r2;
    bool r2_open = false, w_open = false;
    pcd_record next;
    bool have_next;
    int rc = pcd_tachyon_conv_root(a, a->r, &root);
    if (!rc) rc = pcd_tachyon_conv_tables(a, a->r, &t);
    if (rc) goto out;
    c.start = root.start_time_us;
    /* pass 1: the main threads (a status bit CPython sets) */
    if (pcd_tachyon_replay_init(&c.rp, &root, a->al, false, false) != PCD_OK) {
        fprintf(a->err, "%s: out of memory (raise --max-memory)\n", a->input_name);
        rc = 2;
        goto out;
    }
    c.rp.on_sample = t2m_scan;
    c.rp.ud = &c;
    rc = pcd_tachyon_conv_open_samples(a, &r2, &r2_open);
    /* damage stops this pass quietly: pass 2 reports it, after writing what came before */
    while (!rc && c.wst == PCD_OK) {
        if (pcd_reader_next(&r2, &next) != PCD_OK) break;
        const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(&next);
        if (!s || pcd_tachyon_replay_record(&c.rp, s, &next) != PCD_OK) break;
    }
    pcd_tachyon_replay_free(&c.rp);
    memset(&c.rp, 0, sizeof c.rp);
    if (r2_open) pcd_reader_close(&r2);
    r2_open = false;
    if (rc) goto out;
    if (c.wst != PCD_OK) {
        fprintf(a->err, "%s: out of memory (raise --max-memory)\n", a->input_name);
        rc = 2;
        goto out;
    }
    /* pass 2: the events */
    int mode = pcd_tachyon_config_mode(root.config);
    pcd_writer_open(&c.w, &pcd_mojo_v3_format, a->out, a->al);
    w_open = true;
    pcd_mojo_v3_file mroot;
    memset(&mroot, 0, sizeof mroot);
    mroot.version = MI(3);
    char buf[64];
    c.wst = pcd_writer_root(&c.w, &mroot);
    /* the header metadata, in Austin's order */
    if (c.wst == PCD_OK) c.wst = put_meta(&c, "austin", "3.7.0");
    snprintf(buf, sizeof buf, "%" PRIu64, root.sample_interval_us);
    if (c.wst == PCD_OK) c.wst = put_meta(&c, "interval", buf);
    if (mode > 1) c.warn[T_MODE]++;
    if (c.wst == PCD_OK) c.wst = put_meta(&c, "mode", mode == 1 ? "cpu" : "wall");
    if (root.python_version.major || root.python_version.minor || root.python_version.micro) {
        snprintf(buf, sizeof buf, "%u.%u.%u", root.python_version.major, root.python_version.minor,
                 root.python_version.micro);
        if (c.wst == PCD_OK) c.wst = put_meta(&c, "python", buf);
    }
    if (c.wst == PCD_OK && pcd_tachyon_replay_init(&c.rp, &root, a->al, true, false) != PCD_OK) c.wst = PCD_E_NOMEM;
    c.rp.on_sample = t2m_sample;
    c.rp.ud = &c;
    if (c.wst == PCD_OK) rc = pcd_tachyon_conv_open_samples(a, &r2, &r2_open);
    if (c.wst == PCD_OK && !rc) rc = pcd_tachyon_conv_replay(a, &r2, &c.rp, &next, &have_next);
    /* the footer: the run's duration, as Austin writes it */
    bool stats = t.have_stats && root.stats_version == 1;
    if (c.wst == PCD_OK && !rc && stats) {
        double us = t.stats.duration_sec * 1e6;
        if (us >= 0 && us < 1.8e19) {
            snprintf(buf, sizeof buf, "%" PRIu64, (uint64_t)(us + 0.5));
            c.wst = put_meta(&c, "duration", buf);
        }
        c.warn[T_STATS]++;
    }
    if (c.wst == PCD_OK) c.wst = pcd_writer_finish(&c.w);
    if (c.wst == PCD_E_INVALID) {
        fprintf(a->err, "%s: a sample refers to a frame or string beyond the tables (profcodec validate shows where)\n",
                a->input_name);
        rc = 1;
    } else if (c.wst == PCD_E_NOMEM) {
        fprintf(a->err, "%s: out of memory (raise --max-memory)\n", a->input_name);
        rc = 2;
    } else if (c.wst != PCD_OK) {
        char msg[512];
        pcd_error_format(pcd_writer_error(&c.w), msg, sizeof msg);
        fprintf(a->err, "%s: cannot write the MOJO output: %s\n", a->input_name, msg);
        rc = 2;
    } else {
        t2m_warnings(&c, &root, mode);
    }
out:
    if (r2_open) pcd_reader_close(&r2);
    if (w_open) pcd_writer_close(&c.w);
    pcd_tachyon_replay_free(&c.rp);
    pcd_tachyon_tables_free(&t);
    pcd_hmap_free(&c.defined);
    free(c.is_main);
    free(c.prev_ts);
    free(c.seen);
    free(c.clean);
    return rc;
}
