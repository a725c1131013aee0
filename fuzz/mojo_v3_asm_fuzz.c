/* mojo_v3_asm_fuzz.c: hand-written libFuzzer harness for what sits above MOJO's bytes:
 * the sample assembler, the reference checks, the info summary, the three converters
 * (austin, collapsed, speedscope) and the austin-text importer. Also builds as a replay
 * program. The input is a MOJO file; one that does not start with "MOJ" gets a header
 * whose version (1, 2, 3) its first byte picks. Invariants:
 *  1. nothing crashes, leaks (ASan) or exits with anything but 0 or 1 under the memory cap;
 *  2. speedscope output is JSON with the file format's required members;
 *  3. the checks find undefined references exactly when the converters say they rendered some;
 *  4. what convert --to austin writes imports (encode --from austin) into MOJO 3 that
 *     decodes cleanly, and austin -> MOJO -> austin is stable after one round;
 *  5. convert --to mojo writes MOJO 3 that converts cleanly, whose Austin text is the input's
 *     (MOJO 3 input), and convert --to tachyon a Tachyon file that reads to its end. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lines.h"
#include "fuzzlib.h"
#include "formats/mojo/asm.h"
#include "mojo_v3.h"
#include "cli/job.h"
#include "pipeline/pipeline.h"

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "mojo assembler invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#define MEM_CAP ((size_t)64 << 20)

typedef struct mbuf {
    uint8_t *p;
    size_t len, cap;
} mbuf;

static pcd_status mbuf_write(void *ud, const uint8_t *p, size_t n);

/* Bytes written already, changed (the Tachyon output's header totals). */
static pcd_status mbuf_patch(void *ud, uint64_t at, const uint8_t *p, size_t n)
{
    mbuf *m = ud;
    if (at > m->len || n > m->len - at) return PCD_E_IO;
    memcpy(m->p + at, p, n);
    return PCD_OK;
}

static pcd_status mbuf_write(void *ud, const uint8_t *p, size_t n)
{
    mbuf *m = ud;
    if (m->len + n > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4096;
        while (nc < m->len + n) nc *= 2;
        uint8_t *q = realloc(m->p, nc);
        if (!q) return PCD_E_NOMEM;
        m->p = q;
        m->cap = nc;
    }
    if (n) memcpy(m->p + m->len, p, n);
    m->len += n;
    return PCD_OK;
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

static const pcd_format *mojo_version(const char *v) { return pcd_format_find("mojo", v); }

/* Runs converter `to` over data; returns the exit code, the output in *out. */
static int convert(const pcd_format *f, const uint8_t *data, size_t size, const char *to, const char *metric,
                   bool all, mbuf *out, uint64_t *warnings)
{
    CHECK(pcd_can_convert(pcd_ext_find("mojo"), to), "no converter %s", to);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
    uint8_t sbuf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    pcd_sink_init(&s, sbuf, sizeof sbuf, mbuf_write, mbuf_patch, out, &x);
    /* warnings about undefined references go to a memory stream we can read */
    char *errtext = NULL;
    size_t errlen = 0;
    FILE *err = open_memstream(&errtext, &errlen);
    CHECK(err != NULL, "open_memstream");
    pcd_job j;
    cli_job_init(&j, f, &r, "fuzz.mojo", &al, err);
    j.all = all;
    j.metric = metric;
    pcd_status st = pcd_convert(&j, to, &s);
    int rc = cli_job_exit(&j, st, err);
    fclose(err);
    if (warnings) *warnings = errtext && strstr(errtext, "undefined") ? 1 : 0;
    free(errtext);
    if (rc != 2) CHECK(pcd_sink_flush(&s) == PCD_OK, "flush");
    if (st == PCD_E_EMPTY) out->len = 0; /* nothing to show: the CLI writes nothing */
    pcd_reader_close(&r);
    CHECK(al.in_use == 0, "%s leaked %zu bytes", to, al.in_use);
    CHECK(rc == 0 || rc == 1 || (rc == 2 && al.peak > MEM_CAP / 2), "%s exited %d", to, rc);
    return rc;
}

typedef struct checks {
    uint64_t errors, warnings;
} checks;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    checks *c = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    CHECK(msg[0] != 0, "empty report");
    if (is_error) c->errors++;
    else c->warnings++;
}

typedef struct feed {
    const pcd_check_ops *ops;
    void *ctx;
    checks *c;
} feed;

static pcd_status feed_one(void *ud, const pcd_record *rec)
{
    feed *f = ud;
    f->ops->record(f->ctx, rec, on_report, f->c);
    return PCD_OK;
}

