/* hand_moarvm.c: the floor for reading a MoarVM heap snapshot (v3): walk the blocks and
 * decompress every zstd frame into a small buffer, nothing else (no entries looked at, no
 * checks). What a careful C programmer's minimal reader costs; profcodec info is timed
 * against it. With --extract OUT it writes the frames back to back instead, for zstd -d.
 * usage: hand_moarvm FILE [--extract OUT] */
#include <fcntl.h>
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

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--extract") == 0)) {
        fprintf(stderr, "usage: hand_moarvm FILE [--extract OUT]\n");
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
    uint64_t blocks = 0, frames = 0, decoded = 0;
    size_t p = 16;
    while (p + 16 <= n) {
        char kind[9] = { 0 };
        memcpy(kind, d + p, 8);
        blocks++;
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
            }
        }
        frames++;
        p += hdr + fs;
    }
    ZSTD_freeDCtx(z);
    if (ex) fclose(ex);
    printf("blocks %llu, frames %llu, decoded %llu bytes, stopped at %zu of %zu\n", (unsigned long long)blocks,
           (unsigned long long)frames, (unsigned long long)decoded, p, n);
    return p == n ? 0 : 1;
}
