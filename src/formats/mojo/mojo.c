/* formats/mojo/mojo.c: Austin MOJO above the bytes: info summary, reference checks, and the
 * converters to Austin's text format, collapsed stacks and speedscope JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/mojo/asm.h"
#include "formats/registry.h"
#include "common/hmap.h"
#include "formats/xformat/xformat.h"

/* ---- driving the assembler over a reader ------------------------------------------ */

typedef struct drive {
    mojo_asm *as;
    const pcd_status *wst;      /* the converter's first output error */
    uint64_t offset;            /* of the latest record, for progress */
} drive;

static pcd_status on_record(void *ud, const pcd_record *rec)
{
    drive *d = ud;
    d->offset = rec->offset;
    pcd_status st = mojo_asm_record(d->as, rec);
    if (st != PCD_OK) return st;
    return *d->wst;
}

/* Feeds every event of the input to the assembler (with the decoding fast path), then
 * closes it; reports damage, and goes on past it with --all. *wst is where the sample
 * callbacks record an output error (it stops the run). Returns the exit code. */
int mojo_drive_all(const pcd_conv_args *a, mojo_asm *as, const pcd_status *wst)
{
    drive d = { as, wst, 0 };
    int rc = 0;
    pcd_record rec;
    for (;;) {
        uint64_t k = 0;
        /* batches of 1024 records: progress (shown every 1024 calls) every million records */
        pcd_status st = pcd_reader_decode_run(a->r, 1024, &k, on_record, &d);
        if (k && a->progress) a->progress(a->progress_ud, d.offset);
        if (st == PCD_OK) {
            st = pcd_reader_next(a->r, &rec);
            if (st == PCD_OK) {
                if (a->progress) a->progress(a->progress_ud, rec.offset);
                st = on_record(&d, &rec);
                if (st == PCD_OK) continue;
            }
        }
        if (st == PCD_END) break;
        if (*wst != PCD_OK) return 2;
        if (as->oom) {
            fprintf(a->err, "%s: out of memory for the strings and frames (raise --max-memory)\n", a->input_name);
            return 2;
        }
        pcd_report(a->err, a->input_name, pcd_reader_error(a->r));
        rc = 1;
        if (a->all && pcd_reader_recover(a->r, NULL) == PCD_OK) continue;
        break;
    }
    if (mojo_asm_finish(as) != PCD_OK) {
        fprintf(a->err, "%s: out of memory for the strings and frames (raise --max-memory)\n", a->input_name);
        return 2;
    }
    if (*wst != PCD_OK) return 2;
    return rc;
}

/* Says how many references were undefined (convert still renders them). */
void mojo_warn_problems(const pcd_conv_args *a, const mojo_asm *as)
{
    uint64_t us = as->problems[MOJO_P_UNDEF_STRING], uf = as->problems[MOJO_P_UNDEF_FRAME];
    if (us || uf)
        fprintf(a->err,
                "%s: warning: %" PRIu64 " references to undefined string keys and %" PRIu64
                " to undefined frame keys, rendered as <unknown> (profcodec validate shows where)\n",
                a->input_name, us, uf);
}

static int write_failed(const pcd_conv_args *a, pcd_status st)
{
    fprintf(a->err, "%s: cannot write the output: %s\n", a->input_name, pcd_status_name(st));
    return 2;
}

/* ---- text pieces ------------------------------------------------------------------- */

/* A growable byte pool for rendered fragments, indexed by id. */
typedef struct frag {
    uint8_t *buf;
    size_t len, cap;
    uint64_t *off;              /* per id: offset + 1 (0: not rendered yet) */
    uint32_t *flen;
    size_t n;
} frag;

static void frag_free(frag *f)
{
    free(f->buf);
    free(f->off);
    free(f->flen);
    memset(f, 0, sizeof *f);
}

static bool frag_room(frag *f, size_t need)
{
    if (f->len + need <= f->cap) return true;
    size_t ncap = f->cap ? f->cap * 2 : 4096;
    while (ncap < f->len + need) ncap *= 2;
    uint8_t *q = realloc(f->buf, ncap);
    if (!q) return false;
    f->buf = q;
    f->cap = ncap;
    return true;
}

static bool frag_put(frag *f, const void *p, size_t n)
{
    if (!frag_room(f, n)) return false;
    memcpy(f->buf + f->len, p, n);
    f->len += n;
    return true;
}

static bool frag_slot(frag *f, size_t id)
{
    if (id < f->n) return true;
    size_t nn = f->n ? f->n * 2 : 64;
    while (nn <= id) nn *= 2;
    uint64_t *o = realloc(f->off, nn * sizeof *o);
    if (!o) return false;
    f->off = o;
    uint32_t *l = realloc(f->flen, nn * sizeof *l);
    if (!l) return false;
    f->flen = l;
    memset(f->off + f->n, 0, (nn - f->n) * sizeof *o);
    f->n = nn;
    return true;
}

/* Austin's text of a frame: ";file:scope:line" (cached per frame id). */
static bool frame_text(frag *f, const mojo_asm *as, uint32_t id, pcd_bytes *out)
{
    if (!frag_slot(f, id)) return false;
    if (!f->off[id]) {
        const mojo_frame *fr = &as->fr[id];
        pcd_bytes file = mojo_str(as, fr->file), scope = mojo_str(as, fr->scope);
        char num[24];
        size_t nn = mojo_int_text(num, fr->line);
        size_t start = f->len;
        if (!frag_put(f, ";", 1) || !frag_put(f, file.ptr, file.len) || !frag_put(f, ":", 1) ||
            !frag_put(f, scope.ptr, scope.len) || !frag_put(f, ":", 1) || !frag_put(f, num, nn))
            return false;
        f->off[id] = start + 1;
        f->flen[id] = (uint32_t)(f->len - start);
    }
    out->ptr = f->buf + f->off[id] - 1;
    out->len = f->flen[id];
    return true;
}

static pcd_status put_int(pcd_sink *s, pcd_mojo_int v)
{
    char b[24];
    return pcd_sink_put(s, b, mojo_int_text(b, v));
}

static pcd_status put_collapsed(pcd_sink *s, const uint8_t *p, size_t n);

