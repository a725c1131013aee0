/* writers/tachyon.c: Tachyon files written as CPython 3.15.2 writes them. */
#include "writers/tachyon.h"
#include "common/hash.h"
#include "common/problem.h"

#include <string.h>

const char *const pcd_tachyon_mode_names[5] = { "wall", "cpu", "gil", "all", "exception" };
const char *const pcd_tachyon_feature_names[5] = { "all_threads", "native", "gc", "opcodes", "blocking" };

#define RLE_BUF 16384                /* bytes of (delta, status) pairs a thread buffers */
#define RLE_ENTRY_MAX 11             /* a 10-byte varint and a status byte */
#define MAX_DEPTH PCD_TACHYON_V1_SAMPLE_STACK_FULL_FRAMES_MAX_COUNT

struct pcd_tachyon_wthread {
    uint64_t tid;
    uint32_t interp;
    uint64_t prev_ts;
    uint32_t depth;
    uint32_t stack[MAX_DEPTH];       /* innermost first, as the records hold it */
    pcd_tachyon_v1_repeat_entry *pending;  /* lazily, like CPython's buffer */
    uint32_t n_pending;
    uint32_t pending_bytes;
};

static pcd_status fail(pcd_tachyon_writer *tw, pcd_status st, const char *what)
{
    pcd_problem(&tw->w.x.err, st, 0, what, PCD_FOUND_NONE, 0);
    tw->failed = true;
    return st;
}

pcd_status pcd_tachyon_writer_open(pcd_tachyon_writer *tw, pcd_sink *s, pcd_alloc *al, const pcd_tachyon_writer_opts *o)
{
    memset(tw, 0, sizeof *tw);
    tw->al = al;
    tw->o = *o;
    pcd_tachyon_v1_file *h = &tw->root;
    h->version = 1;
    h->python_version.major = o->python[0];
    h->python_version.minor = o->python[1];
    h->python_version.micro = o->python[2];
    h->start_time_us = o->start_time_us;
    h->sample_interval_us = o->sample_interval_us;
    h->compression = o->compression;
    /* mode + 1 (0: unknown); the features, when known */
    h->config = pcd_tachyon_v1_file_config_make((uint8_t)(o->mode + 1), o->features >= 0,
                                                 o->features >= 0 ? (uint8_t)o->features : 0, 0);
    h->stats_tag = o->have_stats;
    if (o->have_stats) {
        h->has_stats_version = true;
        h->stats_version = 1;
    }
    static const uint8_t zeros[16] = { 0 };
    h->checksum = (pcd_bytes){ zeros, 16 };
    pcd_status st = pcd_writer_open(&tw->w, &pcd_tachyon_v1_format, s, al);
    if (st != PCD_OK) return st;
    pcd_writer_set_big(&tw->w, o->big);
    tw->str_hcap = 1024;
    tw->str_hash = pcd_alloc_get(al, tw->str_hcap * sizeof *tw->str_hash);
    tw->frame_hcap = 1024;
    tw->frame_hash = pcd_alloc_get(al, tw->frame_hcap * sizeof *tw->frame_hash);
    if (!tw->str_hash || !tw->frame_hash) return fail(tw, PCD_E_NOMEM, "memory for the tables");
    memset(tw->str_hash, 0, tw->str_hcap * sizeof *tw->str_hash);
    memset(tw->frame_hash, 0, tw->frame_hcap * sizeof *tw->frame_hash);
    st = pcd_writer_root(&tw->w, h);
    if (st != PCD_OK) tw->failed = true;
    return st;
}

const pcd_error *pcd_tachyon_writer_error(const pcd_tachyon_writer *tw) { return pcd_writer_error(&tw->w); }

/* ---- interning ------------------------------------------------------------------------- */
/* str_hash and frame_hash hold 4-byte ids into the string and frame tables the writer writes
 * (bytes; a frame's seven values, fkey). Not common/hmap.c (docs/design.md, "One hash, one
 * table"): the key is wider than the hmap's three words, and it is kept once, in the array the
 * ids index; the hmap would copy it into 48-byte slots or hold only its hash. */

