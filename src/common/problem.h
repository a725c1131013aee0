/* common/problem.h: the one builder of a problem found above the bytes (a check, an importer,
 * a writer), said the way the reader says its errors: a status, where (offset), what was
 * expected and what was found. The path goes on after it (pcd_error_push, innermost first). */
#ifndef PCD_COMMON_PROBLEM_H
#define PCD_COMMON_PROBLEM_H

#include <string.h>

#include "pcd.h"

PCD_INLINE pcd_error *pcd_problem(pcd_error *e, pcd_status st, uint64_t offset, const char *expected, pcd_found_kind fk,
                                  uint64_t found)
{
    memset(e, 0, sizeof *e);
    e->status = st;
    e->offset = offset;
    e->expected = expected;
    e->found_kind = fk;
    e->found = found;
    return e;
}

#endif
