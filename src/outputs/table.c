/* outputs/table.c: the profile as tables that query engines read (DuckDB, Spark, ClickHouse,
 * pandas): newline-delimited JSON, one object a row, every row of every table keyed by the
 * profile it belongs to, so that the tables of any number of files can be read as one.
 *
 *   --to table   a directory of normalised tables (docs/tables.md gives every column):
 *                  samples.ndjson   profile, source, thread, time, stack, count, value, values,
 *                                   labels (streamed: one row per sample as it comes)
 *                  slices.ndjson    profile, track, start, end, name, category, args (streamed)
 *                  stacks.ndjson    profile, id, parent, frame, depth (the stack trie)
 *                  frames.ndjson    profile, id, function, file, line, column, module, kind,
 *                                   address, inlined
 *                  threads.ndjson   profile, id, pid, iid, tid, tid_text, name, process_name,
 *                                   lane_of
 *                  types.ndjson     profile, position, name, unit, title, signed, shown
 *                  metadata.ndjson  profile, key, value
 *                  profile.ndjson   profile, format, version, time_origin, duration, period,
 *                                   period_type, samples, slices, damaged
 *   --to ndjson  the wide form, one stream: one row per sample with its thread and its stack as
 *                a list of frames {function, file, line, kind}, leaf first (profile, source,
 *                thread, tid, pid, time, count, value, values, stack, labels).
 *
 * A row's values are the sample's values times its count (what the row stands for); `value` is
 * the shown metric's (--metric, else the profile's default), `values` every type's, in the
 * order of types.ndjson (position 1 first, as SQL lists count). `source` is the input a sample
 * came from: the file converted, or for `merge` the sample's own input (its source label). Ids
 * are the profile's own (the model's): stack 0 is the empty stack and has no row. Numbers are
 * exact (64-bit, not clamped for JavaScript); strings are valid UTF-8 JSON (pcd_text_json).
 *
 * --compression gzip deflates each file (named .ndjson.gz; every engine above reads them) or the
 * stream: a fleet's tables are about a tenth of the size.
 *
 * Samples and slices are written as they come; the tables of what is distinct (stacks, frames,
 * threads, types, metadata) at the end, from the profile's own tables: memory is the model's,
 * nothing is kept per sample. */
#include <inttypes.h>

#include "pcd_json.h"

#include "common/gzout.h"
#include "common/text.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"

static const char *const kind_names[PCD_FRAME_KIND_N] = {
    "code", "native", "kernel", "gc", "idle", "invalid", "label", "type", "root",
};

enum { T_SAMPLES, T_SLICES, T_STACKS, T_FRAMES, T_THREADS, T_TYPES, T_METADATA, T_PROFILE, T_N };

static const char *const part_names[T_N] = {
    "samples.ndjson", "slices.ndjson", "stacks.ndjson", "frames.ndjson",
    "threads.ndjson", "types.ndjson", "metadata.ndjson", "profile.ndjson",
};

typedef struct table {
    pcd_job *j;
    bool wide;
    pcd_sink *part[T_N];           /* --to table: the directory's files */
    pcd_sink *out;                 /* --to ndjson: the one stream */
    int shown;                     /* the type `value` is of */
    bool seen_sample;
    pcd_str source_key;            /* the label key "source" (merge's), 0 before begin */
    /* `{"profile":"NAME"` rendered once (every row starts with it) */
    pcd_memsink head;
    bool head_ready;
    /* the source of the last sample with a source label, rendered: `,"source":"NAME"` */
    pcd_str last_source;
    pcd_memsink src;
    bool src_ready;
    pcd_frame_id *fr;              /* a stack's frames (wide) */
    size_t fr_cap;
    /* --compression gzip: each file (or the stream) deflated, its name ending in .gz */
    pcd_gzout *gz[T_N];
    size_t n_gz;
} table;

/* ---- values -------------------------------------------------------------------------------- */

static pcd_status put_u64(pcd_sink *s, uint64_t v)
{
    char b[24];
    return pcd_sink_put(s, b, pcd_text_u64_digits(b, v));
}

