/* formats/tachyon/check.c: the checks above the bytes (profcodec validate and info):
 * errors for what CPython 3.15.2's reader rejects beyond the bytes the schema checks,
 * warnings for what it does not check but a correct writer never does (besides the ones
 * schemas/tachyon/v1.lua declares, warn = ...). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/text.h"
#include "common/problem.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"

typedef struct tcheck {
    pcd_alloc *al;
    bool have_root, replaying;
    pcd_tachyon_v1_file root;
    uint64_t input_size;
    pcd_tachyon_replay rp;
    uint32_t *frame_strs;            /* filename, funcname of each frame */
    uint64_t *frame_off;             /* and where it is */
    uint32_t n_frames, frames_cap;
    uint64_t n_strings;
    uint64_t strings_end, frames_end;
    pcd_error e;
    char msg[256];
    pcd_report_fn report;            /* where check_run reports (check_bind) */
    void *report_ud;
} tcheck;

static void check_init(void *ctx, pcd_alloc *al)
{
    tcheck *k = ctx;
    memset(k, 0, sizeof *k);
    k->al = al;
}

static void check_fini(void *ctx)
{
    tcheck *k = ctx;
    pcd_tachyon_replay_free(&k->rp);
    pcd_alloc_free(k->al, k->frame_strs, (size_t)k->frames_cap * 2 * sizeof(uint32_t));
    pcd_alloc_free(k->al, k->frame_off, (size_t)k->frames_cap * sizeof(uint64_t));
}

