/* test_mono.c: Mono log profiler files: every real file against what mprof-report printed
 * for it (the info summary), event counts against mprof-report --debug dumps, byte-exact
 * dump|encode, the same events in the 2010 format and in data 17, damage in a buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <jansson.h>
#include <zlib.h>

#include "mono_v0_1.h"
#include "mono_v3_0.h"
#include "pcd.h"
#include "../runtime/count_only.h"

/* ---- helpers ------------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = (size_t)n;
    return b;
}

/* The whole file, gunzipped when it is gzip (zlib reads other files as they are). */
static char *slurp_gz(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    for (int got; b && (got = gzread(g, b + n, (unsigned)(cap - n))) > 0;) {
        n += (size_t)got;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb, cap *= 2;
        }
    }
    gzclose(g);
    if (b) b[n] = 0;
    if (len) *len = n;
    return b;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The real files: the shared corpus (when present) and tests/data/mono (SOURCE.md there). */
static const char *const names[] = { "alloc", "calls", "exc", "exc-zip", "heapshot", "monitor", "threads",
                                     "sample", "misc", "unload", "events-nobt", "events-bt", "enterleave",
                                     "heapwalk", "counters", "aot", NULL };

/* NAME + ext, or NAME + ext + ".gz" (the larger mprof-report --debug dumps are kept gzipped) */
static bool file_of(const char *name, const char *ext, char *out, size_t cap)
{
    static const char *const dirs[2] = { PCD_CORPUS, PCD_TESTDATA };
    for (int d = 0; d < 2; d++)
        for (int gz = 0; gz < 2; gz++) {
            snprintf(out, cap, "%s/mono/%s%s%s", dirs[d], name, ext, gz ? ".gz" : "");
            if (exists(out)) return true;
        }
    return false;
}

static json_t *info_json(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' info --json '%s'", PCD_CLI, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    json_error_t je;
    json_t *j = json_loadf(p, 0, &je);
    int rc = pclose(p);
    assert_int_equal(rc, 0);
    assert_non_null(j);
    json_t *s = json_object_get(j, "summary");
    assert_non_null(s);
    json_incref(s);
    json_decref(j);
    return s;
}

static uint64_t jget(json_t *o, const char *path)
{
    char buf[256];
    size_t n = strlen(path);
    if (n >= sizeof buf) fail_msg("summary path too long: %s", path);
    memcpy(buf, path, n + 1);
    json_t *at = o;
    for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
        at = json_object_get(at, tok);
        if (!at) fail_msg("no %s in the summary", path);
    }
    return (uint64_t)json_integer_value(at);
}

/* "<spaces>NUMBER" fields of a line, then the rest (the name). */
static bool numbers_then_name(const char *line, int k, uint64_t *v, const char **name)
{
    const char *p = line;
    for (int i = 0; i < k; i++) {
        while (*p == ' ' || *p == '\t') p++;
        char *end;
        double d = strtod(p, &end);
        if (end == p) return false;
        v[i] = (uint64_t)d;
        p = end;
    }
    if (*p != ' ') return false;
    *name = p + 1;
    return true;
}

/* name -> summed value, from report lines */
typedef struct tally {
    json_t *m;
} tally;

static void tally_add(json_t *m, const char *name, size_t len, uint64_t a, uint64_t b, bool pair)
{
    char key[4096];
    snprintf(key, sizeof key, "%.*s", (int)len, name);
    json_t *cur = json_object_get(m, key);
    if (pair) {
        if (!cur) {
            cur = json_pack("{s:I,s:I}", "bytes", (json_int_t)0, "count", (json_int_t)0);
            json_object_set_new(m, key, cur);
        }
        json_object_set_new(cur, "bytes", json_integer(json_integer_value(json_object_get(cur, "bytes")) + (json_int_t)a));
        json_object_set_new(cur, "count", json_integer(json_integer_value(json_object_get(cur, "count")) + (json_int_t)b));
    } else {
        json_object_set_new(m, key, json_integer((cur ? json_integer_value(cur) : 0) + (json_int_t)a));
    }
}

/* Compares what a report shows with the summary. exact: the report lists every entry. */
static void check_map(const char *file, const char *what, json_t *want, json_t *got, bool exact)
{
    const char *k;
    json_t *v;
    json_object_foreach(want, k, v) {
        json_t *g = json_object_get(got, k);
        if (!g || !json_equal(g, v)) {
            char *ws = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY), *gs = g ? json_dumps(g, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            fail_msg("%s: %s[\"%s\"]: mprof-report %s, summary %s", file, what, k, ws, gs ? gs : "(missing)");
        }
    }
    if (exact && json_object_size(want) != json_object_size(got))
        fail_msg("%s: %s: mprof-report lists %zu, the summary %zu", file, what, json_object_size(want),
                 json_object_size(got));
}

/* ---- the summary against mprof-report ------------------------------------------------- */

/* A pointer as mprof-report prints it (%p: "0x..." or "(nil)") as the summary's key. */
static const char *hexkey(const char *p)
{
    return strcmp(p, "(nil)") == 0 ? "0x0" : p;
}

