/* test_mutator.c: the structure-aware mutators (src/mutator and the generated <fmt>_v<N>_mut.c): each one round-trips
 * unmutated inputs byte for byte, every mutation kind is exercised and keeps the file decodable
 * when it says it does, layer-breaking kinds break what they name, outputs are deterministic,
 * shrinking steps shrink, crossover splices, the seed-less generator writes valid files, and every
 * byte comes from the caller's allocator. Seeds: tests/data (small files of every format). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cmocka.h>

#include "pcd_mut.h"
#include "pcd_mut_int.h"   /* (test_restore turns the kept record bytes off) */
#include "pprof_v1.h"

#define MAX_SEEDS 64
#define MAX_SEED_BYTES ((size_t)160 << 10)

typedef struct seed {
    uint8_t *p;
    size_t n;
    int decodes;   /* does it decode whole: -1 not yet known (inputs() asks once a seed) */
    char path[512];
} seed;

typedef struct seeds {
    seed s[MAX_SEEDS];
    size_t n;
} seeds;

static seeds by_mutator[32];
static uint8_t out[(size_t)4 << 20], out2[(size_t)4 << 20];
static uint8_t inner_a[(size_t)16 << 20], inner_b[(size_t)16 << 20];

static void collect(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            collect(path);
            continue;
        }
        if ((size_t)st.st_size > MAX_SEED_BYTES || st.st_size < 4) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *p = malloc((size_t)st.st_size);
        size_t n = p ? fread(p, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
        const pcd_mutator *mu = n ? pcd_mutator_detect(p, n) : NULL;
        size_t k = 0;
        while (mu && k < pcd_n_mutators && pcd_mutators[k] != mu) k++;
        if (!mu || by_mutator[k].n == MAX_SEEDS) {
            free(p);
            continue;
        }
        seed *s = &by_mutator[k].s[by_mutator[k].n++];
        s->p = p;
        s->n = n;
        s->decodes = -1;
        snprintf(s->path, sizeof s->path, "%s", path);
    }
    closedir(d);
}

static bool is_gz(const uint8_t *p, size_t n) { return n > 2 && p[0] == 0x1f && p[1] == 0x8b; }

static size_t gunzip(const uint8_t *p, size_t n, uint8_t *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    inflateInit2(&z, 31);
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    int r = inflate(&z, Z_FINISH);
    size_t len = cap - z.avail_out;
    inflateEnd(&z);
    return r == Z_STREAM_END ? len : SIZE_MAX;
}

/* Our reader opened on a file's bytes (a gzip'd one unpacked into buf first); al set up here. */
static bool open_reader(pcd_reader *r, pcd_alloc *al, const pcd_format *f, const uint8_t *p, size_t n, uint8_t *buf,
                        size_t cap)
{
    if (is_gz(p, n)) {
        n = gunzip(p, n, buf, cap);
        if (n == SIZE_MAX) return false;
        p = buf;
    }
    pcd_alloc_init(al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader_opts ro = { al, NULL, 0, false, false };
    return pcd_reader_open_buffer(r, f, p, n, &ro) == PCD_OK;
}

/* Our decoder reads the whole file (through gzip) without an error. */
static bool decodes(const pcd_format *f, const uint8_t *p, size_t n)
{
    pcd_alloc al;
    pcd_reader r;
    if (!open_reader(&r, &al, f, p, n, inner_a, sizeof inner_a)) return false;
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {}
    pcd_reader_close(&r);
    return st == PCD_END;
}

/* A counting allocator: everything the mutators take comes back. */
static pcd_alloc counting;

static int setup(void **state)
{
    (void)state;
    collect(PCD_TESTDATA);
    pcd_alloc_init(&counting, pcd_alloc_libc, NULL, (size_t)2 << 30);
    return 0;
}

static pcd_mut *session(const pcd_mutator *mu, bool evil, uint64_t seed)
{
    pcd_mut_opts o;
    pcd_mut_opts_default(&o);
    o.evil = evil;
    o.seed = seed;
    o.max_output = (size_t)4 << 20;
    pcd_mut *m = NULL;
    assert_int_equal(pcd_mut_new(&m, mu, &o, &counting), PCD_OK);
    return m;
}

/* The mutator of a format (and version: NULL for any), and its index in pcd_mutators. */
static const pcd_mutator *mutator_of(const char *format, const char *version, size_t *k)
{
    const pcd_mutator *mu = pcd_mutator_find(format, version);
    assert_non_null(mu);
    for (*k = 0; pcd_mutators[*k] != mu; ++*k) {}
    return mu;
}

/* The inputs of a mutator: its seeds that decode whole, or generated files when it has none. */
static size_t inputs(const pcd_mutator *mu, size_t k, seed *list, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < by_mutator[k].n && n < cap; i++) {
        seed *sd = &by_mutator[k].s[i];
        if (sd->decodes < 0) sd->decodes = decodes(pcd_mutator_format(mu), sd->p, sd->n);
        if (sd->decodes) list[n++] = *sd;
    }
    if (n == 0) {
        pcd_mut *m = session(mu, false, 99);
        for (int g = 0; g < 3; g++) {
            size_t len;
            assert_int_equal(pcd_mut_generate(m), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            /* kept with the seeds (made once, freed never: reachable to the end) */
            seed *sd = &by_mutator[k].s[by_mutator[k].n++];
            sd->p = malloc(len);
            memcpy(sd->p, out, len);
            sd->n = len;
            sd->decodes = 1;
            snprintf(sd->path, sizeof sd->path, "(generated %s %d)", pcd_mutator_name(mu), g);
            list[n++] = *sd;
        }
        pcd_mut_free(m);
    }
    return n;
}

static void test_roundtrip(void **state)
{
    (void)state;
    size_t taken = counting.in_use;
    size_t checked = 0;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        pcd_mut *m = session(mu, true, 1);
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, MAX_SEEDS);
        for (size_t i = 0; i < n; i++) {
            size_t len;
            assert_int_equal(pcd_mut_load(m, list[i].p, list[i].n), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            if (is_gz(list[i].p, list[i].n)) {
                /* the layer the schema describes, byte for byte; gzip made again by zlib */
                size_t a = gunzip(list[i].p, list[i].n, inner_a, sizeof inner_a);
                size_t b = gunzip(out, len, inner_b, sizeof inner_b);
                if (a != b || memcmp(inner_a, inner_b, a) != 0) fail_msg("%s: %s changed inside gzip", pcd_mutator_name(mu), list[i].path);
            } else if (len != list[i].n || memcmp(out, list[i].p, len) != 0) {
                fail_msg("%s: %s does not round-trip (%zu bytes, was %zu)", pcd_mutator_name(mu), list[i].path, len, list[i].n);
            }
            assert_string_equal(pcd_mut_describe(m), "(no mutation)");
            checked++;
        }
        pcd_mut_free(m);
    }
    assert_true(checked >= pcd_n_mutators);
    assert_int_equal(counting.in_use, taken);
}

