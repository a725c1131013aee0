/* outputs/austin.c: Austin's text format, streamed: metadata lines in place ("# key: value")
 * and one line per sample,
 *
 *     P<pid>;T[<iid>:]<tid>;<file>:<function>:<line>;... <metrics>
 *
 * with the metrics as Austin writes them: in full mode (once "mode: full" was seen)
 * "time,idle,memory", otherwise the sample's first metric (time in µs, or memory in bytes).
 * For MOJO input this is austin-python 1.7.1's mojo2austin byte for byte, quirks included
 * (a string reference's text follows the previous frame without a ';'; nothing is escaped).
 * In the austin2 dialect (MOJO 4's default, or --dialect austin2) it is austin-python 2.2.0's
 * mojo2austin byte for byte instead: only frame references are frames (no GC, invalid or
 * kernel frames, no string references), the interpreter id is written even when negative,
 * the metric is the memory metric in memory mode and the time metric otherwise (in full mode
 * too), "None" when the sample has none, and text that is not UTF-8 is decoded with U+FFFD
 * for what is not (Python's "replace").
 * Inputs without Austin's metrics give their time type (in µs) as the metric, else samples, else
 * the default: the first of them that some sample has a value of, where the importer said so
 * before its first sample (Mono's sampling profile: its hits, not its time of 0); chosen at the
 * first sample. A signed type's values print with their sign.
 * Austin's text has no lanes (asyncio tasks): their samples are left out, and counted. */
#include "common/text.h"
#include "common/vec.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

/* Where a text made once sits in the texts' pool: off + 1 (0: not made yet) and its length. */
typedef struct frag {
    uint64_t off1;
    size_t len;
} frag;

typedef struct austin {
    pcd_job *j;
    pcd_sink *out;
    bool full;                     /* "mode: full" was seen */
    bool py2;                      /* the austin2 dialect */
    bool memory_mode;              /* austin2: "mode: memory" was the latest mode */
    pcd_memsink line;              /* austin2: a line before its text is made UTF-8 */
    uint8_t *utf8;
    size_t utf8_cap;
    uint64_t lanes;                /* lane samples left out */
    int time, memory, released;    /* type indexes, -1 none */
    uint64_t time_div;              /* the time type's unit per µs (1000 for nanoseconds) */
    int fallback;                  /* the metric of inputs that have neither (-2: not chosen yet) */
    pcd_frame_id *fr;
    size_t fr_cap;
    /* A sample's line is texts put together: its thread's prefix, then each frame's text with
     * the ';' before it (none before a label), each made once, when first written. */
    pcd_memsink texts;
    frag *ftext, *ttext;           /* by frame id, by thread id */
    size_t ftext_cap, ttext_cap;
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
    pcd_dialect d;
    PCD_TRY(pcd_out_dialect(a->j, p, &d));
    a->py2 = d == PCD_DIALECT_AUSTIN2;
    return PCD_OK;
}

/* austin2: the line in a->line, to the output as Python's decode("utf-8", "replace") makes it. */
static pcd_status put_line_py2(austin *a)
{
    PCD_TRY(pcd_memsink_flush(&a->line));
    const uint8_t *p = a->line.data;
    size_t n = a->line.len;
    a->line.len = 0;
    if (pcd_utf8_valid_prefix(p, n) == n) return pcd_sink_put(a->out, p, n);
    PCD_TRY(PCD_VEC_RESERVE(a->j->al, a->utf8, a->utf8_cap, PCD_UTF8_REPLACED_MAX(n)));
    return pcd_sink_put(a->out, a->utf8, pcd_utf8_replace(p, n, a->utf8));
}

