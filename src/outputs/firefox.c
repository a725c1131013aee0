/* outputs/firefox.c: the Firefox Profiler's processed profile format (profiler.firefox.com,
 * "Load a profile from file"), pinned to processed version 70 (docs/design.md says why and how
 * the model maps to its tables; firefox-devtools/profiler docs-developer/CHANGELOG-formats.md
 * and src/types/profile.ts, markers.ts are its documentation). One JSON object, one line:
 *
 *   {"meta":{"version":36,"preprocessedProfileVersion":70,"interval":MS,"startTime":MS,
 *    "processType":0,"product":"profcodec","importedFrom":"<format> <version>","stackwalk":0,
 *    "symbolicated":true,"categories":[...],"markerSchema":[...]},
 *   "libs":[],
 *   "threads":[{"processType":"default",...,"name":..,"pid":"<pid>","tid":TID,
 *     "samples":{"stack":[..],"time":[..],"weight":null|[..],"weightType":..,"length":N},
 *     "markers":{"data":[..],"name":[..],"startTime":[..],"endTime":[..],"phase":[..],
 *                "category":[..],"length":M}}, ...],
 *   "shared":{"stackTable":{"frame":[..],"prefixOffset":[..],"length":..},"frameTable":{..},
 *     "funcTable":{..},"resourceTable":{..},"nativeSymbols":{..},"sources":{..},
 *     "sourceLocationTable":{..},"stringArray":[..]}}
 *
 * - The stack table is the model's stack trie as it is: model stack s > 0 is row s - 1 (a
 *   parent is made before its children, so prefixOffset = s - parent, 0 for a root); a sample
 *   on the empty stack has stack null. The frame table is the model's frames, row for row; the
 *   func table is the frames grouped by (name, file, module, kind): a frame keeps its line and
 *   column, its func the name. Code frames are isJS (the profiler's "JavaScript only" filter
 *   then shows the interpreted code); native frames' modules are resources; source files are
 *   the sources table. Strings are one shared array, in order of first use.
 * - Samples: one per model sample (PCD_NEEDS_TIMES), in the input's order per thread. A sample's
 *   time is its own (ms from the profile's time origin); without one, samples taken in order
 *   (PCD_HAS_ORDER: MOJO, Austin) lie end to end on their thread's clock as outputs.h lays them
 *   out, and others (pprof, Mono's call tree) one interval apart in input order (the interval is
 *   the sampling period, else 1 ms): the call tree and flame graph are what such a profile
 *   shows, its timeline only their order. Times never go back on a thread (a later sample that
 *   says earlier is put at the thread's last time). The weight is the metric (--metric, else
 *   the profile's default): "tracing-ms" in ms for a time, "bytes" for bytes, else "samples"
 *   (null when every sample counts 1). Weights are held at 2^53-1 so JavaScript reads them.
 * - Markers: runs of samples in a state become interval markers on their thread, from the
 *   first sample in it to the first sample out of it (or the last sample plus the interval):
 *   "GIL held", "Waiting for GIL", "On CPU", "Exception" (PCD_SAMPLE_STATE: Tachyon's status),
 *   "GC" (a PCD_FRAME_GC frame on the stack: MOJO, Tachyon), "Idle" (PCD_SAMPLE_IDLE: MOJO).
 *   Slices (Heph's spans, Mono's calls) are interval markers of schema "Span" on their track,
 *   with their category; GC slices (PCD_SLICE_GC: Mono's GC events) are markers of schema "GC"
 *   in the GC category, with their generation (the schema is written only when there are some).
 *
 * Memory: per thread its samples (stack, time, weight: 24 bytes each) and markers (32 bytes),
 * which the format keeps as columns of the thread; the rest grows with what is distinct
 * (frames, stacks, strings). */
#include <stdlib.h>

#include "common/hmap.h"
#include "common/text.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

#define FF_VERSION 70              /* the processed profile version written */
#define FF_GECKO_VERSION 36        /* meta.version: the Gecko format of the same profiler */
#define JS_MAX ((UINT64_C(1) << 53) - 1)

/* Categories, in meta.categories' order (the first grey one is the profiler's default). */
enum { CAT_OTHER, CAT_IDLE, CAT_CODE, CAT_NATIVE, CAT_KERNEL, CAT_GC, CAT_SPANS, CAT_STATE, CAT_N };
static const char *const cat_json[CAT_N] = {
    "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Idle\",\"color\":\"transparent\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Code\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Native\",\"color\":\"blue\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Kernel\",\"color\":\"lightred\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"GC\",\"color\":\"orange\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Spans\",\"color\":\"green\",\"subcategories\":[\"Other\"]}",
    "{\"name\":\"Thread state\",\"color\":\"purple\",\"subcategories\":[\"Other\"]}",
};

static int frame_category(const pcd_frame *f)
{
    switch (f->kind) {
    case PCD_FRAME_CODE: return CAT_CODE;
    case PCD_FRAME_NATIVE: return CAT_NATIVE;
    case PCD_FRAME_KERNEL: return CAT_KERNEL;
    case PCD_FRAME_GC: return CAT_GC;
    case PCD_FRAME_IDLE: return CAT_IDLE;
    default: return CAT_OTHER;
    }
}

