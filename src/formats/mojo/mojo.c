/* formats/mojo/mojo.c: Austin MOJO above the bytes: info summary, reference checks, and the
 * registration (the profile model importer is import.c; `encode --from austin` austin_import.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/problem.h"
#include "formats/mojo/asm.h"
#include "pipeline/job.h"
#include "common/hmap.h"

/* ---- info ------------------------------------------------------------------------------- */

typedef struct mojo_info {
    mojo_asm as;
    bool started;
    bool failed;
    uint64_t samples, idle, gc, invalid, kernel, frame_refs, max_depth, empty;
    uint64_t time_n, mem_n;
    unsigned __int128 time_sum, mem_plus, mem_minus;
    pcd_hmap pids, threads, tasks;
    uint64_t task_samples;
    unsigned __int128 task_time;
    uint32_t meta[8];           /* string ids of the metadata values below, UINT32_MAX none */
    uint64_t n_meta;
} mojo_info;

static const char *const info_keys[8] = { "austin", "mode", "interval", "python", "memory", "multiprocess",
                                          "duration", "gc" };

static void info_sample(void *ud, const mojo_sample *sm)
{
    mojo_info *h = ud;
    h->samples++;
    h->idle += sm->idle;
    h->gc += sm->gc;
    if (!sm->n_items) h->empty++;
    if (sm->n_items > h->max_depth) h->max_depth = sm->n_items;
    for (size_t i = 0; i < sm->n_items; i++) {
        uint32_t k = sm->items[i].kind;
        h->frame_refs += k == MOJO_IT_FRAME;
        h->invalid += k == MOJO_IT_INVALID;
        h->kernel += k == MOJO_IT_KERNEL;
    }
    if (sm->n_time) {
        h->time_n++;
        if (!sm->time.neg) h->time_sum += sm->time.mag;
    }
    if (sm->n_memory) {
        h->mem_n++;
        if (sm->memory.neg) h->mem_minus += sm->memory.mag;
        else h->mem_plus += sm->memory.mag;
    }
    bool fresh;
    pcd_hmap_put(&h->pids, (pcd_hkey){ sm->pid.mag, sm->pid.neg, 0 }, &fresh);
    pcd_hmap_put(&h->threads, (pcd_hkey){ sm->pid.mag, (uint64_t)sm->pid.neg | (uint64_t)sm->iid.neg << 1, sm->tid ^ (sm->iid.mag << 32) }, &fresh);
}

static void info_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    mojo_info *h = ud;
    h->n_meta++;
    pcd_bytes k = pcd_mojo_str(&h->as, key);
    for (int i = 0; i < 8; i++)
        if (pcd_bytes_is(k, info_keys[i])) h->meta[i] = value;
}

/* A task's time at its previous point, as the importer gives it to the task's lane (a sample
 * when the task has a previous point or the time is not 0). */
static void info_task(void *ud, const mojo_task *t)
{
    mojo_info *h = ud;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&h->tasks, (pcd_hkey){ t->owner->pid.mag, t->owner->pid.neg, t->task.mag }, &fresh);
    if (!sl) return;
    if (sl->v0 || t->elapsed.mag) {
        h->task_samples++;
        if (!t->elapsed.neg) h->task_time += t->elapsed.mag;
    }
    sl->v0 = t->n_frames > 0;
}

static const mojo_asm_ops info_asm_ops = { info_sample, info_meta, info_task, NULL };

static void info_init(void *ctx, pcd_alloc *al)
{
    mojo_info *h = ctx;
    memset(h, 0, sizeof *h);
    for (int i = 0; i < 8; i++) h->meta[i] = UINT32_MAX;
    pcd_hmap_init(&h->pids, al);
    pcd_hmap_init(&h->threads, al);
    pcd_hmap_init(&h->tasks, al);
    if (pcd_mojo_asm_init(&h->as, al, 0, &info_asm_ops, h, NULL, NULL) != PCD_OK) h->failed = true;
}

static void info_record(void *ctx, const pcd_record *rec)
{
    mojo_info *h = ctx;
    if (h->failed) return;
    if (mojo_asm_record(&h->as, rec) != PCD_OK) h->failed = true;
}

static void info_done(mojo_info *h)
{
    if (!h->started && !h->failed) {
        h->started = true;
        if (pcd_mojo_asm_finish(&h->as) != PCD_OK) h->failed = true;
    }
}

static void put_u128(FILE *out, unsigned __int128 v)
{
    char t[48];
    int k = 0;
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    while (k) fputc(t[--k], out);
}