/* "P<pid>;T<iid>:<tid>" (MOJO 3 with iid >= 0) or "P<pid>;T<tid>", as austin-python writes
 * (safe: with the thread id made safe for a collapsed line). */
static pcd_status put_thread_as(pcd_sink *s, mojo_asm *as, const mojo_sample *sm, bool safe)
{
    PCD_TRY(pcd_sink_put(s, "P", 1));
    PCD_TRY(put_int(s, sm->pid));
    PCD_TRY(pcd_sink_put(s, ";T", 2));
    if (sm->has_iid && !(sm->iid.neg && sm->iid.mag)) {
        PCD_TRY(put_int(s, sm->iid));
        PCD_TRY(pcd_sink_put(s, ":", 1));
    }
    pcd_bytes t = mojo_tid_text(as, sm->tid);
    return safe ? put_collapsed(s, t.ptr, t.len) : pcd_sink_put(s, t.ptr, t.len);
}

static pcd_status put_thread(pcd_sink *s, mojo_asm *as, const mojo_sample *sm)
{
    return put_thread_as(s, as, sm, false);
}

static pcd_status put_item(pcd_sink *s, frag *ft, const mojo_asm *as, const mojo_item *it)
{
    pcd_bytes b;
    switch (it->kind) {
    case MOJO_IT_FRAME:
        if (!frame_text(ft, as, it->id, &b)) return PCD_E_NOMEM;
        return pcd_sink_put(s, b.ptr, b.len);
    case MOJO_IT_INVALID: return pcd_sink_put(s, ";:INVALID:", 10);
    case MOJO_IT_GC: return pcd_sink_put(s, ";:GC:", 5);
    case MOJO_IT_KERNEL:
        b = mojo_str(as, it->id);
        PCD_TRY(pcd_sink_put(s, ";kernel:", 8));
        PCD_TRY(pcd_sink_put(s, b.ptr, b.len));
        return pcd_sink_put(s, ":0", 2);
    case MOJO_IT_STRREF:
        /* austin-python writes a string reference's value as it is */
        b = mojo_str(as, it->id);
        return pcd_sink_put(s, b.ptr, b.len);
    }
    return PCD_OK;
}

/* ---- convert --to austin ------------------------------------------------------------- */

typedef struct austin_conv {
    pcd_sink *out;
    mojo_asm *as;
    frag ft;
    pcd_status wst;
} austin_conv;

static void austin_sample(void *ud, const mojo_sample *sm)
{
    austin_conv *c = ud;
    if (c->wst != PCD_OK) return;
    pcd_sink *s = c->out;
    pcd_status st = put_thread(s, c->as, sm);
    for (size_t i = 0; i < sm->n_items && st == PCD_OK; i++) st = put_item(s, &c->ft, c->as, &sm->items[i]);
    if (st == PCD_OK) st = pcd_sink_put(s, " ", 1);
    if (sm->full) {
        static const pcd_mojo_int zero = { 0, false };
        if (st == PCD_OK) st = put_int(s, sm->n_time ? sm->time : zero);
        if (st == PCD_OK) st = pcd_sink_put(s, sm->idle ? ",1," : ",0,", 3);
        if (st == PCD_OK) st = put_int(s, sm->n_memory ? sm->memory : zero);
    } else if (st == PCD_OK) {
        if (sm->first_metric == MOJO_EV_TIME) st = put_int(s, sm->time);
        else if (sm->first_metric == MOJO_EV_MEMORY) st = put_int(s, sm->memory);
        else st = pcd_sink_put(s, "0", 1);
    }
    if (st == PCD_OK) st = pcd_sink_put(s, "\n", 1);
    c->wst = st;
}

static void austin_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    austin_conv *c = ud;
    if (c->wst != PCD_OK) return;
    pcd_bytes k = mojo_str(c->as, key), v = mojo_str(c->as, value);
    pcd_status st = pcd_sink_put(c->out, "# ", 2);
    if (st == PCD_OK) st = pcd_sink_put(c->out, k.ptr, k.len);
    if (st == PCD_OK) st = pcd_sink_put(c->out, ": ", 2);
    if (st == PCD_OK) st = pcd_sink_put(c->out, v.ptr, v.len);
    if (st == PCD_OK) st = pcd_sink_put(c->out, "\n", 1);
    c->wst = st;
}

static int austin_run(const pcd_conv_args *a)
{
    static const mojo_asm_ops ops = { austin_sample, austin_meta };
    mojo_asm as;
    austin_conv c;
    memset(&c, 0, sizeof c);
    c.out = a->out;
    c.as = &as;
    if (mojo_asm_init(&as, a->al, (int)a->f->version_num, &ops, &c, NULL, NULL) != PCD_OK) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    int rc = mojo_drive_all(a, &as, &c.wst);
    if (c.wst != PCD_OK) rc = write_failed(a, c.wst);
    else mojo_warn_problems(a, &as);
    frag_free(&c.ft);
    mojo_asm_free(&as);
    return rc;
}

/* ---- stacks as a tree (collapsed stacks, speedscope) ------------------------------------- */

/* A node per distinct path from a thread through its frames: identical stacks end at
 * the same node. Memory grows with distinct stacks, not samples. */
typedef struct node {
    uint32_t parent;            /* UINT32_MAX for a thread's root */
    uint32_t root;              /* index of its thread */
    uint64_t code;              /* item kind << 32 | id */
    uint64_t time, mem_plus, mem_minus, count;
    uint32_t order;             /* 1 + position among stacks that ended here, 0 none */
    uint32_t last_child;        /* the child taken last (+1, 0 none) and its code: */
    uint64_t last_code;         /* consecutive samples mostly share their paths */
    uint32_t fidx;              /* speedscope: its frame's index + 1 (0: not numbered yet) */
} node;

typedef struct thread_key {
    pcd_mojo_int pid, iid;
    bool has_iid;
    uint32_t tid;
} thread_key;

typedef struct tree {
    node *n;
    size_t len, cap;
    pcd_hmap child;             /* (parent, code) -> node */
    pcd_hmap roots;             /* (pid, iid, tid and signs) -> node */
    thread_key *threads;
    size_t n_threads, threads_cap;
    uint32_t *leaves;           /* nodes in the order their first sample ended there */
    size_t n_leaves, leaves_cap;
} tree;

