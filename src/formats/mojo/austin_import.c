/* formats/mojo/austin_import.c: `encode --from austin`: Austin's text format into the profile
 * model, written as MOJO 3 by outputs/mojo.c (the one MOJO writer) the way Austin writes it.
 *
 * Reads what Austin writes in text mode (and what `convert --to austin` or austin-python's
 * mojo2austin write): "# key: value" metadata lines and sample lines
 * "P<pid>;T[<iid>:]<tid>[;<file>:<scope>:<line>]... <metric>[,<idle>,<memory>]", with
 * ":INVALID:", ":GC:" and "kernel:<symbol>:0" frames. Into the model:
 *  - metadata as it comes (the Austin dialect: the output keeps it in place);
 *  - a thread per (pid, iid, tid): a decimal thread id that Python's int() would print (as
 *    austin-python writes int(tid, 16)) as the number when it fits 64 bits, else as its text;
 *    the output writes it back in hex, any other text as it is;
 *  - frames outermost first: code frames (file, scope as function, line), and invalid, GC and
 *    kernel (the symbol) frames;
 *  - values: time (µs), memory and memory-released (a negative memory metric), with the flags
 *    saying which the line gave and whether the thread was idle; in memory mode a lone metric
 *    is memory, else time.
 * The output numbers strings and frames as Austin does (pcd_importer.first_use_keys): per
 * process in order of first use, strings from 2 (key 1 is "<unknown>"), frames from 0.
 * Memory follows the tables (strings, frames, stacks, threads), not the input: samples stream. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/mojo/asm.h"
#include "common/lines.h"
#include "common/vec.h"
#include "model/profile.h"
#include "pipeline/job.h"

enum { T_TIME, T_MEMORY, T_RELEASED, T_N };

typedef struct imp {
    pcd_import_args *a;
    pcd_profile *p;
    pcd_status st;              /* why rc 2: PCD_E_NOMEM or PCD_E_IO */
    uint64_t lineno;
    bool memory;                /* the mode metadata says memory */
    int types[T_N];
    pcd_frame_id *fr;           /* a sample's frames */
    size_t fr_cap;
} imp;

typedef struct { uint64_t mag; bool neg; } sint;

static int fail(imp *m, const char *msg)
{
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": %s", m->a->input_name, m->lineno, msg);
    return 1;
}

static int nomem(imp *m)
{
    snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": out of memory (raise --max-memory)", m->a->input_name,
             m->lineno);
    m->st = PCD_E_NOMEM;
    return 2;
}

/* A status of the model or the output: 0, or what the line comes to. */
static int status(imp *m, pcd_status st)
{
    if (st == PCD_OK && m->p->oom) st = m->p->oom;
    if (st == PCD_OK) return 0;
    if (st == PCD_E_NOMEM) return nomem(m);
    m->st = st;
    return st == PCD_E_INVALID ? 1 : 2;
}

/* A signed decimal integer (Python's int() of ASCII digits with an optional sign). */
static bool parse_int(const uint8_t *p, size_t n, sint *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) neg = p[i++] == '-';
    if (i == n) return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = (sint){ v, neg && v };
    return true;
}

/* x as an int64_t the model keeps (not its "none", INT64_MIN). */
static bool to_i64(sint x, int64_t *out)
{
    if (x.mag > (uint64_t)INT64_MAX) return false;
    *out = x.neg ? -(int64_t)x.mag : (int64_t)x.mag;
    return true;
}

/* One frame of a sample line, as its parts. */
typedef struct tframe {
    pcd_frame_kind kind;
    const uint8_t *file, *scope;
    size_t file_len, scope_len;
    sint line;
} tframe;

/* "file:scope:line" split from the right, as austin-python's Frame.parse does;
 * ";L<line>" (Austin's alternative format) reads as ":<line>". */
