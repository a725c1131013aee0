/* pcd_mut_gen.h: what a generated mutator (generated/<fmt>_v<N>_mut.c) holds, for the
 * engine in pcd_mut.c. Everything else the engine reads from the format's descriptors. */
#ifndef PCD_MUT_GEN_H
#define PCD_MUT_GEN_H

#include "pcd_mut.h"

/* A type's valid starting values (a zeroed struct made valid: fixed values, lower bounds, a
 * closed enum's first name), and for a union with a tag of its own, how to set case `which`. */
typedef struct pcd_mut_init {
    const pcd_type *type;
    void (*init)(void *rec);
    void (*set_case)(void *rec, uint32_t which);
} pcd_mut_init;

/* Zero bytes, for the fixed-size byte strings of new records (a generated init points at them). */
extern const uint8_t pcd_mut_zeros[4096];

struct pcd_mutator {
    const char *name;                 /* "mojo_v3" */
    const pcd_format *format;
    const pcd_mut_init *inits;        /* ends with a NULL type */
    const char *const *spaces;        /* key spaces (schema: key/ref/index_key), NULL-terminated */
};

#endif