static void check_report(const char *name)
{
    char mlpd[1024], rep[1024], verb[1024];
    if (!file_of(name, ".mlpd", mlpd, sizeof mlpd) || !file_of(name, ".report.txt", rep, sizeof rep)) return;
    bool have_verbose = file_of(name, ".verbose.txt", verb, sizeof verb);
    json_t *s = info_json(mlpd);
    char *text = slurp(rep, NULL);
    char *vtext = have_verbose ? slurp(verb, NULL) : NULL;
    assert_non_null(text);
    json_t *allocs = json_object(), *calls = json_object(), *threads = json_object(), *samples = json_object();
    json_t *domains = json_object(), *contexts = json_object();
    enum { NONE, ALLOC, CALLS, SAMPLES } sec = NONE;
    uint64_t v[4];
    const char *nm;
    bool saw_handles[3] = { false, false, false }, saw_gen[3] = { false, false, false };
    /* the verbose report lists every method and sample; the plain one only the big ones */
    for (int pass = 0; pass < 2; pass++) {
        char *src = pass == 0 ? text : vtext;
        if (!src) continue;
        char *save = NULL;
        char *copy = strdup(src);
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char sbuf[512];
            if (strstr(line, "Bytes      Count  Average Type name") && !strstr(line, "Class name")) { sec = ALLOC; continue; }
            if (strstr(line, "Self(ms)      Calls Method name")) { sec = CALLS; continue; }
            if (strstr(line, "Hits      % Method name")) { sec = SAMPLES; continue; }
            if (line[0] != ' ' && line[0] != '\t') sec = NONE;
            if (sec == ALLOC && pass == 0 && numbers_then_name(line, 3, v, &nm)) {
                tally_add(allocs, nm, strlen(nm), v[0], v[1], true);
                continue;
            }
            if (sec == CALLS && pass == (have_verbose ? 1 : 0) && numbers_then_name(line, 3, v, &nm)) {
                tally_add(calls, nm, strlen(nm), v[2], 0, false);
                continue;
            }
            if (sec == SAMPLES && pass == (have_verbose ? 1 : 0) && numbers_then_name(line, 2, v, &nm)) {
                while (*nm == ' ') nm++;
                tally_add(samples, nm, strlen(nm), v[0], 0, false);
                continue;
            }
            if (pass == 1) continue;
            unsigned long long a, b, c;
            int g;
            if (sscanf(line, "\tCompiled methods: %llu", &a) == 1) assert_int_equal(a, jget(s, "jit.methods"));
            if (sscanf(line, "\tGenerated code size: %llu", &a) == 1) assert_int_equal(a, jget(s, "jit.code_size"));
            if (sscanf(line, "\tJIT helpers: %llu", &a) == 1) assert_int_equal(a, jget(s, "jit.helpers"));
            if (sscanf(line, "\tJIT helpers code size: %llu", &a) == 1) assert_int_equal(a, jget(s, "jit.helpers_code_size"));
            if (sscanf(line, "\tGC resizes: %llu", &a) == 1) assert_int_equal(a, jget(s, "gc.resizes"));
            if (sscanf(line, "\tMax heap size: %llu", &a) == 1) assert_int_equal(a, jget(s, "gc.max_heap_size"));
            if (sscanf(line, "\tObject moves: %llu", &a) == 1) assert_int_equal(a, jget(s, "gc.moves"));
            if (sscanf(line, "\tGen%d collections: %llu, max time: %lluus, total time: %lluus", &g, &a, &b, &c) == 4) {
                snprintf(sbuf, sizeof sbuf, "gc.collections.gen%d.count", g);
                assert_int_equal(a, jget(s, sbuf));
                snprintf(sbuf, sizeof sbuf, "gc.collections.gen%d.max_us", g);
                assert_int_equal(b, jget(s, sbuf));
                snprintf(sbuf, sizeof sbuf, "gc.collections.gen%d.total_us", g);
                assert_int_equal(c, jget(s, sbuf));
                saw_gen[g] = true;
            }
            char hn[32];
            if (sscanf(line, "\tGC handles %31[a-z]: created: %llu, destroyed: %llu, max: %llu", hn, &a, &b, &c) == 4) {
                snprintf(sbuf, sizeof sbuf, "gc.handles.%s.created", hn);
                assert_int_equal(a, jget(s, sbuf));
                snprintf(sbuf, sizeof sbuf, "gc.handles.%s.destroyed", hn);
                assert_int_equal(b, jget(s, sbuf));
                snprintf(sbuf, sizeof sbuf, "gc.handles.%s.max_live", hn);
                assert_int_equal(c, jget(s, sbuf));
                saw_handles[strcmp(hn, "weak") == 0 ? 0 : strcmp(hn, "weaktrack") == 0 ? 1 : 2] = true;
            }
            if (sscanf(line, "\tThrows: %llu", &a) == 1) assert_int_equal(a, jget(s, "exceptions.throws"));
            char cn[32];
            if (sscanf(line, "\tExecuted %31[a-z] clauses: %llu", cn, &a) == 2) {
                snprintf(sbuf, sizeof sbuf, "exceptions.clauses.%s", cn);
                assert_int_equal(a, jget(s, sbuf));
            }
            if (sscanf(line, "\tLock contentions: %llu", &a) == 1) assert_int_equal(a, jget(s, "monitors.contentions"));
            if (sscanf(line, "\tLock acquired: %llu", &a) == 1) assert_int_equal(a, jget(s, "monitors.acquired"));
            if (sscanf(line, "\tLock failures: %llu", &a) == 1) assert_int_equal(a, jget(s, "monitors.failures"));
            if (sscanf(line, "\tLoaded images: %llu", &a) == 1) assert_int_equal(a, jget(s, "metadata.images"));
            if (sscanf(line, "\tLoaded assemblies: %llu", &a) == 1) assert_int_equal(a, jget(s, "metadata.assemblies"));
            if (sscanf(line, "Total memory allocated: %llu bytes in %llu objects", &a, &b) == 2) {
                assert_int_equal(a, jget(s, "totals.allocated_bytes"));
                assert_int_equal(b, jget(s, "totals.allocated_objects"));
            }
            if (sscanf(line, "Total calls: %llu", &a) == 1) assert_int_equal(a, jget(s, "totals.calls"));
            char tid[64];
            int off = 0;
            if (sscanf(line, "\tThread: %63[^,], name: \"%n", tid, &off) == 1 && off > 0) {
                const char *q = line + off;
                size_t len = strlen(q);
                if (len && q[len - 1] == '"') len--;
                json_object_set_new(threads, tid, json_stringn(q, len));
            }
            /* "Domain: %p, friendly name: \"%s\"" and "Context: %p, domain: %p"; %p of 0 is
             * "(nil)", %s of NULL (a domain never named) "(null)" */
            char did[64], cid[64];
            if (sscanf(line, "\tDomain: %63[^,], friendly name: \"%n", did, &off) == 1 && off > 0) {
                const char *q = line + off;
                size_t len = strlen(q);
                if (len && q[len - 1] == '"') len--;
                json_object_set_new(domains, hexkey(did), len == 6 && strncmp(q, "(null)", 6) == 0 ? json_null()
                                                                                              : json_stringn(q, len));
            }
            if (sscanf(line, "\tContext: %63[^,], domain: %63s", cid, did) == 2) {
                char ck[64];
                snprintf(ck, sizeof ck, "%s", hexkey(cid));
                json_object_set_new(contexts, ck, json_string(hexkey(did)));
            }
        }
        free(copy);
    }
    /* gens and handle kinds the report leaves out are zero */
    for (int g = 0; g < 3; g++) {
        char sbuf[64];
        snprintf(sbuf, sizeof sbuf, "gc.collections.gen%d.count", g);
        if (!saw_gen[g]) assert_int_equal(jget(s, sbuf), 0);
    }
    static const char *const hk[3] = { "weak", "weaktrack", "normal" };
    for (int h = 0; h < 3; h++) {
        char sbuf[64];
        snprintf(sbuf, sizeof sbuf, "gc.handles.%s.max_live", hk[h]);
        if (!saw_handles[h]) assert_int_equal(jget(s, sbuf), 0);
    }
    check_map(name, "allocations", allocs, json_object_get(s, "allocations"), true);
    check_map(name, "calls", calls, json_object_get(s, "calls"), have_verbose);
    check_map(name, "threads", threads, json_object_get(s, "threads"), true);
    check_map(name, "samples", samples, json_object_get(s, "samples"), have_verbose);
    check_map(name, "domains", domains, json_object_get(s, "domains"), true);
    check_map(name, "contexts", contexts, json_object_get(s, "contexts"), true);
    json_decref(domains);
    json_decref(contexts);
    json_decref(allocs);
    json_decref(calls);
    json_decref(threads);
    json_decref(samples);
    json_decref(s);
    free(text);
    free(vtext);
}