static void tree_free(tree *t)
{
    free(t->n);
    pcd_hmap_free(&t->child);
    pcd_hmap_free(&t->roots);
    free(t->threads);
    free(t->leaves);
    memset(t, 0, sizeof *t);
}

static uint32_t tree_new(tree *t, uint32_t parent, uint32_t root, uint64_t code)
{
    if (t->len == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 1024;
        node *q = realloc(t->n, nc * sizeof *q);
        if (!q || nc > UINT32_MAX) return UINT32_MAX;
        t->n = q;
        t->cap = nc;
    }
    node *x = &t->n[t->len];
    memset(x, 0, sizeof *x);
    x->parent = parent;
    x->root = root;
    x->code = code;
    return (uint32_t)t->len++;
}

/* The leaf of a sample's stack (its thread, then its items); UINT32_MAX when out of memory. */
static uint32_t tree_add(tree *t, const mojo_sample *sm)
{
    pcd_hkey rk = { sm->pid.mag, sm->iid.mag,
                    (uint64_t)sm->tid | (uint64_t)sm->pid.neg << 32 | (uint64_t)sm->iid.neg << 33 |
                        (uint64_t)sm->has_iid << 34 };
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&t->roots, rk, &fresh);
    if (!sl) return UINT32_MAX;
    if (fresh) {
        if (t->n_threads == t->threads_cap) {
            size_t nc = t->threads_cap ? t->threads_cap * 2 : 16;
            thread_key *q = realloc(t->threads, nc * sizeof *q);
            if (!q) return UINT32_MAX;
            t->threads = q;
            t->threads_cap = nc;
        }
        uint32_t r = tree_new(t, UINT32_MAX, (uint32_t)t->n_threads, 0);
        if (r == UINT32_MAX) return r;
        t->threads[t->n_threads++] = (thread_key){ sm->pid, sm->iid, sm->has_iid, sm->tid };
        sl->v0 = r;
    }
    uint32_t cur = (uint32_t)sl->v0;
    for (size_t i = 0; i < sm->n_items; i++) {
        uint64_t code = (uint64_t)sm->items[i].kind << 32 | sm->items[i].id;
        node *x = &t->n[cur];
        if (x->last_child && x->last_code == code) {
            cur = x->last_child - 1;
            continue;
        }
        pcd_hslot *c = pcd_hmap_put(&t->child, (pcd_hkey){ cur, code, 0 }, &fresh);
        if (!c) return UINT32_MAX;
        if (fresh) {
            uint32_t nn = tree_new(t, cur, t->n[cur].root, code);
            if (nn == UINT32_MAX) return nn;
            c->v0 = nn;
        }
        t->n[cur].last_child = (uint32_t)c->v0 + 1;
        t->n[cur].last_code = code;
        cur = (uint32_t)c->v0;
    }
    return cur;
}

static bool tree_ended(tree *t, uint32_t leaf)
{
    if (t->n[leaf].order) return true;
    if (t->n_leaves == t->leaves_cap) {
        size_t nc = t->leaves_cap ? t->leaves_cap * 2 : 256;
        uint32_t *q = realloc(t->leaves, nc * sizeof *q);
        if (!q) return false;
        t->leaves = q;
        t->leaves_cap = nc;
    }
    t->leaves[t->n_leaves++] = leaf;
    t->n[leaf].order = (uint32_t)t->n_leaves;
    return true;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* The items from the thread down to a node (into a growable buffer); returns the count. */
static size_t tree_path(const tree *t, uint32_t leaf, mojo_item **buf, size_t *cap)
{
    size_t n = 0;
    for (uint32_t x = leaf; t->n[x].parent != UINT32_MAX; x = t->n[x].parent) n++;
    if (n > *cap) {
        mojo_item *q = realloc(*buf, n * sizeof *q);
        if (!q) return SIZE_MAX;
        *buf = q;
        *cap = n;
    }
    size_t i = n;
    for (uint32_t x = leaf; t->n[x].parent != UINT32_MAX; x = t->n[x].parent) {
        i--;
        (*buf)[i].kind = (uint32_t)(t->n[x].code >> 32);
        (*buf)[i].id = (uint32_t)t->n[x].code;
    }
    return n;
}

/* The nodes from the thread (excluded) down to a node, into a growable buffer; the count. */
static size_t tree_nodes(const tree *t, uint32_t leaf, uint32_t **buf, size_t *cap)
{
    size_t n = 0;
    for (uint32_t x = leaf; t->n[x].parent != UINT32_MAX; x = t->n[x].parent) n++;
    if (n > *cap) {
        uint32_t *q = realloc(*buf, n * sizeof *q);
        if (!q) return SIZE_MAX;
        *buf = q;
        *cap = n;
    }
    size_t i = n;
    for (uint32_t x = leaf; t->n[x].parent != UINT32_MAX; x = t->n[x].parent) (*buf)[--i] = x;
    return n;
}

/* ---- convert --to collapsed -------------------------------------------------------------- */

/* What the collapsed and speedscope converters share (first member of each). */
typedef struct conv_head {
    mojo_asm *as;
    uint32_t mode;              /* string id of the mode metadata, UINT32_MAX none */
    pcd_status wst;
} conv_head;

static bool bytes_is(pcd_bytes b, const char *z) { return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0; }

static void mode_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    conv_head *h = ud;
    if (bytes_is(mojo_str(h->as, key), "mode")) h->mode = value;
}

typedef struct collapsed_conv {
    conv_head h;
    tree t;
} collapsed_conv;

static void collapsed_sample(void *ud, const mojo_sample *sm)
{
    collapsed_conv *c = ud;
    if (c->h.wst != PCD_OK) return;
    uint32_t leaf = tree_add(&c->t, sm);
    if (leaf == UINT32_MAX || !tree_ended(&c->t, leaf)) {
        c->h.wst = PCD_E_NOMEM;
        return;
    }
    node *x = &c->t.n[leaf];
    x->count++;
    if (sm->n_time && !sm->time.neg) x->time = sat_add(x->time, sm->time.mag);
    if (sm->n_memory && !sm->memory.neg) x->mem_plus = sat_add(x->mem_plus, sm->memory.mag);
    if (sm->n_memory && sm->memory.neg) x->mem_minus = sat_add(x->mem_minus, sm->memory.mag);
}

