/* fuzz/report.c: reading a failed reader's report; see report.h. */
#include "fuzz/report.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char *pcd_fz_kind_name(pcd_fz_kind k)
{
    switch (k) {
    case PCD_FZ_ASAN: return "asan";
    case PCD_FZ_UBSAN: return "ubsan";
    case PCD_FZ_MSAN: return "msan";
    case PCD_FZ_LSAN: return "leak";
    case PCD_FZ_LIBFUZZER: return "libfuzzer";
    case PCD_FZ_GO: return "go";
    case PCD_FZ_PYTHON: return "python";
    case PCD_FZ_GDB: return "gdb";
    default: return "none";
    }
}

/* ---- lines ----------------------------------------------------------------------------- */

typedef struct line_it {
    const char *p, *end;
} line_it;

/* The next line (without its newline) in *s, *n; false at the end. */
static bool next_line(line_it *it, const char **s, size_t *n)
{
    if (it->p >= it->end) return false;
    const char *e = memchr(it->p, '\n', (size_t)(it->end - it->p));
    if (!e) e = it->end;
    *s = it->p;
    *n = (size_t)(e - it->p);
    if (*n && (*s)[*n - 1] == '\r') (*n)--;
    it->p = e < it->end ? e + 1 : e;
    return true;
}

static const char *find_in(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return s + i;
    return NULL;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static void copy_n(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

size_t pcd_fz_normalize_line(const char *s, size_t len, char *buf, size_t cap)
{
    size_t o = 0;
    const char *e = memchr(s, '\n', len);
    if (e) len = (size_t)(e - s);
    for (size_t i = 0; i < len && o + 1 < cap;) {
        unsigned char c = (unsigned char)s[i];
        bool word_start = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
        if (word_start && c == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            i += 2;
            while (i < len && isxdigit((unsigned char)s[i])) i++;
            buf[o++] = 'N';
        } else if (word_start && (isdigit(c) || (c == '-' && i + 1 < len && isdigit((unsigned char)s[i + 1])))) {
            i++;
            while (i < len && (isdigit((unsigned char)s[i]) || s[i] == '.')) i++;
            buf[o++] = 'N';
        } else {
            buf[o++] = (char)c;
            i++;
        }
    }
    buf[o] = 0;
    return o;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* Frames that are the sanitizer's, libc's abort path or the program's start, not the reader's. */
static bool skip_frame(const char *fn, const char *loc)
{
    static const char *const prefixes[] = {
        "__asan", "__ubsan", "__msan", "__lsan", "__tsan", "__sanitizer", "__interceptor", "___interceptor",
        "__interception", "__GI_", "__libc_", "__pthread_kill", "fuzzer::", "runtime.", NULL };
    static const char *const names[] = {
        "raise", "abort", "gsignal", "pthread_kill", "__assert_fail", "__assert_fail_base", "__assert_perror_fail",
        "__fortify_fail", "__chk_fail", "__stack_chk_fail", "_start", "panic", "malloc", "calloc", "realloc",
        "free", "operator", NULL };
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(fn, prefixes[i], strlen(prefixes[i])) == 0) return true;
    for (int i = 0; names[i]; i++)
        if (strcmp(fn, names[i]) == 0) return true;
    if (loc && (strstr(loc, "compiler-rt") || strstr(loc, "sanitizer_common") || strstr(loc, "libclang_rt") ||
                strstr(loc, "/asan/") || strstr(loc, "/ubsan/")))
        return true;
    return false;
}

static void add_frame(pcd_fz_report *r, const char *fn, size_t n, const char *loc, size_t loc_n)
{
    char f[128], l[160];
    copy_n(f, sizeof f, fn, n);
    copy_n(l, sizeof l, loc ? loc : "", loc ? loc_n : 0);
    if (r->n_frames >= PCD_FZ_FRAMES || skip_frame(f, l)) return;
    if (r->n_frames == 0 && l[0] && !r->where[0]) copy_n(r->where, sizeof r->where, l, strlen(l));
    copy_n(r->frames[r->n_frames++], sizeof r->frames[0], f, strlen(f));
}

/* "    #0 0x55d in fn /path/x.c:3:30" or "    #4 0x55d (/path/prog+0x213) (BuildId: ...)": one
 * frame of a sanitizer's stack; false if the line is not one. */
static bool sanitizer_frame(const char *s, size_t n, pcd_fz_report *r)
{
    size_t i = 0;
    while (i < n && s[i] == ' ') i++;
    if (i >= n || s[i] != '#') return false;
    i++;
    if (i >= n || !isdigit((unsigned char)s[i])) return false;
    while (i < n && isdigit((unsigned char)s[i])) i++;
    if (i + 3 > n || s[i] != ' ' || s[i + 1] != '0' || s[i + 2] != 'x') return false;
    i += 3;
    while (i < n && isxdigit((unsigned char)s[i])) i++;
    while (i < n && s[i] == ' ') i++;
    if (starts(s + i, n - i, "in ")) {
        i += 3;
        size_t f0 = i;
        while (i < n && s[i] != ' ') i++;
        size_t fn = i - f0;
        while (i < n && s[i] == ' ') i++;
        size_t l0 = i;
        while (i < n && s[i] != ' ') i++;
        add_frame(r, s + f0, fn, s + l0, i - l0);
        return true;
    }
    if (i < n && s[i] == '(') { /* no symbol: the module's name and the offset in it */
        size_t l0 = i + 1;
        while (i < n && s[i] != ')') i++;
        const char *m = s + l0;
        size_t mn = i - l0;
        const char *slash = NULL;
        for (size_t k = 0; k < mn; k++)
            if (m[k] == '/') slash = m + k;
        if (slash) {
            mn -= (size_t)(slash + 1 - m);
            m = slash + 1;
        }
        add_frame(r, m, mn, s + l0, i - l0);
        return true;
    }
    return false;
}

/* Sanitizer stacks: the frames of the first stack after `from`, up to a blank line. */
static void sanitizer_stack(const char *from, const char *end, pcd_fz_report *r)
{
    line_it it = { from, end };
    const char *s;
    size_t n;
    bool in_stack = false;
    while (next_line(&it, &s, &n)) {
        if (sanitizer_frame(s, n, r)) {
            in_stack = true;
            if (r->n_frames >= PCD_FZ_FRAMES) return;
        } else if (in_stack) {
            return; /* the first stack is the failing access's (then "allocated by" ones) */
        }
    }
}

/* A frame of the C library (glibc's own source paths, or a system library without symbols): of
 * a run of them only the first counts (strlen -> vfprintf -> fprintf is "a crash in strlen",
 * told apart by the program's frames below it). */
static bool system_frame(const char *loc, size_t n)
{
    static const char *const marks[] = { "/libc.so", "/libm.so", "/libpthread", "/ld-linux", "../sysdeps/",
                                         "./stdio-common/", "./libio/", "./string/", "./stdlib/", "./malloc/",
                                         "./debug/", "./nptl/", "../csu/", NULL };
    for (int i = 0; marks[i]; i++)
        if (find_in(loc, n, marks[i])) return true;
    return false;
}

int pcd_fz_gdb_frames(const char *text, size_t len, pcd_fz_report *r)
{
    line_it it = { text, text + len };
    const char *s;
    size_t n;
    int before = r->n_frames;
    bool in_system = false;
    while (next_line(&it, &s, &n) && r->n_frames < PCD_FZ_FRAMES) {
        /* "#0  0x00007ffff7a4 in fn (a=1) at x.c:12" / "#1  fn (...) at x.c:3" / "... from /lib/libc.so.6" */
        if (n < 3 || s[0] != '#' || !isdigit((unsigned char)s[1])) continue;
        size_t i = 1;
        while (i < n && isdigit((unsigned char)s[i])) i++;
        while (i < n && s[i] == ' ') i++;
        const char *addr = NULL;
        size_t addr_n = 0;
        if (starts(s + i, n - i, "0x")) {
            addr = s + i;
            while (i < n && s[i] != ' ') i++;
            addr_n = (size_t)(s + i - addr);
            while (i < n && s[i] == ' ') i++;
            if (starts(s + i, n - i, "in ")) i += 3;
        }
        size_t f0 = i;
        while (i < n && s[i] != ' ' && s[i] != '(') i++;
        size_t fn = i - f0;
        const char *at = find_in(s + i, n - i, " at ");
        const char *from = find_in(s + i, n - i, " from ");
        const char *loc = at ? at + 4 : from ? from + 6 : NULL;
        size_t loc_n = loc ? (size_t)(s + n - loc) : 0;
        bool sys = loc && system_frame(loc, loc_n);
        if (sys && in_system) continue;
        in_system = sys;
        if (fn == 2 && memcmp(s + f0, "??", 2) == 0 && addr) {
            /* no symbol: the address (gdb starts programs without address randomisation) */
            add_frame(r, addr, addr_n, loc, loc_n);
        } else {
            add_frame(r, s + f0, fn, loc, loc_n);
        }
    }
    if (r->n_frames > before && r->kind == PCD_FZ_NONE) r->kind = PCD_FZ_GDB;
    return r->n_frames - before;
}

/* ---- reports ------------------------------------------------------------------------------- */

static void set_title(pcd_fz_report *r, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '=')) s++, n--;
    /* "==123==ERROR: AddressSanitizer: ..." */
    const char *e = find_in(s, n, "ERROR: ");
    if (!e) e = find_in(s, n, "WARNING: ");
    if (e && e - s < 24) {
        n -= (size_t)(e - s);
        s = e;
    }
    copy_n(r->title, sizeof r->title, s, n);
}

