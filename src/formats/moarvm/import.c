/* formats/moarvm/import.c: a MoarVM heap snapshot into the profile model.
 *
 * One snapshot makes the profile: the one `--metric TYPE@N` names, else the last complete one
 * whose references are sound (in bounds, adding up). When the last complete snapshot's are not,
 * the last sound one before it is taken, with a note, and the job is marked damaged (the
 * checks reported why; the output holds the last good snapshot before the damage).
 *
 * Every snapshot instead, each a thread named "snapshot N" (in file order), with
 * `--metric TYPE@all` or when the output wants every part (job->every_part: the HTML page,
 * whose heap views compare snapshots) and no @N was named. Each is folded as it completes, so
 * that one heap is held at a time; a snapshot whose references are not sound is left out with
 * a note, and the job is marked damaged.
 *
 * Its heap is the folded dominator tree (dom.h); each node is one sample whose stack is the
 * node's path from the top and whose values are the node's own size in bytes ("size", the
 * default) and its number of collectables ("count", kept beside the size: shown when asked),
 * so that a frame's width in a flame graph is what it retains. Frames:
 *  - objects, type objects and STables: heap types named by their type ("Name", "Name (type
 *    object)", "Name (STable)"; "<type N>" for an index past the table), keyed by the type
 *    index (two types of one name stay two frames);
 *  - frames: code (name, file, line of the static frame; "<anon>" for an empty name and "?"
 *    for a file index past the strings, as MoarVM's analyzer has them; '\' read as '/', so the
 *    outputs' basename is the analyzer's; "<frame N>" past the table), keyed by the index;
 *  - roots: heap roots ("root", "Permanent Roots", "VM Instance Roots", ...);
 *  - the "..." node that ends a deep path, "(unreachable from the root)" and "<unknown kind>":
 *    labels.
 * One snapshot's thread is blank (a heap has none), samples have no time. Metadata: the snapshot's
 * number, gc_seq_num and snap_time (format 3), and its totals. Dialect: default. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/vec.h"
#include "formats/moarvm/dom.h"
#include "model/profile.h"

enum { T_SIZE, T_COUNT, T_N };

typedef struct mimport {
    pcd_job *j;
    pcd_profile *p;
    pcd_moarvm_col *c;             /* the collector the records go to */
    pcd_moarvm_fold f;             /* the heap's dominator tree, at the end */
    bool want_index;
    uint64_t index;                /* --metric TYPE@N: N */
    bool by_count;                 /* --metric count... */
    uint64_t complete;             /* complete snapshots seen */
    bool last_sound;               /* the last complete snapshot had sound references */
    uint64_t last_index;
    pcd_moarvm_heap heap;          /* the snapshot taken so far */
    bool have;
    pcd_status copy_st;            /* why the last candidate could not be copied */
    /* every snapshot (--metric TYPE@all, or job->every_part) */
    bool every;
    struct part {
        pcd_moarvm_snapshot snap;
        pcd_moarvm_fold fold;
    } *part;
    size_t n_part, cap_part;
    uint64_t unsound;              /* complete snapshots left out: their references are not sound */
} mimport;

/* --metric: size or count, optionally @N. */
static pcd_status parse_metric(pcd_job *j, mimport *m)
{
    const char *metric = j->metric;
    if (!metric) return PCD_OK;
    const char *at = strchr(metric, '@');
    size_t len = at ? (size_t)(at - metric) : strlen(metric);
    m->by_count = len == 5 && strncmp(metric, "count", 5) == 0;
    if (!(len == 4 && strncmp(metric, "size", 4) == 0) && !m->by_count)
        return pcd_job_fail(j, PCD_E_ARG,
                            "--metric takes size or count for a MoarVM heap snapshot, optionally @N for snapshot N "
                            "(count@0) or @all for every snapshot, not '%s'",
                            metric);
    if (at && strcmp(at + 1, "all") == 0) {
        m->every = true;
    } else if (at) {
        char *end;
        m->index = strtoull(at + 1, &end, 10);
        if (at[1] < '0' || at[1] > '9' || *end)
            return pcd_job_fail(j, PCD_E_ARG, "--metric %s: a snapshot number after @", metric);
        m->want_index = true;
    }
    return PCD_OK;
}

