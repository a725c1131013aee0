/* formats/mojo/asm.c: the MOJO sample assembler (see asm.h for the semantics; pytext.c writes
 * numbers as Python does). */
#include "formats/mojo/asm.h"

#include <stdio.h>
#include <string.h>

#include "common/hash.h"
#include "common/problem.h"
#include "common/text.h"

/* ---- events of each version ---------------------------------------------------- */

int pcd_mojo_version_of(const pcd_record *rec)
{
    if (rec->type == &pcd_mojo_v4_event_type || rec->type == &pcd_mojo_v4_file_type) return 4;
    if (rec->type == &pcd_mojo_v3_event_type || rec->type == &pcd_mojo_v3_file_type) return 3;
    if (rec->type == &pcd_mojo_v2_event_type || rec->type == &pcd_mojo_v2_file_type) return 2;
    if (rec->type == &pcd_mojo_v1_event_type || rec->type == &pcd_mojo_v1_file_type) return 1;
    return 0;
}

/* ---- memory ------------------------------------------------------------------- */

/* Grows *p (n_have elements of size sz) to hold at least need; false when refused. */
static bool grow(mojo_asm *a, void **p, uint32_t *cap, size_t sz, size_t need)
{
    if (need <= *cap) return true;
    if (a->oom) return false;
    size_t ncap = *cap ? (size_t)*cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX / 2) {
        a->oom = PCD_E_NOMEM;
        return false;
    }
    void *q = pcd_alloc_resize(a->al, *p, (size_t)*cap * sz, ncap * sz);
    if (!q) {
        a->oom = PCD_E_NOMEM;
        return false;
    }
    *p = q;
    *cap = (uint32_t)ncap;
    return true;
}

/* ---- key maps ------------------------------------------------------------------- */



/* Python's ints: -0 is 0. */
static pcd_mojo_int norm(pcd_mojo_int v)
{
    if (v.mag == 0) v.neg = false;
    return v;
}

/* A member of a view its case may not have: 0 when it has not. */
static pcd_mojo_int norm_opt(bool has, pcd_mojo_int v)
{
    pcd_mojo_int zero = { 0, false };
    return has ? norm(v) : zero;
}


static bool kmap_put(mojo_asm *a, mojo_kmap *m, pcd_mojo_int k, uint32_t val)
{
    struct mojo_kslot *s = mojo_kmap_find(m, k);
    if (s) {
        s->val = val;
        return true;
    }
    if ((m->len + 1) * 4 > m->cap * 3) {
        if (a->oom) return false;
        uint32_t ncap = m->cap ? m->cap * 2 : 16;
        if (ncap < m->cap) {
            a->oom = PCD_E_NOMEM;
            return false;
        }
        struct mojo_kslot *ns = pcd_alloc_get(a->al, (size_t)ncap * sizeof *ns);
        if (!ns) {
            a->oom = PCD_E_NOMEM;
            return false;
        }
        memset(ns, 0, (size_t)ncap * sizeof *ns);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->s[i].tag) continue;
            uint32_t j = mojo_kslot_at(m->s[i].key, ncap);
            while (ns[j].tag) j = (j + 1) & (ncap - 1);
            ns[j] = m->s[i];
        }
        pcd_alloc_free(a->al, m->s, (size_t)m->cap * sizeof *m->s);
        m->s = ns;
        m->cap = ncap;
    }
    uint32_t i = mojo_kslot_at(k.mag, m->cap);
    while (m->s[i].tag) i = (i + 1) & (m->cap - 1);
    m->s[i].key = k.mag;
    m->s[i].tag = 1 + (uint32_t)k.neg;
    m->s[i].val = val;
    m->len++;
    return true;
}

static void kmap_free(mojo_asm *a, mojo_kmap *m)
{
    pcd_alloc_free(a->al, m->s, (size_t)m->cap * sizeof *m->s);
    memset(m, 0, sizeof *m);
}

/* ---- strings ------------------------------------------------------------------ */

#define NO_TEXT UINT64_MAX
#define RAW_TEXT (UINT64_MAX - 1)

struct pcd_mojo_str {
    uint64_t off;
    uint32_t len, hash;
    uint64_t tid_off;           /* tid text in the pool: NO_TEXT not made yet, RAW_TEXT the bytes */
    uint32_t tid_len;
};

static uint32_t hash_bytes(const uint8_t *p, size_t n) { return (uint32_t)pcd_hash_key(p, n); }

