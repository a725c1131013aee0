/* formats/tachyon/samples_import.c: `encode --from samples`: Tachyon from the per-sample text that
 * `convert --to samples` writes (the text of CPython's reader, see samples.c): an importer on
 * the model, whose profile outputs/tachyon.c writes (CPython's writer rules, writers/tachyon.c).
 * What the text carries that other sources do not goes into the model's places for it: each
 * frame's opcode (pcd_frame.instr), and the header and statistics (pcd_profile.capture).
 *
 *   # info KEY=VALUE     header values (start_time_us, sample_interval_us, python_version,
 *                        mode, capture_config, compression_type, and the statistics)
 *   S tid interp status timestamp_us ids...   frame ids innermost first, or "=" (the same
 *                        stack as that thread's previous sample)
 *   F id lineno end_lineno col end_col opcode 'filename' 'funcname'   (Python reprs)
 *
 * F lines may come before or after the S lines that use them. Samples are written in time
 * order: the text's order when its timestamps never decrease, else sorted by timestamp, the
 * threads of one timestamp in the order the text shows for them (see "order" below), which
 * gives back the order in which CPython received them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/tachyon/tachyon.h"
#include "common/hash.h"
#include "common/lines.h"
#include "model/profile.h"
#include "writers/tachyon.h"

typedef struct imp_frame {
    pcd_frame_id id;                 /* the model's frame */
    bool defined;
} imp_frame;

typedef struct imp {
    pcd_import_args *a;
    pcd_alloc *al;
    pcd_profile *p;
    pcd_tachyon_writer_opts o;       /* the header as the text gives it (into p->capture) */
    bool have_start, have_interval, have_duration, have_rate;
    imp_frame *fr;
    uint32_t n_fr, fr_cap;
    uint64_t line;
    char err[1024];
    /* per thread: its last stack (for "=") */
    struct imp_th {
        uint64_t tid;
        uint32_t interp;
        pcd_thread_id mt;            /* the model's thread */
        pcd_stack_id stack;          /* its last stack */
    } *th;
    uint32_t n_th, th_cap;
} imp;

static int bad(imp *m, const char *fmt, const char *detail)
{
    snprintf(m->err, sizeof m->err, fmt, detail ? detail : "");
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": %s", m->a->input_name, m->line, m->err);
    return 1;
}

/* Out of memory (over --max-memory): rc 2. */
static int nomem(imp *m)
{
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": out of memory (raise --max-memory)", m->a->input_name,
             m->line);
    return 2;
}

/* ---- Python reprs ------------------------------------------------------------------------- */

static size_t put_utf8(uint8_t *o, uint32_t c)
{
    if (c < 0x80) { o[0] = (uint8_t)c; return 1; }
    if (c < 0x800) { o[0] = (uint8_t)(0xC0 | c >> 6); o[1] = (uint8_t)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        o[0] = (uint8_t)(0xE0 | c >> 12);
        o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | c >> 18);
    o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

/* Parses a repr at *pp; the bytes (UTF-8) go to a new buffer of *ocap bytes (from al). 0: done;
 * 1: not a repr; 2: out of memory. */
static int parse_repr(pcd_alloc *al, const char **pp, uint8_t **out, size_t *len, size_t *ocap)
{
    const char *p = *pp;
    char q = *p;
    if (q != '\'' && q != '"') return 1;
    p++;
    size_t cap = strlen(p) + 1;
    uint8_t *o = pcd_alloc_get(al, cap * 4 + 1);
    if (!o) return 2;
    size_t n = 0;
    for (;;) {
        char c = *p;
        if (!c) goto fail;
        if (c == q) {
            p++;
            break;
        }
        if (c != '\\') {
            o[n++] = (uint8_t)c;
            p++;
            continue;
        }
        p++;
        char e = *p++;
        uint32_t v = 0;
        int digits = 0;
        switch (e) {
        case '\\': case '\'': case '"': o[n++] = (uint8_t)e; continue;
        case 't': o[n++] = '\t'; continue;
        case 'n': o[n++] = '\n'; continue;
        case 'r': o[n++] = '\r'; continue;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default: goto fail;
        }
        for (int i = 0; i < digits; i++) {
            char h = *p++;
            int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0) goto fail;
            v = v << 4 | (uint32_t)d;
        }
        if (v > 0x10FFFF) goto fail;
        n += put_utf8(o + n, v);
    }
    *pp = p;
    *out = o;
    *len = n;
    *ocap = cap * 4 + 1;
    return 0;
fail:
    pcd_alloc_free(al, o, cap * 4 + 1);
    return 1;
}

