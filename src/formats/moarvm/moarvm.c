/* formats/moarvm/moarvm.c: MoarVM heap snapshots in the registry: the info summary (per snapshot
 * figures, table totals), the checks above the bytes (validate), the format's own summary
 * output, and the importer into the profile model (import.c: the dominator tree of one
 * snapshot, for collapsed stacks and speedscope). The work is done by the collector (snapshot.h:
 * assembly, tables, figures, invariants) and dom.c (dominators). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "common/problem.h"
#include "formats/moarvm/snapshot.h"
#include "moarvm_v3.h"
#include "pipeline/job.h"

/* ---- problems as text (info) ---------------------------------------------------------------- */

typedef struct problem {
    size_t off, len;               /* of its text in the pool */
    bool is_error;
} problem;

typedef struct problems {
    pcd_alloc *al;
    problem *p;
    size_t n, cap;
    char *pool;
    size_t pool_len, pool_cap;
    uint64_t errors, warnings;
} problems;

#define MAX_PROBLEMS 200

static void keep_problem(void *ud, bool is_error, const pcd_error *e)
{
    problems *p = ud;
    if (is_error) p->errors++;
    else p->warnings++;
    if (p->n >= MAX_PROBLEMS) return;
    char buf[1024];
    pcd_error_format(e, buf, sizeof buf);
    size_t len = strlen(buf);
    if (PCD_VEC_RESERVE(p->al, p->p, p->cap, p->n + 1) != PCD_OK ||
        PCD_VEC_RESERVE(p->al, p->pool, p->pool_cap, p->pool_len + len) != PCD_OK)
        return; /* counted, not shown */
    memcpy(p->pool + p->pool_len, buf, len);
    p->p[p->n++] = (problem){ p->pool_len, len, is_error };
    p->pool_len += len;
}

static void problems_free(problems *p)
{
    PCD_VEC_FREE(p->al, p->p, p->cap);
    PCD_VEC_FREE(p->al, p->pool, p->pool_cap);
    memset(p, 0, sizeof *p);
}

/* ---- info ------------------------------------------------------------------------------------ */

typedef struct mvm_info {
    pcd_moarvm_col *c;
    problems pr;
    bool finished;
    uint64_t blocks;
} mvm_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    mvm_info *m = ctx;
    memset(m, 0, sizeof *m);
    m->pr.al = al;
    pcd_moarvm_opts o = { false, false, keep_problem, &m->pr, NULL, NULL };
    m->c = pcd_moarvm_col_new(al, &o);
}

static void info_record(void *ctx, const pcd_record *rec)
{
    mvm_info *m = ctx;
    if (!m->c) return;
    if (rec->depth == 1) m->blocks++;
    pcd_moarvm_col_record(m->c, rec);
}

/* What is still open at the end (a snapshot without its TOC...) is a problem too. */
static void info_end(mvm_info *m)
{
    if (m->finished || !m->c) return;
    m->finished = true;
    pcd_moarvm_col_finish(m->c);
}

static const char *const kind_names[12] = {
    "other", "objects", "type_objects", "stables", "frames", "permanent_roots", "instance_roots",
    "cstack_roots", "thread_roots", "root", "intergen_roots", "callstack_roots",
};