/* validate's reference checks and info's summary over the whole input. */
static void check_and_info(const pcd_format *f, const uint8_t *data, size_t size, checks *c)
{
    const pcd_ext *ext = pcd_ext_find("mojo");
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    void *cctx = calloc(1, ext->check->ctx_size);
    void *ictx = calloc(1, ext->info->ctx_size);
    CHECK(cctx && ictx, "oom");
    ext->check->init(cctx, &al);
    ext->info->init(ictx, &al);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
    memset(c, 0, sizeof *c);
    feed fd = { ext->check, cctx, c };
    pcd_record rec;
    pcd_status st;
    for (;;) {
        uint64_t k;
        st = pcd_reader_decode_run(&r, 5, &k, feed_one, &fd);
        if (st == PCD_OK) st = pcd_reader_next(&r, &rec);
        if (st != PCD_OK) break;
        ext->check->record(cctx, &rec, on_report, c);
        ext->info->record(ictx, &rec);
    }
    if (st == PCD_END) ext->check->finish(cctx, on_report, c);
    ext->info->text(ictx, devnull());
    uint8_t jb[1 << 12];
    mbuf jm = { 0 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, jb, sizeof jb, mbuf_write, NULL, &jm, &x);
    CHECK(pcd_json_raw(&s, "{") == PCD_OK && ext->info->json(ictx, &s) == PCD_OK && pcd_json_raw(&s, "}") == PCD_OK &&
              pcd_sink_flush(&s) == PCD_OK,
          "info json");
    json_error_t je;
    json_t *j = json_loadb((const char *)jm.p, jm.len, 0, &je);
    CHECK(j != NULL, "info --json summary is not JSON: %s", je.text);
    json_decref(j);
    free(jm.p);
    ext->check->fini(cctx);
    ext->info->fini(ictx);
    free(cctx);
    free(ictx);
    pcd_reader_close(&r);
    CHECK(al.in_use == 0, "checks leaked %zu bytes", al.in_use);
}

