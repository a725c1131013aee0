/* cli/fuzz_triage.c: what a run of the target came to (a crash, a sanitizer report, a hang, a
 * blow-up, a disagreement with profcodec's own reading), and what is done with a finding:
 * confirmed by a second run, minimized structurally (records dropped, values shrunk, through
 * the schema's mutator) and then by bytes, de-duplicated by its signature, and written with a
 * reproducer to OUT/findings/. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/fuzz.h"
#include "fuzz/minimize.h"

/* ---- classifying a run --------------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The first line that is not blank, normalized (numbers as N), at most cap-1 bytes. */
static void first_line(const char *text, size_t len, char *buf, size_t cap)
{
    buf[0] = 0;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        const char *t = s;
        while (t < e && isspace((unsigned char)*t)) t++;
        if (t < e) {
            pcd_fz_normalize_line(t, (size_t)(e - t), buf, cap);
            return;
        }
        s = nl ? nl + 1 : end;
    }
}

/* "heap-buffer-overflow READ" -> "heap-buffer-overflow-read" (at most cap-1 bytes). */
static void slug(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    bool dash = false;
    for (; *s && o + 1 < cap; s++) {
        if (isalnum((unsigned char)*s)) {
            if (dash && o) buf[o++] = '-';
            if (o + 1 < cap) buf[o++] = (char)tolower((unsigned char)*s);
            dash = false;
        } else {
            dash = true;
        }
    }
    buf[o] = 0;
}

static bool code_in(const int *codes, int n, int code)
{
    for (int i = 0; i < n; i++)
        if (codes[i] == code) return true;
    return false;
}

/* The line of text[0..len) RE matches, normalized; false when it does not match. */
static bool re_line(const regex_t *re, const char *text, size_t len, char *buf, size_t cap, regmatch_t *m, int nm)
{
    (void)len;
    if (regexec(re, text, (size_t)nm, m, 0) != 0) return false;
    if (buf) {
        const char *s = text + m[0].rm_so;
        while (s > text && s[-1] != '\n') s--;
        const char *e = strchr(s, '\n');
        pcd_fz_normalize_line(s, e ? (size_t)(e - s) : strlen(s), buf, cap);
    }
    return true;
}

/* Frames of a crash without a report of its own: the input run again under gdb. */
static void gdb_frames(fz *z, pcd_fz_report *rep)
{
    int n = z->cmd_argc + 10, k = 0;
    char **argv = pcd_fz_zalloc(z->al, (size_t)n + 1, sizeof *argv);
    if (!argv) return;
    argv[k++] = "gdb";
    argv[k++] = "-q";
    argv[k++] = "-batch";
    argv[k++] = "-nx";
    argv[k++] = "-ex";
    argv[k++] = z->cmd.on_stdin ? "run < {}" : "run";
    argv[k++] = "-ex";
    argv[k++] = "bt 12";
    argv[k++] = "--args";
    for (int i = 0; i < z->cmd_argc; i++) argv[k++] = z->cmd_argv[i];
    pcd_fz_cmd g;
    pcd_fz_cmd_init(&g, k, argv);
    pcd_fz_limits lim = z->lim;
    lim.timeout_s = z->lim.timeout_s * 4 + 20;
    lim.hang_signal = 0;
    pcd_fz_run run;
    if (pcd_fz_runner_run(&z->runner, &g, z->cur_path, &lim, &run, &pcd_fz_stop) == 0 && run.end == FZ_EXITED) {
        z->triage_runs++;
        pcd_fz_gdb_frames(run.out, run.out_len, rep);
    }
    pcd_alloc_sized_free(z->al, argv);
}