static void on_snapshot(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s, const pcd_moarvm_stats *st,
                        const pcd_moarvm_graph *g)
{
    (void)c;
    (void)st;
    mimport *m = ud;
    m->complete++;
    if (m->every) {
        if (m->copy_st != PCD_OK) return;
        m->last_index = s->index;
        if (!g) {
            pcd_job_note(m->j, "snapshot %" PRIu64 "'s references are not sound (see above): it is left out",
                         s->index);
            m->unsound++;
            return;
        }
        if (PCD_VEC_RESERVE(m->j->al, m->part, m->cap_part, m->n_part + 1) != PCD_OK) {
            m->copy_st = PCD_E_NOMEM;
            return;
        }
        m->copy_st = pcd_moarvm_heap_copy(&m->heap, m->j->al, s, g);
        if (m->copy_st != PCD_OK) return;
        struct part *pt = &m->part[m->n_part];
        memset(pt, 0, sizeof *pt);
        pt->snap = *s;
        m->copy_st = pcd_moarvm_fold_heap(&m->heap, &pt->fold);
        pcd_moarvm_heap_free(&m->heap);
        if (m->copy_st == PCD_OK) m->n_part++;
        else pcd_moarvm_fold_free(&pt->fold);
        return;
    }
    if (m->want_index && s->index != m->index) return;
    m->last_index = s->index;
    m->last_sound = g != NULL;
    if (!g) return; /* its references are out of bounds (the checks said so): the one before stays */
    m->copy_st = pcd_moarvm_heap_copy(&m->heap, m->j->al, s, g);
    m->have = m->copy_st == PCD_OK;
}

/* ---- labels into frames ---------------------------------------------------------------------- */

/* A label (type or frame) -> the model's frame, 12 bytes a slot against common/hmap.c's 48
 * (docs/design.md, "One hash, one table"): one lookup per node of the folded tree. */
typedef struct labels {
    pcd_alloc *al;
    uint64_t *key;                 /* label + 1 (0 empty) */
    uint32_t *frame;
    size_t cap, n;
} labels;

static void labels_free(labels *l)
{
    pcd_alloc_free(l->al, l->key, l->cap * sizeof *l->key);
    pcd_alloc_free(l->al, l->frame, l->cap * sizeof *l->frame);
    memset(l, 0, sizeof *l);
}

/* The slot of label (found or empty) into *at; false when the table cannot grow. */
static bool labels_slot(labels *l, uint64_t label, size_t *at)
{
    if ((l->n + 1) * 2 > l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 256;
        uint64_t *k = pcd_alloc_get(l->al, ncap * sizeof *k);
        uint32_t *f = pcd_alloc_get(l->al, ncap * sizeof *f);
        if (!k || !f) {
            pcd_alloc_free(l->al, k, k ? ncap * sizeof *k : 0);
            pcd_alloc_free(l->al, f, f ? ncap * sizeof *f : 0);
            return false;
        }
        memset(k, 0, ncap * sizeof *k);
        for (size_t i = 0; i < l->cap; i++) {
            if (!l->key[i]) continue;
            size_t j = pcd_mix64(l->key[i]) & (ncap - 1);
            while (k[j]) j = (j + 1) & (ncap - 1);
            k[j] = l->key[i];
            f[j] = l->frame[i];
        }
        pcd_alloc_free(l->al, l->key, l->cap * sizeof *l->key);
        pcd_alloc_free(l->al, l->frame, l->cap * sizeof *l->frame);
        l->key = k;
        l->frame = f;
        l->cap = ncap;
    }
    size_t mask = l->cap - 1, i = pcd_mix64(label + 1) & mask;
    while (l->key[i] && l->key[i] != label + 1) i = (i + 1) & mask;
    *at = i;
    return true;
}

static pcd_str str_bytes(pcd_profile *p, const char *s, size_t n) { return pcd_profile_str(p, s, n); }

