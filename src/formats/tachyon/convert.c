/* formats/tachyon/convert.c: Tachyon profiles to collapsed stacks (exactly CPython's `replay
 * --collapsed`), speedscope, Chrome Trace Event JSON, and the per-sample text of CPython's
 * reader. The tables come after the samples in the file: converters that need names
 * while they stream samples read the tables first (skipping the sample records) and then
 * the samples with a second reader over the same input. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"

/* ---- names ----------------------------------------------------------------------------- */

pcd_status tach_names_build(tach_names *nm, const tach_tables *t, pcd_alloc *al)
{
    memset(nm, 0, sizeof nm[0]);
    nm->al = al;
    nm->n = t->n_strings;
    size_t total = 0;
    for (uint32_t i = 0; i < t->n_strings; i++) total += TACH_REPLACED_MAX(t->strings[i].len);
    size_t n = t->n_strings ? t->n_strings : 1;
    nm->text_cap = total ? total : 1;
    nm->text = pcd_alloc_get(al, nm->text_cap);
    nm->off = pcd_alloc_get(al, n * sizeof(uint64_t));
    nm->len = pcd_alloc_get(al, n * sizeof(uint32_t));
    nm->canon = pcd_alloc_get(al, n * sizeof(uint32_t));
    if (!nm->text || !nm->off || !nm->len || !nm->canon) return PCD_E_NOMEM;
    pcd_hmap seen;
    pcd_hmap_init(&seen, al);
    for (uint32_t i = 0; i < t->n_strings; i++) {
        size_t o = nm->text_len;
        size_t k = tach_utf8_replace(t->strings[i].ptr, t->strings[i].len, nm->text + o);
        nm->off[i] = o;
        nm->len[i] = (uint32_t)k;
        nm->text_len += k;
        /* canonical id: the first string with the same text (hash, length, then the
         * texts; a colliding different text takes the next probe number) */
        uint64_t h = UINT64_C(1469598103934665603);
        for (size_t j = 0; j < k; j++) h = (h ^ nm->text[o + j]) * UINT64_C(1099511628211);
        for (uint64_t probe = 0;; probe++) {
            bool fresh;
            pcd_hslot *sl = pcd_hmap_put(&seen, (pcd_hkey){ h, k, probe }, &fresh);
            if (!sl) {
                pcd_hmap_free(&seen);
                return PCD_E_NOMEM;
            }
            if (fresh) {
                sl->v0 = i;
                nm->canon[i] = i;
                break;
            }
            uint32_t j = (uint32_t)sl->v0;
            if (memcmp(nm->text + nm->off[j], nm->text + o, k) == 0) {
                nm->canon[i] = nm->canon[j];
                break;
            }
        }
    }
    pcd_hmap_free(&seen);
    return PCD_OK;
}

void tach_names_free(tach_names *nm)
{
    if (!nm->al) return;
    size_t n = nm->n ? nm->n : 1;
    pcd_alloc_free(nm->al, nm->text, nm->text_cap);
    pcd_alloc_free(nm->al, nm->off, n * sizeof(uint64_t));
    pcd_alloc_free(nm->al, nm->len, n * sizeof(uint32_t));
    pcd_alloc_free(nm->al, nm->canon, n * sizeof(uint32_t));
    memset(nm, 0, sizeof *nm);
}

static const char k_internal[] = "_sync_coordinator.py";

/* CPython drops frames of its own bootstrap (filenames ending in _sync_coordinator.py). */
static bool is_internal(const tach_names *nm, uint32_t fn)
{
    size_t n;
    const uint8_t *p = tach_name(nm, fn, &n);
    size_t k = sizeof k_internal - 1;
    return n >= k && memcmp(p + n - k, k_internal, k) == 0;
}

/* ---- mapping stacks of frames to stacks of what an output shows --------------------------
 * A raw stack-tree node (frame indexes) maps to a node of a second tree whose "frames" are
 * keys: (file text, line, function text) for collapsed stacks, (file, function) for
 * timelines; internal frames are dropped. */

typedef struct tach_key {
    uint32_t fn, func;               /* string indexes (a representative) */
    int32_t line;
    uint32_t frame;                  /* a frame with this key */
} tach_key;

typedef struct tach_mapper {
    const tach_tables *t;
    const tach_names *nm;
    bool with_line;
    tach_tree mt;                    /* the mapped tree */
    pcd_hmap keys;                   /* (canon fn, canon func, line) -> key index */
    tach_key *key;
    uint32_t n_keys, keys_cap;
    uint32_t *memo;                  /* raw node -> mapped node + 1, 0: not yet */
    size_t memo_cap;
    pcd_alloc *al;
    /* the first error (a frame or string index out of range) */
    char msg[160];
    uint64_t bad;
    const char *bad_what;
} tach_mapper;

static pcd_status mapper_init(tach_mapper *m, const tach_tables *t, const tach_names *nm, bool with_line, pcd_alloc *al)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    m->nm = nm;
    m->with_line = with_line;
    m->al = al;
    pcd_hmap_init(&m->keys, al);
    return tach_tree_init(&m->mt, al);
}

static void mapper_free(tach_mapper *m)
{
    if (!m->al) return;
    tach_tree_free(&m->mt);
    pcd_hmap_free(&m->keys);
    pcd_alloc_free(m->al, m->key, m->keys_cap * sizeof *m->key);
    pcd_alloc_free(m->al, m->memo, m->memo_cap * sizeof *m->memo);
    memset(m, 0, sizeof *m);
}

/* The key of frame f, or UINT32_MAX for an internal frame; PCD_E_INVALID for bad indexes. */
static pcd_status frame_key(tach_mapper *m, uint32_t f, uint32_t *out)
{
    if (f >= m->t->n_frames) {
        m->bad_what = "frame";
        m->bad = f;
        snprintf(m->msg, sizeof m->msg, "Invalid frame index: %u", f);
        return PCD_E_INVALID;
    }
    const tach_frame_rec *fr = &m->t->frames[f];
    if (fr->filename >= m->nm->n || fr->funcname >= m->nm->n) {
        m->bad_what = "string";
        m->bad = f;
        snprintf(m->msg, sizeof m->msg, "Invalid string index in frame %u", f);
        return PCD_E_INVALID;
    }
    if (is_internal(m->nm, fr->filename)) {
        *out = UINT32_MAX;
        return PCD_OK;
    }
    int32_t line = fr->lineno == -1 ? 0 : fr->lineno;
    if (!m->with_line) line = 0;
    pcd_hkey hk = { m->nm->canon[fr->filename], m->nm->canon[fr->funcname], (uint64_t)(uint32_t)line };
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->keys, hk, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) {
        if (m->n_keys == m->keys_cap) {
            uint32_t ncap = m->keys_cap ? m->keys_cap * 2 : 256;
            tach_key *nk = pcd_alloc_resize(m->al, m->key, m->keys_cap * sizeof *nk, ncap * sizeof *nk);
            if (!nk) return PCD_E_NOMEM;
            m->key = nk;
            m->keys_cap = ncap;
        }
        m->key[m->n_keys] = (tach_key){ fr->filename, fr->funcname, line, f };
        sl->v0 = m->n_keys++;
    }
    *out = (uint32_t)sl->v0;
    return PCD_OK;
}