/* ---- lines -------------------------------------------------------------------------------- */

static bool next_u64(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9') return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno) return false;
    *v = x;
    *pp = end;
    return true;
}

static bool next_i64(const char **pp, int64_t *v)
{
    const char *p = *pp;
    while (*p == ' ') p++;
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (end == p || errno) return false;
    *v = x;
    *pp = end;
    return true;
}

static bool parse_double(const char *s, double *v, bool *none)
{
    *none = strcmp(s, "None") == 0;
    if (*none) return true;
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == 0;
}

static int info_line(imp *m, const char *line)
{
    const char *eq = strchr(line, '=');
    if (!eq) return bad(m, "an info line without '='%s", NULL);
    char k[64];
    size_t kl = (size_t)(eq - line);
    if (kl >= sizeof k) return 0; /* no key of ours is that long */
    memcpy(k, line, kl);
    k[kl] = 0;
    const char *v = eq + 1;
    bool none = false;
    double d = 0;
    pcd_tachyon_writer_opts *o = &m->o;
    if (strcmp(k, "start_time_us") == 0) {
        const char *p = v;
        if (!next_u64(&p, &o->start_time_us)) return bad(m, "start_time_us is not a number%s", NULL);
        m->have_start = true;
    } else if (strcmp(k, "sample_interval_us") == 0) {
        const char *p = v;
        if (!next_u64(&p, &o->sample_interval_us)) return bad(m, "sample_interval_us is not a number%s", NULL);
        m->have_interval = true;
    } else if (strcmp(k, "compression_type") == 0) {
        const char *p = v;
        uint64_t c;
        if (!next_u64(&p, &c) || c > UINT32_MAX) return bad(m, "compression_type is not a number%s", NULL);
        o->compression = (uint32_t)c;
    } else if (strcmp(k, "mode") == 0) {
        if (strcmp(v, "None") == 0) o->mode = -1;
        else {
            const char *p = v;
            uint64_t x;
            if (!next_u64(&p, &x) || x > 4) return bad(m, "mode is not 0..4 or None%s", NULL);
            o->mode = (int)x;
        }
    } else if (strcmp(k, "python_version") == 0) {
        unsigned a, b, c;
        if (sscanf(v, "(%u, %u, %u)", &a, &b, &c) != 3 || a > 255 || b > 255 || c > 255)
            return bad(m, "python_version is not (major, minor, micro)%s", NULL);
        o->python[0] = (uint8_t)a;
        o->python[1] = (uint8_t)b;
        o->python[2] = (uint8_t)c;
    } else if (strcmp(k, "capture_config") == 0) {
        if (strcmp(v, "None") == 0) o->features = -1;
        else {
            o->features = 0;
            for (int i = 0; i < 5; i++) {
                char key[40];
                snprintf(key, sizeof key, "'%s': True", pcd_tachyon_feature_names[i]);
                if (strstr(v, key)) o->features |= 1 << i;
            }
        }
    } else if (strcmp(k, "duration_sec") == 0 || strcmp(k, "sample_rate") == 0 || strcmp(k, "error_rate") == 0 ||
               strcmp(k, "missed_samples") == 0) {
        if (!parse_double(v, &d, &none)) return bad(m, "%s is not a number or None", k);
        if (k[0] == 'd') {
            m->have_duration = !none;
            o->duration_sec = d;
        } else if (k[1] == 'a') {
            m->have_rate = !none;
            o->sample_rate = d;
        } else if (k[0] == 'e') {
            if (!none) o->stats_present |= PCD_TACHYON_V1_STATS_PRESENT_ERROR_RATE_MASK;
            o->error_rate = none ? 0 : d;
        } else {
            if (!none) o->stats_present |= PCD_TACHYON_V1_STATS_PRESENT_MISSED_SAMPLES_MASK;
            o->missed_samples = none ? 0 : d;
        }
    }
    /* the counts (sample_count, thread_count, string_count, frame_count) and version are
     * computed by the writer */
    return 0;
}

