/* outputs/pprof.c: pprof (profile.proto), written from the model through the generated encoder
 * (generated/pprof_v1.h: one record per field of the Profile), gzip-compressed unless
 * --compression none.
 *
 * Samples are summed per (thread, stack, labels), in the order first seen. Then:
 *  - sample types with their names (pprof's own spelling where it has one: alloc-bytes and
 *    alloc-count are alloc_space and alloc_objects) and units: every type the input lists itself
 *    (a pprof's), and of those its format always has, the ones some sample has a value of (no
 *    all-zero memory types for a wall-time MOJO); the default one (settled: one with values); the
 *    period and its type (the model's period type, else the metadata "period_type" a pprof
 *    input left, "type/unit"); time_nanos and duration_nanos when the source has them;
 *  - one Location per frame and the frames inlined into it (PCD_FRAME_INLINED: the Lines of one
 *    Location, innermost first), with the frame's address and its module's Mapping; one Function
 *    per (name, file); a Line's line and column (0 when unknown). A frame that is not code (a
 *    marker, a label, a heap type) has no file, and a marker without a name its text ("[GC]"):
 *    so go tool pprof shows what our collapsed output shows;
 *  - the thread as labels: "pid", "iid", "tid" (numbers in the unit "id", so that a 0 is kept),
 *    "tid_text", "thread", "process" (texts), which the pprof importer reads back; then the
 *    sample's own labels;
 *  - comments: the source ("profcodec: converted from FILE (FORMAT VERSION)"), then the
 *    metadata as "key: value" (a pprof input's comments as they were; its drop_frames,
 *    keep_frames and doc_url back in their fields).
 * Values are int64: an amount above 2^63-1 is written as 2^63-1, a signed value (a pprof
 * input's, negative in a difference of profiles) as it is. A frame of nothing but an address is
 * a Location without Lines, in its module's Mapping or in none. */
#include <inttypes.h>
#include <stdlib.h>

#include "common/gzout.h"
#include "common/hash.h"
#include "common/hmap.h"
#include "common/text.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"
#include "outputs/render.h"
#include "pprof_v1.h"

typedef struct pentry {
    pcd_thread_id thread;
    pcd_stack_id stack;
    uint32_t labels;               /* label set: index + 1 into sets, 0 none */
} pentry;

typedef struct pprof_out {
    pcd_job *j;
    pcd_sink *out;
    bool gzip;
    pcd_hmap entries;              /* (thread << 32 | stack, label set) -> index + 1 */
    pentry *e;
    size_t n_e, e_cap;
    uint64_t *vals;                /* n_types per entry (signed types' as int64_t) */
    size_t vals_cap;
    size_t n_types;
    uint32_t signed_mask;          /* bit t: type t is signed */
    uint32_t keep;                 /* bit t: type t is written (at the end) */
    /* label sets: each a run of pcd_labels in `lab`, found again by hash */
    pcd_hmap setmap;               /* (hash, n, probe) -> set index + 1 */
    struct { size_t first, n; } *sets;
    size_t n_sets, sets_cap;
    pcd_label *lab;
    size_t n_lab, lab_cap;
    /* writing */
    pcd_profile *p;
    uint64_t *str_index;           /* pprof index + 1 of each model string, 0 not yet */
    size_t str_cap;
    pcd_str *strs;                 /* the string table, in pprof's order */
    size_t n_strs, strs_cap;
    pcd_hmap funcs, maps, locs;
    pcd_frame_id *lframes;         /* the frames of each location, innermost first */
    size_t n_lframes, lframes_cap;
    struct { size_t first, n; } *loclist;
    size_t n_locs, loclist_cap;
    pcd_writer w;
    pcd_status wst;
} pprof_out;

static pcd_status oom(pprof_out *o) { return pcd_job_fail(o->j, PCD_E_NOMEM, "out of memory for the pprof output (raise --max-memory)"); }

/* ---- samples --------------------------------------------------------------------------- */