pcd_bytes pcd_mojo_str(const mojo_asm *a, uint32_t id)
{
    pcd_bytes b = { NULL, 0 };
    if (id >= a->n_str) return b;
    b.ptr = a->pool + a->str[id].off;
    b.len = a->str[id].len;
    return b;
}

static bool pool_add(mojo_asm *a, const uint8_t *p, size_t n, uint64_t *off)
{
    if (a->pool_len + n < a->pool_len) return false;
    if (a->pool_len + n > a->pool_cap) {
        if (a->oom) return false;
        size_t ncap = a->pool_cap ? a->pool_cap * 2 : 4096;
        while (ncap < a->pool_len + n) ncap *= 2;
        uint8_t *q = pcd_alloc_resize(a->al, a->pool, a->pool_cap, ncap);
        if (!q) {
            a->oom = PCD_E_NOMEM;
            return false;
        }
        a->pool = q;
        a->pool_cap = ncap;
    }
    if (n) memcpy(a->pool + a->pool_len, p, n);
    *off = a->pool_len;
    a->pool_len += n;
    return true;
}

/* The id of these bytes, added if new; UINT32_MAX when out of memory. The strings' and the
 * frames' indexes (str_idx, fr_idx) hold 4-byte ids into str[] and fr[], which hold the keys
 * (bytes; a frame's file, scope and four positions). Not common/hmap.c (docs/design.md, "One
 * hash, one table"): the key is wider than the hmap's three words, and it is kept once, in the
 * array the ids index; the hmap would copy it into 48-byte slots or hold only its hash. */
static uint32_t intern(mojo_asm *a, const uint8_t *p, size_t n)
{
    if (n > UINT32_MAX) n = UINT32_MAX;
    uint32_t h = hash_bytes(p, n);
    if (a->str_idx_cap) {
        for (uint32_t i = h & (a->str_idx_cap - 1);; i = (i + 1) & (a->str_idx_cap - 1)) {
            uint32_t id = a->str_idx[i];
            if (!id) break;
            const struct pcd_mojo_str *s = &a->str[id - 1];
            if (s->hash == h && s->len == n && pcd_key_equal(a->pool + s->off, p, n)) return id - 1;
        }
    }
    if ((size_t)(a->n_str + 1) * 2 > a->str_idx_cap) {
        uint32_t ncap = a->str_idx_cap ? a->str_idx_cap * 2 : 64;
        uint32_t *ni = a->oom ? NULL : pcd_alloc_get(a->al, (size_t)ncap * sizeof *ni);
        if (!ni) {
            a->oom = PCD_E_NOMEM;
            return UINT32_MAX;
        }
        memset(ni, 0, (size_t)ncap * sizeof *ni);
        for (uint32_t k = 0; k < a->n_str; k++) {
            uint32_t j = a->str[k].hash & (ncap - 1);
            while (ni[j]) j = (j + 1) & (ncap - 1);
            ni[j] = k + 1;
        }
        pcd_alloc_free(a->al, a->str_idx, (size_t)a->str_idx_cap * sizeof *a->str_idx);
        a->str_idx = ni;
        a->str_idx_cap = ncap;
    }
    if (!grow(a, (void **)&a->str, &a->str_cap, sizeof *a->str, (size_t)a->n_str + 1)) return UINT32_MAX;
    uint64_t off;
    if (!pool_add(a, p, n, &off)) return UINT32_MAX;
    uint32_t id = a->n_str++;
    a->str[id] = (struct pcd_mojo_str){ off, (uint32_t)n, h, NO_TEXT, 0 };
    uint32_t i = h & (a->str_idx_cap - 1);
    while (a->str_idx[i]) i = (i + 1) & (a->str_idx_cap - 1);
    a->str_idx[i] = id + 1;
    return id;
}

/* ---- thread ids as Austin prints them ------------------------------------------------ */

