/* formats/text/speedscope.c: speedscope's JSON file format (https://www.speedscope.app/
 * file-format-schema.json: what speedscope exports, what py-spy --format speedscope,
 * austin2speedscope and `convert --to speedscope` write) into the profile model.
 *
 * The document is read whole (it is one JSON value; jansson parses it with our allocator, so
 * --max-memory covers it, and refuses nesting deeper than 2048 and invalid UTF-8):
 *   shared.frames[]   {name, file?, line?, col?}: a frame of code (function name, file, line,
 *                     column); file "kernel" without a line is a kernel frame (as our output
 *                     writes one);
 *   profiles[]        each a thread, named by the profile's name (one profile: a blank thread,
 *                     as a collapsed line has); its unit is a sample type: nanoseconds ..
 *                     seconds "time", bytes "memory", none "samples" (count), one type per unit;
 *     "sampled"       samples[i] (frame indices, outermost first) with weights[i]: a sample each,
 *                     in order (PCD_HAS_ORDER);
 *     "evented"       "O"/"C" events at times: between two events, the frames open then are a
 *                     sample weighted by the time between them, with its time (from startValue).
 * A weight or time that is not an integer in its unit: a time unit's type is then kept in
 * nanoseconds (milliseconds * 10^6 ...), others are rounded to the nearest integer. Damage:
 * JSON that does not parse is said with its line, column and byte offset (nothing is handed on:
 * no stack is known before the whole document is); a profile that breaks the schema stops the
 * import there with its path (profiles[2].samples[7][3]), expected and found, the profiles
 * before it handed on. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/json_mem.h"
#include "common/vec.h"
#include "formats/text/textin.h"
#include "model/profile.h"
#include "pipeline/job.h"

enum { U_NONE, U_NS, U_US, U_MS, U_S, U_BYTES, U_N };
static const char *const unit_names[U_N] = { "none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes" };
static const double unit_ns[U_N] = { 0, 1, 1e3, 1e6, 1e9, 0 };

typedef struct simp {
    pcd_import_args *a;
    pcd_profile *p;
    int type[U_N];                 /* the model type of each unit (-1 none yet) */
    bool to_ns[U_N];               /* a time unit kept in nanoseconds (it has fractions) */
    pcd_frame_id *frames;          /* shared.frames[i] */
    size_t n_frames;
    pcd_frame_id *fr;
    size_t fr_cap;
    pcd_stack_id *sid;             /* an evented profile's open stacks, by depth */
    size_t sid_cap;
    char path[160];
} simp;

static pcd_status bad(simp *m, const char *expected, json_t *found)
{
    char f[120];
    if (!found) snprintf(f, sizeof f, "nothing");
    else if (json_is_string(found)) pcd_textin_found(f, sizeof f, (const uint8_t *)json_string_value(found), json_string_length(found));
    else if (json_is_integer(found)) snprintf(f, sizeof f, "%" JSON_INTEGER_FORMAT, json_integer_value(found));
    else if (json_is_real(found)) snprintf(f, sizeof f, "%g", json_real_value(found));
    else snprintf(f, sizeof f, "%s", json_is_object(found) ? "an object" : json_is_array(found) ? "an array" :
                                     json_is_null(found) ? "null" : "a boolean");
    snprintf(m->a->msg, sizeof m->a->msg, "%s: %s: expected %s, found %s", m->a->input_name, m->path, expected, f);
    return PCD_E_INVALID;
}

static pcd_status checked(simp *m, pcd_status st)
{
    if (st == PCD_OK && m->p->oom) st = m->p->oom;
    if (st == PCD_E_NOMEM) snprintf(m->a->msg, sizeof m->a->msg, "%s: out of memory (raise --max-memory)", m->a->input_name);
    return st;
}

/* A number of the document as a value in its type's unit: false when it is not a number or is
 * negative or too large. */
static bool value_of(simp *m, int u, json_t *v, uint64_t *out)
{
    double d;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0) return false;
        if (!m->to_ns[u]) {
            *out = (uint64_t)i;
            return true;
        }
        d = (double)i;
    } else if (json_is_real(v)) {
        d = json_real_value(v);
    } else {
        return false;
    }
    if (m->to_ns[u]) d *= unit_ns[u];
    if (!(d >= 0) || d >= 18446744073709551616.0) return false;
    /* (llround's long long holds below 2^63: larger values are whole numbers already) */
    *out = d < 9.2e18 ? (uint64_t)llround(d) : (uint64_t)d;
    return true;
}

