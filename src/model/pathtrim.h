/* model/pathtrim.h: the automatic common-prefix trim of two profiles compared (--base, issue 25).
 *
 * Two recordings of one program name its files differently: MOJO (Austin) writes the script's
 * path as the command line gave it (`column.py`, or `/tmp/column.py`), Tachyon (CPython) the
 * absolute one (`/corpus/column.py`); two checkouts of a project sit in two directories. A
 * function is (name, file), so none of them meet in a diff. The rule (docs/design.md,
 * "The automatic common-prefix trim"):
 *
 *  - a candidate is a function name that both profiles have, in a file fa on one side and fb on
 *    the other where fa is not a file of that name on the other side (the function does not
 *    already meet) and fa and fb end in the same path components (at least the file's name):
 *    the components before that common tail are a prefix pair (pa, pb), each a directory
 *    prefix ending in '/', or "" (a relative path);
 *  - each (name, fa, fb) is one vote for its pair; the pair with the most votes is taken (ties:
 *    the shorter prefixes, then the bytes), one pair per comparison;
 *  - it is applied to every file of each side that starts with its prefix (and is longer):
 *    pa off the input's files, pb off the base's. Nothing is trimmed when no function would
 *    meet. Frames' files are rewritten in place at the end of both profiles, before the output
 *    writes them: the profiles' frames are not interned again after that (their index is
 *    rebuilt; two frames of one side that come to read the same stay two ids, which every
 *    output shows as one).
 */
#ifndef PCD_MODEL_PATHTRIM_H
#define PCD_MODEL_PATHTRIM_H

#include "model/profile.h"

#define PCD_PATH_TRIM_SHOWN 160    /* bytes of each prefix kept for messages */

typedef struct pcd_path_trim {
    uint32_t votes;                /* functions that meet because of it; 0: nothing trimmed */
    uint32_t files_a, files_b;     /* file paths trimmed on each side */
    size_t len_a, len_b;           /* the prefixes' lengths */
    char a[PCD_PATH_TRIM_SHOWN], b[PCD_PATH_TRIM_SHOWN]; /* their text (cut to fit, NUL-ended) */
} pcd_path_trim;

/* Finds the pair for profiles a (the input) and b (the base) and applies it to both. PCD_OK (out
 * says what was done, votes 0 when nothing), or PCD_E_NOMEM. */
pcd_status pcd_path_trim_auto(pcd_alloc *al, pcd_profile *a, pcd_profile *b, pcd_path_trim *out);

#endif
