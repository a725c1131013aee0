/* model/profile.h: the profile model, the one shape between the formats and the outputs.
 *
 * Every format's importer (src/formats/<format>/import.c) turns its records into this model;
 * every output (src/outputs/) is written once, from it. The model is made of tables that grow
 * with what is distinct in a profile, and of events that are handed on as they come:
 *
 *   tables  interned strings; frames (function, file, positions, kind); stacks, a trie of
 *           (parent stack, frame); threads (process, interpreter, thread, names); sample types
 *           (name and unit); metadata (key and value, in file order).
 *   events  samples (thread, optional time, stack, one value per sample type, a count),
 *           timed slices on tracks (spans: Heph's events), metadata as it comes.
 *
 * Events go to one consumer (an output, or the aggregate in model/aggregate.h), in the order
 * the importer produces them: time order for formats whose samples carry times. Nothing keeps
 * samples, so streaming conversions run in memory bounded by the distinct strings, frames and
 * stacks, and a pipe stays live; an output that needs totals aggregates stack -> values.
 *
 * All memory comes from the caller's allocator (pcd_alloc), so --max-memory covers it.
 * Strings are bytes: nothing here requires UTF-8 (outputs make their text safe). */
#ifndef PCD_MODEL_PROFILE_H
#define PCD_MODEL_PROFILE_H

#include "pcd.h"

typedef uint32_t pcd_str;          /* an interned string; 0 is "" */
typedef uint32_t pcd_frame_id;
typedef uint32_t pcd_stack_id;     /* 0 is the empty stack */
typedef uint32_t pcd_thread_id;

#define PCD_STACK_EMPTY 0u
#define PCD_POS_NONE INT64_MIN     /* a line or column the source does not give */
#define PCD_TIME_NONE INT64_MIN    /* a sample without a time */
#define PCD_ID_NONE INT64_MIN      /* a process or interpreter id the source does not give */
#define PCD_MAX_SAMPLE_TYPES 16    /* (pprof files of some profilers list more than 8) */

/* What a frame is. Outputs use it for colours and markers, pprof and MOJO for their own kinds. */
typedef enum pcd_frame_kind {
    PCD_FRAME_CODE = 0,            /* interpreted or managed code: a function in a source file */
    PCD_FRAME_NATIVE,              /* native code (C, JIT-compiled, unmanaged) */
    PCD_FRAME_KERNEL,              /* the operating system's kernel */
    PCD_FRAME_GC,                  /* the garbage collector (a marker, no function) */
    PCD_FRAME_IDLE,                /* waiting: not running */
    PCD_FRAME_INVALID,             /* the profiler could not read this frame */
    PCD_FRAME_LABEL,               /* a free-form label: the function field is the text */
    PCD_FRAME_TYPE,                /* a heap type (allocation leaves, heap snapshot objects) */
    PCD_FRAME_ROOT,                /* a heap root (a GC root set) */
    PCD_FRAME_KIND_N
} pcd_frame_kind;

/* The frame was inlined into the frame it sits on (its caller): pprof keeps both in one
 * Location, as several Lines. */
#define PCD_FRAME_INLINED 1u

typedef struct pcd_frame {
    pcd_str function;              /* name ("" none) */
    pcd_str file;                  /* source file, or binary for native frames ("" none) */
    int64_t line, end_line;        /* 1-based; PCD_POS_NONE when unknown */
    int64_t column, end_column;    /* 1-based; PCD_POS_NONE when unknown */
    pcd_str module;                /* the binary or library of native code ("" none) */
    uint32_t instr;                /* the instruction the frame was at, + 1 (0 none): CPython's
                                    * opcode (0..254), which only `encode --from samples` gives
                                    * and only outputs/tachyon.c writes */
    uint64_t address;              /* instruction address (0 none) */
    uint16_t kind;                 /* pcd_frame_kind */
    uint16_t flags;                /* PCD_FRAME_INLINED */
    uint32_t key;                  /* anything else that tells frames apart (0 none): the source's
                                    * own id where two of its frames may read the same (a heap
                                    * snapshot's type or static-frame index) */
} pcd_frame;