static int unit_of(json_t *u)
{
    const char *s = json_is_string(u) ? json_string_value(u) : NULL;
    for (int i = 0; s && i < U_N; i++)
        if (strcmp(s, unit_names[i]) == 0) return i;
    return -1;
}

/* Does a number of a profile in unit u have a fraction? (then its time unit is kept in ns) */
static void note_fraction(simp *m, int u, json_t *v)
{
    if (json_is_real(v) && unit_ns[u] > 0) {
        double d = json_real_value(v);
        if (d != floor(d)) m->to_ns[u] = true;
    }
}

static pcd_status add_types(simp *m, json_t *profiles)
{
    pcd_profile *p = m->p;
    for (int u = 0; u < U_N; u++) m->type[u] = -1;
    size_t i;
    json_t *pr;
    json_array_foreach(profiles, i, pr) {
        int u = unit_of(json_object_get(pr, "unit"));
        if (u < 0) continue; /* said when the profile is read */
        json_t *w = json_object_get(pr, "weights"), *ev = json_object_get(pr, "events"), *x;
        size_t k;
        json_array_foreach(w, k, x) note_fraction(m, u, x);
        json_array_foreach(ev, k, x) note_fraction(m, u, json_object_get(x, "at"));
        note_fraction(m, u, json_object_get(pr, "startValue"));
        if (m->type[u] >= 0) continue;
        const char *unit = m->to_ns[u] ? "nanoseconds" : u == U_NONE ? "count" : unit_names[u];
        if (u == U_NONE) m->type[u] = pcd_profile_add_type(p, "samples", unit, "Samples");
        else if (u == U_BYTES) m->type[u] = pcd_profile_add_type(p, "memory", unit, "Memory");
        else {
            /* two time units: the second is "time-<unit>" */
            bool other = false;
            for (int v = U_NS; v <= U_S; v++) other |= v != u && m->type[v] >= 0;
            char name[40];
            snprintf(name, sizeof name, other ? "time-%s" : "time", unit_names[u]);
            m->type[u] = pcd_profile_add_type(p, name, unit, "Time");
        }
        if (p->default_type < 0 || (size_t)p->default_type >= p->n_types) p->default_type = m->type[u];
    }
    return checked(m, PCD_OK);
}

static pcd_status read_frames(simp *m, json_t *root)
{
    json_t *shared = json_object_get(root, "shared"), *frames = json_object_get(shared, "frames");
    snprintf(m->path, sizeof m->path, "shared.frames");
    if (!json_is_object(shared) || !json_is_array(frames)) return bad(m, "an array of frames", frames);
    size_t n = json_array_size(frames);
    m->frames = pcd_alloc_get(m->a->al, (n ? n : 1) * sizeof *m->frames);
    if (!m->frames) return checked(m, PCD_E_NOMEM);
    m->n_frames = n;
    size_t i;
    json_t *f;
    json_array_foreach(frames, i, f) {
        snprintf(m->path, sizeof m->path, "shared.frames[%zu]", i);
        json_t *name = json_object_get(f, "name"), *file = json_object_get(f, "file"), *line = json_object_get(f, "line"),
               *col = json_object_get(f, "col");
        if (!json_is_object(f)) return bad(m, "a frame object", f);
        if (!json_is_string(name)) return bad(m, "a frame with a \"name\" string", name);
        if (file && !json_is_string(file)) return bad(m, "\"file\" a string", file);
        if (line && (!json_is_integer(line) || json_integer_value(line) == INT64_MIN)) return bad(m, "\"line\" an integer", line);
        if (col && (!json_is_integer(col) || json_integer_value(col) == INT64_MIN)) return bad(m, "\"col\" an integer", col);
        pcd_str fn = pcd_profile_str(m->p, json_string_value(name), json_string_length(name));
        if (file && !line && strcmp(json_string_value(file), "kernel") == 0) {
            m->frames[i] = pcd_profile_frame_named(m->p, PCD_FRAME_KERNEL, fn);
            continue;
        }
        pcd_frame fr = pcd_frame_blank(PCD_FRAME_CODE);
        fr.function = fn;
        if (file) fr.file = pcd_profile_str(m->p, json_string_value(file), json_string_length(file));
        if (line) fr.line = json_integer_value(line);
        if (col) fr.column = json_integer_value(col);
        m->frames[i] = pcd_profile_frame(m->p, &fr);
    }
    return checked(m, PCD_OK);
}

