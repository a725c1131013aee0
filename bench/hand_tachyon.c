/* hand_tachyon.c: the baseline for `make bench`: a plain hand-written validating loop over a
 * Tachyon profile (CPython 3.15 sampling profiler, format 1), as a careful C programmer
 * would write it to make the checks `profcodec validate` makes:
 *   - the file mapped whole; header (magic in either byte order, version 1, table offsets
 *     ordered and inside the file, profiling mode 0..5), footer (string and frame counts)
 *     and the optional TACHSTAT statistics block (its size, finite values);
 *   - the sample records, raw or through one zstd stream (ZSTD_decompressStream into a
 *     1 MiB window, cut records carried over), every varint bounded (10 bytes, the 32-bit
 *     ones at most 2^32-1, frame counts at most 256), every frame index below the frame
 *     count, and the stacks replayed per (thread, interpreter): REPEAT / FULL / SUFFIX /
 *     POP_PUSH applied to a 256-frame array per thread, shared_count within the depth, the
 *     final depth at most 256, at most thread_count threads, the timestamps summed, the
 *     frames used marked, and the samples counted against the header's sample_count;
 *   - the string table (lengths inside the file, UTF-8 checked) and the frame table
 *     (varints, zigzag fields, the string indexes of the frames the samples use checked
 *     against the string count), each ending where the next part starts.
 * usage: hand_tachyon FILE */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static bool big;

static uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return big ? __builtin_bswap32(v) : v;
}

static uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return big ? __builtin_bswap64(v) : v;
}

static void die(const char *path, const char *what, uint64_t off)
{
    fprintf(stderr, "%s: %s at offset %llu\n", path, what, (unsigned long long)off);
    exit(1);
}

/* ULEB128 at *p (before end): 0 ok, -1 cut off, -2 longer than 10 bytes or past 64 bits
 * (wrap: the 10th byte's high bits dropped, as CPython does for timestamps). */
static inline int uleb(const uint8_t **p, const uint8_t *end, uint64_t *out, bool wrap)
{
    const uint8_t *q = *p;
    if (q < end && *q < 0x80) {
        *out = *q;
        *p = q + 1;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (q == end) return -1;
        uint8_t b = *q++;
        if (i == 9) {
            if (!wrap && b > 1) return -2;
            if (wrap && (b & 0x80)) return -2;
            v |= (uint64_t)b << 63;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) break;
    }
    *p = q;
    *out = v;
    return 0;
}

static inline int uleb32(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
    uint64_t v;
    int st = uleb(p, end, &v, false);
    if (st) return st;
    if (v > UINT32_MAX) return -2;
    *out = (uint32_t)v;
    return 0;
}

static bool utf8_ok(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = s[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
        if (!len || b > 0xF4 || i + len > n) return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80) return false;
        if (b == 0xE0 && s[i + 1] < 0xA0) return false;
        if (b == 0xED && s[i + 1] > 0x9F) return false;
        if (b == 0xF0 && s[i + 1] < 0x90) return false;
        if (b == 0xF4 && s[i + 1] > 0x8F) return false;
        i += len;
    }
    return true;
}

/* ---- per-thread stacks ----------------------------------------------------------------- */

typedef struct thread {
    uint64_t tid;
    uint32_t interp, depth;
    uint64_t ts;
    uint32_t frames[256];        /* outermost first */
} thread;

typedef struct replay {
    thread **th;                 /* open addressing by (tid, interp) */
    size_t cap, n;
    uint32_t declared, frame_count;
    uint64_t start, samples;
    uint8_t *used;               /* frames the samples use */
    thread *last;
} replay;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    return x ^ (x >> 33);
}

static thread *thread_of(replay *r, uint64_t tid, uint32_t interp)
{
    if (r->last && r->last->tid == tid && r->last->interp == interp) return r->last;
    size_t i = mix(tid ^ ((uint64_t)interp << 17)) & (r->cap - 1);
    for (; r->th[i]; i = (i + 1) & (r->cap - 1))
        if (r->th[i]->tid == tid && r->th[i]->interp == interp) return r->last = r->th[i];
    if (r->n >= r->declared) return NULL;
    thread *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    t->tid = tid;
    t->interp = interp;
    t->ts = r->start;
    r->th[i] = t;
    if (++r->n * 2 > r->cap) {
        size_t nc = r->cap * 2;
        thread **nt = calloc(nc, sizeof *nt);
        if (!nt) exit(2);
        for (size_t k = 0; k < r->cap; k++) {
            if (!r->th[k]) continue;
            size_t j = mix(r->th[k]->tid ^ ((uint64_t)r->th[k]->interp << 17)) & (nc - 1);
            while (nt[j]) j = (j + 1) & (nc - 1);
            nt[j] = r->th[k];
        }
        free(r->th);
        r->th = nt;
        r->cap = nc;
    }
    return r->last = t;
}

