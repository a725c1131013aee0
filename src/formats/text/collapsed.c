/* formats/text/collapsed.c: collapsed stacks (flamegraph.pl's folded format, what
 * stackcollapse-*.pl, inferno, py-spy --format raw and `convert --to collapsed` write) into
 * the profile model, and difffolded.pl's three-column form.
 *
 * Grammar, one stack a line (LF or CRLF; empty lines are skipped):
 *     line   = stack " " count [ " " count ]
 *     stack  = frame *( ";" frame )          (a frame is any bytes but ';' and LF; spaces too)
 *     count  = 1*DIGIT                        (a decimal integer that fits 64 bits)
 * The count is after the last space. The first line says whether the file has one count a line
 * ("stack 12": the type "samples") or two (difffolded.pl's "stack 12 15": the types "before" and
 * "after", the counts of the two profiles compared; "after" is the default metric, as
 * flamegraph.pl draws the second), and every line must have as many. A frame becomes a frame of
 * code whose function is its text (no file, no line: the text may be "func (file.py:12)", kept
 * as it is, so that every output names it as the input did); the thread is one blank thread
 * (a collapsed line has no thread: a first element like "tid:22266" stays a frame).
 * Damage: a line that is none of this stops the import with its line number, byte offset, what
 * was expected and what was found; every stack before it has been handed on. */
#include <inttypes.h>
#include <string.h>

#include "common/lines.h"
#include "common/vec.h"
#include "formats/text/textin.h"
#include "model/profile.h"
#include "pipeline/job.h"

typedef struct cimp {
    pcd_import_args *a;
    pcd_profile *p;
    uint64_t lineno, offset;
    int cols;                      /* counts a line: 1 or 2 (0: not known yet) */
    int types[2];
    pcd_thread_id thread;
    pcd_frame_id *fr;
    size_t fr_cap;
} cimp;

/* A decimal count: 1..20 digits that fit 64 bits. */
static bool count_of(const uint8_t *p, size_t n, uint64_t *out)
{
    if (!n) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* The last space-separated token of p[0..n): its start (n when there is no space). */
static size_t last_token(const uint8_t *p, size_t n)
{
    size_t i = n;
    while (i > 0 && p[i - 1] != ' ') i--;
    return i;
}

static pcd_status bad(cimp *m, size_t at, const char *expected, const uint8_t *found, size_t found_len)
{
    char f[200];
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": byte offset %" PRIu64 ": expected %s, found %s",
             m->a->input_name, m->lineno, m->offset + at, expected, pcd_textin_found(f, sizeof f, found, found_len));
    return PCD_E_INVALID;
}

static pcd_status nomem(cimp *m)
{
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": out of memory (raise --max-memory)", m->a->input_name,
             m->lineno);
    return PCD_E_NOMEM;
}

static pcd_status checked(cimp *m, pcd_status st)
{
    if (st == PCD_OK && m->p->oom) st = m->p->oom;
    if (st == PCD_E_NOMEM) return nomem(m);
    return st;
}

static pcd_status begin(cimp *m)
{
    pcd_profile *p = m->p;
    if (m->cols == 1) {
        m->types[0] = pcd_profile_add_type(p, "samples", "count", "Samples");
        p->default_type = m->types[0];
    } else {
        m->types[0] = pcd_profile_add_type(p, "before", "count", "Before");
        m->types[1] = pcd_profile_add_type(p, "after", "count", "After");
        p->default_type = m->types[1];
    }
    p->sample_noun = PCD_NOUN_STACKS;
    pcd_thread th = pcd_thread_blank();
    m->thread = pcd_profile_thread(p, &th);
    return checked(m, pcd_profile_begin(p));
}