pcd_bytes pcd_mojo_tid_text(mojo_asm *a, uint32_t tid)
{
    pcd_bytes b = pcd_mojo_str(a, tid);
    if (tid >= a->n_str) return b;
    struct pcd_mojo_str *s = &a->str[tid];
    if (s->tid_off == NO_TEXT) {
        char dec[MOJO_PY_MAX_STR_DIGITS + 2];
        size_t n = pcd_mojo_py_hex_to_dec(b.ptr, b.len, dec, sizeof dec);
        uint64_t off;
        if (n && pool_add(a, (const uint8_t *)dec, n, &off)) {
            s = &a->str[tid];
            s->tid_off = off;
            s->tid_len = (uint32_t)n;
        } else {
            s->tid_off = RAW_TEXT;
        }
        b = pcd_mojo_str(a, tid);
    }
    if (s->tid_off == RAW_TEXT) return b;
    return (pcd_bytes){ a->pool + s->tid_off, s->tid_len };
}

/* ---- frames ------------------------------------------------------------------- */

static bool mi_eq(pcd_mojo_int x, pcd_mojo_int y) { return x.mag == y.mag && x.neg == y.neg; }

static uint32_t frame_hash(const mojo_frame *f)
{
    uint64_t h = pcd_mix64(((uint64_t)f->file << 32 | f->scope) ^ pcd_mix64(f->line.mag + 2 * f->line.neg));
    h = pcd_mix64(h ^ f->line_end.mag ^ ((uint64_t)f->line_end.neg << 63));
    h = pcd_mix64(h ^ f->column.mag ^ ((uint64_t)f->column.neg << 63) ^ pcd_mix64(f->column_end.mag + f->column_end.neg));
    return (uint32_t)h;
}

static uint32_t frame_intern(mojo_asm *a, const mojo_frame *f)
{
    uint32_t h = frame_hash(f);
    if (a->fr_idx_cap) {
        for (uint32_t i = h & (a->fr_idx_cap - 1);; i = (i + 1) & (a->fr_idx_cap - 1)) {
            uint32_t id = a->fr_idx[i];
            if (!id) break;
            const mojo_frame *g = &a->fr[id - 1];
            if (g->file == f->file && g->scope == f->scope && mi_eq(g->line, f->line) &&
                mi_eq(g->line_end, f->line_end) && mi_eq(g->column, f->column) && mi_eq(g->column_end, f->column_end))
                return id - 1;
        }
    }
    if ((size_t)(a->n_fr + 1) * 2 > a->fr_idx_cap) {
        uint32_t ncap = a->fr_idx_cap ? a->fr_idx_cap * 2 : 64;
        uint32_t *ni = a->oom ? NULL : pcd_alloc_get(a->al, (size_t)ncap * sizeof *ni);
        if (!ni) {
            a->oom = PCD_E_NOMEM;
            return UINT32_MAX;
        }
        memset(ni, 0, (size_t)ncap * sizeof *ni);
        for (uint32_t k = 0; k < a->n_fr; k++) {
            uint32_t j = frame_hash(&a->fr[k]) & (ncap - 1);
            while (ni[j]) j = (j + 1) & (ncap - 1);
            ni[j] = k + 1;
        }
        pcd_alloc_free(a->al, a->fr_idx, (size_t)a->fr_idx_cap * sizeof *a->fr_idx);
        a->fr_idx = ni;
        a->fr_idx_cap = ncap;
    }
    if (!grow(a, (void **)&a->fr, &a->fr_cap, sizeof *a->fr, (size_t)a->n_fr + 1)) return UINT32_MAX;
    uint32_t id = a->n_fr++;
    a->fr[id] = *f;
    uint32_t i = h & (a->fr_idx_cap - 1);
    while (a->fr_idx[i]) i = (i + 1) & (a->fr_idx_cap - 1);
    a->fr_idx[i] = id + 1;
    return id;
}

/* ---- problems ------------------------------------------------------------------- */

static void problem(mojo_asm *a, int kind, bool is_error, uint64_t offset, const char *path, const char *expected,
                    pcd_found_kind fk, uint64_t found)
{
    uint64_t k = a->problems[kind]++;
    if (!a->report || k >= (kind == MOJO_P_EARLY_DEF ? 1 : MOJO_REPORT_MAX)) return;
    pcd_error e;
    pcd_problem(&e, PCD_E_INVALID, offset, expected, fk, found);
    if (path) pcd_error_push(&e, path, -1);
    a->report(a->report_ud, is_error, &e);
}

static pcd_found_kind fk_of(pcd_mojo_int v) { return v.neg && v.mag ? PCD_FOUND_NEG : PCD_FOUND_UINT; }

/* ---- the assembler ------------------------------------------------------------------ */