/* One sample record at *p: 0 ok, -1 cut off, a message otherwise. */
static const char *record(replay *r, const uint8_t **pp, const uint8_t *end, int *cut)
{
    const uint8_t *p = *pp;
    *cut = 0;
    if (end - p < 13) {
        *cut = 1;
        return NULL;
    }
    uint64_t tid = ld64(p);
    uint32_t interp = ld32(p + 8);
    uint8_t kind = p[12];
    p += 13;
    thread *t = thread_of(r, tid, interp);
    if (!t) return "more threads than thread_count";
    uint64_t v;
    int st;
#define NEED(expr)                                                                             \
    do {                                                                                       \
        st = (expr);                                                                           \
        if (st == -1) {                                                                        \
            *cut = 1;                                                                          \
            return NULL;                                                                       \
        }                                                                                      \
        if (st) return "bad varint";                                                           \
    } while (0)
    if (kind == 0) {
        uint64_t n;
        NEED(uleb(&p, end, &n, false));
        for (uint64_t i = 0; i < n; i++) {
            NEED(uleb(&p, end, &v, true));
            if (p == end) {
                *cut = 1;
                return NULL;
            }
            p++; /* status */
            t->ts += v;
        }
        r->samples += n;
        *pp = p;
        return NULL;
    }
    if (kind > 3) return "bad stack encoding";
    NEED(uleb(&p, end, &v, true));
    if (p == end) {
        *cut = 1;
        return NULL;
    }
    p++; /* status */
    uint32_t keep = 0, count;
    if (kind == 2) {
        uint32_t shared;
        NEED(uleb32(&p, end, &shared));
        if (shared > t->depth) return "shared_count above the depth";
        keep = shared;
    } else if (kind == 3) {
        uint32_t pop;
        NEED(uleb32(&p, end, &pop));
        keep = pop >= t->depth ? 0 : t->depth - pop;
    }
    uint64_t nf;
    NEED(uleb(&p, end, &nf, false));
    if (nf > 256) return "more than 256 frames";
    if (keep + nf > 256) return "a stack deeper than 256 frames";
    count = (uint32_t)nf;
    /* frames come innermost first: the last one goes right above the kept ones */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t f;
        NEED(uleb32(&p, end, &f));
        if (f >= r->frame_count) return "a frame index past the frame table";
        r->used[f] = 1;
        t->frames[keep + count - 1 - i] = f;
    }
    t->depth = keep + count;
    t->ts += v;
    r->samples++;
    *pp = p;
    return NULL;
