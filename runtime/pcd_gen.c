/* pcd_gen.c: cold failure helpers for generated code. */
#include "pcd_gen.h"

#include <string.h>

pcd_status (pcd_fail_run)(const pcd_cursor *c, const pcd_run_field *f, size_t n)
{
    size_t left = pcd_left(c), off = 0;
    for (size_t i = 0; i < n; i++) {
        if (left < off + f[i].wire) return pcd_fail_short(c, c->p + off, f[i].name, f[i].type);
        off += f[i].wire;
    }
    return pcd_fail(c, c->p, PCD_E_INTERNAL, NULL, "a run that does not fit", PCD_FOUND_UINT, left);
}

pcd_status (pcd_fail_magic)(const pcd_cursor *c, const uint8_t *at, const char *name,
                            const char *expected, size_t n)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n && i < 8; i++) found = (found << 8) | at[i];
    return pcd_fail(c, at, PCD_E_BAD_MAGIC, name, expected, PCD_FOUND_HEX, found);
}

void pcd_warn(pcd_warn_fn warn, void *ud, uint64_t offset, const char *path, const char *expected,
              pcd_found_kind fk, uint64_t found)
{
    pcd_error e;
    memset(&e, 0, sizeof e);
    e.status = PCD_OK;
    e.offset = offset;
    e.expected = expected;
    e.found_kind = fk;
    e.found = found;
    pcd_error_push(&e, path, -1);
    warn(ud, &e);
}

pcd_status pcd_fail_name_tag(const pcd_cursor *c, const uint8_t *at, const char *name,
                             const char *expected, size_t n)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n && i < 8; i++) found = (found << 8) | at[i];
    return pcd_fail(c, at, PCD_E_BAD_TAG, name, expected, PCD_FOUND_HEX, found);
}