static void classify(fz *z, const pcd_fz_run *run, pcd_fz_verdict *v)
{
    pcd_fz_report rep;
    bool has = pcd_fz_report_parse(run->err, run->err_len, &rep) || pcd_fz_report_parse(run->out, run->out_len, &rep);
    if (has && rep.kind == PCD_FZ_LSAN && z->ignore_leaks) has = false;
    if (has && rep.kind == PCD_FZ_PYTHON && !z->py_tracebacks && strncmp(rep.title, "Fatal Python error", 18) != 0)
        has = false;
    char line[200], what[40];
    v->behaviour = fnv(UINT64_C(0xcbf29ce484222325), &run->end, sizeof run->end);
    v->behaviour = fnv(v->behaviour, &run->code, sizeof run->code);
    first_line(run->err_len ? run->err : run->out, run->err_len ? run->err_len : run->out_len, line, 120);
    v->behaviour = fnv(v->behaviour, line, strlen(line));
    regmatch_t m[2];
    if (run->end == FZ_TIMEOUT) {
        v->finding = true;
        snprintf(v->kind, sizeof v->kind, "hang");
        pcd_fz_signature("hang", has && rep.kind == PCD_FZ_GO ? &rep : NULL, v->sig, sizeof v->sig);
        snprintf(v->title, sizeof v->title, "no end within %.3g s%s%s%s", z->lim.timeout_s,
                 has && rep.n_frames ? " (in " : "", has && rep.n_frames ? rep.frames[0] : "",
                 has && rep.n_frames ? ")" : "");
    } else if (run->end == FZ_MEMORY) {
        v->finding = true;
        snprintf(v->kind, sizeof v->kind, "memory");
        snprintf(v->sig, sizeof v->sig, "memory");
        snprintf(v->title, sizeof v->title, "more than %" PRIu64 " MB resident (peak seen %" PRIu64 " MB)",
                 z->lim.rss_limit >> 20, run->max_rss >> 20);
    } else if (has) {
        v->finding = true;
        slug(rep.what, what, sizeof what);
        snprintf(v->kind, sizeof v->kind, "%s-%s", pcd_fz_kind_name(rep.kind), what);
        pcd_fz_signature(NULL, &rep, v->sig, sizeof v->sig);
        if (rep.n_frames) snprintf(v->title, sizeof v->title, "%.120s (in %.100s)", rep.title, rep.frames[0]);
        else snprintf(v->title, sizeof v->title, "%s", rep.title);
    } else if (run->end == FZ_SIGNALED && !(pcd_fz_stop && run->code == SIGKILL)) {
        v->finding = true;
        const char *sn = pcd_fz_signal_name(run->code);
        snprintf(v->kind, sizeof v->kind, "signal-%s", sn);
        memset(&rep, 0, sizeof rep);
        if (z->gdb) gdb_frames(z, &rep);
        char pre[64];
        snprintf(pre, sizeof pre, "signal|%s", sn);
        pcd_fz_signature(pre, &rep, v->sig, sizeof v->sig);
        snprintf(v->title, sizeof v->title, "killed by %s%s%s%s", sn, rep.n_frames ? " (in " : "",
                 rep.n_frames ? rep.frames[0] : "", rep.n_frames ? ")" : "");
    } else if (run->end == FZ_EXITED && code_in(z->crash_exit, z->n_crash_exit, run->code)) {
        v->finding = true;
        snprintf(v->kind, sizeof v->kind, "exit-%d", run->code);
        snprintf(v->sig, sizeof v->sig, "exit|%d|%s", run->code, line);
        snprintf(v->title, sizeof v->title, "exit status %d: %s", run->code, line);
    } else if (z->has_crash_re && (re_line(&z->crash_re, run->err, run->err_len, line, sizeof line, m, 1) ||
                                   re_line(&z->crash_re, run->out, run->out_len, line, sizeof line, m, 1))) {
        v->finding = true;
        snprintf(v->kind, sizeof v->kind, "output");
        snprintf(v->sig, sizeof v->sig, "output|%s", line);
        snprintf(v->title, sizeof v->title, "%s", line);
    }
    v->accepted = run->end == FZ_EXITED && code_in(z->accept_exit, z->n_accept_exit, run->code) && !v->finding;
    if (v->accepted && z->has_reject_re &&
        (re_line(&z->reject_re, run->err, run->err_len, NULL, 0, m, 1) ||
         re_line(&z->reject_re, run->out, run->out_len, NULL, 0, m, 1)))
        v->accepted = false;
    v->behaviour = fnv(v->behaviour, &v->accepted, sizeof v->accepted);
}

/* ---- differential: the target's verdict and totals against profcodec's reading ------------- */

/* The number RE's first group (or whole match) finds in the target's output; false if none. */
static bool their_total(const regex_t *re, const pcd_fz_run *run, uint64_t *out)
{
    regmatch_t m[2];
    const char *texts[2] = { run->out, run->err };
    for (int t = 0; t < 2; t++) {
        if (regexec(re, texts[t], 2, m, 0) != 0) continue;
        int g = m[1].rm_so >= 0 ? 1 : 0;
        char num[40];
        size_t k = (size_t)(m[g].rm_eo - m[g].rm_so);
        if (k >= sizeof num) k = sizeof num - 1;
        memcpy(num, texts[t] + m[g].rm_so, k);
        num[k] = 0;
        /* "1,234" and "1 234" too */
        char clean[40];
        size_t o = 0;
        for (size_t i = 0; i < k; i++)
            if (isdigit((unsigned char)num[i])) clean[o++] = num[i];
        clean[o] = 0;
        if (!o) continue;
        *out = strtoull(clean, NULL, 10);
        return true;
    }
    return false;
}