static pcd_status put_i64(pcd_sink *s, int64_t v)
{
    char b[24];
    return pcd_sink_put(s, b, pcd_text_i64_digits(b, v));
}

/* A position, time or id the source may not give: null then. */
static pcd_status put_opt(pcd_sink *s, int64_t v, int64_t none)
{
    return v == none ? pcd_text_z(s, "null") : put_i64(s, v);
}

static pcd_status put_str(pcd_sink *s, const pcd_profile *p, pcd_str id)
{
    pcd_bytes b = pcd_profile_text(p, id);
    return pcd_text_json(s, b.ptr, b.len);
}

/* One sample's value of type t times its count, as the type's kind reads. */
static pcd_status put_value(pcd_sink *s, const pcd_profile *p, const pcd_sample *x, size_t t)
{
    if (p->types[t].is_signed) return put_i64(s, pcd_value_i64(pcd_sat_mul_i(x->values[t], x->count)));
    return put_u64(s, pcd_sat_mul(x->values[t], x->count));
}

/* Starts a row: `{"profile":"NAME"`. */
static pcd_status row(table *c, pcd_sink *s, const pcd_profile *p)
{
    if (!c->head_ready) {
        pcd_memsink_init(&c->head, c->j->al);
        PCD_TRY(pcd_text_z(&c->head.sink, "{\"profile\":"));
        PCD_TRY(pcd_text_json_z(&c->head.sink, p->input_name ? p->input_name : ""));
        PCD_TRY(pcd_memsink_flush(&c->head));
        c->head_ready = true;
    }
    return pcd_sink_put(s, c->head.data, c->head.len);
}

/* `,"source":"NAME"`: the sample's source label (merge), else the input converted. */
static pcd_status put_source(table *c, pcd_sink *s, const pcd_profile *p, const pcd_sample *x)
{
    pcd_str src = 0;
    for (size_t i = 0; i < x->n_labels; i++)
        if (c->source_key && x->labels[i].key == c->source_key && !x->labels[i].is_num) src = x->labels[i].str;
    if (!src) {
        PCD_TRY(pcd_text_z(s, ",\"source\":"));
        return pcd_text_json_z(s, p->input_name ? p->input_name : "");
    }
    if (!c->src_ready || src != c->last_source) {
        if (c->src_ready) pcd_memsink_free(&c->src);
        pcd_memsink_init(&c->src, c->j->al);
        c->src_ready = true;
        c->last_source = src;
        PCD_TRY(pcd_text_z(&c->src.sink, ",\"source\":"));
        PCD_TRY(put_str(&c->src.sink, p, src));
        PCD_TRY(pcd_memsink_flush(&c->src));
    }
    return pcd_sink_put(s, c->src.data, c->src.len);
}

/* `,"count":N,"value":V,"values":[...]` */
static pcd_status put_values(table *c, pcd_sink *s, const pcd_profile *p, const pcd_sample *x)
{
    PCD_TRY(pcd_text_z(s, ",\"count\":"));
    PCD_TRY(put_u64(s, x->count));
    PCD_TRY(pcd_text_z(s, ",\"value\":"));
    PCD_TRY(put_value(s, p, x, (size_t)c->shown));
    PCD_TRY(pcd_text_z(s, ",\"values\":["));
    for (size_t t = 0; t < p->n_types; t++) {
        if (t) PCD_TRY(pcd_text_z(s, ","));
        PCD_TRY(put_value(s, p, x, t));
    }
    return pcd_text_z(s, "]");
}

/* `,"labels":[{"key":K,"str":S,"num":N,"unit":U},...]` (the source label is the source column);
 * every member always there, so that engines infer one shape for every file. */
