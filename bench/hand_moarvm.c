/* hand_moarvm.c: hand-written readers of a MoarVM heap snapshot (v3), for bench/moarvm.sh.
 * By default the floor: walk the blocks and decompress every zstd frame into a small buffer,
 * nothing else (no entries looked at, no checks). With --info, what a careful C programmer's
 * reader for `profcodec info` does on top: every column's entries through the per-snapshot
 * sums and checks info makes (kinds counted and checked, heap size from colsize and colusize
 * with overflow checks, reference counts, reference kinds counted and checked, the largest
 * string index and reference target for the bounds checks), the string heap and the name
 * tables kept, the highscores kept. With --extract OUT it writes the frames back to back
 * instead, for zstd -d.
 * usage: hand_moarvm FILE [--info | --extract OUT] */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* --info: what the columns of the snapshot being read add up to */
typedef struct snap {
    uint64_t kinds[12], bad_kinds, heap, heap_ovf, rfcnt, refs, refkinds[4], bad_refs;
    uint64_t max_str, max_str_at, max_target, max_target_at, ncoll;
    bool any_str, any_target;
} snap;

static uint8_t *keep;        /* the string heap and the name tables, as info keeps them */
static size_t keep_len, keep_cap;

static void keep_bytes(const uint8_t *p, size_t n)
{
    if (keep_len + n > keep_cap) {
        size_t cap = keep_cap ? keep_cap : 1 << 16;
        while (cap < keep_len + n) cap *= 2;
        uint8_t *k = realloc(keep, cap);
        if (!k) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        keep = k;
        keep_cap = cap;
    }
    memcpy(keep + keep_len, p, n);
    keep_len += n;
}

static uint64_t add_sat(uint64_t a, uint64_t b, uint64_t *ovf)
{
    uint64_t s = a + b;
    *ovf += s < a;
    return s < a ? UINT64_MAX : s;
}

/* One decompressed piece of column `kind` (its entries esz bytes each), from entry `base`. */
static void column(snap *s, const char *kind, const uint8_t *p, size_t n, size_t esz, uint64_t base)
{
    if (strcmp(kind, "colkind") == 0 && esz == 2) {
        for (size_t i = 0; i < n; i++) {
            uint16_t k;
            memcpy(&k, p + 2 * i, 2);
            if (k == 0 || k > 11) {
                s->bad_kinds++;
                k = 0;
            }
            s->kinds[k]++;
        }
        s->ncoll += n;
    } else if (strcmp(kind, "colsize") == 0 && esz == 2) {
        for (size_t i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, p + 2 * i, 2);
            s->heap = add_sat(s->heap, v, &s->heap_ovf);
        }
    } else if (strcmp(kind, "colrfcnt") == 0 && esz == 4) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            s->rfcnt += v;
        }
    } else if (strcmp(kind, "colusize") == 0 && esz == 8) {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = ld64(p + 8 * i);
            s->heap = add_sat(s->heap, v, &s->heap_ovf);
        }
    } else if (strcmp(kind, "refdescr") == 0 && esz == 8) {
        /* counts and the largest string index in registers, then where it first is */
        uint64_t n0 = 0, n2 = 0, n3 = 0, bad = 0, m2 = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t d = ld64(p + 8 * i), k = d & 3;
            n0 += k == 0;
            n2 += k == 2;
            n3 += k == 3;
            bad += (uint64_t)(k == 0 && d != 0) + (uint64_t)(k == 3);
            uint64_t sv = k == 2 ? d >> 2 : 0;
            m2 = sv > m2 ? sv : m2;
        }
        s->refkinds[0] += n0;
        s->refkinds[1] += n - n0 - n2 - n3;
        s->refkinds[2] += n2;
        s->refkinds[3] += n3;
        s->bad_refs += bad;
        if (n2 && (!s->any_str || m2 > s->max_str)) {
            size_t i = 0;
            while ((ld64(p + 8 * i) & 3) != 2 || ld64(p + 8 * i) >> 2 != m2) i++;
            s->any_str = true;
            s->max_str = m2;
            s->max_str_at = base + i;
        }
        s->refs += n;
    } else if (strcmp(kind, "reftrget") == 0 && esz == 8) {
        uint64_t m = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = ld64(p + 8 * i);
            m = v > m ? v : m;
        }
        if (n && (!s->any_target || m > s->max_target)) {
            size_t i = 0;
            while (ld64(p + 8 * i) != m) i++;
            s->any_target = true;
            s->max_target = m;
            s->max_target_at = base + i;
        }
    } else if (strcmp(kind, "coltofi") != 0 && strcmp(kind, "colrfstr") != 0) {
        keep_bytes(p, n * esz); /* strings, name tables, highscores */
    }
}