static void info_text(void *ctx, FILE *out)
{
    mvm_info *m = ctx;
    if (!m->c) return;
    info_end(m);
    int64_t sub, start, pid;
    if (pcd_moarvm_col_filemeta(m->c, &sub, &start, &pid))
        fprintf(out, "filemeta:    subversion %" PRId64 ", pid %" PRId64 ", start_time %" PRId64 " us\n", sub, pid,
                start);
    const pcd_moarvm_snapshot *s;
    size_t n = pcd_moarvm_col_snapshots(m->c, &s);
    uint64_t idx, off;
    bool inc = pcd_moarvm_col_incomplete(m->c, &idx, &off);
    fprintf(out, "snapshots:   %zu complete%s; profiling %s\n", n, inc ? " (and one incomplete)" : "",
            pcd_moarvm_col_ended(m->c) ? "ended" : "not ended (the file lacks what MoarVM writes when it ends)");
    fprintf(out, "tables:      %" PRIu64 " strings, %" PRIu64 " types, %" PRIu64 " frames\n",
            pcd_moarvm_col_strings(m->c), pcd_moarvm_col_types(m->c), pcd_moarvm_col_frames(m->c));
    if (n) {
        fprintf(out, "\n%8s %10s %14s %12s %11s %9s %12s %8s %8s %14s\n", "snapshot", "gc_seq_num", "snap_time_us",
                "collectables", "references", "objects", "type_objects", "stables", "frames", "heap_size");
        for (size_t i = 0; i < n; i++) {
            const pcd_moarvm_snapshot *x = &s[i];
            fprintf(out,
                    "%8" PRIu64 " %10" PRIu64 " %14" PRIu64 " %12" PRIu64 " %11" PRIu64 " %9" PRIu64 " %12" PRIu64
                    " %8" PRIu64 " %8" PRIu64 " %14" PRIu64 "\n",
                    x->index, x->meta[PCD_MOARVM_M_GC_SEQ_NUM], x->meta[PCD_MOARVM_M_SNAP_TIME],
                    x->n[PCD_MOARVM_COLKIND], x->n[PCD_MOARVM_REFDESCR], x->kinds[1], x->kinds[2], x->kinds[3],
                    x->kinds[4], x->heap_size);
        }
    }
    if (inc) fprintf(out, "incomplete:  snapshot %" PRIu64 " (snapmeta at offset %" PRIu64 ") has no TOC\n", idx, off);
    for (size_t i = 0; i < m->pr.n; i++)
        fprintf(out, "%s %.*s\n", m->pr.p[i].is_error ? "problem:    " : "warning:    ", (int)m->pr.p[i].len,
                m->pr.pool + m->pr.p[i].off);
    if (m->pr.errors + m->pr.warnings > m->pr.n)
        fprintf(out, "             (%" PRIu64 " more not shown)\n", m->pr.errors + m->pr.warnings - m->pr.n);
}