/* A thread (or, for span traces, a track). The numeric ids are what outputs print; the texts
 * are how the source spells them. Threads are told apart by (pid, iid, tid, has_tid, tid_text,
 * key): the names are attributes that may arrive later.
 *
 * A lane is a thread-like line of work that runs on threads but is followed on its own (an
 * asyncio task, a coroutine, a green thread): a thread whose lane_of names the thread it was
 * first seen on (its owner). Its samples are its own; outputs show it as a thread (named by
 * its name) unless they cannot (Austin's text has no lanes). Relations between threads and
 * lanes (a task awaited by another) are links (pcd_link), metadata of the lanes. */
typedef struct pcd_thread {
    int64_t pid;                   /* process id (PCD_ID_NONE none) */
    int64_t iid;                   /* interpreter or sub-process id (PCD_ID_NONE none) */
    uint64_t tid;                  /* thread id, valid when has_tid */
    bool has_tid;
    pcd_str tid_text;              /* the thread id as the source writes it ("" none) */
    uint64_t key;                  /* anything else that tells threads apart (0 none) */
    pcd_str name;                  /* thread name ("" none) */
    pcd_str process_name;          /* process name ("" none) */
    pcd_thread_id lane_of;         /* a lane: 1 + the thread it was first seen on; 0: a thread */
} pcd_thread;

/* A kind of value samples carry: "wall-time" in "microseconds", "alloc-bytes" in "bytes".
 *
 * Values are 64 bits of one of two kinds, which the type says: amounts (uint64_t, every format
 * but pprof: a time, bytes, a count; sums hold at 2^64-1), or signed quantities (is_signed:
 * int64_t stored in the same uint64_t slots, two's complement: pprof's values, which a difference
 * of profiles makes negative; sums hold at -2^63 and 2^63-1). A format whose signed quantity is
 * two amounts in its own terms (MOJO's memory: allocated and released) keeps them as two types. */
typedef struct pcd_sample_type {
    pcd_str name;                  /* machine name, as --metric takes it */
    pcd_str unit;                  /* "nanoseconds", "microseconds", "bytes", "count" */
    pcd_str title;                 /* how a viewer titles it ("Wall time"; "" = name) */
    bool secondary;                /* a count kept beside a time: viewers show it only when asked */
    bool is_signed;                /* values are int64_t (pcd_value_i64) */
    bool listed;                   /* the file itself lists this type (pprof's sample_type), rather
                                    * than the format always having it: kept by outputs that list
                                    * types even when no sample has a value of it */
} pcd_sample_type;

/* Value v of a signed type, as what it is. */
PCD_INLINE int64_t pcd_value_i64(uint64_t v) { return (int64_t)v; }

/* Sample flags. */
#define PCD_SAMPLE_IDLE 1u         /* the thread was idle (Austin's idle flag) */
#define PCD_SAMPLE_HAS(i) (2u << (i)) /* the source gave sample type i a value (rather than 0) */
#define PCD_SAMPLE_FIRST_SHIFT 24  /* bits 24..28: 1 + the index of the value the source gave first */
/* The thread's state when the sample was taken, where the source states it (Tachyon's status
 * bits): PCD_SAMPLE_STATE says the bits after it are stated; without it they say nothing. A GC
 * is a frame (PCD_FRAME_GC) and waiting PCD_SAMPLE_IDLE, as before. Outputs with timelines show
 * runs of these as markers (firefox; chrome and perfetto could too). */