static pcd_status put_labels(table *c, pcd_sink *s, const pcd_profile *p, const pcd_sample *x)
{
    PCD_TRY(pcd_text_z(s, ",\"labels\":["));
    bool first = true;
    for (size_t i = 0; i < x->n_labels; i++) {
        const pcd_label *l = &x->labels[i];
        if (c->source_key && l->key == c->source_key && !l->is_num) continue;
        PCD_TRY(pcd_text_z(s, first ? "{\"key\":" : ",{\"key\":"));
        first = false;
        PCD_TRY(put_str(s, p, l->key));
        if (l->is_num) {
            PCD_TRY(pcd_text_z(s, ",\"str\":null,\"num\":"));
            PCD_TRY(put_i64(s, l->num));
            PCD_TRY(pcd_text_z(s, ",\"unit\":"));
            PCD_TRY(l->unit ? put_str(s, p, l->unit) : pcd_text_z(s, "null"));
        } else {
            PCD_TRY(pcd_text_z(s, ",\"str\":"));
            PCD_TRY(put_str(s, p, l->str));
            PCD_TRY(pcd_text_z(s, ",\"num\":null,\"unit\":null"));
        }
        PCD_TRY(pcd_text_z(s, "}"));
    }
    return pcd_text_z(s, "]");
}

/* ---- events -------------------------------------------------------------------------------- */

static pcd_status t_begin(void *ud, pcd_profile *p)
{
    table *c = ud;
    c->source_key = pcd_profile_strz(p, "source");
    if (p->oom) return p->oom;
    c->shown = p->default_type;
    /* a profile with no sample type (spans only) has no value to show */
    if (c->j->metric || p->n_types) PCD_TRY(pcd_out_metric(c->j, p, &c->shown));
    return PCD_OK;
}

static pcd_status t_sample(void *ud, pcd_profile *p, const pcd_sample *x)
{
    table *c = ud;
    pcd_sink *s = c->wide ? c->out : c->part[T_SAMPLES];
    /* the default type: an importer that holds every sample to its end (Mono's call tree) has
     * said by now which types have values (pcd_profile_values_ahead settled it); a streaming
     * one's choice at its begin stands (it names a type its samples give) */
    if (!c->seen_sample && !c->j->metric) c->shown = p->default_type;
    c->seen_sample = true;
    if (c->shown < 0 || (size_t)c->shown >= p->n_types) c->shown = 0;
    PCD_TRY(row(c, s, p));
    PCD_TRY(put_source(c, s, p, x));
    if (c->wide) {
        const pcd_thread *th = &p->threads[x->thread];
        PCD_TRY(pcd_text_z(s, ",\"thread\":"));
        if (th->name) PCD_TRY(put_str(s, p, th->name));
        else if (th->tid_text) PCD_TRY(put_str(s, p, th->tid_text));
        else if (th->has_tid) {
            PCD_TRY(pcd_text_z(s, "\""));
            PCD_TRY(put_u64(s, th->tid));
            PCD_TRY(pcd_text_z(s, "\""));
        } else PCD_TRY(pcd_text_z(s, "\"\""));
        PCD_TRY(pcd_text_z(s, ",\"tid\":"));
        PCD_TRY(th->has_tid ? put_u64(s, th->tid) : pcd_text_z(s, "null"));
        PCD_TRY(pcd_text_z(s, ",\"pid\":"));
        PCD_TRY(put_opt(s, th->pid, PCD_ID_NONE));
    } else {
        PCD_TRY(pcd_text_z(s, ",\"thread\":"));
        PCD_TRY(put_u64(s, x->thread));
    }
    PCD_TRY(pcd_text_z(s, ",\"time\":"));
    PCD_TRY(put_opt(s, x->time, PCD_TIME_NONE));
    if (!c->wide) {
        PCD_TRY(pcd_text_z(s, ",\"stack\":"));
        PCD_TRY(put_u64(s, x->stack));
    }
    PCD_TRY(put_values(c, s, p, x));
    if (c->wide) {
        uint32_t d = pcd_stack_depth(p, x->stack);
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->fr, c->fr_cap, (size_t)d + 1));
        size_t n = pcd_stack_frames(p, x->stack, c->fr);
        PCD_TRY(pcd_text_z(s, ",\"stack\":["));
        for (size_t i = n; i-- > 0;) {
            const pcd_frame *f = pcd_profile_frame_at(p, c->fr[i]);
            PCD_TRY(pcd_text_z(s, i + 1 == n ? "{\"function\":" : ",{\"function\":"));
            PCD_TRY(put_str(s, p, f->function));
            PCD_TRY(pcd_text_z(s, ",\"file\":"));
            PCD_TRY(put_str(s, p, f->file));
            PCD_TRY(pcd_text_z(s, ",\"line\":"));
            PCD_TRY(put_opt(s, f->line, PCD_POS_NONE));
            PCD_TRY(pcd_text_z(s, ",\"kind\":\""));
            PCD_TRY(pcd_text_z(s, kind_names[f->kind < PCD_FRAME_KIND_N ? f->kind : 0]));
            PCD_TRY(pcd_text_z(s, "\"}"));
        }
        PCD_TRY(pcd_text_z(s, "]"));
    }
    PCD_TRY(put_labels(c, s, p, x));
    return pcd_text_z(s, "}\n");
}