/* AddressSanitizer / MemorySanitizer / LeakSanitizer: "ERROR: AddressSanitizer: KIND ..." */
static bool parse_sanitizer(line_it *it, const char *end, const char *s, size_t n, pcd_fz_report *r)
{
    static const struct { const char *tag; pcd_fz_kind kind; } tags[] = {
        { "ERROR: AddressSanitizer: ", PCD_FZ_ASAN }, { "ERROR: MemorySanitizer: ", PCD_FZ_MSAN },
        { "WARNING: MemorySanitizer: ", PCD_FZ_MSAN }, { "ERROR: LeakSanitizer: ", PCD_FZ_LSAN },
        { "ERROR: ThreadSanitizer: ", PCD_FZ_ASAN }, { "WARNING: ThreadSanitizer: ", PCD_FZ_ASAN } };
    for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
        const char *p = find_in(s, n, tags[t].tag);
        if (!p) continue;
        r->kind = tags[t].kind;
        /* the title: "AddressSanitizer: heap-buffer-overflow (READ of size 4)", without addresses */
        const char *tool = p + (tags[t].tag[0] == 'E' ? 7 : 9);
        const char *cut = find_in(p, (size_t)(s + n - p), " 0x");
        size_t tl = (size_t)((cut ? cut : s + n) - tool);
        if (cut && tl > 11 && memcmp(tool + tl - 11, " on address", 11) == 0) tl -= 11;
        copy_n(r->title, sizeof r->title, tool, tl);
        p += strlen(tags[t].tag);
        size_t rest = (size_t)(s + n - p), k = 0;
        /* the kind is its first word ("heap-buffer-overflow", "SEGV", "detected") */
        while (k < rest && p[k] != ' ') k++;
        copy_n(r->what, sizeof r->what, p, k);
        if (r->kind == PCD_FZ_LSAN) copy_n(r->what, sizeof r->what, "memory leak", 11);
        /* the access that failed: "READ of size 4 at" / "The signal is caused by a WRITE memory access." */
        const char *save = it->p, *ls;
        size_t ln;
        for (int look = 0; look < 4 && next_line(it, &ls, &ln); look++) {
            const char *acc = NULL;
            if (starts(ls, ln, "READ ") || find_in(ls, ln, "caused by a READ")) acc = " READ";
            else if (starts(ls, ln, "WRITE ") || find_in(ls, ln, "caused by a WRITE")) acc = " WRITE";
            if (acc) {
                size_t w = strlen(r->what);
                copy_n(r->what + w, sizeof r->what - w, acc, strlen(acc));
                const char *at = find_in(ls, ln, " at 0x");
                size_t al = starts(ls, ln, acc + 1) ? (size_t)((at ? at : ls + ln) - ls) : strlen(acc + 1);
                const char *as = starts(ls, ln, acc + 1) ? ls : acc + 1;
                size_t tlen = strlen(r->title);
                if (tlen + al + 4 < sizeof r->title) {
                    r->title[tlen] = ' ';
                    r->title[tlen + 1] = '(';
                    memcpy(r->title + tlen + 2, as, al);
                    r->title[tlen + 2 + al] = ')';
                    r->title[tlen + 3 + al] = 0;
                }
                break;
            }
        }
        it->p = save;
        sanitizer_stack(it->p, end, r);
        return true;
    }
    return false;
}