#define PCD_SAMPLE_STATE (1u << 17)
#define PCD_SAMPLE_ON_CPU (1u << 18)        /* running on a CPU */
#define PCD_SAMPLE_HOLDS_LOCK (1u << 19)    /* holds the interpreter's lock (CPython's GIL) */
#define PCD_SAMPLE_WANTS_LOCK (1u << 20)    /* waits for the interpreter's lock */
#define PCD_SAMPLE_EXCEPTION (1u << 21)     /* an exception is being raised or handled */
#define PCD_SAMPLE_STATE_BITS (PCD_SAMPLE_IDLE | 0x3e0000u) /* the state's flags, which merges keep */

/* A label of a sample: a key with a text or a number and the number's unit (pprof's labels:
 * an allocation's size, a request, a goroutine's labels). The thread a sample is on is not a
 * label (pcd_thread); importers of formats that keep it in labels turn those into threads. */
typedef struct pcd_label {
    pcd_str key;
    pcd_str str;                   /* the text, when !is_num */
    int64_t num;                   /* the number, when is_num */
    pcd_str unit;                  /* the number's unit ("" none) */
    bool is_num;
} pcd_label;

typedef struct pcd_sample {
    pcd_thread_id thread;
    pcd_stack_id stack;
    int64_t time;                  /* ns since the profile's time origin, or PCD_TIME_NONE */
    uint64_t count;                /* how many identical samples this stands for (>= 1) */
    const uint64_t *values;        /* one per sample type, for ONE of the `count` samples: an
                                    * amount, or an int64_t for a signed type (pcd_sample_type) */
    uint32_t flags;                /* PCD_SAMPLE_* */
    uint32_t status;               /* the source's own per-sample status bits (0 none) */
    uint64_t offset;               /* where in the input it was read */
    const pcd_label *labels;       /* its labels (valid during the call), in the source's order */
    size_t n_labels;
} pcd_sample;

/* A typed argument of a slice (Chrome's args, Heph's attributes). */
typedef enum pcd_arg_type {
    PCD_ARG_U64, PCD_ARG_I64, PCD_ARG_F64, PCD_ARG_STR,
    PCD_ARG_U64_ARRAY, PCD_ARG_I64_ARRAY, PCD_ARG_F64_ARRAY, PCD_ARG_STR_ARRAY
} pcd_arg_type;

typedef struct pcd_arg {
    pcd_bytes key;
    pcd_arg_type type;
    union {
        uint64_t u;
        int64_t i;
        double f;
        pcd_bytes s;
        struct { const uint64_t *items; size_t n; } u_arr;
        struct { const int64_t *items; size_t n; } i_arr;
        struct { const double *items; size_t n; } f_arr;
        struct { const pcd_bytes *items; size_t n; } s_arr;
    } v;
} pcd_arg;

/* What a slice stands for: a span of the program's own (Heph's events, Mono's calls), or the
 * runtime's garbage collector at work (Mono's GC events: a collection, a phase of one, the world
 * stopped for it), which outputs that have a GC category show in it (firefox). */
typedef enum pcd_slice_kind { PCD_SLICE_SPAN = 0, PCD_SLICE_GC } pcd_slice_kind;

/* A timed span on a track (a thread): Heph's events, Mono's calls and GC events. Views valid
 * during the call only. */
typedef struct pcd_slice {
    pcd_thread_id track;
    int64_t start, end;            /* ns since the profile's time origin */
    pcd_bytes name;
    pcd_bytes category;
    const pcd_arg *args;
    size_t n_args;
    uint64_t offset;
    uint8_t kind;                  /* pcd_slice_kind */
} pcd_slice;

/* A link between two threads or lanes, in file order: "awaited-by" (from is awaited by to:
 * MOJO 4's task waiters). A lane's links with one kind come together (the source's whole
 * current set): a consumer that keeps them replaces a lane's earlier ones of that kind when
 * a new run starts. */
typedef struct pcd_link {
    pcd_str kind;
    pcd_thread_id from, to;
    uint64_t offset;
} pcd_link;

/* How the profile was captured, as a source states it that an output of the same format writes
 * back as it was (`encode --from samples`: the header and statistics of CPython's Tachyon,
 * which outputs/tachyon.c writes when `set`; other importers leave it unset, and the output
 * then derives its header from the profile as before). */