static pcd_status put_arg(pcd_sink *s, const pcd_arg *a)
{
    size_t n = 0;
    switch (a->type) {
    case PCD_ARG_U64: return put_u64(s, a->v.u);
    case PCD_ARG_I64: return put_i64(s, a->v.i);
    case PCD_ARG_F64:
        /* JSON has no NaN or infinity: those are null (a number column stays one) */
        return a->v.f == a->v.f && a->v.f - a->v.f == 0 ? pcd_json_f64(s, a->v.f) : pcd_text_z(s, "null");
    case PCD_ARG_STR: return pcd_text_json(s, a->v.s.ptr, a->v.s.len);
    case PCD_ARG_U64_ARRAY: n = a->v.u_arr.n; break;
    case PCD_ARG_I64_ARRAY: n = a->v.i_arr.n; break;
    case PCD_ARG_F64_ARRAY: n = a->v.f_arr.n; break;
    case PCD_ARG_STR_ARRAY: n = a->v.s_arr.n; break;
    }
    PCD_TRY(pcd_text_z(s, "["));
    for (size_t i = 0; i < n; i++) {
        if (i) PCD_TRY(pcd_text_z(s, ","));
        pcd_arg e;
        memset(&e, 0, sizeof e);
        switch (a->type) {
        case PCD_ARG_U64_ARRAY: e.type = PCD_ARG_U64; e.v.u = a->v.u_arr.items[i]; break;
        case PCD_ARG_I64_ARRAY: e.type = PCD_ARG_I64; e.v.i = a->v.i_arr.items[i]; break;
        case PCD_ARG_F64_ARRAY: e.type = PCD_ARG_F64; e.v.f = a->v.f_arr.items[i]; break;
        default: e.type = PCD_ARG_STR; e.v.s = a->v.s_arr.items[i]; break;
        }
        PCD_TRY(put_arg(s, &e));
    }
    return pcd_text_z(s, "]");
}

static pcd_status t_slice(void *ud, pcd_profile *p, const pcd_slice *x)
{
    table *c = ud;
    if (c->wide) return PCD_OK; /* the wide form is the samples' */
    pcd_sink *s = c->part[T_SLICES];
    PCD_TRY(row(c, s, p));
    PCD_TRY(pcd_text_z(s, ",\"track\":"));
    PCD_TRY(put_u64(s, x->track));
    PCD_TRY(pcd_text_z(s, ",\"start\":"));
    PCD_TRY(put_i64(s, x->start));
    PCD_TRY(pcd_text_z(s, ",\"end\":"));
    PCD_TRY(put_i64(s, x->end));
    PCD_TRY(pcd_text_z(s, ",\"name\":"));
    PCD_TRY(pcd_text_json(s, x->name.ptr, x->name.len));
    PCD_TRY(pcd_text_z(s, ",\"category\":"));
    PCD_TRY(pcd_text_json(s, x->category.ptr, x->category.len));
    /* args as one JSON object (keys as the source names them; a repeated key keeps its first) */
    PCD_TRY(pcd_text_z(s, ",\"args\":{"));
    for (size_t i = 0; i < x->n_args; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = x->args[k].key.len == x->args[i].key.len && !memcmp(x->args[k].key.ptr, x->args[i].key.ptr, x->args[i].key.len);
        if (seen) continue;
        if (i) PCD_TRY(pcd_text_z(s, ","));
        PCD_TRY(pcd_text_json(s, x->args[i].key.ptr, x->args[i].key.len));
        PCD_TRY(pcd_text_z(s, ":"));
        PCD_TRY(put_arg(s, &x->args[i]));
    }
    return pcd_text_z(s, "}}\n");
}

