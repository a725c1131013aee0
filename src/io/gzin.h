/* io/gzin.h: gzip-compressed input, read transparently (the CLI and the Python module): a
 * pcd_read_fn that inflates the members of a gzip stream read through another pcd_read_fn
 * (a pcd_input's), with an output limit. */
#ifndef PCD_GZIN_H
#define PCD_GZIN_H

#include <zlib.h>

#include "io/io.h"

typedef struct pcd_gzin {
    pcd_read_fn read;         /* the compressed bytes */
    void *ud;
    z_stream z;
    bool inited;
    bool end;                 /* the last member ended and the input is used up */
    uint64_t limit;           /* most decompressed bytes handed out */
    uint64_t out_total;
    uint8_t ibuf[1 << 16];
    uint8_t head[4096];       /* decompressed bytes peeked for format detection */
    size_t head_len, head_pos;
    const char *error;        /* why reading stopped, or NULL */
    bool nomem;               /* pcd_gzin_load stopped: its allocator refused (the memory cap) */
    pcd_alloc *al;            /* zlib's state and pcd_gzin_load's buffer */
    uint8_t *buf;             /* pcd_gzin_load's buffer (freed by pcd_gzin_close) */
    size_t buf_cap;
} pcd_gzin;

/* True when the first bytes are a gzip member header. */
bool pcd_gzin_is_gzip(const uint8_t *p, size_t n);
/* Starts inflating what read(ud, ...) gives; limit caps the decompressed bytes (0: no cap
 * beyond 1 TiB). zlib's state and pcd_gzin_load's buffer come from al (which must outlive g). */
int pcd_gzin_open(pcd_gzin *g, pcd_read_fn read, void *ud, uint64_t limit, pcd_alloc *al);
/* The first n decompressed bytes, without consuming them for later reads. */
size_t pcd_gzin_peek(pcd_gzin *g, uint8_t *dst, size_t n);
/* pcd_read_fn: *got = 0 at the end of the last member. PCD_E_IO with g->error set on
 * damaged compressed data or past the limit. */
pcd_status pcd_gzin_read(void *ud, uint8_t *dst, size_t cap, size_t *got);
/* The whole decompressed stream in one buffer, g's own until pcd_gzin_close (for whole-file
 * formats). -1 with g->error set, or with g->nomem when the allocator refused. */
int pcd_gzin_load(pcd_gzin *g, const uint8_t **out, size_t *len);
void pcd_gzin_close(pcd_gzin *g);

#endif
