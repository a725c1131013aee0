/* formats/mojo/austin_import.c: `encode --from austin`: Austin's text format to MOJO 3.
 *
 * Reads what Austin writes in text mode (and what `convert --to austin` or austin-python's
 * mojo2austin write): "# key: value" metadata lines and sample lines
 * "P<pid>;T[<iid>:]<tid>[;<file>:<scope>:<line>]... <metric>[,<idle>,<memory>]", with
 * ":INVALID:", ":GC:" and "kernel:<symbol>:0" frames. Writes MOJO 3 as Austin would:
 * strings and frames defined per process before their first use, keys allocated in order
 * (strings from 2, as key 1 is "<unknown>", frames from 0), thread ids back in hex. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/mojo/asm.h"
#include "common/hash.h"
#include "common/hmap.h"
#include "common/lines.h"
#include "common/vec.h"
#include "mojo_v3.h"
#include "pipeline/job.h"

typedef struct imp {
    pcd_import_args *a;
    pcd_status st;              /* why rc 2: PCD_E_NOMEM or PCD_E_IO */
    pcd_writer w;
    uint64_t lineno;
    bool full, memory;          /* the mode metadata */
    /* string contents -> global ids */
    pcd_hmap strs;              /* (hash, len, 0) -> chain head id + 1 */
    uint8_t *pool;
    size_t pool_len, pool_cap;
    struct { size_t off, len; uint32_t next; } *s;
    size_t n_s, cap_s;
    /* per process: (pid, 2 + sign, string id) -> string key;
     * (pid, file key << 32 | scope key | signs, line) -> frame key */
    pcd_hmap keys;
    pcd_hmap next_key;          /* (pid, kind) -> next key */
    uint64_t samples;
} imp;

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

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = PCD_FNV_SEED;
    for (size_t i = 0; i < n; i++) h = pcd_fnv_step(h, p[i]);
    return h;
}

/* The global id of a string; UINT32_MAX when out of memory. */
static uint32_t str_id(imp *m, const uint8_t *p, size_t n)
{
    uint64_t h = fnv(p, n);
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->strs, (pcd_hkey){ h, n, 0 }, &fresh);
    if (!sl) return UINT32_MAX;
    for (uint32_t id = (uint32_t)sl->v0; id; id = m->s[id - 1].next)
        if (m->s[id - 1].len == n && memcmp(m->pool + m->s[id - 1].off, p, n) == 0) return id - 1;
    if (PCD_VEC_RESERVE(m->a->al, m->s, m->cap_s, m->n_s + 1) != PCD_OK ||
        PCD_VEC_RESERVE(m->a->al, m->pool, m->pool_cap, m->pool_len + n) != PCD_OK)
        return UINT32_MAX;
    if (n) memcpy(m->pool + m->pool_len, p, n);
    uint32_t id = (uint32_t)m->n_s++;
    m->s[id].off = m->pool_len;
    m->s[id].len = n;
    m->s[id].next = (uint32_t)sl->v0;
    sl->v0 = id + 1;
    m->pool_len += n;
    return id;
}

static pcd_mojo_int MI(uint64_t mag, bool neg) { return (pcd_mojo_int){ mag, neg && mag }; }

static pcd_status put_event(imp *m, const pcd_mojo_v3_event *ev)
{
    return pcd_writer_record(&m->w, &pcd_mojo_v3_region_events, ev);
}

static pcd_status put_simple(imp *m, uint32_t which, uint64_t tag)
{
    pcd_mojo_v3_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = which;
    ev.tag = tag;
    return put_event(m, &ev);
}

/* A signed decimal integer (Python's int() of ASCII digits with an optional sign). */
static bool parse_int(const uint8_t *p, size_t n, pcd_mojo_int *out)
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
    *out = MI(v, neg);
    return true;
}