/* A frame index of the document as a model frame. */
static bool frame_of(simp *m, json_t *v, pcd_frame_id *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= m->n_frames) return false;
    *out = m->frames[json_integer_value(v)];
    return true;
}

static pcd_status emit_stack(simp *m, pcd_thread_id t, int type, pcd_stack_id stack, uint64_t v, int64_t time);

static pcd_status emit(simp *m, pcd_thread_id t, int type, size_t depth, uint64_t v, int64_t time)
{
    return emit_stack(m, t, type, pcd_profile_stack(m->p, m->fr, depth), v, time);
}

static pcd_status emit_stack(simp *m, pcd_thread_id t, int type, pcd_stack_id stack, uint64_t v, int64_t time)
{
    uint64_t vals[PCD_MAX_SAMPLE_TYPES] = { 0 };
    vals[type] = v;
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = t;
    s.stack = stack;
    s.time = time;
    s.count = 1;
    s.values = vals;
    s.flags = PCD_SAMPLE_HAS(type) | (uint32_t)(1 + type) << PCD_SAMPLE_FIRST_SHIFT;
    PCD_TRY(checked(m, PCD_OK));
    return checked(m, pcd_profile_sample(m->p, &s));
}

static pcd_status sampled(simp *m, size_t pi, json_t *pr, pcd_thread_id t, int u)
{
    json_t *samples = json_object_get(pr, "samples"), *weights = json_object_get(pr, "weights");
    snprintf(m->path, sizeof m->path, "profiles[%zu].samples", pi);
    if (!json_is_array(samples)) return bad(m, "an array of samples", samples);
    snprintf(m->path, sizeof m->path, "profiles[%zu].weights", pi);
    if (!json_is_array(weights) || json_array_size(weights) != json_array_size(samples))
        return bad(m, "an array of weights, one per sample", weights);
    size_t i;
    json_t *s;
    json_array_foreach(samples, i, s) {
        snprintf(m->path, sizeof m->path, "profiles[%zu].samples[%zu]", pi, i);
        if (!json_is_array(s)) return bad(m, "an array of frame indices", s);
        size_t n = json_array_size(s);
        if (n > (1u << 16)) return bad(m, "at most 65536 frames in a sample", s);
        if (PCD_VEC_RESERVE(m->a->al, m->fr, m->fr_cap, n ? n : 1) != PCD_OK) return checked(m, PCD_E_NOMEM);
        size_t k;
        json_t *x;
        json_array_foreach(s, k, x) {
            if (!frame_of(m, x, &m->fr[k])) {
                snprintf(m->path, sizeof m->path, "profiles[%zu].samples[%zu][%zu]", pi, i, k);
                return bad(m, "an index into shared.frames", x);
            }
        }
        uint64_t w;
        json_t *wv = json_array_get(weights, i);
        if (!value_of(m, u, wv, &w)) {
            snprintf(m->path, sizeof m->path, "profiles[%zu].weights[%zu]", pi, i);
            return bad(m, "a weight (a number from 0 below 2^64)", wv);
        }
        PCD_TRY(emit(m, t, m->type[u], n, w, PCD_TIME_NONE));
    }
    return PCD_OK;
}

