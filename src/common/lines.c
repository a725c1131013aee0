/* common/lines.c: lines of text through the caller's allocator. */
#include "common/lines.h"

#include <string.h>

#include "common/vec.h"

void pcd_lines_stream(pcd_lines *l, pcd_alloc *al, pcd_read_fn read, void *ud)
{
    memset(l, 0, sizeof *l);
    l->al = al;
    l->read = read;
    l->ud = ud;
}

void pcd_lines_memory(pcd_lines *l, pcd_alloc *al, const uint8_t *p, size_t n)
{
    memset(l, 0, sizeof *l);
    l->al = al;
    l->mem = p;
    l->mem_len = n;
}

static pcd_status copy_out(pcd_lines *l, const uint8_t *p, size_t n, uint8_t **line, size_t *len)
{
    PCD_TRY(PCD_VEC_RESERVE(l->al, l->line, l->line_cap, n + 1));
    if (n) memcpy(l->line, p, n);
    l->line[n] = 0;
    *line = l->line;
    *len = n;
    return PCD_OK;
}

pcd_status pcd_lines_next(pcd_lines *l, uint8_t **line, size_t *n, uint64_t *offset)
{
    if (offset) *offset = l->pos;
    if (!l->read) {
        if (l->pos >= l->mem_len) return PCD_END;
        const uint8_t *p = l->mem + l->pos;
        size_t left = l->mem_len - (size_t)l->pos;
        const uint8_t *nl = memchr(p, '\n', left);
        size_t k = nl ? (size_t)(nl - p) + 1 : left;
        PCD_TRY(copy_out(l, p, k, line, n));
        l->pos += k;
        return PCD_OK;
    }
    size_t scanned = 0;
    for (;;) {
        /* (no buffer before the first read: NULL + 0 and memchr(NULL) are undefined) */
        const uint8_t *p = l->buf ? l->buf + l->start : NULL;
        const uint8_t *nl = l->end - l->start > scanned ? memchr(p + scanned, '\n', l->end - l->start - scanned) : NULL;
        if (nl || (l->eof && l->end > l->start)) {
            size_t k = nl ? (size_t)(nl - p) + 1 : l->end - l->start;
            PCD_TRY(copy_out(l, p, k, line, n));
            l->start += k;
            l->pos += k;
            return PCD_OK;
        }
        if (l->eof) return PCD_END;
        scanned = l->end - l->start;
        /* room for more: move what is left to the front, grow when it fills the buffer */
        if (l->start) {
            memmove(l->buf, l->buf + l->start, l->end - l->start);
            l->end -= l->start;
            l->start = 0;
        }
        if (l->end == l->cap) PCD_TRY(PCD_VEC_RESERVE(l->al, l->buf, l->cap, l->cap ? l->cap * 2 : 65536));
        size_t got = 0;
        PCD_TRY(l->read(l->ud, l->buf + l->end, l->cap - l->end, &got));
        if (got == 0) l->eof = true;
        l->end += got;
    }
}

pcd_status pcd_lines_seek(pcd_lines *l, uint64_t offset)
{
    if (l->read || offset > l->mem_len) return PCD_E_ARG;
    l->pos = offset;
    return PCD_OK;
}

pcd_status pcd_memread_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    pcd_memread *m = ud;
    size_t k = m->n - m->pos < cap ? m->n - m->pos : cap;
    if (k) memcpy(dst, m->p + m->pos, k);
    m->pos += k;
    *got = k;
    return PCD_OK;
}

pcd_status pcd_memread_load(void *ud, const uint8_t **p, size_t *n)
{
    pcd_memread *m = ud;
    *p = m->p;
    *n = m->n;
    return PCD_OK;
}

void pcd_lines_free(pcd_lines *l)
{
    PCD_VEC_FREE(l->al, l->buf, l->cap);
    PCD_VEC_FREE(l->al, l->line, l->line_cap);
}