/* A static frame: code. */
static pcd_frame code_frame(pcd_profile *p, const pcd_moarvm_col *c, uint32_t i)
{
    pcd_frame f = pcd_frame_blank(PCD_FRAME_CODE);
    f.key = i;
    pcd_bytes name, file;
    uint32_t line;
    char buf[32];
    if (!pcd_moarvm_col_frame_row(c, i, &name, &file, &line)) {
        f.function = str_bytes(p, buf, (size_t)snprintf(buf, sizeof buf, "<frame %" PRIu32 ">", i));
        return f;
    }
    f.function = name.ptr && name.len ? pcd_profile_str(p, name.ptr, name.len) : pcd_profile_strz(p, "<anon>");
    if (!file.ptr) {
        f.file = pcd_profile_strz(p, "?");
    } else if (!memchr(file.ptr, '\\', file.len)) {
        f.file = pcd_profile_str(p, file.ptr, file.len);
    } else {
        /* MoarVM's analyzer takes the name after the last '/' or '\' */
        uint8_t *t = pcd_alloc_get(p->al, file.len);
        if (!t) {
            p->oom = PCD_E_NOMEM;
            return f;
        }
        for (size_t k = 0; k < file.len; k++) t[k] = file.ptr[k] == '\\' ? '/' : file.ptr[k];
        f.file = pcd_profile_str(p, t, file.len);
        pcd_alloc_free(p->al, t, file.len);
    }
    f.line = line;
    return f;
}

/* An object's, type object's or STable's type: a heap type. */
static pcd_frame type_frame(pcd_profile *p, const pcd_moarvm_col *c, uint64_t kind, uint32_t i)
{
    pcd_frame f = pcd_frame_blank(PCD_FRAME_TYPE);
    f.key = i;
    const char *suffix = kind == PCD_MOARVM_K_TYPEOBJ  ? " (type object)"
                         : kind == PCD_MOARVM_K_STABLE ? " (STable)"
                                                       : "";
    size_t sl = strlen(suffix);
    pcd_bytes name;
    char buf[48];
    if (!pcd_moarvm_col_type_row(c, i, &name)) {
        f.function = str_bytes(p, buf, (size_t)snprintf(buf, sizeof buf, "<type %" PRIu32 ">%s", i, suffix));
        return f;
    }
    if (!sl) {
        f.function = pcd_profile_str(p, name.ptr, name.len);
        return f;
    }
    uint8_t *t = pcd_alloc_get(p->al, name.len + sl);
    if (!t) {
        p->oom = PCD_E_NOMEM;
        return f;
    }
    if (name.len) memcpy(t, name.ptr, name.len);
    memcpy(t + name.len, suffix, sl);
    f.function = pcd_profile_str(p, t, name.len + sl);
    pcd_alloc_free(p->al, t, name.len + sl);
    return f;
}

static pcd_frame_id frame_of(pcd_profile *p, const pcd_moarvm_col *c, labels *l, uint64_t label)
{
    size_t at;
    if (!labels_slot(l, label, &at)) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    if (l->key[at]) return l->frame[at];
    static const char *const roots[12] = {
        "<unknown kind>", "", "", "", "", "Permanent Roots", "VM Instance Roots", "C Stack Roots",
        "Thread Roots", "root", "Inter-generational Roots", "Thread Call Stack Roots",
    };
    uint64_t kind = label >> 32;
    uint32_t i = (uint32_t)label;
    pcd_frame f;
    if (label == PCD_MOARVM_LABEL_DEEPER) {
        f = pcd_frame_blank(PCD_FRAME_LABEL);
        f.function = pcd_profile_strz(p, "...");
    } else if (label == PCD_MOARVM_LABEL_UNREACHABLE) {
        f = pcd_frame_blank(PCD_FRAME_LABEL);
        f.function = pcd_profile_strz(p, "(unreachable from the root)");
    } else if (kind == PCD_MOARVM_K_FRAME) {
        f = code_frame(p, c, i);
    } else if (kind >= PCD_MOARVM_K_OBJECT && kind <= PCD_MOARVM_K_STABLE) {
        f = type_frame(p, c, kind, i);
    } else if (kind >= PCD_MOARVM_K_PERM_ROOTS && kind <= PCD_MOARVM_K_CALLSTACK_ROOTS) {
        f = pcd_frame_blank(PCD_FRAME_ROOT);
        f.function = pcd_profile_strz(p, roots[kind]);
    } else {
        f = pcd_frame_blank(PCD_FRAME_LABEL);
        f.function = pcd_profile_strz(p, roots[0]);
    }
    pcd_frame_id id = pcd_profile_frame(p, &f);
    if (p->oom) return 0;
    l->key[at] = label + 1;
    l->frame[at] = id;
    l->n++;
    return id;
}