/* The mapped node of the replay's stack `id`. */
static pcd_status map_node(tach_mapper *m, const tach_replay *rp, uint32_t id, uint32_t *out)
{
    if (id == 0) {
        *out = 0;
        return PCD_OK;
    }
    if (rp->stacks.n > m->memo_cap) {
        size_t ncap = m->memo_cap ? m->memo_cap : 1024;
        while (ncap < rp->stacks.n) ncap *= 2;
        uint32_t *nm = pcd_alloc_resize(m->al, m->memo, m->memo_cap * sizeof *nm, ncap * sizeof *nm);
        if (!nm) return PCD_E_NOMEM;
        memset(nm + m->memo_cap, 0, (ncap - m->memo_cap) * sizeof *nm);
        m->memo = nm;
        m->memo_cap = ncap;
    }
    if (m->memo[id]) {
        *out = m->memo[id] - 1;
        return PCD_OK;
    }
    /* down the mapped tree, outermost frame first */
    uint32_t d;
    const uint32_t *f = tach_replay_stack(rp, id, &d);
    uint32_t mapped = 0;
    for (uint32_t i = 0; i < d; i++) {
        uint32_t key;
        PCD_TRY(frame_key(m, f[i], &key));
        if (key != UINT32_MAX) PCD_TRY(tach_tree_child(&m->mt, mapped, key, &mapped));
    }
    m->memo[id] = mapped + 1;
    *out = mapped;
    return PCD_OK;
}

/* Keys of a mapped node, outermost first; returns the count. */
static uint32_t mapped_path(const tach_mapper *m, uint32_t node, uint32_t *out)
{
    uint32_t tmp[TACH_MAX_DEPTH];
    uint32_t d = tach_tree_stack(&m->mt, node, tmp);
    for (uint32_t i = 0; i < d; i++) out[i] = tmp[d - 1 - i];
    return d;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Reports a reader error and returns the exit code for damaged input. */
static int damaged(const pcd_conv_args *a, const pcd_error *e)
{
    pcd_report(a->err, a->input_name, e);
    return 1;
}

/* Reports an error found above the bytes (the text is CPython's message when it has one). */
static int semantic(const pcd_conv_args *a, const char *msg)
{
    fprintf(a->err, "%s: %s\n", a->input_name, msg);
    return 1;
}

static int cannot_write(const pcd_conv_args *a, pcd_status st)
{
    fprintf(a->err, "%s: cannot write the output: %s\n", a->input_name, pcd_status_name(st));
    return 2;
}

/* Reads the root record of reader r into *root. */
int tach_read_root(const pcd_conv_args *a, pcd_reader *r, tach_file *root)
{
    pcd_record rec;
    pcd_status st = pcd_reader_next(r, &rec);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
    const tach_file *h = tach_as_root(&rec);
    if (!h) return semantic(a, "not a Tachyon file");
    *root = *h;
    return 0;
}

/* After the root: skips the sample records and keeps the tables. */
int tach_read_tables(const pcd_conv_args *a, pcd_reader *r, tach_tables *t)
{
    pcd_status st = pcd_reader_skip_region(r);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
    pcd_record rec;
    for (;;) {
        st = pcd_reader_next(r, &rec);
        if (st == PCD_END) return 0;
        if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
        if (tach_tables_add(t, &rec) != PCD_OK) return semantic(a, "out of memory for the tables (raise --max-memory)");
    }
}

/* A second reader over the same input, positioned on the first sample record (*opened says
 * whether r2 needs closing). */
int tach_open_samples(const pcd_conv_args *a, pcd_reader *r2, bool *opened)
{
    const uint8_t *data;
    size_t size;
    *opened = false;
    if (!pcd_reader_input(a->r, &data, &size)) return semantic(a, "the input must be a whole file");
    pcd_reader_opts o = { a->al, NULL, 0, false };
    if (pcd_reader_open_buffer(r2, a->f, data, size, &o) != PCD_OK) return semantic(a, "cannot start a second reader");
    *opened = true;
    pcd_record rec;
    pcd_status st = pcd_reader_next(r2, &rec);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r2));
    return 0;
}

/* ---- collapsed stacks ------------------------------------------------------------------------ */

typedef struct coll_count {
    uint64_t count, first;
} coll_count;

typedef struct coll {
    tach_replay rp;
    /* (thread index, node) -> counts */
    uint64_t *hk;
    uint32_t *hv;                    /* slot + 1 */
    size_t hcap;
    coll_count *c;
    uint64_t *ckey;
    uint32_t n, cap;
    /* per thread: the node and slot of its last sample */
    uint32_t *last_node, *last_slot;
    uint32_t last_cap;
    /* per stack node: the slot + 1 it was counted in last (for whichever thread) */
    uint32_t *node_slot;
    uint32_t node_cap;
    bool nomem;
    pcd_alloc *al;
} coll;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

static bool coll_rehash(coll *k)
{
    size_t ncap = k->hcap ? k->hcap * 2 : 1024;
    uint64_t *nk = pcd_alloc_get(k->al, ncap * sizeof *nk);
    uint32_t *nv = pcd_alloc_get(k->al, ncap * sizeof *nv);
    if (!nk || !nv) {
        pcd_alloc_free(k->al, nk, ncap * sizeof *nk);
        pcd_alloc_free(k->al, nv, ncap * sizeof *nv);
        return false;
    }
    memset(nv, 0, ncap * sizeof *nv);
    for (size_t i = 0; i < k->hcap; i++) {
        if (!k->hv[i]) continue;
        size_t j = mix(k->hk[i]) & (ncap - 1);
        while (nv[j]) j = (j + 1) & (ncap - 1);
        nk[j] = k->hk[i];
        nv[j] = k->hv[i];
    }
    pcd_alloc_free(k->al, k->hk, k->hcap * sizeof *k->hk);
    pcd_alloc_free(k->al, k->hv, k->hcap * sizeof *k->hv);
    k->hk = nk;
    k->hv = nv;
    k->hcap = ncap;
    return true;
}

static uint32_t coll_slot(coll *k, uint64_t key, uint64_t seq)
{
    size_t i = mix(key) & (k->hcap - 1);
    for (;;) {
        uint32_t v = k->hv[i];
        if (!v) break;
        if (k->hk[i] == key) return v - 1;
        i = (i + 1) & (k->hcap - 1);
    }
    if (k->n == k->cap) {
        uint32_t ncap = k->cap ? k->cap * 2 : 1024;
        coll_count *nc = pcd_alloc_resize(k->al, k->c, k->cap * sizeof *nc, ncap * sizeof *nc);
        if (!nc) return UINT32_MAX;
        k->c = nc;
        uint64_t *nk = pcd_alloc_resize(k->al, k->ckey, k->cap * sizeof *nk, ncap * sizeof *nk);
        if (!nk) return UINT32_MAX;
        k->ckey = nk;
        k->cap = ncap;
    }
    uint32_t s = k->n++;
    k->c[s] = (coll_count){ 0, seq };
    k->ckey[s] = key;
    k->hk[i] = key;
    k->hv[i] = s + 1;
    if ((size_t)k->n * 10 > k->hcap * 7 && !coll_rehash(k)) return UINT32_MAX;
    return s;
}

