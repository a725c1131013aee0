/* mutbench.c: the structure-aware mutators measured (make bench-fuzz): for each schema, over
 * the seed files given (those under 64 KB), whether an unmutated seed comes back: byte for byte,
 * or, for a seed not in the canonical form the encoders write (a varint with needless bytes,
 * as fuzz corpora have), as the same records in that form: accepted by our decoder, as many
 * records, and written again to the same bytes (the exit status is 1 when a seed does neither);
 * the share of generated and of mutated files (evil kinds off) that our own decoder
 * accepts, and mutations a second on one core (evil kinds on, the engine plugins' default).
 * usage: mutbench [-n MUTATIONS] [-g GENERATED] [-t SECONDS] [-x KIND]... FILE...
 * (-x KIND: that kind left out of the mix, to measure what it costs with the same binary) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "pcd_mut.h"

typedef struct seed {
    const pcd_mutator *mu;
    uint8_t *p;
    size_t n;
    const char *path;
} seed;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long k = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = k > 0 ? malloc((size_t)k) : NULL;
    if (p && fread(p, 1, (size_t)k, f) != (size_t)k) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = (size_t)k;
    return p;
}

static uint8_t inflated[1 << 24];

/* Does our decoder accept the whole file (through gzip)? */
static bool accepts(const pcd_format *f, const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
        uLongf len = sizeof inflated;
        z_stream z;
        memset(&z, 0, sizeof z);
        inflateInit2(&z, 31);
        z.next_in = (Bytef *)(uintptr_t)p;
        z.avail_in = (uInt)n;
        z.next_out = inflated;
        z.avail_out = sizeof inflated;
        int r = inflate(&z, Z_FINISH);
        len = sizeof inflated - z.avail_out;
        inflateEnd(&z);
        if (r != Z_STREAM_END) return false;
        p = inflated;
        n = len;
    }
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false, false };
    if (pcd_reader_open_buffer(&r, f, p, n, &ro) != PCD_OK) return false;
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {}
    pcd_reader_close(&r);
    return st == PCD_END;
}

static uint8_t out[1 << 21], again[1 << 21];