/* UBSan: "x.c:1:24: runtime error: shift exponent 41 is too large for 32-bit type 'int'" */
static bool parse_ubsan(line_it *it, const char *end, const char *s, size_t n, pcd_fz_report *r)
{
    const char *p = find_in(s, n, ": runtime error: ");
    /* after a place "file:line:column" (Go's "panic: runtime error:" is not one) */
    if (!p || p == s || !isdigit((unsigned char)p[-1])) return false;
    r->kind = PCD_FZ_UBSAN;
    set_title(r, s, n);
    /* where: file:line, without the column */
    const char *loc_end = p;
    const char *c1 = NULL, *c2 = NULL;
    for (const char *q = s; q < loc_end; q++)
        if (*q == ':') c1 = c2, c2 = q;
    size_t wl = c1 ? (size_t)(c2 - s) : (size_t)(loc_end - s);
    const char *slash = NULL;
    for (const char *q = s; q < s + wl; q++)
        if (*q == '/') slash = q;
    const char *w0 = slash ? slash + 1 : s;
    copy_n(r->where, sizeof r->where, w0, (size_t)(s + wl - w0));
    p += strlen(": runtime error: ");
    pcd_fz_normalize_line(p, (size_t)(s + n - p), r->what, sizeof r->what);
    /* values in quotes (types) stay; "N" replaced numbers */
    sanitizer_stack(it->p, end, r);
    return true;
}