/* Replaces what would break a collapsed line: ';' separates frames, newlines end lines. */
static pcd_status put_collapsed(pcd_sink *s, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && p[j] != ';' && p[j] != '\n' && p[j] != '\r') j++;
        PCD_TRY(pcd_sink_put(s, p + i, j - i));
        if (j < n) PCD_TRY(pcd_sink_put(s, p[j] == ';' ? ":" : " ", 1));
        i = j + 1;
    }
    return PCD_OK;
}

static int collapsed_run(const pcd_conv_args *a)
{
    const char *metric = a->metric;
    if (metric && strcmp(metric, "time") != 0 && strcmp(metric, "memory") != 0 && strcmp(metric, "samples") != 0) {
        fprintf(a->err, "profcodec convert: --metric takes time, memory or samples for collapsed stacks\n");
        return 2;
    }
    static const mojo_asm_ops ops = { collapsed_sample, mode_meta };
    mojo_asm as;
    collapsed_conv c;
    memset(&c, 0, sizeof c);
    c.h.as = &as;
    c.h.mode = UINT32_MAX;
    pcd_hmap_init(&c.t.child);
    pcd_hmap_init(&c.t.roots);
    if (mojo_asm_init(&as, a->al, (int)a->f->version_num, &ops, &c, NULL, NULL) != PCD_OK) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    int rc = mojo_drive_all(a, &as, &c.h.wst);
    if (c.h.wst != PCD_OK) {
        fprintf(a->err, "%s: out of memory for the stacks (raise --max-memory)\n", a->input_name);
        rc = 2;
    } else if (rc != 2) {
        mojo_warn_problems(a, &as);
        /* default: memory for memory-mode files, time otherwise */
        int which = 0; /* 0 time, 1 memory, 2 samples */
        if (metric) which = strcmp(metric, "time") == 0 ? 0 : strcmp(metric, "memory") == 0 ? 1 : 2;
        else if (c.h.mode != UINT32_MAX && bytes_is(mojo_str(&as, c.h.mode), "memory")) which = 1;
        frag ft;
        memset(&ft, 0, sizeof ft);
        mojo_item *path = NULL;
        size_t cap = 0;
        pcd_sink *s = a->out;
        pcd_status st = PCD_OK;
        for (size_t i = 0; i < c.t.n_leaves && st == PCD_OK; i++) {
            const node *x = &c.t.n[c.t.leaves[i]];
            uint64_t v = which == 0 ? x->time : which == 1 ? x->mem_plus : x->count;
            if (!v) continue;
            size_t n = tree_path(&c.t, c.t.leaves[i], &path, &cap);
            if (n == SIZE_MAX) {
                st = PCD_E_NOMEM;
                break;
            }
            const thread_key *th = &c.t.threads[x->root];
            mojo_sample sm;
            memset(&sm, 0, sizeof sm);
            sm.pid = th->pid;
            sm.iid = th->iid;
            sm.has_iid = th->has_iid;
            sm.tid = th->tid;
            st = put_thread_as(s, &as, &sm, true);
            for (size_t k = 0; k < n && st == PCD_OK; k++) {
                const mojo_item *it = &path[k];
                pcd_bytes b;
                switch (it->kind) {
                case MOJO_IT_FRAME: {
                    const mojo_frame *fr = &as.fr[it->id];
                    pcd_bytes file = mojo_str(&as, fr->file), scope = mojo_str(&as, fr->scope);
                    char num[24];
                    st = pcd_sink_put(s, ";", 1);
                    if (st == PCD_OK) st = put_collapsed(s, file.ptr, file.len);
                    if (st == PCD_OK) st = pcd_sink_put(s, ":", 1);
                    if (st == PCD_OK) st = put_collapsed(s, scope.ptr, scope.len);
                    if (st == PCD_OK) st = pcd_sink_put(s, ":", 1);
                    if (st == PCD_OK) st = pcd_sink_put(s, num, mojo_int_text(num, fr->line));
                    break;
                }
                case MOJO_IT_KERNEL:
                case MOJO_IT_STRREF:
                    b = mojo_str(&as, it->id);
                    st = pcd_sink_put(s, it->kind == MOJO_IT_KERNEL ? ";kernel:" : ";", it->kind == MOJO_IT_KERNEL ? 8 : 1);
                    if (st == PCD_OK) st = put_collapsed(s, b.ptr, b.len);
                    if (st == PCD_OK && it->kind == MOJO_IT_KERNEL) st = pcd_sink_put(s, ":0", 2);
                    break;
                default: st = put_item(s, &ft, &as, it);
                }
            }
            char num[32];
            int m = snprintf(num, sizeof num, " %" PRIu64 "\n", v);
            if (st == PCD_OK) st = pcd_sink_put(s, num, (size_t)m);
        }
        if (st != PCD_OK) rc = write_failed(a, st);
        free(path);
        frag_free(&ft);
    }
    tree_free(&c.t);
    mojo_asm_free(&as);
    return rc;
}

/* ---- convert --to speedscope ----------------------------------------------------------- */

/* The metrics of a sampled profile, as austin2speedscope splits them. */
enum { SS_CPU, SS_WALL, SS_TIME, SS_MPLUS, SS_MMINUS, SS_N };
static const char *const ss_prefix[SS_N] = { "CPU time", "Wall time", "Time", "Memory allocation",
                                              "Memory deallocation" };

typedef struct ss_run {
    uint32_t leaf;
    uint64_t weight;
} ss_run;

typedef struct ss_profile {
    uint32_t thread;
    int metric;
    ss_run *runs;               /* consecutive samples of one stack are merged */
    size_t n, cap;
    uint64_t total;
} ss_profile;

typedef struct ss_conv {
    conv_head h;
    tree t;
    pcd_hmap prof;              /* (thread, metric) -> profile */
    ss_profile *p;
    size_t n_p, cap_p;
} ss_conv;

