/* hand_heph.c: the baseline for `make bench`: a plain hand-written validating loop over a
 * Heph trace, as a careful C programmer would write it (read() into a buffer, check every
 * packet: magic, size, fields, strings, attribute types, that the content fills the size). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Returns 0 if the packet [p, p+n) is valid. */
static int check_packet(const uint8_t *p, size_t n)
{
    uint32_t magic = be32(p);
    const uint8_t *q = p + 8, *end = p + n;
    if (magic == 0x75D11D4D) {
        if (end - q < 2) return -1;
        uint16_t len = be16(q);
        q += 2;
        if ((size_t)(end - q) < len) return -1;
        int epoch = len == 5 && memcmp(q, "epoch", 5) == 0;
        q += len;
        if (epoch) {
            if (end - q != 8) return -1;
        }
        return 0;
    }
    if (magic != 0xC1FC1FB7) return -1;
    if (end - q < 34) return -1;
    q += 32;
    uint16_t dlen = be16(q);
    q += 2;
    if ((size_t)(end - q) < dlen) return -1;
    q += dlen;
    while (q < end) {
        if (end - q < 2) return -1;
        uint16_t nl = be16(q);
        q += 2;
        if ((size_t)(end - q) < (size_t)nl + 1) return -1;
        q += nl;
        uint8_t t = *q++;
        uint8_t base = t & 0x7f;
        if (base < 1 || base > 4 || (t & 0x80 && t != (0x80 | base))) return -1;
        size_t count = 1;
        if (t & 0x80) {
            if (end - q < 2) return -1;
            count = be16(q);
            q += 2;
        }
        for (size_t i = 0; i < count; i++) {
            if (base == 4) {
                if (end - q < 2) return -1;
                uint16_t sl = be16(q);
                q += 2;
                if ((size_t)(end - q) < sl) return -1;
                q += sl;
            } else {
                if (end - q < 8) return -1;
                q += 8;
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hand_heph FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, lo = 0, hi = 0;
    uint8_t *buf = malloc(cap);
    uint64_t packets = 0, off = 0;
    int eof = 0;
    for (;;) {
        if (hi - lo < 8 || hi - lo < be32(buf + lo + 4)) {
            if (eof) break;
            memmove(buf, buf + lo, hi - lo);
            hi -= lo;
            lo = 0;
            if (hi >= 8 && be32(buf + 4) > cap) {
                cap = be32(buf + 4);
                buf = realloc(buf, cap);
            }
            ssize_t r = read(fd, buf + hi, cap - hi);
            if (r < 0) return 2;
            if (r == 0) eof = 1;
            hi += (size_t)r;
            continue;
        }
        uint32_t size = be32(buf + lo + 4);
        if (size < 10 || check_packet(buf + lo, size) != 0) {
            fprintf(stderr, "%s: invalid packet at offset %llu\n", argv[1], (unsigned long long)off);
            return 1;
        }
        lo += size;
        off += size;
        packets++;
    }
    if (hi != lo) {
        fprintf(stderr, "%s: truncated packet at offset %llu\n", argv[1], (unsigned long long)off);
        return 1;
    }
    printf("%s: valid, %llu packets\n", argv[1], (unsigned long long)packets);
    return 0;
}