typedef struct pcd_capture {
    bool set;
    uint64_t start_time_us;        /* Unix time in microseconds */
    uint64_t interval_us;          /* the sampling interval */
    uint64_t time_base_us;         /* the samples' times are ns after this, in µs on the source's
                                    * clock (a clock of 64-bit µs does not fit the model's ns) */
    uint8_t version[3];            /* the profiled runtime's version: major, minor, micro */
    int mode;                      /* the profiler's mode (Tachyon's 0 wall .. 4 exception); -1 none */
    int features;                  /* the capture's feature bits (Tachyon's config word); -1 none */
    uint32_t compression;          /* the source's compression: 0 none, 1 zstd */
    bool have_stats;               /* the statistics below were recorded */
    double duration_sec, sample_rate, error_rate, missed_samples;
    uint32_t stats_present;        /* which of error_rate and missed_samples are (Tachyon's bits) */
} pcd_capture;

typedef struct pcd_profile pcd_profile;

/* Who gets the events. Each callback may be NULL. A status other than PCD_OK stops the
 * importer, which returns it. */
typedef struct pcd_consumer {
    void *ud;
    uint32_t needs;                /* PCD_NEEDS_* */
    pcd_status (*begin)(void *ud, pcd_profile *p);
    pcd_status (*meta)(void *ud, pcd_profile *p, pcd_str key, pcd_str value);
    pcd_status (*sample)(void *ud, pcd_profile *p, const pcd_sample *s);
    pcd_status (*slice)(void *ud, pcd_profile *p, const pcd_slice *s);
    /* after the last event (also after damage: what came before is closed properly) */
    pcd_status (*end)(void *ud, pcd_profile *p);
    pcd_status (*link)(void *ud, pcd_profile *p, const pcd_link *l);
} pcd_consumer;

/* One call per sample, each with its own time (no count above 1): timelines need it. */
#define PCD_NEEDS_TIMES 1u
/* The output shows samples' times (a timeline, a table with times): an importer that keeps its
 * times only at a cost (Mono's sample hits, buffered until the names are known) hands them on
 * as timed samples only then. Outputs that write one sample per sample without showing its time
 * (Austin text) leave it out. */
#define PCD_NEEDS_TIMELINE 2u

/* Dialects: where a reference tool defines an output's exact bytes, the importer of that
 * tool's format names the dialect, and the output follows it unless told otherwise. */
typedef enum pcd_dialect {
    PCD_DIALECT_DEFAULT = 0,       /* profcodec's own */
    PCD_DIALECT_AUSTIN,            /* austin-python's (mojo2austin, collapsed Austin frames) */
    PCD_DIALECT_CPYTHON,           /* CPython 3.15's profiling.sampling (collapsed) */
    PCD_DIALECT_HEPH,              /* Heph's convert_trace (chrome) */
    PCD_DIALECT_AUSTIN2,           /* austin-python 2.2.0's mojo2austin (MOJO 4's reader) */
    PCD_DIALECT_N
} pcd_dialect;

extern const char *const pcd_dialect_names[PCD_DIALECT_N];

/* An interned string table (bytes, any content). */
typedef struct pcd_strtab {
    uint8_t *pool;
    size_t pool_len, pool_cap;
    struct pcd_strent {
        uint64_t off;              /* where its bytes start in pool */
        uint32_t len;
    } *ent;
    size_t n, cap;
    uint32_t *idx;                 /* open addressing: id + 1 (0 empty) */
    size_t idx_cap;
} pcd_strtab;

/* What one sample of a profile stands for (pcd_profile.sample_noun): what the pictures count. */
typedef enum pcd_sample_noun {
    PCD_NOUN_SAMPLES = 0,          /* samples the profiler took (count: how many alike) */
    PCD_NOUN_STACKS,               /* a distinct stack with its sums (Mono's call tree, a heap's
                                    * folded tree): no event of its own */
    PCD_NOUN_RECORDS,              /* a record of a stack with its values (pprof's Sample), which
                                    * its writer may have summed */
} pcd_sample_noun;