/* encode --from austin over text; returns the exit code and the MOJO in *out. */
static int import_text(const mbuf *text, mbuf *out)
{
    const pcd_ext *ext = pcd_ext_find("mojo");
    pcd_memread in = { (const uint8_t *)text->p, text->len, 0 };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    uint8_t sbuf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    pcd_sink_init(&s, sbuf, sizeof sbuf, mbuf_write, NULL, out, &x);
    pcd_import_args a;
    memset(&a, 0, sizeof a);
    a.read = pcd_memread_read;
    a.read_ud = &in;
    a.load = pcd_memread_load;
    a.input_name = "fuzz.austin";
    a.out = &s;
    a.al = &al;
    pcd_status st = pcd_import(&ext->import[0], &a);
    int rc = st == PCD_OK ? 0 : st == PCD_E_INVALID ? 1 : 2;
    if (rc == 0) CHECK(pcd_sink_flush(&s) == PCD_OK, "flush");
    CHECK(al.in_use == 0, "the importer leaked %zu bytes", al.in_use);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    uint8_t *buf = malloc(size + 4);
    if (!buf) return 0;
    size_t n;
    const pcd_format *f = NULL;
    uint8_t flags = data[0];
    if (size >= 4 && memcmp(data, "MOJ", 3) == 0) {
        memcpy(buf, data, size);
        n = size;
        const char *v = data[3] == 1 ? "1" : data[3] == 2 ? "2" : data[3] == 3 ? "3" : NULL;
        if (!v) {
            free(buf);
            return 0;
        }
        f = mojo_version(v);
    } else {
        static const char *const vs[3] = { "1", "2", "3" };
        int v = flags % 3;
        memcpy(buf, "MOJ", 3);
        buf[3] = (uint8_t)(v + 1);
        memcpy(buf + 4, data + 1, size - 1);
        n = size + 3;
        f = mojo_version(vs[v]);
    }
    CHECK(f != NULL, "no MOJO format");
    bool all = (flags >> 2) & 1;
    static const char *const metrics[4] = { NULL, "time", "memory", "samples" };

    checks c;
    check_and_info(f, buf, n, &c);

    mbuf text, col, ss;
    uint64_t w_text = 0, w_col = 0;
    int rc = convert(f, buf, n, "austin", NULL, all, &text, &w_text);
    convert(f, buf, n, "collapsed", metrics[(flags >> 3) & 3], all, &col, &w_col);
    int rs = convert(f, buf, n, "speedscope", NULL, all, &ss, NULL);
    /* (exit 1 without output: nothing to show, no samples with values before any damage) */
    if (rs == 0 || (rs == 1 && ss.len)) {
        json_error_t je;
        json_t *j = json_loadb((const char *)ss.p, ss.len, 0, &je);
        CHECK(j != NULL, "speedscope output is not JSON: %s", je.text);
        CHECK(json_is_object(json_object_get(j, "shared")) &&
                  json_is_array(json_object_get(json_object_get(j, "shared"), "frames")) &&
                  json_is_array(json_object_get(j, "profiles")),
              "speedscope output lacks shared.frames or profiles");
        size_t nf = json_array_size(json_object_get(json_object_get(j, "shared"), "frames"));
        json_t *p;
        size_t i;
        json_array_foreach(json_object_get(j, "profiles"), i, p) {
            json_t *samples = json_object_get(p, "samples"), *weights = json_object_get(p, "weights");
            CHECK(json_array_size(samples) == json_array_size(weights), "samples and weights differ in length");
            json_t *smp;
            size_t k;
            json_array_foreach(samples, k, smp) {
                json_t *fi;
                size_t q;
                json_array_foreach(smp, q, fi) CHECK((size_t)json_integer_value(fi) < nf, "frame index out of range");
            }
        }
        json_decref(j);
    }
    /* the pictures: the page's data is JSON, the SVG ends */
    mbuf page, pic;
    if (convert(f, buf, n, "html", NULL, all, &page, NULL) != 2 && page.len) {
        const uint8_t *end = page.p + page.len;
        const uint8_t *open = memmem(page.p, page.len, "id=\"pcd-data\">", 14);
        CHECK(open != NULL, "the page has no data");
        open += 14;
        const uint8_t *close = memmem(open, (size_t)(end - open), "</script>", 9);
        CHECK(close != NULL, "the page's data is not closed");
        json_error_t je;
        json_t *d = json_loadb((const char *)open, (size_t)(close - open), 0, &je);
        CHECK(d != NULL && json_is_array(json_object_get(d, "threads")), "the page's data is not JSON: %s", je.text);
        json_decref(d);
    }
    if (convert(f, buf, n, "svg", NULL, all, &pic, NULL) != 2 && pic.len)
        CHECK(pic.len > 7 && memcmp(pic.p + pic.len - 7, "</svg>\n", 7) == 0, "the SVG is not closed");
    free(page.p);
    free(pic.p);
    /* MOJO 3 again: the same Austin text */
    mbuf again, back;
    int rm = convert(f, buf, n, "mojo", NULL, all, &again, NULL);
    if (rc == 0 && rm == 0) {
        const pcd_format *v3 = mojo_version("3");
        CHECK(convert(v3, again.p ? again.p : (const uint8_t *)"", again.len, "austin", NULL, false, &back, NULL) == 0,
              "the MOJO output does not convert cleanly");
        /* (MOJO 1 and 2 lines gain "0:" after ";T", which a metadata value may hold too) */
        if (f->version_num == 3)
            CHECK(text.len == back.len && (!text.len || memcmp(text.p, back.p, text.len) == 0),
                  "MOJO -> MOJO 3 -> austin differs from the input's austin text (%zu vs %zu bytes)", text.len, back.len);
        free(back.p);
    }
    free(again.p);
    /* Tachyon: a file that reads to its end */
    mbuf tach;
    if (convert(f, buf, n, "tachyon", NULL, all, &tach, NULL) != 2 && tach.len) {
        pcd_alloc al;
        pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
        pcd_reader r;
        pcd_reader_opts o = { &al, NULL, 0, false };
        CHECK(pcd_reader_open_buffer(&r, pcd_format_find("tachyon", "1"), tach.p, tach.len, &o) == PCD_OK, "open");
        pcd_record rec;
        pcd_status st;
        while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {}
        CHECK(st == PCD_END, "the Tachyon output does not read to its end: %s", pcd_status_name(st));
        pcd_reader_close(&r);
    }
    free(tach.p);
    /* the checks and the converters agree on undefined references (when both read to the end) */
    if (rc == 0)
        CHECK((c.errors > 0) == (w_text > 0) && (w_col > 0) == (w_text > 0),
              "checks (%llu errors) and convert (%s) disagree on undefined references",
              (unsigned long long)c.errors, w_text ? "some" : "none");

    /* austin text -> MOJO 3 -> austin text is stable after one round */
    if (rc == 0) {
        mbuf m2, t2, m3, t3;
        if (import_text(&text, &m2) == 0) {
            const pcd_format *v3 = mojo_version("3");
            int r2 = convert(v3, m2.p ? m2.p : (const uint8_t *)"", m2.len, "austin", NULL, false, &t2, NULL);
            CHECK(r2 == 0, "the importer wrote MOJO that does not convert cleanly");
            checks c2;
            check_and_info(v3, m2.p ? m2.p : (const uint8_t *)"", m2.len, &c2);
            CHECK(c2.errors == 0, "the importer wrote MOJO with undefined references");
            if (import_text(&t2, &m3) == 0) {
                int r3 = convert(v3, m3.p ? m3.p : (const uint8_t *)"", m3.len, "austin", NULL, false, &t3, NULL);
                CHECK(r3 == 0, "the second import does not convert cleanly");
                CHECK(t2.len == t3.len && (t2.len == 0 || memcmp(t2.p, t3.p, t2.len) == 0),
                      "austin -> MOJO -> austin is not stable (%zu vs %zu bytes)", t2.len, t3.len);
                free(t3.p);
            } else {
                CHECK(0, "the importer refused text the austin converter wrote from its own output");
            }
            free(m3.p);
            free(t2.p);
        }
        free(m2.p);
    }
    free(text.p);
    free(col.p);
    free(ss.p);
    free(buf);
    return 0;
}