/* Every kind, on every schema where it finds something to change: applied, described, and when
 * it keeps, still decodable. */
static void test_kinds(void **state)
{
    (void)state;
    unsigned applied[PCD_MUT_N_KINDS] = { 0 }, refused[PCD_MUT_N_KINDS] = { 0 };
    size_t taken = counting.in_use;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        const pcd_format *f = pcd_mutator_format(mu);
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, 6);
        /* a session per seed, each loading its own: a load of the input a session loaded last
         * is its records restored, not decoded again (one session over the seeds in turn decoded
         * one on every try: 43 % of this test's CPU, perf record, under ASan) */
        pcd_mut *ms[6] = { NULL };
        for (size_t i = 0; i < n; i++) ms[i] = session(mu, true, 5);
        for (int kind = 0; kind < PCD_MUT_N_KINDS; kind++) {
            unsigned ok = 0;
            for (unsigned t = 0; t < 24 && ok < 4; t++) {
                const seed *sd = &list[t % n];
                pcd_mut *m = ms[t % n];
                pcd_mut_reseed(m, t * 7919u + (unsigned)kind);
                assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
                pcd_status st = pcd_mut_apply(m, (pcd_mut_kind)kind);
                if (st != PCD_OK) continue;
                size_t len;
                st = pcd_mut_encode(m, out, sizeof out, &len);
                /* a change the encoder refuses is no output (pcd_mut_fuzz tries another): a
                 * record where the file's order does not allow it, a case its neighbours
                 * exclude; what is written is what must decode */
                if (st != PCD_OK) {
                    refused[kind]++;
                    continue;
                }
                const char *d = pcd_mut_describe(m);
                if (!strstr(d, pcd_mut_kind_name((pcd_mut_kind)kind)) &&
                    !(pcd_mut_kind_layer((pcd_mut_kind)kind) && strstr(d, "layer_")))
                    fail_msg("%s: the description '%s' does not name %s", pcd_mutator_name(mu), d,
                             pcd_mut_kind_name((pcd_mut_kind)kind));
                if (pcd_mut_kind_keeps((pcd_mut_kind)kind) && !decodes(f, out, len))
                    fail_msg("%s: %s promised a decodable file: %s (seed %s)", pcd_mutator_name(mu),
                             pcd_mut_kind_name((pcd_mut_kind)kind), d, sd->path);
                ok++;
            }
            applied[kind] += ok;
        }
        for (size_t i = 0; i < n; i++) pcd_mut_free(ms[i]);
    }
    for (int kind = 0; kind < PCD_MUT_N_KINDS; kind++) {
        if (!applied[kind]) fail_msg("the kind %s was never applied", pcd_mut_kind_name((pcd_mut_kind)kind));
        /* refusals are the exception */
        if (refused[kind] > applied[kind])
            fail_msg("the kind %s was refused by the encoder %u times, written %u times",
                     pcd_mut_kind_name((pcd_mut_kind)kind), refused[kind], applied[kind]);
    }
    assert_int_equal(counting.in_use, taken);
}

/* With the evil kinds off, every output decodes; with them on, some do not (they do break). */
static void test_evil_switch(void **state)
{
    (void)state;
    size_t taken = counting.in_use;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, 4);
        pcd_mut *m = session(mu, false, 3);
        /* the tries of one seed one after the other: a session given the input it loaded last
         * restores its records instead of decoding them again */
        for (unsigned i = 0; i < 60; i++) {
            size_t len;
            const seed *sd = &list[i * n / 60];
            assert_int_equal(pcd_mut_fuzz(m, sd->p, sd->n, out, sizeof out, &len), PCD_OK);
            if (!decodes(pcd_mutator_format(mu), out, len))
                fail_msg("%s (evil off): %s does not decode", pcd_mutator_name(mu), pcd_mut_describe(m));
        }
        pcd_mut_free(m);
    }
    /* the evil ones do break: MOJO with references pointed nowhere, Tachyon with its zstd damaged */
    size_t k;
    const pcd_mutator *mu = mutator_of("tachyon", NULL, &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS), broken = 0;
    pcd_mut *m = session(mu, true, 4);
    for (unsigned i = 0; i < 40; i++) {
        const seed *sd = &list[i * n / 40];
        if (sd->n < 64 || memcmp(sd->p + 56, "\1\0\0\0", 4) != 0) continue;   /* compression = zstd */
        size_t len;
        assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
        assert_int_equal(pcd_mut_apply(m, PCD_MUT_LAYER_ZSTD), PCD_OK);
        assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
        assert_non_null(strstr(pcd_mut_describe(m), "layer_zstd"));
        broken += !decodes(pcd_mutator_format(mu), out, len);
    }
    assert_true(broken > 0);
    pcd_mut_free(m);
    assert_int_equal(counting.in_use, taken);
}