/* The regex of a "*" total for one sample type: the template with {name} as the type's name
 * (its special characters escaped); compiled once per name. NULL when it does not compile. */
static const regex_t *type_regex(fz *z, const char *tmpl, const char *name)
{
    for (int i = 0; i < z->n_type_re; i++)
        if (strcmp(z->type_re[i].name, name) == 0) return z->type_re[i].ok ? &z->type_re[i].re : NULL;
    if (z->n_type_re == (int)(sizeof z->type_re / sizeof z->type_re[0])) return NULL;
    char pat[700];
    size_t o = 0;
    for (const char *s = tmpl; *s && o + 3 < sizeof pat; s++) {
        if (strncmp(s, "{name}", 6) == 0) {
            for (const char *q = name; *q && o + 3 < sizeof pat; q++) {
                if (strchr(".[]{}()\\*+?^$|", *q)) pat[o++] = '\\';
                pat[o++] = *q;
            }
            s += 5;
        } else {
            pat[o++] = *s;
        }
    }
    pat[o] = 0;
    int k = z->n_type_re++;
    snprintf(z->type_re[k].name, sizeof z->type_re[k].name, "%s", name);
    z->type_re[k].ok = regcomp(&z->type_re[k].re, pat, REG_EXTENDED | REG_NEWLINE) == 0;
    return z->type_re[k].ok ? &z->type_re[k].re : NULL;
}

/* Can the target's line for sample type t be found by its name? Not when the name is empty, too
 * long to be kept whole, has control bytes (a mutated string table: a NUL, a newline) or is
 * another type's name too. */