pcd_status pcd_mojo_asm_init(mojo_asm *a, pcd_alloc *al, int version, const mojo_asm_ops *ops, void *ud,
                         pcd_report_fn report, void *report_ud)
{
    memset(a, 0, sizeof *a);
    a->al = al;
    a->version = version;
    a->ops = ops;
    a->ud = ud;
    a->report = report;
    a->report_ud = report_ud;
    a->empty = intern(a, (const uint8_t *)"", 0);
    a->unknown = intern(a, (const uint8_t *)"<unknown>", 9);
    mojo_frame uf = { a->unknown, a->unknown, { 0, false }, { 0, false }, { 0, false }, { 0, false } };
    a->unknown_frame = frame_intern(a, &uf);
    if (!grow(a, (void **)&a->sc, &a->sc_cap, sizeof *a->sc, 4)) return PCD_E_NOMEM;
    memset(&a->sc[0], 0, sizeof a->sc[0]);
    a->n_sc = 1;
    a->cur = 0;
    a->cur_frames = &a->sc[0].frames;
    return a->oom ? a->oom : PCD_OK;
}

void pcd_mojo_asm_free(mojo_asm *a)
{
    for (uint32_t i = 0; i < a->n_sc; i++) {
        kmap_free(a, &a->sc[i].strings);
        kmap_free(a, &a->sc[i].frames);
        kmap_free(a, &a->sc[i].threads);
    }
    for (uint32_t i = 0; i < a->n_prev; i++) pcd_alloc_free(a->al, a->prev[i].fr, (size_t)a->prev[i].cap * sizeof *a->prev[i].fr);
    pcd_alloc_free(a->al, a->prev, (size_t)a->prev_cap * sizeof *a->prev);
    if (a->task_open) {
        /* the sample's items are the ones kept aside */
        pcd_alloc_free(a->al, a->s_items, a->s_items_cap * sizeof *a->s_items);
    }
    pcd_alloc_free(a->al, a->task_fr, a->task_fr_cap * sizeof *a->task_fr);
    kmap_free(a, &a->pids);
    pcd_alloc_free(a->al, a->sc, (size_t)a->sc_cap * sizeof *a->sc);
    pcd_alloc_free(a->al, a->pool, a->pool_cap);
    pcd_alloc_free(a->al, a->str, (size_t)a->str_cap * sizeof *a->str);
    pcd_alloc_free(a->al, a->str_idx, (size_t)a->str_idx_cap * sizeof *a->str_idx);
    pcd_alloc_free(a->al, a->fr, (size_t)a->fr_cap * sizeof *a->fr);
    pcd_alloc_free(a->al, a->fr_idx, (size_t)a->fr_idx_cap * sizeof *a->fr_idx);
    pcd_alloc_free(a->al, a->items, a->items_cap * sizeof *a->items);
    memset(a, 0, sizeof *a);
}

static void drop_task(mojo_asm *a);
static void remember_frames(mojo_asm *a);

static void close_sample(mojo_asm *a)
{
    if (!a->open) return;
    if (a->task_open) drop_task(a);
    if (a->version >= 4) remember_frames(a);
    a->open = false;
    a->s.items = a->items;
    a->s.full = a->full;
    if (a->s.n_time > 1 || a->s.n_memory > 1)
        problem(a, MOJO_P_METRICS, false, a->s.offset, "stack", "at most one time and one memory metric per sample",
                PCD_FOUND_UINT, a->s.n_time + a->s.n_memory);
    if (a->ops && a->ops->sample) a->ops->sample(a->ud, &a->s);
}

/* The scope of a pid, created if new. */
static uint32_t scope_of(mojo_asm *a, pcd_mojo_int pid)
{
    struct mojo_kslot *s = mojo_kmap_find(&a->pids, pid);
    if (s) return s->val;
    if (!grow(a, (void **)&a->sc, &a->sc_cap, sizeof *a->sc, (size_t)a->n_sc + 1)) return 0;
    uint32_t i = a->n_sc;
    if (!kmap_put(a, &a->pids, pid, i)) return 0;
    a->n_sc++;
    memset(&a->sc[i], 0, sizeof a->sc[i]);
    a->sc[i].pid = pid;
    return i;
}

/* A string key in the current process (or defined before any stack); "<unknown>" for 1. */
static bool string_lookup(const mojo_asm *a, pcd_mojo_int key, uint32_t *id)
{
    if (key.mag == 1 && !key.neg) {
        *id = a->unknown;
        return true;
    }
    const struct mojo_kslot *s = mojo_kmap_find(&a->sc[a->cur].strings, key);
    if (!s && a->cur) s = mojo_kmap_find(&a->sc[0].strings, key);
    if (!s) return false;
    *id = s->val;
    return true;
}

