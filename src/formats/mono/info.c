/* formats/mono/info.c: the info summary of a Mono log profiler file: what mprof-report prints,
 * as text and as JSON (tests/mono compares it with mprof-report's own reports). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/mono/mono.h"
#include "pipeline/job.h"

/* ---- name -> count maps for the JSON (mprof-report lists entries by pointer; we merge
 * entries whose names are equal) ------------------------------------------------------- */

typedef struct named {
    const char *name;
    uint64_t a, b;
} named;

static int cmp_named(const void *x, const void *y) { return strcmp(((const named *)x)->name, ((const named *)y)->name); }

/* Sorts and merges equal names (summing a and b); returns the new count. */
static size_t merge_named(named *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_named);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(v[i].name, v[k].name) == 0) {
            v[k].a += v[i].a;
            v[k].b += v[i].b;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

/* ---- info ---------------------------------------------------------------------------- */

typedef struct mono_info {
    pcd_mono_sum s;
    uint64_t by_type[16];
} mono_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    mono_info *m = ctx;
    pcd_mono_sum_init(&m->s, al);
    m->s.keep_ips = true;
    memset(m->by_type, 0, sizeof m->by_type);
}

static void info_record(void *ctx, const pcd_record *rec)
{
    mono_info *m = ctx;
    if (rec->type == &pcd_mono_v3_0_event_type && rec->data) {
        /* allocations, most events by far: what pcd_mono_sum_event does for them, without the
         * neutral form (the same counts, in the same order) */
        const pcd_mono_v3_0_event *e = rec->data;
        bool alloc = true;
        uint64_t time = 0, vtable = 0, size = 0;
        if (e->which == PCD_MONO_V3_0_EVENT_ALLOC)
            time = e->u.alloc.time, vtable = (uint64_t)e->u.alloc.vtable, size = e->u.alloc.size;
        else if (e->which == PCD_MONO_V3_0_EVENT_ALLOC_BT)
            time = e->u.alloc_bt.time, vtable = (uint64_t)e->u.alloc_bt.vtable, size = e->u.alloc_bt.size;
        else
            alloc = false;
        if (alloc) {
            pcd_mono_sum *s = &m->s;
            s->events++;
            pcd_mono_sum_time(s, time);
            if (pcd_mono_cur_thread(s)) {
                size_t ci = pcd_mono_vtable_class(s, vtable);
                if (ci != SIZE_MAX) {
                    s->cls[ci].allocs++;
                    s->cls[ci].bytes += size;
                }
            }
            m->by_type[pcd_mono_v3_0_event_tag_type((uint8_t)e->tag)]++;
            return;
        }
    }
    pcd_mono_ev ev;
    if (pcd_mono_sum_record(&m->s, rec, &ev)) {
        uint8_t tag = rec->type == &pcd_mono_v3_0_event_type ? (uint8_t)((const pcd_mono_v3_0_event *)rec->data)->tag
                                                              : (uint8_t)((const pcd_mono_v0_1_event *)rec->data)->tag;
        m->by_type[pcd_mono_v3_0_event_tag_type(tag)]++; /* the same byte in both versions */
    }
}

static void fmt_time(char *buf, size_t cap, uint64_t ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char d[32];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03" PRIu64 "Z", d, ms % 1000);
}

static const char *const type_names[16] = { "alloc", "gc", "metadata", "method", "exception", "monitor", "heap",
                                            "sample", "runtime", "coverage", "meta", "11", "12", "13", "14", "15" };

/* Sample hits by name (the caller frees n_ips + 1 entries); *n entries; totals through the
 * pointers. */
