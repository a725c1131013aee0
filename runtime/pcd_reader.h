/* pcd_reader.h: the record stream driver: one record per call, over a pull
 * callback (bounded memory) or a whole buffer, through nested regions. */
#ifndef PCD_READER_H
#define PCD_READER_H

#include "pcd_desc.h"
#include "pcd_zstd.h"

/* Fills dst with up to cap bytes; *got = 0 means end of input. Blocking is fine. While the
 * reader's `suspendable` is set (and only then), the callback may instead return
 * PCD_WOULD_BLOCK when nothing is there yet: the call that read (pcd_reader_next, a fast
 * path) returns PCD_WOULD_BLOCK having consumed nothing of the record it was at, and may be
 * made again later. (A reader of a pipe hands out the records it has before it waits.) */
typedef pcd_status (*pcd_read_fn)(void *ud, uint8_t *dst, size_t cap, size_t *got);

#define PCD_READER_MAX_DEPTH 8

typedef struct pcd_reader_opts {
    pcd_alloc *al;            /* required: window, arena, state and zstd memory come from here */
    const pcd_limits *lim;    /* NULL: pcd_default_limits */
    size_t window;            /* initial window bytes (streaming); 0: 1 MiB */
    bool validate_only;       /* use validate functions where possible: records carry no data */
    bool threads;             /* a large zstd region may be decompressed ahead on one helper
                               * thread (see pcd_zstd_reader_allow_thread); same results */
    /* Whole-buffer readers: told, every few MiB, how far the input has been read (by the reader
     * or its helper thread): a caller that mapped a file may drop the pages before `upto`, so
     * that the resident memory does not grow with the file (a part read again is only read
     * again from the file). NULL: not told. */
    void (*release)(void *ud, uint64_t upto);
    void *release_ud;
    struct pcd_spans *spans;  /* explain: records are decoded by the generated explain functions,
                               * which record where each field lies here (reset at each record;
                               * pcd_span.h); NULL: plain decoding */
    struct pcd_reader_keep *keep; /* NULL, or where a reader leaves what the next one may take */
    uint32_t count_only;      /* arrays decoded for their count only (pcd_ctx.count_only; the
                               * format's ..._COUNT_ONLY_<NAME> bits); 0: all stored */
} pcd_reader_opts;

/* What a closed reader leaves for the next one on the same allocator (pcd_reader_opts.keep): its
 * last compressed region's zstd context, with the window zstd allocated, and the decompressed
 * window. A caller that reads many inputs one after the other (a test sweep, a long-lived
 * module) then takes them once rather than once per input; the memory stays the allocator's,
 * counted in its in_use until pcd_reader_keep_free. Zero it to start. */
typedef struct pcd_reader_keep {
    void *zl;
    pcd_alloc *al;            /* the allocator zl came from */
} pcd_reader_keep;
void pcd_reader_keep_free(pcd_reader_keep *k);

/* One decoded record. `data` points to the generated C struct of `type` (NULL in
 * validate-only runs for records that were only validated). Valid until the next call. */
typedef struct pcd_record {
    const pcd_type *type;
    const void *data;
    const pcd_region_desc *region;   /* the region it came from; NULL for the root */
    uint64_t offset;                 /* stream offset of its first byte */
    uint64_t size;                   /* bytes it took (without nested regions) */
    uint32_t depth;                  /* 0 root, 1 its records, 2 theirs, ... */
    uint64_t index;                  /* position in its region */
    bool decompressed;               /* offset is in decompressed data, not the file */
    bool big;                        /* the input's "native" fields are big-endian */
    uint64_t input_size;             /* the whole input's size when known (whole-file reading), else 0 */
} pcd_record;

typedef struct pcd_level {
    const pcd_region_desc *rd;
    uint64_t end;             /* stream offset where the region ends (sized) */
    bool sized;
    bool counted;             /* ends after `limit` records */
    uint64_t limit;
    uint64_t count;
    void *state;
    void *zl;                 /* decompression state of a compressed region */
    uint64_t file_end;        /* where the region ends in its parent's stream, UINT64_MAX unknown */
    uint8_t compression;
} pcd_level;

typedef struct pcd_reader {
    const pcd_format *f;
    pcd_alloc *al;
    pcd_ctx x;
    pcd_arena arena;
    pcd_read_fn read;
    void *ud;
    bool eof;                 /* the read callback reported the end */
    bool whole;               /* the whole input is in `win` (buffer mode) */
    bool validate_only;
    bool threads;
    bool failed;              /* an error is pending; call pcd_reader_recover or stop */
    bool suspendable;         /* the read in progress may answer PCD_WOULD_BLOCK (pcd_read_fn) */
    bool done;
    bool root_done;
    uint8_t *win;             /* window bytes [0, hi); owned unless whole */
    size_t cap, hi, pos;
    uint64_t base;            /* stream offset of win[0] */
    uint8_t *rec;             /* record struct storage */
    size_t rec_cap;
    pcd_level lv[PCD_READER_MAX_DEPTH];
    uint32_t depth;           /* number of open levels */
    uint64_t fail_offset;     /* start of the damaged record */
    uint32_t fail_depth;
    void *spare_zl;           /* a closed compressed level's zstd context and window, for the next one */
    struct pcd_reader_keep *keep; /* pcd_reader_opts.keep */
    void (*release)(void *ud, uint64_t upto); /* pcd_reader_opts.release */
    void *release_ud;
    uint64_t released;        /* where release was told last */
    uint64_t records;         /* records returned */
    uint64_t skipped_bytes;   /* bytes passed over by recovery */
    /* the regions that ended during the last pcd_reader_next (pcd_reader_closed) */
    struct { uint32_t depth; uint64_t end; } closed[PCD_READER_MAX_DEPTH];
    uint32_t n_closed;
} pcd_reader;