static void info_text(void *ctx, FILE *out)
{
    mojo_info *h = ctx;
    info_done(h);
    fprintf(out, "metadata:    %" PRIu64 " entries", h->n_meta);
    bool any = false;
    for (int i = 0; i < 8; i++) {
        if (h->meta[i] == UINT32_MAX) continue;
        pcd_bytes v = pcd_mojo_str(&h->as, h->meta[i]);
        fprintf(out, "%s%s=%.*s", any ? ", " : " (", info_keys[i], (int)(v.len > 200 ? 200 : v.len), (const char *)v.ptr);
        any = true;
    }
    fprintf(out, "%s\n", any ? ")" : "");
    fprintf(out, "samples:     %" PRIu64 " (%" PRIu64 " without frames, %" PRIu64 " idle, %" PRIu64 " during GC)\n",
            h->samples, h->empty, h->idle, h->gc);
    fprintf(out, "processes:   %zu, threads: %zu\n", h->pids.len, h->threads.len);
    fprintf(out, "frames:      %" PRIu64 " references, deepest stack %" PRIu64 ", %u distinct frames, %u distinct strings",
            h->frame_refs, h->max_depth, h->as.n_fr ? h->as.n_fr - 1 : 0, h->as.n_str ? h->as.n_str - 2 : 0);
    if (h->invalid || h->kernel) fprintf(out, ", %" PRIu64 " invalid, %" PRIu64 " kernel", h->invalid, h->kernel);
    fprintf(out, "\n");
    if (h->as.repeats) fprintf(out, "repeats:     %" PRIu64 " samples repeat their thread's previous stack\n", h->as.repeats);
    if (h->as.tasks || h->as.waiters)
    {
        fprintf(out, "tasks:       %zu asyncio tasks in %" PRIu64 " task stacks, %" PRIu64 " waiter edges; ", h->tasks.len,
                h->as.tasks, h->as.waiters);
        put_u128(out, h->task_time);
        fprintf(out, " us in %" PRIu64 " samples of tasks\n", h->task_samples);
    }
    if (h->time_n) {
        fprintf(out, "time:        ");
        put_u128(out, h->time_sum);
        fprintf(out, " us in %" PRIu64 " samples\n", h->time_n);
    }
    if (h->mem_n) {
        fprintf(out, "memory:      +");
        put_u128(out, h->mem_plus);
        fprintf(out, " / -");
        put_u128(out, h->mem_minus);
        fprintf(out, " bytes in %" PRIu64 " samples\n", h->mem_n);
    }
    uint64_t us = h->as.problems[MOJO_P_UNDEF_STRING], uf = h->as.problems[MOJO_P_UNDEF_FRAME];
    if (us || uf)
        fprintf(out, "warning:     %" PRIu64 " undefined string and %" PRIu64 " undefined frame references (see validate)\n",
                us, uf);
    if (h->failed) fprintf(out, "warning:     out of memory for the strings and frames; the summary is partial\n");
}

/* A sum as JSON: a number, or (above 2^63-1, as everywhere in profcodec's JSON) a string. */
static pcd_status json_u128(pcd_sink *s, unsigned __int128 v)
{
    char t[48], b[48];
    int k = 0;
    bool big = v > (unsigned __int128)INT64_MAX;
    if (big) PCD_TRY(pcd_sink_put(s, "\"", 1));
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < k; i++) b[i] = t[k - 1 - i];
    PCD_TRY(pcd_sink_put(s, b, (size_t)k));
    return big ? pcd_sink_put(s, "\"", 1) : PCD_OK;
}

static pcd_status info_json(void *ctx, pcd_sink *s)
{
    mojo_info *h = ctx;
    info_done(h);
    char buf[512];
    PCD_TRY(pcd_json_raw(s, "\"metadata\":{"));
    bool any = false;
    for (int i = 0; i < 8; i++) {
        if (h->meta[i] == UINT32_MAX) continue;
        pcd_bytes v = pcd_mojo_str(&h->as, h->meta[i]);
        int n = snprintf(buf, sizeof buf, "%s\"%s\":", any ? "," : "", info_keys[i]);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
        PCD_TRY(pcd_text_json(s, v.ptr, v.len));
        any = true;
    }
    int n = snprintf(buf, sizeof buf,
                     "},\"samples\":%" PRIu64 ",\"samples_without_frames\":%" PRIu64 ",\"idle_samples\":%" PRIu64
                     ",\"gc_samples\":%" PRIu64 ",\"processes\":%zu,\"threads\":%zu,\"frame_references\":%" PRIu64
                     ",\"deepest_stack\":%" PRIu64 ",\"distinct_frames\":%u,\"distinct_strings\":%u,\"invalid_frames\":%" PRIu64
                     ",\"kernel_frames\":%" PRIu64 ",\"undefined_string_references\":%" PRIu64
                     ",\"undefined_frame_references\":%" PRIu64 ",\"time_us\":",
                     h->samples, h->empty, h->idle, h->gc, h->pids.len, h->threads.len, h->frame_refs, h->max_depth,
                     h->as.n_fr ? h->as.n_fr - 1 : 0, h->as.n_str ? h->as.n_str - 2 : 0, h->invalid, h->kernel,
                     h->as.problems[MOJO_P_UNDEF_STRING], h->as.problems[MOJO_P_UNDEF_FRAME]);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(json_u128(s, h->time_sum));
    PCD_TRY(pcd_json_raw(s, ",\"memory_allocated\":"));
    PCD_TRY(json_u128(s, h->mem_plus));
    PCD_TRY(pcd_json_raw(s, ",\"memory_released\":"));
    PCD_TRY(json_u128(s, h->mem_minus));
    n = snprintf(buf, sizeof buf, ",\"stack_repeats\":%" PRIu64 ",\"tasks\":%zu,\"task_stacks\":%" PRIu64
                 ",\"task_waiters\":%" PRIu64 ",\"task_samples\":%" PRIu64 ",\"task_time_us\":",
                 h->as.repeats, h->tasks.len, h->as.tasks, h->as.waiters, h->task_samples);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    return json_u128(s, h->task_time);
}