static int frame_line(imp *m, const char *line)
{
    const char *p = line + 2;
    uint64_t id;
    int64_t v[5];
    if (!next_u64(&p, &id) || id >= (UINT64_C(1) << 28)) return bad(m, "a frame id below 2^28%s", NULL);
    for (int i = 0; i < 5; i++)
        if (!next_i64(&p, &v[i]) || v[i] < INT32_MIN || v[i] > INT32_MAX) return bad(m, "a number%s", NULL);
    while (*p == ' ') p++;
    uint8_t *file, *func;
    size_t fl, gl, fc, gc;
    int r = parse_repr(m->al, &p, &file, &fl, &fc);
    if (r) return r == 2 ? nomem(m) : bad(m, "a quoted file name%s", NULL);
    while (*p == ' ') p++;
    r = parse_repr(m->al, &p, &func, &gl, &gc);
    if (r) {
        pcd_alloc_free(m->al, file, fc);
        return r == 2 ? nomem(m) : bad(m, "a quoted function name%s", NULL);
    }
    if (id >= m->fr_cap) {
        uint32_t ncap = m->fr_cap ? m->fr_cap : 64;
        while (ncap <= id) ncap *= 2;
        imp_frame *nf = pcd_alloc_resize(m->al, m->fr, m->fr_cap * sizeof *nf, ncap * sizeof *nf);
        if (!nf) {
            pcd_alloc_free(m->al, file, fc);
            pcd_alloc_free(m->al, func, gc);
            return nomem(m);
        }
        memset(nf + m->fr_cap, 0, (ncap - m->fr_cap) * sizeof *nf);
        m->fr = nf;
        m->fr_cap = ncap;
    }
    imp_frame *f = &m->fr[id];
    if (f->defined) {
        pcd_alloc_free(m->al, file, fc);
        pcd_alloc_free(m->al, func, gc);
        return bad(m, "frame %s is defined twice", NULL);
    }
    /* the model's frame: positions as outputs/tachyon.c writes them back (-1 none; columns
     * 1-based in the model), the opcode when it is one CPython writes */
    pcd_profile *pr = m->p;
    pcd_frame mf = pcd_frame_blank(PCD_FRAME_CODE);
    mf.file = pcd_profile_str(pr, file, fl);
    mf.function = pcd_profile_str(pr, func, gl);
    pcd_alloc_free(m->al, file, fc);
    pcd_alloc_free(m->al, func, gc);
    if (v[0] != -1) mf.line = v[0];
    if (v[1] != -1) mf.end_line = v[1];
    if (v[2] != -1) mf.column = v[2] + 1;
    if (v[3] != -1) mf.end_column = v[3] + 1;
    if (v[4] >= 0 && v[4] <= PCD_TACHYON_MAX_REAL_OPCODE) mf.instr = (uint32_t)v[4] + 1;
    if (!pr->oom) f->id = pcd_profile_frame(pr, &mf);
    if (pr->oom) return nomem(m);
    f->defined = true;
    if (id >= m->n_fr) m->n_fr = (uint32_t)id + 1;
    return 0;
}

/* An S line: its thread, status, time and stack (ids, or the thread's previous). */
typedef struct s_line {
    uint64_t tid, ts;
    uint32_t interp;
    uint8_t status;
    const char *rest;
} s_line;

static int parse_s(imp *m, const char *line, s_line *s)
{
    const char *p = line + 2;
    uint64_t interp, status;
    if (!next_u64(&p, &s->tid) || !next_u64(&p, &interp) || !next_u64(&p, &status) || !next_u64(&p, &s->ts) ||
        interp > UINT32_MAX || status > 255)
        return bad(m, "S tid interp status timestamp frames...%s", NULL);
    s->interp = (uint32_t)interp;
    s->status = (uint8_t)status;
    if (*p == ' ') p++;
    s->rest = p;
    return 0;
}

