/* outputs/top.c: `profcodec top`: pprof's -top table from the model (issue 25).
 *
 * Per frame of the profile it is shown (grouped by function unless --granularity says
 * otherwise, filtered; model/transform.h): flat, the metric of the samples whose leaf it is, and
 * cum, of the samples whose stack holds it, counted once per stack however often it recurs (as
 * pprof's graph counts a node once per sample). Percentages are of the whole input's total
 * before filters (pprof's default, without -relative_percentages); sum% is the running sum of
 * flat. Values print as pprof's text does (measurement.ScaledLabel: time and memory units scaled
 * to the largest unit under the value, two decimals, ".00" dropped); --json gives exact
 * integers (docs/top.md's schema).
 *
 * Memory: the aggregate of distinct stacks (model/aggregate.h) and two sums per frame. */
#include "outputs/top.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "common/text.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "model/transform.h"

typedef struct top {
    pcd_job *j;
    pcd_sink *out;
    const pcd_top_opts *o;
    pcd_agg agg;
    bool agg_open;
} top;

static pcd_status t_begin(void *ud, pcd_profile *p)
{
    top *c = ud;
    PCD_TRY(pcd_out_metric(c->j, p, NULL));
    pcd_agg_init_types(&c->agg, c->j->al, p);
    c->agg_open = true;
    return PCD_OK;
}

static pcd_status t_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    top *c = ud;
    /* threads merged: a row is a function of the whole profile */
    return pcd_agg_add(&c->agg, 0, s->stack, s->values, s->count);
}

typedef struct row {
    pcd_frame_id f;
    int64_t flat, cum;             /* (amounts above 2^63-1 are held there) */
} row;

static int cmp_bytes(pcd_bytes a, pcd_bytes b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int r = n ? memcmp(a.ptr, b.ptr, n) : 0;
    return r ? r : (a.len > b.len) - (a.len < b.len);
}

static int64_t iabs(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

/* pprof's orders (graph.Sort's FlatNameOrder, CumNameOrder): flat (or cum) by magnitude, then
 * the name, then the other */
static int row_cmp(const pcd_profile *p, bool by_cum, const row *a, const row *b)
{
    int64_t a1 = by_cum ? a->cum : a->flat, b1 = by_cum ? b->cum : b->flat;
    int64_t a2 = by_cum ? a->flat : a->cum, b2 = by_cum ? b->flat : b->cum;
    if (iabs(a1) != iabs(b1)) return iabs(a1) > iabs(b1) ? -1 : 1;
    int r = cmp_bytes(pcd_profile_text(p, p->frames[a->f].function), pcd_profile_text(p, p->frames[b->f].function));
    if (r) return r;
    r = cmp_bytes(pcd_profile_text(p, p->frames[a->f].file), pcd_profile_text(p, p->frames[b->f].file));
    if (r) return r;
    if (iabs(a2) != iabs(b2)) return iabs(a2) > iabs(b2) ? -1 : 1;
    return (a->f > b->f) - (a->f < b->f);
}

/* A stable merge sort of n rows (tmp: room for n) by row_cmp (no global state for qsort). */
static void sort_rows(const pcd_profile *p, bool by_cum, row *r, row *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, k = mid, o = lo;
            while (i < mid && k < hi) tmp[o++] = row_cmp(p, by_cum, &r[k], &r[i]) < 0 ? r[k++] : r[i++];
            while (i < mid) tmp[o++] = r[i++];
            while (k < hi) tmp[o++] = r[k++];
        }
        memcpy(r, tmp, n * sizeof *r);
    }
}

static int64_t as_i64(const pcd_profile *p, int t, uint64_t v)
{
    if (p->types[t].is_signed) return (int64_t)v;
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int64_t add_i(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) r = b < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

/* pprof's measurement units: a unit's scale, by its name (lower case, a final "s" dropped). */
typedef struct unit { const char *name; double factor; } unit;
static const unit mem_units[] = { { "B", 1 }, { "kB", 1024.0 }, { "MB", 1048576.0 }, { "GB", 1073741824.0 },
                                  { "TB", 1099511627776.0 }, { "PB", 1125899906842624.0 } };
static const unit time_units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "hrs", 3600e9 } };