struct pcd_profile {
    pcd_alloc *al;
    /* what the importer says about the whole profile */
    const char *input_name;        /* as the user gave it */
    const char *format;            /* "tachyon" */
    const char *version;           /* "1" */
    pcd_dialect dialect;           /* the reference tool the source format comes with */
    int64_t time_origin;           /* Unix time in ns of time 0 (PCD_TIME_NONE: unknown) */
    int64_t duration;              /* ns (PCD_TIME_NONE: unknown) */
    int64_t period;                /* the sampling interval, in units of period_type (0 none) */
    int period_type;               /* index into types, -1 none */
    int default_type;              /* what --metric defaults to (the importer's choice; at the end,
                                    * pcd_profile_settle_default makes it one with values) */
    pcd_sample_noun sample_noun;   /* what one sample stands for */
    pcd_capture capture;           /* how it was captured, when the source says so (see above) */
    uint32_t has;                  /* what the importer says its profiles hold (PCD_HAS_* of
                                    * pipeline/job.h: times, order...), set by whoever
                                    * runs it (pcd_convert), for the outputs to see */
    pcd_consumer consumer;
    /* called by pcd_profile_end before the consumer's end (NULL: none): the pipeline's checks of
     * what the profile held; a status other than PCD_OK is returned without the consumer's end */
    pcd_status (*before_end)(void *ud, pcd_profile *p);
    void *before_end_ud;
    /* tables */
    pcd_strtab strings;
    pcd_frame *frames;
    size_t n_frames, frames_cap;
    uint32_t *frame_idx;           /* open addressing: frame id + 1 */
    size_t frame_idx_cap;
    /* stacks: node i is its parent plus a frame; node 0 is the empty stack */
    struct pcd_stack_node {
        uint32_t parent, frame, depth;
        uint32_t kid;              /* the child taken last (0: none) */
    } *st;
    size_t n_stacks, stacks_cap;
    uint32_t *st_idx;              /* open addressing of (parent, frame): node + 1. Not a
                                    * common/hmap.c map, measured (issue 23): 4 bytes a slot at
                                    * half load against the hmap's 48 at 70 % (this index grows
                                    * with the distinct stacks), and the hmap cost +0.59 %
                                    * instructions on MOJO 27 MB -> austin, +0.28 % on pprof
                                    * 10 MB -> collapsed (callgrind) */
    size_t st_idx_cap;
    pcd_thread *threads;
    size_t n_threads, threads_cap;
    uint32_t *th_idx;
    size_t th_idx_cap;
    pcd_sample_type types[PCD_MAX_SAMPLE_TYPES];
    size_t n_types;
    struct pcd_metric_alias { pcd_str alias; int type; } aliases[8];
    size_t n_aliases;
    struct pcd_meta { pcd_str key, value; } *meta;
    size_t n_meta, meta_cap;
    bool begun, ended;
    pcd_status oom;                /* PCD_E_NOMEM once a table could not grow */
    /* what the events handed on held (kept by the model as they pass: the pipeline's "nothing to
     * show" and the default metric are decided from it, in one place) */
    uint64_t n_samples;            /* sample events (one with a count above 1 is one) */
    uint64_t n_slices;
    uint32_t valued;               /* bit i: a sample gave type i a value other than 0 */
    uint32_t negative;             /* bit i: a sample gave signed type i a negative value */
    uint32_t all_types;            /* bit i for every type (valued needs no more look once equal) */
    uint32_t signed_types;         /* bit i for every signed type (negative values are looked for) */
    bool valued_final;             /* valued is known for the whole profile (at its end, or told
                                    * ahead by an importer that holds every sample until then) */
};