static bool split_frame(const uint8_t *p, size_t n, tframe *f)
{
    memset(f, 0, sizeof *f);
    f->kind = PCD_FRAME_CODE;
    if (n == 9 && memcmp(p, ":INVALID:", 9) == 0) {
        f->kind = PCD_FRAME_INVALID;
        return true;
    }
    if (n == 4 && memcmp(p, ":GC:", 4) == 0) {
        f->kind = PCD_FRAME_GC;
        return true;
    }
    size_t c2 = n;
    while (c2 > 0 && p[c2 - 1] != ':') c2--;
    if (c2 == 0) return false;
    size_t c1 = c2 - 1;
    while (c1 > 0 && p[c1 - 1] != ':') c1--;
    if (c1 == 0) return false;
    if (!parse_int(p + c2, n - c2, &f->line)) return false;
    f->file = p;
    f->file_len = c1 - 1;
    f->scope = p + c1;
    f->scope_len = c2 - 1 - c1;
    if (f->file_len == 6 && memcmp(p, "kernel", 6) == 0 && f->line.mag == 0) f->kind = PCD_FRAME_KERNEL;
    return true;
}

/* The thread of a sample: tid as Python's int() prints a number (no leading zero, no "-0",
 * at most 4300 digits: what austin-python writes), the number when it fits 64 bits; any
 * other text as it is. */
static pcd_thread_id thread_of(imp *m, sint pid, sint iid, const uint8_t *t, size_t n, bool *ok)
{
    pcd_thread th = pcd_thread_blank();
    *ok = to_i64(pid, &th.pid) && to_i64(iid, &th.iid);
    if (!*ok) return 0;
    size_t i = n && t[0] == '-';
    bool num = i < n && n - i <= 4300 && !(t[i] == '0' && (n - i > 1 || i));
    for (size_t k = i; k < n && num; k++) num = t[k] >= '0' && t[k] <= '9';
    sint v;
    if (num && !i && parse_int(t, n, &v)) {
        th.tid = v.mag;
        th.has_tid = true;
    } else {
        th.tid_text = pcd_profile_str(m->p, t, n);
    }
    return pcd_profile_thread(m->p, &th);
}

/* The model frame of f. */
static pcd_frame_id frame_of(imp *m, const tframe *f, bool *ok)
{
    *ok = true;
    pcd_profile *p = m->p;
    if (f->kind == PCD_FRAME_INVALID || f->kind == PCD_FRAME_GC) return pcd_profile_frame_named(p, f->kind, 0);
    pcd_str scope = pcd_profile_str(p, f->scope, f->scope_len);
    if (f->kind == PCD_FRAME_KERNEL) return pcd_profile_frame_named(p, PCD_FRAME_KERNEL, scope);
    pcd_frame fr = pcd_frame_blank(PCD_FRAME_CODE);
    fr.function = scope;
    fr.file = pcd_profile_str(p, f->file, f->file_len);
    if (!to_i64(f->line, &fr.line)) {
        *ok = false;
        return 0;
    }
    return pcd_profile_frame(p, &fr);
}

/* The sample types, before the first event (the output finds them at its begin). */
static pcd_status begin(imp *m)
{
    pcd_profile *p = m->p;
    if (p->begun) return PCD_OK;
    p->dialect = PCD_DIALECT_AUSTIN;
    m->types[T_TIME] = pcd_profile_add_type(p, "time", "microseconds", "Time");
    m->types[T_MEMORY] = pcd_profile_add_type(p, "memory", "bytes", "Memory allocation");
    m->types[T_RELEASED] = pcd_profile_add_type(p, "memory-released", "bytes", "Memory deallocation");
    p->default_type = m->types[T_TIME];
    return pcd_profile_begin(p);
}