static int write_sample(imp *m, const s_line *s)
{
    pcd_profile *p = m->p;
    struct imp_th *t = NULL;
    for (uint32_t i = m->n_th; i-- > 0;)
        if (m->th[i].tid == s->tid && m->th[i].interp == s->interp) {
            t = &m->th[i];
            break;
        }
    if (!t) {
        if (m->n_th == m->th_cap) {
            uint32_t ncap = m->th_cap ? m->th_cap * 2 : 16;
            struct imp_th *nt = pcd_alloc_resize(m->al, m->th, m->th_cap * sizeof *nt, ncap * sizeof *nt);
            if (!nt) return nomem(m);
            m->th = nt;
            m->th_cap = ncap;
        }
        pcd_thread th = pcd_thread_blank();
        th.tid = s->tid;
        th.has_tid = true;
        th.iid = s->interp;
        pcd_thread_id mt = pcd_profile_thread(p, &th);
        if (p->oom) return nomem(m);
        t = &m->th[m->n_th++];
        t->tid = s->tid;
        t->interp = s->interp;
        t->mt = mt;
        t->stack = PCD_STACK_EMPTY;
    }
    const char *q = s->rest;
    while (*q == ' ') q++;
    if (*q == '=') {
        /* the thread's previous stack */
    } else {
        /* frame ids innermost first: the stack is pushed outermost first */
        uint32_t ids[PCD_TACHYON_MAX_DEPTH], n = 0;
        uint64_t id;
        while (next_u64(&q, &id)) {
            if (n == PCD_TACHYON_MAX_DEPTH) return bad(m, "a stack deeper than 256 frames%s", NULL);
            if (id >= m->n_fr || !m->fr[id].defined) {
                char num[32];
                snprintf(num, sizeof num, "%" PRIu64, id);
                return bad(m, "frame %s has no F line", num);
            }
            ids[n++] = m->fr[id].id;
        }
        while (*q == ' ' || *q == '\n' || *q == '\r') q++;
        if (*q) return bad(m, "frame ids or '='%s", NULL);
        pcd_stack_id st = PCD_STACK_EMPTY;
        for (uint32_t i = n; i-- > 0;) st = pcd_profile_push(p, st, ids[i]);
        if (p->oom) return nomem(m);
        t->stack = st;
    }
    /* one sample, with its time (ns) and CPython's status bits: the output writes it as CPython
     * does, interning its new frames innermost first as it comes (CPython's table order) */
    static const uint64_t one[1] = { 1 };
    pcd_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.thread = t->mt;
    smp.stack = t->stack;
    smp.time = (int64_t)((s->ts - m->p->capture.time_base_us) * 1000); /* checked in pass 1 */
    smp.count = 1;
    smp.values = one;
    smp.flags = PCD_SAMPLE_HAS(0) | pcd_tachyon_state_flags((uint8_t)s->status);
    smp.status = s->status;
    smp.offset = m->line;
    pcd_status st = pcd_profile_sample(p, &smp);
    if (st == PCD_E_NOMEM) return nomem(m);
    if (st != PCD_OK) return bad(m, "cannot encode this sample: %s", pcd_status_name(st));
    return 0;
}

typedef struct s_ref {
    uint64_t ts;
    uint32_t rank;                   /* the thread's place within one capture */
    uint64_t seq;
    uint64_t pos;                    /* where the line starts in the input */
    uint64_t lineno;
} s_ref;