/* ---- the profile ------------------------------------------------------------------------------- */

static pcd_status meta_u64(pcd_profile *p, const char *key, uint64_t v)
{
    char buf[24];
    return pcd_profile_meta(p, pcd_profile_strz(p, key),
                            str_bytes(p, buf, (size_t)snprintf(buf, sizeof buf, "%" PRIu64, v)));
}

/* The sample types: size (the default) and count; titled with the snapshot's number when the
 * profile is one snapshot. */
static void add_types(const mimport *m, pcd_profile *p, const pcd_moarvm_snapshot *one, int *t_size, int *t_count)
{
    char title[64];
    if (one) snprintf(title, sizeof title, "Retained size, snapshot %" PRIu64, one->index);
    *t_size = pcd_profile_add_type(p, "size", "bytes", one ? title : "Retained size");
    if (one) snprintf(title, sizeof title, "Retained collectables, snapshot %" PRIu64, one->index);
    *t_count = pcd_profile_add_type(p, "count", "count", one ? title : "Retained collectables");
    p->types[*t_count].secondary = true;
    p->default_type = *t_size;
    p->sample_noun = PCD_NOUN_STACKS; /* a node of the folded dominator tree */
    /* --metric TYPE@N (TYPE@all) names the type too */
    if ((m->want_index || m->every) && m->j->metric) pcd_profile_alias(p, m->j->metric, m->by_count ? *t_count : *t_size);
}

/* A snapshot's figures as metadata; prefix "" for the one snapshot of a profile, else
 * "snapshot N " before each key. */
static pcd_status snapshot_meta(pcd_profile *p, const pcd_moarvm_snapshot *s, const char *prefix)
{
    static const struct {
        const char *key;
        int what;
    } keys[] = { { "heap_size", -1 }, { "collectables", -2 }, { "references", -3 }, { "objects", PCD_MOARVM_K_OBJECT },
                 { "type_objects", PCD_MOARVM_K_TYPEOBJ }, { "stables", PCD_MOARVM_K_STABLE },
                 { "frames", PCD_MOARVM_K_FRAME } };
    char key[64];
    if (s->have_meta & (1u << PCD_MOARVM_M_GC_SEQ_NUM)) {
        snprintf(key, sizeof key, "%sgc_seq_num", prefix);
        PCD_TRY(meta_u64(p, key, s->meta[PCD_MOARVM_M_GC_SEQ_NUM]));
    }
    if (s->have_meta & (1u << PCD_MOARVM_M_SNAP_TIME)) {
        snprintf(key, sizeof key, "%ssnap_time_us", prefix);
        PCD_TRY(meta_u64(p, key, s->meta[PCD_MOARVM_M_SNAP_TIME]));
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint64_t v = keys[i].what == -1   ? s->heap_size
                     : keys[i].what == -2 ? s->n[PCD_MOARVM_COLKIND]
                     : keys[i].what == -3 ? s->n[PCD_MOARVM_REFDESCR]
                                          : s->kinds[keys[i].what];
        snprintf(key, sizeof key, "%s%s", prefix, keys[i].key);
        PCD_TRY(meta_u64(p, key, v));
    }
    return PCD_OK;
}