/* The factor of unit u in its kind (bytes, or nanoseconds) and the kind's table; false: neither */
static bool sniff_unit(pcd_bytes u, const unit **tab, size_t *n, double *factor)
{
    char s[32];
    size_t k = u.len < sizeof s - 1 ? u.len : sizeof s - 1;
    for (size_t i = 0; i < k; i++) s[i] = (char)(u.ptr[i] >= 'A' && u.ptr[i] <= 'Z' ? u.ptr[i] + 32 : u.ptr[i]);
    s[k] = 0;
    if (k > 2 && s[k - 1] == 's') s[--k] = 0;
    static const struct { const char *alias; int kind; double f; } al[] = {
        { "b", 0, 1 }, { "byte", 0, 1 }, { "kb", 0, 1024.0 }, { "kbyte", 0, 1024.0 }, { "kilobyte", 0, 1024.0 },
        { "mb", 0, 1048576.0 }, { "mbyte", 0, 1048576.0 }, { "megabyte", 0, 1048576.0 }, { "gb", 0, 1073741824.0 },
        { "gbyte", 0, 1073741824.0 }, { "gigabyte", 0, 1073741824.0 },
        { "ns", 1, 1 }, { "nanosecond", 1, 1 }, { "us", 1, 1e3 }, { "microsecond", 1, 1e3 }, { "ms", 1, 1e6 },
        { "millisecond", 1, 1e6 }, { "s", 1, 1e9 }, { "sec", 1, 1e9 }, { "second", 1, 1e9 }, { "hour", 1, 3600e9 },
        { "hr", 1, 3600e9 },
    };
    for (size_t i = 0; i < sizeof al / sizeof al[0]; i++)
        if (strcmp(s, al[i].alias) == 0) {
            *tab = al[i].kind ? time_units : mem_units;
            *n = al[i].kind ? sizeof time_units / sizeof time_units[0] : sizeof mem_units / sizeof mem_units[0];
            *factor = al[i].f;
            return true;
        }
    return false;
}

/* pprof's ScaledLabel(v, unit, "auto") */
static void scaled(char *buf, size_t cap, int64_t v, pcd_bytes unit_name)
{
    const unit *tab;
    size_t n;
    double f, x = (double)v;
    const char *u = "";
    if (sniff_unit(unit_name, &tab, &n, &f)) {
        double base = fabs(x) * f, best = 0;
        const char *bu = NULL;
        for (size_t i = 0; i < n; i++)
            if (tab[i].factor >= best && base / tab[i].factor >= 1.0) {
                best = tab[i].factor;
                bu = tab[i].name;
            }
        if (!bu) { best = tab == time_units ? 1e9 : 1; bu = tab == time_units ? "s" : "B"; }
        x = x * f / best;
        u = bu;
    }
    snprintf(buf, cap, "%.2f", x);
    size_t k = strlen(buf);
    if (k > 3 && strcmp(buf + k - 3, ".00") == 0) buf[k - 3] = 0;
    if (!strcmp(buf, "0") || !strcmp(buf, "-0")) {
        snprintf(buf, cap, "0");
        return;
    }
    k = strlen(buf);
    snprintf(buf + k, cap - k, "%s", u);
}

/* pprof's Percentage */
static void percent(char *buf, size_t cap, int64_t v, int64_t total)
{
    double r = total ? fabs((double)v / (double)total) * 100 : 0;
    if (r >= 99.95 && r <= 100.05) snprintf(buf, cap, "  100%%");
    else if (r >= 1.0) snprintf(buf, cap, "%5.2f%%", r);
    else snprintf(buf, cap, "%5.2g%%", r);
}