static uint64_t label_hash(const pcd_label *l, size_t n)
{
    uint64_t h = PCD_FNV_SEED;
    for (size_t i = 0; i < n; i++) {
        uint64_t w[4] = { l[i].key, l[i].str, (uint64_t)l[i].num, (uint64_t)l[i].unit << 1 | l[i].is_num };
        for (int k = 0; k < 4; k++) h = pcd_fnv_step(h, w[k]);
    }
    return h;
}

/* The label set of these labels (index + 1; 0 for none). */
static pcd_status label_set(pprof_out *o, const pcd_label *l, size_t n, uint32_t *out)
{
    *out = 0;
    if (!n) return PCD_OK;
    uint64_t h = label_hash(l, n);
    for (uint64_t probe = 0;; probe++) {
        bool fresh;
        pcd_hslot *s = pcd_hmap_put(&o->setmap, (pcd_hkey){ h, n, probe }, &fresh);
        if (!s) return oom(o);
        if (!fresh) {
            const pcd_label *have = o->lab + o->sets[s->v0 - 1].first;
            bool same = true;
            for (size_t i = 0; i < n && same; i++)
                same = have[i].key == l[i].key && have[i].str == l[i].str && have[i].num == l[i].num &&
                       have[i].unit == l[i].unit && have[i].is_num == l[i].is_num;
            if (same) {
                *out = (uint32_t)s->v0;
                return PCD_OK;
            }
            continue;   /* another set with the same hash */
        }
        if (PCD_VEC_RESERVE(o->j->al, o->sets, o->sets_cap, o->n_sets + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->lab, o->lab_cap, o->n_lab + n) != PCD_OK)
            return oom(o);
        memcpy(o->lab + o->n_lab, l, n * sizeof *l);
        o->sets[o->n_sets].first = o->n_lab;
        o->sets[o->n_sets].n = n;
        o->n_lab += n;
        s->v0 = ++o->n_sets;
        *out = (uint32_t)s->v0;
        return PCD_OK;
    }
}

static pcd_status p_begin(void *ud, pcd_profile *p)
{
    pprof_out *o = ud;
    o->n_types = p->n_types;
    o->signed_mask = p->signed_types;
    if (!o->n_types)   /* (nothing to show, as pcd_out_metric says it) */
        return pcd_job_fail(o->j, PCD_E_EMPTY, o->j->damaged ? "nothing to convert before the damage (no sample values before it)"
                                                             : "nothing to show: the input has no sample values");
    return PCD_OK;
}

static pcd_status p_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    pprof_out *o = ud;
    uint32_t set;
    PCD_TRY(label_set(o, s->labels, s->n_labels, &set));
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&o->entries, (pcd_hkey){ (uint64_t)s->thread << 32 | s->stack, set, 0 }, &fresh);
    if (!sl) return oom(o);
    if (fresh) {
        if (PCD_VEC_RESERVE(o->j->al, o->e, o->e_cap, o->n_e + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->vals, o->vals_cap, (o->n_e + 1) * o->n_types) != PCD_OK)
            return oom(o);
        o->e[o->n_e] = (pentry){ s->thread, s->stack, set };
        memset(o->vals + o->n_e * o->n_types, 0, o->n_types * sizeof *o->vals);
        sl->v0 = ++o->n_e;
    }
    uint64_t *v = o->vals + (sl->v0 - 1) * o->n_types;
    uint64_t c = s->count ? s->count : 1;
    for (size_t i = 0; i < o->n_types; i++) {
        uint64_t x = s->values[i];
        v[i] = (o->signed_mask >> i & 1) ? pcd_sat_add_i(v[i], pcd_sat_mul_i(x, c)) : pcd_sat_add(v[i], pcd_sat_mul(x, c));
    }
    return PCD_OK;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* The string table index of a model string (given one on first use). */
static int64_t sidx(pprof_out *o, pcd_str s)
{
    if (s == 0) return 0;
    if (s >= o->str_cap) {
        size_t old = o->str_cap;
        if (PCD_VEC_RESERVE(o->j->al, o->str_index, o->str_cap, (size_t)s + 1) != PCD_OK) {
            o->wst = oom(o);
            return 0;
        }
        memset(o->str_index + old, 0, (o->str_cap - old) * sizeof *o->str_index);
    }
    if (!o->str_index[s]) {
        if (PCD_VEC_RESERVE(o->j->al, o->strs, o->strs_cap, o->n_strs + 1) != PCD_OK) {
            o->wst = oom(o);
            return 0;
        }
        o->strs[o->n_strs] = s;
        o->str_index[s] = ++o->n_strs;   /* index n_strs - 1 + 1 */
    }
    return (int64_t)o->str_index[s] - 1;
}