/* The key of a string in process pid, defining it first if it is new there. */
static pcd_status string_key(imp *m, pcd_mojo_int pid, const uint8_t *p, size_t n, pcd_mojo_int *key)
{
    if (n == 9 && memcmp(p, "<unknown>", 9) == 0) {
        *key = MI(1, false);
        return PCD_OK;
    }
    uint32_t id = str_id(m, p, n);
    if (id == UINT32_MAX) return PCD_E_NOMEM;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->keys, (pcd_hkey){ pid.mag, 2 + (uint64_t)pid.neg, id }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) {
        pcd_hslot *nk = pcd_hmap_put(&m->next_key, (pcd_hkey){ pid.mag, pid.neg, 1 }, &fresh);
        if (!nk) return PCD_E_NOMEM;
        if (fresh) nk->v0 = 2;
        sl->v0 = nk->v0++;
        pcd_mojo_v3_event ev;
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V3_EVENT_STRING;
        ev.tag = PCD_MOJO_V3_EVENT_STRING_TAG;
        ev.u.string.key = MI(sl->v0, false);
        ev.u.string.value = (pcd_bytes){ p, n };
        PCD_TRY(put_event(m, &ev));
    }
    *key = MI(sl->v0, false);
    return PCD_OK;
}

/* One frame of a sample line, as its parts. */
typedef struct tframe {
    pcd_mojo_v3_event_case kind; /* the event it becomes: a frame reference, invalid, kernel, gc */
    const uint8_t *file, *scope;
    size_t file_len, scope_len;
    pcd_mojo_int line;
    pcd_mojo_int key;
} tframe;

/* "file:scope:line" split from the right, as austin-python's Frame.parse does;
 * ";L<line>" (Austin's alternative format) reads as ":<line>". */
