/* formats/tachyon/tachyon.c: Tachyon (CPython sampling profiles) above the bytes: the info summary, the
 * checks CPython's reader makes beyond the bytes (errors) and the ones it misses
 * (warnings), and the registration of the converters (tachyon_convert.c) and importer. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/registry.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"
#include "formats/xformat/xformat.h"

/* ---- shared -------------------------------------------------------------------------- */

size_t tach_config_text(char *buf, size_t cap, uint32_t config)
{
    int mode = tach_config_mode(config), feat = tach_config_features(config);
    size_t n = (size_t)snprintf(buf, cap, "%s", mode < 0 ? "unknown" : tach_mode_names[mode]);
    if (feat < 0) {
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", capture features not recorded");
    } else {
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", features:");
        bool any = false;
        for (int i = 0; i < 5; i++) {
            if (!(feat & (1 << i))) continue;
            n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, " %s", tach_feature_names[i]);
            any = true;
        }
        if (!any) n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, " none");
    }
    return n;
}

/* ---- info ------------------------------------------------------------------------------ */

typedef struct tach_info {
    pcd_alloc *al;
    bool have_root, replaying, replay_failed;
    tach_file root;
    bool big;
    uint64_t input_size;
    uint64_t samples_bytes;          /* decompressed size of the sample records */
    tach_replay rp;
    pcd_error replay_err;
    char replay_msg[1024];
    uint64_t strings, frames, string_bytes;
    bool have_stats;
    pcd_tachyon_v1_stats stats;
} tach_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    tach_info *t = ctx;
    memset(t, 0, sizeof *t);
    t->al = al;
}

static void info_record(void *ctx, const pcd_record *rec)
{
    tach_info *t = ctx;
    const tach_file *root = tach_as_root(rec);
    if (root) {
        t->root = *root;
        t->have_root = true;
        t->big = rec->big;
        t->input_size = rec->input_size;
        t->replaying = tach_replay_init(&t->rp, root, t->al, false, false) == PCD_OK;
        return;
    }
    const tach_sample *s = tach_as_sample(rec);
    if (s) {
        t->samples_bytes = rec->offset + rec->size - (rec->decompressed ? 0 : 64);
        if (t->replaying && tach_replay_record(&t->rp, s, rec) != PCD_OK) {
            t->replaying = false;
            t->replay_failed = true;
            pcd_error_format(&t->rp.err, t->replay_msg, sizeof t->replay_msg);
        }
        return;
    }
    if (rec->type == &pcd_tachyon_v1_string_type && rec->data) {
        t->strings++;
        t->string_bytes += ((const pcd_tachyon_v1_string *)rec->data)->value.len;
    } else if (rec->type == &pcd_tachyon_v1_frame_type) {
        t->frames++;
    } else if (rec->type == &pcd_tachyon_v1_stats_type && rec->data) {
        t->stats = *(const pcd_tachyon_v1_stats *)rec->data;
        t->have_stats = true;
    }
}

static void fmt_f(char *buf, size_t cap, double v) { tach_py_float_repr(buf, cap, v); }