/* One sample per node of a folded tree, on thread `thread`. */
static pcd_status emit_fold(const mimport *m, pcd_profile *p, const pcd_moarvm_col *c, labels *l,
                            pcd_thread_id thread, const pcd_moarvm_snapshot *s, const pcd_moarvm_fold *f,
                            int t_size, int t_count)
{
    pcd_job *j = m->j;
    pcd_stack_id *stack = f->n ? pcd_alloc_get(j->al, f->n * sizeof *stack) : NULL;
    pcd_status st = f->n && !stack ? PCD_E_NOMEM : PCD_OK;
    for (size_t i = 0; i < f->n && st == PCD_OK; i++) {
        const pcd_moarvm_fold_node *nd = &f->node[i];
        pcd_frame_id fr = frame_of(p, c, l, nd->label);
        stack[i] = pcd_profile_push(p, nd->parent == UINT32_MAX ? PCD_STACK_EMPTY : stack[nd->parent], fr);
        if (p->oom) {
            st = p->oom;
            break;
        }
        uint64_t v[T_N];
        v[t_size] = nd->size;
        v[t_count] = nd->count;
        pcd_sample sm;
        memset(&sm, 0, sizeof sm);
        sm.thread = thread;
        sm.stack = stack[i];
        sm.time = PCD_TIME_NONE;
        sm.count = 1;
        sm.values = v;
        sm.flags = PCD_SAMPLE_HAS(t_size) | PCD_SAMPLE_HAS(t_count);
        sm.offset = s->offset;
        st = pcd_profile_sample(p, &sm);
    }
    if (stack) pcd_alloc_free(j->al, stack, f->n * sizeof *stack);
    return st;
}

/* The header (sample types, metadata), then one sample per node of the folded tree. */
static pcd_status emit(const mimport *m, pcd_profile *p, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s,
                       const pcd_moarvm_fold *f)
{
    int t_size, t_count;
    add_types(m, p, s, &t_size, &t_count);
    PCD_TRY(pcd_profile_begin(p));
    PCD_TRY(meta_u64(p, "snapshot", s->index));
    PCD_TRY(snapshot_meta(p, s, ""));
    pcd_thread blank = pcd_thread_blank();
    pcd_thread_id thread = pcd_profile_thread(p, &blank);
    labels l = { m->j->al, NULL, NULL, 0, 0 };
    pcd_status st = emit_fold(m, p, c, &l, thread, s, f, t_size, t_count);
    labels_free(&l);
    return st;
}

/* Every snapshot: the header, then each snapshot's tree on a thread "snapshot N". */
static pcd_status emit_every(const mimport *m, pcd_profile *p, const pcd_moarvm_col *c)
{
    int t_size, t_count;
    add_types(m, p, NULL, &t_size, &t_count);
    PCD_TRY(pcd_profile_begin(p));
    PCD_TRY(meta_u64(p, "snapshots", m->n_part));
    char prefix[48];
    for (size_t i = 0; i < m->n_part; i++) {
        snprintf(prefix, sizeof prefix, "snapshot %" PRIu64 " ", m->part[i].snap.index);
        PCD_TRY(snapshot_meta(p, &m->part[i].snap, prefix));
    }
    labels l = { m->j->al, NULL, NULL, 0, 0 };
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < m->n_part && st == PCD_OK; i++) {
        char name[40];
        pcd_thread t = pcd_thread_blank();
        t.key = m->part[i].snap.index + 1;
        t.name = str_bytes(p, name, (size_t)snprintf(name, sizeof name, "snapshot %" PRIu64, m->part[i].snap.index));
        pcd_thread_id thread = pcd_profile_thread(p, &t);
        if (p->oom) st = p->oom;
        else st = emit_fold(m, p, c, &l, thread, &m->part[i].snap, &m->part[i].fold, t_size, t_count);
    }
    labels_free(&l);
    return st;
}

/* The whole input first: the collector assembles each snapshot from its blocks (their tables
 * and columns come in any order, and a snapshot's references are only sound at its TOC), and
 * the heap is folded into its dominator tree when the last snapshot is known; so the records
 * go to the collector, and the profile is made in moarvm_end. */