static int64_t sidx_z(pprof_out *o, const char *z) { return sidx(o, pcd_profile_strz(o->p, z)); }

static pcd_status rec(pprof_out *o, const pcd_pprof_v1_profile_field *r)
{
    if (o->wst != PCD_OK) return o->wst;
    pcd_status st = pcd_writer_record(&o->w, &pcd_pprof_v1_region_profile, r);
    if (st != PCD_OK) {
        char msg[256];
        pcd_error_format(pcd_writer_error(&o->w), msg, sizeof msg);
        return pcd_job_fail(o->j, st == PCD_E_IO ? PCD_E_IO : PCD_E_INTERNAL, "cannot encode the pprof output: %s", msg);
    }
    return PCD_OK;
}

static pcd_status put_int(pprof_out *o, pcd_pprof_v1_profile_field_case which, int64_t v)
{
    pcd_pprof_v1_profile_field r;
    memset(&r, 0, sizeof r);
    r.which = which;
    switch (which) {
    case PCD_PPROF_V1_PROFILE_FIELD_TIME_NANOS: r.u.time_nanos = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_DURATION_NANOS: r.u.duration_nanos = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD: r.u.period = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_DEFAULT_SAMPLE_TYPE: r.u.default_sample_type = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_DROP_FRAMES: r.u.drop_frames = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_KEEP_FRAMES: r.u.keep_frames = v; break;
    case PCD_PPROF_V1_PROFILE_FIELD_DOC_URL: r.u.doc_url = v; break;
    default: return PCD_E_INTERNAL;
    }
    return rec(o, &r);
}

static pcd_status put_value_type(pprof_out *o, pcd_pprof_v1_profile_field_case which, pcd_str type, pcd_str unit)
{
    pcd_pprof_v1_profile_field r;
    memset(&r, 0, sizeof r);
    r.which = which;
    pcd_pprof_v1_value_type *vt = which == PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE ? &r.u.sample_type : &r.u.period_type;
    vt->has_type = vt->has_unit = true;   /* as Go writes them, 0 included */
    vt->type = sidx(o, type);
    vt->unit = sidx(o, unit);
    return rec(o, &r);
}

static bool text_is(const pcd_profile *p, pcd_str s, const char *z)
{
    pcd_bytes b = pcd_profile_text(p, s);
    return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0;
}

/* A frame's name as our collapsed output shows it, and its file (none for what is not code). */
static void frame_names(pprof_out *o, const pcd_frame *f, pcd_str *name, pcd_str *file)
{
    *name = f->function;
    *file = f->file;
    bool code = f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE || f->kind == PCD_FRAME_KERNEL;
    if (!code) *file = 0;
    if (!f->function) {
        const char *marker = f->kind == PCD_FRAME_GC ? "[GC]" : f->kind == PCD_FRAME_INVALID ? "[invalid]"
                           : f->kind == PCD_FRAME_IDLE ? "[idle]" : NULL;
        if (marker) *name = pcd_profile_strz(o->p, marker);
    }
}

static pcd_status put_function(pprof_out *o, pcd_str name, pcd_str file, uint64_t *id)
{
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(&o->funcs, (pcd_hkey){ name, file, 0 }, &fresh);
    if (!s) return oom(o);
    if (!fresh) {
        *id = s->v0;
        return PCD_OK;
    }
    s->v0 = *id = o->funcs.len;
    pcd_pprof_v1_profile_field r;
    memset(&r, 0, sizeof r);
    r.which = PCD_PPROF_V1_PROFILE_FIELD_FUNCTION;
    pcd_pprof_v1_function *f = &r.u.function;
    /* no system name: go tool pprof would take the name for a mangled one and "simplify" it
     * (<listcomp> becomes "") */
    f->has_id = f->has_name = true;
    f->id = *id;
    f->name = sidx(o, name);
    if (file) {
        f->has_filename = true;
        f->filename = sidx(o, file);
    }
    return rec(o, &r);
}