/* ---- the tables of what is distinct, at the end ---------------------------------------------- */

static pcd_status write_stacks(table *c, pcd_sink *s, const pcd_profile *p)
{
    for (size_t i = 1; i < p->n_stacks; i++) {
        PCD_TRY(row(c, s, p));
        PCD_TRY(pcd_text_z(s, ",\"id\":"));
        PCD_TRY(put_u64(s, i));
        PCD_TRY(pcd_text_z(s, ",\"parent\":"));
        PCD_TRY(p->st[i].parent ? put_u64(s, p->st[i].parent) : pcd_text_z(s, "null"));
        PCD_TRY(pcd_text_z(s, ",\"frame\":"));
        PCD_TRY(put_u64(s, p->st[i].frame));
        PCD_TRY(pcd_text_z(s, ",\"depth\":"));
        PCD_TRY(put_u64(s, p->st[i].depth));
        PCD_TRY(pcd_text_z(s, "}\n"));
    }
    return PCD_OK;
}

static pcd_status write_frames(table *c, pcd_sink *s, const pcd_profile *p)
{
    for (size_t i = 0; i < p->n_frames; i++) {
        const pcd_frame *f = &p->frames[i];
        PCD_TRY(row(c, s, p));
        PCD_TRY(pcd_text_z(s, ",\"id\":"));
        PCD_TRY(put_u64(s, i));
        PCD_TRY(pcd_text_z(s, ",\"function\":"));
        PCD_TRY(put_str(s, p, f->function));
        PCD_TRY(pcd_text_z(s, ",\"file\":"));
        PCD_TRY(put_str(s, p, f->file));
        PCD_TRY(pcd_text_z(s, ",\"line\":"));
        PCD_TRY(put_opt(s, f->line, PCD_POS_NONE));
        PCD_TRY(pcd_text_z(s, ",\"column\":"));
        PCD_TRY(put_opt(s, f->column, PCD_POS_NONE));
        PCD_TRY(pcd_text_z(s, ",\"module\":"));
        PCD_TRY(put_str(s, p, f->module));
        PCD_TRY(pcd_text_z(s, ",\"kind\":\""));
        PCD_TRY(pcd_text_z(s, kind_names[f->kind < PCD_FRAME_KIND_N ? f->kind : 0]));
        PCD_TRY(pcd_text_z(s, "\",\"address\":"));
        PCD_TRY(f->address ? put_u64(s, f->address) : pcd_text_z(s, "null"));
        PCD_TRY(pcd_text_z(s, (f->flags & PCD_FRAME_INLINED) ? ",\"inlined\":true}\n" : ",\"inlined\":false}\n"));
    }
    return PCD_OK;
}

static pcd_status write_threads(table *c, pcd_sink *s, const pcd_profile *p)
{
    for (size_t i = 0; i < p->n_threads; i++) {
        const pcd_thread *t = &p->threads[i];
        PCD_TRY(row(c, s, p));
        PCD_TRY(pcd_text_z(s, ",\"id\":"));
        PCD_TRY(put_u64(s, i));
        PCD_TRY(pcd_text_z(s, ",\"pid\":"));
        PCD_TRY(put_opt(s, t->pid, PCD_ID_NONE));
        PCD_TRY(pcd_text_z(s, ",\"iid\":"));
        PCD_TRY(put_opt(s, t->iid, PCD_ID_NONE));
        PCD_TRY(pcd_text_z(s, ",\"tid\":"));
        PCD_TRY(t->has_tid ? put_u64(s, t->tid) : pcd_text_z(s, "null"));
        PCD_TRY(pcd_text_z(s, ",\"tid_text\":"));
        PCD_TRY(put_str(s, p, t->tid_text));
        PCD_TRY(pcd_text_z(s, ",\"name\":"));
        PCD_TRY(put_str(s, p, t->name));
        PCD_TRY(pcd_text_z(s, ",\"process_name\":"));
        PCD_TRY(put_str(s, p, t->process_name));
        PCD_TRY(pcd_text_z(s, ",\"lane_of\":"));
        PCD_TRY(t->lane_of ? put_u64(s, t->lane_of - 1) : pcd_text_z(s, "null"));
        PCD_TRY(pcd_text_z(s, "}\n"));
    }
    return PCD_OK;
}

