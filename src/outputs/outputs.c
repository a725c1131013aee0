/* outputs/outputs.c: what the outputs share (their list is pipeline/pipeline.c's). */
#include "outputs/outputs.h"

#include <strings.h>

#include "common/text.h"

pcd_status pcd_out_metric(pcd_job *j, const pcd_profile *p, int *type)
{
    int t = p->default_type;
    if (j->metric) {
        t = pcd_profile_find_metric(p, j->metric);
        if (t < 0) {
            char names[256];
            size_t n = 0;
            names[0] = 0;
            for (size_t i = 0; i < p->n_types && n < sizeof names; i++) {
                pcd_bytes b = pcd_profile_text(p, p->types[i].name);
                pcd_bytes title = pcd_profile_text(p, p->types[i].title);
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s", i ? ", " : "", (int)b.len, (const char *)b.ptr);
                /* the title, where it says more than the name ("time (CPU time)"; not "samples (Samples)") */
                if (title.len && n < sizeof names && !(title.len == b.len && strncasecmp((const char *)title.ptr, (const char *)b.ptr, b.len) == 0))
                    n += (size_t)snprintf(names + n, sizeof names - n, " (%.*s)", (int)title.len, (const char *)title.ptr);
            }
            return pcd_job_fail(j, PCD_E_ARG, "--metric takes %s for this input, not '%s'", n ? names : "nothing",
                                j->metric);
        }
    }
    /* no sample type at all (a profile with no samples, or damage before them): nothing to show,
     * as check_shown says it at the end (exit 1), not a usage error */
    if (t < 0 || (size_t)t >= p->n_types)
        return pcd_job_fail(j, PCD_E_EMPTY, j->damaged ? "nothing to convert before the damage (no sample values before it)"
                                                       : "nothing to show: the input has no sample values");
    if (type) *type = t;
    return PCD_OK;
}

int64_t pcd_out_unit_ns(const pcd_profile *p, int type)
{
    if (type < 0 || (size_t)type >= p->n_types) return 0;
    pcd_bytes u = pcd_profile_text(p, p->types[type].unit);
    return pcd_bytes_is(u, "nanoseconds") ? 1 : pcd_bytes_is(u, "microseconds") ? 1000
         : pcd_bytes_is(u, "milliseconds") ? 1000000 : pcd_bytes_is(u, "seconds") ? 1000000000 : 0;
}

/* v units of k ns each, in microseconds (held at 2^64-1). */
static uint64_t to_us(uint64_t v, int64_t k)
{
    if (k < 1000) return v / (uint64_t)(1000 / k);
    uint64_t r;
    return __builtin_mul_overflow(v, (uint64_t)(k / 1000), &r) ? UINT64_MAX : r;
}

uint64_t pcd_out_period_us(const pcd_profile *p)
{
    int64_t k = pcd_out_unit_ns(p, p->period_type);
    return p->period > 0 && k ? to_us((uint64_t)p->period, k) : 0;
}

void pcd_out_pace_init(pcd_out_pace *c, const pcd_profile *p)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < p->n_types && i < PCD_MAX_SAMPLE_TYPES; i++) c->unit_ns[i] = pcd_out_unit_ns(p, (int)i);
    c->type = pcd_profile_find_type(p, "time");
    if (c->type >= 0 && c->unit_ns[c->type]) return;
    c->type = -1;
    for (size_t i = 0; i < p->n_types && i < PCD_MAX_SAMPLE_TYPES && c->type < 0; i++)
        if (c->unit_ns[i]) c->type = (int)i;
}

bool pcd_out_pace_us(const pcd_out_pace *c, const pcd_profile *p, const pcd_sample *s, uint64_t *us)
{
    if (c->type >= 0 && (s->flags & PCD_SAMPLE_HAS(c->type))) {
        *us = to_us(s->values[c->type], c->unit_ns[c->type]);
        return true;
    }
    int d = p->default_type;
    if (d < 0 || d >= PCD_MAX_SAMPLE_TYPES || !c->unit_ns[d]) {
        int k = p->period_type;
        *us = p->period > 0 && k >= 0 && k < PCD_MAX_SAMPLE_TYPES && c->unit_ns[k] ? to_us((uint64_t)p->period, c->unit_ns[k]) : 0;
        return true;
    }
    *us = 0;
    return false;
}
