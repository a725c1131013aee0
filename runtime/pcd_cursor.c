/* pcd_cursor.c: failure recording, strings, counted allocation, UTF-8 checks. */
#include "pcd_cursor.h"

#include <string.h>

const pcd_limits pcd_default_limits = {
    .max_array = UINT64_C(1) << 32,
    .max_bytes = UINT64_C(1) << 32,
    .max_inflate = UINT64_C(1) << 32,
    .max_depth = 100,
};

void pcd_ctx_init(pcd_ctx *x, pcd_arena *arena)
{
    memset(x, 0, sizeof *x);
    x->arena = arena;
    x->lim = &pcd_default_limits;
}

/* The failure functions' names are in parentheses: pcd_cursor.h's macros of the same names call
 * them with a copy of the cursor. */
pcd_status (pcd_fail)(const pcd_cursor *c, const uint8_t *at, pcd_status s, const char *name,
                      const char *expected, pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = &c->x->err;
    e->status = s;
    e->offset = pcd_offset(c, at);
    e->expected = expected;
    e->found_kind = fk;
    e->found = found;
    e->found_text = NULL;
    e->n_seg = 0;
    e->path_truncated = false;
    if (name) pcd_error_push(e, name, -1);
    return s;
}

pcd_status (pcd_fail_text)(const pcd_cursor *c, const uint8_t *at, pcd_status s, const char *name,
                           const char *expected, const char *found)
{
    pcd_fail(c, at, s, name, expected, PCD_FOUND_TEXT, 0);
    c->x->err.found_text = found;
    return s;
}

pcd_status (pcd_fail_short)(const pcd_cursor *c, const uint8_t *at, const char *name,
                            const char *expected)
{
    if (!c->hard) return PCD_SHORT_READ;
    return pcd_fail(c, at, PCD_E_TRUNCATED, name, expected, PCD_FOUND_END,
                    (uint64_t)(c->end - at));
}

pcd_status pcd_wrap(pcd_ctx *x, pcd_status s, const char *name, int64_t index)
{
    if (PCD_IS_ERROR(s)) pcd_error_push(&x->err, name, index);
    return s;
}

pcd_status pcd_read_cstring_slow(pcd_cursor *c, uint64_t max, pcd_bytes *out, const char *name)
{
    size_t left = (size_t)(c->end - c->p);
    size_t scan = (max && max < left) ? (size_t)max + 1 : left;
    const uint8_t *nul = memchr(c->p, 0, scan);
    if (!nul) {
        if (scan < left || (max && left > max))
            return pcd_fail(c, c->p, PCD_E_LIMIT, name, "NUL-terminated string within its length limit",
                            PCD_FOUND_UINT, (uint64_t)scan);
        return pcd_fail_short(c, c->p, name, "NUL-terminated string");
    }
    out->ptr = c->p;
    out->len = (size_t)(nul - c->p);
    c->p = nul + 1;
    return PCD_OK;
}

pcd_status pcd_skip_cstring(pcd_cursor *c, uint64_t max, const char *name)
{
    pcd_bytes b;
    return pcd_read_cstring(c, max, &b, name);
}

pcd_status pcd_check_count_slow(const pcd_cursor *c, const uint8_t *at, uint64_t n, size_t min_wire,
                                const char *name)
{
    if (PCD_UNLIKELY(n > c->x->lim->max_array))
        return pcd_fail(c, at, PCD_E_LIMIT, name, "element count within the array limit",
                        PCD_FOUND_UINT, n);
    if (min_wire && PCD_UNLIKELY(n > (uint64_t)(c->end - c->p) / min_wire)) {
        /* the elements cannot all be in the input that is left */
        if (!c->hard) return PCD_SHORT_READ;
        return pcd_fail(c, at, PCD_E_TRUNCATED, name, "element count that fits in the data left",
                        PCD_FOUND_UINT, n);
    }
    return PCD_OK;
}

pcd_status pcd_alloc_array_slow(pcd_cursor *c, const uint8_t *at, uint64_t n, size_t size,
                                size_t min_wire, void **out, const char *name)
{
    PCD_TRY(pcd_check_count_slow(c, at, n, min_wire, name));
    if (n == 0) {
        *out = NULL;
        return PCD_OK;
    }
    if (!c->x->arena || n > SIZE_MAX / size)
        return pcd_fail(c, at, PCD_E_NOMEM, name, "memory for the array", PCD_FOUND_UINT, n);
    void *p = pcd_arena_alloc(c->x->arena, (size_t)n * size);
    if (!p)
        return pcd_fail(c, at, PCD_E_NOMEM, name, "memory for the array (raise --max-memory)",
                        PCD_FOUND_UINT, n);
    *out = p;
    return PCD_OK;
}

bool pcd_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* fast path: 8 ASCII bytes at a time */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & UINT64_C(0x8080808080808080))) {
                i += 8;
                continue;
            }
        }
        uint8_t b = s[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (b >= 0xC2 && b <= 0xDF) { len = 2; cp = b & 0x1F; }
        else if (b >= 0xE0 && b <= 0xEF) { len = 3; cp = b & 0x0F; }
        else if (b >= 0xF0 && b <= 0xF4) { len = 4; cp = b & 0x07; }
        else return false;
        if (n - i < len) return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

pcd_status pcd_seek(const pcd_cursor *c, uint64_t off, pcd_cursor *sub, const char *name)
{
    pcd_ctx *x = c->x;
    uint64_t have = (uint64_t)(x->win_end - x->win_start);
    if (off < x->win_base || off - x->win_base > have) {
        if (!x->win_closed && off >= x->win_base) return PCD_SHORT_READ;
        return pcd_fail(c, c->p, PCD_E_RANGE, name, "an offset inside the file", PCD_FOUND_UINT, off);
    }
    sub->p = x->win_start + (off - x->win_base);
    sub->end = x->win_end;
    sub->x = x;
    sub->hard = x->win_closed;
    return PCD_OK;
}

pcd_status pcd_seek_end(const pcd_cursor *c, uint64_t n, pcd_cursor *sub, const char *name)
{
    pcd_ctx *x = c->x;
    if (!x->win_closed) return PCD_SHORT_READ;
    uint64_t size = x->win_base + (uint64_t)(x->win_end - x->win_start);
    if (n > size)
        return pcd_fail(c, c->p, PCD_E_TRUNCATED, name, "a file long enough for it", PCD_FOUND_UINT, size);
    return pcd_seek(c, size - n, sub, name);
}

pcd_status pcd_peek_match(const pcd_cursor *c, uint64_t off, bool from_end, const uint8_t *bytes,
                          size_t n, bool *match)
{
    const pcd_ctx *x = c->x;
    uint64_t have_end = x->win_base + (uint64_t)(x->win_end - x->win_start);
    *match = false;
    if (from_end) {
        if (!x->win_closed) return PCD_SHORT_READ;
        if (off > have_end) return PCD_OK;
        off = have_end - off;
    }
    if (off < x->win_base) return PCD_OK;
    if (off > have_end || have_end - off < n) return x->win_closed ? PCD_OK : PCD_SHORT_READ;
    *match = n == 0 || memcmp(x->win_start + (off - x->win_base), bytes, n) == 0;
    return PCD_OK;
}

pcd_status pcd_input_size(const pcd_cursor *c, uint64_t *size)
{
    const pcd_ctx *x = c->x;
    if (!x->win_closed) return PCD_SHORT_READ;
    *size = x->win_base + (uint64_t)(x->win_end - x->win_start);
    return PCD_OK;
}