/* Starts an empty profile on an allocator; the consumer gets the events. */
void pcd_profile_init(pcd_profile *p, pcd_alloc *al, const pcd_consumer *consumer);
void pcd_profile_free(pcd_profile *p);

/* ---- tables ---------------------------------------------------------------------------- */

/* The id of these bytes (interned). Returns 0 for "" and, with p->oom set, when out of memory. */
pcd_str pcd_profile_str(pcd_profile *p, const void *bytes, size_t n);
PCD_INLINE pcd_str pcd_profile_strz(pcd_profile *p, const char *z) { return pcd_profile_str(p, z, strlen(z)); }
/* The bytes of an interned string. The view stays valid until the next string is interned: the
 * first event's pcd_profile_begin runs the consumers' begin, which may intern, so an importer
 * begins the profile before it takes views for an event. */
pcd_bytes pcd_profile_text(const pcd_profile *p, pcd_str s);

/* The id of a frame equal in every field (interned). */
pcd_frame_id pcd_profile_frame(pcd_profile *p, const pcd_frame *f);
/* A frame with only a kind and a function (markers, labels, heap types); key 0. */
pcd_frame_id pcd_profile_frame_named(pcd_profile *p, pcd_frame_kind kind, pcd_str function);
/* A frame's fields with no position and no module (to fill in before pcd_profile_frame). */
pcd_frame pcd_frame_blank(pcd_frame_kind kind);
/* After frames' fields were changed in place (model/pathtrim.c, at the profile's end): the
 * interning index made again. Frames that came to be equal keep their ids; a look-up finds the
 * first. */
void pcd_profile_reindex_frames(pcd_profile *p);
PCD_INLINE const pcd_frame *pcd_profile_frame_at(const pcd_profile *p, pcd_frame_id f) { return &p->frames[f]; }

/* The stack `parent` with `frame` on top (called from it), made if new. */
pcd_stack_id pcd_profile_push_slow(pcd_profile *p, pcd_stack_id parent, pcd_frame_id frame);
PCD_INLINE pcd_stack_id pcd_profile_push(pcd_profile *p, pcd_stack_id parent, pcd_frame_id frame)
{
    /* samples mostly go on as the last one went: the parent's last child first */
    uint32_t k = p->st[parent].kid;
    if (PCD_LIKELY(k && p->st[k].frame == frame)) return k;
    return pcd_profile_push_slow(p, parent, frame);
}
/* A whole stack given outermost first. */
pcd_stack_id pcd_profile_stack(pcd_profile *p, const pcd_frame_id *frames, size_t n);
PCD_INLINE pcd_stack_id pcd_stack_parent(const pcd_profile *p, pcd_stack_id s) { return p->st[s].parent; }
PCD_INLINE pcd_frame_id pcd_stack_frame(const pcd_profile *p, pcd_stack_id s) { return p->st[s].frame; }
PCD_INLINE uint32_t pcd_stack_depth(const pcd_profile *p, pcd_stack_id s) { return p->st[s].depth; }
/* Gives back what the stack table reserves beyond its size (it grows by doubling): for an
 * output that lays out the whole trie at the end; the table grows again on the next push. */
void pcd_profile_trim(pcd_profile *p);
/* The frames of stack s, outermost first, into out (room for pcd_stack_depth); the count. */
size_t pcd_stack_frames(const pcd_profile *p, pcd_stack_id s, pcd_frame_id *out);

/* The id of a thread (interned by its identity; names are kept from the first time they are
 * given, and set later with pcd_profile_thread_name). */
pcd_thread_id pcd_profile_thread(pcd_profile *p, const pcd_thread *t);
pcd_thread pcd_thread_blank(void);
void pcd_profile_thread_name(pcd_profile *p, pcd_thread_id t, pcd_str name, pcd_str process_name);