static pcd_status intern_string(pcd_tachyon_writer *tw, const uint8_t *p, size_t n, uint32_t *out)
{
    if (n > UINT32_MAX) return fail(tw, PCD_E_LIMIT, "strings of at most 4294967295 bytes");
    size_t i = pcd_hash_bytes(p, n) & (tw->str_hcap - 1);
    for (uint32_t v; (v = tw->str_hash[i]) != 0; i = (i + 1) & (tw->str_hcap - 1)) {
        if (tw->str_len[v - 1] == n && memcmp(tw->str[v - 1], p, n) == 0) {
            *out = v - 1;
            return PCD_OK;
        }
    }
    if (tw->n_str == UINT32_MAX - 1) return fail(tw, PCD_E_LIMIT, "fewer strings");
    if (tw->n_str == tw->str_cap) {
        uint32_t ncap = tw->str_cap ? tw->str_cap * 2 : 256;
        uint8_t **ns = pcd_alloc_resize(tw->al, tw->str, tw->str_cap * sizeof *ns, ncap * sizeof *ns);
        if (!ns) return fail(tw, PCD_E_NOMEM, "memory for the strings");
        tw->str = ns;
        uint32_t *nl = pcd_alloc_resize(tw->al, tw->str_len, tw->str_cap * sizeof *nl, ncap * sizeof *nl);
        if (!nl) return fail(tw, PCD_E_NOMEM, "memory for the strings");
        tw->str_len = nl;
        tw->str_cap = ncap;
    }
    uint8_t *copy = pcd_alloc_get(tw->al, n ? n : 1);
    if (!copy) return fail(tw, PCD_E_NOMEM, "memory for the strings");
    if (n) memcpy(copy, p, n);
    uint32_t idx = tw->n_str++;
    tw->str[idx] = copy;
    tw->str_len[idx] = (uint32_t)n;
    tw->str_hash[i] = idx + 1;
    *out = idx;
    if ((size_t)tw->n_str * 10 > tw->str_hcap * 7) {
        size_t ncap = tw->str_hcap * 2;
        uint32_t *nh = pcd_alloc_get(tw->al, ncap * sizeof *nh);
        if (!nh) return fail(tw, PCD_E_NOMEM, "memory for the strings");
        memset(nh, 0, ncap * sizeof *nh);
        for (uint32_t k = 0; k < tw->n_str; k++) {
            size_t j = pcd_hash_bytes(tw->str[k], tw->str_len[k]) & (ncap - 1);
            while (nh[j]) j = (j + 1) & (ncap - 1);
            nh[j] = k + 1;
        }
        pcd_alloc_free(tw->al, tw->str_hash, tw->str_hcap * sizeof *nh);
        tw->str_hash = nh;
        tw->str_hcap = ncap;
    }
    return PCD_OK;
}

/* A frame is the 7 values CPython deduplicates on: the string indexes, the four location
 * parts as given (not as written) and the opcode. */
typedef struct fkey {
    uint32_t fn, func;
    int32_t loc[4];
    uint8_t op;
} fkey;

static uint64_t fkey_hash(const fkey *k)
{
    uint64_t h = pcd_mix64(((uint64_t)k->fn << 32 | k->func) ^ 0x9E3779B97F4A7C15u);
    h = pcd_mix64(h ^ ((uint64_t)(uint32_t)k->loc[0] << 32 | (uint32_t)k->loc[1]));
    h = pcd_mix64(h ^ ((uint64_t)(uint32_t)k->loc[2] << 32 | (uint32_t)k->loc[3]));
    return pcd_mix64(h ^ k->op);
}

static bool fkey_is(const pcd_tachyon_writer *tw, uint32_t i, const fkey *k)
{
    const pcd_tachyon_v1_frame *f = &tw->frames[i];
    return f->filename == k->fn && f->funcname == k->func && f->opcode == k->op &&
           memcmp(tw->fkey[i], k->loc, sizeof k->loc) == 0;
}