int main(int argc, char **argv)
{
    long muts = 2000, gens = 200;
    double secs = 2.0;
    uint64_t without = 0;   /* -x KIND: that kind left out of the mix (to measure what it costs) */
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc) return 2;
        if (!strcmp(argv[i], "-n")) muts = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-g")) gens = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-t")) secs = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-x")) {
            int k = 0;
            while (k < PCD_MUT_N_KINDS && strcmp(pcd_mut_kind_name((pcd_mut_kind)k), argv[i + 1])) k++;
            if (k == PCD_MUT_N_KINDS) return 2;
            without |= (uint64_t)1 << k;
        } else return 2;
    }
    seed *seeds = calloc((size_t)argc, sizeof *seeds);
    size_t ns = 0;
    for (; i < argc; i++) {
        size_t n;
        uint8_t *p = slurp(argv[i], &n);
        if (!p || n >= 65536) { free(p); continue; }
        const pcd_mutator *mu = pcd_mutator_detect(p, n);
        if (!mu || !accepts(pcd_mutator_format(mu), p, n)) { free(p); continue; }
        seeds[ns++] = (seed){ mu, p, n, argv[i] };
    }
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    printf("schema\tseeds\troundtrip (canonical)\tgenerated_ok\tmutated_ok (of)\tunmutated\tmutations_per_s\n");
    int bad = 0;
    for (size_t k = 0; k < pcd_n_mutators; k++) {
        const pcd_mutator *mu = pcd_mutators[k];
        const pcd_format *f = pcd_mutator_format(mu);
        size_t mine = 0, same = 0;
        for (size_t s = 0; s < ns; s++) mine += seeds[s].mu == mu;
        pcd_mut_opts o;
        pcd_mut_opts_default(&o);
        o.kinds &= ~without;
        o.evil = false;
        o.seed = 7;
        pcd_mut *m;
        if (pcd_mut_new(&m, mu, &o, &al) != PCD_OK) return 1;
        /* round trip: the same bytes, or the same records in canonical form (a fixpoint) */
        size_t canon = 0;
        for (size_t s = 0; s < ns; s++) {
            if (seeds[s].mu != mu) continue;
            size_t len, len2;
            bool gz = seeds[s].n >= 2 && seeds[s].p[0] == 0x1f && seeds[s].p[1] == 0x8b;
            bool ok = pcd_mut_load(m, seeds[s].p, seeds[s].n) == PCD_OK && pcd_mut_encode(m, out, sizeof out, &len) == PCD_OK;
            size_t records = ok ? pcd_mut_records(m) : 0;
            if (ok && !gz && len == seeds[s].n && memcmp(out, seeds[s].p, len) == 0) {
                same++;
                continue;
            }
            /* gzip'd seeds compress anew; others were not canonical: the form written must be
             * read back as as many records and written again unchanged */
            if (ok && accepts(f, out, len) && pcd_mut_load(m, out, len) == PCD_OK && pcd_mut_records(m) == records &&
                pcd_mut_encode(m, again, sizeof again, &len2) == PCD_OK && len2 == len && memcmp(again, out, len) == 0) {
                canon++;
                continue;
            }
            fprintf(stderr, "%s: round trip differs: %s\n", pcd_mutator_name(mu), seeds[s].path);
        }
        /* generated */
        long gok = 0;
        for (long g = 0; g < gens; g++) {
            size_t len;
            if (pcd_mut_generate(m) == PCD_OK && pcd_mut_encode(m, out, sizeof out, &len) == PCD_OK &&
                accepts(f, out, len))
                gok++;
        }
        /* mutated, evil off */
        long mok = 0, mtot = 0, unchanged = 0;
        if (mine)
            for (long t = 0; t < muts; t++) {
                size_t s = (size_t)t % ns;
                while (seeds[s].mu != mu) s = (s + 1) % ns;
                const seed *sd = &seeds[s];
                size_t len;
                mtot++;
                pcd_status st = pcd_mut_fuzz(m, sd->p, sd->n, out, sizeof out, &len);
                if (st == PCD_OK && !strcmp(pcd_mut_describe(m), "(no mutation)")) {
                    unchanged++;   /* no mutation could be written: not counted either way */
                    mtot--;
                } else if (st == PCD_OK && accepts(f, out, len)) {
                    mok++;
                } else if (getenv("MUTBENCH_VERBOSE")) {
                    fprintf(stderr, "rejected: %s\n", pcd_mut_describe(m));
                }
            }
        pcd_mut_free(m);
        /* throughput, evil on */
        double rate = 0;
        if (mine) {
            pcd_mut_opts_default(&o);
            o.kinds &= ~without;
            o.seed = 11;
            pcd_mut_new(&m, mu, &o, &al);
            long done = 0;
            double t0 = cpu_now(), t1 = t0;
            size_t s = 0;
            while (t1 - t0 < secs) {
                /* 32 mutations of each input in turn (as AFL++'s fuzz_count and libFuzzer's
                 * mutation depth use a mutator), each decoding the input anew when fresh */
                do s = (s + 1) % ns; while (seeds[s].mu != mu);
                for (int r = 0; r < 32; r++) {
                    size_t len;
                    pcd_mut_fuzz(m, seeds[s].p, seeds[s].n, out, sizeof out, &len);
                    done++;
                }
                t1 = cpu_now();
            }
            rate = (double)done / (t1 - t0);
            pcd_mut_free(m);
        }
        printf("%s\t%zu\t%zu/%zu (%zu)\t%.1f%%\t%.1f%% (%ld)\t%ld\t%.0f\n", pcd_mutator_name(mu), mine, same + canon, mine, canon,
               gens ? 100.0 * (double)gok / (double)gens : 0.0, mtot ? 100.0 * (double)mok / (double)mtot : 0.0, mtot,
               unchanged, rate);
        if (same + canon != mine) bad = 1;
    }
    return bad;
}