static void test_deterministic(void **state)
{
    (void)state;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, 2);
        pcd_mut *a = session(mu, true, 77), *b = session(mu, true, 77);
        for (unsigned i = 0; i < 20; i++) {
            size_t la, lb;
            const seed *sd = &list[i * n / 20];   /* (a seed's tries together, as above) */
            pcd_mut_fuzz(a, sd->p, sd->n, out, sizeof out, &la);
            pcd_mut_fuzz(b, sd->p, sd->n, out2, sizeof out2, &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(out, out2, la);
            assert_string_equal(pcd_mut_describe(a), pcd_mut_describe(b));
        }
        pcd_mut_free(a);
        pcd_mut_free(b);
    }
}

/* A session mutating one loaded input again and again undoes only what the last mutation
 * changed (pcd_mut_edit's window) and writes the records outside it as the bytes they were
 * encoded to at load: each output must be the one a fresh session writes from the input
 * decoded anew with the same random state, and the one a session without the kept bytes
 * writes. A change to the working copy that the window misses stays behind and shows here. */
static void test_restore(void **state)
{
    (void)state;
    size_t taken = counting.in_use, checked = 0;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, MAX_SEEDS);
        pcd_mut *a = session(mu, true, 5), *plain = session(mu, true, 5);
        plain->cache_off = true;
        /* the largest input (the many records the window skips) and another */
        size_t big = 0;
        for (size_t i = 1; i < n; i++)
            if (list[i].n > list[big].n) big = i;
        for (size_t j = 0; j < 2 && j < n; j++) {
            const seed *sd = &list[j == 0 ? big : (big + 1 + n / 2) % n];
            for (uint64_t t = 0; t < 12; t++) {
                size_t la, lb, lc;
                pcd_mut_reseed(a, 1000 + t);
                assert_int_equal(pcd_mut_fuzz(a, sd->p, sd->n, out, sizeof out, &la), PCD_OK);
                pcd_mut *fresh = session(mu, true, 5);
                pcd_mut_reseed(fresh, 1000 + t);
                assert_int_equal(pcd_mut_fuzz(fresh, sd->p, sd->n, out2, sizeof out2, &lb), PCD_OK);
                if (la != lb || memcmp(out, out2, la) != 0)
                    fail_msg("%s: %s, mutation %u after %u others (%s): %zu bytes, a fresh session wrote %zu (%s)",
                             pcd_mutator_name(mu), sd->path, (unsigned)t, (unsigned)t, pcd_mut_describe(a), la, lb,
                             pcd_mut_describe(fresh));
                pcd_mut_free(fresh);
                pcd_mut_reseed(plain, 1000 + t);
                assert_int_equal(pcd_mut_fuzz(plain, sd->p, sd->n, out2, sizeof out2, &lc), PCD_OK);
                if (la != lc || memcmp(out, out2, la) != 0)
                    fail_msg("%s: %s (%s): %zu bytes with the kept record bytes, %zu without", pcd_mutator_name(mu),
                             sd->path, pcd_mut_describe(a), la, lc);
                checked++;
            }
        }
        pcd_mut_free(a);
        pcd_mut_free(plain);
    }
    assert_true(checked >= 12 * pcd_n_mutators);
    assert_int_equal(counting.in_use, taken);
}

/* A fuzzer mutates its last output again (libFuzzer's mutation depth): the session takes the
 * records it wrote instead of decoding them; they must be what decoding gives. */