static void coll_free(coll *k)
{
    pcd_alloc_free(k->al, k->hk, k->hcap * sizeof *k->hk);
    pcd_alloc_free(k->al, k->hv, k->hcap * sizeof *k->hv);
    pcd_alloc_free(k->al, k->c, k->cap * sizeof *k->c);
    pcd_alloc_free(k->al, k->ckey, k->cap * sizeof *k->ckey);
    pcd_alloc_free(k->al, k->last_node, k->last_cap * sizeof *k->last_node);
    pcd_alloc_free(k->al, k->last_slot, k->last_cap * sizeof *k->last_slot);
    pcd_alloc_free(k->al, k->node_slot, k->node_cap * sizeof *k->node_slot);
}

static void coll_add(coll *k, const tach_thread *th, uint32_t node, uint64_t n, uint64_t first)
{
    if (!node || k->nomem) return; /* an empty stack is never shown */
    uint32_t ti = th->index;
    if (ti >= k->last_cap) {
        uint32_t ncap = k->last_cap ? k->last_cap : 16;
        while (ncap <= ti) ncap *= 2;
        uint32_t *a = pcd_alloc_resize(k->al, k->last_node, k->last_cap * sizeof *a, ncap * sizeof *a);
        if (!a) goto nomem;
        k->last_node = a;
        uint32_t *b = pcd_alloc_resize(k->al, k->last_slot, k->last_cap * sizeof *b, ncap * sizeof *b);
        if (!b) goto nomem;
        k->last_slot = b;
        for (uint32_t i = k->last_cap; i < ncap; i++) k->last_node[i] = 0;
        k->last_cap = ncap;
    }
    if (k->last_node[ti] == node) {
        k->c[k->last_slot[ti]].count += n;
        return;
    }
    uint64_t key = (uint64_t)ti << 32 | node;
    uint32_t s;
    if (node < k->node_cap && k->node_slot[node] && k->ckey[k->node_slot[node] - 1] == key) {
        s = k->node_slot[node] - 1; /* the node's last slot is this thread's */
    } else {
        s = coll_slot(k, key, first);
        if (s == UINT32_MAX) goto nomem;
        if (node >= k->node_cap && node < (UINT32_C(1) << 30)) {
            uint32_t ncap = k->node_cap ? k->node_cap : 1024;
            while (ncap <= node) ncap *= 2;
            uint32_t *a = pcd_alloc_resize(k->al, k->node_slot, k->node_cap * sizeof *a, ncap * sizeof *a);
            if (!a) goto nomem;
            memset(a + k->node_cap, 0, (ncap - k->node_cap) * sizeof *a);
            k->node_slot = a;
            k->node_cap = ncap;
        }
        if (node < k->node_cap) k->node_slot[node] = s + 1;
    }
    k->c[s].count += n;
    k->last_node[ti] = node;
    k->last_slot[ti] = s;
    return;
nomem:
    k->nomem = true;
}

static void coll_sample(void *ud, const tach_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    coll *k = ud;
    (void)ts;
    (void)status;
    coll_add(k, th, node, 1, k->rp.total_samples - 1);
}

static void coll_repeat(void *ud, const tach_thread *th, uint32_t node, uint64_t n)
{
    coll *k = ud;
    coll_add(k, th, node, n, k->rp.total_samples - n);
}

typedef struct coll_line {
    size_t off, len;
    uint64_t count, first;
} coll_line;

static const char *g_text; /* for qsort's comparator (single-threaded CLI) */