#define MOJO_MAX_ITEMS ((size_t)1 << 20)

static void add_item(mojo_asm *a, uint32_t kind, uint32_t id, uint64_t offset)
{
    if (a->s.n_items == a->items_cap) {
        if (a->items_cap >= MOJO_MAX_ITEMS) {
            problem(a, MOJO_P_DEEP, false, offset, NULL, "at most 1048576 frames and markers in a sample (the rest are dropped)",
                    PCD_FOUND_NONE, 0);
            return;
        }
        size_t ncap = a->items_cap ? a->items_cap * 2 : 256;
        mojo_item *q = a->oom ? NULL : pcd_alloc_resize(a->al, a->items, a->items_cap * sizeof *q, ncap * sizeof *q);
        if (!q) {
            a->oom = PCD_E_NOMEM;
            return;
        }
        a->items = q;
        a->items_cap = ncap;
    }
    a->items[a->s.n_items].kind = kind;
    a->items[a->s.n_items].id = id;
    a->s.n_items++;
}

/* Events that belong to a sample, outside one. */
static bool in_sample(mojo_asm *a, uint64_t offset, const char *path)
{
    if (a->open) return true;
    problem(a, MOJO_P_OUTSIDE, false, offset, path,
            a->samples ? "a stack event before it (a sample ends at a metadata event)" : "a stack event before it",
            PCD_FOUND_NONE, 0);
    return false;
}

/* A frame reference that the inline path (asm.h) does not take: a key not defined in the
 * current process, or the item array full, or no sample open. */
void pcd_mojo_asm_frame_ref_slow(mojo_asm *a, uint64_t mag, bool neg, uint64_t offset)
{
    uint32_t id;
    pcd_mojo_int k = { mag, neg && mag };
    const struct mojo_kslot *s = mojo_kmap_find(a->cur_frames, k);
    if (!s && a->cur) s = mojo_kmap_find(&a->sc[0].frames, k);
    if (s) {
        id = s->val;
    } else {
        problem(a, MOJO_P_UNDEF_FRAME, true, offset, "frame_ref.key", "a frame key defined in this process",
                fk_of(k), k.mag);
        id = a->unknown_frame;
    }
    if (a->open) add_item(a, MOJO_IT_FRAME, id, offset);
    else in_sample(a, offset, "frame_ref");
}

/* ---- version 4: stack repeats and tasks ---------------------------------------------------- */

/* The previous frames of the current sample's thread (created empty); NULL when out of memory. */
static mojo_prev *prev_of(mojo_asm *a)
{
    mojo_kmap *m = &a->sc[a->cur].threads;
    pcd_mojo_int k = { a->s.tid, false };
    struct mojo_kslot *sl = mojo_kmap_find(m, k);
    if (sl) return &a->prev[sl->val];
    if (!grow(a, (void **)&a->prev, &a->prev_cap, sizeof *a->prev, (size_t)a->n_prev + 1)) return NULL;
    if (!kmap_put(a, m, k, a->n_prev)) return NULL;
    memset(&a->prev[a->n_prev], 0, sizeof a->prev[a->n_prev]);
    return &a->prev[a->n_prev++];
}

/* At the end of a sample: its frame references, for the thread's next stack repeat. */
static void remember_frames(mojo_asm *a)
{
    mojo_prev *pv = prev_of(a);
    if (!pv) return;
    size_t n = 0;
    for (size_t i = 0; i < a->s.n_items; i++) n += a->items[i].kind == MOJO_IT_FRAME;
    if (!grow(a, (void **)&pv->fr, &pv->cap, sizeof *pv->fr, n)) return;
    pv->n = 0;
    for (size_t i = 0; i < a->s.n_items; i++)
        if (a->items[i].kind == MOJO_IT_FRAME) pv->fr[pv->n++] = a->items[i].id;
}

/* austin-python's native frame: a file that neither ends in ".py" nor is "<...>". */
static bool is_native(const mojo_asm *a, uint32_t frame)
{
    pcd_bytes f = pcd_mojo_str(a, a->fr[frame].file);
    if (f.len >= 3 && memcmp(f.ptr + f.len - 3, ".py", 3) == 0) return false;
    return !(f.len >= 1 && f.ptr[0] == '<' && f.ptr[f.len - 1] == '>');
}

