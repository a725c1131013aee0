/* formats/registry.c: the registry of per-format extensions and shared helpers. */
#include "formats/registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const pcd_ext pcd_heph_ext;
extern const pcd_ext pcd_moarvm_ext;
extern const pcd_ext pcd_mojo_ext;
extern const pcd_ext pcd_mono_ext;
extern const pcd_ext pcd_tachyon_ext;

const pcd_ext *const pcd_exts[] = {
    &pcd_heph_ext,
    &pcd_moarvm_ext,
    &pcd_mojo_ext,
    &pcd_mono_ext,
    &pcd_tachyon_ext,
    NULL,
};

const pcd_ext *pcd_ext_find(const char *format)
{
    for (size_t i = 0; pcd_exts[i]; i++)
        if (strcmp(pcd_exts[i]->format, format) == 0) return pcd_exts[i];
    return NULL;
}

static pcd_report_hook report_hook;
static void *report_hook_ud;

void pcd_report_set_hook(pcd_report_hook fn, void *ud)
{
    report_hook = fn;
    report_hook_ud = ud;
}

void pcd_report(FILE *err, const char *file, const pcd_error *e)
{
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    fprintf(err, "%s: %s\n", file, msg);
    if (report_hook) report_hook(err, file, e, report_hook_ud);
}

size_t pcd_fmt_rust_f64(char *buf, size_t cap, double v)
{
    if (isnan(v)) return (size_t)snprintf(buf, cap, "NaN");
    if (isinf(v)) return (size_t)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    if (v == 0) return (size_t)snprintf(buf, cap, signbit(v) ? "-0" : "0");
    /* shortest digits that read back exactly */
    char e[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e = [-]d.ddddde[+-]xx */
    char digits[24];
    int nd = 0;
    const char *p = e;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    char out[400];
    size_t n = 0;
    if (neg) out[n++] = '-';
    int point = exp + 1; /* digits before the decimal point */
    if (point <= 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -point; i++) out[n++] = '0';
        for (int i = 0; i < nd; i++) out[n++] = digits[i];
    } else if (point >= nd) {
        for (int i = 0; i < nd; i++) out[n++] = digits[i];
        for (int i = nd; i < point; i++) out[n++] = '0';
    } else {
        for (int i = 0; i < point; i++) out[n++] = digits[i];
        out[n++] = '.';
        for (int i = point; i < nd; i++) out[n++] = digits[i];
    }
    out[n] = 0;
    return (size_t)snprintf(buf, cap, "%s", out);
}