static int line_cmp(const void *x, const void *y)
{
    const coll_line *a = x, *b = y;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(g_text + a->off, g_text + b->off, n);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* A growable text buffer (CLI side). */
typedef struct tbuf {
    char *p;
    size_t len, cap;
    bool nomem;
} tbuf;

static void tput(tbuf *b, const void *s, size_t n)
{
    if (b->nomem) return;
    if (b->len + n > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 4096;
        while (ncap < b->len + n) ncap *= 2;
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->nomem = true;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}


/* One part of a collapsed line: "file.py:func:12", or the function alone for "~" at line 0. */
static void coll_part(tbuf *b, const tach_names *nm, const tach_key *k)
{
    size_t fl, gl;
    const uint8_t *f = tach_name(nm, k->fn, &fl), *g = tach_name(nm, k->func, &gl);
    if (fl == 1 && f[0] == '~' && k->line == 0) {
        tput(b, g, gl);
        return;
    }
    size_t bl;
    const uint8_t *base = tach_basename(f, fl, &bl);
    char num[16];
    tput(b, base, bl);
    tput(b, ":", 1);
    tput(b, g, gl);
    int n = snprintf(num, sizeof num, ":%d", k->line);
    tput(b, num, (size_t)n);
}

typedef struct replay_feed {
    const pcd_conv_args *a;
    tach_replay *rp;
    pcd_record *next;
    bool other, bad;          /* stopped at a record that is not a sample / by the replay */
} replay_feed;

/* One record of a decoding run: a sample goes through the replay; anything else stops the
 * run and is kept in *next (its data stays valid until the reader's next call). */
static pcd_status replay_one(void *ud, const pcd_record *rec)
{
    replay_feed *f = ud;
    const tach_sample *s = tach_as_sample(rec);
    if (!s) {
        *f->next = *rec;
        f->other = true;
        return PCD_END;
    }
    if (f->a->progress && (rec->index & 4095) == 0) f->a->progress(f->a->progress_ud, rec->offset);
    pcd_status st = tach_replay_record(f->rp, s, rec);
    if (st != PCD_OK) f->bad = true;
    return st;
}

/* Reads the sample records of reader r through the replay, until the first record that is
 * not a sample (kept in *next, *have_next) or the end. Returns 0, or 1 after reporting damage
 * (the reader's or the replay's). */
int tach_replay_samples(const pcd_conv_args *a, pcd_reader *r, tach_replay *rp, pcd_record *next, bool *have_next)
{
    *have_next = false;
    replay_feed f = { a, rp, next, false, false };
    for (;;) {
        /* runs of samples through the decoding fast path; next() does the rest */
        uint64_t k;
        pcd_status st = pcd_reader_decode_run(r, 1u << 16, &k, replay_one, &f);
        if (f.bad) return damaged(a, &rp->err);
        if (f.other) {
            *have_next = true;
            break;
        }
        if (st == PCD_OK) st = pcd_reader_next(r, next);
        if (st == PCD_END) break;
        if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
        const tach_sample *s = tach_as_sample(next);
        if (!s) {
            *have_next = true;
            break;
        }
        if (a->progress && (next->index & 4095) == 0) a->progress(a->progress_ud, next->offset);
        if (tach_replay_record(rp, s, next) != PCD_OK) return damaged(a, &rp->err);
    }
    if (tach_replay_finish(rp) != PCD_OK) return damaged(a, &rp->err);
    return 0;
}

/* The tables after the samples: from reader r (positioned after the samples, `next` the
 * first table record) or, when the samples were damaged, from a second reader. */
static int tables_after(const pcd_conv_args *a, pcd_reader *r, const pcd_record *next, bool have_next, bool damaged_before,
                        tach_tables *t)
{
    if (!damaged_before) {
        if (have_next && tach_tables_add(t, next) != PCD_OK) return semantic(a, "out of memory (raise --max-memory)");
        pcd_record rec;
        for (;;) {
            pcd_status st = pcd_reader_next(r, &rec);
            if (st == PCD_END) return 0;
            if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
            if (tach_tables_add(t, &rec) != PCD_OK) return semantic(a, "out of memory (raise --max-memory)");
        }
    }
    /* the samples are damaged: the tables may still be fine */
    pcd_reader r2;
    const uint8_t *data;
    size_t size;
    if (!pcd_reader_input(a->r, &data, &size)) return 1;
    pcd_reader_opts o = { a->al, NULL, 0, false };
    if (pcd_reader_open_buffer(&r2, a->f, data, size, &o) != PCD_OK) return 1;
    tach_file root;
    int rc = tach_read_root(a, &r2, &root);
    if (!rc) rc = tach_read_tables(a, &r2, t);
    pcd_reader_close(&r2);
    return rc;
}

/* ---- collapsed stacks: exactly `python -m profiling.sampling replay --collapsed` ---------- */

int tach_collapsed_run(const pcd_conv_args *a)
{
    coll k, agg;
    memset(&k, 0, sizeof k);
    memset(&agg, 0, sizeof agg);
    k.al = agg.al = a->al;
    tach_file root;
    tach_tables t;
    tach_tables_init(&t, a->al);
    tach_names nm;
    memset(&nm, 0, sizeof nm);
    tach_mapper m;
    memset(&m, 0, sizeof m);
    tbuf text = { 0 };
    coll_line *lines = NULL;
    uint64_t *tids = NULL;
    uint32_t *tix = NULL;
    int rc = tach_read_root(a, a->r, &root);
    if (rc) goto out;
    if (tach_replay_init(&k.rp, &root, a->al, true, false) != PCD_OK || !coll_rehash(&k) || !coll_rehash(&agg)) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    k.rp.on_sample = coll_sample;
    k.rp.on_repeat = coll_repeat;
    k.rp.no_times = true;
    k.rp.ud = &k;
    /* one pass: samples, counted by thread and stack node; then the tables */
    pcd_record next;
    bool have_next;
    rc = tach_replay_samples(a, a->r, &k.rp, &next, &have_next);
    int trc = tables_after(a, a->r, &next, have_next, rc != 0, &t);
    if (trc) {
        rc = trc;
        goto out;
    }
    if (k.nomem) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    /* stack nodes -> the stacks CPython shows: (file, line, function) without its own frames */
    if (tach_names_build(&nm, &t, a->al) != PCD_OK || mapper_init(&m, &t, &nm, true, a->al) != PCD_OK) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    /* lines group by thread id alone, whatever the interpreter */
    tids = malloc((k.rp.n_threads + 1) * sizeof *tids);
    tix = malloc((k.rp.n_threads + 1) * sizeof *tix);
    if (!tids || !tix) {
        rc = semantic(a, "out of memory");
        goto out;
    }
    uint32_t n_tids = 0;
    for (uint32_t i = 0; i < k.rp.n_threads; i++) {
        uint32_t j = 0;
        while (j < n_tids && tids[j] != k.rp.threads[i]->tid) j++;
        if (j == n_tids) tids[n_tids++] = k.rp.threads[i]->tid;
        tix[i] = j;
    }
    /* in order of first appearance, so that the first sample that names a bad frame is the
     * one reported */
    for (uint32_t i = 0; i < k.n; i++) {
        uint32_t ti = (uint32_t)(k.ckey[i] >> 32), node = (uint32_t)k.ckey[i];
        uint32_t mapped;
        pcd_status st = map_node(&m, &k.rp, node, &mapped);
        if (st != PCD_OK) {
            rc = semantic(a, st == PCD_E_INVALID ? m.msg : "out of memory (raise --max-memory)");
            goto out;
        }
        if (!mapped) continue; /* nothing but CPython's own frames */
        uint32_t s = coll_slot(&agg, (uint64_t)tix[ti] << 32 | mapped, k.c[i].first);
        if (s == UINT32_MAX) {
            rc = semantic(a, "out of memory");
            goto out;
        }
        agg.c[s].count += k.c[i].count;
        if (k.c[i].first < agg.c[s].first) agg.c[s].first = k.c[i].first;
    }
    lines = malloc((agg.n + 1) * sizeof *lines);
    if (!lines) {
        rc = semantic(a, "out of memory");
        goto out;
    }
    uint32_t path[TACH_MAX_DEPTH];
    for (uint32_t i = 0; i < agg.n; i++) {
        uint32_t tj = (uint32_t)(agg.ckey[i] >> 32), mapped = (uint32_t)agg.ckey[i];
        lines[i].off = text.len;
        char num[32];
        int n = snprintf(num, sizeof num, "tid:%" PRIu64, tids[tj]);
        tput(&text, num, (size_t)n);
        uint32_t d = mapped_path(&m, mapped, path);
        for (uint32_t j = 0; j < d; j++) {
            tput(&text, ";", 1);
            coll_part(&text, &nm, &m.key[path[j]]);
        }
        lines[i].len = text.len - lines[i].off;
        lines[i].count = agg.c[i].count;
        lines[i].first = agg.c[i].first;
    }
    if (text.nomem) {
        rc = semantic(a, "out of memory");
        goto out;
    }
    g_text = text.p;
    qsort(lines, agg.n, sizeof *lines, line_cmp);
    for (uint32_t i = 0; i < agg.n; i++) {
        char num[32];
        int n = snprintf(num, sizeof num, " %" PRIu64 "\n", lines[i].count);
        pcd_status st = pcd_sink_put(a->out, text.p + lines[i].off, lines[i].len);
        if (st == PCD_OK) st = pcd_sink_put(a->out, num, (size_t)n);
        if (st != PCD_OK) {
            rc = cannot_write(a, st);
            break;
        }
    }
out:
    free(tids);
    free(tix);
    free(lines);
    free(text.p);
    mapper_free(&m);
    tach_names_free(&nm);
    tach_tables_free(&t);
    tach_replay_free(&k.rp);
    coll_free(&k);
    coll_free(&agg);
    return rc;
}

/* ---- speedscope --------------------------------------------------------------------------- */

typedef struct ss_thread {
    uint32_t *nodes;
    size_t n, cap;
} ss_thread;

typedef struct ss {
    tach_replay rp;
    ss_thread *th;
    uint32_t n_th;
    bool nomem;
} ss;

static void ss_sample(void *ud, const tach_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    ss *k = ud;
    (void)ts;
    (void)status;
    if (k->nomem) return;
    if (th->index >= k->n_th) {
        uint32_t nn = th->index + 1;
        ss_thread *nt = realloc(k->th, nn * sizeof *nt);
        if (!nt) {
            k->nomem = true;
            return;
        }
        memset(nt + k->n_th, 0, (nn - k->n_th) * sizeof *nt);
        k->th = nt;
        k->n_th = nn;
    }
    ss_thread *t = &k->th[th->index];
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 1024;
        uint32_t *nn = realloc(t->nodes, ncap * sizeof *nn);
        if (!nn) {
            k->nomem = true;
            return;
        }
        t->nodes = nn;
        t->cap = ncap;
    }
    t->nodes[t->n++] = node;
}

/* A JSON string of text that is already well-formed UTF-8. */
static pcd_status jstr(pcd_sink *s, const uint8_t *p, size_t n) { return pcd_json_string(s, p, n); }

int tach_speedscope_run(const pcd_conv_args *a)
{
    ss k;
    memset(&k, 0, sizeof k);
    tach_file root;
    tach_tables t;
    tach_tables_init(&t, a->al);
    tach_names nm;
    memset(&nm, 0, sizeof nm);
    tach_mapper m;
    memset(&m, 0, sizeof m);
    pcd_sink *s = a->out;
    pcd_status st = PCD_OK;
    int rc = tach_read_root(a, a->r, &root);
    if (rc) goto out;
    if (tach_replay_init(&k.rp, &root, a->al, true, false) != PCD_OK) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    k.rp.on_sample = ss_sample;
    k.rp.ud = &k;
    pcd_record next;
    bool have_next;
    rc = tach_replay_samples(a, a->r, &k.rp, &next, &have_next);
    int trc = tables_after(a, a->r, &next, have_next, rc != 0, &t);
    if (trc) {
        rc = trc;
        goto out;
    }
    if (k.nomem || tach_names_build(&nm, &t, a->al) != PCD_OK || mapper_init(&m, &t, &nm, true, a->al) != PCD_OK) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    /* map every sample first: a bad frame index stops here, before any output */
    for (uint32_t i = 0; i < k.n_th; i++) {
        for (size_t j = 0; j < k.th[i].n; j++) {
            uint32_t mapped;
            pcd_status ms = map_node(&m, &k.rp, k.th[i].nodes[j], &mapped);
            if (ms != PCD_OK) {
                rc = semantic(a, ms == PCD_E_INVALID ? m.msg : "out of memory (raise --max-memory)");
                goto out;
            }
            k.th[i].nodes[j] = mapped;
        }
    }
    char buf[256];
    st = pcd_json_raw(s, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"profcodec\",\"name\":");
    if (st == PCD_OK) st = pcd_json_text(s, (const uint8_t *)a->input_name, strlen(a->input_name));
    if (st == PCD_OK) st = pcd_json_raw(s, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    for (uint32_t i = 0; st == PCD_OK && i < m.n_keys; i++) {
        const tach_key *kk = &m.key[i];
        size_t fl, gl;
        const uint8_t *f = tach_name(&nm, kk->fn, &fl), *g = tach_name(&nm, kk->func, &gl);
        st = pcd_json_raw(s, i ? ",{\"name\":" : "{\"name\":");
        if (st == PCD_OK) st = jstr(s, g, gl);
        if (st == PCD_OK && !(fl == 1 && f[0] == '~')) {
            st = pcd_json_raw(s, ",\"file\":");
            if (st == PCD_OK) st = jstr(s, f, fl);
            if (st == PCD_OK && t.frames[kk->frame].lineno != -1) {
                int n = snprintf(buf, sizeof buf, ",\"line\":%d", kk->line);
                st = pcd_sink_put(s, buf, (size_t)n);
            }
        }
        if (st == PCD_OK) st = pcd_json_raw(s, "}");
    }
    if (st == PCD_OK) st = pcd_json_raw(s, "]},\"profiles\":[");
    bool first_profile = true;
    for (uint32_t i = 0; st == PCD_OK && i < k.rp.n_threads; i++) {
        const tach_thread *th = k.rp.threads[i];
        ss_thread *tt = th->index < k.n_th ? &k.th[th->index] : NULL;
        uint64_t begin = th->samples ? th->first_ts - root.start_time_us : 0;
        uint64_t end = th->samples ? th->last_ts - root.start_time_us + root.sample_interval_us : 0;
        char iname[48] = "";
        if (th->interp) snprintf(iname, sizeof iname, " (interpreter %u)", th->interp);
        int n = snprintf(buf, sizeof buf,
                         "%s{\"type\":\"sampled\",\"name\":\"Thread %" PRIu64 "%s\",\"unit\":\"microseconds\","
                         "\"startValue\":%" PRIu64 ",\"endValue\":%" PRIu64 ",\"samples\":[",
                         first_profile ? "" : ",", th->tid, iname, begin, end);
        first_profile = false;
        st = pcd_sink_put(s, buf, (size_t)n);
        uint64_t shown = 0;
        uint32_t path[TACH_MAX_DEPTH];
        for (size_t j = 0; st == PCD_OK && tt && j < tt->n; j++) {
            if (!tt->nodes[j]) continue; /* an empty stack */
            uint32_t d = mapped_path(&m, tt->nodes[j], path);
            st = pcd_json_raw(s, shown ? ",[" : "[");
            for (uint32_t q = 0; st == PCD_OK && q < d; q++) {
                n = snprintf(buf, sizeof buf, "%s%u", q ? "," : "", path[q]);
                st = pcd_sink_put(s, buf, (size_t)n);
            }
            if (st == PCD_OK) st = pcd_json_raw(s, "]");
            shown++;
        }
        if (st == PCD_OK) st = pcd_json_raw(s, "],\"weights\":[");
        for (uint64_t j = 0; st == PCD_OK && j < shown; j++) {
            n = snprintf(buf, sizeof buf, "%s%" PRIu64, j ? "," : "", root.sample_interval_us);
            st = pcd_sink_put(s, buf, (size_t)n);
        }
        if (st == PCD_OK) st = pcd_json_raw(s, "]}");
    }
    if (st == PCD_OK) st = pcd_json_raw(s, "]}\n");
    if (st != PCD_OK) rc = cannot_write(a, st);
out:
    for (uint32_t i = 0; i < k.n_th; i++) free(k.th[i].nodes);
    free(k.th);
    mapper_free(&m);
    tach_names_free(&nm);
    tach_tables_free(&t);
    tach_replay_free(&k.rp);
    return rc;
}

/* ---- Chrome Trace Event JSON: a timeline per thread ------------------------------------------ */

typedef struct ch_thread {
    uint32_t depth;
    uint32_t path[TACH_MAX_DEPTH];   /* mapped nodes, outermost first */
    uint64_t start[TACH_MAX_DEPTH];  /* when each began */
    uint64_t last_ts;
    bool started;
} ch_thread;

typedef struct chrome {
    const pcd_conv_args *a;
    tach_replay rp;
    tach_mapper m;
    const tach_names *nm;
    const tach_tables *t;
    ch_thread **th;
    uint32_t n_th;
    uint64_t origin, interval, events;
    pcd_status st;
    bool bad;                        /* a frame or string index out of range */
} chrome;

static pcd_status ch_event(chrome *c, const tach_thread *th, uint32_t node, uint64_t begin, uint64_t end)
{
    const tach_key *k = &c->m.key[c->m.mt.frame[node]];
    size_t fl, gl;
    const uint8_t *f = tach_name(c->nm, k->fn, &fl), *g = tach_name(c->nm, k->func, &gl);
    pcd_sink *s = c->a->out;
    char buf[160];
    PCD_TRY(pcd_json_raw(s, c->events++ ? ",\n{\"ph\":\"X\",\"name\":" : "{\"ph\":\"X\",\"name\":"));
    PCD_TRY(jstr(s, g, gl));
    int n = snprintf(buf, sizeof buf, ",\"cat\":\"python\",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 ",\"pid\":%u,\"tid\":%" PRIu64,
                     begin - c->origin, end - begin, th->interp, th->tid);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (!(fl == 1 && f[0] == '~')) {
        PCD_TRY(pcd_json_raw(s, ",\"args\":{\"file\":"));
        PCD_TRY(jstr(s, f, fl));
        PCD_TRY(pcd_json_raw(s, "}"));
    }
    return pcd_json_raw(s, "}");
}

/* Ends the levels of th's open stack from `keep` up, at `ts`. */
static pcd_status ch_close(chrome *c, const tach_thread *th, ch_thread *ct, uint32_t keep, uint64_t ts)
{
    while (ct->depth > keep) {
        ct->depth--;
        PCD_TRY(ch_event(c, th, ct->path[ct->depth], ct->start[ct->depth], ts));
    }
    return PCD_OK;
}

static void ch_sample(void *ud, const tach_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    chrome *c = ud;
    (void)status;
    if (c->st != PCD_OK || c->bad) return;
    if (th->index >= c->n_th) {
        uint32_t nn = th->index + 1;
        ch_thread **nt = realloc(c->th, nn * sizeof *nt);
        if (!nt) {
            c->st = PCD_E_NOMEM;
            return;
        }
        for (uint32_t i = c->n_th; i < nn; i++) nt[i] = NULL;
        c->th = nt;
        c->n_th = nn;
    }
    ch_thread *ct = c->th[th->index];
    if (!ct) {
        ct = calloc(1, sizeof *ct);
        if (!ct) {
            c->st = PCD_E_NOMEM;
            return;
        }
        c->th[th->index] = ct;
    }
    uint32_t mapped;
    pcd_status ms = map_node(&c->m, &c->rp, node, &mapped);
    if (ms != PCD_OK) {
        if (ms == PCD_E_INVALID) c->bad = true;
        else c->st = ms;
        return;
    }
    uint32_t path[TACH_MAX_DEPTH];
    uint32_t tmp[TACH_MAX_DEPTH];
    uint32_t d = 0;
    for (uint32_t at = mapped; at && d < TACH_MAX_DEPTH; at = c->m.mt.parent[at]) tmp[d++] = at;
    for (uint32_t i = 0; i < d; i++) path[i] = tmp[d - 1 - i];
    uint32_t common = 0;
    while (common < d && common < ct->depth && ct->path[common] == path[common]) common++;
    c->st = ch_close(c, th, ct, common, ts);
    for (uint32_t i = common; i < d; i++) {
        ct->path[i] = path[i];
        ct->start[i] = ts;
    }
    ct->depth = d;
    ct->last_ts = ts;
    ct->started = true;
}

int tach_chrome_run(const pcd_conv_args *a)
{
    chrome c;
    memset(&c, 0, sizeof c);
    c.a = a;
    tach_file root;
    tach_tables t;
    tach_tables_init(&t, a->al);
    tach_names nm;
    memset(&nm, 0, sizeof nm);
    pcd_reader r2;
    bool r2_open = false;
    pcd_sink *s = a->out;
    pcd_status st = PCD_OK;
    /* pass 1: the header and the tables */
    int rc = tach_read_root(a, a->r, &root);
    if (!rc) rc = tach_read_tables(a, a->r, &t);
    if (rc) goto out;
    if (tach_names_build(&nm, &t, a->al) != PCD_OK || mapper_init(&c.m, &t, &nm, false, a->al) != PCD_OK ||
        tach_replay_init(&c.rp, &root, a->al, true, false) != PCD_OK) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    c.nm = &nm;
    c.t = &t;
    c.origin = root.start_time_us;
    c.interval = root.sample_interval_us;
    c.rp.on_sample = ch_sample;
    c.rp.ud = &c;
    char buf[512], cfg[160];
    tach_config_text(cfg, sizeof cfg, root.config);
    int n = snprintf(buf, sizeof buf,
                     "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":\"tachyon 1\","
                     "\"python_version\":\"%u.%u.%u\",\"mode\":\"%s\",\"sample_interval_us\":%" PRIu64
                     ",\"start_time_us\":%" PRIu64 ",\"ts_origin\":\"start_time_us\"},\"traceEvents\":[\n",
                     root.python_version.major, root.python_version.minor, root.python_version.micro, cfg,
                     root.sample_interval_us, root.start_time_us);
    st = pcd_sink_put(s, buf, (size_t)n);
    if (st != PCD_OK) {
        rc = cannot_write(a, st);
        goto out;
    }
    /* pass 2: the samples, as slices that last while their frame stays on the stack */
    rc = tach_open_samples(a, &r2, &r2_open);
    pcd_record next;
    bool have_next;
    if (!rc) rc = tach_replay_samples(a, &r2, &c.rp, &next, &have_next);
    if (c.bad) rc = semantic(a, c.m.msg);
    /* the stacks still open end one interval after their thread's last sample */
    for (uint32_t i = 0; c.st == PCD_OK && i < c.rp.n_threads; i++) {
        const tach_thread *th = c.rp.threads[i];
        ch_thread *ct = th->index < c.n_th ? c.th[th->index] : NULL;
        if (ct && ct->started) c.st = ch_close(&c, th, ct, 0, ct->last_ts + c.interval);
    }
    /* names of processes (interpreters) and threads */
    for (uint32_t i = 0; c.st == PCD_OK && i < c.rp.n_threads; i++) {
        const tach_thread *th = c.rp.threads[i];
        bool new_interp = true;
        for (uint32_t j = 0; j < i; j++)
            if (c.rp.threads[j]->interp == th->interp) new_interp = false;
        if (new_interp) {
            n = snprintf(buf, sizeof buf,
                         "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"Python interpreter %u\"}}",
                         c.events++ ? ",\n" : "", th->interp, th->interp);
            c.st = pcd_sink_put(s, buf, (size_t)n);
        }
        n = snprintf(buf, sizeof buf,
                     "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%" PRIu64
                     ",\"args\":{\"name\":\"Thread %" PRIu64 "\"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%" PRIu64
                     ",\"args\":{\"sort_index\":%u}}",
                     c.events++ ? ",\n" : "", th->interp, th->tid, th->tid, th->interp, th->tid, th->index);
        if (c.st == PCD_OK) c.st = pcd_sink_put(s, buf, (size_t)n);
    }
    if (c.st == PCD_OK) c.st = pcd_json_raw(s, "\n]}\n");
    if (c.st == PCD_E_NOMEM) rc = semantic(a, "out of memory (raise --max-memory)");
    else if (c.st != PCD_OK) rc = cannot_write(a, c.st);
out:
    if (r2_open) pcd_reader_close(&r2);
    for (uint32_t i = 0; i < c.n_th; i++) free(c.th[i]);
    free(c.th);
    mapper_free(&c.m);
    tach_replay_free(&c.rp);
    tach_names_free(&nm);
    tach_tables_free(&t);
    return rc;
}

/* ---- the per-sample text of CPython's reader (the corpus's dump_samples.py) ----------------- */

typedef struct sm_thread {
    uint32_t ids[TACH_MAX_DEPTH];
    uint32_t n;
    bool valid;
} sm_thread;

/* Frames as the dump names them: by content (file, function, location, opcode), in order of
 * first appearance. */
typedef struct sm_key {
    uint64_t w[4];
} sm_key;

typedef struct samples_out {
    const pcd_conv_args *a;
    tach_replay rp;
    const tach_tables *t;
    const tach_names *nm;
    uint32_t *frame_id;              /* frame index -> dump id + 1 */
    sm_key *keys;                    /* open addressing */
    uint32_t *kvals;                 /* dump id + 1 */
    size_t kcap;
    uint32_t *id_frame;              /* dump id -> a frame with that content */
    uint32_t n_ids;
    sm_thread **th;
    uint32_t n_th;
    pcd_status st;
    bool bad;
    char msg[160];
} samples_out;

static sm_key frame_content(const samples_out *o, uint32_t f)
{
    const tach_frame_rec *fr = &o->t->frames[f];
    tach_loc l = tach_frame_loc(fr);
    sm_key k;
    k.w[0] = (uint64_t)o->nm->canon[fr->filename] << 32 | o->nm->canon[fr->funcname];
    k.w[1] = (uint64_t)(uint32_t)l.lineno << 32 | (uint32_t)l.end_lineno;
    k.w[2] = (uint64_t)(uint32_t)l.column << 32 | (uint32_t)l.end_column;
    k.w[3] = fr->opcode;
    return k;
}

/* The dump id of frame f. */
static uint32_t dump_id(samples_out *o, uint32_t f)
{
    if (o->frame_id[f]) return o->frame_id[f] - 1;
    sm_key k = frame_content(o, f);
    uint64_t h = mix(k.w[0] ^ mix(k.w[1] ^ mix(k.w[2] ^ mix(k.w[3]))));
    size_t i = h & (o->kcap - 1);
    while (o->kvals[i]) {
        if (memcmp(&o->keys[i], &k, sizeof k) == 0) {
            o->frame_id[f] = o->kvals[i];
            return o->kvals[i] - 1;
        }
        i = (i + 1) & (o->kcap - 1);
    }
    uint32_t id = o->n_ids++;
    o->keys[i] = k;
    o->kvals[i] = id + 1;
    o->id_frame[id] = f;
    o->frame_id[f] = id + 1;
    return id;
}

static void sm_sample(void *ud, const tach_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    samples_out *o = ud;
    if (o->st != PCD_OK || o->bad) return;
    if (th->index >= o->n_th) {
        uint32_t nn = th->index + 1;
        sm_thread **nt = realloc(o->th, nn * sizeof *nt);
        if (!nt) {
            o->st = PCD_E_NOMEM;
            return;
        }
        for (uint32_t i = o->n_th; i < nn; i++) nt[i] = NULL;
        o->th = nt;
        o->n_th = nn;
    }
    sm_thread *st = o->th[th->index];
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) {
            o->st = PCD_E_NOMEM;
            return;
        }
        o->th[th->index] = st;
    }
    uint32_t frames[TACH_MAX_DEPTH], ids[TACH_MAX_DEPTH];
    uint32_t d = tach_replay_stack_inner(&o->rp, node, frames);
    for (uint32_t i = 0; i < d; i++) {
        const tach_frame_rec *fr = frames[i] < o->t->n_frames ? &o->t->frames[frames[i]] : NULL;
        if (!fr) {
            snprintf(o->msg, sizeof o->msg, "Invalid frame index: %u", frames[i]);
            o->bad = true;
            return;
        }
        if (fr->filename >= o->nm->n || fr->funcname >= o->nm->n) {
            snprintf(o->msg, sizeof o->msg, "Invalid string index in frame %u", frames[i]);
            o->bad = true;
            return;
        }
        ids[i] = dump_id(o, frames[i]);
    }
    bool same = st->valid && st->n == d && memcmp(st->ids, ids, d * sizeof ids[0]) == 0;
    st->valid = true;
    st->n = d;
    memcpy(st->ids, ids, d * sizeof ids[0]);
    char buf[96];
    int n = snprintf(buf, sizeof buf, "S %" PRIu64 " %u %u %" PRIu64 " ", th->tid, th->interp, status, ts);
    pcd_sink *s = o->a->out;
    o->st = pcd_sink_put(s, buf, (size_t)n);
    if (same) {
        if (o->st == PCD_OK) o->st = pcd_sink_put(s, "=", 1);
    } else {
        for (uint32_t i = 0; o->st == PCD_OK && i < d; i++) {
            n = snprintf(buf, sizeof buf, "%s%u", i ? " " : "", ids[i]);
            o->st = pcd_sink_put(s, buf, (size_t)n);
        }
    }
    if (o->st == PCD_OK) o->st = pcd_sink_put(s, "\n", 1);
}