/* A stack repeat: the thread's previous frames but the innermost native ones, before the
 * sample's items so far. */
static void stack_repeat(mojo_asm *a, uint64_t offset)
{
    a->repeats++;
    if (!in_sample(a, offset, "stack_repeat")) return;
    if (a->task_open) {
        problem(a, MOJO_P_TASK, false, offset, "stack_repeat", "a time metric ending the task stack before it",
                PCD_FOUND_NONE, 0);
        return;
    }
    mojo_prev *pv = prev_of(a);
    if (!pv) return;
    size_t k = pv->n;
    while (k && is_native(a, pv->fr[k - 1])) k--;
    if (!k) return;
    size_t n = a->s.n_items;
    if (n + k > MOJO_MAX_ITEMS) {
        problem(a, MOJO_P_DEEP, false, offset, NULL, "at most 1048576 frames and markers in a sample (the rest are dropped)",
                PCD_FOUND_NONE, 0);
        return;
    }
    while (n + k > a->items_cap) {
        size_t ncap = a->items_cap ? a->items_cap * 2 : 256;
        mojo_item *q = a->oom ? NULL : pcd_alloc_resize(a->al, a->items, a->items_cap * sizeof *q, ncap * sizeof *q);
        if (!q) return (void)(a->oom = PCD_E_NOMEM);
        a->items = q;
        a->items_cap = ncap;
    }
    memmove(a->items + k, a->items, n * sizeof *a->items);
    for (size_t i = 0; i < k; i++) a->items[i] = (mojo_item){ MOJO_IT_FRAME, pv->fr[i] };
    a->s.n_items = n + k;
}

/* The frame references between a task stack and its time metric are the task's: the
 * sample's items are put aside (and frame_ref, unchanged, fills the task's). */
static void open_task(mojo_asm *a, const pcd_mojo_event_view *e, uint64_t offset)
{
    a->tasks++;
    if (!in_sample(a, offset, "task_stack")) return;
    if (a->task_open) drop_task(a);
    a->s_items = a->items;
    a->s_items_cap = a->items_cap;
    a->s_n_items = a->s.n_items;
    a->items = NULL;
    a->items_cap = 0;
    a->s.n_items = 0;
    a->task_open = true;
    a->task_offset = offset;
    a->task_id = norm(e->task);
    a->task_name = norm(e->name);
}

/* The sample's items back; the task's freed. */
static void close_task(mojo_asm *a)
{
    pcd_alloc_free(a->al, a->items, a->items_cap * sizeof *a->items);
    a->items = a->s_items;
    a->items_cap = a->s_items_cap;
    a->s.n_items = a->s_n_items;
    a->s_items = NULL;
    a->task_open = false;
}

static void drop_task(mojo_asm *a)
{
    problem(a, MOJO_P_TASK, false, a->task_offset, "task_stack", "a time metric ending it", PCD_FOUND_NONE, 0);
    close_task(a);
}

/* The time metric that ends a task stack: the task goes to ops->task. */
static void end_task(mojo_asm *a, pcd_mojo_int elapsed)
{
    size_t n = 0;
    for (size_t i = 0; i < a->s.n_items; i++) n += a->items[i].kind == MOJO_IT_FRAME;
    if (n > a->task_fr_cap) {
        uint32_t *q = a->oom ? NULL
                             : pcd_alloc_resize(a->al, a->task_fr, a->task_fr_cap * sizeof *q, n * sizeof *q);
        if (!q) {
            a->oom = PCD_E_NOMEM;
            close_task(a);
            return;
        }
        a->task_fr = q;
        a->task_fr_cap = n;
    }
    n = 0;
    for (size_t i = 0; i < a->s.n_items; i++)
        if (a->items[i].kind == MOJO_IT_FRAME) a->task_fr[n++] = a->items[i].id;
    mojo_task t;
    memset(&t, 0, sizeof t);
    t.offset = a->task_offset;
    t.task = a->task_id;
    t.name = UINT32_MAX;
    if (a->task_name.mag && !string_lookup(a, a->task_name, &t.name)) {
        problem(a, MOJO_P_UNDEF_STRING, true, a->task_offset, "task_stack.name", "a string key defined in this process",
                fk_of(a->task_name), a->task_name.mag);
        t.name = UINT32_MAX;
    }
    t.frames = a->task_fr;
    t.n_frames = n;
    t.elapsed = elapsed;
    close_task(a);
    t.owner = &a->s;
    if (a->ops && a->ops->task) a->ops->task(a->ud, &t);
}

