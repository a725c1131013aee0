/* pcd_cursor.h: the decode context, bounds-checked read cursors and failure helpers. */
#ifndef PCD_CURSOR_H
#define PCD_CURSOR_H

#include "pcd_alloc.h"
#include "pcd_endian.h"
#include "pcd_status.h"

/* Global limits a caller can tighten; the schema's own per-field limits always apply. */
typedef struct pcd_limits {
    uint64_t max_array;        /* elements in one decoded array */
    uint64_t max_bytes;        /* bytes in one string or byte field */
    uint64_t max_inflate;      /* decompressed bytes of one compressed region */
    uint32_t max_depth;        /* protobuf messages nested in one another (schemas whose messages
                                * contain themselves); 0: 100 */
} pcd_limits;

extern const pcd_limits pcd_default_limits;

struct pcd_spans;

/* Shared by every cursor of one decode: error record, arena, byte order, state. */
typedef struct pcd_ctx {
    pcd_error err;
    pcd_arena *arena;          /* where arrays go; NULL in validate-only runs */
    const uint8_t *win_start;  /* offsets are win_base + (ptr - win_start) */
    const uint8_t *win_end;    /* end of what the input has so far */
    uint64_t win_base;
    bool win_closed;           /* win_end is the end of the whole input */
    bool big;                  /* fields of "native" order are big-endian in this input */
    void *state;               /* the current region's stream state (generated type) */
    const void *root;          /* the decoded file record (generated type), for header.x */
    const pcd_limits *lim;
    uint32_t depth;            /* protobuf messages that contain themselves: how deep in them */
    uint64_t version;          /* the format version being decoded */
    /* encoding: where each of the root's regions went (by position among them), for
     * sizes, counts and offsets written after it */
    struct pcd_region_stat {
        uint64_t start, size, count;
    } rstat[8];
    /* encoding: moves a file offset read from the original file to where the record it
     * points into was written (relocate = true fields); NULL: offsets stay as they are */
    bool (*reloc)(void *ud, uint64_t old, uint64_t *now);
    void *reloc_ud;
    /* explain: where the generated explain functions record each field's bytes (NULL: not
     * asked; pcd_span.h) */
    struct pcd_spans *spans;
    /* decoding: the arrays whose elements the consumer never reads, only their count (bits of
     * the format's generated ..._COUNT_ONLY_<NAME> constants, from the schema's count_only):
     * such an array's elements are checked exactly as when stored (the same errors, the
     * stream state moved on the same), but not stored: its pointer is NULL, its count set.
     * 0: every array stored. Validation and explain ignore it. */
    uint32_t count_only;
} pcd_ctx;

void pcd_ctx_init(pcd_ctx *x, pcd_arena *arena);

/* A read window: [p, end). `hard` says end is a real boundary (a region's end,
 * or the end of closed input); otherwise running into it asks for more input. */
typedef struct pcd_cursor {
    const uint8_t *p, *end;
    pcd_ctx *x;
    bool hard;
} pcd_cursor;

PCD_INLINE pcd_cursor pcd_cursor_make(pcd_ctx *x, const uint8_t *p, size_t n, uint64_t base,
                                      bool closed)
{
    x->win_start = p;
    x->win_end = p + n;
    x->win_base = base;
    x->win_closed = closed;
    pcd_cursor c = { p, p + n, x, closed };
    return c;
}

PCD_INLINE uint64_t pcd_offset(const pcd_cursor *c, const uint8_t *at)
{
    return c->x->win_base + (uint64_t)(at - c->x->win_start);
}

PCD_INLINE size_t pcd_left(const pcd_cursor *c) { return (size_t)(c->end - c->p); }

/* Records the first failure and returns its status (never PCD_OK). */
PCD_COLD pcd_status pcd_fail(const pcd_cursor *c, const uint8_t *at, pcd_status s,
                             const char *name, const char *expected, pcd_found_kind fk,
                             uint64_t found);
/* The same with a static text as what was found. */
PCD_COLD pcd_status pcd_fail_text(const pcd_cursor *c, const uint8_t *at, pcd_status s,
                                  const char *name, const char *expected, const char *found);
/* The data ended at `at` while `need` bytes were wanted: a short read on open
 * input, a truncation error otherwise. */