static pcd_status write_types(table *c, pcd_sink *s, const pcd_profile *p)
{
    for (size_t i = 0; i < p->n_types; i++) {
        const pcd_sample_type *t = &p->types[i];
        PCD_TRY(row(c, s, p));
        PCD_TRY(pcd_text_z(s, ",\"position\":"));
        PCD_TRY(put_u64(s, i + 1));
        PCD_TRY(pcd_text_z(s, ",\"name\":"));
        PCD_TRY(put_str(s, p, t->name));
        PCD_TRY(pcd_text_z(s, ",\"unit\":"));
        PCD_TRY(put_str(s, p, t->unit));
        PCD_TRY(pcd_text_z(s, ",\"title\":"));
        PCD_TRY(put_str(s, p, t->title ? t->title : t->name));
        PCD_TRY(pcd_text_z(s, t->is_signed ? ",\"signed\":true" : ",\"signed\":false"));
        PCD_TRY(pcd_text_z(s, (int)i == c->shown ? ",\"shown\":true}\n" : ",\"shown\":false}\n"));
    }
    return PCD_OK;
}

static pcd_status write_metadata(table *c, pcd_sink *s, const pcd_profile *p)
{
    for (size_t i = 0; i < p->n_meta; i++) {
        PCD_TRY(row(c, s, p));
        PCD_TRY(pcd_text_z(s, ",\"key\":"));
        PCD_TRY(put_str(s, p, p->meta[i].key));
        PCD_TRY(pcd_text_z(s, ",\"value\":"));
        PCD_TRY(put_str(s, p, p->meta[i].value));
        PCD_TRY(pcd_text_z(s, "}\n"));
    }
    return PCD_OK;
}

static pcd_status write_profile(table *c, pcd_sink *s, const pcd_profile *p)
{
    PCD_TRY(row(c, s, p));
    PCD_TRY(pcd_text_z(s, ",\"format\":"));
    PCD_TRY(pcd_text_json_z(s, p->format ? p->format : ""));
    PCD_TRY(pcd_text_z(s, ",\"version\":"));
    PCD_TRY(pcd_text_json_z(s, p->version ? p->version : ""));
    PCD_TRY(pcd_text_z(s, ",\"time_origin\":"));
    PCD_TRY(put_opt(s, p->time_origin, PCD_TIME_NONE));
    PCD_TRY(pcd_text_z(s, ",\"duration\":"));
    PCD_TRY(put_opt(s, p->duration, PCD_TIME_NONE));
    PCD_TRY(pcd_text_z(s, ",\"period\":"));
    PCD_TRY(p->period ? put_i64(s, p->period) : pcd_text_z(s, "null"));
    PCD_TRY(pcd_text_z(s, ",\"period_type\":"));
    PCD_TRY(p->period_type >= 0 && (size_t)p->period_type < p->n_types ? put_str(s, p, p->types[p->period_type].name)
                                                                        : pcd_text_z(s, "null"));
    PCD_TRY(pcd_text_z(s, ",\"samples\":"));
    PCD_TRY(put_u64(s, p->n_samples));
    PCD_TRY(pcd_text_z(s, ",\"slices\":"));
    PCD_TRY(put_u64(s, p->n_slices));
    return pcd_text_z(s, c->j->damaged ? ",\"damaged\":true}\n" : ",\"damaged\":false}\n");
}

static pcd_status t_end(void *ud, pcd_profile *p)
{
    table *c = ud;
    if (!c->wide) {
        PCD_TRY(write_stacks(c, c->part[T_STACKS], p));
        PCD_TRY(write_frames(c, c->part[T_FRAMES], p));
        PCD_TRY(write_threads(c, c->part[T_THREADS], p));
        PCD_TRY(write_types(c, c->part[T_TYPES], p));
        PCD_TRY(write_metadata(c, c->part[T_METADATA], p));
        PCD_TRY(write_profile(c, c->part[T_PROFILE], p));
    }
    for (size_t i = 0; i < c->n_gz; i++) PCD_TRY(pcd_gzout_finish(c->gz[i]));
    return PCD_OK;
}