pcd_status pcd_mojo_asm_record_slow(mojo_asm *a, const pcd_record *rec)
{
    if (PCD_UNLIKELY(a->oom)) return a->oom;
    /* the events of each version: frame references by the short path, the others as the
     * generated view of a MOJO event (its version's accessor, called directly) */
    pcd_mojo_event_view e;
    if (rec->type == &pcd_mojo_v4_event_type) {
        const pcd_mojo_v4_event *ev = rec->data;
        if (PCD_UNLIKELY(!ev)) return PCD_OK;
        if (PCD_LIKELY(ev->which == PCD_MOJO_V4_EVENT_FRAME_REF)) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
        pcd_mojo_v4_event_view(ev, &e);
    } else if (rec->type == &pcd_mojo_v3_event_type) {
        const pcd_mojo_v3_event *ev = rec->data;
        if (!ev) return PCD_OK;
        if (ev->which == PCD_MOJO_V3_EVENT_FRAME_REF) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
        pcd_mojo_v3_event_view(ev, &e);
    } else if (rec->type == &pcd_mojo_v2_event_type) {
        const pcd_mojo_v2_event *ev = rec->data;
        if (!ev) return PCD_OK;
        if (ev->which == PCD_MOJO_V2_EVENT_FRAME_REF) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
        pcd_mojo_v2_event_view(ev, &e);
    } else if (rec->type == &pcd_mojo_v1_event_type) {
        const pcd_mojo_v1_event *ev = rec->data;
        if (!ev) return PCD_OK;
        if (ev->which == PCD_MOJO_V1_EVENT_FRAME_REF) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
        pcd_mojo_v1_event_view(ev, &e);
    } else if (rec->depth == 0) {
        int v = pcd_mojo_version_of(rec);
        if (v) a->version = v;
        return PCD_OK;
    } else if (rec->depth != 1 || !pcd_mojo_event_view_of(rec, &e)) {
        /* (the view of any version: a version without a path of its own above gets here) */
        return PCD_OK;
    }
    return pcd_mojo_asm_event(a, &e, rec->offset);
}