int main(int argc, char **argv)
{
    bool info = argc == 3 && strcmp(argv[2], "--info") == 0;
    if (argc != 2 && !info && !(argc == 4 && strcmp(argv[2], "--extract") == 0)) {
        fprintf(stderr, "usage: hand_moarvm FILE [--info | --extract OUT]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(argv[1]);
        return 2;
    }
    size_t n = (size_t)sb.st_size;
    const uint8_t *d = mmap(NULL, n ? n : 1, PROT_READ, MAP_PRIVATE, fd, 0);
    if (d == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    FILE *ex = argc == 4 ? fopen(argv[3], "wb") : NULL;
    if (argc == 4 && !ex) {
        perror(argv[3]);
        return 2;
    }
    if (n < 16 || memcmp(d, "MoarHeapDumpv003", 16) != 0) {
        fprintf(stderr, "not a v3 heap snapshot\n");
        return 1;
    }
    ZSTD_DCtx *z = ZSTD_createDCtx();
    static uint8_t out[1 << 17];
    uint64_t blocks = 0, frames = 0, decoded = 0, snaps = 0, problems = 0;
    snap s;
    memset(&s, 0, sizeof s);
    size_t p = 16;
    while (p + 16 <= n) {
        char kind[9] = { 0 };
        memcpy(kind, d + p, 8);
        blocks++;
        if (strcmp(kind, "snapmeta") == 0 && info && s.ncoll) {
            /* the snapshot before is complete: its checks */
            problems += s.bad_kinds + s.bad_refs + (s.heap_ovf != 0) + (s.any_target && s.max_target >= s.ncoll);
            printf("snapshot %llu: %llu collectables, %llu references, heap %llu\n", (unsigned long long)snaps,
                   (unsigned long long)s.ncoll, (unsigned long long)s.refs, (unsigned long long)s.heap);
            snaps++;
            memset(&s, 0, sizeof s);
        }
        if (strcmp(kind, "filemeta") == 0 || strcmp(kind, "snapmeta") == 0) {
            uint64_t sz = ld64(d + p + 8);
            if (sz > n - p - 16) break;
            p += 16 + (size_t)sz;
            continue;
        }
        if (strcmp(kind, "toc") == 0) {
            uint64_t k = ld64(d + p + 8);
            if (k > (n - p - 24) / 24) break;
            p += 16 + (size_t)k * 24 + 8;
            continue;
        }
        size_t hdr = strcmp(kind, "strings") == 0 ? 16 : 18;
        size_t esz = 1;
        if (hdr == 18) {
            uint16_t e;
            memcpy(&e, d + p + 8, 2);
            esz = e == 2 || e == 4 || e == 8 ? e : 1;
        }
        uint64_t at = 0;
        if (p + hdr > n) break;
        size_t fs = ZSTD_findFrameCompressedSize(d + p + hdr, n - p - hdr);
        if (ZSTD_isError(fs)) break;
        if (ex) {
            fwrite(d + p + hdr, 1, fs, ex);
        } else {
            ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
            ZSTD_inBuffer in = { d + p + hdr, fs, 0 };
            size_t r = 1;
            while (in.pos < in.size && r != 0) {
                ZSTD_outBuffer o = { out, sizeof out, 0 };
                r = ZSTD_decompressStream(z, &o, &in);
                if (ZSTD_isError(r)) {
                    fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(r));
                    return 1;
                }
                decoded += o.pos;
                if (info) {
                    column(&s, kind, out, o.pos / esz, esz, at);
                    at += o.pos / esz;
                }
            }
        }
        frames++;
        p += hdr + fs;
    }
    ZSTD_freeDCtx(z);
    if (ex) fclose(ex);
    if (info && s.ncoll) {
        problems += s.bad_kinds + s.bad_refs + (s.heap_ovf != 0) + (s.any_target && s.max_target >= s.ncoll);
        printf("snapshot %llu: %llu collectables, %llu references, heap %llu\n", (unsigned long long)snaps,
               (unsigned long long)s.ncoll, (unsigned long long)s.refs, (unsigned long long)s.heap);
        snaps++;
    }
    printf("blocks %llu, frames %llu, decoded %llu bytes, stopped at %zu of %zu\n", (unsigned long long)blocks,
           (unsigned long long)frames, (unsigned long long)decoded, p, n);
    if (info)
        printf("info: %llu snapshots, %llu problems, %zu bytes of strings and tables kept\n",
               (unsigned long long)snaps, (unsigned long long)problems, keep_len);
    free(keep);
    return p == n ? 0 : 1;
}