static pcd_status a_meta(void *ud, pcd_profile *p, pcd_str key, pcd_str value)
{
    austin *a = ud;
    if (text_is(p, key, "mode") && text_is(p, value, "full")) a->full = true;
    if (text_is(p, key, "mode")) a->memory_mode = text_is(p, value, "memory");
    pcd_sink *o = a->py2 ? &a->line.sink : a->out;
    PCD_TRY(pcd_sink_put(o, "# ", 2));
    PCD_TRY(pcd_text_bytes(o, pcd_profile_text(p, key)));
    PCD_TRY(pcd_sink_put(o, ": ", 2));
    PCD_TRY(pcd_text_bytes(o, pcd_profile_text(p, value)));
    PCD_TRY(pcd_sink_put(o, "\n", 1));
    return a->py2 ? put_line_py2(a) : PCD_OK;
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

/* Texts are followed by COPY_PAD bytes in the pool, so that a line is put together in 16-byte
 * steps that may read past a text's end (and write past the line's end, in the room kept). */
#define COPY_PAD 16
static const uint8_t copy_pad[COPY_PAD];

/* Renders the text for a frame (frame >= 0) or a thread's prefix into the pool: *fr. */
static pcd_status make_text(austin *a, pcd_profile *p, frag *fr, bool frame, uint32_t id)
{
    pcd_sink *t = &a->texts.sink;
    uint64_t start = pcd_sink_tell(t);
    if (frame) {
        if (pcd_profile_frame_at(p, id)->kind != PCD_FRAME_LABEL) PCD_TRY(pcd_sink_put(t, ";", 1));
        PCD_TRY(pcd_render_frame(t, p, id, PCD_DIALECT_AUSTIN, PCD_COLLAPSED_RAW));
    } else {
        PCD_TRY(pcd_render_thread_prefix(t, p, id, PCD_DIALECT_AUSTIN, PCD_COLLAPSED_RAW));
    }
    size_t len = (size_t)(pcd_sink_tell(t) - start);
    PCD_TRY(pcd_sink_put(t, copy_pad, COPY_PAD));
    PCD_TRY(pcd_memsink_flush(&a->texts));
    fr->off1 = start + 1;
    fr->len = len;
    return PCD_OK;
}

/* The text of id in *tab (made now if new). */
static pcd_status text_of(austin *a, pcd_profile *p, frag **tab, size_t *cap, bool frame, uint32_t id,
                          const frag **out)
{
    if (PCD_UNLIKELY(id >= *cap || !(*tab)[id].off1)) {
        if (id >= *cap) {
            size_t old = *cap;
            PCD_TRY(PCD_VEC_RESERVE(a->j->al, *tab, *cap, (size_t)id + 1));
            memset(*tab + old, 0, (*cap - old) * sizeof **tab);
        }
        PCD_TRY(make_text(a, p, &(*tab)[id], frame, id));
    }
    *out = &(*tab)[id];
    return PCD_OK;
}

PCD_INLINE uint8_t *copy_text(uint8_t *d, const uint8_t *pool, const frag *f)
{
    const uint8_t *src = pool + f->off1 - 1;
    for (size_t i = 0; i < f->len; i += 16) memcpy(d + i, src + i, 16);
    return d + f->len;
}

/* austin-python 2.2.0's line: its frames are the frame references, its metric memory in memory
 * mode and time otherwise, "None" for one the sample lacks. */
static pcd_status sample_py2(austin *a, pcd_profile *p, const pcd_sample *s, size_t n)
{
    pcd_sink *o = &a->line.sink;
    PCD_TRY(pcd_render_thread_prefix(o, p, s->thread, PCD_DIALECT_AUSTIN2, PCD_COLLAPSED_RAW));
    for (size_t i = 0; i < n; i++) {
        const pcd_frame *f = pcd_profile_frame_at(p, a->fr[i]);
        if (f->kind == PCD_FRAME_GC || f->kind == PCD_FRAME_INVALID || f->kind == PCD_FRAME_KERNEL ||
            f->kind == PCD_FRAME_LABEL || f->kind == PCD_FRAME_IDLE)
            continue;
        PCD_TRY(pcd_sink_put(o, ";", 1));
        PCD_TRY(pcd_render_frame(o, p, a->fr[i], PCD_DIALECT_AUSTIN2, PCD_COLLAPSED_RAW));
    }
    PCD_TRY(pcd_sink_put(o, " ", 1));
    if (a->memory_mode) {
        bool has = (a->memory >= 0 && (s->flags & PCD_SAMPLE_HAS(a->memory))) ||
                   (a->released >= 0 && (s->flags & PCD_SAMPLE_HAS(a->released)));
        if (has) PCD_TRY(put_mem(o, a, s));
        else PCD_TRY(pcd_text_z(o, "None"));
    } else if (a->time >= 0 && (s->flags & PCD_SAMPLE_HAS(a->time))) {
        PCD_TRY(pcd_text_u64(o, s->values[a->time] / a->time_div));
    } else {
        PCD_TRY(pcd_text_z(o, "None"));
    }
    PCD_TRY(pcd_sink_put(o, "\n", 1));
    return put_line_py2(a);
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
    if (p->threads[s->thread].lane_of) {
        a->lanes++;
        return PCD_OK;
    }
    if (PCD_UNLIKELY(a->fallback == -2)) a->fallback = choose_fallback(a, p);
    if (PCD_UNLIKELY(a->py2)) {
        size_t depth = pcd_stack_depth(p, s->stack);
        PCD_TRY(PCD_VEC_RESERVE(a->j->al, a->fr, a->fr_cap, depth));
        return sample_py2(a, p, s, pcd_stack_frames(p, s->stack, a->fr));
    }
    /* the stack's frames, outermost first, straight from the model's stack nodes, and the
     * length of the line's texts */
    size_t n = pcd_stack_depth(p, s->stack);
    if (PCD_UNLIKELY(n > a->fr_cap)) PCD_TRY(PCD_VEC_RESERVE(a->j->al, a->fr, a->fr_cap, n));
    const frag *tf, *ff;
    PCD_TRY(text_of(a, p, &a->ttext, &a->ttext_cap, false, s->thread, &tf));
    size_t total = tf->len;
    pcd_stack_id st = s->stack;
    for (size_t i = n; i-- > 0;) {
        pcd_frame_id f = pcd_stack_frame(p, st);
        PCD_TRY(text_of(a, p, &a->ftext, &a->ftext_cap, true, f, &ff));
        total += ff->len;
        a->fr[i] = f;
        st = pcd_stack_parent(p, st);
    }
    tf = &a->ttext[s->thread]; /* (the table may have moved) */
    if (PCD_UNLIKELY(o->cap - o->len < total + COPY_PAD)) PCD_TRY(pcd_sink_flush(o));
    if (PCD_LIKELY(o->cap - o->len >= total + COPY_PAD)) {
        /* the whole line's texts, straight into the output's buffer */
        const uint8_t *pool = a->texts.data;
        uint8_t *d = copy_text(o->buf + o->len, pool, tf);
        for (size_t i = 0; i < n; i++) d = copy_text(d, pool, &a->ftext[a->fr[i]]);
        o->len = (size_t)(d - o->buf);
    } else {
        /* a line longer than the output's buffer */
        PCD_TRY(pcd_sink_put(o, a->texts.data + tf->off1 - 1, tf->len));
        for (size_t i = 0; i < n; i++) {
            const frag *g = &a->ftext[a->fr[i]];
            PCD_TRY(pcd_sink_put(o, a->texts.data + g->off1 - 1, g->len));
        }
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

static pcd_status a_end(void *ud, pcd_profile *p)
{
    (void)p;
    austin *a = ud;
    if (a->lanes)
        pcd_job_note(a->j, "warning: %llu samples of asyncio tasks left out (Austin's text has no tasks)",
                     (unsigned long long)a->lanes);
    return PCD_OK;
}

static pcd_status a_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    austin *a = state;
    a->j = j;
    a->out = out;
    pcd_memsink_init(&a->texts, j->al);
    pcd_memsink_init(&a->line, j->al);
    c->ud = a;
    c->needs = PCD_NEEDS_TIMES; /* one line per sample */
    c->begin = a_begin;
    c->meta = a_meta;
    c->sample = a_sample;
    c->end = a_end;
    return PCD_OK;
}

static void a_close(void *state)
{
    austin *a = state;
    PCD_VEC_FREE(a->j->al, a->fr, a->fr_cap);
    PCD_VEC_FREE(a->j->al, a->ftext, a->ftext_cap);
    PCD_VEC_FREE(a->j->al, a->ttext, a->ttext_cap);
    pcd_memsink_free(&a->texts);
    PCD_VEC_FREE(a->j->al, a->utf8, a->utf8_cap);
    pcd_memsink_free(&a->line);
}

const pcd_exporter pcd_out_austin = {
    "austin", "Austin's text format (for MOJO input byte-identical to austin-python's mojo2austin: 1.7.1's, or 2.2.0's for MOJO 4 and --dialect austin2)",
    PCD_HAS_SAMPLES | PCD_HAS_CODE, 0, sizeof(austin), a_open, a_close,
};
