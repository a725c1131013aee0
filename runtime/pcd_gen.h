/* pcd_gen.h: small helpers that generated code calls (not meant for hand-written callers). */
#ifndef PCD_GEN_H
#define PCD_GEN_H

#include "pcd_desc.h"

/* One field of a run of fixed fields read after a single bounds check. */
typedef struct pcd_run_field {
    const char *name;
    uint8_t wire;
    const char *type;
} pcd_run_field;

/* The run did not fit: reports the first field that runs past the end. */
PCD_COLD pcd_status pcd_fail_run(const pcd_cursor *c, const pcd_run_field *f, size_t n);
PCD_COLD pcd_status pcd_fail_magic(const pcd_cursor *c, const uint8_t *at, const char *name,
                                   const char *expected, size_t n);
#define pcd_fail_run(c, ...) (pcd_fail_run)(PCD_CUR_COPY(c), __VA_ARGS__)
#define pcd_fail_magic(c, ...) (pcd_fail_magic)(PCD_CUR_COPY(c), __VA_ARGS__)
/* Reports one warning of a record (generated warnings functions): status PCD_OK, the
 * field's offset and path, what is expected and what was found. */
PCD_COLD void pcd_warn(pcd_warn_fn warn, void *ud, uint64_t offset, const char *path, const char *expected,
                       pcd_found_kind fk, uint64_t found);
/* A union's name tag (a NUL-padded fixed string) names no case; found: its first bytes. */
PCD_COLD pcd_status pcd_fail_name_tag(const pcd_cursor *c, const uint8_t *at, const char *name,
                                      const char *expected, size_t n);

/* Length of a NUL-padded fixed field: up to the first NUL. */
PCD_INLINE size_t pcd_padded_len(const uint8_t *p, size_t n)
{
    const uint8_t *z = memchr(p, 0, n);
    return z ? (size_t)(z - p) : n;
}

PCD_INLINE bool pcd_bytes_eq(pcd_bytes b, const char *s, size_t n)
{
    return b.len == n && (n == 0 || memcmp(b.ptr, s, n) == 0);
}

PCD_INLINE bool pcd_bytes_has_nul(pcd_bytes b)
{
    return b.len && memchr(b.ptr, 0, b.len) != NULL;
}

PCD_INLINE pcd_status pcd_put_padded(pcd_sink *s, pcd_bytes b, size_t n)
{
    static const uint8_t zeros[64] = { 0 };
    PCD_TRY(pcd_sink_put(s, b.ptr, b.len));
    for (size_t left = n - b.len; left;) {
        size_t k = left < sizeof zeros ? left : sizeof zeros;
        PCD_TRY(pcd_sink_put(s, zeros, k));
        left -= k;
    }
    return PCD_OK;
}

#define PCD_DEF_PUTX(bits)                                                           \
    PCD_INLINE pcd_status pcd_put_u##bits##x(pcd_sink *s, uint##bits##_t v, bool big) \
    {                                                                                \
        return big ? pcd_put_u##bits##be(s, v) : pcd_put_u##bits##le(s, v);         \
    }
PCD_DEF_PUTX(16)
PCD_DEF_PUTX(32)
PCD_DEF_PUTX(64)
#undef PCD_DEF_PUTX

#endif