#undef NEED
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hand_tachyon FILE\n");
        return 2;
    }
    const char *path = argv[1];
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(path);
        return 2;
    }
    size_t n = (size_t)sb.st_size;
    if (n < 96) die(path, "too short for a header and a footer", 0);
    const uint8_t *d = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (d == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    /* header */
    uint32_t magic;
    memcpy(&magic, d, 4);
    if (magic == 0x54414348) big = false;
    else if (__builtin_bswap32(magic) == 0x54414348) big = true;
    else die(path, "bad magic", 0);
    if (ld32(d + 4) != 1) die(path, "unsupported version", 4);
    uint64_t start = ld64(d + 12), sample_count = ld64(d + 28);
    uint32_t thread_count = ld32(d + 36);
    uint64_t str_off = ld64(d + 40), frm_off = ld64(d + 48);
    uint32_t compression = ld32(d + 56), config = ld32(d + 60);
    if (str_off < 64 || str_off > n) die(path, "string_table_offset outside the file", 40);
    if (frm_off < str_off || frm_off > n) die(path, "frame_table_offset outside the file", 48);
    if ((config & 7) > 5) die(path, "bad profiling mode", 60);
    /* footer and statistics */
    uint32_t string_count = ld32(d + n - 32), frame_count = ld32(d + n - 28);
    uint64_t file_size = ld64(d + n - 24);
    uint64_t tables_end = n - 32;
    if (memcmp(d + n - 48, "TACHSTAT", 8) == 0) {
        uint32_t ssize = ld32(d + n - 36);
        if (ssize < 32 || ssize > n - 32) die(path, "bad statistics size", n - 36);
        tables_end = n - 32 - ssize;
        if (tables_end < frm_off) die(path, "statistics block over the tables", n - 36);
        if (ld32(d + n - 40) == 1) {
            const uint8_t *s = d + tables_end;
            for (int i = 0; i < 2 + 2 * (ssize >= 56); i++) {
                uint64_t bits = ld64(s + 8 * i);
                double x;
                memcpy(&x, &bits, 8);
                if (!isfinite(x) || (i != 3 && x < 0)) die(path, "bad statistics value", tables_end + 8 * (uint64_t)i);
            }
        }
    }
    int warnings = file_size != n;
    /* samples */
    replay r = { 0 };
    r.cap = 64;
    r.th = calloc(r.cap, sizeof *r.th);
    r.declared = thread_count;
    r.frame_count = frame_count;
    r.start = start;
    r.used = calloc(frame_count ? frame_count : 1, 1);
    if (!r.th || !r.used) return 2;
    const char *bad = NULL;
    int cut = 0;
    if (compression == 1) {
        ZSTD_DCtx *z = ZSTD_createDCtx();
        size_t cap = 1 << 20, lo = 0, hi = 0;
        uint8_t *buf = malloc(cap);
        ZSTD_inBuffer in = { d + 64, str_off - 64, 0 };
        size_t zr = 1;
        for (;;) {
            if (lo) {
                memmove(buf, buf + lo, hi - lo);
                hi -= lo;
                lo = 0;
            }
            if (hi == cap) {
                cap *= 2;
                buf = realloc(buf, cap);
                if (!buf) return 2;
            }
            size_t before = hi;
            if (in.pos < in.size || zr != 0) {
                ZSTD_outBuffer out = { buf, cap, hi };
                zr = ZSTD_decompressStream(z, &out, &in);
                if (ZSTD_isError(zr)) die(path, ZSTD_getErrorName(zr), 64 + in.pos);
                hi = out.pos;
            }
            const uint8_t *p = buf + lo, *end = buf + hi;
            while (p < end) {
                const uint8_t *s = p;
                bad = record(&r, &p, end, &cut);
                if (bad) die(path, bad, 0);
                if (cut) {
                    p = s;
                    break;
                }
            }
            lo = (size_t)(p - buf);
            if (hi == before && in.pos == in.size) {
                /* nothing more comes out */
                if (lo != hi) die(path, "a sample record cut off", str_off);
                if (zr != 0) die(path, "a zstd frame cut off", str_off);
                break;
            }
        }
        free(buf);
        ZSTD_freeDCtx(z);
    } else {
        const uint8_t *p = d + 64, *end = d + str_off;
        while (p < end) {
            const uint8_t *s = p;
            bad = record(&r, &p, end, &cut);
            if (bad) die(path, bad, (uint64_t)(s - d));
            if (cut) die(path, "a sample record cut off", (uint64_t)(s - d));
        }
    }
    if (r.samples != sample_count) die(path, "sample_count differs from the samples", 28);
    if (r.n < thread_count) warnings++;
    /* string table */
    const uint8_t *p = d + str_off, *end = d + tables_end;
    for (uint32_t i = 0; i < string_count; i++) {
        uint32_t len;
        if (uleb32(&p, end, &len) || len > (size_t)(end - p)) die(path, "bad string", (uint64_t)(p - d));
        if (!utf8_ok(p, len)) warnings++;
        p += len;
    }
    if ((uint64_t)(p - d) != frm_off) warnings++;
    /* frame table */
    p = d + frm_off;
    bool used_bad = false;
    for (uint32_t i = 0; i < frame_count; i++) {
        uint32_t fn, func, z[4];
        const uint8_t *s = p;
        if (uleb32(&p, end, &fn) || uleb32(&p, end, &func)) die(path, "bad frame", (uint64_t)(s - d));
        for (int k = 0; k < 4; k++)
            if (uleb32(&p, end, &z[k])) die(path, "bad frame", (uint64_t)(s - d));
        if (p == end) die(path, "bad frame", (uint64_t)(s - d));
        p++; /* opcode */
        int32_t lineno = (int32_t)((z[0] >> 1) ^ (~(z[0] & 1) + 1));
        if (lineno == -1 && (z[1] || z[2] != 1 || z[3])) warnings++;
        if (fn >= string_count || func >= string_count) {
            if (r.used[i]) used_bad = true;
            else warnings++;
        }
    }
    if (used_bad) die(path, "a frame the samples use names a string past the table", frm_off);
    if ((uint64_t)(p - d) != tables_end) warnings++;
    printf("%s: valid, %llu samples, %zu threads, %u strings, %u frames, %d warnings\n", path,
           (unsigned long long)r.samples, r.n, string_count, frame_count, warnings);
    return 0;
}