static void test_chain(void **state)
{
    (void)state;
    size_t taken = counting.in_use;
    static uint8_t o1[(size_t)4 << 20];
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, 4);
        pcd_mut *m = session(mu, false, 31), *fresh = session(mu, false, 31);
        /* the same calls without the kept record bytes (those of promoted records kept for them,
         * then another input decoded): the same outputs */
        pcd_mut *plain = session(mu, false, 31);
        plain->cache_off = true;
        for (unsigned t = 0; t < 12; t++) {
            size_t l1, l2, l3;
            const seed *sd = &list[t % n];
            assert_int_equal(pcd_mut_fuzz(m, sd->p, sd->n, o1, sizeof o1, &l1), PCD_OK);
            assert_int_equal(pcd_mut_fuzz(plain, sd->p, sd->n, out2, sizeof out2, &l2), PCD_OK);
            if (l1 != l2 || memcmp(o1, out2, l1) != 0)
                fail_msg("%s: %s: %zu bytes, %zu without the kept record bytes (%s)", pcd_mutator_name(mu), sd->path, l1,
                         l2, pcd_mut_describe(m));
            char what[2048];
            snprintf(what, sizeof what, "%s", pcd_mut_describe(m));
            /* its output loaded (promoted, not decoded) and written again unchanged */
            assert_int_equal(pcd_mut_load(m, o1, l1), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &l2), PCD_OK);
            /* the same file decoded by a fresh session writes it again too. (The two sets of
             * records may differ where a field that steers decoding is not derived: a MoarVM
             * column's size changed by int_near; both write this file.) */
            assert_int_equal(pcd_mut_load(fresh, o1, l1), PCD_OK);
            assert_int_equal(pcd_mut_encode(fresh, out2, sizeof out2, &l3), PCD_OK);
            if (strstr(what, "pb_wire ")) {
                /* a protobuf message written in another legal form on purpose: not the canonical
                 * form the records write (test_pb_wire), so not promoted; read whole */
                assert_true(decodes(pcd_mutator_format(mu), o1, l1));
            } else if (is_gz(o1, l1)) {
                size_t a = gunzip(out, l2, inner_a, sizeof inner_a), b = gunzip(out2, l3, inner_b, sizeof inner_b);
                assert_true(a == b && memcmp(inner_a, inner_b, a) == 0);
            } else {
                if (l2 != l1 || memcmp(out, o1, l1) != 0)
                    fail_msg("%s: the promoted records write %zu bytes, not the %zu they were written as (%s)",
                             pcd_mutator_name(mu), l2, l1, what);
                if (l3 != l1 || memcmp(out2, o1, l1) != 0)
                    fail_msg("%s: %s does not round-trip (%zu bytes, not %zu)", pcd_mutator_name(mu), what, l3, l1);
            }
            /* and mutating on goes on from them */
            assert_int_equal(pcd_mut_load(plain, o1, l1), PCD_OK);
            assert_int_equal(pcd_mut_fuzz(m, o1, l1, out, sizeof out, &l2), PCD_OK);
            assert_true(decodes(pcd_mutator_format(mu), out, l2));
            assert_int_equal(pcd_mut_fuzz(plain, o1, l1, out2, sizeof out2, &l3), PCD_OK);
            if (l2 != l3 || memcmp(out, out2, l2) != 0)
                fail_msg("%s: a promoted output mutated: %zu bytes, %zu without the kept record bytes (%s)",
                         pcd_mutator_name(mu), l2, l3, pcd_mut_describe(m));
            /* that output promoted and left unwritten: the next input is decoded */
            assert_int_equal(pcd_mut_load(m, out, l2), PCD_OK);
            assert_int_equal(pcd_mut_load(plain, out2, l3), PCD_OK);
        }
        pcd_mut_free(plain);
        pcd_mut_free(m);
        pcd_mut_free(fresh);
    }
    assert_int_equal(counting.in_use, taken);
}

/* An output loaded after another input was: its own records, not the other input's (the
 * session promoted its working copy, by then the other input's, for any input equal to its last
 * output: test_kinds' seeds in turn met it, perfetto's 31 KB seed loaded as the 1 KB one). */
static void test_load_after_other(void **state)
{
    (void)state;
    size_t taken = counting.in_use, checked = 0;
    static uint8_t o1[(size_t)4 << 20];
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, 2);
        if (n < 2) continue;
        pcd_mut *m = session(mu, false, 41), *fresh = session(mu, false, 41);
        for (unsigned t = 0; t < 6; t++) {
            size_t l1, l2, l3;
            assert_int_equal(pcd_mut_fuzz(m, list[0].p, list[0].n, o1, sizeof o1, &l1), PCD_OK);
            bool wire = strstr(pcd_mut_describe(m), "pb_wire ") != NULL;
            assert_int_equal(pcd_mut_load(m, list[1].p, list[1].n), PCD_OK);
            assert_int_equal(pcd_mut_load(m, o1, l1), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &l2), PCD_OK);
            bool same = l2 == l1 && memcmp(out, o1, l1) == 0;
            if (wire) {
                /* a protobuf message in another legal form on purpose (test_pb_wire): its records
                 * write the canonical form, which a fresh session's decode of it writes too */
                assert_int_equal(pcd_mut_load(fresh, o1, l1), PCD_OK);
                assert_int_equal(pcd_mut_encode(fresh, out2, sizeof out2, &l3), PCD_OK);
                same = l2 == l3 && memcmp(out, out2, l2) == 0;
                if (!same && is_gz(out, l2)) {
                    size_t a = gunzip(out, l2, inner_a, sizeof inner_a), b = gunzip(out2, l3, inner_b, sizeof inner_b);
                    same = a == b && memcmp(inner_a, inner_b, a) == 0;
                }
            } else if (is_gz(o1, l1)) {   /* (gzip made again by zlib: the layer inside compared) */
                size_t a = gunzip(o1, l1, inner_a, sizeof inner_a), b = gunzip(out, l2, inner_b, sizeof inner_b);
                same = a == b && memcmp(inner_a, inner_b, a) == 0;
            }
            if (!same)
                fail_msg("%s: an output loaded after %s wrote %zu bytes, not its own %zu", pcd_mutator_name(mu),
                         list[1].path, l2, l1);
            checked++;
        }
        pcd_mut_free(m);
        pcd_mut_free(fresh);
    }
    assert_true(checked > 0);
    assert_int_equal(counting.in_use, taken);
}

static void test_generate(void **state)
{
    (void)state;
    size_t taken = counting.in_use;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        pcd_mut *m = session(mu, false, 21);
        size_t with_records = 0;
        for (int g = 0; g < 10; g++) {
            size_t len, len2;
            assert_int_equal(pcd_mut_generate(m), PCD_OK);
            with_records += pcd_mut_records(m) > 1;
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            if (!decodes(pcd_mutator_format(mu), out, len)) fail_msg("%s: a generated file does not decode", pcd_mutator_name(mu));
            /* and it round-trips as any input does */
            assert_int_equal(pcd_mut_load(m, out, len), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out2, sizeof out2, &len2), PCD_OK);
            assert_int_equal(len, len2);
            assert_memory_equal(out, out2, len);
        }
        if (with_records < 5) fail_msg("%s: only %zu of 10 generated files hold records", pcd_mutator_name(mu), with_records);
        pcd_mut_free(m);
    }
    assert_int_equal(counting.in_use, taken);
}

