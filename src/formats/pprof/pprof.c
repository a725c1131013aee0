/* formats/pprof/pprof.c: pprof above the bytes: the info summary and the registration (the
 * checks are in check.c, the importer into the profile model in import.c; every output,
 * pprof included, is written from the model by src/outputs). */
#include <inttypes.h>
#include <stdlib.h>

#include "common/text.h"
#include "formats/pprof/pprof.h"

/* ---- info ------------------------------------------------------------------- */

#define INFO_STRINGS 32       /* strings the summary names (sample types, period type...) */
#define INFO_STRING_MAX 200   /* bytes kept of each */

typedef struct pinfo {
    uint64_t samples, locations, functions, mappings, strings, lines, labels, unknown;
    bool has_time, has_duration, has_period;
    int64_t time, duration, period;
    /* string indexes the summary prints, and their texts once the string table has them */
    struct { int64_t type, unit; } types[INFO_STRINGS / 2], period_type;
    size_t n_types;
    bool has_period_type, has_default;
    int64_t default_type;
    int64_t totals[INFO_STRINGS / 2];   /* sum of each sample type's values (saturating) */
    struct { int64_t index; char text[INFO_STRING_MAX + 1]; bool found; } want[INFO_STRINGS];
    size_t n_want;
} pinfo;

static void i_init(void *ctx, pcd_alloc *al)
{
    (void)al;
    memset(ctx, 0, sizeof(pinfo));
}

static void want(pinfo *in, int64_t index)
{
    for (size_t i = 0; i < in->n_want; i++)
        if (in->want[i].index == index) return;
    if (in->n_want < INFO_STRINGS) in->want[in->n_want++].index = index;
}

static const char *text_of(const pinfo *in, int64_t index)
{
    for (size_t i = 0; i < in->n_want; i++)
        if (in->want[i].index == index && in->want[i].found) return in->want[i].text;
    return "?";
}