static pcd_status evented(simp *m, size_t pi, json_t *pr, pcd_thread_id t, int u)
{
    json_t *events = json_object_get(pr, "events");
    snprintf(m->path, sizeof m->path, "profiles[%zu].events", pi);
    if (!json_is_array(events)) return bad(m, "an array of events", events);
    uint64_t start = 0, prev = 0;
    json_t *sv = json_object_get(pr, "startValue");
    if (sv && !value_of(m, u, sv, &start)) {
        snprintf(m->path, sizeof m->path, "profiles[%zu].startValue", pi);
        return bad(m, "a number from 0", sv);
    }
    prev = start;
    size_t depth = 0, i;
    json_t *e;
    json_array_foreach(events, i, e) {
        snprintf(m->path, sizeof m->path, "profiles[%zu].events[%zu]", pi, i);
        json_t *ty = json_object_get(e, "type"), *at = json_object_get(e, "at"), *fv = json_object_get(e, "frame");
        const char *k = json_is_string(ty) ? json_string_value(ty) : "";
        bool open = strcmp(k, "O") == 0;
        if (!json_is_object(e)) return bad(m, "an event object", e);
        if (!open && strcmp(k, "C") != 0) return bad(m, "an event of type \"O\" or \"C\"", ty);
        uint64_t when;
        if (!value_of(m, u, at, &when) || when < prev) return bad(m, "\"at\" a number no earlier than the event before", at);
        pcd_frame_id f;
        if (!frame_of(m, fv, &f)) return bad(m, "\"frame\" an index into shared.frames", fv);
        /* what was open since the event before, for as long */
        if (depth && when > prev) {
            int64_t time = m->to_ns[u] || u == U_NS ? (int64_t)(prev - start)
                         : unit_ns[u] > 0 ? (int64_t)((double)(prev - start) * unit_ns[u]) : PCD_TIME_NONE;
            PCD_TRY(emit_stack(m, t, m->type[u], m->sid[depth - 1], when - prev, time));
        }
        prev = when;
        if (open) {
            if (depth == (1u << 16)) return bad(m, "at most 65536 frames open", e);
            if (PCD_VEC_RESERVE(m->a->al, m->fr, m->fr_cap, depth + 1) != PCD_OK ||
                PCD_VEC_RESERVE(m->a->al, m->sid, m->sid_cap, depth + 1) != PCD_OK)
                return checked(m, PCD_E_NOMEM);
            /* the open stack grows by one push (not rebuilt from its frames: linear in events) */
            m->sid[depth] = pcd_profile_push(m->p, depth ? m->sid[depth - 1] : PCD_STACK_EMPTY, f);
            m->fr[depth++] = f;
        } else {
            if (!depth || m->fr[depth - 1] != f) return bad(m, "a close event of the frame open on top", fv);
            depth--;
        }
    }
    return PCD_OK;
}

static pcd_status import_doc(simp *m, json_t *root)
{
    pcd_profile *p = m->p;
    snprintf(m->path, sizeof m->path, "the document");
    if (!json_is_object(root)) return bad(m, "a JSON object", root);
    json_t *profiles = json_object_get(root, "profiles");
    snprintf(m->path, sizeof m->path, "profiles");
    if (!json_is_array(profiles)) return bad(m, "an array of profiles", profiles);
    p->default_type = -1;
    PCD_TRY(add_types(m, profiles));
    PCD_TRY(read_frames(m, root));
    json_t *name = json_object_get(root, "name"), *exporter = json_object_get(root, "exporter");
    PCD_TRY(checked(m, pcd_profile_begin(p)));
    if (json_is_string(name))
        PCD_TRY(checked(m, pcd_profile_meta(p, pcd_profile_strz(p, "name"), pcd_profile_str(p, json_string_value(name), json_string_length(name)))));
    if (json_is_string(exporter))
        PCD_TRY(checked(m, pcd_profile_meta(p, pcd_profile_strz(p, "exporter"),
                                            pcd_profile_str(p, json_string_value(exporter), json_string_length(exporter)))));
    size_t n = json_array_size(profiles), i;
    json_t *pr;
    json_array_foreach(profiles, i, pr) {
        snprintf(m->path, sizeof m->path, "profiles[%zu]", i);
        if (!json_is_object(pr)) return bad(m, "a profile object", pr);
        json_t *ty = json_object_get(pr, "type"), *pn = json_object_get(pr, "name"), *un = json_object_get(pr, "unit");
        int u = unit_of(un);
        snprintf(m->path, sizeof m->path, "profiles[%zu].unit", i);
        if (u < 0) return bad(m, "none, nanoseconds, microseconds, milliseconds, seconds or bytes", un);
        pcd_thread th = pcd_thread_blank();
        if (n > 1) {
            th.key = i + 1;
            th.name = json_is_string(pn) ? pcd_profile_str(p, json_string_value(pn), json_string_length(pn)) : 0;
            if (!th.name) {
                char b[32];
                snprintf(b, sizeof b, "profile %zu", i);
                th.name = pcd_profile_strz(p, b);
            }
        }
        pcd_thread_id t = pcd_profile_thread(p, &th);
        const char *k = json_is_string(ty) ? json_string_value(ty) : "";
        if (strcmp(k, "sampled") == 0) PCD_TRY(sampled(m, i, pr, t, u));
        else if (strcmp(k, "evented") == 0) PCD_TRY(evented(m, i, pr, t, u));
        else {
            snprintf(m->path, sizeof m->path, "profiles[%zu].type", i);
            return bad(m, "\"sampled\" or \"evented\"", ty);
        }
    }
    return PCD_OK;
}

