/* cli/explain.h: `profcodec explain`, shared by its command (cmd_explain.c: the records, the
 * terminal's annotated hex dump, JSON Lines) and its HTML page (explain_page.c). */
#ifndef PCD_CLI_EXPLAIN_H
#define PCD_CLI_EXPLAIN_H

#include "cli.h"
#include "common/text.h"

/* A stream of bytes records lie in: the file (stream 0; a gzip file's decompressed data), or
 * a compressed region's decompressed data. */
typedef struct xstream {
    const char *region;       /* the region's name (NULL: the file) */
    uint32_t parent;          /* the stream its compressed bytes are in */
    uint64_t start, end;      /* those bytes in the parent stream (end unknown: start) */
    /* explain --to html: the bytes of this stream the page shows, [lo, lo + len) */
    uint64_t lo;
    uint8_t *bytes;
    size_t len, cap;
} xstream;

typedef struct explainer {
    cli *c;
    cli_src src;
    const char *path;
    pcd_spans spans;
    pcd_xrecord xr;
    xstream *st;
    size_t n_st, st_cap;
    uint64_t file_size;       /* of the file as it is on disk */
    uint64_t stream_size;     /* of stream 0 (a gzip file's decompressed size) */
    bool gzip;
} explainer;

/* The explain page: the page's data (JSON: the records, see cmd_explain.c) and the streams'
 * bytes the page shows, written as one HTML file. */
pcd_status cli_explain_page(pcd_sink *out, const explainer *x, const uint8_t *records_json, size_t records_len);

#endif