static named *sample_table(const pcd_mono_sum *s, size_t *n, uint64_t *managed_hits, uint64_t *unmanaged_hits,
                           uint64_t *unresolved_hits)
{
    *n = 0;
    *managed_hits = *unmanaged_hits = *unresolved_hits = 0;
    named *v = pcd_alloc_get(s->al, (s->n_ips + 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < s->n_ips; i++) {
        bool managed;
        const char *nm = pcd_mono_ip_name(s, s->ips[i], &managed);
        if (managed) ++*managed_hits;
        else ++*unmanaged_hits;
        if (!nm) {
            ++*unresolved_hits;
            continue;
        }
        v[(*n)++] = (named){ nm, 1, 0 };
    }
    *n = merge_named(v, *n);
    return v;
}

static void info_text(void *ctx, FILE *out)
{
    mono_info *m = ctx;
    pcd_mono_sum *s = &m->s;
    pcd_mono_sort_usyms(s);
    char t[64];
    fmt_time(t, sizeof t, s->startup_ms);
    fprintf(out, "profiler:    %u.%u, data version %u, %u-byte pointers\n", s->major, s->minor, s->data_version,
            s->ptr_size);
    if (s->args) fprintf(out, "arguments:   %s\n", pcd_mono_name(&s->names, s->args));
    if (s->arch) fprintf(out, "system:      %s, %s\n", pcd_mono_name(&s->names, s->arch), pcd_mono_name(&s->names, s->os));
    fprintf(out, "startup:     %s (%" PRIu64 " ms since the Unix epoch)\n", t, s->startup_ms);
    fprintf(out, "process:     %" PRIu64 "%s", s->pid, s->port ? "" : "\n");
    if (s->port) fprintf(out, ", command server on port %" PRIu64 "\n", s->port);
    fprintf(out, "buffers:     %" PRIu64 " (%zu threads)\n", s->buffers, s->n_thr);
    if (s->have_time)
        fprintf(out, "time span:   %.6f s\n", (double)(s->last_time - s->first_time) / 1e9);
    fprintf(out, "events:      %" PRIu64 " (", s->events);
    bool first = true;
    for (int i = 0; i < 16; i++) {
        if (!m->by_type[i]) continue;
        fprintf(out, "%s%s %" PRIu64, first ? "" : ", ", type_names[i], m->by_type[i]);
        first = false;
    }
    fprintf(out, ")\n");
    uint64_t jm = 0, jsz = 0, calls = 0, allocs = 0, bytes = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        if (s->mth[i].code) jm++, jsz += s->mth[i].len;
        calls += s->mth[i].calls;
    }
    for (size_t i = 0; i < s->n_cls; i++) allocs += s->cls[i].allocs, bytes += s->cls[i].bytes;
    fprintf(out, "jit:         %" PRIu64 " methods, %" PRIu64 " bytes of code; %" PRIu64 " helpers, %" PRIu64 " bytes\n",
            jm, jsz, s->helpers, s->helpers_size);
    fprintf(out, "gc:          %" PRIu64 " resizes, max heap %" PRIu64 ", %" PRIu64 " moves", s->gc_resizes, s->max_heap,
            s->moves);
    for (int g = 0; g < 3; g++)
        if (s->gc[g].count) fprintf(out, ", gen%d %" PRIu64 " collections", g, s->gc[g].count);
    fprintf(out, "\n");
    fprintf(out, "allocations: %" PRIu64 " objects, %" PRIu64 " bytes\n", allocs, bytes);
    fprintf(out, "calls:       %" PRIu64 "\n", calls);
    fprintf(out, "exceptions:  %" PRIu64 " throws; clauses: %" PRIu64 " catch, %" PRIu64 " filter, %" PRIu64
                 " finally, %" PRIu64 " fault\n",
            s->throws, s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_CATCH], s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FILTER],
            s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FINALLY], s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FAULT]);
    fprintf(out, "monitors:    %" PRIu64 " contentions, %" PRIu64 " acquired, %" PRIu64 " failures\n", s->contentions,
            s->acquired, s->failures);
    if (s->n_ips) fprintf(out, "samples:     %zu hits, %zu unmanaged symbols\n", s->n_ips, s->n_usyms);
    fprintf(out, "threads:     ");
    first = true;
    for (size_t i = 0; i < s->n_thr; i++) {
        if (!s->thr[i].id) continue;
        const char *nm = pcd_mono_name(&s->names, s->thr[i].name);
        fprintf(out, "%s0x%" PRIx64 "%s%s%s", first ? "" : ", ", s->thr[i].id, nm ? " \"" : "", nm ? nm : "",
                nm ? "\"" : "");
        first = false;
    }
    fprintf(out, "\n");
    if (s->n_dom) {
        fprintf(out, "domains:     ");
        for (size_t i = 0; i < s->n_dom; i++) {
            const char *nm = pcd_mono_name(&s->names, s->dom[i].name);
            fprintf(out, "%s0x%" PRIx64 "%s%s%s", i ? ", " : "", s->dom[i].id, nm ? " \"" : "", nm ? nm : "",
                    nm ? "\"" : "");
        }
        fprintf(out, "\n");
    }
}

#define PUT(...)                                                                        \
    do {                                                                                \
        int n_ = snprintf(buf, sizeof buf, __VA_ARGS__);                                \
        PCD_TRY(pcd_sink_put(sk, buf, (size_t)n_ < sizeof buf ? (size_t)n_ : sizeof buf - 1)); \
    } while (0)

static pcd_status put_name(pcd_sink *sk, const char *nm)
{
    return pcd_json_text(sk, (const uint8_t *)nm, strlen(nm));
}