/* Thread states shown as markers, from samples. */
enum { ST_GIL, ST_GIL_WAIT, ST_CPU, ST_EXC, ST_GC, ST_IDLE, ST_N };
static const char *const st_name[ST_N] = { "GIL held", "Waiting for GIL", "On CPU", "Exception", "GC", "Idle" };
static const int st_cat[ST_N] = { CAT_STATE, CAT_STATE, CAT_STATE, CAT_STATE, CAT_GC, CAT_IDLE };

enum { MK_STATE, MK_SPAN, MK_GC };

typedef struct fsample {
    int64_t time;                  /* ns */
    uint64_t weight;
    uint32_t stack;                /* model stack */
} fsample;

typedef struct fmark {
    int64_t start, end;            /* ns */
    uint32_t name;                 /* model string */
    uint32_t extra;                /* a span's category (model string); a GC's generation */
    uint8_t kind;                  /* MK_* */
    uint8_t cat;
} fmark;

typedef struct fthread {
    bool used;
    fsample *s;
    size_t n, cap;
    fmark *m;
    size_t n_m, m_cap;
    int64_t last;                  /* the last sample's time */
    uint64_t clock;                /* µs: the clock of samples without times */
    int64_t open_at[ST_N];         /* when each state began (valid where open has its bit) */
    uint32_t open;
} fthread;

typedef struct firefox {
    pcd_job *j;
    pcd_sink *out;
    int type;                      /* the metric, -1 none */
    bool picked;                   /* the metric is chosen (at the first sample) */
    int64_t unit_ns;               /* ns per unit of the metric when it is a time, else 0 */
    bool bytes;                    /* the metric is in bytes */
    bool all_one;                  /* every weight so far is 1 */
    int64_t interval_ns;
    pcd_out_pace pace;
    fthread *th;
    size_t th_cap;
    uint8_t *gc;                   /* model stack -> 1 + (a GC frame is on it), 0: not known */
    size_t gc_cap;
    uint32_t *sidx;                /* model string -> string array index + 1 */
    size_t sidx_cap;
    pcd_str *strs;                 /* the string array: model strings in order */
    size_t n_strs, strs_cap;
    uint32_t *func;                /* model frame -> func */
    size_t func_cap;
    struct ffunc { pcd_str name, file, module; bool js; } *fn;
    size_t n_fn, fn_cap;
    pcd_str *res;                  /* resources: module names */
    size_t n_res, res_cap;
    pcd_str *src;                  /* sources: file names */
    size_t n_src, src_cap;
    pcd_hmap fmap, rmap, smap;
    bool maps;
    pcd_stack_id *fr;              /* a walk's stacks */
    size_t fr_cap;
    uint8_t *tmp;                  /* a slice's texts */
    size_t tmp_cap;
    bool any_gc;                   /* a GC marker was made: its schema is written */
} firefox;

/* The sampling interval in ns (importers may state it after the first event): 1 ms unknown. */
static int64_t interval_ns(const pcd_profile *p)
{
    int64_t k = pcd_out_unit_ns(p, p->period_type);
    if (p->period > 0 && k) return p->period > INT64_MAX / k ? INT64_MAX : p->period * k;
    if (p->capture.set && p->capture.interval_us > 0)
        return p->capture.interval_us > (uint64_t)INT64_MAX / 1000 ? INT64_MAX : (int64_t)p->capture.interval_us * 1000;
    return 1000000;
}

static pcd_status f_begin(void *ud, pcd_profile *p)
{
    firefox *c = ud;
    c->type = -1;
    c->all_one = true;
    if (c->j->metric) PCD_TRY(pcd_out_metric(c->j, p, &c->type));
    pcd_out_pace_init(&c->pace, p);
    return PCD_OK;
}

/* The metric, at the first sample: --metric's, else the default as known then (an importer that
 * holds its samples to the end has settled it: pcd_profile_values_ahead), else the first type
 * that is not a count kept beside a time. */
static void pick_metric(firefox *c, const pcd_profile *p)
{
    c->picked = true;
    if (c->type < 0) {
        if (p->default_type >= 0 && (size_t)p->default_type < p->n_types) c->type = p->default_type;
        else
            for (size_t i = 0; i < p->n_types && c->type < 0; i++)
                if (!p->types[i].secondary) c->type = (int)i;
    }
    if (c->type >= 0) {
        c->unit_ns = pcd_out_unit_ns(p, c->type);
        c->bytes = pcd_bytes_is(pcd_profile_text(p, p->types[c->type].unit), "bytes");
    }
}

static pcd_status thread_of(firefox *c, pcd_thread_id t, fthread **out)
{
    if (t >= c->th_cap) {
        size_t old = c->th_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->th, c->th_cap, (size_t)t + 1));
        memset(c->th + old, 0, (c->th_cap - old) * sizeof *c->th);
    }
    c->th[t].used = true;
    *out = &c->th[t];
    return PCD_OK;
}

