/* plugin_env.h: the settings both engine plugins read from the environment, and their session.
 *   PCD_MUT_FORMAT  the schema ("mojo:3", "pprof"); default: told from the first input
 *   PCD_MUT_EVIL    1 (default) or 0: evil kinds and layer-breaking kinds off
 *   PCD_MUT_LAYER   the probability of a layer-breaking kind per mutation (default 0.03)
 *   PCD_MUT_BYTES   libFuzzer only: the share of calls left to libFuzzer's own byte-level
 *                   mutations of the whole input (default 0.25)
 *   PCD_MUT_INNER   libFuzzer only: the share of calls that are inner_bytes with libFuzzer's
 *                   byte-level mutations: the bytes inside the gzip layer or inside one zstd
 *                   region changed, then compressed again (default 0.35; on inputs without a
 *                   compressed layer these calls are structural ones)
 *   PCD_MUT_WIRE    libFuzzer only: the share of calls that are pb_wire on the input's own bytes
 *                   (protobuf formats: another legal wire form of one message, added to the
 *                   forms the input has; default 0.15; on other formats these calls are
 *                   structural ones)
 *   PCD_MUT_GROW    libFuzzer only: how much larger than its input an output may be, in bytes
 *                   (default 1024 and a quarter of the input; libFuzzer's own length control is
 *                   off with a custom mutator, and large inputs slow every execution); 0: no cap
 *   PCD_MUT_SEED    the session's first seed (default 1)
 *   PCD_MUT_VERBOSE 1: each mutation's one-line description on stderr */
#ifndef PCD_PLUGIN_ENV_H
#define PCD_PLUGIN_ENV_H

#include <stdio.h>
#include <stdlib.h>

#include "pcd_mut.h"

typedef struct plugin {
    pcd_alloc al;
    pcd_mut *m;
    const pcd_mutator *mu;
    double bytes_share;
    double inner_share;
    double wire_share;
    double grow;
    int verbose;
    int failed;               /* no schema for these inputs: byte-level only */
} plugin;

static double env_num(const char *name, double def)
{
    const char *v = getenv(name);
    return v && *v ? atof(v) : def;
}

/* The session, made on the first input (its schema from PCD_MUT_FORMAT or the input). */
static pcd_mut *plugin_session(plugin *p, const uint8_t *data, size_t size)
{
    if (p->m || p->failed) return p->m;
    const char *fmt = getenv("PCD_MUT_FORMAT");
    p->mu = fmt && *fmt ? pcd_mutator_find(fmt, NULL) : pcd_mutator_detect(data, size);
    if (!p->mu) {
        if (fmt && *fmt) fprintf(stderr, "pcdmut: no schema '%s' (PCD_MUT_FORMAT)\n", fmt);
        if (!fmt && size == 0) return NULL;   /* an empty input tells nothing: ask again */
        p->failed = 1;
        return NULL;
    }
    pcd_alloc_init(&p->al, pcd_alloc_libc, NULL, (size_t)1 << 31);
    pcd_mut_opts o;
    pcd_mut_opts_default(&o);
    o.evil = env_num("PCD_MUT_EVIL", 1) != 0;
    o.layer_break = env_num("PCD_MUT_LAYER", 0.03);
    o.seed = (uint64_t)env_num("PCD_MUT_SEED", 1);
    o.max_output = (size_t)1 << 22;
    p->bytes_share = env_num("PCD_MUT_BYTES", 0.25);
    p->inner_share = env_num("PCD_MUT_INNER", 0.35);
    p->wire_share = env_num("PCD_MUT_WIRE", 0.15);
    p->grow = env_num("PCD_MUT_GROW", 1024);
    p->verbose = (int)env_num("PCD_MUT_VERBOSE", 0);
    if (pcd_mut_new(&p->m, p->mu, &o, &p->al) != PCD_OK) {
        p->failed = 1;
        return NULL;
    }
    if (p->verbose) fprintf(stderr, "pcdmut: schema %s\n", pcd_mutator_name(p->mu));
    return p->m;
}

#endif
