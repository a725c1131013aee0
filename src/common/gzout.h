/* common/gzout.h: gzip output: a sink whose bytes are deflated (zlib, a gzip member) into
 * another sink. zlib's memory comes from the caller's allocator. */
#ifndef PCD_COMMON_GZOUT_H
#define PCD_COMMON_GZOUT_H

#include <zlib.h>

#include "pcd.h"

typedef struct pcd_gzout {
    pcd_sink sink;            /* write the uncompressed bytes here */
    pcd_ctx x;
    pcd_sink *out;            /* the compressed bytes go here */
    pcd_alloc *al;
    z_stream z;
    bool inited;
    uint8_t buf[1 << 16], zbuf[1 << 16];
} pcd_gzout;

/* level: zlib's 0..9 (-1 its default). PCD_E_NOMEM when zlib cannot start. */
pcd_status pcd_gzout_open(pcd_gzout *g, pcd_sink *out, pcd_alloc *al, int level);
/* Flushes what is buffered and ends the member (its CRC and size). */
pcd_status pcd_gzout_finish(pcd_gzout *g);
void pcd_gzout_close(pcd_gzout *g);

#endif
