/* afl_mutator.c: AFL++'s custom mutator (AFL_CUSTOM_MUTATOR_LIBRARY=pcdmut_afl.so) over
 * profcodec's structure-aware mutators:
 *  - afl_custom_fuzz: a structure-aware mutation of the queue entry (crossover with AFL's
 *    splice input when it has one); afl_custom_fuzz_count: how many per entry;
 *  - afl_custom_post_process: an input AFL's own byte mutations broke is, one time in two,
 *    read as far as it goes and written again with every size, count, offset and zstd or
 *    gzip layer recomputed (our own outputs pass as they are: their broken layers are on
 *    purpose);
 *  - afl_custom_init_trim / trim / post_trim: trimming that keeps the structure (records
 *    dropped, values shrunk), not byte chunks;
 *  - afl_custom_describe: the mutation, in the queue entry's file name.
 * Settings: plugin_env.h (PCD_MUT_FORMAT, PCD_MUT_EVIL, PCD_MUT_LAYER, PCD_MUT_SEED, ...). */
#include <string.h>

#include "plugin_env.h"

typedef struct afl_pcd {
    plugin p;
    uint8_t *out;
    size_t cap;
    uint64_t rng;
    uint64_t last_hash;       /* our last output (post_process leaves it as it is) */
    size_t last_len;
    uint32_t trim_step, trim_steps;
    size_t trim_len;
} afl_pcd;

void *afl_custom_init(void *afl, unsigned int seed);
uint32_t afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t buf_size);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size);
const char *afl_custom_describe(void *data, size_t max_description_len);
size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf);
int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size);
size_t afl_custom_trim(void *data, uint8_t **out_buf);
int32_t afl_custom_post_trim(void *data, unsigned char success);
void afl_custom_deinit(void *data);

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h;
}

void *afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl;
    afl_pcd *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->cap = (size_t)1 << 22;
    a->out = malloc(a->cap);
    if (!a->out) {
        free(a);
        return NULL;
    }
    a->rng = seed ? seed : 1;
    return a;
}

void afl_custom_deinit(void *data)
{
    afl_pcd *a = data;
    if (a->p.m) pcd_mut_free(a->p.m);
    free(a->out);
    free(a);
}

uint32_t afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t buf_size)
{
    afl_pcd *a = data;
    /* an input our decoder reads is worth many structural mutations (it is decoded once) */
    return plugin_session(&a->p, buf, buf_size) ? 256 : 0;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size)
{
    afl_pcd *a = data;
    pcd_mut *m = plugin_session(&a->p, buf, buf_size);
    *out_buf = buf;
    if (!m) return buf_size;
    a->rng = a->rng * UINT64_C(6364136223846793005) + 1442695040888963407u;
    pcd_mut_reseed(m, a->rng);
    size_t cap = max_size < a->cap ? max_size : a->cap, len = 0;
    pcd_status st;
    if (add_buf && add_buf_size && (a->rng >> 33) % 8 == 0 && pcd_mut_load(m, buf, buf_size) == PCD_OK &&
        pcd_mut_crossover(m, add_buf, add_buf_size) == PCD_OK)
        st = pcd_mut_encode(m, a->out, cap, &len);
    else
        st = pcd_mut_fuzz(m, buf, buf_size, a->out, cap, &len);
    if (st != PCD_OK || !len) return buf_size;
    if (a->p.verbose) fprintf(stderr, "%s\n", pcd_mut_describe(m));
    a->last_hash = fnv(a->out, len);
    a->last_len = len;
    *out_buf = a->out;
    return len;
}

const char *afl_custom_describe(void *data, size_t max_description_len)
{
    afl_pcd *a = data;
    static char d[256];
    const char *s = a->p.m ? pcd_mut_describe(a->p.m) : "pcdmut";
    size_t n = 0;
    /* a file name: no slashes or spaces */
    for (; s[n] && n + 1 < sizeof d && n < max_description_len; n++)
        d[n] = s[n] == '/' || s[n] == ' ' ? '_' : s[n];
    d[n] = 0;
    return d;
}

size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf)
{
    afl_pcd *a = data;
    *out_buf = buf;
    pcd_mut *m = a->p.m;
    if (!m || (buf_size == a->last_len && fnv(buf, buf_size) == a->last_hash)) return buf_size;
    a->rng = a->rng * UINT64_C(6364136223846793005) + 1442695040888963407u;
    if ((a->rng >> 33) & 1) return buf_size;
    /* what decodes of it, written again whole */
    size_t len = 0;
    if (pcd_mut_load(m, buf, buf_size) != PCD_OK || pcd_mut_encode(m, a->out, a->cap, &len) != PCD_OK || !len)
        return buf_size;
    *out_buf = a->out;
    return len;
}

int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size)
{
    afl_pcd *a = data;
    pcd_mut *m = plugin_session(&a->p, buf, buf_size);
    a->trim_step = a->trim_steps = 0;
    if (!m || pcd_mut_load(m, buf, buf_size) != PCD_OK) return 0;
    uint32_t n = pcd_mut_shrink_steps(m);
    a->trim_steps = n > 1024 ? 1024 : n;   /* a bounded number of tries per entry */
    return (int32_t)a->trim_steps;
}

size_t afl_custom_trim(void *data, uint8_t **out_buf)
{
    afl_pcd *a = data;
    a->trim_len = 0;
    /* the next step that changes something */
    while (a->trim_step < a->trim_steps) {
        if (pcd_mut_shrink(a->p.m, a->trim_step, a->out, a->cap, &a->trim_len) == PCD_OK) break;
        a->trim_step++;
    }
    if (a->trim_step >= a->trim_steps && pcd_mut_encode(a->p.m, a->out, a->cap, &a->trim_len) != PCD_OK)
        a->trim_len = 0;   /* (past the last step: the input as it is) */
    *out_buf = a->out;
    return a->trim_len;
}

int32_t afl_custom_post_trim(void *data, unsigned char success)
{
    afl_pcd *a = data;
    if (success && a->trim_len) {
        /* the smaller input is the one trimmed from now on (the same step number names the
         * next record or value) */
        uint8_t *copy = malloc(a->trim_len);
        if (copy) {
            memcpy(copy, a->out, a->trim_len);
            if (pcd_mut_load(a->p.m, copy, a->trim_len) != PCD_OK) a->trim_steps = a->trim_step;
            free(copy);
        }
        uint32_t n = pcd_mut_shrink_steps(a->p.m);
        if (n < a->trim_steps) a->trim_steps = n;
    } else {
        a->trim_step++;
    }
    return (int32_t)a->trim_step;
}