/* Is a GC frame on stack s? Known once per stack. */
static pcd_status has_gc(firefox *c, const pcd_profile *p, pcd_stack_id s, bool *out)
{
    if (s >= c->gc_cap) {
        size_t old = c->gc_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->gc, c->gc_cap, (size_t)s + 1));
        memset(c->gc + old, 0, c->gc_cap - old);
    }
    /* the unknown stacks from s up to a known one (or the root), then their answers downwards */
    size_t n = 0;
    pcd_stack_id k = s;
    while (k != PCD_STACK_EMPTY && !c->gc[k]) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->fr, c->fr_cap, n + 1));
        c->fr[n++] = k;
        k = pcd_stack_parent(p, k);
    }
    uint8_t v = k == PCD_STACK_EMPTY ? 1 : c->gc[k];
    while (n--) {
        if (v == 1 && pcd_profile_frame_at(p, pcd_stack_frame(p, c->fr[n]))->kind == PCD_FRAME_GC) v = 2;
        c->gc[c->fr[n]] = v;
    }
    *out = v == 2;
    return PCD_OK;
}

static pcd_status mark(firefox *c, fthread *t, int64_t start, int64_t end, uint32_t name, uint32_t extra, int kind, int cat)
{
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, t->m, t->m_cap, t->n_m + 1));
    t->m[t->n_m++] = (fmark){ start, end < start ? start : end, name, extra, (uint8_t)kind, (uint8_t)cat };
    return PCD_OK;
}

/* Opens and closes the thread's state markers at time at for the states in `now`. */
static pcd_status states(firefox *c, pcd_profile *p, fthread *t, uint32_t now, int64_t at)
{
    uint32_t change = now ^ t->open;
    for (int k = 0; k < ST_N && change; k++) {
        if (!(change >> k & 1)) continue;
        if (now >> k & 1) {
            t->open_at[k] = at;
        } else {
            pcd_str name = pcd_profile_strz(p, st_name[k]);
            if (p->oom) return p->oom;
            PCD_TRY(mark(c, t, t->open_at[k], at, name, 0, MK_STATE, st_cat[k]));
        }
    }
    t->open = now;
    return PCD_OK;
}

static pcd_status f_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    firefox *c = ud;
    fthread *t;
    PCD_TRY(thread_of(c, s->thread, &t));
    int64_t at;
    if (s->time != PCD_TIME_NONE) {
        at = s->time;
    } else if (p->has & PCD_HAS_ORDER) {
        uint64_t us;
        pcd_out_pace_us(&c->pace, p, s, &us);
        at = t->clock > (uint64_t)INT64_MAX / 1000 ? INT64_MAX : (int64_t)t->clock * 1000;
        t->clock += us;
    } else {
        int64_t iv = interval_ns(p);
        at = t->n && t->last <= INT64_MAX - iv ? t->last + iv : t->n ? t->last : 0;
    }
    if (t->n && at < t->last) at = t->last;
    if (PCD_UNLIKELY(!c->picked)) pick_metric(c, p);
    uint64_t w = 0;
    if (c->type >= 0) {
        uint64_t v = s->values[c->type];
        if (p->types[c->type].is_signed && pcd_value_i64(v) < 0) v = 0; /* (the pipeline keeps differences out) */
        w = pcd_sat_mul(v, s->count ? s->count : 1);
    }
    if (w != 1) c->all_one = false;
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, t->s, t->cap, t->n + 1));
    t->s[t->n++] = (fsample){ at, w, s->stack };
    t->last = at;
    uint32_t now = 0;
    if (s->flags & PCD_SAMPLE_STATE) {
        if (s->flags & PCD_SAMPLE_HOLDS_LOCK) now |= 1u << ST_GIL;
        if (s->flags & PCD_SAMPLE_WANTS_LOCK) now |= 1u << ST_GIL_WAIT;
        if (s->flags & PCD_SAMPLE_ON_CPU) now |= 1u << ST_CPU;
        if (s->flags & PCD_SAMPLE_EXCEPTION) now |= 1u << ST_EXC;
    }
    if (s->flags & PCD_SAMPLE_IDLE) now |= 1u << ST_IDLE;
    bool gc;
    PCD_TRY(has_gc(c, p, s->stack, &gc));
    if (gc) now |= 1u << ST_GC;
    if (now != t->open) PCD_TRY(states(c, p, t, now, at));
    return PCD_OK;
}

