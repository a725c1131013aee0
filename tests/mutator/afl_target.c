/* afl_target.c: a small reader of MOJO event ids for test_afl.sh, built with afl-clang-fast at
 * test time so that AFL++ sees coverage: which events follow which (a new pair is a new path). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    unsigned char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 4 || buf[0] != 'M' || buf[1] != 'O' || buf[2] != 'J') return 1;
    unsigned prev = 0, seen = 0;
    for (size_t i = 4; i < n; i++) {
        unsigned ev = buf[i];
        if (ev == 0 || ev > 12) continue;
        switch (prev * 16 + ev) {
        case 0x25: seen |= 1; break;   /* stack, frame_ref */
        case 0x55: seen |= 2; break;   /* frame_ref, frame_ref */
        case 0x59: seen |= 4; break;   /* frame_ref, time */
        case 0x5a: seen |= 8; break;   /* frame_ref, memory */
        case 0x9a: seen |= 16; break;  /* time, memory */
        case 0xb3: seen |= 32; break;  /* string, frame */
        case 0x33: seen |= 64; break;  /* frame, frame */
        case 0x34: seen |= 128; break; /* frame, invalid */
        case 0x27: seen |= 256; break; /* stack, gc */
        case 0x28: seen |= 512; break; /* stack, idle */
        case 0x56: seen |= 1024; break;/* frame_ref, kernel */
        default: break;
        }
        prev = ev;
    }
    return seen == 0xffff ? 3 : 0;
}
