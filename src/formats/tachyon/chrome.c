/* formats/tachyon/chrome.c: Tachyon profiles to Chrome Trace Event JSON (a timeline per
 * thread from the samples). This converter is not on the profile model yet: it goes when the
 * shared Chrome output (src/outputs) takes its place, and with it the stack tree and the
 * mapper below, which only it uses. */
#include <inttypes.h>
#include <string.h>

#include "common/hmap.h"
#include "common/vec.h"
#include "formats/tachyon/tachyon.h"

/* ---- the stack tree ---------------------------------------------------------------------- */

/* Every distinct stack as a node of a tree rooted at the empty stack (node 0): a node is
 * its parent (the stack without its innermost frame) plus that frame. */
typedef struct tree {
    uint32_t *parent, *frame;
    uint32_t *kids;                  /* per node: the 2 children found last, most recent first,
                                      * as (frame, node) pairs (node 0: none) */
    uint32_t n, cap;
    uint32_t *h;                     /* open addressing of node ids (0: empty) by (parent, frame),
                                      * Fibonacci hashing; the keys are the nodes' own */
    size_t hcap;
    unsigned hshift;                 /* 64 - log2(hcap) */
    pcd_alloc *al;
} tree;

/* ---- the stack tree ------------------------------------------------------------------------- */

PCD_INLINE uint64_t tree_hash(uint32_t parent, uint32_t frame)
{
    return ((uint64_t)parent << 32 | frame) * UINT64_C(0x9E3779B97F4A7C15);
}

static pcd_status tree_init(tree *t, pcd_alloc *al)
{
    memset(t, 0, sizeof *t);
    t->al = al;
    t->cap = 1024;
    t->parent = pcd_alloc_get(al, t->cap * sizeof(uint32_t));
    t->frame = pcd_alloc_get(al, t->cap * sizeof(uint32_t));
    t->kids = pcd_alloc_get(al, 4 * t->cap * sizeof(uint32_t));
    t->hcap = 2048;
    t->hshift = 64 - 11;
    t->h = pcd_alloc_get(al, t->hcap * sizeof *t->h);
    if (!t->parent || !t->frame || !t->kids || !t->h) return PCD_E_NOMEM;
    memset(t->h, 0, t->hcap * sizeof *t->h);
    t->parent[0] = 0;
    t->frame[0] = UINT32_MAX;
    memset(t->kids, 0, 4 * sizeof(uint32_t));
    t->n = 1;
    return PCD_OK;
}

static void tree_free(tree *t)
{
    if (!t->al) return;
    pcd_alloc_free(t->al, t->parent, t->cap * sizeof(uint32_t));
    pcd_alloc_free(t->al, t->frame, t->cap * sizeof(uint32_t));
    pcd_alloc_free(t->al, t->kids, 4 * t->cap * sizeof(uint32_t));
    pcd_alloc_free(t->al, t->h, t->hcap * sizeof *t->h);
    memset(t, 0, sizeof *t);
}

static pcd_status tree_rehash(tree *t)
{
    size_t ncap = t->hcap * 2;
    uint32_t *nh = pcd_alloc_get(t->al, ncap * sizeof *nh);
    if (!nh) return PCD_E_NOMEM;
    memset(nh, 0, ncap * sizeof *nh);
    uint32_t *old = t->h;
    size_t ocap = t->hcap;
    t->h = nh;
    t->hcap = ncap;
    t->hshift--;
    for (size_t i = 0; i < ocap; i++) {
        uint32_t nd = old[i];
        if (!nd) continue;
        size_t j = (size_t)(tree_hash(t->parent[nd], t->frame[nd]) >> t->hshift);
        while (nh[j]) j = (j + 1) & (ncap - 1);
        nh[j] = nd;
    }
    pcd_alloc_free(t->al, old, ocap * sizeof *old);
    return PCD_OK;
}

/* The parent's two children found last, most recent first. */
PCD_INLINE void kid_remember(tree *t, uint32_t parent, uint32_t frame, uint32_t node)
{
    uint32_t *k = t->kids + 4 * (size_t)parent;
    k[2] = k[0];
    k[3] = k[1];
    k[0] = frame;
    k[1] = node;
}