static bool comparable_name(const pcd_fz_reading *rd, size_t t)
{
    const char *name = rd->type_name[t];
    if (!name[0] || rd->type_name_cut[t]) return false;
    for (const char *s = name; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
    for (size_t u = 0; u < rd->n_types; u++)
        if (u != t && strcmp(rd->type_name[u], name) == 0) return false;
    return true;
}

/* A total of ours against the target's: a disagreement when they differ or it printed none.
 * key tells disagreements apart (the sample type's place, not its name, which mutations change). */
static void compare_total(fz *z, const pcd_fz_run *run, pcd_fz_verdict *v, const char *key, const char *name, uint64_t ours,
                          const regex_t *re)
{
    (void)z;
    uint64_t theirs = 0;
    bool got = their_total(re, run, &theirs);
    if ((got && theirs == ours) || (!got && ours == 0)) return; /* readers often print no total of nothing */
    v->finding = v->disagreement = true;
    snprintf(v->kind, sizeof v->kind, "diff-total");
    snprintf(v->sig, sizeof v->sig, "diff|total|%s|%s", key, got ? "differs" : "not printed");
    if (got)
        snprintf(v->title, sizeof v->title, "total %s: the target says %" PRIu64 ", profcodec %" PRIu64, name, theirs, ours);
    else
        snprintf(v->title, sizeof v->title, "total %s: the target printed none (profcodec: %" PRIu64 ")", name, ours);
    size_t o = strlen(v->theirs);
    if (got) snprintf(v->theirs + o, sizeof v->theirs - o, "; %s %" PRIu64, name, theirs);
    else snprintf(v->theirs + o, sizeof v->theirs - o, "; %s not printed", name);
}

static void differ(fz *z, const uint8_t *data, size_t n, const pcd_fz_run *run, pcd_fz_verdict *v)
{
    pcd_fz_reading rd;
    const pcd_format *f = z->format;
    if (pcd_fz_read(f, data, n, z->al, &rd) == PCD_E_NOMEM) {
        snprintf(v->ours, sizeof v->ours, "not read: more memory than --max-memory");
        return;
    }
    char tl[160];
    first_line(run->err_len ? run->err : run->out, run->err_len ? run->err_len : run->out_len, tl, sizeof tl);
    if (run->end == FZ_EXITED)
        snprintf(v->theirs, sizeof v->theirs, "%s (exit status %d)%s%s", v->accepted ? "accepts" : "rejects", run->code,
                 v->accepted || !tl[0] ? "" : ": ", v->accepted ? "" : tl);
    else
        snprintf(v->theirs, sizeof v->theirs, "ends %s", run->end == FZ_SIGNALED ? pcd_fz_signal_name(run->code) : "abnormally");
    if (rd.accepted) {
        int o = snprintf(v->ours, sizeof v->ours, "accepts (%s %s, %" PRIu64 " records", rd.f ? rd.f->name : "?",
                         rd.f ? rd.f->version : "?", rd.records);
        if (rd.has_totals) {
            o += snprintf(v->ours + o, sizeof v->ours - (size_t)o, "; samples %" PRIu64, rd.samples);
            for (size_t i = 0; i < rd.n_types && o < (int)sizeof v->ours - 64; i++)
                o += snprintf(v->ours + o, sizeof v->ours - (size_t)o, ", %s %" PRIu64, rd.type_name[i], rd.total[i]);
        }
        snprintf(v->ours + o, sizeof v->ours - (size_t)o, ")");
    } else {
        snprintf(v->ours, sizeof v->ours, "rejects: %s", rd.why);
    }
    if (v->finding) return; /* a crash is a crash first */
    char norm[200];
    if (rd.accepted != v->accepted && !z->diff_totals_only) {
        v->finding = v->disagreement = true;
        if (v->accepted) {
            /* the target accepts what profcodec rejects: by where profcodec says it is wrong */
            pcd_fz_normalize_line(rd.why, strlen(rd.why), norm, sizeof norm);
            snprintf(v->kind, sizeof v->kind, "diff-accepts");
            snprintf(v->sig, sizeof v->sig, "diff|target accepts|%s", norm);
            snprintf(v->title, sizeof v->title, "the target accepts a file profcodec rejects (%.200s)", rd.why);
        } else {
            snprintf(v->kind, sizeof v->kind, "diff-rejects");
            snprintf(v->sig, sizeof v->sig, "diff|target rejects|%s", tl);
            snprintf(v->title, sizeof v->title, "the target rejects a file profcodec accepts (%.200s)", tl);
        }
        return;
    }
    if (!rd.accepted || !v->accepted || !rd.has_totals) return;
    for (int i = 0; i < z->n_totals && !v->finding; i++) {
        if (strcmp(z->totals[i].name, "*") == 0) {
            for (size_t t = 0; t < rd.n_types && !v->finding; t++) {
                if (!comparable_name(&rd, t)) continue;
                const regex_t *re = type_regex(z, z->totals[i].tmpl, rd.type_name[t]);
                char key[24];
                snprintf(key, sizeof key, "#%zu", t);
                if (re) compare_total(z, run, v, key, rd.type_name[t], rd.total[t], re);
            }
            continue;
        }
        int k = pcd_fz_total_index(&rd, z->totals[i].name);
        if (k == -2) {
            if (!z->warned_total) {
                fprintf(stderr, "\nprofcodec fuzz: warning: --total %s: the profile has no such sample type (it has:",
                        z->totals[i].name);
                for (size_t t = 0; t < rd.n_types; t++) fprintf(stderr, " %s", rd.type_name[t]);
                fprintf(stderr, "; and @samples)\n");
                z->warned_total = true;
            }
            continue;
        }
        compare_total(z, run, v, z->totals[i].name, z->totals[i].name, k < 0 ? rd.samples : rd.total[k], &z->totals[i].re);
    }
}

int pcd_fz_evaluate(fz *z, const uint8_t *data, size_t n, const char *ext, pcd_fz_verdict *v, pcd_fz_run *run)
{
    memset(v, 0, sizeof *v);
    pcd_fz_fmt(z->cur_path, sizeof z->cur_path, "%s/input%s", z->cur_dir, ext ? ext : "");
    if (pcd_fz_write_file(z->cur_path, data, n) != 0) {
        fprintf(stderr, "\nprofcodec fuzz: cannot write %s: %s\n", z->cur_path, strerror(errno));
        return -1;
    }
    if (pcd_fz_runner_run(&z->runner, &z->cmd, z->cur_path, &z->lim, run, &pcd_fz_stop) != 0) {
        fprintf(stderr, "\nprofcodec fuzz: cannot run %s: %s\n", z->cmd.argv[0], strerror(errno));
        return -1;
    }
    if (run->end == FZ_NOEXEC) {
        fprintf(stderr, "\nprofcodec fuzz: cannot run %s: %s\n", z->cmd.argv[0], strerror(run->code));
        return -1;
    }
    classify(z, run, v);
    if (z->diff && !(pcd_fz_stop && run->end == FZ_SIGNALED)) differ(z, data, n, run, v);
    return 0;
}

pcd_mut *pcd_fz_session(fz *z, const pcd_mutator *mu)
{
    size_t i = 0;
    while (i < pcd_n_mutators && pcd_mutators[i] != mu) i++;
    if (i == pcd_n_mutators) return NULL;
    if (!z->sess) {
        z->sess = pcd_fz_zalloc(z->al, pcd_n_mutators, sizeof *z->sess);
        if (!z->sess) return NULL;
    }
    if (!z->sess[i]) {
        pcd_mut_opts o;
        pcd_mut_opts_default(&o);
        o.seed = pcd_fz_rand(&z->rng);
        o.evil = z->evil;
        o.layer_break = z->evil ? z->layer_break : 0;
        o.max_output = z->buf_cap;
        if (pcd_mut_new(&z->sess[i], mu, &o, z->al) != PCD_OK) z->sess[i] = NULL;
    }
    return z->sess[i];
}

/* ---- a finding: confirm, minimize, write --------------------------------------------------- */

typedef struct tri {
    fz *z;
    const char *ext;
    const char *sig;
    const char *kind;
    double deadline;          /* minimizing stops here (0: no limit) */
    uint64_t left;            /* runs left for minimizing */
    uint64_t tries;
    size_t from, smallest;    /* sizes: as found, the smallest that still failed */
} tri;

static int oracle(void *ud, const uint8_t *p, size_t n)
{
    tri *t = ud;
    fz *z = t->z;
    if (pcd_fz_stop || !t->left || (t->deadline && pcd_fz_now() > t->deadline)) return -1;
    t->left--;
    t->tries++;
    double now = pcd_fz_now();
    if (!z->c->quiet && now - z->last_show >= (z->c->tty ? 0.5 : 60.0)) {
        z->last_show = now;
        fprintf(stderr, "%sprofcodec fuzz: minimizing a finding (%s): %" PRIu64 " runs, %zu -> %zu bytes%s",
                z->c->tty ? "\r" : "", t->kind, t->tries, t->from, t->smallest, z->c->tty ? "      " : "\n");
    }
    pcd_fz_verdict v;
    pcd_fz_run run;
    if (pcd_fz_evaluate(t->z, p, n, t->ext, &v, &run) != 0) return -1;
    t->z->triage_runs++;
    if (pcd_fz_stop) return -1;
    bool same = v.finding && strcmp(v.sig, t->sig) == 0;
    if (same && n < t->smallest) t->smallest = n;
    return same;
}

/* The leading steps that drop a record ("drop ..."): the shrinking steps list them first. */
static uint32_t drop_steps(pcd_mut *m)
{
    uint32_t k = pcd_mut_shrink_steps(m), nd = 0;
    while (nd < k && strncmp(pcd_mut_shrink_describe(m, nd), "drop ", 5) == 0) nd++;
    return nd;
}

/* Records dropped in runs, ddmin's way: half of the droppable records at once, then quarters,
 * ... down to runs of 2 (single records are the step loop's), each run made in-process by
 * applying the same drop step again to the input it gave (records go from the last backwards,
 * so one step number walks down a run) and tried on the reader once. A 600-record profile of
 * which a few records matter then takes tens of runs instead of hundreds. m is left loaded with
 * *best. Returns false when the oracle said stop. */
static bool shrink_chunks(fz *z, pcd_mut *m, tri *t, uint8_t **best, size_t *len, char *log, size_t log_cap,
                          unsigned *steps)
{
    size_t cap = z->buf_cap;
    uint8_t *cand = pcd_alloc_sized(z->al, cap), *work = pcd_alloc_sized(z->al, cap);
    bool go_on = true;
    if (!cand || !work || pcd_mut_load(m, *best, *len) != PCD_OK) goto done;
    for (uint32_t chunk = drop_steps(m) / 2; chunk >= 2 && go_on; chunk /= 2) {
        for (uint32_t start = 0;;) {
            if (pcd_mut_load(m, *best, *len) != PCD_OK) goto done;
            if (start + chunk > drop_steps(m)) break;
            size_t n = 0;
            uint32_t r = 0;
            for (; r < chunk; r++) {
                if (pcd_mut_shrink(m, start, cand, cap, &n) != PCD_OK || n == 0) break;
                memcpy(work, cand, n);
                if (pcd_mut_load(m, work, n) != PCD_OK) break;
            }
            if (r < chunk) {
                start += chunk;
                continue;
            }
            int res = oracle(t, cand, n);
            if (res < 0) {
                go_on = false;
                break;
            }
            if (res == 0) {
                start += chunk;
                continue;
            }
            size_t o = strlen(log);
            if (*steps < 8) snprintf(log + o, log_cap - o, "%sdrop %u records at once", *steps ? ", " : "", chunk);
            else if (*steps == 8) snprintf(log + o, log_cap - o, ", ...");
            (*steps)++;
            uint8_t *nb = pcd_alloc_sized(z->al, n);
            if (!nb) goto done;
            memcpy(nb, cand, n);
            pcd_alloc_sized_free(z->al, *best);
            *best = nb;
            *len = n;
        }
    }
done:
    if (pcd_mut_load(m, *best, *len) != PCD_OK) go_on = false;
    pcd_alloc_sized_free(z->al, cand);
    pcd_alloc_sized_free(z->al, work);
    return go_on;
}

/* Structural minimizing through the schema's mutator: records dropped and values shrunk while
 * the finding stays; *best is replaced (malloc'd) as steps are kept. Appends the steps taken to
 * log. */
static void shrink_structure(fz *z, const pcd_mutator *mu, tri *t, uint8_t **best, size_t *len, char *log,
                             size_t log_cap, unsigned *steps)
{
    pcd_mut *m = pcd_fz_session(z, mu);
    if (!m || pcd_mut_load(m, *best, *len) != PCD_OK) return;
    if (!shrink_chunks(z, m, t, best, len, log, log_cap, steps)) return;
    size_t cap = z->buf_cap;
    uint8_t *cand = pcd_alloc_sized(z->al, cap);
    if (!cand) return;
    /* passes over the steps until one keeps nothing; a step kept, the pass goes on from the same
     * step number of the reloaded input (the steps before it were tried already: dropping
     * records from the last one backwards, the same number is the next record) */
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t s = 0; s < pcd_mut_shrink_steps(m);) {
            size_t n = 0;
            if (pcd_mut_shrink(m, s, cand, cap, &n) != PCD_OK || n == 0) {
                s++;
                continue;
            }
            int r = oracle(t, cand, n);
            if (r < 0) goto done;
            if (r == 0) {
                s++;
                continue;
            }
            size_t o = strlen(log);
            if (*steps < 8) snprintf(log + o, log_cap - o, "%s%s", *steps ? ", " : "", pcd_mut_shrink_describe(m, s));
            else if (*steps == 8) snprintf(log + o, log_cap - o, ", ...");
            (*steps)++;
            uint8_t *nb = pcd_alloc_sized(z->al, n);
            if (!nb) goto done;
            memcpy(nb, cand, n);
            pcd_alloc_sized_free(z->al, *best);
            *best = nb;
            *len = n;
            if (pcd_mut_load(m, *best, *len) != PCD_OK) goto done;
            progress = true;
        }
    }