static void test_shrink(void **state)
{
    (void)state;
    size_t taken = counting.in_use;
    size_t k;
    const pcd_mutator *mu = mutator_of("mojo", "3", &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS);
    const seed *sd = &list[0];
    for (size_t i = 1; i < n; i++)
        if (list[i].n > sd->n && list[i].n < 4096) sd = &list[i];
    pcd_mut *m = session(mu, true, 1);
    assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
    size_t recs = pcd_mut_records(m);
    uint32_t steps = pcd_mut_shrink_steps(m);
    assert_true(steps >= recs - 1);
    /* step 0 drops the last record; the loaded records stay as they are */
    size_t len;
    assert_int_equal(pcd_mut_shrink(m, 0, out, sizeof out, &len), PCD_OK);
    assert_true(len < sd->n);
    assert_non_null(strstr(pcd_mut_shrink_describe(m, 0), "drop "));
    assert_int_equal(pcd_mut_records(m), recs);
    assert_true(decodes(pcd_mutator_format(mu), out, len));
    /* a value step */
    bool value = false;
    for (uint32_t s = (uint32_t)recs - 1; s < steps && !value; s++)
        if (pcd_mut_shrink(m, s, out, sizeof out, &len) == PCD_OK) {
            value = true;
            assert_non_null(strstr(pcd_mut_shrink_describe(m, s), "shrink "));
        }
    assert_true(value);
    /* minimise by records to nothing: a predicate that always holds ends at the root */
    for (bool progress = true; progress;) {
        progress = false;
        uint32_t k2 = pcd_mut_shrink_steps(m);
        for (uint32_t s = 0; s < k2 && s + 1 < pcd_mut_records(m); s++)
            if (pcd_mut_shrink(m, s, out, sizeof out, &len) == PCD_OK) {
                memcpy(out2, out, len);
                assert_int_equal(pcd_mut_load(m, out2, len), PCD_OK);
                progress = true;
                break;
            }
    }
    assert_int_equal(pcd_mut_records(m), 1);
    pcd_mut_free(m);
    assert_int_equal(counting.in_use, taken);
}

static void test_crossover(void **state)
{
    (void)state;
    size_t k;
    const pcd_mutator *mu = mutator_of("pprof", NULL, &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS);
    assert_true(n >= 2);
    pcd_mut *m = session(mu, false, 8);
    unsigned ok = 0;
    for (unsigned t = 0; t < 10; t++) {
        size_t len;
        assert_int_equal(pcd_mut_load(m, list[t % n].p, list[t % n].n), PCD_OK);
        size_t before = pcd_mut_records(m);
        if (pcd_mut_crossover(m, list[(t + 1) % n].p, list[(t + 1) % n].n) != PCD_OK) continue;
        assert_true(pcd_mut_records(m) > before);
        assert_non_null(strstr(pcd_mut_describe(m), "rec_splice"));
        assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
        assert_true(decodes(pcd_mutator_format(mu), out, len));
        ok++;
    }
    assert_true(ok > 0);
    pcd_mut_free(m);
}

/* A byte mutation of the test's own: counts its calls, changes the first byte. */
static unsigned bytes_calls;
static size_t test_bytes(void *ud, uint8_t *data, size_t size, size_t max_size)
{
    (void)max_size;
    bytes_calls += ud == &bytes_calls;
    data[0] ^= 0x5a;
    return size;
}

/* The status our decoder ends a file with (through gzip: PCD_E_GZIP when that layer is wrong). */
static pcd_status decode_status(const pcd_format *f, const uint8_t *p, size_t n)
{
    if (is_gz(p, n)) {
        n = gunzip(p, n, inner_a, sizeof inner_a);
        if (n == SIZE_MAX) return PCD_E_GZIP;
        p = inner_a;
    }
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false, false };
    pcd_status st = pcd_reader_open_buffer(&r, f, p, n, &ro);
    if (st != PCD_OK) return st;
    pcd_record rec;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {}
    pcd_reader_close(&r);
    return st;
}

/* inner_bytes changes what a compressed layer holds and keeps the layer right: the gzip layer of
 * pprof and the zstd frames of Tachyon and MoarVM still decompress (whatever their records
 * become), and the session's byte mutation is the one used. */
