/* test_sweeps.c: hostile-input sweeps for every format this build knows, over every real
 * file of that format in the shared corpus (and tests/data): truncation, single bit flips,
 * byte insertion and deletion, and 1-, 2-, 4- and 8-byte windows set to 0, max and max-1
 * (which hits every length, count and offset field, wherever it is). Positions are
 * sampled with a fixed seed. For each mutated input:
 *   - the fuzz invariants hold (fuzz/fuzzlib.c: no internal error, whole-buffer, streaming
 *     and validate-only reads agree, records re-encode, recovery moves forward, no leak);
 *   - an error names an offset inside the input and a field path;
 *   - in formats read front to back, every record that ended before the damage is
 *     still decoded, unchanged (checked against the undamaged file).
 * A few mutated files also go through the CLI: exit 0 or 1, never a signal.
 * usage: test_sweeps [FORMAT]   (PCD_SWEEP_SCALE=n multiplies the number of mutations; 4 with
 *        PCD_TEST_LONG=1, make test-long)
 *        test_sweeps --save DIR N [FORMAT]: writes N mutated inputs of each kind of every file,
 *        FORMAT-VERSION--FILE--KIND-I.bin, and checks nothing (the Python module's tests read
 *        them: the same damage through the CLI and through profcodec.open) */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "fuzzlib.h"

#define MAX_RECS 200000

typedef struct recs {
    size_t n;
    uint64_t *off, *size;
    uint32_t *depth;
    pcd_status end;
    pcd_error err;
} recs;

static unsigned long g_files, g_mutations, g_cli;
static int g_failures;
static const char *g_save_dir;   /* --save: write the mutated inputs there, check nothing */
static unsigned g_save_per_kind;

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fail(const char *file, const char *what, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(const char *file, const char *what, size_t pos, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL %s (%s at %zu): ", file, what, pos);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    g_failures++;
}

static void decode(const pcd_format *f, const uint8_t *p, size_t n, recs *r)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)512 << 20);
    pcd_reader rd;
    pcd_reader_opts o = { &al, NULL, 0, false };
    r->n = 0;
    if (pcd_reader_open_buffer(&rd, f, p, n, &o) != PCD_OK) {
        r->end = PCD_E_NOMEM;
        return;
    }
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&rd, &rec)) == PCD_OK) {
        if (r->n < MAX_RECS) {
            r->off[r->n] = rec.decompressed ? UINT64_MAX : rec.offset;
            r->size[r->n] = rec.size;
            r->depth[r->n] = rec.depth;
        }
        r->n++;
    }
    r->end = st;
    r->err = rd.x.err;
    pcd_reader_close(&rd);
}

static recs *recs_new(void)
{
    recs *r = calloc(1, sizeof *r);
    r->off = calloc(MAX_RECS, sizeof *r->off);
    r->size = calloc(MAX_RECS, sizeof *r->size);
    r->depth = calloc(MAX_RECS, sizeof *r->depth);
    return r;
}

/* Everything that ended before `pos` in the clean read is there, unchanged. */
static void check_prefix(const char *file, const char *what, size_t pos, const recs *clean, const recs *got)
{
    size_t before = 0;
    while (before < clean->n && before < MAX_RECS && clean->off[before] != UINT64_MAX &&
           clean->off[before] + clean->size[before] <= pos)
        before++;
    if (got->n < before) {
        fail(file, what, pos, "only %zu of the %zu records before the damage were decoded", got->n, before);
        return;
    }
    for (size_t i = 0; i < before; i++) {
        if (got->off[i] != clean->off[i] || got->size[i] != clean->size[i] || got->depth[i] != clean->depth[i]) {
            fail(file, what, pos, "record %zu before the damage changed", i);
            return;
        }
    }
}