static pcd_status f_slice(void *ud, pcd_profile *p, const pcd_slice *sl)
{
    firefox *c = ud;
    fthread *t;
    PCD_TRY(thread_of(c, sl->track, &t));
    /* either text may be a view into the profile's strings, which interning the other can move:
     * both are copied first */
    size_t n = sl->name.len + sl->category.len;
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->tmp, c->tmp_cap, n ? n : 1));
    if (sl->name.len) memcpy(c->tmp, sl->name.ptr, sl->name.len);
    if (sl->category.len) memcpy(c->tmp + sl->name.len, sl->category.ptr, sl->category.len);
    pcd_str name = pcd_profile_str(p, c->tmp, sl->name.len);
    pcd_str cat = pcd_profile_str(p, c->tmp + sl->name.len, sl->category.len);
    if (p->oom) return p->oom;
    if (sl->kind == PCD_SLICE_GC) {
        uint64_t gen = 0;
        for (size_t i = 0; i < sl->n_args; i++)
            if (sl->args[i].type == PCD_ARG_U64 && pcd_bytes_is(sl->args[i].key, "generation")) gen = sl->args[i].v.u;
        c->any_gc = true;
        return mark(c, t, sl->start, sl->end, name, gen > UINT32_MAX ? UINT32_MAX : (uint32_t)gen, MK_GC, CAT_GC);
    }
    return mark(c, t, sl->start, sl->end, name, cat, MK_SPAN, CAT_SPANS);
}

/* ---- the end: tables, then the file ----------------------------------------------------------- */

/* The string array index of model string s (added at its first use). */
static pcd_status str_index(firefox *c, pcd_str s, uint32_t *out)
{
    if (s >= c->sidx_cap) {
        size_t old = c->sidx_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->sidx, c->sidx_cap, (size_t)s + 1));
        memset(c->sidx + old, 0, (c->sidx_cap - old) * sizeof *c->sidx);
    }
    if (!c->sidx[s]) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->strs, c->strs_cap, c->n_strs + 1));
        c->strs[c->n_strs++] = s;
        c->sidx[s] = (uint32_t)c->n_strs;
    }
    *out = c->sidx[s] - 1;
    return PCD_OK;
}

static pcd_status put_str_index(firefox *c, pcd_str s)
{
    uint32_t i;
    PCD_TRY(str_index(c, s, &i));
    return pcd_text_u64(c->out, i);
}

/* Index of key in one of the small tables (resources, sources), added when new. */
static pcd_status intern(firefox *c, pcd_hmap *m, pcd_str key, pcd_str **arr, size_t *n, size_t *cap, uint32_t *out)
{
    bool fresh;
    pcd_hslot *h = pcd_hmap_put(m, (pcd_hkey){ key, 0, 0 }, &fresh);
    if (!h) return PCD_E_NOMEM;
    if (fresh) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, *arr, *cap, *n + 1));
        (*arr)[*n] = key;
        h->v0 = (*n)++;
    }
    *out = (uint32_t)h->v0;
    return PCD_OK;
}

/* The func of every model frame (frames named as the other outputs name them). */
static pcd_status make_funcs(firefox *c, pcd_profile *p)
{
    pcd_alloc *al = c->j->al;
    pcd_hmap_init(&c->fmap, al);
    pcd_hmap_init(&c->rmap, al);
    pcd_hmap_init(&c->smap, al);
    c->maps = true;
    PCD_TRY(PCD_VEC_RESERVE(al, c->func, c->func_cap, p->n_frames ? p->n_frames : 1));
    for (size_t i = 0; i < p->n_frames; i++) {
        const pcd_frame *f = pcd_profile_frame_at(p, (pcd_frame_id)i);
        bool code = f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE || f->kind == PCD_FRAME_KERNEL;
        pcd_str name = f->function, file = 0, module = 0;
        if (!code || !name || pcd_frame_nameless(f)) {
            pcd_memsink m;
            pcd_memsink_init(&m, al);
            pcd_status st = pcd_frame_nameless(f) ? pcd_render_function(&m.sink, p, (pcd_frame_id)i, PCD_COLLAPSED_RAW)
                                                  : pcd_render_frame(&m.sink, p, (pcd_frame_id)i, PCD_DIALECT_DEFAULT,
                                                                     PCD_COLLAPSED_RAW);
            if (st == PCD_OK) st = pcd_memsink_flush(&m);
            if (st == PCD_OK) name = pcd_profile_str(p, m.data, m.len);
            pcd_memsink_free(&m);
            PCD_TRY(st);
            if (p->oom) return p->oom;
        }
        if (code) file = f->file, module = f->module;
        bool js = f->kind == PCD_FRAME_CODE;
        bool fresh;
        pcd_hslot *h = pcd_hmap_put(&c->fmap, (pcd_hkey){ name, (uint64_t)file << 32 | module, js }, &fresh);
        if (!h) return PCD_E_NOMEM;
        if (fresh) {
            PCD_TRY(PCD_VEC_RESERVE(al, c->fn, c->fn_cap, c->n_fn + 1));
            c->fn[c->n_fn] = (struct ffunc){ name, file, module, js };
            h->v0 = c->n_fn++;
        }
        c->func[i] = (uint32_t)h->v0;
    }
    return PCD_OK;
}

/* ns as milliseconds, exactly (up to six decimals). */
static pcd_status put_ms(pcd_sink *o, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char buf[48];
    size_t n = 0;
    if (ns < 0) buf[n++] = '-';
    n += pcd_text_u64_digits(buf + n, a / 1000000);
    uint32_t frac = (uint32_t)(a % 1000000);
    if (frac) {
        char d[7];
        for (int i = 5; i >= 0; i--, frac /= 10) d[i] = (char)('0' + frac % 10);
        int len = 6;
        while (d[len - 1] == '0') len--;
        buf[n++] = '.';
        memcpy(buf + n, d, (size_t)len);
        n += (size_t)len;
    }
    return pcd_sink_put(o, buf, n);
}

