/* formats/mojo/asm.h: Austin MOJO above the bytes: events of any version in, samples out.
 *
 * The decoder (generated from schemas/mojo/) gives events; this turns them into what
 * Austin meant: samples (a stack event, its frame references and markers, its metrics),
 * with string and frame keys resolved in the scope of the process that defined them.
 * Semantics (NOTES-mojo.md, and austin-python 1.7.1 where Austin says nothing):
 *  - keys are per process: a definition belongs to the pid of the latest stack event;
 *    definitions before any stack event belong to no process and are found from every
 *    process that does not define the key itself (austinp of Austin 3.4 writes them);
 *  - redefinitions overwrite; a frame keeps the strings its definition named;
 *  - string key 1 is "<unknown>" whatever defines it;
 *  - a sample ends at the next stack event, a metadata event, or the end (version 4, and
 *    any version read for austin-python 2.2.0's text: at the next stack event or the end);
 *  - version 4: a stack repeat puts the frame references of the thread's (pid, thread text)
 *    previous sample, without its innermost native frames (a file that neither ends in ".py"
 *    nor is "<...>"), before the sample's items so far; without a previous sample it adds
 *    nothing. A task stack's frame references go to the task, and the next time metric
 *    ends it (the time spent at the task's previous suspension point); a task stack still
 *    open at the next stack event or the end is dropped (a problem);
 *  - references to undefined keys are errors (reported with their offset) and resolve
 *    to "<unknown>" (a frame: <unknown>:<unknown>:0);
 *  - strings are bytes: nothing requires UTF-8.
 * Memory grows with distinct strings, frames, keys and processes, not with the file. */
#ifndef MOJO_ASM_H
#define MOJO_ASM_H

#include "pcd.h"
#include "pipeline/job.h"
#include "mojo_view.h"

/* The MOJO version of a decoded record's format (1 to 4), or 0 if it is not MOJO. */
int pcd_mojo_version_of(const pcd_record *rec);

/* A sample's frames and markers, in file order. */
enum { MOJO_IT_FRAME, MOJO_IT_INVALID, MOJO_IT_GC, MOJO_IT_KERNEL, MOJO_IT_STRREF };
typedef struct mojo_item {
    uint32_t kind;
    uint32_t id;                /* FRAME: frame id; KERNEL, STRREF: string id */
} mojo_item;

/* A frame as defined (immutable; identical definitions share one id). */
typedef struct mojo_frame {
    uint32_t file, scope;       /* string ids */
    pcd_mojo_int line, line_end, column, column_end;
} mojo_frame;

enum { MOJO_METRIC_NONE, MOJO_METRIC_TIME, MOJO_METRIC_MEMORY };

typedef struct mojo_sample {
    uint64_t offset;            /* of its stack event */
    uint64_t index;             /* 0, 1, 2, ... */
    pcd_mojo_int pid, iid;
    bool has_iid;               /* MOJO 3 */
    uint32_t tid;               /* string id */
    const mojo_item *items;
    size_t n_items;
    bool idle, gc;
    bool full;                  /* the file said mode: full before the sample ended */
    uint8_t first_metric;       /* MOJO_METRIC_*: which metric came first */
    uint32_t n_time, n_memory;
    pcd_mojo_int time, memory;  /* the first of each */
} mojo_sample;

/* An asyncio task's stack (version 4): the task seen at a new suspension point (its frames;
 * none when it is gone), and the time spent at its previous one. It came within the sample
 * of `owner` (pid, iid, tid: the sample being assembled). */
typedef struct mojo_task {
    uint64_t offset;            /* of its task_stack event */
    pcd_mojo_int task;          /* its id */
    uint32_t name;              /* string id of its name; UINT32_MAX: none (key 0, or undefined) */
    const uint32_t *frames;     /* frame ids, outermost first */
    size_t n_frames;
    pcd_mojo_int elapsed;       /* µs at its previous suspension point (the time metric) */
    const mojo_sample *owner;
} mojo_task;

typedef struct mojo_asm_ops {
    void (*sample)(void *ud, const mojo_sample *s);
    void (*metadata)(void *ud, uint32_t key, uint32_t value, uint64_t offset);
    /* version 4 (may be NULL): a task stack ended by its time metric; a waiter edge (task is
     * awaited by waiter, in the process of the latest stack event) */
    void (*task)(void *ud, const mojo_task *t);
    void (*waiter)(void *ud, pcd_mojo_int pid, pcd_mojo_int task, pcd_mojo_int waiter, uint64_t offset);
} mojo_asm_ops;