PCD_COLD pcd_status pcd_fail_short(const pcd_cursor *c, const uint8_t *at, const char *name,
                                   const char *expected);
/* The failure functions get a copy of the cursor (they only read it): a cursor a fast path keeps
 * in a local (in registers) never has its address taken on the way to one. */
PCD_INLINE const pcd_cursor *pcd_cursor_copy(pcd_cursor *to, const pcd_cursor *c)
{
    *to = *c;
    return to;
}
#define PCD_CUR_COPY(c) pcd_cursor_copy(&(pcd_cursor){ NULL, NULL, NULL, false }, (c))
#define pcd_fail(c, ...) (pcd_fail)(PCD_CUR_COPY(c), __VA_ARGS__)
#define pcd_fail_text(c, ...) (pcd_fail_text)(PCD_CUR_COPY(c), __VA_ARGS__)
#define pcd_fail_short(c, ...) (pcd_fail_short)(PCD_CUR_COPY(c), __VA_ARGS__)
/* Adds an outer segment to the path of an error travelling out; passes other statuses through. */
PCD_COLD pcd_status pcd_wrap(pcd_ctx *x, pcd_status s, const char *name, int64_t index);

#define PCD_TRY_IN(x, expr, name, index)                                      \
    do {                                                                      \
        pcd_status pcd_s_ = (expr);                                           \
        if (PCD_UNLIKELY(pcd_s_ != PCD_OK))                                   \
            return pcd_wrap((x), pcd_s_, (name), (index));                    \
    } while (0)

/* A sub-cursor over the next n bytes; the parent moves past them. */
PCD_INLINE pcd_status pcd_take(pcd_cursor *c, uint64_t n, pcd_cursor *sub, const char *name,
                               const char *expected)
{
    if (PCD_UNLIKELY(n > (uint64_t)(c->end - c->p)))
        return pcd_fail_short(c, c->p, name, expected);
    sub->p = c->p;
    sub->end = c->p + n;
    sub->x = c->x;
    sub->hard = true;
    c->p += n;
    return PCD_OK;
}

/* A cursor at absolute offset `off` of the input, to its end (for fields a header or
 * footer locates). Needs the whole input in the window; a short read otherwise. */
pcd_status pcd_seek(const pcd_cursor *c, uint64_t off, pcd_cursor *sub, const char *name);
/* The same, n bytes before the end of the input. */
pcd_status pcd_seek_end(const pcd_cursor *c, uint64_t n, pcd_cursor *sub, const char *name);

/* Do the n bytes at absolute offset `off` of the input (n bytes before its end when
 * from_end) equal `bytes`? *match is false when they lie outside the input. A short
 * read when the answer needs input not seen yet. Records no error. */
pcd_status pcd_peek_match(const pcd_cursor *c, uint64_t off, bool from_end, const uint8_t *bytes,
                          size_t n, bool *match);
/* The size of the whole input (a short read until its end is known). */
pcd_status pcd_input_size(const pcd_cursor *c, uint64_t *size);