static pcd_status put_weight(firefox *c, uint64_t w)
{
    if (c->unit_ns) {
        uint64_t ns;
        if (__builtin_mul_overflow(w, (uint64_t)c->unit_ns, &ns) || ns > JS_MAX * 1000) ns = JS_MAX * 1000;
        return put_ms(c->out, (int64_t)ns);
    }
    return pcd_text_u64(c->out, w > JS_MAX ? JS_MAX : w);
}

/* A list of n copies of z ("null", "-1", "0"), comma-separated. */
static pcd_status put_fill(pcd_sink *o, const char *z, size_t n)
{
    size_t len = strlen(z);
    for (size_t i = 0; i < n; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_sink_put(o, z, len));
    }
    return PCD_OK;
}

static const char marker_schema[] =
    "[{\"name\":\"ThreadState\",\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.name}\","
    "\"chartLabel\":\"{marker.name}\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
    "\"description\":\"A run of samples in which the thread was in this state (the profiler's own flags: "
    "GIL, CPU, exception, GC, idle)\",\"fields\":[]},"
    "{\"name\":\"Span\",\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.name}\","
    "\"chartLabel\":\"{marker.name}\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
    "\"description\":\"A timed span the profiled program recorded\","
    "\"fields\":[{\"key\":\"category\",\"label\":\"Category\",\"format\":\"unique-string\"}]}";
/* (written only when a GC slice made a marker) */
static const char marker_schema_gc[] =
    ",{\"name\":\"GC\",\"tooltipLabel\":\"{marker.name}\",\"tableLabel\":\"{marker.name} (generation "
    "{marker.data.generation})\",\"chartLabel\":\"{marker.name}\",\"display\":[\"marker-chart\",\"marker-table\","
    "\"timeline-overview\"],\"description\":\"The runtime's garbage collector at work: a collection, a phase of "
    "one, the world stopped for it\",\"fields\":[{\"key\":\"generation\",\"label\":\"Generation\","
    "\"format\":\"integer\"}]}";

static pcd_status put_meta(firefox *c, const pcd_profile *p)
{
    pcd_sink *o = c->out;
    PCD_TRY(pcd_text_printf(o, "{\"meta\":{\"version\":%d,\"preprocessedProfileVersion\":%d,\"interval\":", FF_GECKO_VERSION,
                            FF_VERSION));
    PCD_TRY(put_ms(o, c->interval_ns));
    PCD_TRY(pcd_text_z(o, ",\"startTime\":"));
    PCD_TRY(put_ms(o, p->time_origin != PCD_TIME_NONE ? p->time_origin : 0));
    PCD_TRY(pcd_text_z(o, ",\"processType\":0,\"product\":\"profcodec\",\"importedFrom\":"));
    pcd_memsink m;
    pcd_memsink_init(&m, c->j->al);
    pcd_status st = pcd_text_printf(&m.sink, "%s %s", p->format ? p->format : "", p->version ? p->version : "");
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK) st = pcd_text_json(o, m.data, m.len);
    pcd_memsink_free(&m);
    PCD_TRY(st);
    PCD_TRY(pcd_text_z(o, ",\"stackwalk\":0,\"symbolicated\":true,\"categories\":["));
    for (int i = 0; i < CAT_N; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_z(o, cat_json[i]));
    }
    PCD_TRY(pcd_text_z(o, "],\"markerSchema\":"));
    PCD_TRY(pcd_text_z(o, marker_schema));
    if (c->any_gc) PCD_TRY(pcd_text_z(o, marker_schema_gc));
    return pcd_text_z(o, "]},\"libs\":[],\"threads\":[");
}