static void ss_add(ss_conv *c, uint32_t leaf, int metric, uint64_t w)
{
    if (!w || c->h.wst != PCD_OK) return;
    bool fresh;
    uint32_t thread = c->t.n[leaf].root;
    pcd_hslot *sl = pcd_hmap_put(&c->prof, (pcd_hkey){ thread, (uint64_t)metric, 0 }, &fresh);
    if (!sl) {
        c->h.wst = PCD_E_NOMEM;
        return;
    }
    if (fresh) {
        if (c->n_p == c->cap_p) {
            size_t nc = c->cap_p ? c->cap_p * 2 : 16;
            ss_profile *q = realloc(c->p, nc * sizeof *q);
            if (!q) {
                c->h.wst = PCD_E_NOMEM;
                return;
            }
            c->p = q;
            c->cap_p = nc;
        }
        memset(&c->p[c->n_p], 0, sizeof c->p[0]);
        c->p[c->n_p].thread = thread;
        c->p[c->n_p].metric = metric;
        sl->v0 = c->n_p++;
    }
    ss_profile *p = &c->p[sl->v0];
    p->total = sat_add(p->total, w);
    if (p->n && p->runs[p->n - 1].leaf == leaf) {
        p->runs[p->n - 1].weight = sat_add(p->runs[p->n - 1].weight, w);
        return;
    }
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        ss_run *q = realloc(p->runs, nc * sizeof *q);
        if (!q) {
            c->h.wst = PCD_E_NOMEM;
            return;
        }
        p->runs = q;
        p->cap = nc;
    }
    p->runs[p->n++] = (ss_run){ leaf, w };
}

static void ss_sample(void *ud, const mojo_sample *sm)
{
    ss_conv *c = ud;
    if (c->h.wst != PCD_OK || sm->n_items == 0) return;
    uint32_t leaf = tree_add(&c->t, sm);
    if (leaf == UINT32_MAX) {
        c->h.wst = PCD_E_NOMEM;
        return;
    }
    pcd_bytes mode = c->h.mode != UINT32_MAX ? mojo_str(c->h.as, c->h.mode) : (pcd_bytes){ NULL, 0 };
    uint64_t time = sm->n_time && !sm->time.neg ? sm->time.mag : 0;
    uint64_t mplus = sm->n_memory && !sm->memory.neg ? sm->memory.mag : 0;
    uint64_t mminus = sm->n_memory && sm->memory.neg ? sm->memory.mag : 0;
    if (bytes_is(mode, "full")) {
        ss_add(c, leaf, SS_CPU, sm->idle ? 0 : time);
        ss_add(c, leaf, SS_WALL, time);
    } else if (bytes_is(mode, "cpu")) {
        ss_add(c, leaf, SS_CPU, time);
    } else if (bytes_is(mode, "wall")) {
        ss_add(c, leaf, SS_WALL, time);
    } else if (!bytes_is(mode, "memory")) {
        ss_add(c, leaf, SS_TIME, time);
    }
    ss_add(c, leaf, SS_MPLUS, mplus);
    ss_add(c, leaf, SS_MMINUS, mminus);
}

/* A JSON string that is always valid: bytes that are not UTF-8 become U+FFFD. */
static pcd_status json_lossy(pcd_sink *s, const uint8_t *p, size_t n)
{
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' && p[j] != '\\') j++;
        PCD_TRY(pcd_sink_put(s, p + i, j - i));
        if (j == n) break;
        uint8_t b = p[j];
        if (b < 0x80) {
            char esc[8];
            int m = b == '"' ? snprintf(esc, sizeof esc, "\\\"") : b == '\\' ? snprintf(esc, sizeof esc, "\\\\")
                  : b == '\n' ? snprintf(esc, sizeof esc, "\\n") : b == '\t' ? snprintf(esc, sizeof esc, "\\t")
                  : b == '\r' ? snprintf(esc, sizeof esc, "\\r") : snprintf(esc, sizeof esc, "\\u%04x", b);
            PCD_TRY(pcd_sink_put(s, esc, (size_t)m));
            i = j + 1;
            continue;
        }
        size_t len = (b >= 0xC2 && b <= 0xDF) ? 2 : (b >= 0xE0 && b <= 0xEF) ? 3 : (b >= 0xF0 && b <= 0xF4) ? 4 : 0;
        if (len && j + len <= n && pcd_utf8_valid(p + j, len)) {
            PCD_TRY(pcd_sink_put(s, p + j, len));
            i = j + len;
        } else {
            PCD_TRY(pcd_json_raw(s, "\\ufffd"));
            i = j + 1;
        }
    }
    return pcd_sink_put(s, "\"", 1);
}

/* Numbers in speedscope's JSON are JavaScript's: beyond 2^53-1 they lose digits (and many
 * JSON readers refuse them), so larger magnitudes are written as 2^53-1. */
#define JS_MAX_SAFE ((UINT64_C(1) << 53) - 1)

static pcd_status put_js_int(pcd_sink *s, pcd_mojo_int v)
{
    char num[24];
    if (v.mag > JS_MAX_SAFE) v.mag = JS_MAX_SAFE;
    return pcd_sink_put(s, num, mojo_int_text(num, v));
}

static uint64_t js_clamp(uint64_t v) { return v > JS_MAX_SAFE ? JS_MAX_SAFE : v; }

static pcd_status ss_frame(pcd_sink *s, const mojo_asm *as, const mojo_item *it)
{
    pcd_bytes b;
    switch (it->kind) {
    case MOJO_IT_FRAME: {
        const mojo_frame *fr = &as->fr[it->id];
        b = mojo_str(as, fr->scope);
        PCD_TRY(pcd_json_raw(s, "{\"name\":"));
        PCD_TRY(json_lossy(s, b.ptr, b.len));
        b = mojo_str(as, fr->file);
        PCD_TRY(pcd_json_raw(s, ",\"file\":"));
        PCD_TRY(json_lossy(s, b.ptr, b.len));
        PCD_TRY(pcd_json_raw(s, ",\"line\":"));
        PCD_TRY(put_js_int(s, fr->line));
        if (fr->column.mag && !fr->column.neg) {
            PCD_TRY(pcd_json_raw(s, ",\"col\":"));
            PCD_TRY(put_js_int(s, fr->column));
        }
        return pcd_json_raw(s, "}");
    }
    case MOJO_IT_INVALID: return pcd_json_raw(s, "{\"name\":\":INVALID:\"}");
    case MOJO_IT_GC: return pcd_json_raw(s, "{\"name\":\":GC:\"}");
    case MOJO_IT_KERNEL:
    case MOJO_IT_STRREF:
        b = mojo_str(as, it->id);
        PCD_TRY(pcd_json_raw(s, "{\"name\":"));
        PCD_TRY(json_lossy(s, b.ptr, b.len));
        return pcd_json_raw(s, it->kind == MOJO_IT_KERNEL ? ",\"file\":\"kernel\"}" : "}");
    }
    return PCD_OK;
}