/* The mapping of a module (the main one, id 1: the input itself, for frames without a module).
 * Marked symbolized: go tool pprof then looks for no binary (and names the input as its file). */
static pcd_status put_mapping(pprof_out *o, pcd_str module, uint64_t *id)
{
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(&o->maps, (pcd_hkey){ module, 0, 0 }, &fresh);
    if (!s) return oom(o);
    if (!fresh) {
        *id = s->v0;
        return PCD_OK;
    }
    s->v0 = *id = o->maps.len;
    pcd_pprof_v1_profile_field r;
    memset(&r, 0, sizeof r);
    r.which = PCD_PPROF_V1_PROFILE_FIELD_MAPPING;
    pcd_pprof_v1_mapping *m = &r.u.mapping;
    m->has_id = m->has_filename = true;
    m->id = *id;
    m->filename = sidx(o, module);
    m->has_has_functions = m->has_has_filenames = m->has_has_line_numbers = m->has_has_inline_frames = true;
    m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = true;
    return rec(o, &r);
}

/* The location of frames fr[0..n) (innermost first: fr[n-1] is the caller the others are
 * inlined into): its id, written the first time. */
static pcd_status put_location(pprof_out *o, const pcd_frame_id *fr, size_t n, uint64_t *id)
{
    uint64_t h = PCD_FNV_SEED;
    for (size_t i = 0; i < n; i++) h = pcd_fnv_step(h, fr[i]);
    for (uint64_t probe = 0;; probe++) {
        bool fresh;
        pcd_hslot *s = pcd_hmap_put(&o->locs, (pcd_hkey){ n == 1 ? fr[0] : h, n, probe }, &fresh);
        if (!s) return oom(o);
        if (!fresh) {
            size_t li = (size_t)s->v0 - 1;
            if (o->loclist[li].n == n && !memcmp(o->lframes + o->loclist[li].first, fr, n * sizeof *fr)) {
                *id = s->v0;
                return PCD_OK;
            }
            continue;
        }
        if (PCD_VEC_RESERVE(o->j->al, o->loclist, o->loclist_cap, o->n_locs + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->lframes, o->lframes_cap, o->n_lframes + n) != PCD_OK)
            return oom(o);
        memcpy(o->lframes + o->n_lframes, fr, n * sizeof *fr);
        o->loclist[o->n_locs].first = o->n_lframes;
        o->loclist[o->n_locs].n = n;
        o->n_lframes += n;
        s->v0 = *id = ++o->n_locs;
        break;
    }
    /* its functions and mapping first, then the location */
    pcd_pprof_v1_line lines[16], *ln = n <= 16 ? lines : pcd_alloc_get(o->j->al, n * sizeof *ln);
    if (!ln) return oom(o);
    memset(ln, 0, n * sizeof *ln);
    pcd_status st = PCD_OK;
    const pcd_frame *caller = pcd_profile_frame_at(o->p, fr[n - 1]);
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        const pcd_frame *f = pcd_profile_frame_at(o->p, fr[i]);
        pcd_str name, file;
        frame_names(o, f, &name, &file);
        uint64_t fid = 0;
        if (name || file) {
            st = put_function(o, name, file, &fid);
            ln[i].has_function_id = true;
            ln[i].function_id = fid;
        }
        if (f->line != PCD_POS_NONE && f->line) {
            ln[i].has_line = true;
            ln[i].line = f->line;
        }
        if (f->column != PCD_POS_NONE && f->column) {
            ln[i].has_column = true;
            ln[i].column = f->column;
        }
    }
    /* a location of nothing but an address (native code without symbols) has no line, and
     * the mapping of its module, or none: not the input's (its name is its address and module) */
    bool bare = n == 1 && !ln[0].has_function_id && !ln[0].has_line;
    uint64_t mid = bare ? 0 : 1;
    if (st == PCD_OK && caller->module) st = put_mapping(o, caller->module, &mid);
    if (st == PCD_OK) {
        pcd_pprof_v1_profile_field r;
        memset(&r, 0, sizeof r);
        r.which = PCD_PPROF_V1_PROFILE_FIELD_LOCATION;
        pcd_pprof_v1_location *l = &r.u.location;
        l->has_id = true;
        l->id = *id;
        l->has_mapping_id = mid != 0;
        l->mapping_id = mid;
        l->has_address = caller->address != 0;
        l->address = caller->address;
        l->line = ln;
        l->n_line = bare ? 0 : n;
        st = rec(o, &r);
    }
    if (ln != lines) pcd_alloc_free(o->j->al, ln, n * sizeof *ln);
    return st;
}

