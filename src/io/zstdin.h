/* io/zstdin.h: zstd-compressed input, read transparently as gzip is (io/gzin.h): a pcd_read_fn
 * that decompresses the frames of a zstd stream read through another pcd_read_fn, with an
 * output limit (the CLI's --max-memory, as the runtime's zstd regions have) and zstd's memory
 * from the caller's allocator. A `.mojo.zst`, a `.pprof.zst`, a collapsed file compressed with
 * `zstd` are read as their plain selves. */
#ifndef PCD_ZSTDIN_H
#define PCD_ZSTDIN_H

#include "io/io.h"

typedef struct pcd_zstdin {
    pcd_read_fn read;         /* the compressed bytes */
    void *ud;
    void *ds;                 /* ZSTD_DStream */
    bool end;                 /* the input is used up at a frame's end */
    bool in_frame;            /* a frame was started and not finished */
    uint64_t limit;           /* most decompressed bytes handed out */
    uint64_t out_total;
    uint64_t in_total;        /* compressed bytes consumed */
    uint8_t ibuf[1 << 17];
    size_t ipos, ilen;
    uint8_t head[4096];       /* decompressed bytes peeked for format detection */
    size_t head_len, head_pos;
    const char *error;        /* why reading stopped, or NULL */
    bool over_limit;          /* the error is the output limit (a zstd bomb, or --max-memory too small) */
    bool nomem;               /* the allocator refused (zstd's window, pcd_zstdin_load's buffer) */
    pcd_alloc *al;
    uint8_t *buf;             /* pcd_zstdin_load's buffer (freed by pcd_zstdin_close) */
    size_t buf_cap;
} pcd_zstdin;

/* True when the first bytes are a zstd frame's magic (28 b5 2f fd) or a skippable frame's
 * (5? 2a 4d 18). */
bool pcd_zstdin_is_zstd(const uint8_t *p, size_t n);
/* Starts decompressing what read(ud, ...) gives; limit caps the decompressed bytes (0: 1 TiB).
 * zstd's state and pcd_zstdin_load's buffer come from al (which must outlive z). */
int pcd_zstdin_open(pcd_zstdin *z, pcd_read_fn read, void *ud, uint64_t limit, pcd_alloc *al);
/* The first n decompressed bytes, without consuming them for later reads. */
size_t pcd_zstdin_peek(pcd_zstdin *z, uint8_t *dst, size_t n);
/* pcd_read_fn: *got = 0 at the end of the last frame. PCD_E_IO with z->error set on damaged
 * or cut compressed data, past the limit (z->over_limit) or out of memory (z->nomem). */
pcd_status pcd_zstdin_read(void *ud, uint8_t *dst, size_t cap, size_t *got);
/* The whole decompressed stream in one buffer, z's own until pcd_zstdin_close. -1 with
 * z->error set, or with z->nomem when the allocator refused. */
int pcd_zstdin_load(pcd_zstdin *z, const uint8_t **out, size_t *len);
void pcd_zstdin_close(pcd_zstdin *z);

#endif