/* The whole stream in memory from al (the memory cap covers it). */
static pcd_status slurp(pcd_import_args *a, uint8_t **out, size_t *len, size_t *cap)
{
    size_t c = 1 << 16, n = 0;
    uint8_t *b = pcd_alloc_get(a->al, c);
    if (!b) return PCD_E_NOMEM;
    for (;;) {
        if (n == c) {
            uint8_t *nb = c <= SIZE_MAX / 2 ? pcd_alloc_resize(a->al, b, c, c * 2) : NULL;
            if (!nb) {
                pcd_alloc_free(a->al, b, c);
                return PCD_E_NOMEM;
            }
            b = nb;
            c *= 2;
        }
        size_t got = 0;
        pcd_status st = a->read(a->read_ud, b + n, c - n, &got);
        if (st != PCD_OK) {
            pcd_alloc_free(a->al, b, c);
            return st;
        }
        if (!got) break;
        n += got;
    }
    *out = b;
    *len = n;
    *cap = c;
    return PCD_OK;
}

pcd_status pcd_text_import_speedscope(pcd_import_args *a, pcd_profile *p)
{
    simp m;
    memset(&m, 0, sizeof m);
    m.a = a;
    m.p = p;
    uint8_t *buf;
    size_t len, cap;
    pcd_status st = slurp(a, &buf, &len, &cap);
    if (st != PCD_OK) {
        snprintf(a->msg, sizeof a->msg, "%s: %s", a->input_name,
                 st == PCD_E_NOMEM ? "a speedscope file is read whole, and it does not fit in memory (raise --max-memory)"
                                   : "cannot read");
        return st;
    }
    pcd_json_mem_scope js;
    pcd_json_mem_enter(&js, a->al);
    json_error_t je;
    json_t *root = json_loadb((const char *)buf, len, 0, &je);
    if (pcd_json_mem_refused()) {
        st = PCD_E_NOMEM;
        snprintf(a->msg, sizeof a->msg, "%s: out of memory for the JSON document (raise --max-memory)", a->input_name);
    } else if (!root) {
        st = PCD_E_INVALID;
        char f[120];
        size_t at = je.position >= 0 && (size_t)je.position < len ? (size_t)je.position : len;
        snprintf(a->msg, sizeof a->msg, "%s:%d: byte offset %zu: column %d: expected JSON (%s), found %s", a->input_name,
                 je.line, at, je.column, je.text, at < len ? pcd_textin_found(f, sizeof f, buf + at, len - at > 8 ? 8 : len - at) : "the end of the file");
    } else {
        st = import_doc(&m, root);
    }
    if (root) json_decref(root);
    if (pcd_json_mem_leave(&js) && st == PCD_OK) {
        st = PCD_E_NOMEM;
        snprintf(a->msg, sizeof a->msg, "%s: out of memory for the JSON document (raise --max-memory)", a->input_name);
    }
    pcd_alloc_free(a->al, buf, cap);
    if (m.frames) pcd_alloc_free(a->al, m.frames, (m.n_frames ? m.n_frames : 1) * sizeof *m.frames);
    PCD_VEC_FREE(a->al, m.fr, m.fr_cap);
    PCD_VEC_FREE(a->al, m.sid, m.sid_cap);
    if (st == PCD_OK && !p->n_types) {
        pcd_profile_add_type(p, "samples", "count", "Samples");
        st = checked(&m, pcd_profile_begin(p));
    }
    return st;
}

/* The first byte that is not white space is '{', and the head names speedscope's schema
 * ("https://www.speedscope.app/file-format-schema.json", the required "$schema"). */
static bool detect(const uint8_t *head, size_t n, bool whole)
{
    (void)whole;
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
    if (i == n || head[i] != '{') return false;
    static const char schema[] = "speedscope.app/file-format-schema.json";
    size_t k = sizeof schema - 1;
    for (; i + k <= n; i++)
        if (memcmp(head + i, schema, k) == 0) return true;
    return false;
}

const pcd_text_format pcd_text_speedscope_format = {
    "speedscope", "speedscope JSON",
    "a JSON object (its first byte that is not white space is '{') naming speedscope's schema "
    "(speedscope.app/file-format-schema.json) in its first 4 KiB",
    PCD_HAS_SAMPLES | PCD_HAS_CODE | PCD_HAS_ORDER, detect, pcd_text_import_speedscope,
};