pcd_status pcd_mojo_asm_event(mojo_asm *a, const pcd_mojo_event_view *e, uint64_t offset)
{
    if (a->oom) return a->oom;
    switch (e->kind) {
    case PCD_MOJO_EVENT_FRAME_REF:
        mojo_asm_frame_ref(a, e->key.mag, e->key.neg, offset);
        break;
    case PCD_MOJO_EVENT_STACK:
        close_sample(a);
        a->cur = scope_of(a, norm(e->pid));
        a->cur_frames = &a->sc[a->cur].frames;
        a->open = true;
        memset(&a->s, 0, sizeof a->s);
        a->s.offset = offset;
        a->s.index = a->samples++;
        a->s.pid = norm(e->pid);
        a->s.has_iid = e->has_iid;
        if (e->has_iid) a->s.iid = norm(e->iid);
        a->s.tid = intern(a, e->tid.ptr, e->tid.len);
        break;
    case PCD_MOJO_EVENT_TIME:
        if (a->task_open) {
            end_task(a, norm(e->value));
            break;
        }
        if (!in_sample(a, offset, "time")) break;
        if (!a->s.first_metric) a->s.first_metric = MOJO_METRIC_TIME;
        if (!a->s.n_time++) a->s.time = norm(e->value);
        break;
    case PCD_MOJO_EVENT_MEMORY:
        if (!in_sample(a, offset, "memory")) break;
        if (!a->s.first_metric) a->s.first_metric = MOJO_METRIC_MEMORY;
        if (!a->s.n_memory++) a->s.memory = norm(e->value);
        break;
    case PCD_MOJO_EVENT_METADATA: {
        if (a->version < 4 && !a->py2) close_sample(a);
        uint32_t k = intern(a, e->meta_key.ptr, e->meta_key.len), v = intern(a, e->text.ptr, e->text.len);
        if (a->oom) break;
        if (pcd_bytes_is(e->meta_key, "mode") && pcd_bytes_is(e->text, "full")) a->full = true;
        if (a->ops && a->ops->metadata) a->ops->metadata(a->ud, k, v, offset);
        break;
    }
    case PCD_MOJO_EVENT_STRING: {
        if (!a->open && a->cur == 0)
            problem(a, MOJO_P_EARLY_DEF, false, offset, "string",
                    "a stack event before it (austin-python cannot read definitions before the first sample)",
                    PCD_FOUND_NONE, 0);
        uint32_t id = intern(a, e->text.ptr, e->text.len);
        if (id != UINT32_MAX) kmap_put(a, &a->sc[a->cur].strings, norm(e->key), id);
        break;
    }
    case PCD_MOJO_EVENT_FRAME: {
        if (!a->open && a->cur == 0)
            problem(a, MOJO_P_EARLY_DEF, false, offset, "frame",
                    "a stack event before it (austin-python cannot read definitions before the first sample)",
                    PCD_FOUND_NONE, 0);
        mojo_frame f;
        pcd_mojo_int fk = norm(e->filename), sk = norm(e->scope);
        if (!string_lookup(a, fk, &f.file)) {
            problem(a, MOJO_P_UNDEF_STRING, true, offset, "frame.filename", "a string key defined in this process",
                    fk_of(fk), fk.mag);
            f.file = a->unknown;
        }
        if (!string_lookup(a, sk, &f.scope)) {
            problem(a, MOJO_P_UNDEF_STRING, true, offset, "frame.scope", "a string key defined in this process",
                    fk_of(sk), sk.mag);
            f.scope = a->unknown;
        }
        /* version 1 has no ends nor column: 0 */
        f.line = norm(e->line);
        f.line_end = norm_opt(e->has_line_end, e->line_end);
        f.column = norm_opt(e->has_column, e->column);
        f.column_end = norm_opt(e->has_column_end, e->column_end);
        uint32_t id = frame_intern(a, &f);
        if (id != UINT32_MAX) kmap_put(a, &a->sc[a->cur].frames, norm(e->key), id);
        break;
    }
    case PCD_MOJO_EVENT_INVALID:
        if (in_sample(a, offset, "invalid")) add_item(a, MOJO_IT_INVALID, 0, offset);
        break;
    case PCD_MOJO_EVENT_GC:
        if (in_sample(a, offset, "gc")) {
            a->s.gc = true;
            add_item(a, MOJO_IT_GC, 0, offset);
        }
        break;
    case PCD_MOJO_EVENT_IDLE:
        if (in_sample(a, offset, "idle")) a->s.idle = true;
        break;
    case PCD_MOJO_EVENT_KERNEL:
        if (in_sample(a, offset, "kernel")) {
            uint32_t *seen = &a->kernel_seen[(a->s.tid * 16 + a->s.n_items) & 255], id = *seen - 1;
            if (!*seen || a->str[id].len != e->symbol.len || !pcd_key_equal(a->pool + a->str[id].off, e->symbol.ptr, e->symbol.len)) {
                id = intern(a, e->symbol.ptr, e->symbol.len);
                *seen = id + 1; /* (0 when out of memory) */
            }
            if (id != UINT32_MAX) add_item(a, MOJO_IT_KERNEL, id, offset);
        }
        break;
    case PCD_MOJO_EVENT_STRING_REF: {
        uint32_t id;
        pcd_mojo_int k = norm(e->key);
        if (!string_lookup(a, k, &id)) {
            problem(a, MOJO_P_UNDEF_STRING, true, offset, "string_ref.key", "a string key defined in this process",
                    fk_of(k), k.mag);
            id = a->unknown;
        }
        if (in_sample(a, offset, "string_ref")) add_item(a, MOJO_IT_STRREF, id, offset);
        break;
    }
    case PCD_MOJO_EVENT_STACK_REPEAT:
        stack_repeat(a, offset);
        break;
    case PCD_MOJO_EVENT_TASK_STACK:
        open_task(a, e, offset);
        break;
    case PCD_MOJO_EVENT_TASK_WAITER:
        a->waiters++;
        if (a->ops && a->ops->waiter) a->ops->waiter(a->ud, a->sc[a->cur].pid, norm(e->task), norm(e->waiter), offset);
        break;
    }
    return a->oom;
}

pcd_status pcd_mojo_asm_finish(mojo_asm *a)
{
    if (a->oom) return a->oom;
    close_sample(a);
    return a->oom;
}