static void check_error(const char *file, const char *what, size_t pos, const recs *got, size_t n)
{
    if (got->end == PCD_END) return;
    const pcd_error *e = &got->err;
    if (e->status == PCD_E_NOMEM || e->status == PCD_E_IO) return;
    if (e->n_seg == 0 && !e->path_truncated)
        fail(file, what, pos, "an error without a field path: %s", pcd_status_name(e->status));
    if (!e->region && e->offset > n) fail(file, what, pos, "error offset %llu beyond the input (%zu)",
                                          (unsigned long long)e->offset, n);
}

static int cli_status(const char *cmd, const char *path)
{
    char line[4096];
    /* PCD_SWEEP_CLI: the CLI as make test's sanitize tree runs it (pcd-serve's client, tests/serve) */
    const char *exe = getenv("PCD_SWEEP_CLI");
    snprintf(line, sizeof line, "'%s' -q %s '%s' >/dev/null 2>&1", exe && *exe ? exe : PCD_CLI, cmd, path);
    int st = system(line);
    if (st == -1) return -1;
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

static void mutate_and_check(const pcd_format *f, const char *file, const uint8_t *p, size_t n,
                             const recs *clean, recs *got, unsigned per_kind, bool cli)
{
    bool front_to_back = (f->flags & PCD_FMT_STREAMABLE) != 0;
    uint8_t *q = malloc(n + 16);
    static const char *names[] = { "truncate", "bit flip", "insert", "delete", "field = 0", "field = max",
                                   "field = max-1" };
    unsigned cli_left = cli ? 1 : 0;
    for (int kind = 0; kind < 7; kind++) {
        for (unsigned i = 0; i < per_kind; i++) {
            if (n == 0) break;
            size_t pos = (size_t)(rnd() % n), m = n;
            memcpy(q, p, n);
            switch (kind) {
            case 0: m = pos; break;
            case 1: q[pos] ^= (uint8_t)(1u << (rnd() % 8)); break;
            case 2:
                memmove(q + pos + 1, q + pos, n - pos);
                q[pos] = (uint8_t)rnd();
                m = n + 1;
                break;
            case 3:
                memmove(q + pos, q + pos + 1, n - pos - 1);
                m = n - 1;
                break;
            default: {
                static const size_t widths[] = { 1, 2, 4, 8 };
                size_t w = widths[rnd() % 4];
                if (pos + w > n) pos = n - (n < w ? n : w);
                for (size_t k = 0; k < w && pos + k < n; k++) {
                    uint8_t b = kind == 4 ? 0x00 : 0xFF;
                    /* max-1 in either byte order: the low byte is FE at one end */
                    if (kind == 6 && ((k == 0 && (rnd() & 1)) || k == w - 1)) b = 0xFE;
                    q[pos + k] = b;
                }
            }
            }
            g_mutations++;
            if (g_save_dir) {
                const char *base = strrchr(file, '/');
                char out[8448];
                snprintf(out, sizeof out, "%s/%s-%s--%s--%d-%u.bin", g_save_dir, f->name, f->version,
                         base ? base + 1 : file, kind, i);
                FILE *o = fopen(out, "wb");
                if (o) {
                    fwrite(q, 1, m, o);
                    fclose(o);
                }
                continue;
            }
            if (getenv("PCD_SWEEP_VERBOSE")) {
                fprintf(stderr, "%s %s at %zu\n", file, names[kind], pos);
                FILE *o = fopen("/tmp/pcd-sweep-last.bin", "wb");
                if (o) {
                    fwrite(q, 1, m, o);
                    fclose(o);
                }
            }
            pcd_fuzz_one(f, q, m);
            decode(f, q, m, got);
            check_error(file, names[kind], pos, got, m);
            if (front_to_back) check_prefix(file, names[kind], pos, clean, got);
            if (cli_left && (i % (per_kind / 3 + 1)) == 0) {
                cli_left--;
                char tmp[256];
                snprintf(tmp, sizeof tmp, "%s/sweep-%s.bin", PCD_BINDIR, f->name);
                FILE *o = fopen(tmp, "wb");
                if (o) {
                    fwrite(q, 1, m, o);
                    fclose(o);
                    char spec[96];
                    snprintf(spec, sizeof spec, "--format %s:%s validate", f->name, f->version);
                    int a = cli_status(spec, tmp);
                    snprintf(spec, sizeof spec, "--format %s:%s dump", f->name, f->version);
                    int b = cli_status(spec, tmp);
                    g_cli += 2;
                    if (a < 0 || a > 1 || b < 0 || b > 1)
                        fail(file, names[kind], pos, "the CLI exited %d (validate) and %d (dump)", a, b);
                }
            }
        }
    }
    free(q);
}

static uint8_t *load(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    if (len > 0 && fread(b, 1, (size_t)len, fp) != (size_t)len) {
        free(b);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    *n = (size_t)len;
    if (len > 2 && b[0] == 0x1f && b[1] == 0x8b) {
        /* gzip (pprof, Mono's zip option): the CLI reads through it; the sweep mutates the
         * format's own bytes */
        size_t cap = (size_t)64 << 20, got = 0;
        uint8_t *d = malloc(cap);
        z_stream z;
        memset(&z, 0, sizeof z);
        if (d && inflateInit2(&z, 16 + 15) == Z_OK) {
            z.next_in = b;
            z.avail_in = (uInt)len;
            z.next_out = d;
            z.avail_out = (uInt)cap;
            int zr = inflate(&z, Z_FINISH);
            got = z.total_out;
            inflateEnd(&z);
            if (zr == Z_STREAM_END) {
                free(b);
                *n = got;
                return d;
            }
        }
        free(d);
    }
    return b;
}

/* Is this file one of f's (by its magic and its root)? */
static bool belongs(const pcd_format *f, const uint8_t *p, size_t n)
{
    if (f->detect(p, n) != 2) return false;
    uint8_t *root = calloc(1, f->root_size);
    uint8_t block[4096];
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    x.version = f->version_num;
    pcd_cursor c = pcd_cursor_make(&x, p, n, 0, true);
    pcd_status st = f->root_decode(&c, root);
    free(root);
    return st == PCD_OK;
}

/* Mutations per kind for one file. The budget is bytes of mutated input per format (each goes
 * through about six reads in pcd_fuzz_one), spread over the format's files: small files get
 * many mutations, big ones a few. Sanitizer builds get 4 MB, and make test (scale 1) half of it,
 * sized for CI (the whole 4 MB until i26m: 81.9 s of CPU under ASan): every file, every kind of
 * mutation, at least two of each; PCD_TEST_LONG=1 (make test-long) sweeps twelve times the 4 MB
 * there (four times elsewhere); PCD_SWEEP_SCALE=n multiplies it for a deeper run. */
#if defined(__SANITIZE_ADDRESS__)
#define PCD_SWEEP_BYTES (4u << 20)
#define PCD_SWEEP_LONG 12
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PCD_SWEEP_BYTES (4u << 20)
#define PCD_SWEEP_LONG 12
#endif
#endif
#ifndef PCD_SWEEP_BYTES
#define PCD_SWEEP_BYTES (64u << 20)
#define PCD_SWEEP_LONG 4
#endif

/* A file over PCD_SWEEP_BIG bytes reaches the floor of two mutations of each kind at any budget,
 * and those few files were most of the sweep's bytes (MoarVM's 2.4 MB and 1 MB heaps, MOJO's 1 MB
 * column file: each mutated copy is read about six times; 256 KB until i26m, now 128 KB: MOJO's
 * 140-200 KB files too): at scale 1 (make test) they get one
 * mutation of each kind, still every kind on every file; make test-long and PCD_SWEEP_SCALE keep
 * two, times the scale. */
#define PCD_SWEEP_BIG (128u << 10)
static size_t g_format_files;
static unsigned budget(size_t n, unsigned scale)
{
    size_t files = g_format_files ? g_format_files : 1;
    size_t per_file = PCD_SWEEP_BYTES / files / (scale == 1 ? 2 : 1);
    size_t per_kind = per_file / 7 / (n + 1024);
    if (per_kind > 200) per_kind = 200;
    if (per_kind < 2) per_kind = scale == 1 && n > PCD_SWEEP_BIG ? 1 : 2;
    return (unsigned)per_kind * scale;
}

static bool g_counting;

/* Sized for CI (scale 1, make test): a file over PCD_SWEEP_BIG whose record kinds (a union
 * record's case, or its type) all appear in the smaller files of its format version is swept in
 * make test-long only. Those few files were most of the sweep's CPU (under ASan: MOJO's
 * test.mojo 4.9 s, wall_recursive.mojo 1.6, MoarVM's nqp-three-snapshots 2.5 beside nqp-killed,
 * pprof's 290 KB dotnet file 1.9, heph's stress.bin.log 1.2) and brought no kind of record the
 * smaller ones do not; a big file with a kind of its own (MOJO 2's column.mojo, MoarVM 2's only
 * heap, Mono's alloc.mlpd) is still swept. Every format version, every kind of mutation and every
 * kind of record of the corpus is still swept in make test. */
#define MAX_KINDS 128
typedef struct file_kinds {
    const pcd_format *f;
    size_t size;
    char path[4096];
    size_t nk;
    const char *kinds[MAX_KINDS];
} file_kinds;
static file_kinds g_kinds[512];
static size_t g_nkinds;
static unsigned long g_long_only;

static bool has_kind(const file_kinds *k, const char *name)
{
    for (size_t i = 0; i < k->nk; i++)
        if (strcmp(k->kinds[i], name) == 0) return true;
    return false;
}

static void note_kinds(const pcd_format *f, const char *path, const uint8_t *p, size_t n)
{
    if (g_nkinds == sizeof g_kinds / sizeof g_kinds[0]) return;
    file_kinds *k = &g_kinds[g_nkinds++];
    k->f = f;
    k->size = n;
    snprintf(k->path, sizeof k->path, "%s", path);
    k->nk = 0;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)512 << 20);
    pcd_reader rd;
    pcd_reader_opts o = { &al, NULL, 0, false };
    if (pcd_reader_open_buffer(&rd, f, p, n, &o) != PCD_OK) return;
    pcd_record rec;
    while (pcd_reader_next(&rd, &rec) == PCD_OK) {
        const char *name = pcd_record_kind(&rec);
        if (k->nk < MAX_KINDS && !has_kind(k, name)) k->kinds[k->nk++] = name;
    }
    pcd_reader_close(&rd);
}