static pcd_status putf(pcd_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static pcd_status putf(pcd_sink *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return PCD_E_INTERNAL;
    return pcd_sink_put(s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static pcd_status info_json(void *ctx, pcd_sink *s)
{
    mvm_info *m = ctx;
    if (!m->c) return PCD_OK;
    info_end(m);
    int64_t sub, start, pid;
    if (pcd_moarvm_col_filemeta(m->c, &sub, &start, &pid))
        PCD_TRY(putf(s, "\"subversion\":%" PRId64 ",\"start_time\":%" PRId64 ",\"pid\":%" PRId64 ",", sub, start, pid));
    PCD_TRY(putf(s, "\"blocks\":%" PRIu64 ",\"strings\":%" PRIu64 ",\"types\":%" PRIu64 ",\"frames\":%" PRIu64
                    ",\"ended\":%s,\"snapshots\":[",
                 m->blocks, pcd_moarvm_col_strings(m->c), pcd_moarvm_col_types(m->c), pcd_moarvm_col_frames(m->c),
                 pcd_moarvm_col_ended(m->c) ? "true" : "false"));
    const pcd_moarvm_snapshot *sn;
    size_t n = pcd_moarvm_col_snapshots(m->c, &sn);
    for (size_t i = 0; i < n; i++) {
        const pcd_moarvm_snapshot *x = &sn[i];
        PCD_TRY(putf(s, "%s{\"index\":%" PRIu64 ",\"offset\":%" PRIu64, i ? "," : "", x->index, x->offset));
        if (x->have_meta & (1u << PCD_MOARVM_M_GC_SEQ_NUM))
            PCD_TRY(putf(s, ",\"gc_seq_num\":%" PRIu64, x->meta[PCD_MOARVM_M_GC_SEQ_NUM]));
        if (x->have_meta & (1u << PCD_MOARVM_M_SNAP_TIME))
            PCD_TRY(putf(s, ",\"snap_time\":%" PRIu64, x->meta[PCD_MOARVM_M_SNAP_TIME]));
        PCD_TRY(putf(s,
                     ",\"collectables\":%" PRIu64 ",\"references\":%" PRIu64 ",\"objects\":%" PRIu64
                     ",\"type_objects\":%" PRIu64 ",\"stables\":%" PRIu64 ",\"frames\":%" PRIu64
                     ",\"heap_size\":%" PRIu64,
                     x->n[PCD_MOARVM_COLKIND], x->n[PCD_MOARVM_REFDESCR], x->kinds[1], x->kinds[2], x->kinds[3],
                     x->kinds[4], x->heap_size));
        PCD_TRY(putf(s, ",\"by_kind\":{"));
        bool first = true;
        for (int k = 0; k < 12; k++) {
            if (k == 0 && !x->kinds[0]) continue;
            PCD_TRY(putf(s, "%s\"%s\":%" PRIu64, first ? "" : ",", kind_names[k], x->kinds[k]));
            first = false;
        }
        PCD_TRY(putf(s,
                     "},\"references_by_kind\":{\"unknown\":%" PRIu64 ",\"index\":%" PRIu64 ",\"string\":%" PRIu64 "}",
                     x->refkinds[PCD_MOARVM_V3_REFDESCR_KIND_UNKNOWN], x->refkinds[PCD_MOARVM_V3_REFDESCR_KIND_INDEX],
                     x->refkinds[PCD_MOARVM_V3_REFDESCR_KIND_STRING]));
        PCD_TRY(putf(s, ",\"visible\":{\"strings\":%" PRIu64 ",\"types\":%" PRIu64 ",\"frames\":%" PRIu64 "}",
                     x->strings, x->types, x->frames));
        PCD_TRY(putf(s, ",\"snapmeta\":{"));
        first = true;
        for (int k = 0; k < PCD_MOARVM_NMETA; k++) {
            if (!(x->have_meta & (1u << k))) continue;
            PCD_TRY(putf(s, "%s\"%s\":%" PRIu64, first ? "" : ",", pcd_moarvm_meta_keys[k], x->meta[k]));
            first = false;
        }
        PCD_TRY(putf(s, "}}"));
    }
    PCD_TRY(putf(s, "]"));
    uint64_t idx, off;
    if (pcd_moarvm_col_incomplete(m->c, &idx, &off))
        PCD_TRY(putf(s, ",\"incomplete\":{\"index\":%" PRIu64 ",\"offset\":%" PRIu64 "}", idx, off));
    PCD_TRY(putf(s, ",\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"problems\":[", m->pr.errors, m->pr.warnings));
    for (size_t i = 0; i < m->pr.n; i++) {
        PCD_TRY(putf(s, "%s{\"error\":%s,\"message\":", i ? "," : "", m->pr.p[i].is_error ? "true" : "false"));
        PCD_TRY(pcd_json_text(s, (const uint8_t *)m->pr.pool + m->pr.p[i].off, m->pr.p[i].len));
        PCD_TRY(putf(s, "}"));
    }
    return putf(s, "]");
}

static void info_fini(void *ctx)
{
    mvm_info *m = ctx;
    pcd_moarvm_col_free(m->c);
    problems_free(&m->pr);
}

/* A snapshot (or blocks after the last TOC) cut short at a block boundary. */
static bool info_damaged(void *ctx, pcd_error *e)
{
    mvm_info *m = ctx;
    if (!m->c) return false;
    info_end(m);
    uint64_t idx, off;
    if (!pcd_moarvm_col_incomplete(m->c, &idx, &off)) return false;
    pcd_problem(e, PCD_E_TRUNCATED, pcd_moarvm_col_last_block(m->c),
                "the rest of the snapshot and its TOC (the file ends after the block here)", PCD_FOUND_NONE, 0);
    pcd_error_push(e, "snapshot", (int64_t)idx);
    return true;
}

static const pcd_info_ops mvm_info_ops = {
    sizeof(mvm_info), info_init, info_record, info_text, info_json, info_fini, info_damaged,
};

/* ---- checks (validate) --------------------------------------------------------------------- */

typedef struct mvm_check {
    pcd_moarvm_col *c;
    bool oom_reported;
} mvm_check;

static void check_init(void *ctx, pcd_alloc *al)
{
    mvm_check *k = ctx;
    pcd_moarvm_opts o = { true, false, NULL, NULL, NULL, NULL };
    k->c = pcd_moarvm_col_new(al, &o);
}

static void check_record(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud)
{
    mvm_check *k = ctx;
    if (!k->c) {
        if (!k->oom_reported) {
            pcd_error e;
            report(ud, true, pcd_problem(&e, PCD_E_NOMEM, 0, "memory for the checks", PCD_FOUND_NONE, 0));
            k->oom_reported = true;
        }
        return;
    }
    pcd_moarvm_col_set_report(k->c, report, ud);
    pcd_moarvm_col_record(k->c, rec);
}

static void check_finish(void *ctx, pcd_report_fn report, void *ud)
{
    mvm_check *k = ctx;
    if (!k->c) return;
    pcd_moarvm_col_set_report(k->c, report, ud);
    pcd_moarvm_col_finish(k->c);
}

static void check_fini(void *ctx)
{
    mvm_check *k = ctx;
    pcd_moarvm_col_free(k->c);
}

static const pcd_check_ops mvm_check_ops = {
    sizeof(mvm_check), check_init, check_record, check_finish, check_fini,
};

/* ---- convert --to summary (the format's own output) ------------------------------------------ */

typedef struct conv {
    pcd_alloc *al;
    pcd_sink *s;
    pcd_status st;               /* the first output error */
    uint64_t top;
    uint64_t snapshots;
} conv;

typedef struct top_row {
    uint64_t id, value;
    const char *name;            /* points into the names buffer */
} top_row;

static int cmp_top(const void *a, const void *b)
{
    const top_row *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void summary_table(conv *cv, const pcd_moarvm_col *c, const pcd_moarvm_stats *st, int kind, bool by_size,
                          const char *title)
{
    if (cv->st != PCD_OK) return;
    size_t len = st->len[kind];
    const pcd_moarvm_stat *rows = st->by_kind[kind];
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (rows[i].count) n++;
    size_t rows_n = n ? n : 1;
    top_row *t = pcd_alloc_get(cv->al, rows_n * sizeof *t);
    char *names = pcd_alloc_get(cv->al, rows_n * 256);
    if (!t || !names) {
        if (t) pcd_alloc_free(cv->al, t, rows_n * sizeof *t);
        if (names) pcd_alloc_free(cv->al, names, rows_n * 256);
        cv->st = PCD_E_NOMEM;
        return;
    }
    n = 0;
    for (size_t i = 0; i < len; i++) {
        if (!rows[i].count) continue;
        char *nm = names + n * 256;
        if (kind == PCD_MOARVM_K_FRAME) pcd_moarvm_col_frame_name(c, i, nm, 256);
        else pcd_moarvm_col_type_name(c, i, nm, 256);
        t[n] = (top_row){ i, by_size ? rows[i].size : rows[i].count, nm };
        n++;
    }
    qsort(t, n, sizeof *t, cmp_top);
    size_t show = n < cv->top ? n : (size_t)cv->top;
    size_t w = 4;
    for (size_t i = 0; i < show; i++)
        if (strlen(t[i].name) > w) w = strlen(t[i].name);
    pcd_status st2 = putf(cv->s, "\n  %s\n  %-*s  %s\n", title, (int)w, "Name", by_size ? "Total bytes" : "Count");
    for (size_t i = 0; i < show && st2 == PCD_OK; i++)
        st2 = putf(cv->s, "  %-*s  %" PRIu64 "\n", (int)w, t[i].name, t[i].value);
    if (st2 != PCD_OK) cv->st = st2;
    pcd_alloc_free(cv->al, t, rows_n * sizeof *t);
    pcd_alloc_free(cv->al, names, rows_n * 256);
}

static void summary_snapshot(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s,
                             const pcd_moarvm_stats *st, const pcd_moarvm_graph *g)
{
    (void)g;
    conv *cv = ud;
    cv->snapshots++;
    if (cv->st != PCD_OK || !st) return;
    pcd_status r = putf(cv->s,
                        "%sSnapshot %" PRIu64 ": gc_seq_num %" PRIu64 ", snap_time %" PRIu64 " us\n"
                        "  heap size %" PRIu64 " bytes, %" PRIu64 " collectables, %" PRIu64 " references\n"
                        "  %" PRIu64 " objects, %" PRIu64 " type objects, %" PRIu64 " STables, %" PRIu64 " frames\n",
                        cv->snapshots > 1 ? "\n" : "", s->index, s->meta[PCD_MOARVM_M_GC_SEQ_NUM],
                        s->meta[PCD_MOARVM_M_SNAP_TIME], s->heap_size, s->n[PCD_MOARVM_COLKIND],
                        s->n[PCD_MOARVM_REFDESCR], s->kinds[1], s->kinds[2], s->kinds[3], s->kinds[4]);
    if (r != PCD_OK) {
        cv->st = r;
        return;
    }
    char title[64];
    static const struct { int kind; bool size; const char *what; } tables[] = {
        { PCD_MOARVM_K_OBJECT, false, "objects by count" }, { PCD_MOARVM_K_OBJECT, true, "objects by size" },
        { PCD_MOARVM_K_STABLE, false, "STables by count" }, { PCD_MOARVM_K_STABLE, true, "STables by size" },
        { PCD_MOARVM_K_TYPEOBJ, false, "type objects by count" }, { PCD_MOARVM_K_FRAME, false, "frames by count" },
        { PCD_MOARVM_K_FRAME, true, "frames by size" },
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(title, sizeof title, "Top %" PRIu64 " %s", cv->top, tables[i].what);
        summary_table(cv, c, st, tables[i].kind, tables[i].size, title);
    }
}

typedef struct summary {
    conv cv;
    pcd_job *j;
    pcd_moarvm_col *c;           /* the collector the records go to */
} summary;

static pcd_status summary_begin(void *ctx, pcd_job *j, pcd_sink *out, pcd_reader **from)
{
    (void)from;
    summary *m = ctx;
    m->j = j;
    m->cv = (conv){ j->al, out, PCD_OK, 10, 0 };
    if (j->metric) {
        char *end;
        unsigned long long v = strtoull(j->metric, &end, 10);
        if (*end || v == 0 || v > 1000000)
            return pcd_job_fail(j, PCD_E_ARG,
                                "--metric for --to summary is how many rows each table shows (1..1000000)");
        m->cv.top = v;
    }
    pcd_moarvm_opts o = { true, false, j->report, j->report_ud, summary_snapshot, &m->cv };
    m->c = pcd_moarvm_col_new(j->al, &o);
    if (!m->c) return pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    return PCD_OK;
}

static pcd_status summary_record(void *ctx, const pcd_record *rec)
{
    summary *m = ctx;
    pcd_moarvm_col_record(m->c, rec);
    return PCD_OK;
}

static pcd_status summary_end(void *ctx, pcd_status st)
{
    summary *m = ctx;
    pcd_job *j = m->j;
    conv *cv = &m->cv;
    pcd_moarvm_col *c = m->c;
    if (!c) return st; /* begin failed before anything was taken */
    if (st == PCD_OK) pcd_moarvm_col_after(c, j->r);
    if (st == PCD_OK && cv->st == PCD_OK && pcd_moarvm_col_oom(c)) cv->st = PCD_E_NOMEM;
    pcd_moarvm_col_free(c);
    if (st != PCD_OK) return st;
    /* every complete snapshot is summed, sound or not: none is nothing to show */
    if (cv->st == PCD_OK && cv->snapshots == 0) return pcd_moarvm_no_snapshot(j, 0);
    if (cv->st == PCD_E_NOMEM)
        return pcd_job_fail(j, cv->st, "out of memory for the summary's tables (raise --max-memory)");
    if (cv->st != PCD_OK) return pcd_job_fail(j, cv->st, "cannot write the output: %s", pcd_status_name(cv->st));
    return PCD_OK;
}

/* ---- registration ------------------------------------------------------------------------------ */

extern const pcd_model_importer pcd_moarvm_model;

static const pcd_format_output mvm_own[] = {
    { "summary", "per snapshot: heap totals and the top types and frames by count and by size "
                 "(--metric N: rows per table, default 10)", sizeof(summary), summary_begin, summary_record, summary_end },
};

const pcd_ext pcd_moarvm_ext = {"moarvm", &mvm_info_ops, &mvm_check_ops, NULL, 0, &pcd_moarvm_model, mvm_own, 1};