static void test_summary_matches_mprof_report(void **state)
{
    (void)state;
    for (int i = 0; names[i]; i++) check_report(names[i]);
}

/* ---- event counts against mprof-report --debug ----------------------------------------- */

static size_t count_prefix(const char *text, const char *prefix)
{
    size_t n = 0, k = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, "Mono log profiler data", 22) == 0) break; /* the report follows the events */
        if (strncmp(p, prefix, k) == 0) n++;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return n;
}

typedef struct counts {
    size_t buffers, load[8], unload[8], named[8], vtables, enter, leave, exleave, jit, root_reg, root_unreg,
        root_pairs, throws, clauses, monitors, sync, allocs, moved, gc_events, resizes, handles, fin_queue,
        fin_start, fin_end, sample_ips, sample_frames, usyms, helpers, heap_start, heap_end, traced, aot_ids;
} counts;

static void count_v3(const pcd_mono_v3_0_event *e, counts *c)
{
    switch (e->which) {
    case PCD_MONO_V3_0_EVENT_METADATA_LOAD:
        c->load[e->u.metadata_load.mtype & 7]++;
        if (e->u.metadata_load.mtype == 7) c->vtables++;
        break;
    case PCD_MONO_V3_0_EVENT_METADATA_UNLOAD:
        c->unload[e->u.metadata_unload.mtype & 7]++;
        if (e->u.metadata_unload.mtype == 7) c->vtables++;
        break;
    case PCD_MONO_V3_0_EVENT_METADATA_NAME:
        c->named[e->u.metadata_name.mtype & 7]++;
        if (e->u.metadata_name.mtype == 7) c->vtables++;
        break;
    case PCD_MONO_V3_0_EVENT_METHOD_ENTER: c->enter++; break;
    case PCD_MONO_V3_0_EVENT_METHOD_LEAVE: c->leave++; break;
    case PCD_MONO_V3_0_EVENT_METHOD_EXC_LEAVE: c->exleave++; break;
    case PCD_MONO_V3_0_EVENT_JIT: c->jit++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_ROOT_REGISTER: c->root_reg++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_ROOT_UNREGISTER: c->root_unreg++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_ROOT: c->root_pairs += e->u.heap_root.n_roots; break;
    case PCD_MONO_V3_0_EVENT_THROW: case PCD_MONO_V3_0_EVENT_THROW_BT: c->throws++; break;
    case PCD_MONO_V3_0_EVENT_CLAUSE: c->clauses++; break;
    case PCD_MONO_V3_0_EVENT_MONITOR: case PCD_MONO_V3_0_EVENT_MONITOR_BT: c->monitors++; break;
    case PCD_MONO_V3_0_EVENT_SYNC_POINT: c->sync++; break;
    case PCD_MONO_V3_0_EVENT_ALLOC: case PCD_MONO_V3_0_EVENT_ALLOC_BT: c->allocs++; break;
    case PCD_MONO_V3_0_EVENT_GC_MOVE: c->moved += e->u.gc_move.n_objects / 2; break;
    case PCD_MONO_V3_0_EVENT_GC_EVENT: c->gc_events++; break;
    case PCD_MONO_V3_0_EVENT_GC_RESIZE: c->resizes++; break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED: case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED_BT:
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED: case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED_BT: c->handles++; break;
    case PCD_MONO_V3_0_EVENT_GC_FINALIZE_START: case PCD_MONO_V3_0_EVENT_GC_FINALIZE_END: c->fin_queue++; break;
    case PCD_MONO_V3_0_EVENT_GC_FINALIZE_OBJECT_START: c->fin_start++; break;
    case PCD_MONO_V3_0_EVENT_GC_FINALIZE_OBJECT_END: c->fin_end++; break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_HIT:
        c->sample_ips += e->u.sample_hit.n_ips;
        c->sample_frames += e->u.sample_hit.n_frames;
        break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_USYM: c->usyms++; break;
    case PCD_MONO_V3_0_EVENT_JIT_HELPER: c->helpers++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_START: c->heap_start++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_END: c->heap_end++; break;
    case PCD_MONO_V3_0_EVENT_HEAP_OBJECT: c->traced += e->u.heap_object.size != 0; break;
    case PCD_MONO_V3_0_EVENT_AOT_ID: c->aot_ids++; break;
    default: break;
    }
}

static void decode_counts(const char *path, counts *c)
{
    size_t n;
    char *data = slurp_gz(path, &n);
    assert_non_null(data);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_mono_v3_0_format, (const uint8_t *)data, n, &o), PCD_OK);
    memset(c, 0, sizeof *c);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (rec.type == &pcd_mono_v3_0_buffer_type) c->buffers++;
        if (rec.type == &pcd_mono_v3_0_event_type) count_v3(rec.data, c);
    }
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    free(data);
}