static int ref_cmp(const void *x, const void *y)
{
    const s_ref *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- the order of threads within a capture ------------------------------------------------
 * CPython gives every thread of one capture the same timestamp, and writes a thread's
 * record at once unless the stack repeats (REPEAT samples wait in a buffer). The samples
 * whose stack changed ("=" marks the others) therefore show, per timestamp, the order the
 * threads came in; that order is the same in every capture, so it ranks the threads. */
typedef struct order {
    pcd_alloc *al;
    uint64_t *tid;
    uint32_t *interp;
    uint32_t n, cap;
    uint8_t *before;                 /* n x n: before[a * cap + b] = a came before b */
    /* timestamp -> last thread with a changed stack there: a private table, 12 bytes a slot,
     * in a table that grows with the samples. Measured (issue 23) through common/hmap.c
     * instead, encode --from samples of a 53 MB text (bench/tachyon-data.bash's, 10 copies):
     * 5,058,323,606 -> 5,087,204,260 instructions (+0.57 %, callgrind), peak RSS 59.4 -> 68.7 MB */
    uint64_t *ts_key;
    uint32_t *ts_val;                /* thread + 1 */
    size_t ts_cap, ts_len;
    bool nomem;
} order;

static uint32_t order_thread(order *o, uint64_t tid, uint32_t interp)
{
    for (uint32_t i = o->n; i-- > 0;)
        if (o->tid[i] == tid && o->interp[i] == interp) return i;
    if (o->n == o->cap) {
        uint32_t ncap = o->cap ? o->cap * 2 : 16;
        uint64_t *nt = pcd_alloc_get(o->al, ncap * sizeof *nt);
        uint32_t *ni = pcd_alloc_get(o->al, ncap * sizeof *ni);
        uint8_t *nb = pcd_alloc_get(o->al, (size_t)ncap * ncap);
        if (!nt || !ni || !nb) {
            pcd_alloc_free(o->al, nt, ncap * sizeof *nt);
            pcd_alloc_free(o->al, ni, ncap * sizeof *ni);
            pcd_alloc_free(o->al, nb, (size_t)ncap * ncap);
            o->nomem = true;
            return UINT32_MAX;
        }
        memset(nb, 0, (size_t)ncap * ncap);
        if (o->n) {
            memcpy(nt, o->tid, o->n * sizeof *nt);
            memcpy(ni, o->interp, o->n * sizeof *ni);
        }
        for (uint32_t a = 0; a < o->n; a++)
            for (uint32_t b = 0; b < o->n; b++) nb[a * ncap + b] = o->before[a * o->cap + b];
        pcd_alloc_free(o->al, o->tid, o->cap * sizeof *o->tid);
        pcd_alloc_free(o->al, o->interp, o->cap * sizeof *o->interp);
        pcd_alloc_free(o->al, o->before, (size_t)o->cap * o->cap);
        o->tid = nt;
        o->interp = ni;
        o->before = nb;
        o->cap = ncap;
    }
    o->tid[o->n] = tid;
    o->interp[o->n] = interp;
    return o->n++;
}


static void order_note(order *o, uint32_t th, uint64_t ts)
{
    if (th == UINT32_MAX || o->nomem) return;
    if ((o->ts_len + 1) * 10 > o->ts_cap * 7) {
        size_t ncap = o->ts_cap ? o->ts_cap * 2 : 1024;
        uint64_t *nk = pcd_alloc_get(o->al, ncap * sizeof *nk);
        uint32_t *nv = pcd_alloc_get(o->al, ncap * sizeof *nv);
        if (!nk || !nv) {
            pcd_alloc_free(o->al, nk, ncap * sizeof *nk);
            pcd_alloc_free(o->al, nv, ncap * sizeof *nv);
            o->nomem = true;
            return;
        }
        memset(nv, 0, ncap * sizeof *nv);
        for (size_t i = 0; i < o->ts_cap; i++) {
            if (!o->ts_val[i]) continue;
            size_t j = pcd_mix64(o->ts_key[i]) & (ncap - 1);
            while (nv[j]) j = (j + 1) & (ncap - 1);
            nk[j] = o->ts_key[i];
            nv[j] = o->ts_val[i];
        }
        pcd_alloc_free(o->al, o->ts_key, o->ts_cap * sizeof *o->ts_key);
        pcd_alloc_free(o->al, o->ts_val, o->ts_cap * sizeof *o->ts_val);
        o->ts_key = nk;
        o->ts_val = nv;
        o->ts_cap = ncap;
    }
    size_t i = pcd_mix64(ts) & (o->ts_cap - 1);
    while (o->ts_val[i] && o->ts_key[i] != ts) i = (i + 1) & (o->ts_cap - 1);
    if (o->ts_val[i]) {
        uint32_t prev = o->ts_val[i] - 1;
        if (prev != th) o->before[prev * o->cap + th] = 1;
    } else {
        o->ts_key[i] = ts;
        o->ts_len++;
    }
    o->ts_val[i] = th + 1;
}

/* Ranks: a topological order of "came before", ties (and cycles) by first appearance. */
static uint32_t *order_ranks(order *o)
{
    size_t n = o->n ? o->n : 1;
    uint32_t *rank = pcd_alloc_get(o->al, n * sizeof *rank);
    bool *done = pcd_alloc_get(o->al, n);
    if (!rank || !done) {
        pcd_alloc_free(o->al, rank, n * sizeof *rank);
        pcd_alloc_free(o->al, done, n);
        return NULL;
    }
    memset(done, 0, n);
    for (uint32_t r = 0; r < o->n; r++) {
        uint32_t pick = UINT32_MAX;
        for (uint32_t t = 0; t < o->n && pick == UINT32_MAX; t++) {
            if (done[t]) continue;
            bool free_of = true;
            for (uint32_t u = 0; u < o->n && free_of; u++)
                if (!done[u] && u != t && o->before[u * o->cap + t]) free_of = false;
            if (free_of) pick = t;
        }
        if (pick == UINT32_MAX)
            for (uint32_t t = 0; t < o->n; t++)
                if (!done[t]) {
                    pick = t; /* a cycle: first appearance decides */
                    break;
                }
        rank[pick] = r;
        done[pick] = true;
    }
    pcd_alloc_free(o->al, done, n);
    return rank;
}

static void order_free(order *o)
{
    pcd_alloc_free(o->al, o->tid, o->cap * sizeof *o->tid);
    pcd_alloc_free(o->al, o->interp, o->cap * sizeof *o->interp);
    pcd_alloc_free(o->al, o->before, (size_t)o->cap * o->cap);
    pcd_alloc_free(o->al, o->ts_key, o->ts_cap * sizeof *o->ts_key);
    pcd_alloc_free(o->al, o->ts_val, o->ts_cap * sizeof *o->ts_val);
}

static void chomp(char *line, size_t *n)
{
    while (*n > 0 && (line[*n - 1] == '\n' || line[*n - 1] == '\r')) line[--*n] = 0;
}

pcd_status pcd_tachyon_import_samples(pcd_import_args *a, pcd_profile *p)
{
    imp m;
    memset(&m, 0, sizeof m);
    m.a = a;
    m.al = a->al;
    m.p = p;
    /* a sample is one sample (the count the output needs, as the Tachyon importer's) */
    p->dialect = PCD_DIALECT_CPYTHON;
    p->default_type = pcd_profile_add_type(p, "samples", "count", "Samples");
    m.o.mode = -1;
    m.o.features = -1;
    m.o.python[0] = 3;
    m.o.python[1] = 15;
    /* the whole input, read twice (F lines may follow the samples that use them) */
    const uint8_t *data = NULL;
    size_t len = 0;
    pcd_status lst = a->load ? a->load(a->read_ud, &data, &len) : PCD_E_ARG;
    if (lst != PCD_OK) {
        bool mem = lst == PCD_E_NOMEM || lst == PCD_E_LIMIT;
        snprintf(a->msg, sizeof a->msg, mem ? "%s: the input does not fit in memory (raise --max-memory)" : "%s: cannot read",
                 a->input_name);
        return mem ? PCD_E_NOMEM : PCD_E_IO;
    }
    pcd_lines lines;
    pcd_lines_memory(&lines, a->al, data, len);
    uint8_t *lp;
    char *line;
    size_t n;
    uint64_t pos = 0;
    /* pass 1: info and frames (F lines may follow the samples that use them); are the
     * samples in time order? */
    int rc = 0;
    uint64_t n_s = 0, last_ts = 0, min_ts = UINT64_MAX, max_ts = 0;
    bool sorted = true;
    order ord;
    memset(&ord, 0, sizeof ord);
    ord.al = a->al;
    uint32_t *ranks = NULL;
    size_t n_ranks = 0;
    while (!rc && (lst = pcd_lines_next(&lines, &lp, &n, NULL)) == PCD_OK) {
        line = (char *)lp;
        chomp(line, &n);
        m.line++;
        if (strncmp(line, "# info ", 7) == 0) rc = info_line(&m, line + 7);
        else if (line[0] == 'F' && line[1] == ' ') rc = frame_line(&m, line);
        else if (line[0] == 'S' && line[1] == ' ') {
            s_line sl;
            rc = parse_s(&m, line, &sl);
            if (!rc) {
                if (n_s && sl.ts < last_ts) sorted = false;
                last_ts = sl.ts;
                if (sl.ts < min_ts) min_ts = sl.ts;
                if (sl.ts > max_ts) max_ts = sl.ts;
                n_s++;
                uint32_t th = order_thread(&ord, sl.tid, sl.interp);
                const char *q = sl.rest;
                while (*q == ' ') q++;
                if (*q != '=') order_note(&ord, th, sl.ts);
            }
        } else if (line[0] && line[0] != '#') rc = bad(&m, "a line that is not # info, S or F%s", NULL);
    }
    if (!rc && lst == PCD_E_NOMEM) rc = nomem(&m);
    else if (!rc && lst != PCD_END) rc = bad(&m, "cannot read%s", NULL);
    if (!rc && (!m.have_start || !m.have_interval))
        rc = bad(&m, "the text has no '# info start_time_us=' or '# info sample_interval_us=' line%s", NULL);
    m.o.have_stats = m.have_duration && m.have_rate;
    /* the model's times are ns (int64) after a base: the first timestamp */
    if (!rc && n_s && max_ts - min_ts > (uint64_t)INT64_MAX / 1000)
        rc = bad(&m, "timestamps more than 2^63 ns apart%s", NULL);
    if (!rc) {
        pcd_capture *c = &p->capture;
        c->set = true;
        c->start_time_us = m.o.start_time_us;
        c->interval_us = m.o.sample_interval_us;
        c->time_base_us = n_s ? min_ts : 0;
        memcpy(c->version, m.o.python, sizeof c->version);
        c->mode = m.o.mode;
        c->features = m.o.features;
        c->compression = m.o.compression;
        c->have_stats = m.o.have_stats;
        c->duration_sec = m.o.duration_sec;
        c->sample_rate = m.o.sample_rate;
        c->error_rate = m.o.error_rate;
        c->missed_samples = m.o.missed_samples;
        c->stats_present = m.o.stats_present;
        pcd_status st = pcd_profile_begin(p);
        if (st == PCD_E_NOMEM) rc = nomem(&m);
        else if (st != PCD_OK) rc = bad(&m, "cannot start writing%s", NULL);
    }
    s_ref *refs = NULL;
    size_t n_refs = n_s ? (size_t)n_s : 1;
    if (!rc && !sorted) {
        refs = n_refs <= SIZE_MAX / sizeof *refs ? pcd_alloc_get(a->al, n_refs * sizeof *refs) : NULL;
        ranks = ord.nomem ? NULL : order_ranks(&ord);
        n_ranks = ord.n ? ord.n : 1;
        if (!refs || !ranks) rc = nomem(&m);
    }
    /* pass 2: the samples in time order: as they come when they are, else sorted */
    if (!rc) pcd_lines_seek(&lines, 0);
    uint64_t k = 0;
    m.line = 0;
    while (!rc && (lst = pcd_lines_next(&lines, &lp, &n, &pos)) == PCD_OK) {
        line = (char *)lp;
        chomp(line, &n);
        m.line++;
        if (line[0] != 'S' || line[1] != ' ') continue;
        s_line sl;
        rc = parse_s(&m, line, &sl);
        if (!rc && sorted) rc = write_sample(&m, &sl);
        else if (!rc) refs[k] = (s_ref){ sl.ts, ranks[order_thread(&ord, sl.tid, sl.interp)], k, pos, m.line };
        k++;
    }
    if (!rc && lst == PCD_E_NOMEM) rc = nomem(&m);
    if (!rc && !sorted) {
        qsort(refs, n_s, sizeof *refs, ref_cmp);
        for (uint64_t i = 0; i < n_s && !rc; i++) {
            m.line = refs[i].lineno;
            if (pcd_lines_seek(&lines, refs[i].pos) != PCD_OK || (lst = pcd_lines_next(&lines, &lp, &n, NULL)) != PCD_OK) {
                rc = lst == PCD_E_NOMEM ? nomem(&m) : bad(&m, "cannot read the input again%s", NULL);
                break;
            }
            line = (char *)lp;
            chomp(line, &n);
            s_line sl;
            rc = parse_s(&m, line, &sl);
            if (!rc) rc = write_sample(&m, &sl);
        }
    }
    if (refs) pcd_alloc_free(a->al, refs, n_refs * sizeof *refs);
    if (ranks) pcd_alloc_free(a->al, ranks, n_ranks * sizeof *ranks);
    order_free(&ord);
    pcd_lines_free(&lines);
    if (m.fr) pcd_alloc_free(a->al, m.fr, m.fr_cap * sizeof *m.fr);
    if (m.th) pcd_alloc_free(a->al, m.th, m.th_cap * sizeof *m.th);
    return rc == 0 ? PCD_OK : rc == 1 ? PCD_E_INVALID : PCD_E_NOMEM;
}