static void info_text(void *ctx, FILE *out)
{
    tach_info *t = ctx;
    if (!t->have_root) return;
    const tach_file *h = &t->root;
    char cfg[160];
    tach_config_text(cfg, sizeof cfg, h->config);
    fprintf(out, "header:      format version %u, written by Python %u.%u.%u, %s-endian\n", h->version,
            h->python_version.major, h->python_version.minor, h->python_version.micro, t->big ? "big" : "little");
    fprintf(out, "config:      0x%x: mode %s\n", h->config, cfg);
    fprintf(out, "interval:    %" PRIu64 " us", h->sample_interval_us);
    if (h->sample_interval_us) fprintf(out, " (%.6g Hz)", 1e6 / (double)h->sample_interval_us);
    fprintf(out, "\nstart time:  %" PRIu64 " us (time.monotonic)\n", h->start_time_us);
    fprintf(out, "compression: %s", h->compression == 1 ? "zstd" : h->compression == 0 ? "none" : "none (unknown value)");
    if (h->compression == 1)
        fprintf(out, ", %" PRIu64 " bytes of samples from %" PRIu64 " compressed", t->samples_bytes,
                h->string_table_offset - 64);
    fprintf(out, "\n");
    const tach_replay *rp = &t->rp;
    fprintf(out, "samples:     %" PRIu64 " (header: %" PRIu64 ") in %" PRIu64 " records: full %" PRIu64 ", suffix %" PRIu64
            ", pop_push %" PRIu64 ", repeat %" PRIu64 " (%" PRIu64 " samples)\n",
            rp->total_samples, h->sample_count, rp->total_records, rp->records[1], rp->records[2], rp->records[3],
            rp->records[0], rp->repeat_samples);
    fprintf(out, "threads:     %u (header: %u)", rp->n_threads, h->thread_count);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < rp->n_threads; i++) {
        const tach_thread *th = rp->threads[i];
        if (i < 16) {
            fprintf(out, "%s%" PRIu64 " (", i ? ", " : ": ", th->tid);
            if (th->interp) fprintf(out, "interpreter %u, ", th->interp);
            fprintf(out, "%" PRIu64 " samples)", th->samples);
        } else if (i == 16) {
            fprintf(out, ", ...");
        }
        if (th->samples) {
            if (th->first_ts < lo) lo = th->first_ts;
            if (th->last_ts > hi) hi = th->last_ts;
        }
    }
    fprintf(out, "\n");
    if (lo <= hi)
        fprintf(out, "time span:   %" PRIu64 " .. %" PRIu64 " us (%.6f s)\n", lo, hi, (double)(hi - lo) / 1e6);
    fprintf(out, "tables:      %" PRIu64 " strings (%" PRIu64 " bytes), %" PRIu64 " frames\n", t->strings, t->string_bytes,
            t->frames);
    if (t->have_stats) {
        char a[40], b[40], c[40], d[40];
        fmt_f(a, sizeof a, t->stats.duration_sec);
        fmt_f(b, sizeof b, t->stats.sample_rate);
        fprintf(out, "statistics:  version %u, %u bytes: duration %s s, sample rate %s Hz", h->stats_version, h->stats_size,
                a, b);
        if (t->stats.has_present) {
            fmt_f(c, sizeof c, t->stats.error_rate);
            fmt_f(d, sizeof d, t->stats.missed_samples);
            fprintf(out, ", error rate %s%%%s, missed samples %s%%%s", c, (t->stats.present & 1) ? "" : " (not recorded)",
                    d, (t->stats.present & 2) ? "" : " (not recorded)");
        }
        fprintf(out, "\n");
    } else {
        fprintf(out, "statistics:  none\n");
    }
    fprintf(out, "footer:      file_size %" PRIu64 "%s, checksum %s\n", h->file_size,
            t->input_size && h->file_size != t->input_size ? " (not the file's size)" : "",
            h->checksum.len == 16 && memcmp(h->checksum.ptr, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16) == 0 ? "zero"
                                                                                                  : "not zero");
    if (t->replay_failed) fprintf(out, "replay:      stopped: %s\n", t->replay_msg);
}

static pcd_status put_f(pcd_sink *s, const char *key, double v)
{
    char buf[96];
    int n = snprintf(buf, sizeof buf, ",\"%s\":", key);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    return pcd_json_f64(s, v);
}