static void test_inner_bytes(void **state)
{
    (void)state;
    static const char *const names[] = { "pprof", "tachyon", "moarvm:3" };
    size_t taken = counting.in_use;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t k;
        const pcd_mutator *mu = mutator_of(names[i], NULL, &k);
        const pcd_format *f = pcd_mutator_format(mu);
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, MAX_SEEDS);
        pcd_mut *m = session(mu, true, 11);
        unsigned applied = 0, changed = 0;
        for (unsigned t = 0; t < 3 * n && applied < 12; t++) {
            const seed *sd = &list[t % n];
            size_t len, len0;
            assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
            assert_int_equal(pcd_mut_encode(m, out2, sizeof out2, &len0), PCD_OK);   /* unmutated */
            assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
            pcd_mut_set_bytes(m, (t & 1) ? test_bytes : NULL, &bytes_calls);
            unsigned calls = bytes_calls;
            if (pcd_mut_apply(m, PCD_MUT_INNER_BYTES) != PCD_OK) continue;   /* no compressed layer */
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            const char *d = pcd_mut_describe(m);
            if (!strstr(d, "inner_bytes")) fail_msg("%s: '%s' does not name inner_bytes", sd->path, d);
            pcd_status st = decode_status(f, out, len);
            if (st == PCD_E_GZIP || st == PCD_E_ZSTD)
                fail_msg("%s: inner_bytes broke the compressed layer (%d): %s", sd->path, (int)st, d);
            if (strstr(d, "inner_bytes in")) {
                if ((t & 1) && bytes_calls != calls + 1) fail_msg("%s: the session's byte mutation was not used", sd->path);
                changed += len != len0 || memcmp(out, out2, len) != 0;
            }
            applied++;
        }
        pcd_mut_set_bytes(m, NULL, NULL);
        if (!applied || !changed) fail_msg("%s: inner_bytes applied %u times, changed %u outputs", names[i], applied, changed);
        pcd_mut_free(m);
    }
    assert_int_equal(counting.in_use, taken);
}

/* What a pprof file defines and refers to, as read back (for rec_shrink's promise). */
#define PP_MAX 8192
typedef struct pp_table {
    uint64_t def[3][PP_MAX];     /* location, function, mapping ids */
    size_t ndef[3];
    uint64_t ref[3][PP_MAX];     /* sample location ids, line function ids, location mapping ids */
    size_t nref[3];
    size_t strings, records;
    int64_t max_string;          /* the highest string index referred to */
} pp_table;

static void pp_string(pp_table *t, bool has, int64_t v)
{
    if (has && v > t->max_string) t->max_string = v;
}

static void pp_push(uint64_t *a, size_t *n, uint64_t v)
{
    if (*n < PP_MAX) a[(*n)++] = v;
}

static bool pp_read(const uint8_t *p, size_t n, pp_table *t)
{
    memset(t, 0, sizeof *t);
    pcd_alloc al;
    pcd_reader r;
    if (!open_reader(&r, &al, pcd_mutator_format(pcd_mutator_find("pprof", NULL)), p, n, inner_b, sizeof inner_b))
        return false;
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (rec.depth != 1) continue;
        t->records++;
        const pcd_pprof_v1_profile_field *f = rec.data;
        switch (f->which) {
        case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE:
            pp_string(t, f->u.sample_type.has_type, f->u.sample_type.type);
            pp_string(t, f->u.sample_type.has_unit, f->u.sample_type.unit);
            break;
        case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE:
            for (size_t i = 0; i < f->u.sample.n_location_id; i++) pp_push(t->ref[0], &t->nref[0], f->u.sample.location_id[i]);
            for (size_t i = 0; i < f->u.sample.n_label; i++) {
                pp_string(t, f->u.sample.label[i].has_key, f->u.sample.label[i].key);
                pp_string(t, f->u.sample.label[i].has_str, f->u.sample.label[i].str);
            }
            break;
        case PCD_PPROF_V1_PROFILE_FIELD_LOCATION:
            pp_push(t->def[0], &t->ndef[0], f->u.location.id);
            if (f->u.location.has_mapping_id && f->u.location.mapping_id)
                pp_push(t->ref[2], &t->nref[2], f->u.location.mapping_id);
            for (size_t i = 0; i < f->u.location.n_line; i++)
                pp_push(t->ref[1], &t->nref[1], f->u.location.line[i].function_id);
            break;
        case PCD_PPROF_V1_PROFILE_FIELD_FUNCTION:
            pp_push(t->def[1], &t->ndef[1], f->u.function.id);
            pp_string(t, f->u.function.has_name, f->u.function.name);
            pp_string(t, f->u.function.has_system_name, f->u.function.system_name);
            pp_string(t, f->u.function.has_filename, f->u.function.filename);
            break;
        case PCD_PPROF_V1_PROFILE_FIELD_MAPPING:
            pp_push(t->def[2], &t->ndef[2], f->u.mapping.id);
            pp_string(t, f->u.mapping.has_filename, f->u.mapping.filename);
            pp_string(t, f->u.mapping.has_build_id, f->u.mapping.build_id);
            break;
        case PCD_PPROF_V1_PROFILE_FIELD_STRING_TABLE:
            t->strings++;
            break;
        default:
            break;
        }
    }
    pcd_reader_close(&r);
    return st == PCD_END;
}

/* The first reference of t whose target it does not define ("" if none). */
static const char *pp_dangling(const pp_table *t, char *buf, size_t cap)
{
    static const char *const what[3] = { "a sample's location id", "a line's function id", "a location's mapping id" };
    for (int s = 0; s < 3; s++)
        for (size_t i = 0; i < t->nref[s]; i++) {
            bool found = false;
            for (size_t j = 0; j < t->ndef[s] && !found; j++) found = t->def[s][j] == t->ref[s][i];
            if (!found) {
                snprintf(buf, cap, "%s %llu has no target", what[s], (unsigned long long)t->ref[s][i]);
                return buf;
            }
        }
    if (t->max_string >= 0 && (size_t)t->max_string >= t->strings) {
        snprintf(buf, cap, "string index %lld, %zu strings", (long long)t->max_string, t->strings);
        return buf;
    }
    return "";
}

/* rec_shrink on pprof: a file with fewer records whose references all still have their targets
 * (samples' locations, lines' functions, locations' mappings, string indexes); and with one
 * application after another, samples, then locations, functions and strings go. */