static pcd_status put_line(pcd_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static pcd_status put_line(pcd_sink *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return PCD_E_INTERNAL;
    return pcd_sink_put(s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* "# info" lines: the sorted keys of BinaryReader.get_info(). */
static pcd_status info_lines(pcd_sink *s, const tach_file *h, const tach_tables *t)
{
    int feat = tach_config_features(h->config), mode = tach_config_mode(h->config);
    if (feat < 0) PCD_TRY(put_line(s, "# info capture_config=None\n"));
    else {
        PCD_TRY(put_line(s, "# info capture_config={"));
        for (int i = 0; i < 5; i++)
            PCD_TRY(put_line(s, "%s'%s': %s", i ? ", " : "", tach_feature_names[i], (feat & (1 << i)) ? "True" : "False"));
        PCD_TRY(put_line(s, "}\n"));
    }
    PCD_TRY(put_line(s, "# info compression_type=%u\n", h->compression));
    /* CPython reads the statistics block only in version 1 */
    bool stats = t->have_stats && h->stats_version == 1;
    char f[40];
    if (stats) tach_py_float_repr(f, sizeof f, t->stats.duration_sec);
    PCD_TRY(put_line(s, "# info duration_sec=%s\n", stats ? f : "None"));
    bool er = stats && t->stats.has_present && (t->stats.present & 1);
    if (er) tach_py_float_repr(f, sizeof f, t->stats.error_rate);
    PCD_TRY(put_line(s, "# info error_rate=%s\n", er ? f : "None"));
    PCD_TRY(put_line(s, "# info frame_count=%u\n", h->frame_count));
    bool ms = stats && t->stats.has_present && (t->stats.present & 2);
    if (ms) tach_py_float_repr(f, sizeof f, t->stats.missed_samples);
    PCD_TRY(put_line(s, "# info missed_samples=%s\n", ms ? f : "None"));
    if (mode < 0) PCD_TRY(put_line(s, "# info mode=None\n"));
    else PCD_TRY(put_line(s, "# info mode=%d\n", mode));
    PCD_TRY(put_line(s, "# info python_version=(%u, %u, %u)\n", h->python_version.major, h->python_version.minor,
                     h->python_version.micro));
    PCD_TRY(put_line(s, "# info sample_count=%" PRIu64 "\n", h->sample_count));
    PCD_TRY(put_line(s, "# info sample_interval_us=%" PRIu64 "\n", h->sample_interval_us));
    if (stats) tach_py_float_repr(f, sizeof f, t->stats.sample_rate);
    PCD_TRY(put_line(s, "# info sample_rate=%s\n", stats ? f : "None"));
    PCD_TRY(put_line(s, "# info start_time_us=%" PRIu64 "\n", h->start_time_us));
    PCD_TRY(put_line(s, "# info string_count=%u\n", h->string_count));
    PCD_TRY(put_line(s, "# info thread_count=%u\n", h->thread_count));
    return put_line(s, "# info version=%u\n", h->version);
}

int tach_samples_run(const pcd_conv_args *a)
{
    samples_out o;
    memset(&o, 0, sizeof o);
    o.a = a;
    tach_file root;
    tach_tables t;
    tach_tables_init(&t, a->al);
    tach_names nm;
    memset(&nm, 0, sizeof nm);
    pcd_reader r2;
    bool r2_open = false;
    pcd_sink *s = a->out;
    char *repr = NULL;
    int rc = tach_read_root(a, a->r, &root);
    if (!rc) rc = tach_read_tables(a, a->r, &t);
    if (rc) goto out;
    o.t = &t;
    o.nm = &nm;
    size_t nf = t.n_frames ? t.n_frames : 1;
    o.frame_id = calloc(nf, sizeof *o.frame_id);
    o.id_frame = calloc(nf, sizeof *o.id_frame);
    o.kcap = 16;
    while (o.kcap < nf * 2) o.kcap *= 2;
    o.keys = calloc(o.kcap, sizeof *o.keys);
    o.kvals = calloc(o.kcap, sizeof *o.kvals);
    if (!o.frame_id || !o.id_frame || !o.keys || !o.kvals || tach_names_build(&nm, &t, a->al) != PCD_OK ||
        tach_replay_init(&o.rp, &root, a->al, true, false) != PCD_OK) {
        rc = semantic(a, "out of memory (raise --max-memory)");
        goto out;
    }
    o.rp.on_sample = sm_sample;
    o.rp.ud = &o;
    o.st = info_lines(s, &root, &t);
    if (o.st == PCD_OK) {
        rc = tach_open_samples(a, &r2, &r2_open);
        pcd_record next;
        bool have_next;
        if (!rc) rc = tach_replay_samples(a, &r2, &o.rp, &next, &have_next);
    }
    if (o.bad) {
        rc = semantic(a, o.msg);
        goto out;
    }
    size_t cap = 0;
    for (uint32_t i = 0; i < nm.n; i++)
        if (nm.len[i] > cap) cap = nm.len[i];
    repr = malloc(10 * cap + 2);
    if (!repr) o.st = PCD_E_NOMEM;
    for (uint32_t id = 0; o.st == PCD_OK && id < o.n_ids; id++) {
        const tach_frame_rec *fr = &t.frames[o.id_frame[id]];
        tach_loc l = tach_frame_loc(fr);
        o.st = put_line(s, "F %u %d %d %d %d %d ", id, l.lineno, l.end_lineno, l.column, l.end_column,
                        fr->opcode == 255 ? -1 : fr->opcode);
        size_t len;
        const uint8_t *p = tach_name(&nm, fr->filename, &len);
        size_t k = tach_py_str_repr(p, len, repr);
        if (o.st == PCD_OK) o.st = pcd_sink_put(s, repr, k);
        if (o.st == PCD_OK) o.st = pcd_sink_put(s, " ", 1);
        p = tach_name(&nm, fr->funcname, &len);
        k = tach_py_str_repr(p, len, repr);
        if (o.st == PCD_OK) o.st = pcd_sink_put(s, repr, k);
        if (o.st == PCD_OK) o.st = pcd_sink_put(s, "\n", 1);
    }
    if (!rc && o.st == PCD_OK) {
        const tach_replay *rp = &o.rp;
        o.st = put_line(s,
                        "# stats full_records=%" PRIu64 "\n# stats pop_push_records=%" PRIu64 "\n# stats repeat_records=%" PRIu64
                        "\n# stats repeat_samples=%" PRIu64 "\n# stats stack_reconstructions=%" PRIu64
                        "\n# stats suffix_records=%" PRIu64 "\n# stats total_records=%" PRIu64
                        "\n# stats total_samples=%" PRIu64 "\n",
                        rp->records[1], rp->records[3], rp->records[0], rp->repeat_samples,
                        rp->records[1] + rp->records[2] + rp->records[3], rp->records[2], rp->total_records,
                        rp->total_samples);
        if (o.st == PCD_OK)
            o.st = put_line(s, "# replayed=%" PRIu64 " emitted_samples=%" PRIu64 "\n", rp->total_samples,
                            rp->total_samples);
    }
    if (o.st == PCD_E_NOMEM) rc = semantic(a, "out of memory (raise --max-memory)");
    else if (o.st != PCD_OK) rc = cannot_write(a, o.st);
out:
    free(repr);
    if (r2_open) pcd_reader_close(&r2);
    for (uint32_t i = 0; i < o.n_th; i++) free(o.th[i]);
    free(o.th);
    free(o.frame_id);
    free(o.id_frame);
    free(o.keys);
    free(o.kvals);
    tach_replay_free(&o.rp);
    tach_names_free(&nm);
    tach_tables_free(&t);
    return rc;
}