static pcd_status info_json(void *ctx, pcd_sink *s)
{
    tach_info *t = ctx;
    if (!t->have_root) return pcd_json_raw(s, "\"header\":null");
    const tach_file *h = &t->root;
    const tach_replay *rp = &t->rp;
    char buf[512];
    int mode = tach_config_mode(h->config), feat = tach_config_features(h->config);
    int n = snprintf(buf, sizeof buf,
                     "\"byte_order\":\"%s\",\"python_version\":\"%u.%u.%u\",\"config\":%u,\"mode\":%s%s%s,"
                     "\"capture_features\":",
                     t->big ? "big" : "little", h->python_version.major, h->python_version.minor,
                     h->python_version.micro, h->config, mode < 0 ? "" : "\"", mode < 0 ? "null" : tach_mode_names[mode],
                     mode < 0 ? "" : "\"");
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (feat < 0) {
        PCD_TRY(pcd_json_raw(s, "null"));
    } else {
        PCD_TRY(pcd_json_raw(s, "{"));
        for (int i = 0; i < 5; i++) {
            n = snprintf(buf, sizeof buf, "%s\"%s\":%s", i ? "," : "", tach_feature_names[i],
                         (feat & (1 << i)) ? "true" : "false");
            PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        }
        PCD_TRY(pcd_json_raw(s, "}"));
    }
    n = snprintf(buf, sizeof buf,
                 ",\"sample_interval_us\":%" PRIu64 ",\"start_time_us\":%" PRIu64 ",\"compression\":\"%s\""
                 ",\"samples\":%" PRIu64 ",\"header_samples\":%" PRIu64 ",\"threads\":%u,\"header_threads\":%u"
                 ",\"records\":{\"full\":%" PRIu64 ",\"suffix\":%" PRIu64 ",\"pop_push\":%" PRIu64 ",\"repeat\":%" PRIu64
                 ",\"repeat_samples\":%" PRIu64 "},\"strings\":%" PRIu64 ",\"frames\":%" PRIu64,
                 h->sample_interval_us, h->start_time_us, h->compression == 1 ? "zstd" : "none", rp->total_samples,
                 h->sample_count, rp->n_threads, h->thread_count, rp->records[1], rp->records[2], rp->records[3],
                 rp->records[0], rp->repeat_samples, t->strings, t->frames);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(pcd_json_raw(s, ",\"thread_list\":["));
    for (uint32_t i = 0; i < rp->n_threads; i++) {
        const tach_thread *th = rp->threads[i];
        n = snprintf(buf, sizeof buf, "%s{\"thread_id\":%" PRIu64 ",\"interpreter_id\":%u,\"samples\":%" PRIu64,
                     i ? "," : "", th->tid, th->interp, th->samples);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        if (th->samples) {
            n = snprintf(buf, sizeof buf, ",\"first_us\":%" PRIu64 ",\"last_us\":%" PRIu64, th->first_ts, th->last_ts);
            PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        }
        PCD_TRY(pcd_json_raw(s, "}"));
    }
    PCD_TRY(pcd_json_raw(s, "],\"statistics\":"));
    if (t->have_stats) {
        n = snprintf(buf, sizeof buf, "{\"version\":%u,\"size\":%u", h->stats_version, h->stats_size);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        PCD_TRY(put_f(s, "duration_sec", t->stats.duration_sec));
        PCD_TRY(put_f(s, "sample_rate", t->stats.sample_rate));
        if (t->stats.has_present && (t->stats.present & 1)) PCD_TRY(put_f(s, "error_rate", t->stats.error_rate));
        if (t->stats.has_present && (t->stats.present & 2)) PCD_TRY(put_f(s, "missed_samples", t->stats.missed_samples));
        PCD_TRY(pcd_json_raw(s, "}"));
    } else {
        PCD_TRY(pcd_json_raw(s, "null"));
    }
    n = snprintf(buf, sizeof buf, ",\"footer_file_size\":%" PRIu64, h->file_size);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (t->replay_failed) {
        PCD_TRY(pcd_json_raw(s, ",\"replay_error\":"));
        PCD_TRY(pcd_json_string(s, (const uint8_t *)t->replay_msg, strlen(t->replay_msg)));
    }
    return PCD_OK;
}

static void info_fini(void *ctx)
{
    tach_info *t = ctx;
    tach_replay_free(&t->rp);
}

static const pcd_info_ops tach_info_ops = {
    sizeof(tach_info), info_init, info_record, info_text, info_json, info_fini,
};

/* ---- checks ------------------------------------------------------------------------------
 * Errors: what CPython 3.15.2's reader rejects beyond the bytes the schema checks.
 * Warnings: what it does not check but a correct writer never does. */

typedef struct tach_check {
    pcd_alloc *al;
    bool have_root, replaying;
    tach_file root;
    uint64_t input_size;
    tach_replay rp;
    uint32_t *frame_strs;            /* filename, funcname of each frame */
    uint64_t *frame_off;             /* and where it is */
    uint32_t n_frames, frames_cap;
    uint64_t n_strings;
    uint64_t strings_end, frames_end;
    pcd_error e;
    char msg[256];
} tach_check;

static void check_init(void *ctx, pcd_alloc *al)
{
    tach_check *k = ctx;
    memset(k, 0, sizeof *k);
    k->al = al;
}

static void check_fini(void *ctx)
{
    tach_check *k = ctx;
    tach_replay_free(&k->rp);
    pcd_alloc_free(k->al, k->frame_strs, (size_t)k->frames_cap * 2 * sizeof(uint32_t));
    pcd_alloc_free(k->al, k->frame_off, (size_t)k->frames_cap * sizeof(uint64_t));
}

