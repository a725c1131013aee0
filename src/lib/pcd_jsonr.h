/* pcd_jsonr.h: JSON Lines back into generated C structs (the inverse of pcd_json.h), with jansson. */
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

#endif