static void check_debug(const char *name)
{
    char mlpd[1024], dbg[1024];
    if (!file_of(name, ".mlpd", mlpd, sizeof mlpd) || !file_of(name, ".debug.txt", dbg, sizeof dbg)) return;
    char *t = slurp_gz(dbg, NULL);
    counts c;
    decode_counts(mlpd, &c);
    assert_int_equal(count_prefix(t, "buf: "), c.buffers);
    assert_int_equal(count_prefix(t, "loaded class"), c.load[1]);
    assert_int_equal(count_prefix(t, "loaded image"), c.load[2]);
    assert_int_equal(count_prefix(t, "loaded assembly"), c.load[3]);
    /* mprof-report prints domain loads and unloads as "thread" */
    assert_int_equal(count_prefix(t, "loaded thread"), c.load[5] + c.load[4]);
    assert_int_equal(count_prefix(t, "unloaded thread"), c.unload[5] + c.unload[4]);
    assert_int_equal(count_prefix(t, "unloaded class"), c.unload[1]);
    assert_int_equal(count_prefix(t, "unloaded image"), c.unload[2]);
    assert_int_equal(count_prefix(t, "unloaded assembly"), c.unload[3]);
    assert_int_equal(count_prefix(t, "loaded context"), c.load[6]);
    assert_int_equal(count_prefix(t, "unloaded context"), c.unload[6]);
    assert_int_equal(count_prefix(t, "thread 0x"), c.named[5]);
    assert_int_equal(count_prefix(t, "domain "), c.named[4]);
    assert_int_equal(count_prefix(t, "vtable "), c.vtables);
    assert_int_equal(count_prefix(t, "enter method"), c.enter);
    assert_int_equal(count_prefix(t, "leave method"), c.leave);
    assert_int_equal(count_prefix(t, "exleave method"), c.exleave);
    assert_int_equal(count_prefix(t, "jitted method"), c.jit);
    assert_int_equal(count_prefix(t, "root register"), c.root_reg);
    assert_int_equal(count_prefix(t, "root unregister"), c.root_unreg);
    assert_int_equal(count_prefix(t, "root object"), c.root_pairs);
    assert_int_equal(count_prefix(t, "throw "), c.throws);
    assert_int_equal(count_prefix(t, "clause "), c.clauses);
    assert_int_equal(count_prefix(t, "monitor "), c.monitors);
    assert_int_equal(count_prefix(t, "sync point"), c.sync);
    assert_int_equal(count_prefix(t, "alloced object"), c.allocs);
    assert_int_equal(count_prefix(t, "moved obj"), c.moved);
    assert_int_equal(count_prefix(t, "gc event"), c.gc_events);
    assert_int_equal(count_prefix(t, "gc heap resized"), c.resizes);
    assert_int_equal(count_prefix(t, "handle ("), c.handles);
    assert_int_equal(count_prefix(t, "gc finalizer queue"), c.fin_queue);
    assert_int_equal(count_prefix(t, "gc finalizing object"), c.fin_start);
    assert_int_equal(count_prefix(t, "gc finalized object"), c.fin_end);
    assert_int_equal(count_prefix(t, "sample hit, type"), c.sample_ips);
    assert_int_equal(count_prefix(t, "sample hit bt"), c.sample_frames);
    assert_int_equal(count_prefix(t, "unmanaged symbol"), c.usyms);
    assert_int_equal(count_prefix(t, "jit helper"), c.helpers);
    assert_int_equal(count_prefix(t, "heap shot start"), c.heap_start);
    assert_int_equal(count_prefix(t, "heap shot end"), c.heap_end);
    /* mprof-report prints a heap object once, where its size is given */
    assert_int_equal(count_prefix(t, "traced object"), c.traced);
    assert_int_equal(count_prefix(t, "aot id"), c.aot_ids);
    free(t);
}

static void test_counts_match_debug_dumps(void **state)
{
    (void)state;
    for (int i = 0; names[i]; i++) check_debug(names[i]);
}

/* ---- dump | encode --------------------------------------------------------------------- */

static void test_dump_encode_identical(void **state)
{
    (void)state;
    for (int i = 0; names[i]; i++) {
        char mlpd[1024], cmd[16384];
        if (!file_of(names[i], ".mlpd", mlpd, sizeof mlpd)) continue;
        snprintf(cmd, sizeof cmd,
                 "'%s' dump '%s' -o %s/%s.jsonl && '%s' encode %s/%s.jsonl -o %s/%s.out && "
                 "{ if gzip -t '%s' 2>/dev/null; then gzip -dc '%s'; else cat '%s'; fi; } | cmp -s - %s/%s.out",
                 PCD_CLI, mlpd, PCD_BINDIR, names[i], PCD_CLI, PCD_BINDIR, names[i], PCD_BINDIR, names[i], mlpd, mlpd,
                 mlpd, PCD_BINDIR, names[i]);
        if (system(cmd) != 0) fail_msg("%s: dump | encode does not give back the (decompressed) bytes", names[i]);
    }
}

/* ---- the same events in 0.1 and in 3.0 -------------------------------------------------- */

static uint8_t out[1 << 16];

static size_t encode(const pcd_format *f, const void *root, const pcd_region_desc *const *rd, const void *const *rec,
                     size_t n)
{
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, out, sizeof out, NULL, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_writer w;
    pcd_writer_open(&w, f, &s, &al);
    pcd_status st = pcd_writer_root(&w, root);
    for (size_t i = 0; st == PCD_OK && i < n; i++) st = pcd_writer_record(&w, rd[i], rec[i]);
    if (st == PCD_OK) st = pcd_writer_finish(&w);
    assert_int_equal(st, PCD_OK);
    size_t len = pcd_sink_tell(&s);
    pcd_writer_close(&w);
    return len;
}

/* One logical event, whatever the version: kind, time, and the values that matter. */
typedef struct logical {
    char kind[32];
    uint64_t time, a, b, c;
    int64_t bt[4];
    size_t n_bt;
} logical;

