/* io/gzin.c: gzip input for the CLI and the Python module (zlib): inflates member after member, bounded. */
#include "io/gzin.h"

#include <string.h>

#define PCD_GZIN_HARD_LIMIT ((uint64_t)1 << 40)

bool pcd_gzin_is_gzip(const uint8_t *p, size_t n) { return n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8; }

/* zlib's allocation through the caller's allocator */
static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return pcd_alloc_sized(opaque, (size_t)items * size);
}

static void gz_free(voidpf opaque, voidpf p) { pcd_alloc_sized_free(opaque, p); }

int pcd_gzin_open(pcd_gzin *g, pcd_read_fn read, void *ud, uint64_t limit, pcd_alloc *al)
{
    memset(g, 0, sizeof *g);
    g->read = read;
    g->ud = ud;
    g->al = al;
    g->z.zalloc = gz_alloc;
    g->z.zfree = gz_free;
    g->z.opaque = al;
    g->limit = limit && limit < PCD_GZIN_HARD_LIMIT ? limit : PCD_GZIN_HARD_LIMIT;
    /* 16 + 15: a gzip wrapper, the largest window */
    if (inflateInit2(&g->z, 16 + 15) != Z_OK) return -1;
    g->inited = true;
    return 0;
}

/* Inflates into dst; *got = 0 only at the real end. */
static pcd_status inflate_some(pcd_gzin *g, uint8_t *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (g->end || cap == 0) return PCD_OK;
    if (g->out_total >= g->limit) {
        g->error = "decompressed data larger than the limit (raise --max-memory)";
        return PCD_E_IO;
    }
    if (cap > g->limit - g->out_total) cap = (size_t)(g->limit - g->out_total);
    for (;;) {
        if (g->z.avail_in == 0) {
            size_t n = 0;
            if (g->read(g->ud, g->ibuf, sizeof g->ibuf, &n) != PCD_OK) {
                g->error = "cannot read the compressed input";
                return PCD_E_IO;
            }
            g->z.next_in = g->ibuf;
            g->z.avail_in = (uInt)n;
            if (n == 0) {
                /* the input ended inside a member */
                g->error = "the gzip stream ends early";
                return PCD_E_IO;
            }
        }
        g->z.next_out = dst;
        g->z.avail_out = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
        uInt before = g->z.avail_out;
        int zr = inflate(&g->z, Z_NO_FLUSH);
        size_t made = before - g->z.avail_out;
        g->out_total += made;
        if (zr == Z_STREAM_END) {
            /* another member may follow (concatenated gzip files) */
            if (g->z.avail_in == 0) {
                size_t n = 0;
                if (g->read(g->ud, g->ibuf, sizeof g->ibuf, &n) != PCD_OK) {
                    g->error = "cannot read the compressed input";
                    return PCD_E_IO;
                }
                g->z.next_in = g->ibuf;
                g->z.avail_in = (uInt)n;
            }
            if (g->z.avail_in == 0) g->end = true;
            else inflateReset(&g->z);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            g->error = "damaged gzip data";
            return PCD_E_IO;
        }
        if (made > 0 || g->end) {
            *got = made;
            return PCD_OK;
        }
    }
}

size_t pcd_gzin_peek(pcd_gzin *g, uint8_t *dst, size_t n)
{
    while (g->head_len < n && g->head_len < sizeof g->head && !g->end) {
        size_t got = 0;
        if (inflate_some(g, g->head + g->head_len, sizeof g->head - g->head_len, &got) != PCD_OK) break;
        g->head_len += got;
        if (got == 0) break;
    }
    size_t k = n < g->head_len ? n : g->head_len;
    memcpy(dst, g->head, k);
    return k;
}

pcd_status pcd_gzin_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    pcd_gzin *g = ud;
    if (g->head_pos < g->head_len) {
        size_t k = g->head_len - g->head_pos < cap ? g->head_len - g->head_pos : cap;
        memcpy(dst, g->head + g->head_pos, k);
        g->head_pos += k;
        *got = k;
        return PCD_OK;
    }
    return inflate_some(g, dst, cap, got);
}

int pcd_gzin_load(pcd_gzin *g, const uint8_t **out, size_t *len)
{
    size_t cap = g->buf_cap ? g->buf_cap : (size_t)1 << 20, n = 0;
    if (!g->buf && !(g->buf = pcd_alloc_get(g->al, cap))) {
        g->nomem = true;
        return -1;
    }
    g->buf_cap = cap;
    for (;;) {
        if (n == g->buf_cap) {
            uint8_t *nb = g->buf_cap <= SIZE_MAX / 2 ? pcd_alloc_resize(g->al, g->buf, g->buf_cap, g->buf_cap * 2) : NULL;
            if (!nb) {
                g->nomem = true;
                return -1;
            }
            g->buf = nb;
            g->buf_cap *= 2;
        }
        size_t got = 0;
        if (pcd_gzin_read(g, g->buf + n, g->buf_cap - n, &got) != PCD_OK) return -1;
        if (got == 0) break;
        n += got;
    }
    *out = g->buf;
    *len = n;
    return 0;
}

void pcd_gzin_close(pcd_gzin *g)
{
    if (g->inited) inflateEnd(&g->z);
    g->inited = false;
    pcd_alloc_free(g->al, g->buf, g->buf_cap);
    g->buf = NULL;
    g->buf_cap = 0;
}