static pcd_status tree_child_slow(tree *t, uint32_t parent, uint32_t frame, uint32_t *out)
{
    /* the parent's two last children (tree_child looked at the first), then the table */
    const uint32_t *k = t->kids + 4 * (size_t)parent;
    if (k[1] && k[0] == frame) {
        *out = k[1];
        return PCD_OK;
    }
    if (k[3] && k[2] == frame) {
        uint32_t nd = k[3];
        kid_remember(t, parent, frame, nd);
        *out = nd;
        return PCD_OK;
    }
    size_t i = (size_t)(tree_hash(parent, frame) >> t->hshift);
    for (;;) {
        uint32_t nd = t->h[i];
        if (!nd) break;
        if (t->parent[nd] == parent && t->frame[nd] == frame) {
            kid_remember(t, parent, frame, nd);
            *out = nd;
            return PCD_OK;
        }
        i = (i + 1) & (t->hcap - 1);
    }
    if (t->n == UINT32_MAX) return PCD_E_LIMIT;
    if (t->n == t->cap) {
        uint32_t ncap = t->cap > UINT32_MAX / 2 ? UINT32_MAX : t->cap * 2;
        if (ncap > UINT32_MAX / 2) return PCD_E_LIMIT;
        uint32_t **arrays[3] = { &t->parent, &t->frame, &t->kids };
        static const size_t per[3] = { 1, 1, 4 }; /* entries per node */
        uint32_t *fresh[3];
        bool ok = true;
        for (int a = 0; a < 3; a++) {
            fresh[a] = pcd_alloc_get(t->al, per[a] * ncap * sizeof(uint32_t));
            ok = ok && fresh[a];
        }
        if (!ok) {
            for (int a = 0; a < 3; a++) pcd_alloc_free(t->al, fresh[a], per[a] * ncap * sizeof(uint32_t));
            return PCD_E_NOMEM;
        }
        for (int a = 0; a < 3; a++) {
            memcpy(fresh[a], *arrays[a], per[a] * t->cap * sizeof(uint32_t));
            pcd_alloc_free(t->al, *arrays[a], per[a] * t->cap * sizeof(uint32_t));
            *arrays[a] = fresh[a];
        }
        t->cap = ncap;
    }
    uint32_t node = t->n++;
    t->parent[node] = parent;
    t->frame[node] = frame;
    memset(t->kids + 4 * (size_t)node, 0, 4 * sizeof(uint32_t));
    t->h[i] = node;
    kid_remember(t, parent, frame, node);
    *out = node;
    if ((size_t)t->n * 2 > t->hcap) return tree_rehash(t);
    return PCD_OK;
}

/* The node for `frame` called from `parent`, made if new: the parent's last child first
 * (stacks mostly go on as they went last time). */
static pcd_status tree_child(tree *t, uint32_t parent, uint32_t frame, uint32_t *out)
{
    const uint32_t *k = t->kids + 4 * (size_t)parent;
    if (PCD_LIKELY(k[1] && k[0] == frame)) {
        *out = k[1];
        return PCD_OK;
    }
    return tree_child_slow(t, parent, frame, out);
}

/* ---- mapping stacks of frames to stacks of what the timeline shows ------------------------
 * A replay stack (frame indexes) maps to a node of a tree whose "frames" are keys (file
 * text, function text), so that a slice lasts while its function stays on the stack;
 * CPython's own frames are dropped. */

typedef struct mkey {
    uint32_t fn, func;               /* string indexes (a representative) */
} mkey;

typedef struct mapper {
    const pcd_tachyon_tables *t;
    const pcd_tachyon_names *nm;
    tree mt;                    /* the mapped tree */
    pcd_hmap keys;                   /* (canon fn, canon func) -> key index */
    mkey *key;
    uint32_t n_keys, keys_cap;
    uint32_t *memo;                  /* raw node -> mapped node + 1, 0: not yet */
    size_t memo_cap;
    pcd_alloc *al;
    char msg[160];                   /* the first error (a frame or string index out of range) */
} mapper;

static pcd_status mapper_init(mapper *m, const pcd_tachyon_tables *t, const pcd_tachyon_names *nm, pcd_alloc *al)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    m->nm = nm;
    m->al = al;
    pcd_hmap_init(&m->keys, al);
    return tree_init(&m->mt, al);
}

static void mapper_free(mapper *m)
{
    if (!m->al) return;
    tree_free(&m->mt);
    pcd_hmap_free(&m->keys);
    pcd_alloc_free(m->al, m->key, m->keys_cap * sizeof *m->key);
    pcd_alloc_free(m->al, m->memo, m->memo_cap * sizeof *m->memo);
    memset(m, 0, sizeof *m);
}