static pcd_status info_json(void *ctx, pcd_sink *sk)
{
    mono_info *m = ctx;
    pcd_mono_sum *s = &m->s;
    char buf[512];
    pcd_mono_sort_usyms(s);
    uint64_t jm = 0, jsz = 0;
    for (size_t i = 0; i < s->n_mth; i++)
        if (s->mth[i].code) jm++, jsz += s->mth[i].len;
    PUT("\"header\":{\"major\":%u,\"minor\":%u,\"data_version\":%u,\"ptr_size\":%u,\"startup_ms\":%" PRIu64
        ",\"timer_overhead\":%" PRIu64 ",\"pid\":%" PRIu64 ",\"port\":%" PRIu64,
        s->major, s->minor, s->data_version, s->ptr_size, s->startup_ms, s->timer_overhead, s->pid, s->port);
    if (s->args) {
        PCD_TRY(pcd_json_raw(sk, ",\"args\":"));
        PCD_TRY(put_name(sk, pcd_mono_name(&s->names, s->args)));
        PCD_TRY(pcd_json_raw(sk, ",\"arch\":"));
        PCD_TRY(put_name(sk, pcd_mono_name(&s->names, s->arch)));
        PCD_TRY(pcd_json_raw(sk, ",\"os\":"));
        PCD_TRY(put_name(sk, pcd_mono_name(&s->names, s->os)));
    }
    PUT("},\"buffers\":%" PRIu64 ",\"events\":%" PRIu64 ",\"events_by_type\":{", s->buffers, s->events);
    bool first = true;
    for (int i = 0; i < 16; i++) {
        if (!m->by_type[i]) continue;
        PUT("%s\"%s\":%" PRIu64, first ? "" : ",", type_names[i], m->by_type[i]);
        first = false;
    }
    PUT("},\"jit\":{\"methods\":%" PRIu64 ",\"code_size\":%" PRIu64 ",\"helpers\":%" PRIu64
        ",\"helpers_code_size\":%" PRIu64 "}",
        jm, jsz, s->helpers, s->helpers_size);
    PUT(",\"gc\":{\"resizes\":%" PRIu64 ",\"max_heap_size\":%" PRIu64 ",\"moves\":%" PRIu64 ",\"collections\":{",
        s->gc_resizes, s->max_heap, s->moves);
    for (int g = 0; g < 3; g++)
        PUT("%s\"gen%d\":{\"count\":%" PRIu64 ",\"max_us\":%" PRIu64 ",\"total_us\":%" PRIu64 "}", g ? "," : "", g,
            s->gc[g].count, s->gc[g].max / 1000, s->gc[g].total / 1000);
    PCD_TRY(pcd_json_raw(sk, "},\"handles\":{"));
    static const char *const hn[4] = {
        [PCD_MONO_V3_0_GC_HANDLE_TYPE_WEAK] = "weak", [PCD_MONO_V3_0_GC_HANDLE_TYPE_WEAKTRACK] = "weaktrack",
        [PCD_MONO_V3_0_GC_HANDLE_TYPE_NORMAL] = "normal", [PCD_MONO_V3_0_GC_HANDLE_TYPE_PINNED] = "pinned",
    };
    for (int h = 0; h < 4; h++)
        PUT("%s\"%s\":{\"created\":%" PRIu64 ",\"destroyed\":%" PRIu64 ",\"max_live\":%" PRIu64 "}", h ? "," : "",
            hn[h], s->handles[h].created, s->handles[h].destroyed, s->handles[h].max_live);
    PCD_TRY(pcd_json_raw(sk, "}},\"allocations\":{"));
    /* allocations by class name */
    size_t nv = s->n_cls + s->n_mth + 1;
    named *v = pcd_alloc_get(s->al, nv * sizeof *v);
    char (*tmps)[64] = pcd_alloc_get(s->al, nv * sizeof *tmps);
    if (!v || !tmps) {
        if (v) pcd_alloc_free(s->al, v, nv * sizeof *v);
        if (tmps) pcd_alloc_free(s->al, tmps, nv * sizeof *tmps);
        return PCD_E_NOMEM;
    }
    size_t n = 0;
    uint64_t total_allocs = 0, total_bytes = 0;
    for (size_t i = 0; i < s->n_cls; i++) {
        if (!s->cls[i].allocs) continue;
        v[n] = (named){ pcd_mono_class_name(s, s->cls[i].ptr, tmps[n], sizeof tmps[n]), s->cls[i].bytes, s->cls[i].allocs };
        total_allocs += s->cls[i].allocs;
        total_bytes += s->cls[i].bytes;
        n++;
    }
    n = merge_named(v, n);
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, v[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":{\"bytes\":%" PRIu64 ",\"count\":%" PRIu64 "}", v[i].a, v[i].b);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    /* calls by method name */
    uint64_t total_calls = 0;
    if (st == PCD_OK) st = pcd_json_raw(sk, "},\"calls\":{");
    n = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        if (!s->mth[i].calls) continue;
        v[n] = (named){ pcd_mono_method_name(s, s->mth[i].ptr, tmps[n], sizeof tmps[n]), s->mth[i].calls, 0 };
        total_calls += s->mth[i].calls;
        n++;
    }
    n = merge_named(v, n);
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, v[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":%" PRIu64, v[i].a);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    pcd_alloc_free(s->al, v, nv * sizeof *v);
    pcd_alloc_free(s->al, tmps, nv * sizeof *tmps);
    PCD_TRY(st);
    PUT("},\"totals\":{\"allocated_bytes\":%" PRIu64 ",\"allocated_objects\":%" PRIu64 ",\"calls\":%" PRIu64 "}",
        total_bytes, total_allocs, total_calls);
    PUT(",\"exceptions\":{\"throws\":%" PRIu64 ",\"clauses\":{\"catch\":%" PRIu64 ",\"finally\":%" PRIu64
        ",\"filter\":%" PRIu64 ",\"fault\":%" PRIu64 "}}",
        s->throws, s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_CATCH], s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FINALLY],
        s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FILTER], s->clauses[PCD_MONO_V3_0_CLAUSE_TYPE_FAULT]);
    PUT(",\"monitors\":{\"contentions\":%" PRIu64 ",\"acquired\":%" PRIu64 ",\"failures\":%" PRIu64 "}",
        s->contentions, s->acquired, s->failures);
    PUT(",\"metadata\":{\"images\":%" PRIu64 ",\"assemblies\":%" PRIu64 "}", s->images, s->assemblies);
    PCD_TRY(pcd_json_raw(sk, ",\"threads\":{"));
    first = true;
    for (size_t i = 0; i < s->n_thr; i++) {
        if (!s->thr[i].id) continue;
        const char *nm = pcd_mono_name(&s->names, s->thr[i].name);
        PUT("%s\"0x%" PRIx64 "\":", first ? "" : ",", s->thr[i].id);
        PCD_TRY(put_name(sk, nm ? nm : ""));
        first = false;
    }
    /* domains by id: their names (null when never named); contexts by id: their domains */
    PCD_TRY(pcd_json_raw(sk, "},\"domains\":{"));
    for (size_t i = 0; i < s->n_dom; i++) {
        PUT("%s\"0x%" PRIx64 "\":", i ? "," : "", s->dom[i].id);
        const char *nm = pcd_mono_name(&s->names, s->dom[i].name);
        if (nm) PCD_TRY(put_name(sk, nm));
        else PCD_TRY(pcd_json_raw(sk, "null"));
    }
    PCD_TRY(pcd_json_raw(sk, "},\"contexts\":{"));
    for (size_t i = 0; i < s->n_ctx; i++) PUT("%s\"0x%" PRIx64 "\":\"0x%" PRIx64 "\"", i ? "," : "", s->ctx[i].id, s->ctx[i].domain);
    PCD_TRY(pcd_json_raw(sk, "},\"samples\":{"));
    size_t ns;
    uint64_t mh, uh, rh;
    named *sv = sample_table(s, &ns, &mh, &uh, &rh);
    if (!sv) return PCD_E_NOMEM;
    for (size_t i = 0; i < ns && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, sv[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":%" PRIu64, sv[i].a);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    pcd_alloc_free(s->al, sv, (s->n_ips + 1) * sizeof *sv);
    PCD_TRY(st);
    PUT("},\"sample_hits\":{\"total\":%zu,\"managed\":%" PRIu64 ",\"unmanaged\":%" PRIu64 ",\"unresolved\":%" PRIu64
        "}",
        s->n_ips, mh, uh, rh);
    return s->oom ? PCD_E_NOMEM : PCD_OK;
}

static void info_fini(void *ctx)
{
    mono_info *m = ctx;
    pcd_mono_sum_fini(&m->s);
}

/* The summary never looks at a backtrace's frames (nor a sample's managed frames): they are
 * checked and their running method moves on, but they are not stored. The bit is the same in
 * both versions. */
PCD_STATIC_ASSERT(PCD_MONO_V0_1_COUNT_ONLY_BACKTRACE == PCD_MONO_V3_0_COUNT_ONLY_BACKTRACE, "backtrace bit");

const pcd_info_ops pcd_mono_info_ops = {
    sizeof(mono_info), info_init, info_record, info_text, info_json, info_fini,
    .count_only = PCD_MONO_V3_0_COUNT_ONLY_BACKTRACE,
};
