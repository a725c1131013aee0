/* formats/tachyon/info.c: the Tachyon info summary (profcodec info): the header, the samples
 * replayed as CPython replays them (records of each encoding, threads, time span), the
 * tables, the statistics block and the footer. */
#include <inttypes.h>
#include <string.h>

#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"

typedef struct tinfo {
    pcd_alloc *al;
    bool have_root, replaying, replay_failed;
    pcd_tachyon_v1_file root;
    bool big;
    uint64_t input_size;
    uint64_t samples_bytes;          /* decompressed size of the sample records */
    pcd_tachyon_replay rp;
    pcd_error replay_err;
    char replay_msg[1024];
    uint64_t strings, frames, string_bytes;
    bool have_stats;
    pcd_tachyon_v1_stats stats;
} tinfo;

static void info_init(void *ctx, pcd_alloc *al)
{
    tinfo *t = ctx;
    memset(t, 0, sizeof *t);
    t->al = al;
}

static void info_record(void *ctx, const pcd_record *rec)
{
    tinfo *t = ctx;
    const pcd_tachyon_v1_file *root = pcd_tachyon_as_root(rec);
    if (root) {
        t->root = *root;
        t->have_root = true;
        t->big = rec->big;
        t->input_size = rec->input_size;
        t->replaying = pcd_tachyon_replay_init(&t->rp, root, t->al, false, false) == PCD_OK;
        return;
    }
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (s) {
        t->samples_bytes = rec->offset + rec->size - (rec->decompressed ? 0 : 64);
        if (t->replaying && pcd_tachyon_replay_record(&t->rp, s, rec) != PCD_OK) {
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

static void fmt_f(char *buf, size_t cap, double v) { pcd_tachyon_py_float_repr(buf, cap, v); }

static void info_text(void *ctx, FILE *out)
{
    tinfo *t = ctx;
    if (!t->have_root) return;
    const pcd_tachyon_v1_file *h = &t->root;
    char cfg[160];
    pcd_tachyon_config_text(cfg, sizeof cfg, h->config);
    fprintf(out, "header:      format version %u, written by Python %u.%u.%u, %s-endian\n", h->version,
            h->python_version.major, h->python_version.minor, h->python_version.micro, t->big ? "big" : "little");
    fprintf(out, "config:      0x%x: mode %s\n", h->config, cfg);
    fprintf(out, "interval:    %" PRIu64 " us", h->sample_interval_us);
    if (h->sample_interval_us) fprintf(out, " (%.6g Hz)", 1e6 / (double)h->sample_interval_us);
    fprintf(out, "\nstart time:  %" PRIu64 " us (time.monotonic)\n", h->start_time_us);
    fprintf(out, "compression: %s", h->compression == PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD ? "zstd" : h->compression == PCD_TACHYON_V1_FILE_COMPRESSION_NONE ? "none" : "none (unknown value)");
    if (h->compression == PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD)
        fprintf(out, ", %" PRIu64 " bytes of samples from %" PRIu64 " compressed", t->samples_bytes,
                h->string_table_offset - PCD_TACHYON_V1_FILE_SAMPLES_AT);
    fprintf(out, "\n");
    const pcd_tachyon_replay *rp = &t->rp;
    fprintf(out, "samples:     %" PRIu64 " (header: %" PRIu64 ") in %" PRIu64 " records: full %" PRIu64 ", suffix %" PRIu64
            ", pop_push %" PRIu64 ", repeat %" PRIu64 " (%" PRIu64 " samples)\n",
            rp->total_samples, h->sample_count, rp->total_records, rp->records[1], rp->records[2], rp->records[3],
            rp->records[0], rp->repeat_samples);
    fprintf(out, "threads:     %u (header: %u)", rp->n_threads, h->thread_count);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < rp->n_threads; i++) {
        const pcd_tachyon_thread *th = rp->threads[i];
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
            uint32_t pr = t->stats.present;
            fprintf(out, ", error rate %s%%%s, missed samples %s%%%s", c,
                    pcd_tachyon_v1_stats_present_error_rate(pr) ? "" : " (not recorded)", d,
                    pcd_tachyon_v1_stats_present_missed_samples(pr) ? "" : " (not recorded)");
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
    tinfo *t = ctx;
    if (!t->have_root) return pcd_json_raw(s, "\"header\":null");
    const pcd_tachyon_v1_file *h = &t->root;
    const pcd_tachyon_replay *rp = &t->rp;
    char buf[512];
    int mode = pcd_tachyon_config_mode(h->config), feat = pcd_tachyon_config_features(h->config);
    int n = snprintf(buf, sizeof buf,
                     "\"byte_order\":\"%s\",\"python_version\":\"%u.%u.%u\",\"config\":%u,\"mode\":%s%s%s,"
                     "\"capture_features\":",
                     t->big ? "big" : "little", h->python_version.major, h->python_version.minor,
                     h->python_version.micro, h->config, mode < 0 ? "" : "\"", mode < 0 ? "null" : pcd_tachyon_mode_names[mode],
                     mode < 0 ? "" : "\"");
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (feat < 0) {
        PCD_TRY(pcd_json_raw(s, "null"));
    } else {
        PCD_TRY(pcd_json_raw(s, "{"));
        for (int i = 0; i < 5; i++) {
            n = snprintf(buf, sizeof buf, "%s\"%s\":%s", i ? "," : "", pcd_tachyon_feature_names[i],
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
                 h->sample_interval_us, h->start_time_us, h->compression == PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD ? "zstd" : "none", rp->total_samples,
                 h->sample_count, rp->n_threads, h->thread_count, rp->records[1], rp->records[2], rp->records[3],
                 rp->records[0], rp->repeat_samples, t->strings, t->frames);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(pcd_json_raw(s, ",\"thread_list\":["));
    for (uint32_t i = 0; i < rp->n_threads; i++) {
        const pcd_tachyon_thread *th = rp->threads[i];
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
        if (t->stats.has_present && pcd_tachyon_v1_stats_present_error_rate(t->stats.present)) PCD_TRY(put_f(s, "error_rate", t->stats.error_rate));
        if (t->stats.has_present && pcd_tachyon_v1_stats_present_missed_samples(t->stats.present)) PCD_TRY(put_f(s, "missed_samples", t->stats.missed_samples));
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
    tinfo *t = ctx;
    pcd_tachyon_replay_free(&t->rp);
}

const pcd_info_ops pcd_tachyon_info_ops = {
    sizeof(tinfo), info_init, info_record, info_text, info_json, info_fini,
};