static pcd_status ss_write(const pcd_conv_args *a, ss_conv *c)
{
    pcd_sink *s = a->out;
    mojo_asm *as = c->h.as;
    /* frames: every item on a path some profile uses, numbered on first use; each node of
     * the stack tree remembers its frame's number (a numbered node's ancestors are too) */
    pcd_hmap fidx;
    pcd_hmap_init(&fidx);
    uint64_t n_frames = 0;
    uint32_t *ids = NULL;
    size_t cap = 0;
    pcd_status st = pcd_json_raw(s, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[");
    for (size_t i = 0; i < c->n_p && st == PCD_OK; i++) {
        const ss_profile *p = &c->p[i];
        for (size_t r = 0; r < p->n && st == PCD_OK; r++) {
            if (c->t.n[p->runs[r].leaf].fidx) continue;
            size_t n = tree_nodes(&c->t, p->runs[r].leaf, &ids, &cap);
            if (n == SIZE_MAX) st = PCD_E_NOMEM;
            for (size_t k = 0; k < n && st == PCD_OK; k++) {
                node *x = &c->t.n[ids[k]];
                if (x->fidx) continue;
                bool fresh;
                pcd_hslot *sl = pcd_hmap_put(&fidx, (pcd_hkey){ x->code, 0, 0 }, &fresh);
                if (!sl) {
                    st = PCD_E_NOMEM;
                    break;
                }
                if (fresh) {
                    mojo_item it = { (uint32_t)(x->code >> 32), (uint32_t)x->code };
                    sl->v0 = n_frames;
                    if (n_frames++) st = pcd_sink_put(s, ",", 1);
                    if (st == PCD_OK) st = ss_frame(s, as, &it);
                }
                x->fidx = (uint32_t)sl->v0 + 1;
            }
        }
    }
    if (st == PCD_OK) st = pcd_json_raw(s, "]},\"profiles\":[");
    char buf[128];
    for (size_t i = 0; i < c->n_p && st == PCD_OK; i++) {
        const ss_profile *p = &c->p[i];
        const thread_key *th = &c->t.threads[p->thread];
        /* the name: "Wall time profile for <pid>:<iid>:<tid>", as austin2speedscope has it */
        pcd_bytes tid = mojo_tid_text(as, th->tid);
        size_t cap_n = 96 + tid.len;
        char *name = malloc(cap_n);
        if (!name) {
            st = PCD_E_NOMEM;
            break;
        }
        size_t nl = (size_t)snprintf(name, cap_n, "%s profile for ", ss_prefix[p->metric]);
        nl += mojo_int_text(name + nl, th->pid);
        name[nl++] = ':';
        if (th->has_iid && !(th->iid.neg && th->iid.mag)) {
            nl += mojo_int_text(name + nl, th->iid);
            name[nl++] = ':';
        }
        memcpy(name + nl, tid.ptr, tid.len);
        nl += tid.len;
        st = pcd_json_raw(s, i ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":");
        if (st == PCD_OK) st = json_lossy(s, (const uint8_t *)name, nl);
        free(name);
        int m = snprintf(buf, sizeof buf, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
                         p->metric >= SS_MPLUS ? "bytes" : "microseconds", js_clamp(p->total));
        if (st == PCD_OK) st = pcd_sink_put(s, buf, (size_t)m);
        for (size_t r = 0; r < p->n && st == PCD_OK; r++) {
            size_t n = tree_nodes(&c->t, p->runs[r].leaf, &ids, &cap);
            if (n == SIZE_MAX) {
                st = PCD_E_NOMEM;
                break;
            }
            st = pcd_sink_put(s, r ? ",[" : "[", r ? 2 : 1);
            for (size_t k = 0; k < n && st == PCD_OK; k++) {
                size_t q = 0;
                if (k) buf[q++] = ',';
                q += mojo_int_text(buf + q, (pcd_mojo_int){ c->t.n[ids[k]].fidx - 1, false });
                st = pcd_sink_put(s, buf, q);
            }
            if (st == PCD_OK) st = pcd_sink_put(s, "]", 1);
        }
        if (st == PCD_OK) st = pcd_json_raw(s, "],\"weights\":[");
        for (size_t r = 0; r < p->n && st == PCD_OK; r++) {
            m = snprintf(buf, sizeof buf, "%s%" PRIu64, r ? "," : "", js_clamp(p->runs[r].weight));
            st = pcd_sink_put(s, buf, (size_t)m);
        }
        if (st == PCD_OK) st = pcd_json_raw(s, "]}");
    }
    if (st == PCD_OK) {
        st = pcd_json_raw(s, "],\"name\":");
        const char *base = strrchr(a->input_name, '/');
        base = base ? base + 1 : a->input_name;
        if (st == PCD_OK) st = json_lossy(s, (const uint8_t *)base, strlen(base));
        if (st == PCD_OK && c->n_p) st = pcd_json_raw(s, ",\"activeProfileIndex\":0");
        if (st == PCD_OK) st = pcd_json_raw(s, ",\"exporter\":\"profcodec\"}\n");
    }
    free(ids);
    pcd_hmap_free(&fidx);
    return st;
}

static int speedscope_run(const pcd_conv_args *a)
{
    static const mojo_asm_ops ops = { ss_sample, mode_meta };
    mojo_asm as;
    ss_conv c;
    memset(&c, 0, sizeof c);
    c.h.as = &as;
    c.h.mode = UINT32_MAX;
    pcd_hmap_init(&c.t.child);
    pcd_hmap_init(&c.t.roots);
    pcd_hmap_init(&c.prof);
    if (mojo_asm_init(&as, a->al, (int)a->f->version_num, &ops, &c, NULL, NULL) != PCD_OK) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    int rc = mojo_drive_all(a, &as, &c.h.wst);
    if (c.h.wst != PCD_OK) {
        fprintf(a->err, "%s: out of memory for the stacks (raise --max-memory)\n", a->input_name);
        rc = 2;
    } else if (rc != 2) {
        mojo_warn_problems(a, &as);
        pcd_status st = ss_write(a, &c);
        if (st != PCD_OK) rc = write_failed(a, st);
    }
    for (size_t i = 0; i < c.n_p; i++) free(c.p[i].runs);
    free(c.p);
    pcd_hmap_free(&c.prof);
    tree_free(&c.t);
    mojo_asm_free(&as);
    return rc;
}

/* ---- info ------------------------------------------------------------------------------- */

typedef struct mojo_info {
    mojo_asm as;
    bool started;
    bool failed;
    uint64_t samples, idle, gc, invalid, kernel, frame_refs, max_depth, empty;
    uint64_t time_n, mem_n;
    unsigned __int128 time_sum, mem_plus, mem_minus;
    pcd_hmap pids, threads;
    uint32_t meta[8];           /* string ids of the metadata values below, UINT32_MAX none */
    uint64_t n_meta;
} mojo_info;

static const char *const info_keys[8] = { "austin", "mode", "interval", "python", "memory", "multiprocess",
                                          "duration", "gc" };

static void info_sample(void *ud, const mojo_sample *sm)
{
    mojo_info *h = ud;
    h->samples++;
    h->idle += sm->idle;
    h->gc += sm->gc;
    if (!sm->n_items) h->empty++;
    if (sm->n_items > h->max_depth) h->max_depth = sm->n_items;
    for (size_t i = 0; i < sm->n_items; i++) {
        uint32_t k = sm->items[i].kind;
        h->frame_refs += k == MOJO_IT_FRAME;
        h->invalid += k == MOJO_IT_INVALID;
        h->kernel += k == MOJO_IT_KERNEL;
    }
    if (sm->n_time) {
        h->time_n++;
        if (!sm->time.neg) h->time_sum += sm->time.mag;
    }
    if (sm->n_memory) {
        h->mem_n++;
        if (sm->memory.neg) h->mem_minus += sm->memory.mag;
        else h->mem_plus += sm->memory.mag;
    }
    bool fresh;
    pcd_hmap_put(&h->pids, (pcd_hkey){ sm->pid.mag, sm->pid.neg, 0 }, &fresh);
    pcd_hmap_put(&h->threads, (pcd_hkey){ sm->pid.mag, (uint64_t)sm->pid.neg | (uint64_t)sm->iid.neg << 1, sm->tid ^ (sm->iid.mag << 32) }, &fresh);
}

static void info_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    mojo_info *h = ud;
    h->n_meta++;
    pcd_bytes k = mojo_str(&h->as, key);
    for (int i = 0; i < 8; i++)
        if (bytes_is(k, info_keys[i])) h->meta[i] = value;
}

static const mojo_asm_ops info_asm_ops = { info_sample, info_meta };

static void info_init(void *ctx, pcd_alloc *al)
{
    mojo_info *h = ctx;
    memset(h, 0, sizeof *h);
    for (int i = 0; i < 8; i++) h->meta[i] = UINT32_MAX;
    pcd_hmap_init(&h->pids);
    pcd_hmap_init(&h->threads);
    if (mojo_asm_init(&h->as, al, 0, &info_asm_ops, h, NULL, NULL) != PCD_OK) h->failed = true;
}

static void info_record(void *ctx, const pcd_record *rec)
{
    mojo_info *h = ctx;
    if (h->failed) return;
    if (mojo_asm_record(&h->as, rec) != PCD_OK) h->failed = true;
}

static void info_done(mojo_info *h)
{
    if (!h->started && !h->failed) {
        h->started = true;
        if (mojo_asm_finish(&h->as) != PCD_OK) h->failed = true;
    }
}

static void put_u128(FILE *out, unsigned __int128 v)
{
    char t[48];
    int k = 0;
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    while (k) fputc(t[--k], out);
}

static void info_text(void *ctx, FILE *out)
{
    mojo_info *h = ctx;
    info_done(h);
    fprintf(out, "metadata:    %" PRIu64 " entries", h->n_meta);
    bool any = false;
    for (int i = 0; i < 8; i++) {
        if (h->meta[i] == UINT32_MAX) continue;
        pcd_bytes v = mojo_str(&h->as, h->meta[i]);
        fprintf(out, "%s%s=%.*s", any ? ", " : " (", info_keys[i], (int)(v.len > 200 ? 200 : v.len), (const char *)v.ptr);
        any = true;
    }
    fprintf(out, "%s\n", any ? ")" : "");
    fprintf(out, "samples:     %" PRIu64 " (%" PRIu64 " without frames, %" PRIu64 " idle, %" PRIu64 " during GC)\n",
            h->samples, h->empty, h->idle, h->gc);
    fprintf(out, "processes:   %zu, threads: %zu\n", h->pids.len, h->threads.len);
    fprintf(out, "frames:      %" PRIu64 " references, deepest stack %" PRIu64 ", %u distinct frames, %u distinct strings",
            h->frame_refs, h->max_depth, h->as.n_fr ? h->as.n_fr - 1 : 0, h->as.n_str ? h->as.n_str - 2 : 0);
    if (h->invalid || h->kernel) fprintf(out, ", %" PRIu64 " invalid, %" PRIu64 " kernel", h->invalid, h->kernel);
    fprintf(out, "\n");
    if (h->time_n) {
        fprintf(out, "time:        ");
        put_u128(out, h->time_sum);
        fprintf(out, " us in %" PRIu64 " samples\n", h->time_n);
    }
    if (h->mem_n) {
        fprintf(out, "memory:      +");
        put_u128(out, h->mem_plus);
        fprintf(out, " / -");
        put_u128(out, h->mem_minus);
        fprintf(out, " bytes in %" PRIu64 " samples\n", h->mem_n);
    }
    uint64_t us = h->as.problems[MOJO_P_UNDEF_STRING], uf = h->as.problems[MOJO_P_UNDEF_FRAME];
    if (us || uf)
        fprintf(out, "warning:     %" PRIu64 " undefined string and %" PRIu64 " undefined frame references (see validate)\n",
                us, uf);
    if (h->failed) fprintf(out, "warning:     out of memory for the strings and frames; the summary is partial\n");
}

/* A sum as JSON: a number, or (above 2^63-1, as everywhere in profcodec's JSON) a string. */
static pcd_status json_u128(pcd_sink *s, unsigned __int128 v)
{
    char t[48], b[48];
    int k = 0;
    bool big = v > (unsigned __int128)INT64_MAX;
    if (big) PCD_TRY(pcd_sink_put(s, "\"", 1));
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < k; i++) b[i] = t[k - 1 - i];
    PCD_TRY(pcd_sink_put(s, b, (size_t)k));
    return big ? pcd_sink_put(s, "\"", 1) : PCD_OK;
}