static size_t decode_logical(const pcd_format *f, size_t n, logical *lv, size_t max)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, f, out, n, &o), PCD_OK);
    pcd_record rec;
    size_t k = 0;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK && k < max) {
        logical *l = &lv[k];
        memset(l, 0, sizeof *l);
        if (rec.type == &pcd_mono_v0_1_event_type) {
            const pcd_mono_v0_1_event *e = rec.data;
            switch (e->which) {
            case PCD_MONO_V0_1_EVENT_ALLOC_BT:
                snprintf(l->kind, sizeof l->kind, "alloc_bt");
                l->time = e->u.alloc_bt.time, l->a = (uint64_t)e->u.alloc_bt.object, l->b = e->u.alloc_bt.size;
                l->n_bt = e->u.alloc_bt.backtrace.n_frames;
                memcpy(l->bt, e->u.alloc_bt.backtrace.frames, l->n_bt * sizeof *l->bt);
                break;
            case PCD_MONO_V0_1_EVENT_METHOD_ENTER:
                snprintf(l->kind, sizeof l->kind, "enter");
                l->time = e->u.method_enter.time, l->a = (uint64_t)e->u.method_enter.method;
                break;
            case PCD_MONO_V0_1_EVENT_JIT:
                snprintf(l->kind, sizeof l->kind, "jit:%.*s", (int)e->u.jit.name.len, e->u.jit.name.ptr);
                l->time = e->u.jit.time, l->a = (uint64_t)e->u.jit.method, l->b = (uint64_t)e->u.jit.code;
                l->c = e->u.jit.code_size;
                break;
            case PCD_MONO_V0_1_EVENT_GC_MOVE:
                snprintf(l->kind, sizeof l->kind, "move");
                l->time = e->u.gc_move.time, l->a = (uint64_t)e->u.gc_move.objects[0];
                l->b = (uint64_t)e->u.gc_move.objects[1];
                break;
            default: snprintf(l->kind, sizeof l->kind, "other");
            }
        } else if (rec.type == &pcd_mono_v3_0_event_type) {
            const pcd_mono_v3_0_event *e = rec.data;
            switch (e->which) {
            case PCD_MONO_V3_0_EVENT_ALLOC_BT:
                snprintf(l->kind, sizeof l->kind, "alloc_bt");
                l->time = e->u.alloc_bt.time, l->a = (uint64_t)e->u.alloc_bt.object, l->b = e->u.alloc_bt.size;
                l->n_bt = e->u.alloc_bt.n_backtrace;
                memcpy(l->bt, e->u.alloc_bt.backtrace, l->n_bt * sizeof *l->bt);
                break;
            case PCD_MONO_V3_0_EVENT_METHOD_ENTER:
                snprintf(l->kind, sizeof l->kind, "enter");
                l->time = e->u.method_enter.time, l->a = (uint64_t)e->u.method_enter.method;
                break;
            case PCD_MONO_V3_0_EVENT_JIT:
                snprintf(l->kind, sizeof l->kind, "jit:%.*s", (int)e->u.jit.name.len, e->u.jit.name.ptr);
                l->time = e->u.jit.time, l->a = (uint64_t)e->u.jit.method, l->b = (uint64_t)e->u.jit.code;
                l->c = e->u.jit.code_size;
                break;
            case PCD_MONO_V3_0_EVENT_GC_MOVE:
                snprintf(l->kind, sizeof l->kind, "move");
                l->time = e->u.gc_move.time, l->a = (uint64_t)e->u.gc_move.objects[0];
                l->b = (uint64_t)e->u.gc_move.objects[1];
                break;
            default: snprintf(l->kind, sizeof l->kind, "other");
            }
        } else {
            continue;
        }
        k++;
    }
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    return k;
}