/* Reports a problem at `offset`, path seg[0] (outermost) [index] . seg[1] ... */
static void say(tcheck *k, pcd_report_fn report, void *ud, bool is_error, uint64_t offset, const char *outer,
                int64_t index, const char *inner, pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = pcd_problem(&k->e, is_error ? PCD_E_INVALID : PCD_OK, offset, k->msg, fk, found);
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

/* The root's checks the schema's warnings (warn = ...) do not make: profcodec validate reports
 * those from the generated code (pcd_record_warnings). */
static void check_root(tcheck *k, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    const pcd_tachyon_v1_file *h = &k->root;
    uint64_t n = rec->input_size;
    if (n && h->file_size != n) {
        snprintf(k->msg, sizeof k->msg, "the file's size, %" PRIu64 " (CPython does not check it)", n);
        say(k, report, ud, false, n - PCD_TACHYON_V1_FILE_FILE_SIZE_AT_END, "file_size", -1, NULL, PCD_FOUND_UINT,
            h->file_size);
    }
    if (!all_zero(h->checksum)) {
        snprintf(k->msg, sizeof k->msg, "zeros (the checksum is reserved; CPython does not check it)");
        say(k, report, ud, false, n ? n - PCD_TACHYON_V1_FILE_CHECKSUM_AT_END : 0, "checksum", -1, NULL,
            PCD_FOUND_NONE, 0);
    }
}

static bool bad_value(double v, bool allow_negative) { return !isfinite(v) || (!allow_negative && v < 0); }

static void check_stats(tcheck *k, const pcd_record *rec, const pcd_tachyon_v1_stats *st, pcd_report_fn report,
                        void *ud)
{
    if (k->root.stats_version != 1) return; /* CPython reads only version 1 */
    struct { const char *name; double v; bool used, neg_ok; uint64_t off; } vals[4] = {
        { "duration_sec", st->duration_sec, true, false, PCD_TACHYON_V1_STATS_DURATION_SEC_AT },
        { "sample_rate", st->sample_rate, true, false, PCD_TACHYON_V1_STATS_SAMPLE_RATE_AT },
        { "error_rate", st->error_rate, st->has_present && pcd_tachyon_v1_stats_present_error_rate(st->present), false,
          PCD_TACHYON_V1_STATS_ERROR_RATE_AT },
        { "missed_samples", st->missed_samples, st->has_present && pcd_tachyon_v1_stats_present_missed_samples(st->present),
          true, PCD_TACHYON_V1_STATS_MISSED_SAMPLES_AT },
    };
    for (int i = 0; i < 4; i++) {
        if (!vals[i].used || !bad_value(vals[i].v, vals[i].neg_ok)) continue;
        snprintf(k->msg, sizeof k->msg, "a finite%s value (CPython: \"Invalid profiling statistics values\")",
                 vals[i].neg_ok ? "" : ", non-negative");
        char f[40];
        pcd_tachyon_py_float_repr(f, sizeof f, vals[i].v);
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
    if (st->has_present && pcd_tachyon_v1_stats_present_reserved(st->present)) {
        snprintf(k->msg, sizeof k->msg, "only bits 0 and 1 in present");
        say(k, report, ud, false, rec->offset + PCD_TACHYON_V1_STATS_PRESENT_AT, "stats", 0, "present", PCD_FOUND_HEX, st->present);
    }
    if (st->has_reserved && st->reserved) {
        snprintf(k->msg, sizeof k->msg, "0 (reserved)");
        say(k, report, ud, false, rec->offset + PCD_TACHYON_V1_STATS_RESERVED_AT, "stats", 0, "reserved", PCD_FOUND_UINT, st->reserved);
    }
}

PCD_COLD static void check_other(tcheck *k, const pcd_record *rec, pcd_report_fn report, void *ud);

static void check_bind(void *ctx, pcd_report_fn report, void *ud)
{
    tcheck *k = ctx;
    k->report = report;
    k->report_ud = ud;
}

/* A record (check_bind said where the reports go): validate hands the samples' decoding runs
 * straight to it, a call a record (their type declares no warnings). */
static pcd_status check_run(void *ctx, const pcd_record *rec)
{
    tcheck *k = ctx;
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (PCD_LIKELY(s != NULL)) {
        /* the samples first: nearly every record is one */
        if (k->have_root && k->replaying && PCD_UNLIKELY(pcd_tachyon_replay_record(&k->rp, s, rec) != PCD_OK)) {
            /* CPython stops at the first; so does the replay */
            k->replaying = false;
            k->report(k->report_ud, true, &k->rp.err);
        }
        return PCD_OK;
    }
    check_other(k, rec, k->report, k->report_ud);
    return PCD_OK;
}

static void check_record(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    check_bind(ctx, report, ud);
    check_run(ctx, rec);
}

/* The records that are not samples: the header, the strings, the frames, the statistics (a
 * function of its own, so that a sample's way through check_record stays short). */
PCD_COLD static void check_other(tcheck *k, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    const pcd_tachyon_v1_file *root = pcd_tachyon_as_root(rec);
    if (root) {
        k->root = *root;
        k->have_root = true;
        k->input_size = rec->input_size;
        k->strings_end = root->string_table_offset;
        k->frames_end = root->frame_table_offset;
        k->replaying = pcd_tachyon_replay_init(&k->rp, root, k->al, false, true) == PCD_OK;
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
        if (pcd_utf8_valid_prefix(str->value.ptr, str->value.len) != str->value.len) {
            snprintf(k->msg, sizeof k->msg, "UTF-8 (CPython replaces the bad bytes with U+FFFD)");
            say(k, report, ud, false, rec->offset, "strings", (int64_t)rec->index, "value", PCD_FOUND_NONE, 0);
        }
        return;
    }
    if (rec->type == &pcd_tachyon_v1_frame_type) {
        const pcd_tachyon_v1_frame *f = rec->data;
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
    tcheck *k = ctx;
    if (!k->have_root) return;
    const pcd_tachyon_v1_file *h = &k->root;
    if (k->replaying) {
        if (pcd_tachyon_replay_finish(&k->rp) != PCD_OK) report(ud, true, &k->rp.err);
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
        bool used = pcd_tachyon_replay_used(&k->rp, i);
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
        /* the footer starts with string_count */
        uint64_t want = k->input_size - PCD_TACHYON_V1_FILE_STRING_COUNT_AT_END - (h->stats_tag ? h->stats_size : 0);
        if (k->frames_end != want) {
            snprintf(k->msg, sizeof k->msg, "the frame table to end where the %s starts, at %" PRIu64,
                     h->stats_tag ? "statistics block" : "footer", want);
            say(k, report, ud, false, k->frames_end, "frames", -1, NULL, PCD_FOUND_UINT, k->frames_end);
        }
    }
}

const pcd_check_ops pcd_tachyon_check_ops = {
    sizeof(tcheck), check_init, check_record, check_finish, check_fini, check_bind, check_run,
    /* the replay counts a REPEAT record's samples (no_times): their entries are checked, not stored */
    .count_only = PCD_TACHYON_V1_COUNT_ONLY_REPEAT_SAMPLES,
};