static pcd_status info_json(void *ctx, pcd_sink *s)
{
    mojo_info *h = ctx;
    info_done(h);
    char buf[512];
    PCD_TRY(pcd_json_raw(s, "\"metadata\":{"));
    bool any = false;
    for (int i = 0; i < 8; i++) {
        if (h->meta[i] == UINT32_MAX) continue;
        pcd_bytes v = mojo_str(&h->as, h->meta[i]);
        int n = snprintf(buf, sizeof buf, "%s\"%s\":", any ? "," : "", info_keys[i]);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        PCD_TRY(json_lossy(s, v.ptr, v.len));
        any = true;
    }
    int n = snprintf(buf, sizeof buf,
                     "},\"samples\":%" PRIu64 ",\"samples_without_frames\":%" PRIu64 ",\"idle_samples\":%" PRIu64
                     ",\"gc_samples\":%" PRIu64 ",\"processes\":%zu,\"threads\":%zu,\"frame_references\":%" PRIu64
                     ",\"deepest_stack\":%" PRIu64 ",\"distinct_frames\":%u,\"distinct_strings\":%u,\"invalid_frames\":%" PRIu64
                     ",\"kernel_frames\":%" PRIu64 ",\"undefined_string_references\":%" PRIu64
                     ",\"undefined_frame_references\":%" PRIu64 ",\"time_us\":",
                     h->samples, h->empty, h->idle, h->gc, h->pids.len, h->threads.len, h->frame_refs, h->max_depth,
                     h->as.n_fr ? h->as.n_fr - 1 : 0, h->as.n_str ? h->as.n_str - 2 : 0, h->invalid, h->kernel,
                     h->as.problems[MOJO_P_UNDEF_STRING], h->as.problems[MOJO_P_UNDEF_FRAME]);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(json_u128(s, h->time_sum));
    PCD_TRY(pcd_json_raw(s, ",\"memory_allocated\":"));
    PCD_TRY(json_u128(s, h->mem_plus));
    PCD_TRY(pcd_json_raw(s, ",\"memory_released\":"));
    return json_u128(s, h->mem_minus);
}