/* Reports a problem at `offset`, path seg[0] (outermost) [index] . seg[1] ... */
static void say(tach_check *k, pcd_report_fn report, void *ud, bool is_error, uint64_t offset, const char *outer,
                int64_t index, const char *inner, pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = &k->e;
    memset(e, 0, sizeof *e);
    e->status = is_error ? PCD_E_INVALID : PCD_OK;
    e->offset = offset;
    e->expected = k->msg;
    e->found_kind = fk;
    e->found = found;
    if (inner) pcd_error_push(e, inner, -1);
    if (outer) pcd_error_push(e, outer, index);
    report(ud, is_error, e);
}

static bool all_zero(pcd_bytes b)
{
    for (size_t i = 0; i < b.len; i++)
        if (b.ptr[i]) return false;
    return true;
}

static void check_root(tach_check *k, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    const tach_file *h = &k->root;
    if (h->compression > 1) {
        snprintf(k->msg, sizeof k->msg, "0 (none) or 1 (zstd); CPython reads other values as none");
        say(k, report, ud, false, PCD_TACHYON_V1_FILE_COMPRESSION_AT, "compression", -1, NULL, PCD_FOUND_UINT, h->compression);
    }
    if (h->python_version.reserved) {
        snprintf(k->msg, sizeof k->msg, "0 (reserved)");
        say(k, report, ud, false, PCD_TACHYON_V1_FILE_PYTHON_VERSION_AT + PCD_TACHYON_V1_FILE_PYTHON_VERSION_RESERVED_AT,
            "python_version", -1, "reserved", PCD_FOUND_UINT, h->python_version.reserved);
    }
    if ((h->config & 8) == 0 && (h->config >> 4) != 0) {
        snprintf(k->msg, sizeof k->msg, "no feature bits when bit 3 (features known) is clear");
        say(k, report, ud, false, PCD_TACHYON_V1_FILE_CONFIG_AT, "config", -1, NULL, PCD_FOUND_HEX, h->config);
    } else if (h->config >> 9) {
        snprintf(k->msg, sizeof k->msg, "no bits above bit 8 (CPython ignores them)");
        say(k, report, ud, false, PCD_TACHYON_V1_FILE_CONFIG_AT, "config", -1, NULL, PCD_FOUND_HEX, h->config);
    }
    if (rec->input_size && h->file_size != rec->input_size) {
        snprintf(k->msg, sizeof k->msg, "the file's size, %" PRIu64 " (CPython does not check it)", rec->input_size);
        say(k, report, ud, false, rec->input_size - 24, "file_size", -1, NULL, PCD_FOUND_UINT, h->file_size);
    }
    if (h->checksum.len == 16 && !all_zero(h->checksum)) {
        snprintf(k->msg, sizeof k->msg, "zeros (the checksum is reserved; CPython does not check it)");
        say(k, report, ud, false, rec->input_size ? rec->input_size - 16 : 0, "checksum", -1, NULL, PCD_FOUND_NONE, 0);
    }
    if (h->stats_tag && h->stats_version != 1) {
        snprintf(k->msg, sizeof k->msg, "statistics block version 1 (CPython ignores other versions)");
        say(k, report, ud, false, rec->input_size ? rec->input_size - 40 : 0, "stats_version", -1, NULL,
            PCD_FOUND_UINT, h->stats_version);
    }
    if (h->stats_tag && h->stats_size != 56 && h->stats_size != 32) {
        snprintf(k->msg, sizeof k->msg, "a statistics block of 56 bytes (or 32, the legacy form)");
        say(k, report, ud, false, rec->input_size ? rec->input_size - 36 : 0, "stats_size", -1, NULL, PCD_FOUND_UINT,
            h->stats_size);
    }
}

static bool bad_value(double v, bool allow_negative) { return !isfinite(v) || (!allow_negative && v < 0); }