static void test_rec_shrink(void **state)
{
    (void)state;
    size_t k;
    const pcd_mutator *mu = mutator_of("pprof", NULL, &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS), shrunk = 0, kinds_seen = 0;
    size_t taken = counting.in_use;
    static pp_table before, after;
    char why[160];
    bool dropped[4] = { false, false, false, false };   /* samples, locations, functions, strings */
    pcd_mut *m = session(mu, false, 3);
    for (size_t i = 0; i < n; i++) {
        if (!pp_read(list[i].p, list[i].n, &before) || *pp_dangling(&before, why, sizeof why)) continue;
        const uint8_t *cur = list[i].p;
        size_t cur_n = list[i].n;
        for (unsigned t = 0; t < 12; t++) {
            pcd_mut_reseed(m, 1000u * (unsigned)i + t);
            assert_int_equal(pcd_mut_load(m, cur, cur_n), PCD_OK);
            if (pcd_mut_apply(m, PCD_MUT_REC_SHRINK) != PCD_OK) continue;
            size_t len;
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            const char *d = pcd_mut_describe(m);
            if (!strstr(d, "rec_shrink")) fail_msg("'%s' does not name rec_shrink", d);
            if (!pp_read(out, len, &after)) fail_msg("%s: rec_shrink wrote a file that does not decode: %s", list[i].path, d);
            if (*pp_dangling(&after, why, sizeof why))
                fail_msg("%s: after %s: %s", list[i].path, d, pp_dangling(&after, why, sizeof why));
            if (after.records >= before.records) fail_msg("%s: %s dropped nothing (%zu records)", list[i].path, d, after.records);
            dropped[0] |= strstr(d, " sample:") != NULL;
            dropped[1] |= strstr(d, " location:") != NULL;
            dropped[2] |= strstr(d, " function:") != NULL;
            dropped[3] |= strstr(d, " string_table:") != NULL;
            shrunk++;
            /* the next application starts from this one's output */
            memcpy(out2, out, len);
            cur = out2;
            cur_n = len;
            before = after;
        }
    }
    pcd_mut_free(m);
    for (int j = 0; j < 4; j++) kinds_seen += dropped[j];
    if (shrunk < 8 || kinds_seen < 4)
        fail_msg("rec_shrink: %zu applications; samples %d, locations %d, functions %d, strings %d", shrunk, dropped[0],
                 dropped[1], dropped[2], dropped[3]);
    assert_int_equal(counting.in_use, taken);
}

/* gzip_drop on a gzip'd pprof file: exactly what its gzip layer held (the unmutated records are
 * written byte for byte, test_roundtrip), and refused on a file with no gzip layer. */
static void test_gzip_drop(void **state)
{
    (void)state;
    size_t k;
    const pcd_mutator *mu = mutator_of("pprof", NULL, &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS), dropped = 0, plain = 0;
    size_t taken = counting.in_use;
    pcd_mut *m = session(mu, true, 3);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        assert_int_equal(pcd_mut_load(m, list[i].p, list[i].n), PCD_OK);
        if (!is_gz(list[i].p, list[i].n)) {
            assert_int_equal(pcd_mut_apply(m, PCD_MUT_GZIP_DROP), PCD_END);
            plain++;
            continue;
        }
        assert_int_equal(pcd_mut_apply(m, PCD_MUT_GZIP_DROP), PCD_OK);
        assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
        size_t a = gunzip(list[i].p, list[i].n, inner_a, sizeof inner_a);
        assert_false(is_gz(out, len));
        assert_int_equal(len, a);
        assert_memory_equal(out, inner_a, a);
        if (!strstr(pcd_mut_describe(m), "gzip_drop")) fail_msg("'%s' does not name gzip_drop", pcd_mut_describe(m));
        dropped++;
    }
    pcd_mut_free(m);
    if (!dropped) fail_msg("no gzip'd pprof seed (%zu plain)", plain);
    assert_int_equal(counting.in_use, taken);
}

/* pb_wire on pprof (gzip'd and plain): every output decodes whole, is not the canonical file the
 * records write, and the six forms (overlong, dup, unknown, swap, unpack, pack) all come up;
 * refused on a format that is not protobuf. */