static pcd_status intern_frame(pcd_tachyon_writer *tw, const fkey *k, uint32_t *out)
{
    size_t i = fkey_hash(k) & (tw->frame_hcap - 1);
    for (uint32_t v; (v = tw->frame_hash[i]) != 0; i = (i + 1) & (tw->frame_hcap - 1)) {
        if (fkey_is(tw, v - 1, k)) {
            *out = v - 1;
            return PCD_OK;
        }
    }
    if (tw->n_frames == UINT32_MAX - 1) return fail(tw, PCD_E_LIMIT, "fewer frames");
    if (tw->n_frames == tw->frames_cap) {
        uint32_t ncap = tw->frames_cap ? tw->frames_cap * 2 : 256;
        pcd_tachyon_v1_frame *nf = pcd_alloc_resize(tw->al, tw->frames, tw->frames_cap * sizeof *nf, ncap * sizeof *nf);
        if (!nf) return fail(tw, PCD_E_NOMEM, "memory for the frames");
        tw->frames = nf;
        int32_t(*nk)[4] = pcd_alloc_resize(tw->al, tw->fkey, tw->frames_cap * sizeof *nk, ncap * sizeof *nk);
        if (!nk) return fail(tw, PCD_E_NOMEM, "memory for the frames");
        tw->fkey = nk;
        tw->frames_cap = ncap;
    }
    uint32_t idx = tw->n_frames++;
    pcd_tachyon_v1_frame *f = &tw->frames[idx];
    memset(f, 0, sizeof *f);
    f->filename = k->fn;
    f->funcname = k->func;
    f->lineno = k->loc[0];
    /* the ends are written as deltas, 0 when either part is missing */
    f->end_lineno_delta = pcd_tachyon_v1_frame_end_lineno_delta_of(k->loc[0], k->loc[1]);
    f->column = k->loc[2];
    f->end_column_delta = pcd_tachyon_v1_frame_end_column_delta_of(k->loc[2], k->loc[3]);
    f->opcode = k->op;
    memcpy(tw->fkey[idx], k->loc, sizeof k->loc);
    tw->frame_hash[i] = idx + 1;
    *out = idx;
    if ((size_t)tw->n_frames * 10 > tw->frame_hcap * 7) {
        size_t ncap = tw->frame_hcap * 2;
        uint32_t *nh = pcd_alloc_get(tw->al, ncap * sizeof *nh);
        if (!nh) return fail(tw, PCD_E_NOMEM, "memory for the frames");
        memset(nh, 0, ncap * sizeof *nh);
        for (uint32_t q = 0; q < tw->n_frames; q++) {
            fkey kk = { tw->frames[q].filename, tw->frames[q].funcname,
                        { tw->fkey[q][0], tw->fkey[q][1], tw->fkey[q][2], tw->fkey[q][3] }, tw->frames[q].opcode };
            size_t j = fkey_hash(&kk) & (ncap - 1);
            while (nh[j]) j = (j + 1) & (ncap - 1);
            nh[j] = q + 1;
        }
        pcd_alloc_free(tw->al, tw->frame_hash, tw->frame_hcap * sizeof *nh);
        tw->frame_hash = nh;
        tw->frame_hcap = ncap;
    }
    return PCD_OK;
}

/* ---- records ----------------------------------------------------------------------------- */

static pcd_status put_record(pcd_tachyon_writer *tw, const pcd_tachyon_v1_sample *rec)
{
    pcd_status st = pcd_writer_record(&tw->w, &pcd_tachyon_v1_region_samples, rec);
    if (st != PCD_OK) tw->failed = true;
    return st;
}

static pcd_status flush_pending(pcd_tachyon_writer *tw, pcd_tachyon_wthread *t)
{
    if (t->n_pending == 0) return PCD_OK;
    pcd_tachyon_v1_sample rec;
    memset(&rec, 0, sizeof rec);
    rec.thread_id = t->tid;
    rec.interpreter_id = t->interp;
    rec.stack.which = PCD_TACHYON_V1_SAMPLE_STACK_REPEAT;
    rec.stack.tag = PCD_TACHYON_V1_SAMPLE_STACK_REPEAT_TAG;
    rec.stack.u.repeat.samples = t->pending;
    rec.stack.u.repeat.n_samples = t->n_pending;
    PCD_TRY(put_record(tw, &rec));
    t->n_pending = 0;
    t->pending_bytes = 0;
    return PCD_OK;
}

static pcd_tachyon_wthread *find_thread(pcd_tachyon_writer *tw, uint64_t tid, uint32_t interp)
{
    /* few threads: a linear search, newest first (as CPython, which scans them all) */
    for (uint32_t i = tw->n_th; i-- > 0;)
        if (tw->th[i]->tid == tid && tw->th[i]->interp == interp) return tw->th[i];
    return NULL;
}

pcd_status pcd_tachyon_writer_intern(pcd_tachyon_writer *tw, const pcd_tachyon_wframe *fr, uint32_t *index)
{
    if (tw->failed) return tw->w.x.err.status ? tw->w.x.err.status : PCD_E_ARG;
    fkey k;
    memset(&k, 0, sizeof k);
    PCD_TRY(intern_string(tw, fr->filename, fr->filename_len, &k.fn));
    PCD_TRY(intern_string(tw, fr->funcname, fr->funcname_len, &k.func));
    k.loc[0] = fr->lineno;
    k.loc[1] = fr->end_lineno;
    k.loc[2] = fr->column;
    k.loc[3] = fr->end_column;
    k.op = (fr->opcode >= 0 && fr->opcode <= PCD_TACHYON_MAX_REAL_OPCODE) ? (uint8_t)fr->opcode : PCD_TACHYON_V1_FRAME_OPCODE_ABSENT;
    return intern_frame(tw, &k, index);
}