static void check_stats(tach_check *k, const pcd_record *rec, const pcd_tachyon_v1_stats *st, pcd_report_fn report,
                        void *ud)
{
    if (k->root.stats_version != 1) return; /* CPython reads only version 1 */
    struct { const char *name; double v; bool used, neg_ok; uint64_t off; } vals[4] = {
        { "duration_sec", st->duration_sec, true, false, 0 },
        { "sample_rate", st->sample_rate, true, false, 8 },
        { "error_rate", st->error_rate, st->has_present && (st->present & 1), false, 16 },
        { "missed_samples", st->missed_samples, st->has_present && (st->present & 2), true, 24 },
    };
    for (int i = 0; i < 4; i++) {
        if (!vals[i].used || !bad_value(vals[i].v, vals[i].neg_ok)) continue;
        snprintf(k->msg, sizeof k->msg, "a finite%s value (CPython: \"Invalid profiling statistics values\")",
                 vals[i].neg_ok ? "" : ", non-negative");
        char f[40];
        tach_py_float_repr(f, sizeof f, vals[i].v);
        pcd_error *e = &k->e;
        memset(e, 0, sizeof *e);
        e->status = PCD_E_INVALID;
        e->offset = rec->offset + vals[i].off;
        e->expected = k->msg;
        e->found_kind = PCD_FOUND_TEXT;
        e->found_text = f;
        pcd_error_push(e, vals[i].name, -1);
        pcd_error_push(e, "stats", 0);
        report(ud, true, e);
        return;
    }
    if (st->has_present && (st->present & ~3u)) {
        snprintf(k->msg, sizeof k->msg, "only bits 0 and 1 in present");
        say(k, report, ud, false, rec->offset + PCD_TACHYON_V1_STATS_PRESENT_AT, "stats", 0, "present", PCD_FOUND_HEX, st->present);
    }
    if (st->has_reserved && st->reserved) {
        snprintf(k->msg, sizeof k->msg, "0 (reserved)");
        say(k, report, ud, false, rec->offset + PCD_TACHYON_V1_STATS_RESERVED_AT, "stats", 0, "reserved", PCD_FOUND_UINT, st->reserved);
    }
}

static void check_record(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    tach_check *k = ctx;
    const tach_sample *s = tach_as_sample(rec);
    if (s) {
        /* the samples first: nearly every record is one */
        if (k->have_root && k->replaying && tach_replay_record(&k->rp, s, rec) != PCD_OK) {
            /* CPython stops at the first; so does the replay */
            k->replaying = false;
            report(ud, true, &k->rp.err);
        }
        return;
    }
    const tach_file *root = tach_as_root(rec);
    if (root) {
        k->root = *root;
        k->have_root = true;
        k->input_size = rec->input_size;
        k->strings_end = root->string_table_offset;
        k->frames_end = root->frame_table_offset;
        k->replaying = tach_replay_init(&k->rp, root, k->al, false, true) == PCD_OK;
        k->rp.no_times = true;
        if (!k->replaying) {
            snprintf(k->msg, sizeof k->msg, "memory to replay the samples");
            say(k, report, ud, true, 0, "samples", -1, NULL, PCD_FOUND_NONE, 0);
        }
        check_root(k, rec, report, ud);
        return;
    }
    if (!k->have_root || !rec->data) return;
    if (rec->type == &pcd_tachyon_v1_string_type) {
        const pcd_tachyon_v1_string *str = rec->data;
        k->n_strings++;
        k->strings_end = rec->offset + rec->size;
        if (!tach_utf8_ok(str->value.ptr, str->value.len)) {
            snprintf(k->msg, sizeof k->msg, "UTF-8 (CPython replaces the bad bytes with U+FFFD)");
            say(k, report, ud, false, rec->offset, "strings", (int64_t)rec->index, "value", PCD_FOUND_NONE, 0);
        }
        return;
    }
    if (rec->type == &pcd_tachyon_v1_frame_type) {
        const tach_frame_rec *f = rec->data;
        if (k->n_frames == k->frames_cap) {
            uint32_t ncap = k->frames_cap ? k->frames_cap * 2 : 256;
            uint32_t *n = pcd_alloc_resize(k->al, k->frame_strs, (size_t)k->frames_cap * 2 * sizeof(uint32_t),
                                           (size_t)ncap * 2 * sizeof(uint32_t));
            if (!n) {
                snprintf(k->msg, sizeof k->msg, "memory for the frame table (raise --max-memory)");
                say(k, report, ud, true, rec->offset, "frames", (int64_t)rec->index, NULL, PCD_FOUND_NONE, 0);
                return;
            }
            k->frame_strs = n;
            uint64_t *o = pcd_alloc_resize(k->al, k->frame_off, (size_t)k->frames_cap * sizeof(uint64_t),
                                           (size_t)ncap * sizeof(uint64_t));
            if (!o) {
                snprintf(k->msg, sizeof k->msg, "memory for the frame table (raise --max-memory)");
                say(k, report, ud, true, rec->offset, "frames", (int64_t)rec->index, NULL, PCD_FOUND_NONE, 0);
                return;
            }
            k->frame_off = o;
            k->frames_cap = ncap;
        }
        k->frame_off[k->n_frames] = rec->offset;
        k->frame_strs[2 * k->n_frames] = f->filename;
        k->frame_strs[2 * k->n_frames + 1] = f->funcname;
        k->n_frames++;
        k->frames_end = rec->offset + rec->size;
        if (f->lineno == -1 && (f->end_lineno_delta || f->column != -1 || f->end_column_delta)) {
            snprintf(k->msg, sizeof k->msg, "no other location parts when lineno is -1 (CPython drops them)");
            say(k, report, ud, false, rec->offset, "frames", (int64_t)rec->index, "lineno", PCD_FOUND_INT,
                (uint64_t)(int64_t)f->lineno);
        }
        return;
    }
    if (rec->type == &pcd_tachyon_v1_stats_type) check_stats(k, rec, rec->data, report, ud);
}