/* A key -> id table with open addressing (keys are sign and magnitude). Not common/hmap.c
 * (docs/design.md, "One hash, one table"): 16 bytes a slot against 48, looked up at every
 * string and frame reference of every sample, the hottest lookup of the MOJO reader. Through
 * the hmap (i23e, callgrind, the 27 MB bench recording): convert --to collapsed +11.8 %,
 * validate +13.6 %. */
struct mojo_kslot {
    uint64_t key;
    uint32_t tag;               /* 0 empty; 1 + the key's sign */
    uint32_t val;
};
typedef struct mojo_kmap {
    struct mojo_kslot *s;
    uint32_t cap, len;
} mojo_kmap;

/* Where a key starts its probe in a table of cap (a power of two) slots: Fibonacci
 * hashing, one multiplication (keys are looked up once per frame reference). */
PCD_INLINE uint32_t mojo_kslot_at(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
}

PCD_INLINE struct mojo_kslot *mojo_kmap_find(const mojo_kmap *m, pcd_mojo_int k)
{
    if (!m->cap) return NULL;
    uint32_t tag = 1 + (uint32_t)k.neg;
    for (uint32_t i = mojo_kslot_at(k.mag, m->cap);; i = (i + 1) & (m->cap - 1)) {
        struct mojo_kslot *s = &m->s[i];
        if (s->tag == tag && s->key == k.mag) return s;
        if (!s->tag) return NULL;
    }
}

typedef struct mojo_scope {
    pcd_mojo_int pid;
    mojo_kmap strings, frames;
    mojo_kmap threads;          /* version 4: thread text's string id -> its previous frames + 1 */
} mojo_scope;

/* A thread's previous sample's frame ids (version 4's stack repeats). */
typedef struct mojo_prev {
    uint32_t *fr;
    uint32_t n, cap;
} mojo_prev;

/* Problems above the bytes, by kind (all counted; the first MOJO_REPORT_MAX of each kind, and
 * the first early definition, reported in detail). */
#define MOJO_REPORT_MAX 10
enum {
    MOJO_P_UNDEF_STRING, MOJO_P_UNDEF_FRAME, MOJO_P_OUTSIDE, MOJO_P_EARLY_DEF, MOJO_P_METRICS,
    MOJO_P_DEEP, MOJO_P_TASK, MOJO_P_N
};

typedef struct mojo_asm {
    pcd_alloc *al;
    pcd_status oom;             /* PCD_E_NOMEM once memory ran out; everything after is dropped */
    const mojo_asm_ops *ops;
    void *ud;
    pcd_report_fn report;       /* may be NULL */
    void *report_ud;
    int version;
    bool py2;                   /* read as austin-python 2.2.0 does (a sample does not end at
                                 * metadata) in every version, not only 4 */
    /* strings */
    uint8_t *pool;
    size_t pool_len, pool_cap;
    struct pcd_mojo_str *str;
    uint32_t n_str, str_cap;
    uint32_t *str_idx;          /* hash index: string id + 1, 0 empty */
    uint32_t str_idx_cap;
    /* frames */
    mojo_frame *fr;
    uint32_t n_fr, fr_cap;
    uint32_t *fr_idx;
    uint32_t fr_idx_cap;
    /* scopes: 0 is "before any stack event" */
    mojo_scope *sc;
    uint32_t n_sc, sc_cap;
    mojo_kmap pids;             /* pid -> scope index */
    uint32_t cur;               /* scope of the latest stack event */
    const mojo_kmap *cur_frames; /* &sc[cur].frames (set with cur; sc moves only then) */
    /* the sample being assembled */
    bool open;
    mojo_sample s;
    mojo_item *items;
    size_t items_cap;
    bool full;
    uint64_t samples;
    /* the kernel symbol taken last at each item position of a thread's samples (string id
     * + 1, 0 none), tried before the string table: kernel stacks repeat */
    uint32_t kernel_seen[256];
    uint32_t unknown;           /* string id of "<unknown>" */
    uint32_t unknown_frame;     /* frame id of <unknown>:<unknown>:0 */
    uint32_t empty;             /* string id of "" */
    uint64_t problems[MOJO_P_N];
    /* version 4 */
    mojo_prev *prev;            /* each thread's previous frames */
    uint32_t n_prev, prev_cap;
    uint64_t repeats, tasks, waiters;  /* events seen */
    bool task_open;             /* a task stack takes the frame references: items, items_cap and
                                 * s.n_items are the task's, the sample's are kept below */
    mojo_item *s_items;
    size_t s_items_cap, s_n_items;
    uint64_t task_offset;
    pcd_mojo_int task_id, task_name;
    uint32_t *task_fr;          /* the task's frame ids, handed to ops->task */
    size_t task_fr_cap;
} mojo_asm;