/* Streaming: bytes come from read(ud, ...). */
pcd_status pcd_reader_open(pcd_reader *r, const pcd_format *f, pcd_read_fn read, void *ud,
                           const pcd_reader_opts *o);
/* Whole input in memory (caller keeps it alive until close). */
pcd_status pcd_reader_open_buffer(pcd_reader *r, const pcd_format *f, const uint8_t *data,
                                  size_t size, const pcd_reader_opts *o);
/* PCD_OK with a record, PCD_END at a clean end, PCD_WOULD_BLOCK (see pcd_read_fn), or an
 * error (see pcd_reader_error). */
pcd_status pcd_reader_next(pcd_reader *r, pcd_record *rec);
/* After an error: skip the damaged part if the format allows it. PCD_OK: call
 * next again; otherwise nothing more can be read. *skipped gets the offset resumed at. */
pcd_status pcd_reader_recover(pcd_reader *r, uint64_t *resume_offset);
/* Validation fast path: checks up to max records without returning them (*n gets
 * how many). PCD_OK: call again, or pcd_reader_next for what this cannot do
 * (records that open regions, carry state, or sit in compressed data; level ends).
 * Only meaningful with validate_only. */
pcd_status pcd_reader_validate_run(pcd_reader *r, uint64_t max, uint64_t *n);
/* Decoding fast path: decodes up to max records and hands each to fn (valid during the
 * call) without returning them one by one (*n gets how many). PCD_OK: call again, or
 * pcd_reader_next for what this cannot do (the root, records that open regions, batches
 * of a compressed region, level ends), or PCD_WOULD_BLOCK as pcd_reader_next returns it (the
 * records before it counted in *n). Stream state moves on as in pcd_reader_next. fn's
 * own status (anything but PCD_OK) stops the run and is returned; the record it was given
 * counts as read. */
pcd_status pcd_reader_decode_run(pcd_reader *r, uint64_t max, uint64_t *n, pcd_record_fn fn, void *ud);
/* The type of the records pcd_reader_decode_run would hand to fn now (its region's record
 * type), or NULL when no run starts here: a caller can pick fn by it (validate: a run whose
 * records declare no warnings goes straight to the format's checks). */
PCD_INLINE const pcd_type *pcd_reader_run_type(const pcd_reader *r)
{
    if (r->failed || r->done || r->validate_only || !r->root_done || r->depth == 0) return NULL;
    const pcd_level *L = &r->lv[r->depth - 1];
    return L->rd->decode_run && !L->counted && !L->rd->batch_bytes ? L->rd->record : NULL;
}
const pcd_error *pcd_reader_error(const pcd_reader *r);
/* Which arrays the records decoded from now on carry only the count of (pcd_reader_opts.
 * count_only), for a consumer that learns it after opening the reader. */
PCD_INLINE void pcd_reader_set_count_only(pcd_reader *r, uint32_t arrays) { r->x.count_only = arrays; }
/* The warnings its schema declares (warn = ...) on a decoded record, each through warn
 * (a warning: the real reader accepts it; `validate --strict` counts it as an error).
 * Nothing for records the schema declares none for, or that carry no data. */
void pcd_record_warnings(const pcd_record *rec, pcd_warn_fn warn, void *ud);
/* The name a record is counted and shown under: its union case's (the case's field name) for
 * a tagged union with data, else its type's. */
const char *pcd_record_kind(const pcd_record *rec);
/* Leaves the innermost open region without reading the rest of its records (nor
 * decompressing them); the next call to pcd_reader_next goes on after it. */
pcd_status pcd_reader_skip_region(pcd_reader *r);
/* The whole input, for readers opened on a buffer (false otherwise). */
bool pcd_reader_input(const pcd_reader *r, const uint8_t **data, size_t *size);
/* explain: the bytes the reader holds of the stream of the records at `depth` (the file, or a
 * compressed region's decompressed data): *p, n bytes at stream offset *base. The record
 * pcd_reader_next returned last at that depth lies within them. False when there are none. */
bool pcd_reader_stream(const pcd_reader *r, uint32_t depth, const uint8_t **p, uint64_t *base, size_t *n);
/* explain: the regions that ended during the last pcd_reader_next, innermost first: for each,
 * the depth of its records and where it ended in its parent's stream (a zstd frame's end is
 * known only then). Returns how many (at most max). */
size_t pcd_reader_closed(const pcd_reader *r, uint32_t *depths, uint64_t *ends, size_t max);
/* explain: after an error, the record whose decoding failed (its type, its data as far as it was
 * decoded, where it starts, its depth); false when there is none (the error was elsewhere). */
bool pcd_reader_failed_record(const pcd_reader *r, pcd_record *rec);
/* The root (file) record, once the first record was read. */
const void *pcd_reader_root(const pcd_reader *r);
void pcd_reader_close(pcd_reader *r);

#endif