static void test_same_events_both_versions(void **state)
{
    (void)state;
    const uint64_t tb = 5000000, pb = 0x7f0000001000, ob = 0x7f0000200000 >> 3, mb = 0x55aa00001000;
    int64_t bt[3] = { 0x55aa00001040, 0x55aa00001000, 0x55aa00002000 };
    int64_t moved[2] = { 0x7f0000200040, 0x7f0000300000 };
    /* 0.1 */
    pcd_mono_v0_1_file h1 = { 0 };
    h1.major = 0, h1.minor = 1, h1.data_version = 1, h1.ptr_size = 8;
    pcd_mono_v0_1_buffer b1 = { 0 };
    b1.time_base = tb, b1.ptr_base = pb, b1.obj_base = ob, b1.thread_id = 0x7f00aa, b1.method_base = mb;
    pcd_mono_v0_1_event j1 = { 0 }, e1 = { 0 }, a1 = { 0 }, m1 = { 0 };
    j1.which = PCD_MONO_V0_1_EVENT_JIT;
    j1.u.jit = (pcd_mono_v0_1_event_jit){ tb + 10, 0x55aa00001040, 0x7f0000009000, 120,
                                          { (const uint8_t *)"Test:Main ()", 12 } };
    e1.which = PCD_MONO_V0_1_EVENT_METHOD_ENTER;
    e1.u.method_enter = (pcd_mono_v0_1_event_method_enter){ tb + 25, 0x55aa00001040 };
    a1.which = PCD_MONO_V0_1_EVENT_ALLOC_BT;
    a1.u.alloc_bt.time = tb + 40, a1.u.alloc_bt.class = 0x7f0000001800, a1.u.alloc_bt.object = 0x7f0000200040;
    a1.u.alloc_bt.size = 32, a1.u.alloc_bt.backtrace.frames = bt, a1.u.alloc_bt.backtrace.n_frames = 3;
    m1.which = PCD_MONO_V0_1_EVENT_GC_MOVE;
    m1.u.gc_move = (pcd_mono_v0_1_event_gc_move){ tb + 90, moved, 2 };
    const pcd_region_desc *rd1[] = { &pcd_mono_v0_1_region_buffers, &pcd_mono_v0_1_region_events,
                                     &pcd_mono_v0_1_region_events, &pcd_mono_v0_1_region_events,
                                     &pcd_mono_v0_1_region_events };
    const void *rec1[] = { &b1, &j1, &e1, &a1, &m1 };
    size_t n1 = encode(&pcd_mono_v0_1_format, &h1, rd1, rec1, 5);
    assert_memory_equal(out, "\x01ZPM\x00\x01\x01\x08", 8);
    logical l1[8], l3[8];
    size_t k1 = decode_logical(&pcd_mono_v0_1_format, n1, l1, 8);
    /* 3.0 */
    pcd_mono_v3_0_file h3 = { 0 };
    h3.major = 3, h3.minor = 0, h3.data_version = 17, h3.ptr_size = 8;
    h3.args = (pcd_bytes){ (const uint8_t *)"log:test", 8 };
    h3.arch = (pcd_bytes){ (const uint8_t *)"x86-64", 6 };
    h3.os = (pcd_bytes){ (const uint8_t *)"linux", 5 };
    pcd_mono_v3_0_buffer b3 = { 0 };
    b3.time_base = tb, b3.ptr_base = pb, b3.obj_base = ob, b3.thread_id = 0x7f00aa, b3.method_base = mb;
    pcd_mono_v3_0_event j3 = { 0 }, e3 = { 0 }, a3 = { 0 }, m3 = { 0 };
    j3.which = PCD_MONO_V3_0_EVENT_JIT;
    j3.u.jit = (pcd_mono_v3_0_event_jit){ tb + 10, 0x55aa00001040, 0x7f0000009000, 120,
                                          { (const uint8_t *)"Test:Main ()", 12 } };
    e3.which = PCD_MONO_V3_0_EVENT_METHOD_ENTER;
    e3.u.method_enter = (pcd_mono_v3_0_event_method_enter){ tb + 25, 0x55aa00001040 };
    a3.which = PCD_MONO_V3_0_EVENT_ALLOC_BT;
    a3.u.alloc_bt.time = tb + 40, a3.u.alloc_bt.vtable = 0x7f0000001800, a3.u.alloc_bt.object = 0x7f0000200040;
    a3.u.alloc_bt.size = 32, a3.u.alloc_bt.backtrace = bt, a3.u.alloc_bt.n_backtrace = 3;
    m3.which = PCD_MONO_V3_0_EVENT_GC_MOVE;
    m3.u.gc_move = (pcd_mono_v3_0_event_gc_move){ tb + 90, moved, 2 };
    const pcd_region_desc *rd3[] = { &pcd_mono_v3_0_region_buffers, &pcd_mono_v3_0_region_events,
                                     &pcd_mono_v3_0_region_events, &pcd_mono_v3_0_region_events,
                                     &pcd_mono_v3_0_region_events };
    const void *rec3[] = { &b3, &j3, &e3, &a3, &m3 };
    size_t n3 = encode(&pcd_mono_v3_0_format, &h3, rd3, rec3, 5);
    /* the header: 38 fixed bytes, three size-prefixed strings with their NULs */
    assert_int_equal(out[38], 9);
    size_t k3 = decode_logical(&pcd_mono_v3_0_format, n3, l3, 8);
    assert_int_equal(k1, 4);
    assert_int_equal(k3, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(l1[i].kind, l3[i].kind);
        assert_int_equal(l1[i].time, l3[i].time);
        assert_int_equal(l1[i].a, l3[i].a);
        assert_int_equal(l1[i].b, l3[i].b);
        assert_int_equal(l1[i].c, l3[i].c);
        assert_int_equal(l1[i].n_bt, l3[i].n_bt);
        for (size_t j = 0; j < l1[i].n_bt; j++) assert_int_equal(l1[i].bt[j], l3[i].bt[j]);
    }
    assert_int_equal(l3[2].bt[2], 0x55aa00002000);
    assert_int_equal(l3[3].b, 0x7f0000300000);
}

/* ---- damage inside a buffer: the rest of it is dropped, the next buffer is read ---------- */

static void test_damage_drops_rest_of_buffer(void **state)
{
    (void)state;
    char mlpd[1024];
    if (!file_of("calls", ".mlpd", mlpd, sizeof mlpd)) skip();
    size_t n;
    uint8_t *d = (uint8_t *)slurp(mlpd, &n);
    assert_non_null(d);
    /* the first buffer after the header; its second event byte becomes 0xff */
    size_t hdr = 38 + 4 + d[38] + 4;
    hdr += d[hdr - 4];
    hdr += 4 + d[hdr];
    assert_memory_equal(d + hdr, "\x01LPM", 4);
    size_t len = d[hdr + 4] | (size_t)d[hdr + 5] << 8;
    size_t ev = hdr + 48;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    /* count buffers of the intact file */
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_mono_v3_0_format, d, n, &o), PCD_OK);
    pcd_record rec;
    size_t buffers0 = 0;
    while (pcd_reader_next(&r, &rec) == PCD_OK) buffers0 += rec.type == &pcd_mono_v3_0_buffer_type;
    pcd_reader_close(&r);
    d[ev] = 0xff;
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_mono_v3_0_format, d, n, &o), PCD_OK);
    size_t buffers = 0, errors = 0;
    for (;;) {
        pcd_status st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            errors++;
            assert_int_equal(pcd_reader_error(&r)->offset, ev);
            uint64_t resume = 0;
            assert_int_equal(pcd_reader_recover(&r, &resume), PCD_OK);
            assert_int_equal(resume, hdr + 48 + len);
            continue;
        }
        buffers += rec.type == &pcd_mono_v3_0_buffer_type;
    }
    assert_int_equal(errors, 1);
    assert_int_equal(buffers, buffers0);
    pcd_reader_close(&r);
    /* the CLI: info --all reads on and summarises the rest; exit 1 */
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/damaged-calls.mlpd", PCD_BINDIR);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    fclose(f);
    json_t *clean = info_json(mlpd);
    snprintf(cmd, sizeof cmd, "'%s' info --all --json '%s' 2>/dev/null", PCD_CLI, path);
    FILE *p = popen(cmd, "r");
    json_error_t je;
    json_t *j = json_loadf(p, 0, &je);
    int rc = pclose(p);
    assert_int_equal(WEXITSTATUS(rc), 1);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "damaged_places")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "damage"), "offset")), ev);
    /* the damaged buffer held no calls of the program's threads: every call is still there */
    assert_int_equal(jget(json_object_get(j, "summary"), "totals.calls"), jget(clean, "totals.calls"));
    json_decref(j);
    json_decref(clean);
    free(d);
}

/* ---- backtraces counted, not stored (count_only) ----------------------------------------- */

