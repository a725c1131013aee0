/* pcd_zstd.h: zstd regions: streaming decompression with an output limit, and compression. */
#ifndef PCD_ZSTD_H
#define PCD_ZSTD_H

#include "pcd_alloc.h"
#include "pcd_sink.h"

typedef struct ZSTD_DCtx_s pcd_zstd_dctx;
typedef struct pcd_zstd_worker pcd_zstd_worker;
typedef struct ZSTD_CCtx_s pcd_zstd_cctx;

/* Decompresses one region (one or more concatenated frames) piece by piece. */
typedef struct pcd_zstd_reader {
    pcd_zstd_dctx *d;
    pcd_alloc *al;
    const uint8_t *in;
    size_t in_len, in_pos;
    uint64_t in_base;       /* file offset of in[0], for error offsets */
    uint64_t out_total;     /* bytes produced so far */
    uint64_t max_out;       /* error beyond this many bytes (decompression bomb guard) */
    size_t pending;         /* last ZSTD_decompressStream hint: 0 = at a frame boundary */
    bool started;           /* at least one input byte was consumed */
    bool closed;            /* no input after in[in_len] */
    /* A helper thread that decompresses ahead (pcd_zstd_reader_allow_thread), and what
     * happens when it stops short: decompression starts again here from the beginning,
     * dropping the `skip` bytes the helper already gave, so that errors and limits are the
     * ones this reader reports by itself. */
    bool allow_thread;
    bool worker_tried;
    pcd_zstd_worker *w;
    pcd_zstd_worker *idle;  /* a stopped helper's ring and context, for the next region */
    uint64_t delivered;     /* bytes handed to the caller */
    uint64_t skip;          /* bytes still to drop after a helper stopped short */
} pcd_zstd_reader;

/* Lets the reader decompress a large closed input (at least PCD_ZSTD_THREAD_MIN compressed
 * bytes) on one helper thread, ahead of the caller, through a ring of PCD_ZSTD_RING blocks
 * of PCD_ZSTD_BLOCK bytes. All its memory comes from the reader's allocator, taken on the
 * caller's thread before the helper starts; the helper allocates nothing, reports nothing
 * and stops at anything unusual (damage, a limit, a window larger than the first frame's),
 * after which the reader carries on by itself. Output, errors and limits are the same
 * either way. */
#define PCD_ZSTD_THREAD_MIN ((size_t)1 << 20)
#define PCD_ZSTD_RING 4
#define PCD_ZSTD_BLOCK ((size_t)1 << 18)
void pcd_zstd_reader_allow_thread(pcd_zstd_reader *z, bool allow);
/* How much of the input (from in[0]) has been taken by the reader or its helper thread. */
size_t pcd_zstd_reader_taken(pcd_zstd_reader *z);

/* `al` supplies zstd's own memory (through ZSTD_customMem); it may not be NULL. */
pcd_status pcd_zstd_reader_init(pcd_zstd_reader *z, pcd_alloc *al, uint64_t max_out);
void pcd_zstd_reader_free(pcd_zstd_reader *z);
/* Makes an initialised reader ready for new input, keeping zstd's context (cheaper than
 * free + init when there are many small regions). */
void pcd_zstd_reader_reset(pcd_zstd_reader *z, uint64_t max_out);
/* Gives the next piece of compressed input; `closed` says it is the last one. */
void pcd_zstd_reader_feed(pcd_zstd_reader *z, const uint8_t *in, size_t len, uint64_t base,
                          bool closed);
/* Produces up to cap bytes into dst (*got set). PCD_OK: some output (or input
 * consumed); PCD_END: all input done and the last frame complete; PCD_SHORT_READ:
 * feed more input; errors carry the offset of the compressed data into `e`. */
pcd_status pcd_zstd_reader_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got,
                                pcd_error *e, const char *name);

/* Size of the complete zstd frame at p (up to n bytes), without decompressing. */
pcd_status pcd_zstd_frame_size(const uint8_t *p, size_t n, size_t *size);

/* Compresses into a sink, one frame per begin/end pair. */
typedef struct pcd_zstd_writer {
    pcd_zstd_cctx *c;
    pcd_alloc *al;
    pcd_sink *out;
    uint64_t in_total;
    bool small;               /* pcd_zstd_writer_small's parameters are set (restart clears them) */
} pcd_zstd_writer;

pcd_status pcd_zstd_writer_init(pcd_zstd_writer *w, pcd_alloc *al, int level, pcd_sink *out);
/* Starts a new frame on an initialised writer, keeping zstd's context (its tables are large
 * at high levels; reusing them is much cheaper than free + init). */
pcd_status pcd_zstd_writer_restart(pcd_zstd_writer *w, int level, pcd_sink *out);
pcd_status pcd_zstd_writer_write(pcd_zstd_writer *w, const uint8_t *p, size_t n);
/* The frame started is made with the smallest tables (and a 128 KiB window, whole blocks):
 * cheap to start (a few hundred bytes cleared, not megabytes), for many small frames that
 * nobody keeps. */
pcd_status pcd_zstd_writer_small(pcd_zstd_writer *w);
/* Ends the frame and flushes it into the sink. */
pcd_status pcd_zstd_writer_end(pcd_zstd_writer *w);
void pcd_zstd_writer_free(pcd_zstd_writer *w);

#endif