/* Checked fixed-width reads: the cursor moves only on success. */
#define PCD_DEF_READ(T, bits, sfx, load)                                                 \
    PCD_INLINE pcd_status pcd_read_##sfx(pcd_cursor *c, T *out, const char *name)        \
    {                                                                                    \
        if (PCD_UNLIKELY((size_t)(c->end - c->p) < (bits) / 8))                          \
            return pcd_fail_short(c, c->p, name, #sfx);                                  \
        *out = (T)load(c->p);                                                            \
        c->p += (bits) / 8;                                                              \
        return PCD_OK;                                                                   \
    }
PCD_DEF_READ(uint8_t, 8, u8, pcd_ld_u8)
PCD_DEF_READ(uint16_t, 16, u16le, pcd_ld_u16le)
PCD_DEF_READ(uint16_t, 16, u16be, pcd_ld_u16be)
PCD_DEF_READ(uint32_t, 32, u32le, pcd_ld_u32le)
PCD_DEF_READ(uint32_t, 32, u32be, pcd_ld_u32be)
PCD_DEF_READ(uint64_t, 64, u64le, pcd_ld_u64le)
PCD_DEF_READ(uint64_t, 64, u64be, pcd_ld_u64be)
#undef PCD_DEF_READ

/* Byte strings: a view into the input (valid while the input window is). */
typedef struct pcd_bytes {
    const uint8_t *ptr;
    size_t len;
} pcd_bytes;

PCD_INLINE pcd_status pcd_read_bytes(pcd_cursor *c, uint64_t n, pcd_bytes *out, const char *name)
{
    if (PCD_UNLIKELY(n > (uint64_t)(c->end - c->p)))
        return pcd_fail_short(c, c->p, name, "bytes");
    out->ptr = c->p;
    out->len = (size_t)n;
    c->p += n;
    return PCD_OK;
}

/* NUL-terminated: the view excludes the NUL, the cursor moves past it. */
pcd_status pcd_read_cstring_slow(pcd_cursor *c, uint64_t max, pcd_bytes *out, const char *name);
PCD_INLINE pcd_status pcd_read_cstring(pcd_cursor *c, uint64_t max, pcd_bytes *out, const char *name)
{
    /* short strings (names, symbols, thread ids) eight bytes a step, with 32 bytes in the
     * window: the first zero byte of a word is the lowest bit of (w - 0x01..) & ~w & 0x80.. */
    const uint8_t *p = c->p;
    if (PCD_LIKELY(c->end - p >= 32)) {
        for (size_t k = 0; k < 32; k += 8) {
            uint64_t w = pcd_ld_u64le(p + k);
            uint64_t z = (w - UINT64_C(0x0101010101010101)) & ~w & UINT64_C(0x8080808080808080);
            if (z) {
                size_t len = k + (size_t)__builtin_ctzll(z) / 8;
                if (PCD_UNLIKELY(max && len > max)) break;
                out->ptr = p;
                out->len = len;
                c->p = p + len + 1;
                return PCD_OK;
            }
        }
    }
    return pcd_read_cstring_slow(c, max, out, name);
}
pcd_status pcd_skip_cstring(pcd_cursor *c, uint64_t max, const char *name);

/* Allocates n elements of `size` bytes in the context's arena, after checking
 * that n elements of at least `min_wire` bytes each fit in what is left of c
 * (so no count read from the input can size an allocation beyond the input). */
pcd_status pcd_alloc_array_slow(pcd_cursor *c, const uint8_t *at, uint64_t n, size_t size,
                                size_t min_wire, void **out, const char *name);
PCD_INLINE pcd_status pcd_alloc_array(pcd_cursor *c, const uint8_t *at, uint64_t n, size_t size,
                                      size_t min_wire, void **out, const char *name)
{
    if (n == 0) {
        /* an empty array passes every check and takes no memory */
        *out = NULL;
        return PCD_OK;
    }
    /* the checks of pcd_check_count, then the arena's bump; anything else (and every
     * failure, reported there) goes the slow way */
    if (PCD_LIKELY(n <= c->x->lim->max_array && (!min_wire || n <= (uint64_t)(c->end - c->p) / min_wire) &&
                   c->x->arena && n <= SIZE_MAX / size)) {
        void *p = pcd_arena_alloc(c->x->arena, (size_t)n * size);
        if (PCD_LIKELY(p != NULL)) {
            *out = p;
            return PCD_OK;
        }
    }
    return pcd_alloc_array_slow(c, at, n, size, min_wire, out, name);
}

/* Checks a count against the bytes left (n * min_wire <= left) and the global limit. */
pcd_status pcd_check_count_slow(const pcd_cursor *c, const uint8_t *at, uint64_t n, size_t min_wire,
                                const char *name);
PCD_INLINE pcd_status pcd_check_count(const pcd_cursor *c, const uint8_t *at, uint64_t n, size_t min_wire,
                                      const char *name)
{
    if (PCD_LIKELY(n <= c->x->lim->max_array && (!min_wire || n <= (uint64_t)(c->end - c->p) / min_wire)))
        return PCD_OK;
    return pcd_check_count_slow(PCD_CUR_COPY(c), at, n, min_wire, name);
}

/* UTF-8 validity of a byte string. */
bool pcd_utf8_valid(const uint8_t *p, size_t n);

#endif