/* The thread's labels, then the sample's own, into out (room for 6 + n). */
static size_t labels_of(pprof_out *o, const pentry *e, pcd_pprof_v1_label *out)
{
    pcd_profile *p = o->p;
    const pcd_thread *th = &p->threads[e->thread];
    size_t k = 0;
    memset(out, 0, 6 * sizeof *out);
    /* (the numbers with a unit: google/pprof drops a number label of 0 without one) */
#define NUM(z, v)                                                                                    \
    (out[k].has_key = out[k].has_num = out[k].has_num_unit = true, out[k].key = sidx_z(o, z), out[k].num = (v), \
     out[k].num_unit = sidx_z(o, "id"), k++)
#define STR(z, s) (out[k].has_key = out[k].has_str = true, out[k].key = sidx_z(o, z), out[k].str = sidx(o, s), k++)
    if (th->pid != PCD_ID_NONE) NUM("pid", th->pid);
    if (th->iid != PCD_ID_NONE) NUM("iid", th->iid);
    if (th->has_tid) NUM("tid", (int64_t)th->tid);
    if (pcd_thread_id_text(th)) STR("tid_text", pcd_thread_id_text(th)); /* (a lane: its name) */
    if (th->name) STR("thread", th->name);
    if (th->process_name) STR("process", th->process_name);
#undef NUM
#undef STR
    if (e->labels) {
        const pcd_label *l = o->lab + o->sets[e->labels - 1].first;
        for (size_t i = 0; i < o->sets[e->labels - 1].n; i++, k++) {
            memset(&out[k], 0, sizeof out[k]);
            out[k].has_key = true;
            out[k].key = sidx(o, l[i].key);
            if (l[i].is_num) {
                out[k].has_num = true;
                out[k].num = l[i].num;
                if (l[i].unit) {
                    out[k].has_num_unit = true;
                    out[k].num_unit = sidx(o, l[i].unit);
                }
            } else {
                out[k].has_str = true;
                out[k].str = sidx(o, l[i].str);
            }
        }
    }
    return k;
}