pcd_status pcd_tachyon_writer_sample(pcd_tachyon_writer *tw, uint64_t tid, uint32_t interp, uint8_t status, uint64_t ts,
                              const pcd_tachyon_wframe *frames, size_t depth)
{
    /* the stack: the innermost 256 frames, interned (file name, then function, then frame) */
    uint32_t cur[MAX_DEPTH];
    size_t d = depth < MAX_DEPTH ? depth : MAX_DEPTH;
    for (size_t i = 0; i < d; i++) PCD_TRY(pcd_tachyon_writer_intern(tw, &frames[i], &cur[i]));
    return pcd_tachyon_writer_sample_ids(tw, tid, interp, status, ts, cur, d);
}

pcd_status pcd_tachyon_writer_sample_ids(pcd_tachyon_writer *tw, uint64_t tid, uint32_t interp, uint8_t status, uint64_t ts,
                                  const uint32_t *ids, size_t depth)
{
    if (tw->failed) return tw->w.x.err.status ? tw->w.x.err.status : PCD_E_ARG;
    pcd_tachyon_wthread *t = find_thread(tw, tid, interp);
    if (!t) {
        if (tw->n_th == UINT32_MAX) return fail(tw, PCD_E_LIMIT, "fewer threads");
        if (tw->n_th == tw->th_cap) {
            uint32_t ncap = tw->th_cap ? tw->th_cap * 2 : 16;
            pcd_tachyon_wthread **nt = pcd_alloc_resize(tw->al, tw->th, tw->th_cap * sizeof *nt, ncap * sizeof *nt);
            if (!nt) return fail(tw, PCD_E_NOMEM, "memory for the threads");
            tw->th = nt;
            tw->th_cap = ncap;
        }
        t = pcd_alloc_get(tw->al, sizeof *t);
        if (!t) return fail(tw, PCD_E_NOMEM, "memory for the threads");
        memset(t, 0, sizeof *t);
        t->tid = tid;
        t->interp = interp;
        t->prev_ts = tw->o.start_time_us;
        tw->th[tw->n_th++] = t;
    }
    uint64_t delta = ts - t->prev_ts;
    size_t d = depth < MAX_DEPTH ? depth : MAX_DEPTH;
    for (size_t i = 0; i < d; i++)
        if (ids[i] >= tw->n_frames) return fail(tw, PCD_E_ARG, "frame indexes the writer gave out");
    uint32_t cur[MAX_DEPTH]; /* the records hold a mutable array */
    if (d) memcpy(cur, ids, d * sizeof cur[0]); /* (ids may be NULL for an empty stack) */
    /* the encoding, against the thread's previous stack */
    size_t prev = t->depth;
    bool same = prev == d && memcmp(t->stack, cur, d * sizeof cur[0]) == 0;
    if (same) {
        if (!t->pending) {
            t->pending = pcd_alloc_get(tw->al, (RLE_BUF / 2) * sizeof *t->pending);
            if (!t->pending) return fail(tw, PCD_E_NOMEM, "memory for REPEAT buffers");
        }
        if (t->pending_bytes + RLE_ENTRY_MAX > RLE_BUF) PCD_TRY(flush_pending(tw, t));
        t->pending[t->n_pending].timestamp_delta = delta;
        t->pending[t->n_pending].status = status;
        t->n_pending++;
        t->pending_bytes += (uint32_t)(pcd_size_uleb128(delta) + 1); /* and the status byte */
    } else {
        PCD_TRY(flush_pending(tw, t));
        size_t shared = 0, mn = prev < d ? prev : d;
        while (shared < mn && t->stack[prev - 1 - shared] == cur[d - 1 - shared]) shared++;
        size_t pop = prev - shared, push = d - shared;
        pcd_tachyon_v1_sample rec;
        memset(&rec, 0, sizeof rec);
        rec.thread_id = tid;
        rec.interpreter_id = interp;
        if (shared == 0 || (pop > 0 && shared < d / 2)) {
            rec.stack.which = PCD_TACHYON_V1_SAMPLE_STACK_FULL;
            rec.stack.tag = PCD_TACHYON_V1_SAMPLE_STACK_FULL_TAG;
            rec.stack.u.full.timestamp_delta = delta;
            rec.stack.u.full.status = status;
            rec.stack.u.full.frames = cur;
            rec.stack.u.full.n_frames = d;
        } else if (pop == 0) {
            /* something pushed (the stacks differ) and nothing popped */
            rec.stack.which = PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX;
            rec.stack.tag = PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX_TAG;
            rec.stack.u.suffix.timestamp_delta = delta;
            rec.stack.u.suffix.status = status;
            rec.stack.u.suffix.shared_count = (uint32_t)shared;
            rec.stack.u.suffix.frames = cur;
            rec.stack.u.suffix.n_frames = push;
        } else {
            rec.stack.which = PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH;
            rec.stack.tag = PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH_TAG;
            rec.stack.u.pop_push.timestamp_delta = delta;
            rec.stack.u.pop_push.status = status;
            rec.stack.u.pop_push.pop_count = (uint32_t)pop;
            rec.stack.u.pop_push.frames = cur;
            rec.stack.u.pop_push.n_frames = push;
        }
        PCD_TRY(put_record(tw, &rec));
        memcpy(t->stack, cur, d * sizeof cur[0]);
        t->depth = (uint32_t)d;
    }
    t->prev_ts = ts;
    tw->total_samples++;
    return PCD_OK;
}

