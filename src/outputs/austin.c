/* outputs/austin.c: Austin's text format, streamed: metadata lines in place ("# key: value")
 * and one line per sample,
 *
 *     P<pid>;T[<iid>:]<tid>;<file>:<function>:<line>;... <metrics>
 *
 * with the metrics as Austin writes them: in full mode (once "mode: full" was seen)
 * "time,idle,memory", otherwise the sample's first metric (time in µs, or memory in bytes).
 * For MOJO input this is austin-python 1.7.1's mojo2austin byte for byte, quirks included
 * (a string reference's text follows the previous frame without a ';'; nothing is escaped).
 * Inputs without Austin's metrics give their time type (in µs) as the metric, else samples, else
 * the default: the first of them that some sample has a value of, where the importer said so
 * before its first sample (Mono's sampling profile: its hits, not its time of 0); chosen at the
 * first sample. A signed type's values print with their sign. */
#include "common/text.h"
#include "common/vec.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

typedef struct austin {
    pcd_job *j;
    pcd_sink *out;
    bool full;                     /* "mode: full" was seen */
    int time, memory, released;    /* type indexes, -1 none */
    uint64_t time_div;              /* the time type's unit per µs (1000 for nanoseconds) */
    int fallback;                  /* the metric of inputs that have neither (-2: not chosen yet) */
    pcd_frame_id *fr;
    size_t fr_cap;
} austin;

static bool text_is(const pcd_profile *p, pcd_str s, const char *z)
{
    pcd_bytes b = pcd_profile_text(p, s);
    return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0;
}

static pcd_status a_begin(void *ud, pcd_profile *p)
{
    austin *a = ud;
    a->time = pcd_profile_find_type(p, "time");
    a->memory = pcd_profile_find_type(p, "memory");
    a->released = pcd_profile_find_type(p, "memory-released");
    a->time_div = 1;
    if (a->time >= 0 && text_is(p, p->types[a->time].unit, "nanoseconds")) a->time_div = 1000;
    a->fallback = -2;
    return PCD_OK;
}

static pcd_status a_meta(void *ud, pcd_profile *p, pcd_str key, pcd_str value)
{
    austin *a = ud;
    if (text_is(p, key, "mode") && text_is(p, value, "full")) a->full = true;
    PCD_TRY(pcd_sink_put(a->out, "# ", 2));
    PCD_TRY(pcd_text_bytes(a->out, pcd_profile_text(p, key)));
    PCD_TRY(pcd_sink_put(a->out, ": ", 2));
    PCD_TRY(pcd_text_bytes(a->out, pcd_profile_text(p, value)));
    return pcd_sink_put(a->out, "\n", 1);
}

/* Austin's signed memory metric: what was allocated, or minus what was released. */
static pcd_status put_mem(pcd_sink *o, const austin *a, const pcd_sample *s)
{
    if (a->released >= 0 && s->values[a->released]) {
        PCD_TRY(pcd_sink_put(o, "-", 1));
        return pcd_text_u64(o, s->values[a->released]);
    }
    return pcd_text_u64(o, a->memory >= 0 ? s->values[a->memory] : 0);
}

/* The metric of inputs without Austin's: time, memory, samples, the default; the first that has
 * values as far as the profile knows. */
static int choose_fallback(const austin *a, const pcd_profile *p)
{
    int cand[3] = { a->time, a->memory, pcd_profile_find_type(p, "samples") };
    for (int i = 0; i < 3; i++)
        if (cand[i] >= 0 && pcd_profile_type_valued(p, cand[i])) return cand[i];
    return p->default_type;
}

static pcd_status a_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    austin *a = ud;
    pcd_sink *o = a->out;
    if (PCD_UNLIKELY(a->fallback == -2)) a->fallback = choose_fallback(a, p);
    size_t depth = pcd_stack_depth(p, s->stack);
    PCD_TRY(PCD_VEC_RESERVE(a->j->al, a->fr, a->fr_cap, depth));
    PCD_TRY(pcd_render_thread_prefix(o, p, s->thread, PCD_DIALECT_AUSTIN, PCD_COLLAPSED_RAW));
    size_t n = pcd_stack_frames(p, s->stack, a->fr);
    for (size_t i = 0; i < n; i++) {
        const pcd_frame *f = pcd_profile_frame_at(p, a->fr[i]);
        if (f->kind != PCD_FRAME_LABEL) PCD_TRY(pcd_sink_put(o, ";", 1));
        PCD_TRY(pcd_render_frame(o, p, a->fr[i], PCD_DIALECT_AUSTIN, PCD_COLLAPSED_RAW));
    }
    PCD_TRY(pcd_sink_put(o, " ", 1));
    uint64_t t = a->time >= 0 ? s->values[a->time] / a->time_div : 0;
    if (a->full) {
        PCD_TRY(pcd_text_u64(o, t));
        PCD_TRY(pcd_sink_put(o, (s->flags & PCD_SAMPLE_IDLE) ? ",1," : ",0,", 3));
        PCD_TRY(put_mem(o, a, s));
    } else if (p->dialect == PCD_DIALECT_AUSTIN) {
        /* Austin's own samples: the metric that came first, or 0 when there was none */
        unsigned first = s->flags >> PCD_SAMPLE_FIRST_SHIFT & 31;
        if (first && (int)first - 1 == a->memory) PCD_TRY(put_mem(o, a, s));
        else if (first && (int)first - 1 == a->time) PCD_TRY(pcd_text_u64(o, t));
        else PCD_TRY(pcd_sink_put(o, "0", 1));
    } else {
        int f = a->fallback;
        if (f >= 0 && p->types[f].is_signed)
            PCD_TRY(pcd_text_i64(o, pcd_value_i64(s->values[f]) / (int64_t)(f == a->time ? a->time_div : 1)));
        else if (f == a->time) PCD_TRY(pcd_text_u64(o, t));
        else PCD_TRY(pcd_text_u64(o, f >= 0 ? s->values[f] : 0));
    }
    return pcd_sink_put(o, "\n", 1);
}

static pcd_status a_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    austin *a = state;
    a->j = j;
    a->out = out;
    c->ud = a;
    c->needs = PCD_NEEDS_TIMES; /* one line per sample */
    c->begin = a_begin;
    c->meta = a_meta;
    c->sample = a_sample;
    return PCD_OK;
}

static void a_close(void *state)
{
    austin *a = state;
    PCD_VEC_FREE(a->j->al, a->fr, a->fr_cap);
}

const pcd_exporter pcd_out_austin = {
    "austin", "Austin's text format (for MOJO input byte-identical to austin-python 1.7.1's mojo2austin)",
    PCD_HAS_SAMPLES | PCD_HAS_CODE, 0, sizeof(austin), a_open, a_close,
};