static bool split_frame(const uint8_t *p, size_t n, tframe *f)
{
    memset(f, 0, sizeof *f);
    f->kind = PCD_MOJO_V3_EVENT_FRAME_REF;
    if (n == 9 && memcmp(p, ":INVALID:", 9) == 0) {
        f->kind = PCD_MOJO_V3_EVENT_INVALID;
        return true;
    }
    if (n == 4 && memcmp(p, ":GC:", 4) == 0) {
        f->kind = PCD_MOJO_V3_EVENT_GC;
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
    if (f->file_len == 6 && memcmp(p, "kernel", 6) == 0 && f->line.mag == 0) f->kind = PCD_MOJO_V3_EVENT_KERNEL;
    return true;
}

/* A decimal thread id (as austin-python writes Python's int(tid, 16)) back to Austin's
 * lowercase hex, of any length (Python prints up to 4300 digits); 0 when the text is not
 * such a number (then it is kept as it is). out needs n + 2 bytes. */
static size_t tid_hex(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t i = 0;
    bool neg = false;
    if (n && p[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i >= n || n - i > 4300 || (p[i] == '0' && n - i > 1) || (neg && p[i] == '0')) return 0;
    for (size_t k = i; k < n; k++)
        if (p[k] < '0' || p[k] > '9') return 0;
    /* base 2^32 limbs, least significant first: 4300 digits fit in 450 */
    uint32_t limb[460];
    size_t nl = 0;
    for (size_t k = i; k < n; k++) {
        uint64_t carry = (uint64_t)(p[k] - '0');
        for (size_t q = 0; q < nl; q++) {
            uint64_t t = (uint64_t)limb[q] * 10 + carry;
            limb[q] = (uint32_t)t;
            carry = t >> 32;
        }
        if (carry) limb[nl++] = (uint32_t)carry;
    }
    size_t o = 0;
    if (neg) out[o++] = '-';
    if (nl == 0) {
        out[o++] = '0';
        return o;
    }
    int w = snprintf(out + o, cap - o, "%x", limb[nl - 1]);
    o += (size_t)w;
    for (size_t q = nl - 1; q-- > 0;) {
        if (o + 9 > cap) return 0;
        o += (size_t)snprintf(out + o, cap - o, "%08x", limb[q]);
    }
    return o;
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
    pcd_mojo_int pid;
    if (semi >= head || !parse_int(p + 1, semi - 1, &pid)) return fail(m, "a sample line starts with P<pid>;T<thread>");
    size_t t0 = semi + 1;
    if (t0 >= head || p[t0] != 'T') return fail(m, "a sample line starts with P<pid>;T<thread>");
    size_t t1 = t0 + 1;
    while (t1 < head && p[t1] != ';') t1++;
    /* T<iid>:<tid> (Austin 3.6 on) or T<tid> */
    const uint8_t *th = p + t0 + 1;
    size_t th_len = t1 - t0 - 1;
    pcd_mojo_int iid = MI(0, false);
    size_t colon = 0;
    while (colon < th_len && th[colon] != ':') colon++;
    if (colon < th_len && parse_int(th, colon, &iid)) {
        th += colon + 1;
        th_len -= colon + 1;
    } else {
        iid = MI(0, false);
    }
    char *hex = pcd_alloc_get(m->a->al, th_len + 16);
    if (!hex) return nomem(m);
    size_t hl = tid_hex(th, th_len, hex, th_len + 16);
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
    /* frames */
    enum { MAXF = 1 << 16 };
    size_t nf = 0, cap = 0;
    tframe *fr = NULL;
    int rc = 0;
    for (size_t i = t1; i < head && rc == 0;) {
        size_t j = i + 1;
        while (j < head && p[j] != ';') j++;
        if (nf == cap) {
            size_t nc = cap ? cap * 2 : 64;
            if (nc > MAXF) {
                rc = fail(m, "too many frames in one sample (at most 65536)");
                break;
            }
            tframe *q = pcd_alloc_resize(m->a->al, fr, cap * sizeof *q, nc * sizeof *q);
            if (!q) {
                rc = nomem(m);
                break;
            }
            fr = q;
            cap = nc;
        }
        if (!split_frame(p + i + 1, j - i - 1, &fr[nf])) {
            rc = fail(m, "a frame is <file>:<function>:<line>, :INVALID:, :GC: or kernel:<symbol>:0");
            break;
        }
        nf++;
        i = j;
    }
    /* metrics: one number, or time,idle,memory */
    pcd_mojo_int mv[3];
    int nm = 0;
    for (size_t i = 0; i <= met_len && rc == 0;) {
        size_t j = i;
        while (j < met_len && met[j] != ',') j++;
        if (nm == 3 || !parse_int(met + i, j - i, &mv[nm])) {
            rc = fail(m, "the metric is a number, or time,idle,memory in full mode");
            break;
        }
        nm++;
        i = j + 1;
    }
    if (rc == 0 && nm != 1 && nm != 3) rc = fail(m, "the metric is a number, or time,idle,memory in full mode");
    if (rc == 0 && nm == 3 && (mv[1].neg || mv[1].mag > 1)) rc = fail(m, "the idle flag of full metrics is 0 or 1");
    pcd_status st = PCD_OK;
    if (rc == 0) {
        pcd_mojo_v3_event ev;
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V3_EVENT_STACK;
        ev.tag = PCD_MOJO_V3_EVENT_STACK_TAG;
        ev.u.stack.pid = pid;
        ev.u.stack.iid = iid;
        ev.u.stack.tid = hl ? (pcd_bytes){ (const uint8_t *)hex, hl } : (pcd_bytes){ th, th_len };
        st = put_event(m, &ev);
        m->samples++;
    }
    /* definitions of what is new in this process, then the frames in order */
    for (size_t i = 0; i < nf && rc == 0 && st == PCD_OK; i++) {
        tframe *f = &fr[i];
        if (f->kind != PCD_MOJO_V3_EVENT_FRAME_REF) continue;
        pcd_mojo_int fk, sk;
        st = string_key(m, pid, f->file, f->file_len, &fk);
        if (st == PCD_OK) st = string_key(m, pid, f->scope, f->scope_len, &sk);
        if (st != PCD_OK) break;
        /* string keys are small (below 2^31): room for the signs beside them */
        bool fresh;
        pcd_hslot *sl = pcd_hmap_put(&m->keys,
                                     (pcd_hkey){ pid.mag,
                                                 (fk.mag << 32 | sk.mag) | (uint64_t)pid.neg << 31 |
                                                     (uint64_t)f->line.neg << 63,
                                                 f->line.mag },
                                     &fresh);
        if (!sl) {
            st = PCD_E_NOMEM;
            break;
        }
        if (fresh) {
            pcd_hslot *nk = pcd_hmap_put(&m->next_key, (pcd_hkey){ pid.mag, pid.neg, 2 }, &fresh);
            if (!nk) {
                st = PCD_E_NOMEM;
                break;
            }
            uint64_t key = nk->v0++;
            sl->v0 = key;
            pcd_mojo_v3_event ev;
            memset(&ev, 0, sizeof ev);
            ev.which = PCD_MOJO_V3_EVENT_FRAME;
            ev.tag = PCD_MOJO_V3_EVENT_FRAME_TAG;
            ev.u.frame.key = MI(key, false);
            ev.u.frame.filename = fk;
            ev.u.frame.scope = sk;
            ev.u.frame.line = f->line;
            st = put_event(m, &ev);
        }
        f->key = MI(sl->v0, false);
    }
    for (size_t i = 0; i < nf && rc == 0 && st == PCD_OK; i++) {
        tframe *f = &fr[i];
        pcd_mojo_v3_event ev;
        memset(&ev, 0, sizeof ev);
        ev.which = f->kind;
        switch (f->kind) {
        case PCD_MOJO_V3_EVENT_FRAME_REF:
            ev.tag = PCD_MOJO_V3_EVENT_FRAME_REF_TAG;
            ev.u.frame_ref.key = f->key;
            break;
        case PCD_MOJO_V3_EVENT_INVALID: ev.tag = PCD_MOJO_V3_EVENT_INVALID_TAG; break;
        case PCD_MOJO_V3_EVENT_GC: ev.tag = PCD_MOJO_V3_EVENT_GC_TAG; break;
        default:
            ev.which = PCD_MOJO_V3_EVENT_KERNEL;
            ev.tag = PCD_MOJO_V3_EVENT_KERNEL_TAG;
            ev.u.kernel.symbol = (pcd_bytes){ f->scope, f->scope_len };
            break;
        }
        st = put_event(m, &ev);
    }
    if (rc == 0 && st == PCD_OK) {
        pcd_mojo_v3_event ev;
        memset(&ev, 0, sizeof ev);
        if (nm == 3) {
            ev.which = PCD_MOJO_V3_EVENT_TIME;
            ev.tag = PCD_MOJO_V3_EVENT_TIME_TAG;
            ev.u.time.value = mv[0];
            st = put_event(m, &ev);
            if (st == PCD_OK && mv[1].mag) st = put_simple(m, PCD_MOJO_V3_EVENT_IDLE, PCD_MOJO_V3_EVENT_IDLE_TAG);
            ev.which = PCD_MOJO_V3_EVENT_MEMORY;
            ev.tag = PCD_MOJO_V3_EVENT_MEMORY_TAG;
            ev.u.memory.value = mv[2];
            if (st == PCD_OK) st = put_event(m, &ev);
        } else if (m->memory) {
            ev.which = PCD_MOJO_V3_EVENT_MEMORY;
            ev.tag = PCD_MOJO_V3_EVENT_MEMORY_TAG;
            ev.u.memory.value = mv[0];
            st = put_event(m, &ev);
        } else {
            ev.which = PCD_MOJO_V3_EVENT_TIME;
            ev.tag = PCD_MOJO_V3_EVENT_TIME_TAG;
            ev.u.time.value = mv[0];
            st = put_event(m, &ev);
        }
    }
    if (fr) pcd_alloc_free(m->a->al, fr, cap * sizeof *fr);
    pcd_alloc_free(m->a->al, hex, th_len + 16);
    if (rc) return rc;
    if (st != PCD_OK) {
        char msg[512];
        pcd_error_format(pcd_writer_error(&m->w), msg, sizeof msg);
        snprintf(m->a->msg, sizeof m->a->msg, "%s:%" PRIu64 ": cannot encode: %s", m->a->input_name, m->lineno,
                 st == PCD_E_NOMEM ? "out of memory (raise --max-memory)" : msg);
        m->st = st;
        return st == PCD_E_IO || st == PCD_E_NOMEM ? 2 : 1;
    }
    return 0;
}

pcd_status pcd_mojo_import_austin(pcd_import_args *a)
{
    imp m;
    memset(&m, 0, sizeof m);
    m.a = a;
    pcd_hmap_init(&m.strs, a->al);
    pcd_hmap_init(&m.keys, a->al);
    pcd_hmap_init(&m.next_key, a->al);
    pcd_writer_open(&m.w, &pcd_mojo_v3_format, a->out, a->al);
    pcd_mojo_v3_file root;
    memset(&root, 0, sizeof root);
    root.version = MI(3, false);
    int rc = 0;
    if (pcd_writer_root(&m.w, &root) != PCD_OK) {
        m.st = PCD_E_IO;
        rc = 2;
    }
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
        uint8_t *p = line;
        if (n == 0) continue;
        if (p[0] == '#') {
            /* "# key: value" */
            size_t i = 1;
            if (i < n && p[i] == ' ') i++;
            size_t k = i;
            while (k + 1 < n && !(p[k] == ':' && p[k + 1] == ' ')) k++;
            if (k + 1 >= n) {
                /* "# key:" with an empty value */
                if (n > i && p[n - 1] == ':') k = n - 1;
                else {
                    rc = fail(&m, "a metadata line is \"# key: value\"");
                    break;
                }
            }
            pcd_mojo_v3_event ev;
            memset(&ev, 0, sizeof ev);
            ev.which = PCD_MOJO_V3_EVENT_METADATA;
            ev.tag = PCD_MOJO_V3_EVENT_METADATA_TAG;
            ev.u.metadata.key = (pcd_bytes){ p + i, k - i };
            size_t v = k + 2 <= n ? k + 2 : n;
            ev.u.metadata.value = (pcd_bytes){ p + v, n - v };
            if (k - i == 4 && memcmp(p + i, "mode", 4) == 0) {
                m.full = n - v == 4 && memcmp(p + v, "full", 4) == 0;
                m.memory = n - v == 6 && memcmp(p + v, "memory", 6) == 0;
            }
            if (memchr(p, 0, n)) {
                rc = fail(&m, "a NUL byte cannot be written in MOJO");
                break;
            }
            pcd_status st = put_event(&m, &ev);
            if (st != PCD_OK) {
                rc = fail(&m, "cannot encode the metadata");
                break;
            }
            continue;
        }
        if (p[0] != 'P') {
            rc = fail(&m, "neither metadata (# key: value) nor a sample (P<pid>;T<thread>;... <metric>)");
            break;
        }
        if (memchr(p, 0, n)) {
            rc = fail(&m, "a NUL byte cannot be written in MOJO");
            break;
        }
        rc = sample_line(&m, p, n);
    }
    if (rc == 0 && lst == PCD_E_NOMEM) {
        m.lineno++;
        rc = nomem(&m);
    } else if (rc == 0 && lst != PCD_END) {
        snprintf(a->msg, sizeof a->msg, "%s: cannot read", a->input_name);
        m.st = PCD_E_IO;
        rc = 2;
    }
    if (rc == 0 && pcd_writer_finish(&m.w) != PCD_OK) {
        snprintf(a->msg, sizeof a->msg, "%s: cannot write the output", a->input_name);
        m.st = PCD_E_IO;
        rc = 2;
    }
    pcd_writer_close(&m.w);
    pcd_lines_free(&lines);
    PCD_VEC_FREE(a->al, m.pool, m.pool_cap);
    PCD_VEC_FREE(a->al, m.s, m.cap_s);
    pcd_hmap_free(&m.strs);
    pcd_hmap_free(&m.keys);
    pcd_hmap_free(&m.next_key);
    return rc == 0 ? PCD_OK : rc == 1 ? PCD_E_INVALID : m.st ? m.st : PCD_E_IO;
}
