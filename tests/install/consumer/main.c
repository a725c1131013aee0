/* main.c: a tiny program built against an installed profcodec (CMake package and pkg-config). */
#include <stdio.h>
#include <string.h>

#include <heph_v0_1.h>
#include <pcd.h>

int main(void)
{
    /* the Heph spec's 23-byte epoch packet */
    static const uint8_t pkt[23] = { 0x75, 0xD1, 0x1D, 0x4D, 0, 0, 0, 23, 0, 5, 'e', 'p', 'o', 'c', 'h',
                                     0x16, 0x58, 0x45, 0xE9, 0x12, 0x14, 0xEC, 0x90 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_cursor c = pcd_cursor_make(&x, pkt, sizeof pkt, 0, true);
    pcd_heph_v0_1_packet p;
    pcd_status st = pcd_heph_v0_1_packet_decode(&c, &p);
    if (st != PCD_OK) {
        char msg[256];
        pcd_error_format(&x.err, msg, sizeof msg);
        fprintf(stderr, "decode failed: %s\n", msg);
        return 1;
    }
    printf("epoch %llu, %zu formats known\n", (unsigned long long)p.u.metadata.value.u.epoch, pcd_n_formats);
    return p.u.metadata.value.u.epoch == 1610113734118010000ull ? 0 : 1;
}
