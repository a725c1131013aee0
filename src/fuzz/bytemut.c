/* fuzz/bytemut.c: byte-level mutations; see bytemut.h. */
#include "fuzz/bytemut.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

uint64_t pcd_fz_rand(pcd_fz_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t pcd_fz_below(pcd_fz_rng *r, uint64_t n) { return n ? pcd_fz_rand(r) % n : 0; }

static void say(char *desc, size_t cap, const char *fmt, ...)
{
    size_t o = strlen(desc);
    if (o + 3 >= cap) return;
    if (o) {
        memcpy(desc + o, "; ", 2);
        o += 2;
        desc[o] = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc + o, cap - o, fmt, ap);
    va_end(ap);
}

static const uint64_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
                                        0xffffffff, UINT64_C(0x7fffffffffffffff), UINT64_C(0x8000000000000000),
                                        UINT64_MAX, 16, 32, 64, 100, 1000, 4096, 65536 };

void pcd_fz_mutate_bytes(pcd_fz_rng *r, uint8_t *buf, size_t *len, size_t cap, const uint8_t *other, size_t other_n,
                         char *desc, size_t desc_cap)
{
    if (desc_cap && !desc[0]) say(desc, desc_cap, "bytes:");
    int edits = 1 + (int)pcd_fz_below(r, 4);
    for (int e = 0; e < edits; e++) {
        size_t n = *len;
        unsigned op = (unsigned)pcd_fz_below(r, n ? 8 : 1);
        if (n == 0) op = 0;
        switch (op) {
        case 0: { /* insert random bytes */
            if (n >= cap) break;
            size_t at = (size_t)pcd_fz_below(r, n + 1), k = 1 + (size_t)pcd_fz_below(r, 16);
            if (k > cap - n) k = cap - n;
            memmove(buf + at + k, buf + at, n - at);
            for (size_t i = 0; i < k; i++) buf[at + i] = (uint8_t)pcd_fz_rand(r);
            *len = n + k;
            say(desc, desc_cap, "%zu random bytes inserted at %zu", k, at);
            break;
        }
        case 1: { /* flip a bit */
            size_t at = (size_t)pcd_fz_below(r, n);
            unsigned bit = (unsigned)pcd_fz_below(r, 8);
            buf[at] ^= (uint8_t)(1u << bit);
            say(desc, desc_cap, "bit %u of byte %zu flipped", bit, at);
            break;
        }
        case 2: { /* a byte set */
            size_t at = (size_t)pcd_fz_below(r, n);
            buf[at] = (uint8_t)pcd_fz_rand(r);
            say(desc, desc_cap, "byte %zu set to 0x%02x", at, buf[at]);
            break;
        }
        case 3:
        case 4: { /* an interesting value, 1/2/4/8 bytes, either order */
            unsigned w = 1u << pcd_fz_below(r, 4);
            if (w > n) w = 1;
            size_t at = (size_t)pcd_fz_below(r, n - w + 1);
            uint64_t v = interesting[pcd_fz_below(r, sizeof interesting / sizeof interesting[0])];
            bool be = pcd_fz_below(r, 2);
            for (unsigned i = 0; i < w; i++) buf[at + (be ? w - 1 - i : i)] = (uint8_t)(v >> (8 * i));
            say(desc, desc_cap, "u%u%s 0x%llx at %zu", w * 8, w == 1 ? "" : be ? "be" : "le",
                (unsigned long long)(w == 8 ? v : v & ((UINT64_C(1) << (w * 8)) - 1)), at);
            break;
        }
        case 5: { /* a chunk deleted */
            size_t at = (size_t)pcd_fz_below(r, n), k = 1 + (size_t)pcd_fz_below(r, n - at < 64 ? n - at : 64);
            memmove(buf + at, buf + at + k, n - at - k);
            *len = n - k;
            say(desc, desc_cap, "%zu bytes deleted at %zu", k, at);
            break;
        }
        case 6: { /* a chunk of the input copied elsewhere (inserted) */
            size_t from = (size_t)pcd_fz_below(r, n), k = 1 + (size_t)pcd_fz_below(r, n - from < 64 ? n - from : 64);
            if (k > cap - n) break;
            size_t at = (size_t)pcd_fz_below(r, n + 1);
            uint8_t tmp[64];
            memcpy(tmp, buf + from, k);
            memmove(buf + at + k, buf + at, n - at);
            memcpy(buf + at, tmp, k);
            *len = n + k;
            say(desc, desc_cap, "%zu bytes from %zu copied in at %zu", k, from, at);
            break;
        }
        default: { /* splice: the tail from another input */
            if (!other || other_n < 2) break;
            size_t at = (size_t)pcd_fz_below(r, n), from = (size_t)pcd_fz_below(r, other_n);
            size_t k = other_n - from;
            if (k > cap - at) k = cap - at;
            memcpy(buf + at, other + from, k);
            *len = at + k;
            say(desc, desc_cap, "tail from byte %zu replaced by another input's from byte %zu", at, from);
            break;
        }
        }
    }
}
