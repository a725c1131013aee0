/* outputs/outputs.c: the list of outputs, and what they share. */
#include "outputs/outputs.h"

#include "common/text.h"

/* In the order `profcodec formats` lists them. */
const pcd_exporter *const pcd_exporters[] = {
    &pcd_out_austin, &pcd_out_collapsed, &pcd_out_speedscope, &pcd_out_chrome, &pcd_out_html, &pcd_out_svg, &pcd_out_pprof, NULL,
};

pcd_status pcd_out_metric(pcd_job *j, const pcd_profile *p, int *type)
{
    int t = p->default_type;
    if (j->metric) {
        t = pcd_profile_find_type(p, j->metric);
        if (t < 0) {
            char names[256];
            size_t n = 0;
            names[0] = 0;
            for (size_t i = 0; i < p->n_types && n < sizeof names; i++) {
                pcd_bytes b = pcd_profile_text(p, p->types[i].name);
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s", i ? ", " : "", (int)b.len, (const char *)b.ptr);
            }
            return pcd_job_fail(j, PCD_E_ARG, "--metric takes %s for this input, not '%s'", n ? names : "nothing",
                                j->metric);
        }
    }
    if (t < 0 || (size_t)t >= p->n_types) return pcd_job_fail(j, PCD_E_ARG, "this input has no sample values");
    if (type) *type = t;
    return PCD_OK;
}
