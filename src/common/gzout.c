/* common/gzout.c: gzip output through zlib, on the caller's allocator. */
#include "common/gzout.h"

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return pcd_alloc_sized(opaque, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p) { pcd_alloc_sized_free(opaque, p); }

/* Deflates n bytes (flush: Z_NO_FLUSH or Z_FINISH) into the output sink. */
static pcd_status deflate_into(pcd_gzout *g, const uint8_t *p, size_t n, int flush)
{
    g->z.next_in = (Bytef *)(uintptr_t)p;
    g->z.avail_in = (uInt)n;
    for (;;) {
        g->z.next_out = g->zbuf;
        g->z.avail_out = sizeof g->zbuf;
        int zr = deflate(&g->z, flush);
        if (zr == Z_STREAM_ERROR) return PCD_E_GZIP;
        PCD_TRY(pcd_sink_put(g->out, g->zbuf, sizeof g->zbuf - g->z.avail_out));
        if (flush == Z_FINISH ? zr == Z_STREAM_END : (g->z.avail_in == 0 && g->z.avail_out != 0)) return PCD_OK;
    }
}

static pcd_status gz_write(void *ud, const uint8_t *p, size_t n)
{
    pcd_gzout *g = ud;
    while (n) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        PCD_TRY(deflate_into(g, p, k, Z_NO_FLUSH));
        p += k;
        n -= k;
    }
    return PCD_OK;
}

pcd_status pcd_gzout_open(pcd_gzout *g, pcd_sink *out, pcd_alloc *al, int level)
{
    g->out = out;
    g->al = al;
    memset(&g->z, 0, sizeof g->z);
    g->z.zalloc = z_alloc;
    g->z.zfree = z_free;
    g->z.opaque = al;
    /* 16 + 15: a gzip wrapper (no name, time 0: the same bytes for the same input) */
    if (deflateInit2(&g->z, level, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return PCD_E_NOMEM;
    g->inited = true;
    pcd_ctx_init(&g->x, NULL);
    pcd_sink_init(&g->sink, g->buf, sizeof g->buf, gz_write, NULL, g, &g->x);
    return PCD_OK;
}

pcd_status pcd_gzout_finish(pcd_gzout *g)
{
    PCD_TRY(pcd_sink_flush(&g->sink));
    return deflate_into(g, NULL, 0, Z_FINISH);
}

void pcd_gzout_close(pcd_gzout *g)
{
    if (g->inited) deflateEnd(&g->z);
    g->inited = false;
}