static pcd_status put_thread(firefox *c, pcd_profile *p, pcd_thread_id ti, bool main_thread)
{
    pcd_sink *o = c->out;
    const fthread *t = &c->th[ti];
    const pcd_thread *th = &p->threads[ti];
    PCD_TRY(pcd_text_z(o, "{\"processType\":\"default\",\"processStartupTime\":0,\"processShutdownTime\":null,"
                          "\"registerTime\":0,\"unregisterTime\":null,\"pausedRanges\":[],\"showMarkersInTimeline\":true,"
                          "\"name\":"));
    pcd_memsink m;
    pcd_memsink_init(&m, c->j->al);
    pcd_status st = pcd_render_thread_title(&m.sink, p, ti, PCD_DIALECT_DEFAULT);
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK) st = pcd_text_json(o, m.data, m.len);
    pcd_memsink_free(&m);
    PCD_TRY(st);
    PCD_TRY(pcd_text_printf(o, ",\"isMainThread\":%s", main_thread ? "true" : "false"));
    if (th->process_name) {
        pcd_bytes b = pcd_profile_text(p, th->process_name);
        PCD_TRY(pcd_text_z(o, ",\"processName\":"));
        PCD_TRY(pcd_text_json(o, b.ptr, b.len));
    }
    int64_t pid = th->pid != PCD_ID_NONE ? th->pid : th->iid != PCD_ID_NONE ? th->iid : 0;
    PCD_TRY(pcd_text_printf(o, ",\"pid\":\"%lld\",\"tid\":", (long long)pid));
    if (th->has_tid && th->tid <= JS_MAX && !th->lane_of) PCD_TRY(pcd_text_u64(o, th->tid));
    else PCD_TRY(pcd_text_printf(o, "\"t%u\"", (unsigned)ti)); /* a lane, or an id JavaScript cannot hold */
    /* samples */
    PCD_TRY(pcd_text_z(o, ",\"samples\":{\"stack\":["));
    for (size_t i = 0; i < t->n; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        if (t->s[i].stack == PCD_STACK_EMPTY) PCD_TRY(pcd_text_z(o, "null"));
        else PCD_TRY(pcd_text_u64(o, t->s[i].stack - 1));
    }
    PCD_TRY(pcd_text_z(o, "],\"time\":["));
    for (size_t i = 0; i < t->n; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_ms(o, t->s[i].time));
    }
    PCD_TRY(pcd_text_z(o, "],\"weight\":"));
    if (c->all_one && !c->unit_ns && !c->bytes) {
        PCD_TRY(pcd_text_z(o, "null"));
    } else {
        PCD_TRY(pcd_sink_put(o, "[", 1));
        for (size_t i = 0; i < t->n; i++) {
            if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
            PCD_TRY(put_weight(c, t->s[i].weight));
        }
        PCD_TRY(pcd_sink_put(o, "]", 1));
    }
    PCD_TRY(pcd_text_printf(o, ",\"weightType\":\"%s\",\"length\":%zu}", c->unit_ns ? "tracing-ms" : c->bytes ? "bytes" : "samples",
                            t->n));
    /* markers */
    PCD_TRY(pcd_text_z(o, ",\"markers\":{\"data\":["));
    for (size_t i = 0; i < t->n_m; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        if (t->m[i].kind == MK_SPAN) {
            PCD_TRY(pcd_text_z(o, "{\"type\":\"Span\",\"category\":"));
            PCD_TRY(put_str_index(c, t->m[i].extra));
            PCD_TRY(pcd_sink_put(o, "}", 1));
        } else if (t->m[i].kind == MK_GC) {
            PCD_TRY(pcd_text_printf(o, "{\"type\":\"GC\",\"generation\":%u}", (unsigned)t->m[i].extra));
        } else {
            PCD_TRY(pcd_text_z(o, "{\"type\":\"ThreadState\"}"));
        }
    }
    PCD_TRY(pcd_text_z(o, "],\"name\":["));
    for (size_t i = 0; i < t->n_m; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str_index(c, t->m[i].name));
    }
    PCD_TRY(pcd_text_z(o, "],\"startTime\":["));
    for (size_t i = 0; i < t->n_m; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_ms(o, t->m[i].start));
    }
    PCD_TRY(pcd_text_z(o, "],\"endTime\":["));
    for (size_t i = 0; i < t->n_m; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_ms(o, t->m[i].end));
    }
    PCD_TRY(pcd_text_z(o, "],\"phase\":["));
    PCD_TRY(put_fill(o, "1", t->n_m)); /* INTERVAL */
    PCD_TRY(pcd_text_z(o, "],\"category\":["));
    for (size_t i = 0; i < t->n_m; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_u64(o, t->m[i].cat));
    }
    return pcd_text_printf(o, "],\"length\":%zu}}", t->n_m);
}