pcd_status pcd_tachyon_writer_finish(pcd_tachyon_writer *tw)
{
    if (tw->failed) return tw->w.x.err.status ? tw->w.x.err.status : PCD_E_ARG;
    for (uint32_t i = 0; i < tw->n_th; i++) PCD_TRY(flush_pending(tw, tw->th[i]));
    /* the header's totals, now known */
    tw->root.sample_count = tw->total_samples;
    tw->root.thread_count = tw->n_th;
    pcd_status st = pcd_writer_update_root(&tw->w, &tw->root);
    if (st != PCD_OK) {
        tw->failed = true;
        return st;
    }
    for (uint32_t i = 0; i < tw->n_str; i++) {
        pcd_tachyon_v1_string s = { { tw->str[i], tw->str_len[i] } };
        st = pcd_writer_record(&tw->w, &pcd_tachyon_v1_region_strings, &s);
        if (st != PCD_OK) {
            tw->failed = true;
            return st;
        }
    }
    for (uint32_t i = 0; i < tw->n_frames; i++) {
        st = pcd_writer_record(&tw->w, &pcd_tachyon_v1_region_frames, &tw->frames[i]);
        if (st != PCD_OK) {
            tw->failed = true;
            return st;
        }
    }
    if (tw->o.have_stats) {
        pcd_tachyon_v1_stats s;
        memset(&s, 0, sizeof s);
        s.duration_sec = tw->o.duration_sec;
        s.sample_rate = tw->o.sample_rate;
        s.has_error_rate = s.has_missed_samples = s.has_present = s.has_reserved = true;
        s.error_rate = tw->o.error_rate;
        s.missed_samples = tw->o.missed_samples;
        s.present = tw->o.stats_present;
        st = pcd_writer_record(&tw->w, &pcd_tachyon_v1_region_stats, &s);
        if (st != PCD_OK) {
            tw->failed = true;
            return st;
        }
    }
    st = pcd_writer_finish(&tw->w);
    if (st != PCD_OK) tw->failed = true;
    return st;
}

void pcd_tachyon_writer_close(pcd_tachyon_writer *tw)
{
    if (!tw->al) return;
    pcd_writer_close(&tw->w);
    for (uint32_t i = 0; i < tw->n_str; i++) pcd_alloc_free(tw->al, tw->str[i], tw->str_len[i] ? tw->str_len[i] : 1);
    pcd_alloc_free(tw->al, tw->str, tw->str_cap * sizeof *tw->str);
    pcd_alloc_free(tw->al, tw->str_len, tw->str_cap * sizeof *tw->str_len);
    pcd_alloc_free(tw->al, tw->str_hash, tw->str_hcap * sizeof *tw->str_hash);
    pcd_alloc_free(tw->al, tw->frames, tw->frames_cap * sizeof *tw->frames);
    pcd_alloc_free(tw->al, tw->fkey, tw->frames_cap * sizeof *tw->fkey);
    pcd_alloc_free(tw->al, tw->frame_hash, tw->frame_hcap * sizeof *tw->frame_hash);
    for (uint32_t i = 0; i < tw->n_th; i++) {
        if (tw->th[i]->pending) pcd_alloc_free(tw->al, tw->th[i]->pending, (RLE_BUF / 2) * sizeof *tw->th[i]->pending);
        pcd_alloc_free(tw->al, tw->th[i], sizeof *tw->th[i]);
    }
    pcd_alloc_free(tw->al, tw->th, tw->th_cap * sizeof *tw->th);
    memset(tw, 0, sizeof *tw);
}