static void check_finish(void *ctx, pcd_report_fn report, void *ud)
{
    tach_check *k = ctx;
    if (!k->have_root) return;
    const tach_file *h = &k->root;
    if (k->replaying) {
        if (tach_replay_finish(&k->rp) != PCD_OK) report(ud, true, &k->rp.err);
        else if (k->rp.n_threads < h->thread_count) {
            snprintf(k->msg, sizeof k->msg, "%u, the distinct threads the samples use (CPython accepts more)",
                     k->rp.n_threads);
            say(k, report, ud, false, PCD_TACHYON_V1_FILE_THREAD_COUNT_AT, "thread_count", -1, NULL, PCD_FOUND_UINT, h->thread_count);
        }
    }
    /* string indexes of the frames samples use: CPython resolves them (errors); others are
     * never looked at (warnings) */
    bool reported_error = false;
    for (uint32_t i = 0; i < k->n_frames; i++) {
        uint32_t fn = k->frame_strs[2 * i], func = k->frame_strs[2 * i + 1];
        if (fn < k->n_strings && func < k->n_strings) continue;
        bool used = tach_replay_used(&k->rp, i);
        if (used && reported_error) continue;
        snprintf(k->msg, sizeof k->msg, "string indexes below %" PRIu64 " (the string count)%s", k->n_strings,
                 used ? "" : "; no sample uses this frame, so CPython never looks");
        say(k, report, ud, used, k->frame_off[i], "frames", (int64_t)i, fn >= k->n_strings ? "filename" : "funcname",
            PCD_FOUND_UINT, fn >= k->n_strings ? fn : func);
        if (used) reported_error = true;
    }
    if (k->strings_end != h->frame_table_offset) {
        snprintf(k->msg, sizeof k->msg, "the string table to end where the frame table starts, at %" PRIu64,
                 h->frame_table_offset);
        say(k, report, ud, false, k->strings_end, "strings", -1, NULL, PCD_FOUND_UINT, k->strings_end);
    }
    if (k->input_size) {
        uint64_t want = k->input_size - 32 - (h->stats_tag ? h->stats_size : 0);
        if (k->frames_end != want) {
            snprintf(k->msg, sizeof k->msg, "the frame table to end where the %s starts, at %" PRIu64,
                     h->stats_tag ? "statistics block" : "footer", want);
            say(k, report, ud, false, k->frames_end, "frames", -1, NULL, PCD_FOUND_UINT, k->frames_end);
        }
    }
}

static const pcd_check_ops tach_check_ops = {
    sizeof(tach_check), check_init, check_record, check_finish, check_fini,
};

/* ---- registration --------------------------------------------------------------------- */

static const pcd_converter tach_conv[] = {
    { "collapsed", "collapsed stacks, byte-identical to CPython's `profiling.sampling replay --collapsed`",
      tach_collapsed_run },
    { "speedscope", "speedscope JSON (https://www.speedscope.app), one sampled profile per thread",
      tach_speedscope_run },
    { "chrome", "Chrome Trace Event JSON (Perfetto UI, chrome://tracing): a timeline per thread from the samples",
      tach_chrome_run },
    { "samples", "one line per sample, frames resolved: the text of CPython's reader (dump_samples.py)",
      tach_samples_run },
    { "mojo", "Austin MOJO 3 (time metrics from the timestamps), read by austin-python and Austin's tools",
      xf_tachyon_to_mojo_run },
};

static const pcd_importer tach_import[] = {
    { "samples", "Tachyon from 'convert --to samples' text, written as CPython writes (encodings, REPEAT groups)",
      tach_import_samples_run },
};

const pcd_ext pcd_tachyon_ext = { "tachyon", &tach_info_ops, tach_conv, 5, &tach_check_ops, tach_import, 1 };