static void test_pb_wire(void **state)
{
    (void)state;
    static const char *const forms[] = { "pb_wire overlong", "pb_wire dup", "pb_wire unknown", "pb_wire swap",
                                         "pb_wire unpack", "pb_wire pack" };
    unsigned seen[6] = { 0 };
    size_t k, written = 0, in_mapping = 0;
    const pcd_mutator *mu = mutator_of("pprof", NULL, &k);
    seed list[MAX_SEEDS];
    size_t n = inputs(mu, k, list, MAX_SEEDS);
    size_t taken = counting.in_use;
    pcd_mut *m = session(mu, true, 11);
    for (unsigned t = 0; t < 240; t++) {
        const seed *sd = &list[t % n];
        size_t len, clen;
        assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
        assert_int_equal(pcd_mut_encode(m, out2, sizeof out2, &clen), PCD_OK);   /* canonical */
        assert_int_equal(pcd_mut_load(m, sd->p, sd->n), PCD_OK);
        assert_int_equal(pcd_mut_apply(m, PCD_MUT_PB_WIRE), PCD_OK);
        assert_int_equal(pcd_mut_apply(m, PCD_MUT_PB_WIRE), PCD_END);   /* one a call */
        assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
        const char *d = pcd_mut_describe(m);
        if (!strstr(d, "pb_wire")) fail_msg("'%s' does not name pb_wire", d);
        if (strstr(d, "no other form")) continue;
        if (!decodes(pcd_mutator_format(mu), out, len)) fail_msg("pb_wire: %s does not decode (%s)", d, sd->path);
        size_t a = is_gz(out, len) ? gunzip(out, len, inner_a, sizeof inner_a) : (memcpy(inner_a, out, len), len);
        size_t b = is_gz(out2, clen) ? gunzip(out2, clen, inner_b, sizeof inner_b) : (memcpy(inner_b, out2, clen), clen);
        if (a == b && memcmp(inner_a, inner_b, a) == 0) fail_msg("pb_wire: %s wrote the canonical file", d);
        for (int f = 0; f < 6; f++) seen[f] += strstr(d, forms[f]) != NULL;
        in_mapping += strstr(d, "in message 3[") != NULL;
        written++;
    }
    pcd_mut_free(m);
    if (written < 200) fail_msg("pb_wire wrote %zu of 240", written);
    /* the target drawn by field number, then occurrence: a profile's few mappings (field 3 of
     * the root) as likely as its many samples, locations or strings (about one form in eight,
     * with the descent's 3 in 4 and six numbers that hold messages; drawn by occurrence, the
     * fourth round's way, a mapping was almost never the target) */
    if (in_mapping * 20 < written) fail_msg("pb_wire wrote %zu of %zu forms in a mapping", in_mapping, written);
    for (int f = 0; f < 6; f++)
        if (!seen[f]) fail_msg("pb_wire never wrote the form %s", forms[f]);
    /* not protobuf: nothing to do */
    mu = mutator_of("mojo", NULL, &k);
    n = inputs(mu, k, list, 1);
    m = session(mu, true, 3);
    assert_int_equal(pcd_mut_load(m, list[0].p, list[0].n), PCD_OK);
    assert_int_equal(pcd_mut_apply(m, PCD_MUT_PB_WIRE), PCD_END);
    pcd_mut_free(m);
    assert_int_equal(counting.in_use, taken);
}

/* An output buffer too small for a file whose zstd region runs past its end: PCD_E_LIMIT, never a
 * writer that waits for ever for room a memory buffer cannot make (the libFuzzer plugin's outputs
 * are capped a little above their input's size, so this is an everyday case there). */
static void test_small_cap(void **state)
{
    (void)state;
    static const char *const names[] = { "tachyon", "moarvm:3" };
    size_t taken = counting.in_use;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t k;
        const pcd_mutator *mu = mutator_of(names[i], NULL, &k);
        seed list[MAX_SEEDS];
        size_t n = inputs(mu, k, list, MAX_SEEDS), tried = 0;
        pcd_mut *m = session(mu, true, 5);
        for (size_t t = 0; t < n; t++) {
            size_t len;
            assert_int_equal(pcd_mut_load(m, list[t].p, list[t].n), PCD_OK);
            if (pcd_mut_apply(m, PCD_MUT_INNER_BYTES) != PCD_OK) continue;   /* no zstd region */
            assert_int_equal(pcd_mut_encode(m, out, sizeof out, &len), PCD_OK);
            for (size_t cap = len / 2; cap < len; cap += (len - cap + 1) / 2) {
                assert_int_equal(pcd_mut_load(m, list[t].p, list[t].n), PCD_OK);
                assert_int_equal(pcd_mut_apply(m, PCD_MUT_INNER_BYTES), PCD_OK);
                size_t got;
                pcd_status st = pcd_mut_encode(m, out, cap, &got);
                if (st != PCD_OK && st != PCD_E_LIMIT) fail_msg("%s: cap %zu: status %d", list[t].path, cap, (int)st);
                if (st == PCD_OK && got > cap) fail_msg("%s: %zu bytes written in %zu", list[t].path, got, cap);
            }
            tried++;
        }
        assert_true(tried > 0);
        pcd_mut_free(m);
    }
    assert_int_equal(counting.in_use, taken);
}

static void test_find(void **state)
{
    (void)state;
    assert_ptr_equal(pcd_mutator_find("mojo", "3"), pcd_mutator_find("mojo:3", NULL));
    assert_ptr_equal(pcd_mutator_find("mojo_v3", NULL), pcd_mutator_find("mojo:3", NULL));
    assert_ptr_equal(pcd_mutator_find("mono_v3_0", NULL), pcd_mutator_find("mono", "3.0"));
    assert_null(pcd_mutator_find("nothing", NULL));
    assert_string_equal(pcd_mutator_name(pcd_mutator_find("pprof", NULL)), "pprof_v1");
    /* a small allocator limit: refused cleanly, nothing left taken */
    pcd_alloc tiny;
    pcd_alloc_init(&tiny, pcd_alloc_libc, NULL, 1024);
    pcd_mut *m = NULL;
    assert_int_equal(pcd_mut_new(&m, pcd_mutator_find("mojo", NULL), NULL, &tiny), PCD_E_NOMEM);
    assert_int_equal(tiny.in_use, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),       cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_load_after_other), cmocka_unit_test(test_restore),
        cmocka_unit_test(test_evil_switch), cmocka_unit_test(test_deterministic), cmocka_unit_test(test_chain),
        cmocka_unit_test(test_generate),
        cmocka_unit_test(test_shrink),     cmocka_unit_test(test_crossover),
        cmocka_unit_test(test_inner_bytes), cmocka_unit_test(test_small_cap),
        cmocka_unit_test(test_gzip_drop),  cmocka_unit_test(test_pb_wire),
        cmocka_unit_test(test_rec_shrink),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