static pcd_status put_samples(pprof_out *o)
{
    pcd_profile *p = o->p;
    pcd_alloc *al = o->j->al;
    size_t depth_cap = 0, lab_cap = 0;
    pcd_frame_id *fr = NULL;
    pcd_pprof_v1_label *lab = NULL;
    int64_t *vals = pcd_alloc_get(al, o->n_types * sizeof *vals);
    pcd_status st = vals ? PCD_OK : oom(o);
    for (size_t i = 0; i < o->n_e && st == PCD_OK; i++) {
        const pentry *e = &o->e[i];
        size_t d = pcd_stack_depth(p, e->stack);
        size_t nl = 6 + (e->labels ? o->sets[e->labels - 1].n : 0);
        if (PCD_VEC_RESERVE(al, fr, depth_cap, d + 1) != PCD_OK || PCD_VEC_RESERVE(al, lab, lab_cap, nl) != PCD_OK) {
            st = oom(o);
            break;
        }
        uint64_t *locs = pcd_alloc_get(al, (d + 1) * sizeof *locs);
        if (!locs) {
            st = oom(o);
            break;
        }
        size_t n = pcd_stack_frames(p, e->stack, fr);   /* outermost first */
        /* leaf first: a location is a frame and the inlined frames above it */
        size_t nloc = 0;
        for (size_t top = n; top > 0 && st == PCD_OK;) {
            size_t bottom = top - 1;
            while (bottom > 0 && (pcd_profile_frame_at(p, fr[bottom])->flags & PCD_FRAME_INLINED)) bottom--;
            /* fr[bottom..top) is one location; innermost first is fr[top-1] .. fr[bottom] */
            pcd_frame_id group[64], *g = top - bottom <= 64 ? group : pcd_alloc_get(al, (top - bottom) * sizeof *g);
            if (!g) {
                st = oom(o);
                break;
            }
            for (size_t k = 0; k < top - bottom; k++) g[k] = fr[top - 1 - k];
            st = put_location(o, g, top - bottom, &locs[nloc++]);
            if (g != group) pcd_alloc_free(al, g, (top - bottom) * sizeof *g);
            top = bottom;
        }
        const uint64_t *v = o->vals + i * o->n_types;
        size_t nv = 0;
        for (size_t t = 0; t < o->n_types; t++) {
            if (!(o->keep >> t & 1)) continue;
            vals[nv++] = (o->signed_mask >> t & 1) ? pcd_value_i64(v[t]) : v[t] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v[t];
        }
        if (st == PCD_OK) {
            pcd_pprof_v1_profile_field r;
            memset(&r, 0, sizeof r);
            r.which = PCD_PPROF_V1_PROFILE_FIELD_SAMPLE;
            r.u.sample.location_id = locs;
            r.u.sample.n_location_id = nloc;
            r.u.sample.value = vals;
            r.u.sample.n_value = nv;
            r.u.sample.label = lab;
            r.u.sample.n_label = labels_of(o, e, lab);
            st = rec(o, &r);
        }
        pcd_alloc_free(al, locs, (d + 1) * sizeof *locs);
        if (st == PCD_OK) st = o->wst;
    }
    PCD_VEC_FREE(al, fr, depth_cap);
    PCD_VEC_FREE(al, lab, lab_cap);
    if (vals) pcd_alloc_free(al, vals, o->n_types * sizeof *vals);
    return st;
}

/* A sample type's name in pprof: the model's, or pprof's own spelling of the same thing (what
 * go tool pprof's -sample_index and the tools around it know). */
static pcd_str type_name(pprof_out *o, pcd_str name)
{
    static const char *const names[][2] = { { "alloc-bytes", "alloc_space" }, { "alloc-count", "alloc_objects" } };
    for (size_t i = 0; i < PCD_COUNTOF(names); i++)
        if (text_is(o->p, name, names[i][0])) return pcd_profile_strz(o->p, names[i][1]);
    return name;
}