/* Go: "panic: ..." or "fatal error: ...", then "goroutine 1 [running]:" and pairs of lines
 * "pkg.(*T).f(0xc000)" / "\t/path/f.go:12 +0x1a". */
static bool parse_go(line_it *it, const char *s, size_t n, pcd_fz_report *r)
{
    bool panic = starts(s, n, "panic: ");
    bool fatal = starts(s, n, "fatal error: ");
    bool quit = starts(s, n, "SIGQUIT: quit");
    if (!panic && !fatal && !quit) return false;
    r->kind = PCD_FZ_GO;
    set_title(r, s, n);
    pcd_fz_normalize_line(s, n, r->what, sizeof r->what);
    const char *ls;
    size_t ln;
    bool in_stack = false;
    while (next_line(it, &ls, &ln) && r->n_frames < PCD_FZ_FRAMES) {
        if (starts(ls, ln, "goroutine ")) {
            if (in_stack) break; /* the first goroutine is the one that failed */
            in_stack = true;
            continue;
        }
        if (!in_stack || ln == 0 || ls[0] == '\t' || starts(ls, ln, "created by ")) continue;
        /* a function line: strip the arguments, "(...)" at the end */
        size_t k = ln;
        if (k && ls[k - 1] == ')') {
            int depth = 0;
            while (k > 0) {
                k--;
                if (ls[k] == ')') depth++;
                else if (ls[k] == '(' && --depth == 0) break;
            }
        }
        const char *loc = NULL;
        size_t loc_n = 0;
        if (it->p < it->end && *it->p == '\t') {
            const char *e = memchr(it->p, '\n', (size_t)(it->end - it->p));
            loc = it->p + 1;
            loc_n = (size_t)((e ? e : it->end) - loc);
            const char *sp = memchr(loc, ' ', loc_n);
            if (sp) loc_n = (size_t)(sp - loc);
        }
        add_frame(r, ls, k, loc, loc_n);
    }
    return true;
}

/* Python: "Traceback (most recent call last):" ... "  File "x.py", line 3, in f" ... "ErrorType: msg",
 * or "Fatal Python error: ..." (with a faulthandler stack of "  File ..." lines). */
