/* hand_mojo.c: the baseline for `make bench`: a plain hand-written validating loop over an
 * Austin MOJO file, as a careful C programmer would write it: read() into a buffer, check
 * the header, then every event: its id, its varints (at most 10 bytes, 64 bits), its
 * NUL-terminated strings, and that every string and frame key a frame or a frame
 * reference names was defined in the current process (the same checks as
 * `profcodec validate`). `hand_mojo --bytes-only FILE` leaves the key checks out. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a set of (process, key) pairs ---------------------------------------------------- */

typedef struct kset {
    uint64_t *k;                /* pid << 1 | kind mixed with the key: two words a slot */
    size_t cap, len;
} kset;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static bool kset_has(const kset *s, uint64_t a, uint64_t b)
{
    if (!s->cap) return false;
    for (size_t i = mix(a * 31 + b) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->k[2 * i] == a && s->k[2 * i + 1] == b) return true;
        if (s->k[2 * i] == 0 && s->k[2 * i + 1] == 0) return false;
    }
}

static void kset_add(kset *s, uint64_t a, uint64_t b)
{
    if (kset_has(s, a, b)) return;
    if ((s->len + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        uint64_t *nk = calloc(nc * 2, sizeof *nk);
        if (!nk) exit(2);
        for (size_t i = 0; i < s->cap; i++) {
            if (s->k[2 * i] == 0 && s->k[2 * i + 1] == 0) continue;
            size_t j = mix(s->k[2 * i] * 31 + s->k[2 * i + 1]) & (nc - 1);
            while (nk[2 * j] || nk[2 * j + 1]) j = (j + 1) & (nc - 1);
            nk[2 * j] = s->k[2 * i];
            nk[2 * j + 1] = s->k[2 * i + 1];
        }
        free(s->k);
        s->k = nk;
        s->cap = nc;
    }
    size_t i = mix(a * 31 + b) & (s->cap - 1);
    while (s->k[2 * i] || s->k[2 * i + 1]) i = (i + 1) & (s->cap - 1);
    s->k[2 * i] = a;
    s->k[2 * i + 1] = b;
    s->len++;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* A varint at *p (before end): 0 ok, -1 cut off, -2 too long or too large. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *mag, bool *neg)
{
    const uint8_t *q = *p;
    if (q == end) return -1;
    uint8_t b = *q++;
    uint64_t v = b & 0x3F;
    *neg = (b & 0x40) != 0;
    unsigned shift = 6;
    for (int i = 1; b & 0x80; i++) {
        if (q == end) return -1;
        b = *q++;
        if (i == 9 && b > 3) return -2;
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
    }
    *p = q;
    *mag = v;
    return 0;
}

static int cstring(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
    if (!z) return -1;
    *p = z + 1;
    return 0;
}

/* The key of a set entry: the process (sign-folded) and what kind of key. */
static uint64_t scope(uint64_t pid, bool pneg, int kind) { return ((pid << 1 | pneg) << 2 | (uint64_t)kind) + 1; }

int main(int argc, char **argv)
{
    bool refs = true;
    if (argc == 3 && strcmp(argv[1], "--bytes-only") == 0) {
        refs = false;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: hand_mojo [--bytes-only] FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, lo = 0, hi = 0;
    uint8_t *buf = malloc(cap);
    uint64_t events = 0, base = 0;
    int eof = 0, version = 0, bad = 0;
    kset defs = { 0 };
    uint64_t pid = 0;
    bool pneg = false, have_pid = false;
    for (;;) {
        /* refill when fewer than 64 bytes are left (a string may need more: see below) */
        if (!eof && hi - lo < 64) {
            memmove(buf, buf + lo, hi - lo);
            base += lo;
            hi -= lo;
            lo = 0;
            ssize_t r = read(fd, buf + hi, cap - hi);
            if (r < 0) return 2;
            if (r == 0) eof = 1;
            hi += (size_t)r;
        }
        if (lo == hi) break;
        const uint8_t *p = buf + lo, *end = buf + hi;
        if (!version) {
            uint64_t v;
            bool n;
            if (end - p < 3 || memcmp(p, "MOJ", 3) != 0) {
                bad = 1;
                break;
            }
            p += 3;
            if (varint(&p, end, &v, &n) != 0 || n || v < 1 || v > 3) {
                bad = 1;
                break;
            }
            version = (int)v;
            lo = (size_t)(p - buf);
            continue;
        }
        /* events until the window runs out: a cut-off event is retried after a refill */
        const uint8_t *start = p;
        for (;;) {
            start = p;
            if (p == end) break;
            uint8_t id = *p++;
            uint64_t a, b, c;
            bool an, bn, cn;
            int st = 0;
            switch (id) {
            case 1: st = cstring(&p, end); if (!st) st = cstring(&p, end); break;
            case 2:
                st = varint(&p, end, &a, &an);
                if (!st && version >= 3) st = varint(&p, end, &b, &bn);
                if (!st) st = cstring(&p, end);
                if (!st) {
                    pid = a;
                    pneg = an && a;
                    have_pid = true;
                }
                break;
            case 3:
                st = varint(&p, end, &a, &an);
                if (!st) st = varint(&p, end, &b, &bn);
                if (!st) st = varint(&p, end, &c, &cn);
                for (int k = 0; k < (version == 1 ? 1 : 4) && !st; k++) {
                    uint64_t x;
                    bool xn;
                    st = varint(&p, end, &x, &xn);
                }
                if (!st && refs) {
                    uint64_t s = have_pid ? scope(pid, pneg, 0) : 0;
                    if (!(b == 1 && !bn) && !kset_has(&defs, s, b << 1 | (bn && b)) &&
                        !kset_has(&defs, 0, b << 1 | (bn && b)))
                        st = -3;
                    if (!(c == 1 && !cn) && !kset_has(&defs, s, c << 1 | (cn && c)) &&
                        !kset_has(&defs, 0, c << 1 | (cn && c)))
                        st = -3;
                    if (!st) kset_add(&defs, have_pid ? scope(pid, pneg, 1) : 1, a << 1 | (an && a));
                }
                break;
            case 4: case 7: case 8: break;
            case 5:
                st = varint(&p, end, &a, &an);
                if (!st && refs) {
                    uint64_t k = a << 1 | (an && a);
                    if (!kset_has(&defs, have_pid ? scope(pid, pneg, 1) : 1, k) && !kset_has(&defs, 1, k)) st = -3;
                }
                break;
            case 6: st = cstring(&p, end); break;
            case 9: case 10: case 12: st = varint(&p, end, &a, &an); break;
            case 11:
                st = varint(&p, end, &a, &an);
                if (!st) st = cstring(&p, end);
                if (!st && refs) kset_add(&defs, have_pid ? scope(pid, pneg, 0) : 0, a << 1 | (an && a));
                break;
            default: st = -2;
            }
            if (st == -1) {
                p = start;
                break;
            }
            if (st) {
                fprintf(stderr, "%s: invalid event at offset %llu\n", argv[1],
                        (unsigned long long)(base + (size_t)(start - buf)));
                return 1;
            }
            events++;
        }
        lo = (size_t)(start - buf);
        if (p == start && start != end) {
            /* an event longer than what is buffered: read more, growing the buffer */
            if (eof) {
                bad = 1;
                break;
            }
            if (lo == 0 && hi == cap) {
                cap *= 2;
                buf = realloc(buf, cap);
                if (!buf) return 2;
            }
            memmove(buf, buf + lo, hi - lo);
            base += lo;
            hi -= lo;
            lo = 0;
            ssize_t r = read(fd, buf + hi, cap - hi);
            if (r < 0) return 2;
            if (r == 0) eof = 1;
            hi += (size_t)r;
        }
    }
    if (bad || !version) {
        fprintf(stderr, "%s: invalid or truncated at offset %llu\n", argv[1], (unsigned long long)(base + lo));
        return 1;
    }
    printf("%s: valid, MOJO %d, %llu events\n", argv[1], version, (unsigned long long)events);
    free(defs.k);
    free(buf);
    return 0;
}