/* The header: sample types, period, times, comments. */
static pcd_status put_header(pprof_out *o)
{
    pcd_profile *p = o->p;
    pcd_job *j = o->j;
    for (size_t i = 0; i < p->n_types; i++)
        if (o->keep >> i & 1)
            PCD_TRY(put_value_type(o, PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE, type_name(o, p->types[i].name), p->types[i].unit));
    if (p->default_type >= 0 && (size_t)p->default_type < p->n_types)
        PCD_TRY(put_int(o, PCD_PPROF_V1_PROFILE_FIELD_DEFAULT_SAMPLE_TYPE, sidx(o, type_name(o, p->types[p->default_type].name))));
    if (p->time_origin != PCD_TIME_NONE) PCD_TRY(put_int(o, PCD_PPROF_V1_PROFILE_FIELD_TIME_NANOS, p->time_origin));
    if (p->duration != PCD_TIME_NONE) PCD_TRY(put_int(o, PCD_PPROF_V1_PROFILE_FIELD_DURATION_NANOS, p->duration));
    if (p->period_type >= 0 && (size_t)p->period_type < p->n_types) {
        PCD_TRY(put_value_type(o, PCD_PPROF_V1_PROFILE_FIELD_PERIOD_TYPE, type_name(o, p->types[p->period_type].name),
                               p->types[p->period_type].unit));
    } else {
        /* what a pprof input said, when it names no sample type: "type/unit" */
        pcd_bytes pt = pcd_profile_text(p, pcd_profile_meta_get(p, "period_type"));
        const uint8_t *slash = pt.len ? memchr(pt.ptr, '/', pt.len) : NULL;
        if (slash)
            PCD_TRY(put_value_type(o, PCD_PPROF_V1_PROFILE_FIELD_PERIOD_TYPE, pcd_profile_str(p, pt.ptr, (size_t)(slash - pt.ptr)),
                                   pcd_profile_str(p, slash + 1, pt.len - (size_t)(slash - pt.ptr) - 1)));
    }
    if (p->period) PCD_TRY(put_int(o, PCD_PPROF_V1_PROFILE_FIELD_PERIOD, p->period));
    /* comments: the source, then the metadata */
    size_t nc = 0, cap = 1 + p->n_meta;
    int64_t *c = pcd_alloc_get(j->al, cap * sizeof *c);
    if (!c) return oom(o);
    char src[1024];
    int k = snprintf(src, sizeof src, "profcodec: converted from %s (%s %s)", j->input_name ? j->input_name : "-",
                     p->format ? p->format : "?", p->version ? p->version : "?");
    c[nc++] = sidx(o, pcd_profile_str(p, src, (size_t)k < sizeof src ? (size_t)k : sizeof src - 1));
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < p->n_meta && st == PCD_OK; i++) {
        pcd_str key = p->meta[i].key, v = p->meta[i].value;
        pcd_pprof_v1_profile_field_case field = 0;
        if (text_is(p, key, "period_type")) continue;
        if (text_is(p, key, "drop_frames")) field = PCD_PPROF_V1_PROFILE_FIELD_DROP_FRAMES;
        else if (text_is(p, key, "keep_frames")) field = PCD_PPROF_V1_PROFILE_FIELD_KEEP_FRAMES;
        else if (text_is(p, key, "doc_url")) field = PCD_PPROF_V1_PROFILE_FIELD_DOC_URL;
        if (field) {
            st = put_int(o, field, sidx(o, v));
            continue;
        }
        if (text_is(p, key, "comment")) {
            c[nc++] = sidx(o, v);
            continue;
        }
        pcd_memsink ms;
        pcd_memsink_init(&ms, j->al);
        st = pcd_text_bytes(&ms.sink, pcd_profile_text(p, key));
        if (st == PCD_OK) st = pcd_text_z(&ms.sink, ": ");
        if (st == PCD_OK) st = pcd_text_bytes(&ms.sink, pcd_profile_text(p, v));
        if (st == PCD_OK) st = pcd_memsink_flush(&ms);
        if (st == PCD_OK) c[nc++] = sidx(o, pcd_profile_str(p, ms.data, ms.len));
        pcd_memsink_free(&ms);
        if (st != PCD_OK && st != PCD_E_IO) st = oom(o);
    }
    if (st == PCD_OK) {
        pcd_pprof_v1_profile_field r;
        memset(&r, 0, sizeof r);
        r.which = PCD_PPROF_V1_PROFILE_FIELD_COMMENT;
        r.u.comment.items = c;
        r.u.comment.n_items = nc;
        st = rec(o, &r);
    }
    pcd_alloc_free(j->al, c, cap * sizeof *c);
    return st == PCD_OK ? o->wst : st;
}