static bool parse_python(line_it *it, const char *s, size_t n, pcd_fz_report *r)
{
    bool tb = starts(s, n, "Traceback (most recent call last):");
    bool fatal = starts(s, n, "Fatal Python error: ");
    if (!tb && !fatal) return false;
    r->kind = PCD_FZ_PYTHON;
    struct { const char *fn, *file; size_t fn_n, file_n; } fr[64];
    int nf = 0, skipped = 0;
    const char *ls;
    size_t ln;
    const char *last = NULL;
    size_t last_n = 0;
    if (fatal) {
        pcd_fz_normalize_line(s, n, r->what, sizeof r->what);
        set_title(r, s, n);
    }
    while (next_line(it, &ls, &ln)) {
        const char *q = ls;
        size_t qn = ln;
        while (qn && *q == ' ') q++, qn--;
        if (starts(q, qn, "File \"")) {
            /* '  File "x.py", line 3, in f' (a traceback) or '  File "x.py", line 3 in f' (faulthandler) */
            const char *f0 = q + 6, *f1 = memchr(f0, '"', qn - 6);
            const char *in = f1 ? find_in(f1, (size_t)(q + qn - f1), " in ") : NULL;
            if (!f1 || !in) continue;
            in -= 1; /* fn = in + 5 below: the name after " in " */
            if (nf == 64) { /* keep the innermost 64 */
                memmove(fr, fr + 1, sizeof fr[0] * 63);
                nf = 63;
                skipped++;
            }
            const char *slash = NULL;
            for (const char *z = f0; z < f1; z++)
                if (*z == '/') slash = z;
            fr[nf].file = slash ? slash + 1 : f0;
            fr[nf].file_n = (size_t)(f1 - fr[nf].file);
            fr[nf].fn = in + 5;
            fr[nf].fn_n = (size_t)(q + qn - fr[nf].fn);
            nf++;
            continue;
        }
        if (ln == 0) {
            if (fatal && nf) break;
            continue;
        }
        if (ls[0] != ' ' && tb) { /* "IndexError: list index out of range": the traceback's end */
            last = ls;
            last_n = ln;
            break;
        }
    }
    if (tb) {
        if (!last) return false;
        size_t k = 0;
        while (k < last_n && last[k] != ':') k++;
        copy_n(r->what, sizeof r->what, last, k);
        set_title(r, last, last_n);
    }
    /* innermost first: the last "File" line of a traceback; faulthandler prints innermost first */
    for (int i = 0; i < nf && r->n_frames < PCD_FZ_FRAMES; i++) {
        int j = tb ? nf - 1 - i : i;
        char f[128];
        int m = snprintf(f, sizeof f, "%.*s:%.*s", (int)fr[j].file_n, fr[j].file, (int)fr[j].fn_n, fr[j].fn);
        add_frame(r, f, m < (int)sizeof f ? (size_t)m : sizeof f - 1, NULL, 0);
    }
    (void)skipped;
    return true;
}

/* libFuzzer: "==1== ERROR: libFuzzer: deadly signal" (when no sanitizer said more). */
static bool parse_libfuzzer(line_it *it, const char *end, const char *s, size_t n, pcd_fz_report *r)
{
    const char *p = find_in(s, n, "ERROR: libFuzzer: ");
    if (!p) return false;
    r->kind = PCD_FZ_LIBFUZZER;
    set_title(r, s, n);
    p += strlen("ERROR: libFuzzer: ");
    size_t k = 0, rest = (size_t)(s + n - p);
    while (k < rest && p[k] != '(' && !(p[k] == ' ' && k + 6 < rest && memcmp(p + k, " after", 6) == 0)) k++;
    while (k && p[k - 1] == ' ') k--;
    copy_n(r->what, sizeof r->what, p, k);
    sanitizer_stack(it->p, end, r);
    return true;
}

bool pcd_fz_report_parse(const char *text, size_t len, pcd_fz_report *r)
{
    memset(r, 0, sizeof *r);
    const char *end = text + len;
    line_it it = { text, end };
    const char *s;
    size_t n;
    while (next_line(&it, &s, &n)) {
        if (n < 6) continue;
        if (parse_sanitizer(&it, end, s, n, r) || parse_go(&it, s, n, r) || parse_ubsan(&it, end, s, n, r) ||
            parse_python(&it, s, n, r) || parse_libfuzzer(&it, end, s, n, r))
            return true;
        memset(r, 0, sizeof *r);
    }
    return false;
}

size_t pcd_fz_signature(const char *prefix, const pcd_fz_report *r, char *buf, size_t cap)
{
    size_t o = 0;
    int k;
#define PUT(...) (k = snprintf(buf + o, cap - o, __VA_ARGS__), o += k > 0 && (size_t)k < cap - o ? (size_t)k : 0)
    if (!cap) return 0;
    buf[0] = 0;
    if (prefix) PUT("%s", prefix);
    if (r && r->kind != PCD_FZ_NONE) {
        if (r->kind != PCD_FZ_GDB) PUT("%s%s|%s", o ? "|" : "", pcd_fz_kind_name(r->kind), r->what);
        if (r->kind == PCD_FZ_UBSAN && r->where[0]) PUT("|%s", r->where);
        for (int i = 0; i < r->n_frames; i++) PUT("|%s", r->frames[i]);
    }
#undef PUT
    return o;
}