/* The key of frame f, or UINT32_MAX for an internal frame; PCD_E_INVALID for bad indexes. */
static pcd_status frame_key(mapper *m, uint32_t f, uint32_t *out)
{
    if (f >= m->t->n_frames) {
        snprintf(m->msg, sizeof m->msg, "Invalid frame index: %u", f);
        return PCD_E_INVALID;
    }
    const pcd_tachyon_v1_frame *fr = &m->t->frames[f];
    if (fr->filename >= m->nm->n || fr->funcname >= m->nm->n) {
        snprintf(m->msg, sizeof m->msg, "Invalid string index in frame %u", f);
        return PCD_E_INVALID;
    }
    size_t fl;
    const uint8_t *fp = pcd_tachyon_name(m->nm, fr->filename, &fl);
    if (pcd_tachyon_internal_file(fp, fl)) {
        *out = UINT32_MAX;
        return PCD_OK;
    }
    pcd_hkey hk = { m->nm->canon[fr->filename], m->nm->canon[fr->funcname], 0 };
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->keys, hk, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) {
        if (m->n_keys == m->keys_cap) {
            uint32_t ncap = m->keys_cap ? m->keys_cap * 2 : 256;
            mkey *nk = pcd_alloc_resize(m->al, m->key, m->keys_cap * sizeof *nk, ncap * sizeof *nk);
            if (!nk) return PCD_E_NOMEM;
            m->key = nk;
            m->keys_cap = ncap;
        }
        m->key[m->n_keys] = (mkey){ fr->filename, fr->funcname };
        sl->v0 = m->n_keys++;
    }
    *out = (uint32_t)sl->v0;
    return PCD_OK;
}

/* The mapped node of the replay's stack `id`. */
static pcd_status map_node(mapper *m, const pcd_tachyon_replay *rp, uint32_t id, uint32_t *out)
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
    const uint32_t *f = pcd_tachyon_replay_stack(rp, id, &d);
    uint32_t mapped = 0;
    for (uint32_t i = 0; i < d; i++) {
        uint32_t key;
        PCD_TRY(frame_key(m, f[i], &key));
        if (key != UINT32_MAX) PCD_TRY(tree_child(&m->mt, mapped, key, &mapped));
    }
    m->memo[id] = mapped + 1;
    *out = mapped;
    return PCD_OK;
}

/* ---- Chrome Trace Event JSON: a timeline per thread ------------------------------------------ */

typedef struct ch_thread {
    uint32_t depth;
    uint32_t path[PCD_TACHYON_MAX_DEPTH];   /* mapped nodes, outermost first */
    uint64_t start[PCD_TACHYON_MAX_DEPTH];  /* when each began */
    uint64_t last_ts;
    bool started;
} ch_thread;

typedef struct chrome {
    const pcd_conv_args *a;
    pcd_tachyon_replay rp;
    mapper m;
    const pcd_tachyon_names *nm;
    const pcd_tachyon_tables *t;
    ch_thread **th;                  /* by the replay's thread index (NULL: no sample yet) */
    size_t n_th, th_cap;
    uint64_t origin, interval, events;
    pcd_status st;
    bool bad;                        /* a frame or string index out of range */
} chrome;

static pcd_status ch_event(chrome *c, const pcd_tachyon_thread *th, uint32_t node, uint64_t begin, uint64_t end)
{
    const mkey *k = &c->m.key[c->m.mt.frame[node]];
    size_t fl, gl;
    const uint8_t *f = pcd_tachyon_name(c->nm, k->fn, &fl), *g = pcd_tachyon_name(c->nm, k->func, &gl);
    pcd_sink *s = c->a->out;
    char buf[160];
    PCD_TRY(pcd_json_raw(s, c->events++ ? ",\n{\"ph\":\"X\",\"name\":" : "{\"ph\":\"X\",\"name\":"));
    PCD_TRY(pcd_json_string(s, g, gl));
    int n = snprintf(buf, sizeof buf, ",\"cat\":\"python\",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 ",\"pid\":%u,\"tid\":%" PRIu64,
                     begin - c->origin, end - begin, th->interp, th->tid);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (!(fl == 1 && f[0] == '~')) {
        PCD_TRY(pcd_json_raw(s, ",\"args\":{\"file\":"));
        PCD_TRY(pcd_json_string(s, f, fl));
        PCD_TRY(pcd_json_raw(s, "}"));
    }
    return pcd_json_raw(s, "}");
}

/* Ends the levels of th's open stack from `keep` up, at `ts`. */
static pcd_status ch_close(chrome *c, const pcd_tachyon_thread *th, ch_thread *ct, uint32_t keep, uint64_t ts)
{
    while (ct->depth > keep) {
        ct->depth--;
        PCD_TRY(ch_event(c, th, ct->path[ct->depth], ct->start[ct->depth], ts));
    }
    return PCD_OK;
}