static int sample_line(imp *m, uint8_t *p, size_t n)
{
    /* metrics after the last space */
    size_t sp = n;
    while (sp > 0 && p[sp - 1] != ' ') sp--;
    if (sp == 0) return fail(m, "a sample line needs its metric after a space");
    const uint8_t *met = p + sp;
    size_t met_len = n - sp, head = sp - 1;
    /* P<pid> */
    size_t semi = 1;
    while (semi < head && p[semi] != ';') semi++;
    sint pid;
    if (semi >= head || !parse_int(p + 1, semi - 1, &pid)) return fail(m, "a sample line starts with P<pid>;T<thread>");
    size_t t0 = semi + 1;
    if (t0 >= head || p[t0] != 'T') return fail(m, "a sample line starts with P<pid>;T<thread>");
    size_t t1 = t0 + 1;
    while (t1 < head && p[t1] != ';') t1++;
    /* T<iid>:<tid> (Austin 3.6 on) or T<tid> */
    const uint8_t *th = p + t0 + 1;
    size_t th_len = t1 - t0 - 1;
    sint iid = { 0, false };
    size_t colon = 0;
    while (colon < th_len && th[colon] != ':') colon++;
    if (colon < th_len && parse_int(th, colon, &iid)) {
        th += colon + 1;
        th_len -= colon + 1;
    } else {
        iid = (sint){ 0, false };
    }
    /* Austin's alternative format writes a frame's line as ";L<line>": make it ":<line>"
     * (as austin-python does, with its regular expression ;L([0-9]+)) */
    if (t1 < head) {
        size_t o = t1 + 1;
        for (size_t q = t1 + 1; q < head;) {
            if (p[q] == ';' && q + 2 < head && p[q + 1] == 'L' && p[q + 2] >= '0' && p[q + 2] <= '9') {
                p[o++] = ':';
                q += 2;
                while (q < head && p[q] >= '0' && p[q] <= '9') p[o++] = p[q++];
                continue;
            }
            p[o++] = p[q++];
        }
        /* the metrics move down with the rest of the line */
        if (o < head) {
            memmove(p + o, p + head, n - head);
            n -= head - o;
            head = o;
            met = p + head + 1;
        }
    }
    int rc = status(m, begin(m));
    if (rc) return rc;
    bool ok;
    /* frames, outermost first */
    enum { MAXF = 1 << 16 };
    size_t nf = 0;
    for (size_t i = t1; i < head;) {
        size_t j = i + 1;
        while (j < head && p[j] != ';') j++;
        if (nf == MAXF) return fail(m, "too many frames in one sample (at most 65536)");
        if (PCD_VEC_RESERVE(m->a->al, m->fr, m->fr_cap, nf + 1) != PCD_OK) return nomem(m);
        tframe f;
        if (!split_frame(p + i + 1, j - i - 1, &f))
            return fail(m, "a frame is <file>:<function>:<line>, :INVALID:, :GC: or kernel:<symbol>:0");
        m->fr[nf++] = frame_of(m, &f, &ok);
        if (!ok) return fail(m, "a line number out of range (64 bits, signed)");
        i = j;
    }
    /* metrics: one number, or time,idle,memory */
    sint mv[3];
    int nm = 0;
    for (size_t i = 0; i <= met_len;) {
        size_t j = i;
        while (j < met_len && met[j] != ',') j++;
        if (nm == 3 || !parse_int(met + i, j - i, &mv[nm]))
            return fail(m, "the metric is a number, or time,idle,memory in full mode");
        nm++;
        i = j + 1;
    }
    if (nm != 1 && nm != 3) return fail(m, "the metric is a number, or time,idle,memory in full mode");
    if (nm == 3 && (mv[1].neg || mv[1].mag > 1)) return fail(m, "the idle flag of full metrics is 0 or 1");
    pcd_thread_id t = thread_of(m, pid, iid, th, th_len, &ok);
    if (!ok) return fail(m, "a process or interpreter id out of range (64 bits, signed)");
    pcd_stack_id st = pcd_profile_stack(m->p, m->fr, nf);
    if ((rc = status(m, PCD_OK))) return rc;
    /* the values, and which the line gave: time, idle, memory; a lone one is memory in memory
     * mode (a negative time reads as 0, as the MOJO reader reads it) */
    uint64_t v[T_N] = { 0 };
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = t;
    s.stack = st;
    s.time = PCD_TIME_NONE;
    s.count = 1;
    s.values = v;
    s.offset = m->lineno;
    sint time = mv[0], mem = nm == 3 ? mv[2] : mv[0];
    bool has_time = nm == 3 || !m->memory, has_mem = nm == 3 || m->memory;
    if (has_time) {
        v[m->types[T_TIME]] = time.neg ? 0 : time.mag;
        s.flags |= PCD_SAMPLE_HAS(m->types[T_TIME]) | (uint32_t)(1 + m->types[T_TIME]) << PCD_SAMPLE_FIRST_SHIFT;
    }
    if (has_mem) {
        v[m->types[mem.neg ? T_RELEASED : T_MEMORY]] = mem.mag;
        s.flags |= PCD_SAMPLE_HAS(m->types[T_MEMORY]);
        if (!has_time) s.flags |= (uint32_t)(1 + m->types[T_MEMORY]) << PCD_SAMPLE_FIRST_SHIFT;
    }
    if (nm == 3 && mv[1].mag) s.flags |= PCD_SAMPLE_IDLE;
    return status(m, pcd_profile_sample(m->p, &s));
}