static pcd_status line(cimp *m, const uint8_t *q, size_t n)
{
    /* the counts after the last space (and, in the three-column form, the one before it) */
    size_t t = last_token(q, n);
    uint64_t v[2] = { 0, 0 };
    if (t == 0) return bad(m, 0, "a stack, a space and a count", q, n);
    if (!count_of(q + t, n - t, &v[0])) return bad(m, t, "a count (a decimal integer of at most 64 bits)", q + t, n - t);
    size_t end = t - 1; /* the stack ends before the space */
    if (m->cols == 0) {
        size_t t2 = last_token(q, end);
        uint64_t x;
        m->cols = t2 > 0 && count_of(q + t2, end - t2, &x) ? 2 : 1;
        pcd_status st = begin(m);
        if (st != PCD_OK) return st;
    }
    if (m->cols == 2) {
        size_t t2 = last_token(q, end);
        if (t2 == 0 || !count_of(q + t2, end - t2, &v[1]))
            return bad(m, t2, "two counts (difffolded.pl's form, as the first line has)", q + t2, end - t2);
        uint64_t after = v[0];
        v[0] = v[1];
        v[1] = after;
        end = t2 - 1;
    }
    if (end == 0) return bad(m, 0, "a stack before the count", q, n);
    /* frames, outermost first */
    enum { MAXF = 1 << 16 };
    size_t nf = 0;
    for (size_t i = 0; i <= end;) {
        size_t j = i;
        while (j < end && q[j] != ';') j++;
        if (nf == MAXF) return bad(m, i, "at most 65536 frames in a stack", q + i, end - i);
        if (PCD_VEC_RESERVE(m->a->al, m->fr, m->fr_cap, nf + 1) != PCD_OK) return nomem(m);
        pcd_frame f = pcd_frame_blank(PCD_FRAME_CODE);
        f.function = pcd_profile_str(m->p, q + i, j - i);
        m->fr[nf++] = pcd_profile_frame(m->p, &f);
        i = j + 1;
    }
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = m->thread;
    s.stack = pcd_profile_stack(m->p, m->fr, nf);
    s.time = PCD_TIME_NONE;
    s.count = 1;
    uint64_t vals[2];
    vals[m->types[0]] = v[0];
    if (m->cols == 2) vals[m->types[1]] = v[1];
    s.values = vals;
    s.flags = PCD_SAMPLE_HAS(m->types[0]) | (uint32_t)(1 + m->types[0]) << PCD_SAMPLE_FIRST_SHIFT;
    if (m->cols == 2) s.flags |= PCD_SAMPLE_HAS(m->types[1]);
    s.offset = m->offset;
    pcd_status st = checked(m, PCD_OK);
    if (st != PCD_OK) return st;
    return checked(m, pcd_profile_sample(m->p, &s));
}

pcd_status pcd_text_import_collapsed(pcd_import_args *a, pcd_profile *p)
{
    cimp m;
    memset(&m, 0, sizeof m);
    m.a = a;
    m.p = p;
    pcd_lines lines;
    pcd_lines_stream(&lines, a->al, a->read, a->read_ud);
    uint8_t *ln;
    size_t len;
    uint64_t off;
    pcd_status st = PCD_OK, lst;
    while ((lst = pcd_lines_next(&lines, &ln, &len, &off)) == PCD_OK) {
        m.lineno++;
        m.offset = off;
        size_t n = len;
        if (n && ln[n - 1] == '\n') n--;
        if (n && ln[n - 1] == '\r') n--;
        if (n == 0) continue;
        if ((st = line(&m, ln, n)) != PCD_OK) break;
    }
    if (st == PCD_OK && lst == PCD_E_NOMEM) {
        m.lineno++;
        st = nomem(&m);
    } else if (st == PCD_OK && lst != PCD_END) {
        snprintf(a->msg, sizeof a->msg, "%s: cannot read", a->input_name);
        st = PCD_E_IO;
    }
    if (st == PCD_OK && !m.cols) {
        /* no stack at all: a profile of nothing (the pipeline says so) */
        m.cols = 1;
        st = begin(&m);
    }
    pcd_lines_free(&lines);
    PCD_VEC_FREE(a->al, m.fr, m.fr_cap);
    return st;
}

/* The first line of the head that is not empty (complete, or the last when the head is the whole
 * input) is `stack count` (or `stack count count`), and no complete line starts with '#', '{',
 * '[' or a space (comments, JSON, text): a later line that is not a stack line is damage, said
 * by the import with its line number. */
static bool detect(const uint8_t *head, size_t n, bool whole)
{
    size_t lines = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && head[j] != '\n') j++;
        if (j == n && !whole) {
            /* a line cut by the head's end: a first line longer than the head (a deep stack, a
             * long name) is judged by its start (the import says if its end is not a count) */
            if (!lines && j > i && head[i] != '#' && head[i] != '{' && head[i] != '[' && head[i] != ' ') lines++;
            break;
        }
        size_t e = j;
        if (e > i && head[e - 1] == '\r') e--;
        if (e > i) {
            const uint8_t *q = head + i;
            size_t len = e - i;
            if (q[0] == '#' || q[0] == '{' || q[0] == '[' || q[0] == ' ') return false;
            size_t t = last_token(q, len);
            uint64_t v;
            bool fits = t >= 2 && count_of(q + t, len - t, &v);
            /* the first line must be one; a later line that is not is damage (said by the import) */
            if (!lines && !fits) return false;
            lines++;
            if (!fits) break;
        }
        i = j + 1;
    }
    return lines > 0;
}

const pcd_text_format pcd_text_collapsed_format = {
    "collapsed", "collapsed stacks (flamegraph.pl's folded format)",
    "the first line is \"frame;frame;... COUNT\" (or \"... COUNT COUNT\", difffolded.pl's), COUNT a decimal "
    "integer, and no line of the first 4 KiB starts with '#', '{', '[' or a space (a first line longer than "
    "4 KiB: by its start)",
    PCD_HAS_SAMPLES, detect, pcd_text_import_collapsed,
};