static void ch_sample(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    chrome *c = ud;
    (void)status;
    if (c->st != PCD_OK || c->bad) return;
    if (th->index >= c->n_th) {
        if (PCD_VEC_RESERVE(c->a->al, c->th, c->th_cap, (size_t)th->index + 1) != PCD_OK) {
            c->st = PCD_E_NOMEM;
            return;
        }
        for (size_t i = c->n_th; i <= th->index; i++) c->th[i] = NULL;
        c->n_th = (size_t)th->index + 1;
    }
    ch_thread *ct = c->th[th->index];
    if (!ct) {
        ct = pcd_alloc_get(c->a->al, sizeof *ct);
        if (!ct) {
            c->st = PCD_E_NOMEM;
            return;
        }
        memset(ct, 0, sizeof *ct);
        c->th[th->index] = ct;
    }
    uint32_t mapped;
    pcd_status ms = map_node(&c->m, &c->rp, node, &mapped);
    if (ms != PCD_OK) {
        if (ms == PCD_E_INVALID) c->bad = true;
        else c->st = ms;
        return;
    }
    uint32_t path[PCD_TACHYON_MAX_DEPTH];
    uint32_t tmp[PCD_TACHYON_MAX_DEPTH];
    uint32_t d = 0;
    for (uint32_t at = mapped; at && d < PCD_TACHYON_MAX_DEPTH; at = c->m.mt.parent[at]) tmp[d++] = at;
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

int pcd_tachyon_chrome_run(const pcd_conv_args *a)
{
    chrome c;
    memset(&c, 0, sizeof c);
    c.a = a;
    pcd_tachyon_v1_file root;
    pcd_tachyon_tables t;
    pcd_tachyon_tables_init(&t, a->al);
    pcd_tachyon_names nm;
    memset(&nm, 0, sizeof nm);
    pcd_reader r2;
    bool r2_open = false;
    pcd_sink *s = a->out;
    pcd_status st = PCD_OK;
    /* pass 1: the header and the tables */
    int rc = pcd_tachyon_conv_root(a, a->r, &root);
    if (!rc) rc = pcd_tachyon_conv_tables(a, a->r, &t);
    if (rc) goto out;
    if (pcd_tachyon_names_build(&nm, &t, a->al) != PCD_OK || mapper_init(&c.m, &t, &nm, a->al) != PCD_OK ||
        pcd_tachyon_replay_init(&c.rp, &root, a->al, true, false) != PCD_OK) {
        rc = pcd_tachyon_conv_say(a, "out of memory (raise --max-memory)");
        goto out;
    }
    c.nm = &nm;
    c.t = &t;
    c.origin = root.start_time_us;
    c.interval = root.sample_interval_us;
    c.rp.on_sample = ch_sample;
    c.rp.ud = &c;
    char buf[512], cfg[160];
    pcd_tachyon_config_text(cfg, sizeof cfg, root.config);
    int n = snprintf(buf, sizeof buf,
                     "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":\"tachyon 1\","
                     "\"python_version\":\"%u.%u.%u\",\"mode\":\"%s\",\"sample_interval_us\":%" PRIu64
                     ",\"start_time_us\":%" PRIu64 ",\"ts_origin\":\"start_time_us\"},\"traceEvents\":[\n",
                     root.python_version.major, root.python_version.minor, root.python_version.micro, cfg,
                     root.sample_interval_us, root.start_time_us);
    st = pcd_sink_put(s, buf, (size_t)n);
    if (st != PCD_OK) {
        rc = pcd_tachyon_conv_write_error(a, st);
        goto out;
    }
    /* pass 2: the samples, as slices that last while their frame stays on the stack */
    rc = pcd_tachyon_conv_open_samples(a, &r2, &r2_open);
    pcd_record next;
    bool have_next;
    if (!rc) rc = pcd_tachyon_conv_replay(a, &r2, &c.rp, &next, &have_next);
    if (c.bad) rc = pcd_tachyon_conv_say(a, c.m.msg);
    /* the stacks still open end one interval after their thread's last sample */
    for (uint32_t i = 0; c.st == PCD_OK && i < c.rp.n_threads; i++) {
        const pcd_tachyon_thread *th = c.rp.threads[i];
        ch_thread *ct = th->index < c.n_th ? c.th[th->index] : NULL;
        if (ct && ct->started) c.st = ch_close(&c, th, ct, 0, ct->last_ts + c.interval);
    }
    /* names of processes (interpreters) and threads */
    for (uint32_t i = 0; c.st == PCD_OK && i < c.rp.n_threads; i++) {
        const pcd_tachyon_thread *th = c.rp.threads[i];
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
    if (c.st == PCD_E_NOMEM) rc = pcd_tachyon_conv_say(a, "out of memory (raise --max-memory)");
    else if (c.st != PCD_OK) rc = pcd_tachyon_conv_write_error(a, c.st);
out:
    if (r2_open) pcd_reader_close(&r2);
    for (size_t i = 0; i < c.n_th; i++)
        if (c.th[i]) pcd_alloc_free(a->al, c.th[i], sizeof *c.th[i]);
    PCD_VEC_FREE(a->al, c.th, c.th_cap);
    mapper_free(&c.m);
    pcd_tachyon_replay_free(&c.rp);
    pcd_tachyon_names_free(&nm);
    pcd_tachyon_tables_free(&t);
    return rc;
}