static void info_fini(void *ctx)
{
    mojo_info *h = ctx;
    pcd_hmap_free(&h->pids);
    pcd_hmap_free(&h->threads);
    mojo_asm_free(&h->as);
}

static const pcd_info_ops mojo_info_ops = {
    sizeof(mojo_info), info_init, info_record, info_text, info_json, info_fini,
};

/* ---- checks above the bytes (validate) ---------------------------------------------------- */

typedef struct mojo_check {
    mojo_asm as;
    bool ok;
} mojo_check;

static void check_init(void *ctx, pcd_alloc *al)
{
    mojo_check *k = ctx;
    k->ok = mojo_asm_init(&k->as, al, 0, NULL, NULL, NULL, NULL) == PCD_OK;
}

static void check_record(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    mojo_check *k = ctx;
    if (!k->ok) return;
    k->as.report = report;
    k->as.report_ud = ud;
    if (PCD_UNLIKELY(mojo_asm_record(&k->as, rec) != PCD_OK)) {
        pcd_error err;
        memset(&err, 0, sizeof err);
        err.status = PCD_E_NOMEM;
        err.offset = rec->offset;
        err.expected = "memory for the strings and frames (raise --max-memory); the reference checks stop here";
        report(ud, false, &err);
        k->ok = false;
    }
}

static void check_finish(void *ctx, pcd_report_fn report, void *ud)
{
    mojo_check *k = ctx;
    if (!k->ok) return;
    k->as.report = report;
    k->as.report_ud = ud;
    mojo_asm_finish(&k->as);
    static const char *const what[MOJO_P_N] = {
        "references to undefined string keys", "references to undefined frame keys",
        "events outside a sample", NULL, "samples with repeated metrics", "samples cut at 1048576 frames",
    };
    for (int i = 0; i < MOJO_P_N; i++) {
        if (!what[i] || k->as.problems[i] <= MOJO_REPORT_MAX) continue;
        char msg[160];
        snprintf(msg, sizeof msg, "%s: %" PRIu64 " in all (the first %d are shown)", what[i], k->as.problems[i],
                 MOJO_REPORT_MAX);
        pcd_error err;
        memset(&err, 0, sizeof err);
        err.status = PCD_E_INVALID;
        err.offset = 0;
        err.expected = NULL;
        err.found_kind = PCD_FOUND_TEXT;
        err.found_text = msg;
        /* the summary is said once; the counted problems were already errors or warnings */
        pcd_error_push(&err, "summary", -1);
        report(ud, false, &err);
    }
}

static void check_fini(void *ctx)
{
    mojo_check *k = ctx;
    mojo_asm_free(&k->as);
}

static const pcd_check_ops mojo_check_ops = {
    sizeof(mojo_check), check_init, check_record, check_finish, check_fini,
};

/* ---- registration --------------------------------------------------------------------------- */

static const pcd_converter mojo_conv[] = {
    { "austin", "Austin's text format, byte-identical to austin-python 1.7.1's mojo2austin", austin_run },
    { "collapsed", "collapsed stacks for flamegraph.pl, inferno, speedscope (--metric time|memory|samples)",
      collapsed_run },
    { "speedscope", "speedscope's JSON file format: a sampled profile per process, thread and metric",
      speedscope_run },
    { "tachyon", "CPython's Tachyon profile (--compression zstd|none), read by CPython 3.15's profiling.sampling replay",
      xf_mojo_to_tachyon_run },
};

static const pcd_importer mojo_import[] = {
    { "austin", "Austin's text format (as austin writes it, or convert --to austin) to MOJO 3", mojo_import_austin },
};

const pcd_ext pcd_mojo_ext = { "mojo", &mojo_info_ops, mojo_conv, 4, &mojo_check_ops, mojo_import, 1 };