static void info_fini(void *ctx)
{
    mojo_info *h = ctx;
    pcd_hmap_free(&h->pids);
    pcd_hmap_free(&h->threads);
    pcd_hmap_free(&h->tasks);
    pcd_mojo_asm_free(&h->as);
}

static const pcd_info_ops mojo_info_ops = {
    sizeof(mojo_info), info_init, info_record, info_text, info_json, info_fini,
};

/* ---- checks above the bytes (validate) ---------------------------------------------------- */

typedef struct mojo_check {
    mojo_asm as;
    bool ok;
} mojo_check;

static void check_init(void *ctx, pcd_alloc *al)
{
    mojo_check *k = ctx;
    k->ok = pcd_mojo_asm_init(&k->as, al, 0, NULL, NULL, NULL, NULL) == PCD_OK;
}

static void check_bind(void *ctx, pcd_report_fn report, void *ud)
{
    mojo_check *k = ctx;
    k->as.report = report;
    k->as.report_ud = ud;
}

static PCD_COLD void check_nomem(mojo_check *k, const pcd_record *rec)
{
    pcd_error err;
    pcd_problem(&err, PCD_E_NOMEM, rec->offset,
                "memory for the strings and frames (raise --max-memory); the reference checks stop here", PCD_FOUND_NONE,
                0);
    k->as.report(k->as.report_ud, false, &err);
    k->ok = false;
}

static pcd_status check_run(void *ctx, const pcd_record *rec)
{
    mojo_check *k = ctx;
    if (PCD_LIKELY(k->ok) && PCD_UNLIKELY(mojo_asm_record(&k->as, rec) != PCD_OK)) check_nomem(k, rec);
    return PCD_OK;
}

static void check_record(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    check_bind(ctx, report, ud);
    check_run(ctx, rec);
}

static void check_finish(void *ctx, pcd_report_fn report, void *ud)
{
    mojo_check *k = ctx;
    if (!k->ok) return;
    k->as.report = report;
    k->as.report_ud = ud;
    pcd_mojo_asm_finish(&k->as);
    static const char *const what[MOJO_P_N] = {
        "references to undefined string keys", "references to undefined frame keys",
        "events outside a sample", NULL, "samples with repeated metrics", "samples cut at 1048576 frames",
        "task stacks without a time metric",
    };
    for (int i = 0; i < MOJO_P_N; i++) {
        if (!what[i] || k->as.problems[i] <= MOJO_REPORT_MAX) continue;
        char msg[160];
        snprintf(msg, sizeof msg, "%s: %" PRIu64 " in all (the first %d are shown)", what[i], k->as.problems[i],
                 MOJO_REPORT_MAX);
        pcd_error err;
        pcd_problem(&err, PCD_E_INVALID, 0, NULL, PCD_FOUND_TEXT, 0)->found_text = msg;
        /* the summary is said once; the counted problems were already errors or warnings */
        pcd_error_push(&err, "summary", -1);
        report(ud, false, &err);
    }
}

static void check_fini(void *ctx)
{
    mojo_check *k = ctx;
    pcd_mojo_asm_free(&k->as);
}

static const pcd_check_ops mojo_check_ops = {
    sizeof(mojo_check), check_init, check_record, check_finish, check_fini, check_bind, check_run,
};

/* ---- registration --------------------------------------------------------------------------- */

static const pcd_importer mojo_import[] = {
    { "austin", "Austin's text format (as austin writes it, or convert --to austin) to MOJO 3", NULL,
      pcd_mojo_import_austin, "mojo", true },
};

extern const pcd_model_importer pcd_mojo_model;

const pcd_ext pcd_mojo_ext = { "mojo", &mojo_info_ops, &mojo_check_ops, mojo_import, 1, &pcd_mojo_model, NULL, 0 };