static void i_record(void *ctx, const pcd_record *rec)
{
    pinfo *in = ctx;
    if (!rec->data || rec->type != &pcd_pprof_v1_profile_field_type) return;
    const pcd_pprof_v1_profile_field *r = rec->data;
    switch (r->which) {
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE:
        if (in->n_types < PCD_COUNTOF(in->types)) {
            in->types[in->n_types].type = r->u.sample_type.type;
            in->types[in->n_types].unit = r->u.sample_type.unit;
            want(in, r->u.sample_type.type);
            want(in, r->u.sample_type.unit);
            in->n_types++;
        }
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE: {
        const pcd_pprof_v1_sample *s = &r->u.sample;
        in->samples++;
        in->labels += s->n_label;
        for (size_t i = 0; i < s->n_value && i < PCD_COUNTOF(in->totals); i++) {
            int64_t v = s->value[i];
            if (v > 0 && in->totals[i] > INT64_MAX - v) in->totals[i] = INT64_MAX;
            else if (v < 0 && in->totals[i] < INT64_MIN - v) in->totals[i] = INT64_MIN;
            else in->totals[i] += v;
        }
        break;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_LOCATION:
        in->locations++;
        in->lines += r->u.location.n_line;
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_FUNCTION: in->functions++; break;
    case PCD_PPROF_V1_PROFILE_FIELD_MAPPING: in->mappings++; break;
    case PCD_PPROF_V1_PROFILE_FIELD_STRING_TABLE:
        for (size_t i = 0; i < in->n_want; i++) {
            if (in->want[i].index != (int64_t)in->strings) continue;
            size_t n = r->u.string_table.len < INFO_STRING_MAX ? r->u.string_table.len : INFO_STRING_MAX;
            memcpy(in->want[i].text, r->u.string_table.ptr, n);
            in->want[i].text[n] = 0;
            in->want[i].found = true;
        }
        in->strings++;
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_TIME_NANOS: in->has_time = true; in->time = r->u.time_nanos; break;
    case PCD_PPROF_V1_PROFILE_FIELD_DURATION_NANOS: in->has_duration = true; in->duration = r->u.duration_nanos; break;
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD: in->has_period = true; in->period = r->u.period; break;
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD_TYPE:
        in->has_period_type = true;
        in->period_type.type = r->u.period_type.type;
        in->period_type.unit = r->u.period_type.unit;
        want(in, in->period_type.type);
        want(in, in->period_type.unit);
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_DEFAULT_SAMPLE_TYPE:
        in->has_default = true;
        in->default_type = r->u.default_sample_type;
        want(in, in->default_type);
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_UNKNOWN_: in->unknown++; break;
    default: break;
    }
}

static void i_text(void *ctx, FILE *out)
{
    pinfo *in = ctx;
    char utc[64];
    if (in->has_time && in->time >= 0) {
        pcd_text_utc_ns(utc, sizeof utc, (uint64_t)in->time);
        fprintf(out, "time:         %s (%" PRId64 " ns since the Unix epoch)\n", utc, in->time);
    }
    if (in->has_duration) fprintf(out, "duration:     %.6f s\n", (double)in->duration / 1e9);
    if (in->has_period || in->has_period_type) {
        fprintf(out, "period:       %" PRId64, in->period);
        if (in->has_period_type)
            fprintf(out, " %s/%s", text_of(in, in->period_type.type), text_of(in, in->period_type.unit));
        fprintf(out, "\n");
    }
    fprintf(out, "sample types: ");
    for (size_t i = 0; i < in->n_types; i++)
        fprintf(out, "%s%s/%s", i ? ", " : "", text_of(in, in->types[i].type), text_of(in, in->types[i].unit));
    if (in->has_default) fprintf(out, " (default %s)", text_of(in, in->default_type));
    fprintf(out, "%s\n", in->n_types ? "" : "none");
    fprintf(out, "samples:      %" PRIu64 " (%" PRIu64 " labels)\n", in->samples, in->labels);
    if (in->n_types) {
        fprintf(out, "totals:       ");
        for (size_t i = 0; i < in->n_types && i < PCD_COUNTOF(in->totals); i++)
            fprintf(out, "%s%" PRId64 " %s", i ? ", " : "", in->totals[i], text_of(in, in->types[i].unit));
        fprintf(out, "\n");
    }
    fprintf(out, "locations:    %" PRIu64 " (%" PRIu64 " lines)\n", in->locations, in->lines);
    fprintf(out, "functions:    %" PRIu64 "\n", in->functions);
    fprintf(out, "mappings:     %" PRIu64 "\n", in->mappings);
    fprintf(out, "strings:      %" PRIu64 "\n", in->strings);
    if (in->unknown) fprintf(out, "unknown:      %" PRIu64 " fields of Profile this schema does not name\n", in->unknown);
}

static pcd_status put_str(pcd_sink *s, const char *z) { return pcd_json_string(s, (const uint8_t *)z, strlen(z)); }

static pcd_status i_json(void *ctx, pcd_sink *s)
{
    pinfo *in = ctx;
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "\"samples\":%" PRIu64 ",\"labels\":%" PRIu64 ",\"locations\":%" PRIu64 ",\"lines\":%" PRIu64
                     ",\"functions\":%" PRIu64 ",\"mappings\":%" PRIu64 ",\"strings\":%" PRIu64 ",\"unknown_fields\":%" PRIu64,
                     in->samples, in->labels, in->locations, in->lines, in->functions, in->mappings, in->strings, in->unknown);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(pcd_json_raw(s, ",\"time_nanos\":"));
    PCD_TRY(in->has_time ? pcd_json_i64(s, in->time) : pcd_json_raw(s, "null"));
    PCD_TRY(pcd_json_raw(s, ",\"duration_nanos\":"));
    PCD_TRY(in->has_duration ? pcd_json_i64(s, in->duration) : pcd_json_raw(s, "null"));
    PCD_TRY(pcd_json_raw(s, ",\"period\":"));
    PCD_TRY(in->has_period ? pcd_json_i64(s, in->period) : pcd_json_raw(s, "null"));
    PCD_TRY(pcd_json_raw(s, ",\"sample_types\":["));
    for (size_t i = 0; i < in->n_types; i++) {
        PCD_TRY(pcd_json_raw(s, i ? ",{\"type\":" : "{\"type\":"));
        PCD_TRY(put_str(s, text_of(in, in->types[i].type)));
        PCD_TRY(pcd_json_raw(s, ",\"unit\":"));
        PCD_TRY(put_str(s, text_of(in, in->types[i].unit)));
        PCD_TRY(pcd_json_raw(s, ",\"total\":"));
        PCD_TRY(pcd_json_i64(s, i < PCD_COUNTOF(in->totals) ? in->totals[i] : 0));
        PCD_TRY(pcd_json_raw(s, "}"));
    }
    PCD_TRY(pcd_json_raw(s, "],\"default_sample_type\":"));
    return in->has_default ? put_str(s, text_of(in, in->default_type)) : pcd_json_raw(s, "null");
}

static void i_fini(void *ctx) { (void)ctx; }

static const pcd_info_ops pprof_info_ops = { sizeof(pinfo), i_init, i_record, i_text, i_json, i_fini, NULL };

const pcd_ext pcd_pprof_ext = { "pprof", &pprof_info_ops, &pcd_pprof_check_ops, NULL, 0, &pcd_pprof_model, NULL, 0 };
