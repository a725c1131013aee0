/* model/transform.c: grouping and filters between an importer and an output (transform.h).
 *
 * Regexes are POSIX's (regcomp, REG_EXTENDED | REG_NOSUB): libc's matcher allocates with malloc,
 * outside --max-memory; it is compiled once per option and run once per distinct frame (the
 * answers are memos by frame), so what it takes is bounded by the patterns. That is the one
 * allocation here that does not go through pcd_alloc (docs/design.md says so). */
#include "model/transform.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "model/aggregate.h"

const char *const pcd_granularity_names[4] = { "default", "function", "line", "address" };

int pcd_granularity_parse(const char *s)
{
    if (!strcmp(s, "function") || !strcmp(s, "functions")) return PCD_GRAN_FUNCTION;
    if (!strcmp(s, "line") || !strcmp(s, "lines")) return PCD_GRAN_LINE;
    if (!strcmp(s, "address") || !strcmp(s, "addresses")) return PCD_GRAN_ADDRESS;
    return -1;
}

bool pcd_filter_opts_any(const pcd_filter_opts *o)
{
    return o && (o->focus || o->ignore || o->hide || o->show || o->prune_from || o->show_from || o->n_tags || o->n_threads ||
                 o->n_trim_paths || o->has_from || o->has_until);
}

pcd_granularity pcd_granularity_for(const pcd_filter_opts *o, bool output_groups)
{
    if (o && o->granularity != PCD_GRAN_DEFAULT) return o->granularity;
    return output_groups ? PCD_GRAN_FUNCTION : PCD_GRAN_ADDRESS;
}

bool pcd_transform_wanted(const pcd_filter_opts *o, pcd_granularity g)
{
    return g != PCD_GRAN_ADDRESS || pcd_filter_opts_any(o);
}

/* ---- the options ---------------------------------------------------------------------------- */

enum { RX_FOCUS, RX_IGNORE, RX_HIDE, RX_SHOW, RX_PRUNE, RX_SHOWFROM, RX_N };
static const char *const rx_names[RX_N] = { "--focus", "--ignore", "--hide", "--show", "--prune-from", "--show-from" };

static const char *rx_of(const pcd_filter_opts *o, int i)
{
    switch (i) {
    case RX_FOCUS: return o->focus;
    case RX_IGNORE: return o->ignore;
    case RX_HIDE: return o->hide;
    case RX_SHOW: return o->show;
    case RX_SHOWFROM: return o->show_from;
    default: return o->prune_from;
    }
}

/* Compiles pattern (anchored: the whole text must match, as pprof's tag values) into rx. */
static bool rx_compile(regex_t *rx, const char *pattern, bool anchored, const char *what, char *msg, size_t cap)
{
    char buf[1024];
    const char *pat = pattern;
    if (anchored) {
        if (strlen(pattern) + 5 > sizeof buf) {
            snprintf(msg, cap, "%s: the regex is too long", what);
            return false;
        }
        snprintf(buf, sizeof buf, "^(%s)$", pattern);
        pat = buf;
    }
    int rc = regcomp(rx, pat, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, rx, why, sizeof why);
        snprintf(msg, cap, "%s '%s': invalid regular expression (POSIX extended): %s", what, pattern, why);
        return false;
    }
    return true;
}

static bool tag_split(const char *spec, size_t *key_len)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) return false;
    *key_len = (size_t)(eq - spec);
    return true;
}

/* ---- numbers with units: pprof's -tagfocus ranges (facts of pprof's measurement package) ------- */

typedef struct unit_def {
    const char *name;              /* canonical */
    const char *aliases[3];
    double factor;                 /* to the type's base unit */
} unit_def;

typedef struct unit_type {
    unit_def units[9];
    size_t n;
    unit_def def;                  /* the default (what a unit of the type is shown in when the
                                    * wanted unit is not of the type) */
} unit_type;