pcd_status pcd_mojo_import_austin(pcd_import_args *a, pcd_profile *p)
{
    imp m;
    memset(&m, 0, sizeof m);
    m.a = a;
    m.p = p;
    int rc = 0;
    pcd_lines lines;
    pcd_lines_stream(&lines, a->al, a->read, a->read_ud);
    uint8_t *line;
    size_t len;
    pcd_status lst = PCD_OK;
    while (rc == 0 && (lst = pcd_lines_next(&lines, &line, &len, NULL)) == PCD_OK) {
        m.lineno++;
        size_t n = len;
        if (n && line[n - 1] == '\n') n--;
        if (n && line[n - 1] == '\r') n--;
        uint8_t *q = line;
        if (n == 0) continue;
        if (q[0] == '#') {
            /* "# key: value" */
            size_t i = 1;
            if (i < n && q[i] == ' ') i++;
            size_t k = i;
            while (k + 1 < n && !(q[k] == ':' && q[k + 1] == ' ')) k++;
            if (k + 1 >= n) {
                /* "# key:" with an empty value */
                if (n > i && q[n - 1] == ':') k = n - 1;
                else {
                    rc = fail(&m, "a metadata line is \"# key: value\"");
                    break;
                }
            }
            size_t v = k + 2 <= n ? k + 2 : n;
            if (memchr(q, 0, n)) {
                rc = fail(&m, "a NUL byte cannot be written in MOJO");
                break;
            }
            if (k - i == 4 && memcmp(q + i, "mode", 4) == 0) m.memory = n - v == 6 && memcmp(q + v, "memory", 6) == 0;
            rc = status(&m, begin(&m));
            /* the default metric is the mode's, as the MOJO importer's (the header comes before
             * any sample: outputs that pick their metric at the first sample see it) */
            if (rc == 0 && !p->n_samples) p->default_type = m.memory ? m.types[T_MEMORY] : m.types[T_TIME];
            if (rc == 0) {
                pcd_str key = pcd_profile_str(p, q + i, k - i), value = pcd_profile_str(p, q + v, n - v);
                rc = status(&m, p->oom ? p->oom : pcd_profile_meta(p, key, value));
            }
            continue;
        }
        if (q[0] != 'P') {
            rc = fail(&m, "neither metadata (# key: value) nor a sample (P<pid>;T<thread>;... <metric>)");
            break;
        }
        if (memchr(q, 0, n)) {
            rc = fail(&m, "a NUL byte cannot be written in MOJO");
            break;
        }
        rc = sample_line(&m, q, n);
    }
    if (rc == 0 && lst == PCD_E_NOMEM) {
        m.lineno++;
        rc = nomem(&m);
    } else if (rc == 0 && lst != PCD_END) {
        snprintf(a->msg, sizeof a->msg, "%s: cannot read", a->input_name);
        m.st = PCD_E_IO;
        rc = 2;
    }
    if (rc == 0) rc = status(&m, begin(&m));
    pcd_lines_free(&lines);
    PCD_VEC_FREE(a->al, m.fr, m.fr_cap);
    return rc == 0 ? PCD_OK : rc == 1 ? PCD_E_INVALID : m.st ? m.st : PCD_E_IO;
}
