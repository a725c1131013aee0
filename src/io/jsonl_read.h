/* io/jsonl_read.h: JSON Lines back into generated C structs (the inverse of pcd_json.h), with jansson. */
#ifndef PCD_JSONR_H
#define PCD_JSONR_H

#include <jansson.h>

#include "pcd.h"

/* Where a JSON record goes: the root, or a record type of one region. */
typedef struct pcd_jkind {
    const pcd_region_desc *rd;   /* NULL for the root */
    const pcd_type *type;
    int32_t which;               /* union records: the case the "kind" names */
} pcd_jkind;

/* Finds the record type a "kind" names. Returns false if none. */
bool pcd_jsonr_kind(const pcd_format *f, const char *kind, pcd_jkind *out);

/* Fills dst (a zeroed struct of k->type) from obj. Strings and arrays go into the
 * arena. On error returns false with a message in err (path: what is wrong). */
bool pcd_jsonr_record(const pcd_jkind *k, json_t *obj, void *dst, pcd_arena *arena, char *err,
                      size_t errcap);

/* jansson reads the JSON number -0 as the integer 0 and so loses its sign, which a float
 * field keeps (-0.0). If `line` holds a -0 token outside strings, returns a copy from al
 * (pcd_alloc_sized: free it with pcd_alloc_sized_free; length in *out_len) where each one is
 * written -0.0, which integer fields read as 0 as before; NULL when there is none (or no
 * memory: the line is then read as it is). */
char *pcd_jsonr_negzero(pcd_alloc *al, const char *line, size_t len, size_t *out_len);

#endif