static pcd_status moarvm_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    (void)from;
    mimport *m = ctx;
    m->j = j;
    m->p = p;
    p->dialect = PCD_DIALECT_DEFAULT;
    PCD_TRY(parse_metric(j, m));
    if (j->every_part && !m->want_index) m->every = true;
    pcd_moarvm_opts o = { true, true, j->report, j->report_ud, on_snapshot, m };
    m->c = pcd_moarvm_col_new(j->al, &o);
    if (!m->c) return pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    return PCD_OK;
}

static pcd_status moarvm_record(void *ctx, const pcd_record *rec)
{
    mimport *m = ctx;
    pcd_moarvm_col_record(m->c, rec);
    return PCD_OK;
}

static pcd_status moarvm_end(void *ctx, pcd_status st)
{
    mimport *m = ctx;
    if (!m->c) return st; /* begin failed before anything was taken */
    pcd_job *j = m->j;
    pcd_profile *p = m->p;
    pcd_moarvm_col *c = m->c;
    if (st != PCD_OK) goto done;
    pcd_moarvm_col_after(c, j->r);
    if (pcd_moarvm_col_oom(c)) {
        st = pcd_job_fail(j, PCD_E_NOMEM, "out of memory for the snapshots' columns (raise --max-memory)");
    } else if (m->every) {
        if (m->copy_st == PCD_E_LIMIT)
            st = pcd_job_fail(j, PCD_E_LIMIT,
                              "snapshot %" PRIu64 " is too large for the dominator tree (2^32 collectables or references)",
                              m->last_index);
        else if (m->copy_st != PCD_OK)
            st = pcd_job_fail(j, m->copy_st,
                              "out of memory for the dominator tree of snapshot %" PRIu64 " (raise --max-memory)",
                              m->last_index);
        else if (!m->n_part)
            st = pcd_moarvm_no_snapshot(j, m->complete);
        if (st == PCD_OK) {
            if (m->unsound) j->damaged = true;
            st = emit_every(m, p, c);
        }
        goto done;
    } else if (m->copy_st == PCD_E_LIMIT) {
        st = pcd_job_fail(j, PCD_E_LIMIT,
                          "snapshot %" PRIu64 " is too large for the dominator tree (2^32 collectables or references)",
                          m->last_index);
    } else if (m->copy_st != PCD_OK) {
        st = pcd_job_fail(j, m->copy_st,
                          "out of memory for the dominator tree of snapshot %" PRIu64 " (raise --max-memory)",
                          m->last_index);
    } else if (!m->have) {
        if (m->want_index)
            st = pcd_job_fail(j, PCD_E_INVALID,
                              "no complete snapshot %" PRIu64 " with sound references (%" PRIu64 " complete)", m->index,
                              m->complete);
        else
            st = pcd_moarvm_no_snapshot(j, m->complete);
    }
    if (st != PCD_OK) goto done;
    if (!m->last_sound) {
        pcd_job_note(j,
                     "snapshot %" PRIu64 "'s references are not sound (see above): the heap is snapshot %" PRIu64
                     "'s, the last sound one before it",
                     m->last_index, m->heap.snap.index);
        j->damaged = true;
    }
    if ((st = pcd_moarvm_fold_heap(&m->heap, &m->f)) != PCD_OK) {
        st = pcd_job_fail(j, st, "out of memory for the dominator tree of snapshot %" PRIu64 " (raise --max-memory)",
                          m->heap.snap.index);
        goto done;
    }
    pcd_moarvm_snapshot snap = m->heap.snap;
    pcd_moarvm_heap_free(&m->heap); /* the folded tree is all that is needed now */
    st = emit(m, p, c, &snap, &m->f);
done:
    for (size_t i = 0; i < m->n_part; i++) pcd_moarvm_fold_free(&m->part[i].fold);
    PCD_VEC_FREE(j->al, m->part, m->cap_part);
    pcd_moarvm_fold_free(&m->f);
    pcd_moarvm_heap_free(&m->heap);
    pcd_moarvm_col_free(c);
    return st;
}

const pcd_model_importer pcd_moarvm_model = { PCD_HAS_SAMPLES, sizeof(mimport), moarvm_begin, moarvm_record,
                                              moarvm_end };