static const unit_type unit_types[3] = {
    { { { "B", { "b", "byte" }, 1 }, { "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
        { "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 }, { "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
        { "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
        { "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 } },
      6, { "B", { NULL }, 1 } },
    { { { "ns", { "ns", "nanosecond" }, 1 }, { "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
        { "ms", { "ms", "millisecond" }, 1e6 }, { "s", { "s", "sec", "second" }, 1e9 },
        { "hrs", { "hour", "hr" }, 3600e9 } },
      5, { "s", { NULL }, 1e9 } },
    { { { "n*GCU", { "nanogcu" }, 1e-9 }, { "u*GCU", { "microgcu" }, 1e-6 }, { "m*GCU", { "milligcu" }, 1e-3 },
        { "GCU", { "gcu" }, 1 }, { "k*GCU", { "kilogcu" }, 1e3 }, { "M*GCU", { "megagcu" }, 1e6 },
        { "G*GCU", { "gigagcu" }, 1e9 }, { "T*GCU", { "teragcu" }, 1e12 }, { "P*GCU", { "petagcu" }, 1e15 } },
      9, { "GCU", { NULL }, 1 } },
};

/* The unit of type ut that u names: lower-cased, one trailing 's' taken off when longer than 2
 * bytes (pprof's sniffUnit: so "bytes", "seconds"), then an alias; NULL none. */
static const unit_def *unit_sniff(const unit_type *ut, const char *u, size_t n)
{
    char low[32];
    if (n >= sizeof low) return NULL;
    for (size_t i = 0; i < n; i++) low[i] = (char)(u[i] >= 'A' && u[i] <= 'Z' ? u[i] - 'A' + 'a' : u[i]);
    if (n > 2 && low[n - 1] == 's') n--;
    for (size_t i = 0; i < ut->n; i++)
        for (size_t k = 0; k < 3 && ut->units[i].aliases[k]; k++)
            if (strlen(ut->units[i].aliases[k]) == n && memcmp(ut->units[i].aliases[k], low, n) == 0) return &ut->units[i];
    return NULL;
}

/* value in unit `from`, expressed in unit `to` (pprof's measurement.Scale): the number and the
 * unit it is in (*out, cap bytes: the canonical name, or `to` itself when `from` is no known unit). */
static double unit_scale(int64_t value, const char *from, size_t from_n, const char *to, size_t to_n, char *out, size_t cap)
{
    for (size_t t = 0; t < 3; t++) {
        const unit_type *ut = &unit_types[t];
        const unit_def *fu = unit_sniff(ut, from, from_n);
        if (!fu) continue;
        double v = (double)value * fu->factor;
        const unit_def *tu = unit_sniff(ut, to, to_n);
        if ((to_n == 4 && !memcmp(to, "auto", 4)) || (to_n == 7 && !memcmp(to, "minimum", 7))) {
            const unit_def *best = NULL;
            for (size_t i = 0; i < ut->n; i++)
                if ((!best || ut->units[i].factor >= best->factor) && fabs(v) / ut->units[i].factor >= 1.0) best = &ut->units[i];
            tu = best;
        }
        if (!tu) tu = &ut->def;
        snprintf(out, cap, "%s", tu->name);
        return v / tu->factor;
    }
    static const char *const plain[] = { "count", "sample", "unit", "minimum", "auto" };
    bool is_plain = false;
    for (size_t i = 0; i < 5; i++) is_plain |= strlen(plain[i]) == to_n && memcmp(plain[i], to, to_n) == 0;
    snprintf(out, cap, "%.*s", is_plain ? 0 : (int)(to_n < cap ? to_n : cap - 1), to);
    return (double)value;
}

typedef struct num_range {
    bool has_lo, has_hi;
    double lo, hi;
    char unit[32];                 /* the unit lo and hi are in (what label values are scaled to) */
} num_range;

/* One match of pprof's "([+-]?[[:digit:]]+)([[:alpha:]]+)?" in s from *pos, leftmost: its start,
 * the end of its digits and its end; false none. */
static bool num_token(const char *s, size_t *pos, size_t *a, size_t *d, size_t *e)
{
    for (size_t i = *pos; s[i]; i++) {
        size_t k = i;
        if ((s[k] == '+' || s[k] == '-') && s[k + 1] >= '0' && s[k + 1] <= '9') k++;
        if (!(s[k] >= '0' && s[k] <= '9')) continue;
        while (s[k] >= '0' && s[k] <= '9') k++;
        *a = i;
        *d = k;
        while ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z')) k++;
        *e = k;
        *pos = k;
        return true;
    }
    return false;
}

/* Is VALUE pprof's numeric form (N, N:, :N, N:M, each N digits with an optional unit)? 1 (r set),
 * 0 not (a regex, or a plain number: --tag's own equality), -1 a number out of range (msg). A
 * plain number without a unit is not taken here: --tag KEY=4096 keeps meaning the number 4096
 * (pprof's "4096" matches no label that has a unit). */
static int parse_range(const char *v, num_range *r, char *msg, size_t cap)
{
    memset(r, 0, sizeof *r);
    size_t pos = 0, a[2], d[2], e[2], n = 0;
    while (n < 2 && num_token(v, &pos, &a[n], &d[n], &e[n])) n++;
    if (!n) return 0;
    size_t len = strlen(v);
    int form; /* 0 equal, 1 from, 2 up to, 3 both */
    if (n == 1) {
        if (a[0] == 0 && e[0] == len) form = 0;
        else if (a[0] == 0 && e[0] + 1 == len && v[e[0]] == ':') form = 1;
        else if (a[0] == 1 && v[0] == ':' && e[0] == len) form = 2;
        else return 0;
    } else {
        if (!(a[0] == 0 && v[e[0]] == ':' && a[1] == e[0] + 1 && e[1] == len)) return 0;
        form = 3;
    }
    if (form == 0 && d[0] == e[0]) return 0; /* a plain number */
    int64_t num[2];
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        size_t k = d[i] - a[i];
        errno = 0;
        char *end;
        if (k >= sizeof buf) k = sizeof buf - 1;
        memcpy(buf, v + a[i], k);
        buf[k] = 0;
        long long x = strtoll(buf, &end, 10);
        if (errno || *end || d[i] - a[i] >= sizeof buf) {
            snprintf(msg, cap, "--tag: %.*s is out of range", (int)(d[i] - a[i]), v + a[i]);
            return -1;
        }
        num[i] = x;
    }
    double x0 = unit_scale(num[0], v + d[0], e[0] - d[0], v + d[0], e[0] - d[0], r->unit, sizeof r->unit);
    if (form == 3) {
        char u2[32];
        double x1 = unit_scale(num[1], v + d[1], e[1] - d[1], r->unit, strlen(r->unit), u2, sizeof u2);
        if (strcmp(u2, r->unit) != 0) return 0; /* two kinds of unit: pprof reads it as a regex */
        r->has_hi = true;
        r->hi = x1;
    }
    r->has_lo = form != 2;
    r->lo = x0;
    if (form == 0 || form == 2) {
        r->has_hi = true;
        r->hi = x0;
    }
    return 1;
}

/* Does a label's number (in unit u) fall in r? */
static bool in_num_range(const num_range *r, int64_t value, pcd_bytes u)
{
    char su[32];
    double x = unit_scale(value, (const char *)u.ptr, u.len, r->unit, strlen(r->unit), su, sizeof su);
    return strcmp(su, r->unit) == 0 && (!r->has_lo || x >= r->lo) && (!r->has_hi || x <= r->hi);
}

pcd_status pcd_filter_opts_check(const pcd_filter_opts *o, char *msg, size_t cap)
{
    for (int i = 0; i < RX_N; i++) {
        const char *pat = rx_of(o, i);
        if (!pat) continue;
        regex_t rx;
        if (!rx_compile(&rx, pat, false, rx_names[i], msg, cap)) return PCD_E_ARG;
        regfree(&rx);
    }
    for (size_t i = 0; i < o->n_tags; i++) {
        size_t kl;
        if (!tag_split(o->tags[i], &kl)) {
            snprintf(msg, cap, "--tag '%s': expected KEY=VALUE", o->tags[i]);
            return PCD_E_ARG;
        }
        num_range r;
        int k = parse_range(o->tags[i] + kl + 1, &r, msg, cap);
        if (k < 0) return PCD_E_ARG;
        if (k > 0) continue;
        regex_t rx;
        if (!rx_compile(&rx, o->tags[i] + kl + 1, true, "--tag", msg, cap)) return PCD_E_ARG;
        regfree(&rx);
    }
    if ((o->has_from && !(o->from >= 0)) || (o->has_until && !(o->until >= 0))) {
        snprintf(msg, cap, "--from and --until take seconds from the start (0 or more)");
        return PCD_E_ARG;
    }
    if (o->has_from && o->has_until && o->until <= o->from) {
        snprintf(msg, cap, "--until (%g) must be after --from (%g)", o->until, o->from);
        return PCD_E_ARG;
    }
    return PCD_OK;
}

void pcd_filter_opts_describe(const pcd_filter_opts *o, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
#define PUT(...) do { if (n < cap) { int k = snprintf(buf + n, cap - n, __VA_ARGS__); if (k > 0) n += (size_t)k; } } while (0)
    for (int i = 0; i < RX_N; i++)
        if (rx_of(o, i)) PUT("%s%s %.60s", n ? " " : "", rx_names[i], rx_of(o, i));
    for (size_t i = 0; i < o->n_tags; i++) PUT("%s--tag %.60s", n ? " " : "", o->tags[i]);
    for (size_t i = 0; i < o->n_threads; i++) PUT("%s--thread %.60s", n ? " " : "", o->threads[i]);
    if (o->has_from) PUT("%s--from %g", n ? " " : "", o->from);
    if (o->has_until) PUT("%s--until %g", n ? " " : "", o->until);
#undef PUT
    if (n >= cap && cap) buf[cap - 1] = 0;
}

/* ---- the stage ------------------------------------------------------------------------------ */

/* frame memo bits */
#define F_DONE 1u
#define F_FOCUS 2u
#define F_IGNORE 4u
#define F_HIDDEN 8u
#define F_PRUNE 16u
#define F_SHOWFROM 32u

/* stack memo flags */
#define S_DONE 1u
#define S_FOCUS 2u
#define S_IGNORE 4u
#define S_SHOWN 8u                 /* --show-from: a matching frame is on the path (its root) */

typedef struct st_memo {
    uint32_t out;                  /* the output's stack */
    uint32_t prune;                /* 1 + the deepest stack (ancestor or self) whose frame
                                    * --prune-from matches; 0 none */
    uint32_t flags;                /* S_* */
} st_memo;

typedef struct tag_rx {
    const char *key;
    size_t key_len;
    const char *value;
    regex_t rx;                    /* (not compiled for a range) */
    bool is_range;
    num_range range;
} tag_rx;

struct pcd_transform {
    pcd_alloc *al;
    pcd_filter_opts o;
    pcd_granularity g;
    pcd_profile out;               /* what the output sees */
    bool auto_g;                   /* the granularity is the output's default */
    bool passthrough;              /* not needed after all: the importer's profile went to the output */
    pcd_consumer inner;
    regex_t rx[RX_N];
    bool has_rx[RX_N];
    tag_rx tags[PCD_FILTER_MAX];
    size_t n_tags;
    bool drops;                    /* some option drops samples (focus, ignore, tags, threads, time) */
    int64_t from_ns, until_ns;
    /* memos by the input's ids */
    uint32_t *smap;                /* string: 1 + the output's */
    size_t smap_cap;
    uint32_t *fmap;                /* frame: the output's */
    uint8_t *fbits;                /* frame: F_* */
    size_t fmap_cap, fbits_cap, fmap_n;
    st_memo *st;
    size_t st_cap, st_n;
    uint32_t *path;                /* scratch: the stacks whose memo is being made */
    size_t path_cap;
    uint32_t *tmap;                /* thread: 1 + the output's */
    uint32_t *tname;               /* thread: the name the keep answer was made with, + 1 */
    uint32_t *tpname;              /* thread: the process name handed on, + 1 */
    uint8_t *tkeep;                /* thread: 1 keep, 2 drop */
    size_t tmap_cap, tname_cap, tpname_cap, tkeep_cap, tmap_n;
    pcd_label *labels;             /* scratch: a sample's labels, mapped */
    size_t labels_cap;
    char *text;                    /* scratch: a NUL-terminated text for regexec */
    size_t text_cap;
    /* what went in */
    uint64_t samples_in;
    uint64_t timed_in;             /* of them with a time */
    uint64_t totals_in[PCD_MAX_SAMPLE_TYPES];
    char *msg;
    size_t msg_cap;
    char why[512];
};

/* Grows a memo array to n entries, the new ones zeroed (*have: how many are initialised). */
static pcd_status memo_grow(pcd_alloc *al, void **arr, size_t *cap, size_t elem, size_t *have, size_t n)
{
    if (n <= *have) return PCD_OK;
    if (n > *cap) {
        size_t want = *cap ? *cap : 64;
        while (want < n) want *= 2;
        PCD_TRY(pcd_vec_reserve(al, arr, cap, elem, want));
    }
    memset((uint8_t *)*arr + *have * elem, 0, (*cap - *have) * elem);
    *have = *cap;
    return PCD_OK;
}

static pcd_str map_str(pcd_transform *t, const pcd_profile *p, pcd_str s)
{
    if (s == 0) return 0;
    if (s < t->smap_cap && t->smap[s]) return t->smap[s] - 1;
    size_t have = t->smap_cap;
    if (memo_grow(t->al, (void **)&t->smap, &t->smap_cap, sizeof *t->smap, &have, (size_t)s + 1) != PCD_OK) {
        t->out.oom = PCD_E_NOMEM;
        return 0;
    }
    pcd_bytes b = pcd_profile_text(p, s);
    pcd_str r = pcd_profile_str(&t->out, b.ptr, b.len);
    if (!t->out.oom) t->smap[s] = r + 1;
    return r;
}

static pcd_str trimmed_file(pcd_transform *t, const pcd_profile *p, pcd_str file)
{
    if (!t->o.n_trim_paths || !file) return map_str(t, p, file);
    pcd_bytes b = pcd_profile_text(p, file);
    for (size_t i = 0; i < t->o.n_trim_paths; i++) {
        size_t n = strlen(t->o.trim_paths[i]);
        if (n && n < b.len && memcmp(b.ptr, t->o.trim_paths[i], n) == 0)
            return pcd_profile_str(&t->out, b.ptr + n, b.len - n);
    }
    return map_str(t, p, file);
}

/* Does rx match the text of s in the output's profile? */
static bool rx_text(pcd_transform *t, const regex_t *rx, pcd_str s)
{
    if (!s) return false;
    pcd_bytes b = pcd_profile_text(&t->out, s);
    if (PCD_VEC_RESERVE(t->al, t->text, t->text_cap, b.len + 1) != PCD_OK) {
        t->out.oom = PCD_E_NOMEM;
        return false;
    }
    memcpy(t->text, b.ptr, b.len);
    t->text[b.len] = 0; /* (a text with a NUL in it is matched up to the NUL) */
    return regexec(rx, t->text, 0, NULL, 0) == 0;
}

/* pprof's matchesName: the function's name, its file, or its mapping's file (our module). */
static bool rx_frame(pcd_transform *t, const regex_t *rx, const pcd_frame *f)
{
    return rx_text(t, rx, f->function) || rx_text(t, rx, f->file) || rx_text(t, rx, f->module);
}

/* The output's frame of input frame f, and its filter bits. */
static pcd_status map_frame(pcd_transform *t, const pcd_profile *p, pcd_frame_id f)
{
    if (f >= t->fmap_n) {
        size_t have = t->fmap_n, have2 = t->fmap_n;
        PCD_TRY(memo_grow(t->al, (void **)&t->fmap, &t->fmap_cap, sizeof *t->fmap, &have, (size_t)f + 1));
        PCD_TRY(memo_grow(t->al, (void **)&t->fbits, &t->fbits_cap, sizeof *t->fbits, &have2, (size_t)f + 1));
        t->fmap_n = have < have2 ? have : have2;
    }
    if (t->fbits[f] & F_DONE) return PCD_OK;
    const pcd_frame *in = &p->frames[f];
    pcd_frame x = *in;
    x.function = map_str(t, p, in->function);
    x.file = trimmed_file(t, p, in->file);
    x.module = map_str(t, p, in->module);
    /* a frame without a name keeps what tells it apart */
    if (in->function && t->g != PCD_GRAN_ADDRESS) {
        if (t->g == PCD_GRAN_FUNCTION) x.line = PCD_POS_NONE;
        x.end_line = x.column = x.end_column = PCD_POS_NONE;
        x.address = 0;
        x.instr = 0;
        x.flags = 0;
        x.key = 0;
    }
    uint32_t id = pcd_profile_frame(&t->out, &x);
    if (t->out.oom) return t->out.oom;
    const pcd_frame *of = &t->out.frames[id];
    uint8_t bits = F_DONE;
    if (t->has_rx[RX_IGNORE] && rx_frame(t, &t->rx[RX_IGNORE], of)) bits |= F_IGNORE;
    else if (t->has_rx[RX_FOCUS] && rx_frame(t, &t->rx[RX_FOCUS], of)) bits |= F_FOCUS;
    if (t->has_rx[RX_HIDE] && rx_frame(t, &t->rx[RX_HIDE], of)) bits |= F_HIDDEN;
    if (t->has_rx[RX_SHOW] && !rx_frame(t, &t->rx[RX_SHOW], of)) bits |= F_HIDDEN;
    /* pprof's PruneFrom matches the function's name only */
    if (t->has_rx[RX_PRUNE] && rx_text(t, &t->rx[RX_PRUNE], of->function)) bits |= F_PRUNE;
    /* pprof's ShowFrom: the function's name, its file or its mapping, as the other filters */
    if (t->has_rx[RX_SHOWFROM] && rx_frame(t, &t->rx[RX_SHOWFROM], of)) bits |= F_SHOWFROM;
    if (t->out.oom) return t->out.oom;
    t->fmap[f] = id;
    t->fbits[f] = bits;
    return PCD_OK;
}

static const st_memo root_memo = { 0, 0, S_DONE };

/* The memo of input stack s, made (with its ancestors') if new. */
static pcd_status stack_memo(pcd_transform *t, const pcd_profile *p, pcd_stack_id s, const st_memo **out)
{
    if (s == PCD_STACK_EMPTY) {
        *out = &root_memo;
        return PCD_OK;
    }
    if (s < t->st_n && (t->st[s].flags & S_DONE)) {
        *out = &t->st[s];
        return PCD_OK;
    }
    PCD_TRY(memo_grow(t->al, (void **)&t->st, &t->st_cap, sizeof *t->st, &t->st_n, p->n_stacks));
    /* the stacks without a memo, innermost first, up to one that has one */
    size_t n = 0;
    for (pcd_stack_id a = s; a != PCD_STACK_EMPTY && !(t->st[a].flags & S_DONE); a = p->st[a].parent) {
        PCD_TRY(PCD_VEC_RESERVE(t->al, t->path, t->path_cap, n + 1));
        t->path[n++] = a;
    }
    while (n) {
        pcd_stack_id a = t->path[--n];
        pcd_stack_id par = p->st[a].parent;
        const st_memo *m = par == PCD_STACK_EMPTY ? &root_memo : &t->st[par];
        pcd_frame_id f = p->st[a].frame;
        PCD_TRY(map_frame(t, p, f));
        uint8_t b = t->fbits[f];
        st_memo r;
        r.flags = S_DONE | (m->flags & (S_FOCUS | S_IGNORE | S_SHOWN)) | (b & F_FOCUS ? S_FOCUS : 0) |
                  (b & F_IGNORE ? S_IGNORE : 0);
        if (b & F_HIDDEN) {
            r.out = m->out;
            r.prune = m->prune;
        } else if (t->has_rx[RX_SHOWFROM] && !(m->flags & S_SHOWN) && !(b & F_SHOWFROM)) {
            /* above the outermost --show-from frame: not shown (nor can --prune-from cut there,
             * as pprof prunes after ShowFrom) */
            r.out = PCD_STACK_EMPTY;
            r.prune = 0;
        } else {
            r.flags |= t->has_rx[RX_SHOWFROM] ? S_SHOWN : 0;
            r.out = pcd_profile_push(&t->out, m->out, t->fmap[f]);
            if (t->out.oom) return t->out.oom;
            r.prune = b & F_PRUNE ? a + 1 : m->prune;
        }
        t->st[a] = r;
    }
    *out = &t->st[s];
    return PCD_OK;
}

/* Does thread th of p pass --thread? */
static bool thread_kept(pcd_transform *t, const pcd_profile *p, pcd_thread_id th)
{
    const pcd_thread *x = &p->threads[th];
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, x->tid);
    pcd_bytes tt = pcd_profile_text(p, x->tid_text), nm = pcd_profile_text(p, x->name);
    for (size_t i = 0; i < t->o.n_threads; i++) {
        const char *w = t->o.threads[i];
        size_t wl = strlen(w);
        if (x->has_tid && strcmp(w, num) == 0) return true;
        if (tt.len == wl && wl && memcmp(tt.ptr, w, wl) == 0) return true;
        if (nm.len == wl && wl && memcmp(nm.ptr, w, wl) == 0) return true;
    }
    /* a lane (an asyncio task) goes with the thread it was first seen on */
    if (x->lane_of && x->lane_of - 1 != th) return thread_kept(t, p, x->lane_of - 1);
    return false;
}

/* The output's thread of input thread th; *keep: whether it passes --thread. */
static pcd_status map_thread(pcd_transform *t, const pcd_profile *p, pcd_thread_id th, pcd_thread_id *out, bool *keep)
{
    if (th >= t->tmap_n) {
        size_t h1 = t->tmap_n, h2 = t->tmap_n, h3 = t->tmap_n, h4 = t->tmap_n;
        PCD_TRY(memo_grow(t->al, (void **)&t->tmap, &t->tmap_cap, sizeof *t->tmap, &h1, (size_t)th + 1));
        PCD_TRY(memo_grow(t->al, (void **)&t->tname, &t->tname_cap, sizeof *t->tname, &h2, (size_t)th + 1));
        PCD_TRY(memo_grow(t->al, (void **)&t->tpname, &t->tpname_cap, sizeof *t->tpname, &h4, (size_t)th + 1));
        PCD_TRY(memo_grow(t->al, (void **)&t->tkeep, &t->tkeep_cap, sizeof *t->tkeep, &h3, (size_t)th + 1));
        size_t m = h1 < h2 ? h1 : h2;
        m = m < h3 ? m : h3;
        t->tmap_n = m < h4 ? m : h4;
    }
    const pcd_thread *x = &p->threads[th];
    if (!t->tmap[th]) {
        pcd_thread y = *x;
        y.tid_text = map_str(t, p, x->tid_text);
        y.name = map_str(t, p, x->name);
        y.process_name = map_str(t, p, x->process_name);
        y.lane_of = 0;
        if (x->lane_of && x->lane_of - 1 != th) {
            pcd_thread_id owner;
            bool k;
            PCD_TRY(map_thread(t, p, x->lane_of - 1, &owner, &k));
            y.lane_of = owner + 1;
        }
        pcd_thread_id id = pcd_profile_thread(&t->out, &y);
        if (t->out.oom) return t->out.oom;
        t->tmap[th] = id + 1;
        t->tname[th] = x->name + 1;
        t->tpname[th] = x->process_name + 1;
    } else if (t->tname[th] != x->name + 1 || t->tpname[th] != x->process_name + 1) {
        /* named since: the output's thread too, and --thread asked again */
        pcd_profile_thread_name(&t->out, t->tmap[th] - 1, map_str(t, p, x->name), map_str(t, p, x->process_name));
        t->tname[th] = x->name + 1;
        t->tpname[th] = x->process_name + 1;
        t->tkeep[th] = 0;
    }
    if (!t->tkeep[th]) t->tkeep[th] = !t->o.n_threads || thread_kept(t, p, th) ? 1 : 2;
    *out = t->tmap[th] - 1;
    *keep = t->tkeep[th] == 1;
    return t->out.oom;
}

/* The header: what the importer says about the whole profile, and the sample types. */
static void sync_header(pcd_transform *t, const pcd_profile *p)
{
    pcd_profile *o = &t->out;
    o->dialect = p->dialect;
    o->time_origin = p->time_origin;
    o->duration = p->duration;
    o->period = p->period;
    o->period_type = p->period_type;
    o->sample_noun = p->sample_noun;
    o->capture = p->capture;
    o->has = p->has;
    if (!o->input_name) o->input_name = p->input_name;
    if (!o->format) o->format = p->format;
    if (!o->version) o->version = p->version;
    for (size_t i = o->n_types; i < p->n_types; i++) {
        pcd_sample_type ty = p->types[i];
        ty.name = map_str(t, p, ty.name);
        ty.unit = map_str(t, p, ty.unit);
        ty.title = map_str(t, p, ty.title);
        o->types[i] = ty;
        o->all_types |= 1u << i;
        if (ty.is_signed) o->signed_types |= 1u << i;
        o->n_types = i + 1;
    }
    for (size_t i = o->n_aliases; i < p->n_aliases; i++) {
        o->aliases[i].alias = map_str(t, p, p->aliases[i].alias);
        o->aliases[i].type = p->aliases[i].type;
        o->n_aliases = i + 1;
    }
    if (!o->valued_final) o->default_type = p->default_type;
}

static pcd_status tr_begin(void *ud, pcd_profile *p)
{
    pcd_transform *t = ud;
    int d = t->o.dialect >= 0 ? t->o.dialect : (int)p->dialect;
    if (t->auto_g && t->o.dialect_bytes && d != PCD_DIALECT_DEFAULT) t->g = PCD_GRAN_ADDRESS; /* a reference tool's bytes */
    if (!pcd_transform_wanted(&t->o, t->g)) {
        /* nothing to do: the output gets the importer's profile itself, as without the stage */
        t->passthrough = true;
        p->consumer = t->inner;
        p->before_end = t->out.before_end;
        p->before_end_ud = t->out.before_end_ud;
        return p->consumer.begin ? p->consumer.begin(p->consumer.ud, p) : PCD_OK;
    }
    sync_header(t, p);
    PCD_TRY(t->out.oom);
    return pcd_profile_begin(&t->out);
}

static pcd_status tr_meta(void *ud, pcd_profile *p, pcd_str key, pcd_str value)
{
    pcd_transform *t = ud;
    pcd_str k = map_str(t, p, key), v = map_str(t, p, value);
    PCD_TRY(t->out.oom);
    return pcd_profile_meta(&t->out, k, v);
}

static bool in_range(const pcd_transform *t, int64_t a, int64_t b)
{
    if (t->o.has_from && b < t->from_ns) return false;
    if (t->o.has_until && a >= t->until_ns) return false;
    return true;
}

static bool tag_kept(pcd_transform *t, const pcd_profile *p, const pcd_sample *s)
{
    for (size_t i = 0; i < t->n_tags; i++) {
        const tag_rx *g = &t->tags[i];
        bool hit = false;
        for (size_t k = 0; k < s->n_labels && !hit; k++) {
            const pcd_label *l = &s->labels[k];
            pcd_bytes key = pcd_profile_text(p, l->key);
            if (key.len != g->key_len || memcmp(key.ptr, g->key, g->key_len) != 0) continue;
            if (g->is_range) {
                /* pprof's numeric filter: the key's numbers only, in the label's unit, else the
                 * unit pprof gives a key without one (its name; "bytes" for alignment, request) */
                if (!l->is_num) continue;
                pcd_bytes u = pcd_profile_text(p, l->unit);
                if (!u.len) {
                    bool bytes = (key.len == 9 && !memcmp(key.ptr, "alignment", 9)) || (key.len == 7 && !memcmp(key.ptr, "request", 7));
                    u = bytes ? (pcd_bytes){ (const uint8_t *)"bytes", 5 } : key;
                }
                hit = in_num_range(&g->range, l->num, u);
            } else if (l->is_num) {
                char num[64];
                snprintf(num, sizeof num, "%" PRId64, l->num);
                pcd_bytes u = pcd_profile_text(p, l->unit);
                size_t nl = strlen(num);
                hit = strcmp(num, g->value) == 0 ||
                      (u.len && strlen(g->value) == nl + u.len && memcmp(g->value, num, nl) == 0 &&
                       memcmp(g->value + nl, u.ptr, u.len) == 0);
            } else {
                pcd_bytes b = pcd_profile_text(p, l->str);
                if (PCD_VEC_RESERVE(t->al, t->text, t->text_cap, b.len + 1) != PCD_OK) return false;
                memcpy(t->text, b.ptr, b.len);
                t->text[b.len] = 0;
                hit = regexec(&g->rx, t->text, 0, NULL, 0) == 0;
            }
        }
        if (!hit) return false;
    }
    return true;
}

static void count_in(pcd_transform *t, const pcd_profile *p, const pcd_sample *s)
{
    t->samples_in++;
    for (size_t i = 0; i < p->n_types; i++) {
        uint64_t v = s->values[i];
        if (p->types[i].is_signed) t->totals_in[i] = pcd_sat_add_i(t->totals_in[i], pcd_sat_mul_i(v, s->count));
        else t->totals_in[i] = pcd_sat_add(t->totals_in[i], pcd_sat_mul(v, s->count));
    }
}

static pcd_status tr_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    pcd_transform *t = ud;
    count_in(t, p, s);
    if (PCD_UNLIKELY(p->n_types != t->out.n_types || p->n_aliases != t->out.n_aliases)) sync_header(t, p);
    if (p->valued_final && !t->out.valued_final) pcd_profile_values_ahead(&t->out, p->valued);
    if (t->o.has_from || t->o.has_until) {
        /* a sample without a time is outside every range */
        if (s->time == PCD_TIME_NONE) return PCD_OK;
        t->timed_in++;
        if (!in_range(t, s->time, s->time)) return PCD_OK;
    }
    if (t->n_tags && !tag_kept(t, p, s)) return PCD_OK;
    pcd_thread_id th;
    bool keep;
    PCD_TRY(map_thread(t, p, s->thread, &th, &keep));
    if (!keep) return PCD_OK;
    const st_memo *m;
    PCD_TRY(stack_memo(t, p, s->stack, &m));
    if (t->has_rx[RX_FOCUS] && !(m->flags & S_FOCUS)) return PCD_OK;
    if (m->flags & S_IGNORE) return PCD_OK;
    if (t->has_rx[RX_SHOWFROM] && !(m->flags & S_SHOWN)) return PCD_OK;
    uint32_t stack = m->prune ? t->st[m->prune - 1].out : m->out;
    if (stack == PCD_STACK_EMPTY && s->stack != PCD_STACK_EMPTY) return PCD_OK; /* every frame hidden */
    pcd_sample y = *s;
    y.thread = th;
    y.stack = stack;
    if (s->n_labels) {
        PCD_TRY(PCD_VEC_RESERVE(t->al, t->labels, t->labels_cap, s->n_labels));
        for (size_t k = 0; k < s->n_labels; k++) {
            pcd_label l = s->labels[k];
            l.key = map_str(t, p, l.key);
            l.str = map_str(t, p, l.str);
            l.unit = map_str(t, p, l.unit);
            t->labels[k] = l;
        }
        PCD_TRY(t->out.oom);
        y.labels = t->labels;
    }
    return pcd_profile_sample(&t->out, &y);
}

static pcd_status tr_slice(void *ud, pcd_profile *p, const pcd_slice *s)
{
    pcd_transform *t = ud;
    if ((t->o.has_from || t->o.has_until) && !in_range(t, s->start, s->end)) return PCD_OK;
    pcd_thread_id th;
    bool keep;
    PCD_TRY(map_thread(t, p, s->track, &th, &keep));
    if (!keep) return PCD_OK;
    pcd_slice y = *s;
    y.track = th;
    return pcd_profile_slice(&t->out, &y);
}

static pcd_status tr_link(void *ud, pcd_profile *p, const pcd_link *l)
{
    pcd_transform *t = ud;
    pcd_thread_id a, b;
    bool ka, kb;
    PCD_TRY(map_thread(t, p, l->from, &a, &ka));
    PCD_TRY(map_thread(t, p, l->to, &b, &kb));
    if (!ka || !kb) return PCD_OK;
    pcd_link y = *l;
    y.kind = map_str(t, p, l->kind);
    y.from = a;
    y.to = b;
    PCD_TRY(t->out.oom);
    return pcd_profile_link(&t->out, &y);
}

static pcd_status tr_end(void *ud, pcd_profile *p)
{
    pcd_transform *t = ud;
    sync_header(t, p);
    /* names given after a thread's last event */
    for (size_t th = 0; th < t->tmap_n && th < p->n_threads; th++) {
        const pcd_thread *x = &p->threads[th];
        if (t->tmap[th] && (t->tname[th] != x->name + 1 || t->tpname[th] != x->process_name + 1)) {
            pcd_profile_thread_name(&t->out, t->tmap[th] - 1, map_str(t, p, x->name), map_str(t, p, x->process_name));
            t->tname[th] = x->name + 1;
            t->tpname[th] = x->process_name + 1;
        }
    }
    /* the default metric is the importer's choice among what the input holds */
    t->out.default_type = p->default_type;
    PCD_TRY(t->out.oom);
    if (t->drops && t->samples_in && !t->out.n_samples) {
        char opts[256];
        pcd_filter_opts_describe(&t->o, opts, sizeof opts);
        snprintf(t->why, sizeof t->why, "nothing to show: %s left none of the %" PRIu64 " samples", opts, t->samples_in);
    }
    return pcd_profile_end(&t->out);
}

pcd_status pcd_transform_open(pcd_transform **tp, pcd_alloc *al, const pcd_filter_opts *o, pcd_granularity g,
                              const pcd_consumer *inner, pcd_consumer *outer, char *msg, size_t cap)
{
    *tp = NULL;
    PCD_TRY(pcd_filter_opts_check(o, msg, cap));
    pcd_transform *t = pcd_alloc_get(al, sizeof *t);
    if (!t) return PCD_E_NOMEM;
    memset(t, 0, sizeof *t);
    t->al = al;
    t->o = *o;
    t->g = g;
    t->auto_g = o->granularity == PCD_GRAN_DEFAULT;
    t->inner = *inner;
    t->msg = msg;
    t->msg_cap = cap;
    pcd_profile_init(&t->out, al, inner);
    for (int i = 0; i < RX_N; i++) {
        const char *pat = rx_of(o, i);
        if (!pat) continue;
        if (!rx_compile(&t->rx[i], pat, false, rx_names[i], msg, cap)) {
            pcd_transform_close(t);
            return PCD_E_ARG;
        }
        t->has_rx[i] = true;
    }
    for (size_t i = 0; i < o->n_tags && i < PCD_FILTER_MAX; i++) {
        size_t kl = 0;
        tag_split(o->tags[i], &kl);
        tag_rx *g2 = &t->tags[i];
        g2->key = o->tags[i];
        g2->key_len = kl;
        g2->value = o->tags[i] + kl + 1;
        int k = parse_range(g2->value, &g2->range, msg, cap);
        if (k < 0) {
            pcd_transform_close(t);
            return PCD_E_ARG;
        }
        g2->is_range = k > 0;
        if (!g2->is_range && !rx_compile(&g2->rx, g2->value, true, "--tag", msg, cap)) {
            pcd_transform_close(t);
            return PCD_E_ARG;
        }
        t->n_tags = i + 1;
    }
    t->drops = o->focus || o->ignore || o->hide || o->show || o->show_from || o->n_tags || o->n_threads || o->has_from || o->has_until;
    t->from_ns = o->has_from ? (int64_t)(o->from * 1e9) : 0;
    t->until_ns = o->has_until ? (o->until * 1e9 >= 9.2e18 ? INT64_MAX : (int64_t)(o->until * 1e9)) : INT64_MAX;
    memset(outer, 0, sizeof *outer);
    outer->ud = t;
    /* a time range asks for every sample's time, also where an importer keeps times only when
     * they are shown (Mono's sample hits: PCD_NEEDS_TIMELINE) */
    outer->needs = inner->needs | (o->has_from || o->has_until ? PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE : 0);
    outer->begin = tr_begin;
    outer->meta = tr_meta;
    outer->sample = tr_sample;
    outer->slice = inner->slice ? tr_slice : NULL; /* (an importer may then keep no slices: Mono's calls) */
    outer->end = tr_end;
    outer->link = tr_link;
    *tp = t;
    return PCD_OK;
}

pcd_profile *pcd_transform_profile(pcd_transform *t) { return &t->out; }
bool pcd_transform_passthrough(const pcd_transform *t) { return t->passthrough; }
uint64_t pcd_transform_samples_in(const pcd_transform *t) { return t->samples_in; }

bool pcd_transform_untimed(const pcd_transform *t) { return (t->o.has_from || t->o.has_until) && !t->timed_in; }
const uint64_t *pcd_transform_totals_in(const pcd_transform *t) { return t->totals_in; }
const char *pcd_transform_why(const pcd_transform *t) { return t->why; }

void pcd_transform_close(pcd_transform *t)
{
    if (!t) return;
    pcd_alloc *al = t->al;
    for (int i = 0; i < RX_N; i++)
        if (t->has_rx[i]) regfree(&t->rx[i]);
    for (size_t i = 0; i < t->n_tags; i++)
        if (!t->tags[i].is_range) regfree(&t->tags[i].rx);
    pcd_profile_free(&t->out);
    PCD_VEC_FREE(al, t->smap, t->smap_cap);
    PCD_VEC_FREE(al, t->fmap, t->fmap_cap);
    PCD_VEC_FREE(al, t->fbits, t->fbits_cap);
    PCD_VEC_FREE(al, t->st, t->st_cap);
    PCD_VEC_FREE(al, t->path, t->path_cap);
    PCD_VEC_FREE(al, t->tmap, t->tmap_cap);
    PCD_VEC_FREE(al, t->tname, t->tname_cap);
    PCD_VEC_FREE(al, t->tpname, t->tpname_cap);
    PCD_VEC_FREE(al, t->tkeep, t->tkeep_cap);
    PCD_VEC_FREE(al, t->labels, t->labels_cap);
    PCD_VEC_FREE(al, t->text, t->text_cap);
    pcd_alloc_free(al, t, sizeof *t);
}