/* Adds a sample type; returns its index (or -1 when there are PCD_MAX_SAMPLE_TYPES). */
int pcd_profile_add_type(pcd_profile *p, const char *name, const char *unit, const char *title);
/* The same from interned strings (names read from the input). */
int pcd_profile_add_type_str(pcd_profile *p, pcd_str name, pcd_str unit, pcd_str title);
/* Type i's values are signed (int64_t), and type i is one the file itself lists (pprof). */
void pcd_profile_type_signed(pcd_profile *p, int i);
/* Another name --metric accepts for type i ("time" for "wall-time"). */
void pcd_profile_alias(pcd_profile *p, const char *alias, int type);
/* The type named NAME (a type's name or an alias, exactly); -1 if none. */
int pcd_profile_find_type(const pcd_profile *p, const char *name);
/* The type --metric NAME means: pcd_profile_find_type's, else the type whose name or title reads
 * the same in any case with or without a trailing "-time"/" time" ("wall" and "Wall time", "cpu"
 * and "cpu-time"; names before titles); -1 if none. */
int pcd_profile_find_metric(const pcd_profile *p, const char *name);

/* ---- events ------------------------------------------------------------------------------ */

/* After the header (sample types, dialect, time origin): the consumer's begin. Called by the
 * first event if the importer did not. */
pcd_status pcd_profile_begin(pcd_profile *p);
/* Metadata: kept (in order) and handed on. */
pcd_status pcd_profile_meta(pcd_profile *p, pcd_str key, pcd_str value);
pcd_status pcd_profile_sample_slow(pcd_profile *p, const pcd_sample *s);
/* Notes which types sample s gives a value (and a negative one). */
void pcd_profile_note_values(pcd_profile *p, const pcd_sample *s);
PCD_INLINE pcd_status pcd_profile_sample(pcd_profile *p, const pcd_sample *s)
{
    /* inline: importers call it for every sample (the first one begins the profile) */
    if (PCD_UNLIKELY(!p->begun || p->oom || !p->consumer.sample)) return pcd_profile_sample_slow(p, s);
    p->n_samples++;
    /* once every type has had a value (and every signed one a negative one), nothing to note */
    if (PCD_UNLIKELY((p->valued ^ p->all_types) | (p->signed_types & ~p->negative))) pcd_profile_note_values(p, s);
    return p->consumer.sample(p->consumer.ud, p, s);
}
pcd_status pcd_profile_slice(pcd_profile *p, const pcd_slice *s);
/* A link between threads (lanes): handed on, not kept. */
pcd_status pcd_profile_link(pcd_profile *p, const pcd_link *l);
/* The end of the input (also after damage); the consumer's end, once. */
pcd_status pcd_profile_end(pcd_profile *p);

/* ---- what the profile held ------------------------------------------------------------------- */

/* An importer that holds every sample until its end (Mono's call tree) says, before it hands the
 * first one on, which types some sample has a value of (bit i: type i): outputs that pick a
 * metric as samples stream (Austin text) then skip types without values, and the default is
 * settled at once. */
void pcd_profile_values_ahead(pcd_profile *p, uint32_t valued);
/* Does type t have a value in some sample (as far as known: before the end, true unless the
 * importer said otherwise ahead)? */
bool pcd_profile_type_valued(const pcd_profile *p, int t);
/* The one rule for the default metric: the importer's default when some sample has a value of
 * it, else the first type that has values and is not secondary, else the first that has values
 * (else the importer's). Sets p->default_type; called by the pipeline at the end, before the
 * output's end, and by pcd_profile_values_ahead. */
void pcd_profile_settle_default(pcd_profile *p);
/* The names of the sample types whose bit is in mask, in type order, ", " between them
 * ("alloc-bytes, samples"); each name cut at 64 bytes, the whole cut to the buffer. Returns buf. */
const char *pcd_profile_type_names(char *buf, size_t cap, const pcd_profile *p, uint32_t mask);

/* The first value of metadata key (NULL-terminated C string), or 0. */
pcd_str pcd_profile_meta_get(const pcd_profile *p, const char *key);

#endif