done:
    pcd_alloc_sized_free(z->al, cand);
}

/* One argument of the command for a shell script, "{}" as the reproducer's input beside it. */
static void sh_arg(pcd_fz_text *f, const char *a, const char *input)
{
    pcd_fz_tputc(f, '\'');
    for (const char *s = a; *s; s++) {
        if (s[0] == '{' && s[1] == '}') {
            pcd_fz_tprintf(f, "'\"$here/%s\"'", input);
            s++;
        } else if (*s == '\'') {
            pcd_fz_tprintf(f, "'\\''");
        } else {
            pcd_fz_tputc(f, *s);
        }
    }
    pcd_fz_tputc(f, '\'');
}

static void describe_end(const fz *z, const pcd_fz_run *run, char *buf, size_t cap)
{
    switch (run->end) {
    case FZ_EXITED: snprintf(buf, cap, "exit status %d", run->code); break;
    case FZ_SIGNALED: snprintf(buf, cap, "killed by %s", pcd_fz_signal_name(run->code)); break;
    case FZ_TIMEOUT: snprintf(buf, cap, "stopped at the time limit (%.3g s)", z->lim.timeout_s); break;
    case FZ_MEMORY: snprintf(buf, cap, "stopped at the memory cap (%" PRIu64 " MB)", z->lim.rss_limit >> 20); break;
    default: snprintf(buf, cap, "not started"); break;
    }
}