static pcd_status put_shared(firefox *c, pcd_profile *p)
{
    pcd_sink *o = c->out;
    size_t ns = p->n_stacks ? p->n_stacks - 1 : 0;
    PCD_TRY(pcd_text_z(o, "],\"shared\":{\"stackTable\":{\"frame\":["));
    for (size_t s = 1; s <= ns; s++) {
        if (s > 1) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_u64(o, pcd_stack_frame(p, (pcd_stack_id)s)));
    }
    PCD_TRY(pcd_text_z(o, "],\"prefixOffset\":["));
    for (size_t s = 1; s <= ns; s++) {
        if (s > 1) PCD_TRY(pcd_sink_put(o, ",", 1));
        pcd_stack_id parent = pcd_stack_parent(p, (pcd_stack_id)s);
        PCD_TRY(pcd_text_u64(o, parent == PCD_STACK_EMPTY ? 0 : s - parent));
    }
    size_t nf = p->n_frames;
    PCD_TRY(pcd_text_printf(o, "],\"length\":%zu},\"frameTable\":{\"address\":[", ns));
    PCD_TRY(put_fill(o, "-1", nf));
    PCD_TRY(pcd_text_z(o, "],\"lib\":["));
    PCD_TRY(put_fill(o, "-1", nf));
    PCD_TRY(pcd_text_z(o, "],\"inlineDepth\":["));
    PCD_TRY(put_fill(o, "0", nf));
    PCD_TRY(pcd_text_z(o, "],\"category\":["));
    for (size_t i = 0; i < nf; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_u64(o, (uint64_t)frame_category(pcd_profile_frame_at(p, (pcd_frame_id)i))));
    }
    PCD_TRY(pcd_text_z(o, "],\"subcategory\":["));
    PCD_TRY(put_fill(o, "0", nf));
    PCD_TRY(pcd_text_z(o, "],\"func\":["));
    for (size_t i = 0; i < nf; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_u64(o, c->func[i]));
    }
    PCD_TRY(pcd_text_z(o, "],\"nativeSymbol\":["));
    PCD_TRY(put_fill(o, "null", nf));
    PCD_TRY(pcd_text_z(o, "],\"innerWindowID\":["));
    PCD_TRY(put_fill(o, "null", nf));
    for (int col = 0; col < 2; col++) {
        PCD_TRY(pcd_text_z(o, col ? "],\"column\":[" : "],\"line\":["));
        for (size_t i = 0; i < nf; i++) {
            if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
            const pcd_frame *f = pcd_profile_frame_at(p, (pcd_frame_id)i);
            int64_t v = col ? f->column : f->line;
            bool code = f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE;
            if (code && v != PCD_POS_NONE && v > 0 && (uint64_t)v <= JS_MAX) PCD_TRY(pcd_text_u64(o, (uint64_t)v));
            else PCD_TRY(pcd_text_z(o, "null"));
        }
    }
    PCD_TRY(pcd_text_z(o, "],\"originalLocation\":["));
    PCD_TRY(put_fill(o, "null", nf));
    /* funcs: their resources and sources are numbered as they come */
    PCD_TRY(pcd_text_printf(o, "],\"length\":%zu},\"funcTable\":{\"name\":[", nf));
    for (size_t i = 0; i < c->n_fn; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str_index(c, c->fn[i].name));
    }
    PCD_TRY(pcd_text_z(o, "],\"isJS\":["));
    for (size_t i = 0; i < c->n_fn; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_text_z(o, c->fn[i].js ? "true" : "false"));
    }
    PCD_TRY(pcd_text_z(o, "],\"relevantForJS\":["));
    PCD_TRY(put_fill(o, "false", c->n_fn));
    PCD_TRY(pcd_text_z(o, "],\"resource\":["));
    for (size_t i = 0; i < c->n_fn; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        if (!c->fn[i].module) {
            PCD_TRY(pcd_text_z(o, "-1"));
            continue;
        }
        uint32_t r;
        PCD_TRY(intern(c, &c->rmap, c->fn[i].module, &c->res, &c->n_res, &c->res_cap, &r));
        PCD_TRY(pcd_text_u64(o, r));
    }
    PCD_TRY(pcd_text_z(o, "],\"source\":["));
    for (size_t i = 0; i < c->n_fn; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        if (!c->fn[i].file) {
            PCD_TRY(pcd_text_z(o, "null"));
            continue;
        }
        uint32_t r;
        PCD_TRY(intern(c, &c->smap, c->fn[i].file, &c->src, &c->n_src, &c->src_cap, &r));
        PCD_TRY(pcd_text_u64(o, r));
    }
    PCD_TRY(pcd_text_z(o, "],\"lineNumber\":["));
    PCD_TRY(put_fill(o, "null", c->n_fn));
    PCD_TRY(pcd_text_z(o, "],\"columnNumber\":["));
    PCD_TRY(put_fill(o, "null", c->n_fn));
    PCD_TRY(pcd_text_z(o, "],\"originalLocation\":["));
    PCD_TRY(put_fill(o, "null", c->n_fn));
    PCD_TRY(pcd_text_printf(o, "],\"length\":%zu},\"resourceTable\":{\"name\":[", c->n_fn));
    for (size_t i = 0; i < c->n_res; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str_index(c, c->res[i]));
    }
    PCD_TRY(pcd_text_z(o, "],\"host\":["));
    PCD_TRY(put_fill(o, "null", c->n_res));
    PCD_TRY(pcd_text_z(o, "],\"type\":["));
    PCD_TRY(put_fill(o, "1", c->n_res)); /* Library */
    PCD_TRY(pcd_text_printf(o, "],\"length\":%zu},\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],"
                               "\"functionSize\":[],\"length\":0},\"sources\":{\"id\":[",
                            c->n_res));
    PCD_TRY(put_fill(o, "null", c->n_src));
    PCD_TRY(pcd_text_z(o, "],\"filename\":["));
    for (size_t i = 0; i < c->n_src; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str_index(c, c->src[i]));
    }
    PCD_TRY(pcd_text_z(o, "],\"startLine\":["));
    PCD_TRY(put_fill(o, "1", c->n_src));
    PCD_TRY(pcd_text_z(o, "],\"startColumn\":["));
    PCD_TRY(put_fill(o, "1", c->n_src));
    PCD_TRY(pcd_text_z(o, "],\"sourceMapURL\":["));
    PCD_TRY(put_fill(o, "null", c->n_src));
    PCD_TRY(pcd_text_z(o, "],\"content\":["));
    PCD_TRY(put_fill(o, "null", c->n_src));
    PCD_TRY(pcd_text_printf(o, "],\"length\":%zu},\"sourceLocationTable\":{\"source\":[],\"line\":[],\"column\":[],"
                               "\"length\":0},\"stringArray\":[",
                            c->n_src));
    for (size_t i = 0; i < c->n_strs; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        pcd_bytes b = pcd_profile_text(p, c->strs[i]);
        PCD_TRY(pcd_text_json(o, b.ptr, b.len));
    }
    return pcd_text_z(o, "]}}\n");
}