static bool backtrace_of(const pcd_record *rec, const void **elems, size_t *n)
{
    if (rec->type != &pcd_mono_v3_0_event_type) return false;
    const pcd_mono_v3_0_event *e = rec->data;
    switch (e->which) {
#define BT(CASE, m, a, na) \
    case CASE: *elems = e->u.m.a; *n = e->u.m.na; return true;
        BT(PCD_MONO_V3_0_EVENT_ALLOC_BT, alloc_bt, backtrace, n_backtrace)
        BT(PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED_BT, gc_handle_created_bt, backtrace, n_backtrace)
        BT(PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED_BT, gc_handle_destroyed_bt, backtrace, n_backtrace)
        BT(PCD_MONO_V3_0_EVENT_THROW_BT, throw_bt, backtrace, n_backtrace)
        BT(PCD_MONO_V3_0_EVENT_MONITOR_BT, monitor_bt, backtrace, n_backtrace)
        BT(PCD_MONO_V3_0_EVENT_SAMPLE_HIT, sample_hit, frames, n_frames)
#undef BT
    default: return false;
    }
}

/* `info` decodes backtraces (and a sample's managed frames) for their count only
 * (PCD_MONO_V3_0_COUNT_ONLY_BACKTRACE): the running method they move on must move the same,
 * and every error must stay that of the stored frames. Damage planted in the first events
 * with a backtrace (its bytes made overlong SLEB128s or left open into the next event, the
 * buffer cut inside it by its size field), in the file's first 4 kB after the event (the first
 * file also streamed in 7-byte reads), the two decodes in lockstep
 * (tests/runtime/count_only.h). */
static void test_count_only_same_errors(void **state)
{
    (void)state;
    const uint32_t bit = PCD_MONO_V3_0_COUNT_ONLY_BACKTRACE;
    uint64_t arrays = 0, errors = 0;
    static const char *const files[] = { "events-bt", "sample", "monitor" };
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        char mlpd[1024];
        if (!file_of(files[fi], ".mlpd", mlpd, sizeof mlpd)) continue;
        size_t n;
        uint8_t *orig = (uint8_t *)slurp(mlpd, &n);
        assert_non_null(orig);
        for (size_t chunk = 0; chunk <= (fi == 0 ? 7u : 0u); chunk += 7) {
            co_result r = co_same(&pcd_mono_v3_0_format, orig, n, bit, backtrace_of, chunk);
            assert_int_equal(r.errors, 0);
            arrays += r.arrays;
        }
        /* the first three events with a backtrace of two frames or more, and their buffers */
        uint64_t ev[3], evsize[3], buf[3];
        size_t k = 0;
        {
            pcd_alloc al;
            pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
            pcd_reader r;
            pcd_reader_opts o = { .al = &al };
            assert_int_equal(pcd_reader_open_buffer(&r, &pcd_mono_v3_0_format, orig, n, &o), PCD_OK);
            pcd_record rec;
            uint64_t last_buf = 0;
            const void *e;
            size_t ne;
            while (k < 3 && pcd_reader_next(&r, &rec) == PCD_OK) {
                if (rec.type == &pcd_mono_v3_0_buffer_type) last_buf = rec.offset;
                else if (backtrace_of(&rec, &e, &ne) && ne > 1) {
                    ev[k] = rec.offset;
                    evsize[k] = rec.size;
                    buf[k++] = last_buf;
                }
            }
            pcd_reader_close(&r);
        }
        uint8_t *p = malloc(n);
        for (size_t i = 0; i < k; i++) {
            /* the frames are the event's last bytes: at least two, one byte or more each */
            size_t end = (size_t)(ev[i] + evsize[i]), from = end - 2;
            size_t lim = end + 4096 < n ? end + 4096 : n;
            for (int kind = 0; kind < 2; kind++) {
                memcpy(p, orig, n);
                memset(p + from, kind ? 0x80 : 0xff, end - from);
                for (size_t chunk = 0; chunk <= 7; chunk += 7) {
                    co_result r = co_same(&pcd_mono_v3_0_format, p, lim, bit, backtrace_of, chunk);
                    errors += r.errors;
                }
            }
            /* the buffer's size (u32 at 4) ends it at each byte of the event */
            for (size_t cut = (size_t)ev[i] + 1; cut < end; cut++) {
                memcpy(p, orig, n);
                uint32_t len = (uint32_t)(cut - (size_t)buf[i] - 48);
                for (int b = 0; b < 4; b++) p[buf[i] + 4 + b] = (uint8_t)(len >> (8 * b));
                co_result r = co_same(&pcd_mono_v3_0_format, p, lim, bit, backtrace_of, 0);
                assert_true(r.errors > 0);
                errors += r.errors;
            }
        }
        free(p);
        free(orig);
    }
    assert_true(arrays > 100);
    assert_true(errors > 20);
}

/* ---- converters: the stacks add up to the summary's totals ------------------------------ */

/* The total of the lines; a metric no sample has a value of is 0, said ("nothing to show", exit
 * status 1, no line). */
static uint64_t collapsed_total(const char *path, const char *metric)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' convert --to collapsed --metric %s '%s' 2>&1", PCD_CLI, metric, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[65536];
    uint64_t sum = 0;
    bool nothing = false;
    while (fgets(line, sizeof line, p)) {
        if (strstr(line, ": nothing to show: ")) {
            nothing = true;
            continue;
        }
        char *sp = strrchr(line, ' ');
        assert_non_null(sp);
        sum += strtoull(sp + 1, NULL, 10);
    }
    int rc = pclose(p);
    assert_int_equal(WEXITSTATUS(rc), nothing ? 1 : 0);
    assert_true(!nothing || sum == 0);
    return sum;
}