/* Has a smaller file of f (noted in the counting pass) every kind of record the file at path has? */
static bool kinds_covered(const pcd_format *f, const char *path, size_t n, size_t *nk)
{
    const file_kinds *me = NULL;
    for (size_t i = 0; i < g_nkinds && !me; i++)
        if (g_kinds[i].f == f && strcmp(g_kinds[i].path, path) == 0) me = &g_kinds[i];
    if (!me || me->nk == 0 || me->nk == MAX_KINDS) return false;
    *nk = me->nk;
    for (size_t j = 0; j < me->nk; j++) {
        bool found = false;
        for (size_t i = 0; i < g_nkinds && !found; i++) {
            const file_kinds *o = &g_kinds[i];
            bool smaller = o->size < n || (o->size == n && strcmp(o->path, path) < 0);
            found = o != me && o->f == f && smaller && has_kind(o, me->kinds[j]);
        }
        if (!found) return false;
    }
    return true;
}

static void sweep_dir(const pcd_format *f, const char *dir, recs *clean, recs *got)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char *names[512];
    size_t nn = 0;
    while ((e = readdir(d)) && nn < 512) {
        const char *s = e->d_name;
        size_t l = strlen(s);
        if (s[0] == '.' || (l > 4 && (!strcmp(s + l - 4, ".txt") || !strcmp(s + l - 4, ".tsv"))) ||
            (l > 5 && (!strcmp(s + l - 5, ".json") || !strcmp(s + l - 6, ".jsonl"))) ||
            (l > 3 && !strcmp(s + l - 3, ".md")) || (l > 3 && !strcmp(s + l - 3, ".py")))
            continue;
        names[nn++] = strdup(s);
    }
    closedir(d);
    /* a stable order */
    for (size_t i = 0; i < nn; i++)
        for (size_t j = i + 1; j < nn; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    /* make test-long (PCD_TEST_LONG=1) sweeps PCD_SWEEP_LONG times the positions */
    const char *scale_env = getenv("PCD_SWEEP_SCALE"), *long_env = getenv("PCD_TEST_LONG");
    unsigned scale = scale_env ? (unsigned)atoi(scale_env) : long_env && strcmp(long_env, "0") != 0 ? PCD_SWEEP_LONG : 1;
    if (scale < 1) scale = 1;
    for (size_t i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
            free(names[i]);
            continue;
        }
        size_t n;
        uint8_t *p = load(path, &n);
        if (p && belongs(f, p, n) && g_counting) {
            g_format_files++;
            if (scale == 1 && !g_save_dir) note_kinds(f, path, p, n);
        } else if (p && belongs(f, p, n)) {
            size_t nk = 0;
            if (scale == 1 && !g_save_dir && n > PCD_SWEEP_BIG && kinds_covered(f, path, n, &nk)) {
                printf("sweep %s %s: %zu bytes, its %zu kinds of record all in smaller files of %s %s: swept in make "
                       "test-long only\n", f->name, names[i], n, nk, f->name, f->version);
                g_long_only++;
                free(p);
                free(names[i]);
                continue;
            }
            if (!g_save_dir) decode(f, p, n, clean);
            unsigned per_kind = g_save_dir ? g_save_per_kind : budget(n, scale);
            g_files++;
            if (!g_save_dir)
                printf("sweep %s %s: %zu bytes, %zu records clean (%s), %u mutations of each kind\n", f->name,
                       names[i], n, clean->n, pcd_status_name(clean->end), per_kind);
            fflush(stdout);
            clock_t c0 = clock();
            mutate_and_check(f, path, p, n, clean, got, per_kind, true);
            if (!g_save_dir)
                printf("sweep %s %s: %.2f s of CPU in this process\n", f->name, names[i],
                       (double)(clock() - c0) / CLOCKS_PER_SEC);
        }
        free(p);
        free(names[i]);
    }
}