static int write_finding(fz *z, pcd_fz_finding *fd, const pcd_fz_input *from, const char *made_from, const char *desc, const uint8_t *orig,
                         size_t orig_n, const uint8_t *best, size_t best_n, const pcd_fz_verdict *v, const pcd_fz_run *run,
                         const char *minlog)
{
    char dir[4200], path[4400], input[64], original[64];
    snprintf(dir, sizeof dir, "%s/findings/%s", z->out_dir, fd->id);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
    snprintf(input, sizeof input, "input%s", from->ext);
    snprintf(original, sizeof original, "original%s", from->ext);
    snprintf(path, sizeof path, "%s/%s", dir, input);
    if (pcd_fz_write_file(path, best, best_n) != 0) return -1;
    snprintf(path, sizeof path, "%s/%s", dir, original);
    if (pcd_fz_write_file(path, orig, orig_n) != 0) return -1;
    /* mutation.txt: how the input was made, one line */
    char line[FZ_DESC + 2];
    int k = snprintf(line, sizeof line, "%s\n", desc);
    snprintf(path, sizeof path, "%s/mutation.txt", dir);
    if (pcd_fz_write_file(path, line, (size_t)(k < (int)sizeof line ? k : (int)sizeof line - 1)) != 0) return -1;
    /* repro.sh */
    pcd_fz_text t, *f = &t;
    pcd_fz_text_init(f, z->al);
    pcd_fz_tprintf(f, "#!/bin/sh\n# %s\n# profcodec fuzz finding %s: runs the reader on %s, beside this script.\n", v->title,
            fd->id, input);
    pcd_fz_tprintf(f, "here=$(cd \"$(dirname \"$0\")\" && pwd)\nexec");
    for (int i = 0; i < z->cmd_argc; i++) {
        pcd_fz_tputc(f, ' ');
        sh_arg(f, z->cmd_argv[i], input);
    }
    if (z->cmd.on_stdin) pcd_fz_tprintf(f, " <\"$here/%s\"", input);
    pcd_fz_tprintf(f, "\n");
    snprintf(path, sizeof path, "%s/repro.sh", dir);
    int rc = t.failed ? -1 : pcd_fz_write_file(path, t.p, t.len);
    pcd_fz_text_free(f);
    if (rc != 0) return -1;
    chmod(path, 0755);
    /* report.txt */
    pcd_fz_text_init(f, z->al);
    char end[128];
    describe_end(z, run, end, sizeof end);
    pcd_fz_tprintf(f, "finding: %s\nwhat: %s\nsignature: %s\n", fd->id, v->title, v->sig);
    pcd_fz_tprintf(f, "found: run %" PRIu64 " of the campaign, made from %s\n", fd->first_run, made_from);
    pcd_fz_tprintf(f, "mutation: %s\n", desc);
    pcd_fz_tprintf(f, "input: %s (%zu bytes; as found: %s, %zu bytes)\n", input, best_n, original, orig_n);
    pcd_fz_tprintf(f, "minimized: %s\n", minlog);
    pcd_fz_tprintf(f, "command:");
    for (int i = 0; i < z->cmd_argc; i++) pcd_fz_tprintf(f, " %s", z->cmd_argv[i]);
    pcd_fz_tprintf(f, "\ntarget: %s, %.3f s, peak resident memory %" PRIu64 " kB\n", end, run->wall_s, run->max_rss >> 10);
    if (z->diff) pcd_fz_tprintf(f, "profcodec: %s\ntarget's verdict: %s\n", v->ours, v->theirs);
    pcd_fz_tprintf(f, "\n--- standard error of the target on %s (%" PRIu64 " bytes) ---\n%s\n", input, run->err_total, run->err);
    pcd_fz_tprintf(f, "--- standard output (%" PRIu64 " bytes) ---\n%s\n", run->out_total, run->out);
    snprintf(path, sizeof path, "%s/report.txt", dir);
    rc = t.failed ? -1 : pcd_fz_write_file(path, t.p, t.len);
    pcd_fz_text_free(f);
    return rc;
}