/* Starts an assembler for a file of the given version; ops (and report) may be NULL. */
pcd_status pcd_mojo_asm_init(mojo_asm *a, pcd_alloc *al, int version, const mojo_asm_ops *ops, void *ud,
                         pcd_report_fn report, void *report_ud);
/* One decoded record of a MOJO reader (the root sets the version; events go on to
 * pcd_mojo_asm_event as the generated view of a MOJO event, frame references by a shorter path:
 * inline, as they are most of a file). */
pcd_status pcd_mojo_asm_record_slow(mojo_asm *a, const pcd_record *rec);
void pcd_mojo_asm_frame_ref_slow(mojo_asm *a, uint64_t mag, bool neg, uint64_t offset);

/* A frame reference: the key in the current process, onto the open sample. */
PCD_INLINE void mojo_asm_frame_ref(mojo_asm *a, uint64_t mag, bool neg, uint64_t offset)
{
    pcd_mojo_int k = { mag, neg && mag };
    const struct mojo_kslot *s = mojo_kmap_find(a->cur_frames, k);
    if (PCD_LIKELY(s && a->open && a->s.n_items < a->items_cap)) {
        a->items[a->s.n_items].kind = MOJO_IT_FRAME;
        a->items[a->s.n_items].id = s->val;
        a->s.n_items++;
        return;
    }
    pcd_mojo_asm_frame_ref_slow(a, mag, neg, offset);
}

PCD_INLINE pcd_status mojo_asm_record(mojo_asm *a, const pcd_record *rec)
{
    if (PCD_LIKELY(rec->type == &pcd_mojo_v3_event_type && !a->oom)) {
        const pcd_mojo_v3_event *ev = rec->data;
        if (PCD_LIKELY(ev && ev->which == PCD_MOJO_V3_EVENT_FRAME_REF)) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
    } else if (rec->type == &pcd_mojo_v4_event_type && !a->oom) {
        const pcd_mojo_v4_event *ev = rec->data;
        if (PCD_LIKELY(ev && ev->which == PCD_MOJO_V4_EVENT_FRAME_REF)) {
            mojo_asm_frame_ref(a, ev->u.frame_ref.key.mag, ev->u.frame_ref.key.neg, rec->offset);
            return a->oom;
        }
    }
    return pcd_mojo_asm_record_slow(a, rec);
}
/* One event of any version, at offset. PCD_OK, or PCD_E_NOMEM when memory ran out
 * (--max-memory). */
pcd_status pcd_mojo_asm_event(mojo_asm *a, const pcd_mojo_event_view *e, uint64_t offset);
/* The end of the events: closes the last sample. */
pcd_status pcd_mojo_asm_finish(mojo_asm *a);
void pcd_mojo_asm_free(mojo_asm *a);

/* The bytes of a string id (valid until the next event). */
pcd_bytes pcd_mojo_str(const mojo_asm *a, uint32_t id);
/* Austin's text for a thread id, as austin-python writes it: Python's int(tid, 16) in
 * decimal, or the bytes as they are when that is not a number (or has more than 4300
 * digits, Python's limit). Cached per string; valid until the next event. */
pcd_bytes pcd_mojo_tid_text(mojo_asm *a, uint32_t tid);
/* Python's str(int) refuses more than this many digits (sys.get_int_max_str_digits()). */
#define MOJO_PY_MAX_STR_DIGITS 4300
/* Writes Python's int(text, 16) for p[0..n) in decimal to out (cap bytes); returns the
 * length, or 0 if Python would raise ValueError (pytext.c). */
size_t pcd_mojo_py_hex_to_dec(const uint8_t *p, size_t n, char *out, size_t cap);
/* Decimal text of a sign-and-magnitude value the way Python prints an int (-0 is 0)
 * (pytext.c). */
size_t pcd_mojo_int_text(char *buf, pcd_mojo_int v);

/* encode --from austin: Austin's text format into the model, which outputs/mojo.c writes as
 * MOJO 3 (austin_import.c). */
pcd_status pcd_mojo_import_austin(pcd_import_args *a, struct pcd_profile *p);

#endif