static pcd_status p_end(void *ud, pcd_profile *p)
{
    pprof_out *o = ud;
    pcd_job *j = o->j;
    o->p = p;
    if (!o->n_types) return PCD_OK;   /* (begin said why) */
    /* the sample types: every one the input lists itself (a pprof's), and those of the format's
     * that some sample has a value of (a wall-time MOJO has no memory types in pprof); the
     * default is one with values (the pipeline settled it), so one is written at least */
    for (size_t t = 0; t < o->n_types; t++)
        if (p->types[t].listed || (p->valued >> t & 1) || (int)t == p->default_type) o->keep |= 1u << t;
    pcd_gzout *gz = NULL;
    pcd_sink *sink = o->out;
    if (o->gzip) {
        gz = pcd_alloc_get(j->al, sizeof *gz);
        if (!gz || pcd_gzout_open(gz, o->out, j->al, 6) != PCD_OK) {
            if (gz) pcd_alloc_free(j->al, gz, sizeof *gz);
            return oom(o);
        }
        sink = &gz->sink;
    }
    pcd_status st = pcd_writer_open(&o->w, &pcd_pprof_v1_format, sink, j->al);
    pcd_pprof_v1_file root;
    memset(&root, 0, sizeof root);
    if (st == PCD_OK) st = pcd_writer_root(&o->w, &root);
    /* string_table[0] is "" */
    if (st == PCD_OK && PCD_VEC_RESERVE(j->al, o->strs, o->strs_cap, 1) != PCD_OK) st = oom(o);
    if (st == PCD_OK) o->strs[o->n_strs++] = 0;
    if (st == PCD_OK) st = put_header(o);
    if (st == PCD_OK) {
        /* mapping 1, "the main binary": the input (pprof tools want one) */
        const char *in = j->input_name ? j->input_name : "-";
        const char *slash = strrchr(in, '/');
        uint64_t mid;
        st = put_mapping(o, pcd_profile_strz(p, slash ? slash + 1 : in), &mid);
    }
    if (st == PCD_OK) st = put_samples(o);
    for (size_t i = 0; i < o->n_strs && st == PCD_OK; i++) {
        pcd_pprof_v1_profile_field r;
        memset(&r, 0, sizeof r);
        r.which = PCD_PPROF_V1_PROFILE_FIELD_STRING_TABLE;
        r.u.string_table = i ? pcd_profile_text(p, o->strs[i]) : (pcd_bytes){ (const uint8_t *)"", 0 };
        st = rec(o, &r);
    }
    if (st == PCD_OK) st = pcd_writer_finish(&o->w);
    pcd_writer_close(&o->w);
    if (gz) {
        if (st == PCD_OK && pcd_gzout_finish(gz) != PCD_OK) st = pcd_job_fail(j, PCD_E_IO, "cannot write the output");
        pcd_gzout_close(gz);
        pcd_alloc_free(j->al, gz, sizeof *gz);
    }
    return st;
}

static pcd_status p_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    pprof_out *o = state;
    o->j = j;
    o->out = out;
    o->gzip = true;
    if (j->compression) {
        if (strcmp(j->compression, "none") == 0) o->gzip = false;
        else if (strcmp(j->compression, "gzip") != 0)
            return pcd_job_fail(j, PCD_E_ARG, "--compression for pprof takes gzip (the default) or none, not '%s'",
                                j->compression);
    }
    pcd_hmap_init(&o->entries, j->al);
    pcd_hmap_init(&o->setmap, j->al);
    pcd_hmap_init(&o->funcs, j->al);
    pcd_hmap_init(&o->maps, j->al);
    pcd_hmap_init(&o->locs, j->al);
    c->ud = o;
    c->begin = p_begin;
    c->sample = p_sample;
    c->end = p_end;
    return PCD_OK;
}

static void p_close(void *state)
{
    pprof_out *o = state;
    pcd_alloc *al = o->j->al;
    pcd_hmap_free(&o->entries);
    pcd_hmap_free(&o->setmap);
    pcd_hmap_free(&o->funcs);
    pcd_hmap_free(&o->maps);
    pcd_hmap_free(&o->locs);
    PCD_VEC_FREE(al, o->e, o->e_cap);
    PCD_VEC_FREE(al, o->vals, o->vals_cap);
    PCD_VEC_FREE(al, o->sets, o->sets_cap);
    PCD_VEC_FREE(al, o->lab, o->lab_cap);
    PCD_VEC_FREE(al, o->str_index, o->str_cap);
    PCD_VEC_FREE(al, o->strs, o->strs_cap);
    PCD_VEC_FREE(al, o->lframes, o->lframes_cap);
    PCD_VEC_FREE(al, o->loclist, o->loclist_cap);
}

const pcd_exporter pcd_out_pprof = {
    "pprof", "pprof profile.proto, gzip-compressed (--compression none: raw); for go tool pprof, Pyroscope...",
    PCD_HAS_SAMPLES, 0, sizeof(pprof_out), p_open, p_close, NULL, PCD_WANTS_FILE,
};