static pcd_status put_name(pcd_sink *o, const pcd_profile *p, const pcd_frame *f)
{
    pcd_bytes n = pcd_profile_text(p, f->function);
    if (!n.len) {
        /* a frame without a name: what tells it apart */
        if (f->address) return pcd_text_printf(o, "0x%" PRIx64, f->address);
        pcd_bytes fl = pcd_profile_text(p, f->file);
        if (fl.len) return pcd_sink_put(o, fl.ptr, fl.len);
        return pcd_sink_put(o, "<unknown>", 9);
    }
    return pcd_sink_put(o, n.ptr, n.len);
}

static pcd_status t_end(void *ud, pcd_profile *p)
{
    top *c = ud;
    pcd_alloc *al = c->j->al;
    int t;
    PCD_TRY(pcd_out_metric(c->j, p, &t));
    const pcd_agg *a = &c->agg;
    size_t nf = p->n_frames;
    int64_t *flat = NULL, *cum = NULL;
    uint32_t *stamp = NULL;
    row *rows = NULL;
    size_t fcap = 0, ccap = 0, scap = 0, rcap = 0, nrows = 0;
    pcd_status st = PCD_OK;
#define TRY(x) do { if ((st = (x)) != PCD_OK) goto done; } while (0)
    TRY(PCD_VEC_RESERVE(al, flat, fcap, nf + 1));
    TRY(PCD_VEC_RESERVE(al, cum, ccap, nf + 1));
    TRY(PCD_VEC_RESERVE(al, stamp, scap, nf + 1));
    memset(flat, 0, (nf + 1) * sizeof *flat);
    memset(cum, 0, (nf + 1) * sizeof *cum);
    memset(stamp, 0, (nf + 1) * sizeof *stamp);
    int64_t shown = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t v = as_i64(p, t, pcd_agg_value(a, i, t));
        if (!v) continue;
        shown = add_i(shown, v);
        pcd_stack_id s = a->e[i].stack;
        if (s == PCD_STACK_EMPTY) continue;
        pcd_frame_id leaf = pcd_stack_frame(p, s);
        flat[leaf] = add_i(flat[leaf], v);
        for (; s != PCD_STACK_EMPTY; s = pcd_stack_parent(p, s)) {
            pcd_frame_id f = pcd_stack_frame(p, s);
            if (stamp[f] == i + 1) continue; /* recursion: once per stack */
            stamp[f] = (uint32_t)i + 1;
            cum[f] = add_i(cum[f], v);
        }
    }
    for (size_t f = 0; f < nf; f++) {
        if (!flat[f] && !cum[f]) continue;
        TRY(PCD_VEC_RESERVE(al, rows, rcap, nrows + 1));
        rows[nrows++] = (row){ (pcd_frame_id)f, flat[f], cum[f] };
    }
    if (nrows > 1) {
        TRY(PCD_VEC_RESERVE(al, rows, rcap, 2 * nrows));
        sort_rows(p, c->o->cum, rows, rows + nrows, nrows);
    }
    /* the whole input's total (before filters), as pprof's percentages */
    int64_t total = shown;
    if (c->j->transform && !pcd_transform_passthrough(c->j->transform))
        total = as_i64(p, t, pcd_transform_totals_in(c->j->transform)[t]);
    size_t limit = c->o->n && c->o->n < nrows ? c->o->n : nrows;
    pcd_bytes mname = pcd_profile_text(p, p->types[t].name), unit = pcd_profile_text(p, p->types[t].unit);
    pcd_sink *out = c->out;
    if (c->o->json) {
        TRY(pcd_sink_put(out, "{\"metric\":", 10));
        TRY(pcd_text_json(out, mname.ptr, mname.len));
        TRY(pcd_sink_put(out, ",\"unit\":", 8));
        TRY(pcd_text_json(out, unit.ptr, unit.len));
        TRY(pcd_sink_put(out, ",\"granularity\":", 15));
        const char *g = c->j->transform && !pcd_transform_passthrough(c->j->transform)
                            ? pcd_granularity_names[pcd_granularity_for(c->j->filters, true)]
                            : "address";
        TRY(pcd_text_json(out, (const uint8_t *)g, strlen(g)));
        TRY(pcd_sink_put(out, ",\"total\":", 9));
        TRY(pcd_text_json_int(out, total));
        TRY(pcd_sink_put(out, ",\"shown\":", 9));
        TRY(pcd_text_json_int(out, shown));
        TRY(pcd_text_printf(out, ",\"sort\":\"%s\",\"functions\":%zu,\"rows\":[", c->o->cum ? "cum" : "flat", nrows));
        for (size_t i = 0; i < limit; i++) {
            const pcd_frame *f = &p->frames[rows[i].f];
            pcd_bytes fn = pcd_profile_text(p, f->function), fl = pcd_profile_text(p, f->file);
            TRY(pcd_text_printf(out, "%s\n{\"name\":", i ? "," : ""));
            TRY(pcd_text_json(out, fn.ptr, fn.len));
            TRY(pcd_sink_put(out, ",\"file\":", 8));
            TRY(pcd_text_json(out, fl.ptr, fl.len));
            if (f->line != PCD_POS_NONE) TRY(pcd_text_printf(out, ",\"line\":%" PRId64, f->line));
            if (f->address) TRY(pcd_text_printf(out, ",\"address\":%" PRIu64, f->address));
            TRY(pcd_sink_put(out, ",\"flat\":", 8));
            TRY(pcd_text_json_int(out, rows[i].flat));
            TRY(pcd_sink_put(out, ",\"cum\":", 7));
            TRY(pcd_text_json_int(out, rows[i].cum));
            TRY(pcd_sink_put(out, "}", 1));
        }
        TRY(pcd_sink_put(out, "]}\n", 3));
    } else {
        char b1[64], b2[64], b3[64], b4[64], b5[64];
        int64_t in_rows = 0;
        for (size_t i = 0; i < limit; i++) in_rows = add_i(in_rows, rows[i].flat);
        scaled(b1, sizeof b1, in_rows, unit);
        scaled(b2, sizeof b2, total, unit);
        percent(b3, sizeof b3, in_rows, total);
        TRY(pcd_text_printf(out, "Type: %.*s\n", (int)mname.len, (const char *)mname.ptr));
        TRY(pcd_text_printf(out, "Showing nodes accounting for %s, %s of %s total\n", b1, b3[0] == ' ' ? b3 + 2 : b3, b2));
        if (limit < nrows) TRY(pcd_text_printf(out, "Showing top %zu nodes out of %zu\n", limit, nrows));
        TRY(pcd_text_printf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum"));
        int64_t sum = 0;
        for (size_t i = 0; i < limit; i++) {
            sum = add_i(sum, rows[i].flat);
            scaled(b1, sizeof b1, rows[i].flat, unit);
            percent(b2, sizeof b2, rows[i].flat, total);
            percent(b3, sizeof b3, sum, total);
            scaled(b4, sizeof b4, rows[i].cum, unit);
            percent(b5, sizeof b5, rows[i].cum, total);
            TRY(pcd_text_printf(out, "%10s %s %s %10s %s  ", b1, b2, b3, b4, b5));
            TRY(put_name(out, p, &p->frames[rows[i].f]));
            TRY(pcd_sink_put(out, "\n", 1));
        }
    }
done:
#undef TRY
    PCD_VEC_FREE(al, flat, fcap);
    PCD_VEC_FREE(al, cum, ccap);
    PCD_VEC_FREE(al, stamp, scap);
    PCD_VEC_FREE(al, rows, rcap);
    return st;
}

static pcd_status t_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cons)
{
    top *c = state;
    c->j = j;
    c->out = out;
    c->o = j->output_opts;
    if (!c->o) return pcd_job_fail(j, PCD_E_INTERNAL, "top: no options");
    cons->ud = c;
    cons->begin = t_begin;
    cons->sample = t_sample;
    cons->end = t_end;
    return PCD_OK;
}

static void t_close(void *state)
{
    top *c = state;
    if (c->agg_open) pcd_agg_free(&c->agg);
}

const pcd_exporter pcd_out_top = {
    "top", "pprof's -top table: flat, flat %, sum %, cum, cum % per function (profcodec top)",
    PCD_HAS_SAMPLES, 0, sizeof(top), t_open, t_close, NULL, PCD_WANTS_GROUPED,
};