static pcd_status f_end(void *ud, pcd_profile *p)
{
    firefox *c = ud;
    size_t n_samples = 0, n_marks = 0;
    c->interval_ns = interval_ns(p);
    for (size_t t = 0; t < c->th_cap; t++) {
        fthread *th = &c->th[t];
        if (!th->used) continue;
        /* states still open end a sampling interval after the thread's last sample */
        if (th->open) {
            int64_t end = th->last > INT64_MAX - c->interval_ns ? INT64_MAX : th->last + c->interval_ns;
            PCD_TRY(states(c, p, th, 0, end));
        }
        n_samples += th->n;
        n_marks += th->n_m;
    }
    /* without --metric, a default that turned out to have no value in any sample (a streaming
     * importer's guess, settled at the end): each row counts as one sample instead */
    if (n_samples && !c->j->metric && c->type >= 0 && !pcd_profile_type_valued(p, c->type)) {
        pcd_bytes n = pcd_profile_text(p, p->types[c->type].name);
        pcd_job_note(c->j, "note: no sample has a value of %.*s: firefox weighs every sample as one (--metric picks a type)",
                     (int)(n.len > 64 ? 64 : n.len), (const char *)n.ptr);
        c->type = -1;
        c->unit_ns = 0;
        c->bytes = false;
        c->all_one = true;
        for (size_t t = 0; t < c->th_cap; t++)
            for (size_t i = 0; i < c->th[t].n; i++) c->th[t].s[i].weight = 1;
    }
    if (!n_samples && !n_marks)
        return pcd_job_fail(c->j, PCD_E_EMPTY, "nothing to show: %sno samples and no spans",
                            c->j->damaged ? "before the damage, " : "");
    PCD_TRY(make_funcs(c, p));
    PCD_TRY(put_meta(c, p));
    /* threads in model order; the first of each process is its main thread */
    size_t shown = 0;
    for (size_t t = 0; t < c->th_cap; t++) {
        if (!c->th[t].used) continue;
        bool main_thread = true;
        for (size_t k = 0; k < t && main_thread; k++)
            if (c->th[k].used && p->threads[k].pid == p->threads[t].pid && p->threads[k].iid == p->threads[t].iid)
                main_thread = false;
        if (shown++) PCD_TRY(pcd_sink_put(c->out, ",", 1));
        PCD_TRY(put_thread(c, p, (pcd_thread_id)t, main_thread));
    }
    return put_shared(c, p);
}

static pcd_status f_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    firefox *c = state;
    c->j = j;
    c->out = out;
    cs->ud = c;
    cs->needs = PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE;
    cs->begin = f_begin;
    cs->sample = f_sample;
    cs->slice = f_slice;
    cs->end = f_end;
    return PCD_OK;
}

static void f_close(void *state)
{
    firefox *c = state;
    pcd_alloc *al = c->j->al;
    for (size_t t = 0; t < c->th_cap; t++) {
        PCD_VEC_FREE(al, c->th[t].s, c->th[t].cap);
        PCD_VEC_FREE(al, c->th[t].m, c->th[t].m_cap);
    }
    PCD_VEC_FREE(al, c->th, c->th_cap);
    PCD_VEC_FREE(al, c->gc, c->gc_cap);
    PCD_VEC_FREE(al, c->sidx, c->sidx_cap);
    PCD_VEC_FREE(al, c->strs, c->strs_cap);
    PCD_VEC_FREE(al, c->func, c->func_cap);
    PCD_VEC_FREE(al, c->fn, c->fn_cap);
    PCD_VEC_FREE(al, c->res, c->res_cap);
    PCD_VEC_FREE(al, c->src, c->src_cap);
    PCD_VEC_FREE(al, c->fr, c->fr_cap);
    PCD_VEC_FREE(al, c->tmp, c->tmp_cap);
    if (c->maps) {
        pcd_hmap_free(&c->fmap);
        pcd_hmap_free(&c->rmap);
        pcd_hmap_free(&c->smap);
    }
}

const pcd_exporter pcd_out_firefox = {
    "firefox",
    "the Firefox Profiler's processed format, version 70 (profiler.firefox.com, \"Load a profile from file\"): "
    "threads with their samples, shared stack/frame/func tables, markers for thread states and spans",
    0, PCD_HAS_SAMPLES | PCD_HAS_SLICES, sizeof(firefox), f_open, f_close, NULL, PCD_WANTS_AMOUNTS,
};