/* ---- the exporters --------------------------------------------------------------------------- */

/* --compression: none (the default) or gzip; *gzip says which. */
static pcd_status compression(pcd_job *j, bool *gzip)
{
    *gzip = false;
    if (!j->compression || strcmp(j->compression, "none") == 0) return PCD_OK;
    if (strcmp(j->compression, "gzip") == 0) return *gzip = true, PCD_OK;
    return pcd_job_fail(j, PCD_E_ARG, "--compression for the tables takes none (the default) or gzip, not '%s'",
                        j->compression);
}

/* *s deflated: a gzip stream into *s, which *s then names. */
static pcd_status gzip_over(table *c, pcd_sink **s)
{
    pcd_gzout *g = pcd_alloc_get(c->j->al, sizeof *g);
    if (!g) return PCD_E_NOMEM;
    pcd_status st = pcd_gzout_open(g, *s, c->j->al, 6);
    if (st != PCD_OK) {
        pcd_alloc_free(c->j->al, g, sizeof *g);
        return st;
    }
    c->gz[c->n_gz++] = g;
    *s = &g->sink;
    return PCD_OK;
}

static pcd_status open_common(table *c, pcd_job *j, pcd_consumer *k)
{
    c->j = j;
    c->shown = -1;
    k->ud = c;
    k->needs = PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE; /* a row per sample with its own time, where samples have times */
    k->begin = t_begin;
    k->sample = t_sample;
    k->slice = t_slice;
    k->end = t_end;
    return PCD_OK;
}

static pcd_status table_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *k)
{
    (void)out;
    table *c = state;
    if (!j->open_part)
        return pcd_job_fail(j, PCD_E_ARG, "--to table writes a directory of tables: give it one (-o DIR)");
    bool gz;
    PCD_TRY(compression(j, &gz));
    c->j = j;
    for (int i = 0; i < T_N; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%s", part_names[i], gz ? ".gz" : "");
        PCD_TRY(j->open_part(j->part_ud, name, &c->part[i]));
        if (gz) PCD_TRY(gzip_over(c, &c->part[i]));
    }
    return open_common(c, j, k);
}

static pcd_status ndjson_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *k)
{
    table *c = state;
    bool gz;
    PCD_TRY(compression(j, &gz));
    c->j = j;
    c->wide = true;
    c->out = out;
    if (gz) PCD_TRY(gzip_over(c, &c->out));
    return open_common(c, j, k);
}

static void table_close(void *state)
{
    table *c = state;
    if (c->head_ready) pcd_memsink_free(&c->head);
    if (c->src_ready) pcd_memsink_free(&c->src);
    if (!c->j) return;
    PCD_VEC_FREE(c->j->al, c->fr, c->fr_cap);
    for (size_t i = 0; i < c->n_gz; i++) {
        pcd_gzout_close(c->gz[i]);
        pcd_alloc_free(c->j->al, c->gz[i], sizeof *c->gz[i]);
    }
    c->n_gz = 0;
}

const pcd_exporter pcd_out_table = {
    .to = "table",
    .help = "tables for query engines (DuckDB, Spark): a directory (-o DIR) of newline-delimited JSON "
            "files, samples, stacks, frames, threads, slices, types, metadata (docs/tables.md)",
    .needs_any = PCD_HAS_SAMPLES | PCD_HAS_SLICES,
    .state_size = sizeof(table),
    .open = table_open,
    .close = table_close,
    .wants = PCD_WANTS_PARTS,
};

const pcd_exporter pcd_out_ndjson = {
    .to = "ndjson",
    .help = "one JSON object a sample, with its thread and stack (leaf first): the wide form of --to "
            "table (docs/tables.md)",
    .needs = PCD_HAS_SAMPLES,
    .state_size = sizeof(table),
    .open = ndjson_open,
    .close = table_close,
};