static void test_converters(void **state)
{
    (void)state;
    static const char *const files[] = { "alloc",       "calls",     "sample",     "misc",
                                         "events-nobt", "events-bt", "enterleave", NULL };
    for (int i = 0; files[i]; i++) {
        char mlpd[1024];
        if (!file_of(files[i], ".mlpd", mlpd, sizeof mlpd)) continue;
        json_t *s = info_json(mlpd);
        assert_int_equal(collapsed_total(mlpd, "alloc-bytes"), jget(s, "totals.allocated_bytes"));
        assert_int_equal(collapsed_total(mlpd, "alloc-count"), jget(s, "totals.allocated_objects"));
        assert_int_equal(collapsed_total(mlpd, "calls"), jget(s, "totals.calls"));
        assert_int_equal(collapsed_total(mlpd, "samples"), jget(s, "sample_hits.total"));
        /* speedscope: valid JSON whose sampled profile's weights add up the same (a log without
         * hits has nothing to show: exit status 1, no output; unless it has calls or GC
         * collections, which are evented profiles, and no sampled one) */
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' convert --to speedscope --metric samples '%s' 2>/dev/null", PCD_CLI, mlpd);
        FILE *p = popen(cmd, "r");
        json_error_t je;
        json_t *j = json_loadf(p, 0, &je);
        int prc = pclose(p);
        json_t *sampled = NULL, *pr;
        size_t pi;
        bool evented = false;
        json_array_foreach(json_object_get(j, "profiles"), pi, pr) {
            if (strcmp(json_string_value(json_object_get(pr, "type")), "sampled") == 0) sampled = pr;
            else evented = true;
        }
        /* (the calls, one evented profile per thread; the GC slices, an evented profile "GC") */
        uint64_t gcs = jget(s, "gc.collections.gen0.count") + jget(s, "gc.collections.gen1.count") +
                       jget(s, "gc.collections.gen2.count");
        bool timeline = jget(s, "totals.calls") != 0 || gcs != 0;
        assert_true(evented == timeline);
        if (!jget(s, "sample_hits.total")) {
            assert_int_equal(WEXITSTATUS(prc), timeline ? 0 : 1);
            assert_null(sampled);
            json_decref(j);
            json_decref(s);
            continue;
        }
        assert_int_equal(prc, 0);
        assert_non_null(j);
        json_t *w = json_object_get(sampled, "weights");
        size_t idx;
        json_t *v;
        uint64_t sum = 0;
        json_array_foreach(w, idx, v) sum += (uint64_t)json_integer_value(v);
        assert_int_equal(sum, jget(s, "sample_hits.total"));
        json_decref(j);
        json_decref(s);
    }
}

/* ---- allocation stacks: what mprof-report --traces shows ----------------------------------- */

typedef struct stack_sum {
    char *text;
    uint64_t bytes;
} stack_sum;

static void stack_add(stack_sum **v, size_t *n, const char *text, uint64_t bytes)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].text, text) == 0) {
            (*v)[i].bytes += bytes;
            return;
        }
    *v = realloc(*v, (*n + 1) * sizeof **v);
    assert_non_null(*v);
    (*v)[*n].text = strdup(text);
    (*v)[*n].bytes = bytes;
    ++*n;
}

/* Every allocation backtrace that mprof-report prints ("N bytes from:" under its class, the
 * frames outermost first) is a collapsed line of --metric alloc-bytes: the frames in the same
 * order, then the class, with the same bytes; and every collapsed line with a backtrace is one
 * of them. (Allocations without a backtrace are lines of the class alone.) */
static void test_alloc_stacks_match_traces(void **state)
{
    (void)state;
    char traces[1024], mlpd[1024];
    if (!file_of("events-bt", ".traces.txt", traces, sizeof traces) || !file_of("events-bt", ".mlpd", mlpd, sizeof mlpd))
        skip();
    FILE *f = fopen(traces, "r");
    assert_non_null(f);
    stack_sum *want = NULL, *got = NULL;
    size_t n_want = 0, n_got = 0;
    static char line[65536], cls[4096], cur[65536];
    uint64_t bytes = 0;
    bool in_section = false, in_trace = false;
    cls[0] = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!in_section) {
            in_section = strcmp(line, "Allocation summary") == 0;
            continue;
        }
        if (!line[0] || strncmp(line, "Total", 5) == 0) break;
        if (strstr(line, " Type name")) continue; /* the column titles */
        unsigned long long b, c, avg;
        int at = 0;
        if (strncmp(line, "\t\t", 2) == 0) {
            assert_true(in_trace);
            size_t k = strlen(cur);
            snprintf(cur + k, sizeof cur - k, "%s;", line + 2);
            continue;
        }
        if (in_trace) {
            size_t k = strlen(cur);
            snprintf(cur + k, sizeof cur - k, "%s", cls);
            stack_add(&want, &n_want, cur, bytes);
            in_trace = false;
        }
        if (sscanf(line, "\t%llu bytes from:%n", &b, &at) == 1 && at == (int)strlen(line)) {
            bytes = b;
            cur[0] = 0;
            in_trace = true;
        } else if (line[0] == ' ' && sscanf(line, "%llu %llu %llu %n", &b, &c, &avg, &at) == 3) {
            snprintf(cls, sizeof cls, "%s", line + at);
        } else {
            fail_msg("unexpected line in %s: %s", traces, line);
        }
    }
    if (in_trace) {
        size_t k = strlen(cur);
        snprintf(cur + k, sizeof cur - k, "%s", cls);
        stack_add(&want, &n_want, cur, bytes);
    }
    fclose(f);
    assert_true(n_want > 100);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' convert --to collapsed --metric alloc-bytes '%s'", PCD_CLI, mlpd);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        char *sp = strrchr(line, ' ');
        assert_non_null(sp);
        *sp = 0;
        if (strchr(line, ';')) stack_add(&got, &n_got, line, strtoull(sp + 1, NULL, 10));
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(n_got, n_want);
    for (size_t i = 0; i < n_want; i++) {
        bool found = false;
        for (size_t k = 0; k < n_got && !found; k++)
            if (strcmp(want[i].text, got[k].text) == 0) {
                found = true;
                if (want[i].bytes != got[k].bytes)
                    fail_msg("%s: %llu bytes in the traces, %llu in the stacks", want[i].text,
                             (unsigned long long)want[i].bytes, (unsigned long long)got[k].bytes);
            }
        if (!found) fail_msg("not among the collapsed stacks: %s", want[i].text);
    }
    for (size_t i = 0; i < n_want; i++) free(want[i].text);
    for (size_t i = 0; i < n_got; i++) free(got[i].text);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_matches_mprof_report),
        cmocka_unit_test(test_counts_match_debug_dumps),
        cmocka_unit_test(test_dump_encode_identical),
        cmocka_unit_test(test_same_events_both_versions),
        cmocka_unit_test(test_damage_drops_rest_of_buffer),
        cmocka_unit_test(test_converters),
        cmocka_unit_test(test_alloc_stacks_match_traces),
        cmocka_unit_test(test_count_only_same_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