int pcd_fz_triage(fz *z, const uint8_t *data, size_t n, const pcd_fz_input *from, const pcd_fz_verdict *v)
{
    z->hits++;
    if (v->disagreement) z->disagreements++;
    pcd_fz_finding *known = pcd_fz_find_sig(z, v->sig);
    if (known) {
        known->hits++;
        return 0;
    }
    uint64_t found_at = z->runs;
    /* the mutation that made it, copied now (minimizing runs overwrite nothing of it, but the
     * caller's buffer is the one the next input goes to) */
    char desc[FZ_DESC], made_from[256];
    snprintf(desc, sizeof desc, "%s", z->desc);
    snprintf(made_from, sizeof made_from, "%s", z->made_from ? z->made_from : from->name);
    uint8_t *orig = pcd_alloc_sized(z->al, n ? n : 1), *best = pcd_alloc_sized(z->al, n ? n : 1);
    if (!orig || !best) {
        pcd_alloc_sized_free(z->al, orig);
        pcd_alloc_sized_free(z->al, best);
        return -1;
    }
    memcpy(orig, data, n);
    memcpy(best, data, n);
    size_t best_n = n;
    /* confirm: the same signature again */
    pcd_fz_verdict v2;
    pcd_fz_run run;
    if (pcd_fz_evaluate(z, orig, n, from->ext, &v2, &run) != 0) goto fail;
    z->triage_runs++;
    if (pcd_fz_stop) goto fail;
    if (!v2.finding || strcmp(v2.sig, v->sig) != 0) {
        z->flaky++;
        if (!z->c->quiet)
            fprintf(stderr, "\nprofcodec fuzz: not found again on a second run (flaky): %s\n", v->title);
        pcd_alloc_sized_free(z->al, orig);
        pcd_alloc_sized_free(z->al, best);
        return 0;
    }
    /* minimize: structure first, then bytes; hangs cost a time limit a try */
    uint64_t budget = z->minimize_runs;
    if (strcmp(v->kind, "hang") == 0) budget = budget / 20 < 3 ? (budget < 3 ? budget : 3) : budget / 20;
    tri t = { z, from->ext, v->sig, v->kind, z->minimize_time > 0 ? pcd_fz_now() + z->minimize_time : 0, budget, 0, n, n };
    char minlog[1200];
    unsigned steps = 0;
    char slog[900] = "";
    uint64_t t0 = z->triage_runs;
    const pcd_mutator *mu = from->mu ? from->mu : pcd_mutator_detect(best, best_n);
    if (budget && mu && z->mutate != FZ_MUT_BYTES)
        shrink_structure(z, mu, &t, &best, &best_n, slog, sizeof slog, &steps);
    uint64_t t1 = z->triage_runs;
    size_t before_bytes = best_n;
    pcd_fz_min_stats ms = { 0, 0, false };
    if (budget && !pcd_fz_stop && t.left) pcd_fz_minimize_bytes(z->al, best, &best_n, t.left, oracle, &t, &ms);
    int o = snprintf(minlog, sizeof minlog, "%zu -> %zu bytes", n, best_n);
    if (!budget) {
        snprintf(minlog + o, sizeof minlog - (size_t)o, " (not minimized: --minimize-runs 0)");
    } else {
        if (mu && z->mutate != FZ_MUT_BYTES)
            o += snprintf(minlog + o, sizeof minlog - (size_t)o, "; structurally %u step%s in %" PRIu64 " runs%s%s%s", steps,
                          steps == 1 ? "" : "s", t1 - t0, steps ? " (" : "", slog, steps ? ")" : "");
        o += snprintf(minlog + o, sizeof minlog - (size_t)o, "; by bytes %zu -> %zu in %" PRIu64 " runs", before_bytes,
                      best_n, (uint64_t)ms.tries);
        if (pcd_fz_stop || !t.left || (t.deadline && pcd_fz_now() > t.deadline))
            snprintf(minlog + o, sizeof minlog - (size_t)o, " (%s)",
                     pcd_fz_stop ? "interrupted" : !t.left ? "--minimize-runs spent" : "--minimize-time spent");
    }
    /* the minimized input's own run, for the report (and its signature, which must be the same) */
    bool interrupted = pcd_fz_stop;
    pcd_fz_stop = 0;
    if (pcd_fz_evaluate(z, best, best_n, from->ext, &v2, &run) != 0) {
        pcd_fz_stop = pcd_fz_stop || interrupted;
        goto fail;
    }
    pcd_fz_stop = pcd_fz_stop || interrupted;
    z->triage_runs++;
    if (!v2.finding || strcmp(v2.sig, v->sig) != 0) { /* cannot happen unless flaky: keep the original */
        memcpy(best, orig, n);
        best_n = n;
        snprintf(minlog, sizeof minlog, "%zu bytes (the minimized input did not show it again: kept as found)", n);
        if (pcd_fz_evaluate(z, best, best_n, from->ext, &v2, &run) != 0) goto fail;
        z->triage_runs++;
    }
    pcd_fz_finding *fd = pcd_fz_add_finding(z);
    if (!fd) goto fail;
    snprintf(fd->id, sizeof fd->id, "%04zu-%s", z->n_fd, v->kind);
    snprintf(fd->sig, sizeof fd->sig, "%s", v->sig);
    snprintf(fd->title, sizeof fd->title, "%s", v->title);
    fd->hits = 1;
    fd->first_run = found_at;
    fd->size = best_n;
    if (write_finding(z, fd, from, made_from, desc, orig, n, best, best_n, &v2, &run, minlog) != 0) {
        fprintf(stderr, "\nprofcodec fuzz: cannot write the finding %s: %s\n", fd->id, strerror(errno));
        goto fail;
    }
    pcd_fz_store_findings_index(z);
    pcd_fz_store_save(z);
    z->new_findings++;
    if (z->c->tty && !z->c->quiet) fprintf(stderr, "\r%100s\r", "");
    fprintf(stderr, "profcodec fuzz: finding %s: %s\n    %s; %s/findings/%s/\n", fd->id, v->title, minlog, z->out_dir,
            fd->id);
    pcd_alloc_sized_free(z->al, orig);
    pcd_alloc_sized_free(z->al, best);
    return 0;
fail:
    pcd_alloc_sized_free(z->al, orig);
    pcd_alloc_sized_free(z->al, best);
    return -1;
}