/* Every file under the format's corpus folder, one level of subfolders too. */
static void sweep_format(const pcd_format *f, recs *clean, recs *got)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", PCD_CORPUS, f->name);
    sweep_dir(f, dir, clean, got);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[4352];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) sweep_dir(f, sub, clean, got);
    }
    closedir(d);
}

static void recs_free(recs *r)
{
    free(r->off);
    free(r->size);
    free(r->depth);
    free(r);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--save") == 0) {
        g_save_dir = argv[2];
        g_save_per_kind = (unsigned)atoi(argv[3]);
        argv += 3;
        argc -= 3;
    }
    const char *only = argc > 1 ? argv[1] : NULL;
    recs *clean = recs_new(), *got = recs_new();
    for (size_t i = 0; i < pcd_n_formats; i++) {
        const pcd_format *f = pcd_formats[i];
        if (only && strcmp(only, f->name) != 0) continue;
        unsigned long before = g_files;
        g_format_files = 0;
        for (int pass = 0; pass < 2; pass++) {
            g_counting = pass == 0;
            sweep_format(f, clean, got);
        }
        if (g_files == before) {
            /* no shared corpus here: the bundled copies */
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s", PCD_TESTDATA, f->name);
            g_format_files = 0;
            g_counting = true;
            sweep_dir(f, dir, clean, got);
            g_counting = false;
            sweep_dir(f, dir, clean, got);
        }
        if (g_files == before) printf("sweep %s %s: no files found\n", f->name, f->version);
    }
    printf("swept %lu files, %lu mutated inputs, %lu CLI runs: %d failure(s)%s\n", g_files, g_mutations, g_cli,
           g_failures, g_long_only ? " (sized for CI: the files swept in make test-long only are named above)" : "");
    recs_free(clean);
    recs_free(got);
    return g_failures ? 1 : 0;
}
