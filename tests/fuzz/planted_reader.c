/* planted_reader.c: a MOJO reader with a planted crash, for the test of `profcodec fuzz`
 * (test_fuzz_cmd.sh). It reads MOJO 3 files with profcodec's decoder and, like a reader that
 * keeps a frame's positions in ints and indexes a table with them, crashes on a frame whose
 * line, end line, column or end column does not fit in 31 bits: a write through a null pointer, which is SIGSEGV without
 * sanitizers and an AddressSanitizer SEGV report with them. Anything it cannot read it
 * rejects (exit 1); what it reads it accepts (exit 0) and prints its frame count.
 * usage: planted_reader FILE */
#include <stdio.h>
#include <stdlib.h>

#include "mojo_v3.h"
#include "pcd.h"

static volatile char *line_table; /* never allocated: the planted bug */

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 64u << 20);
    pcd_reader_opts o = { &al, NULL, 0, false, false };
    pcd_reader r;
    if (pcd_reader_open_buffer(&r, &pcd_mojo_v3_format, buf, n, &o) != PCD_OK) return 1;
    pcd_record rec;
    pcd_status st;
    unsigned frames = 0;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (rec.type != &pcd_mojo_v3_event_type) continue;
        const pcd_mojo_v3_event *e = rec.data;
        if (e->which != PCD_MOJO_V3_EVENT_FRAME) continue;
        frames++;
        const pcd_mojo_v3_event_frame *fr = &e->u.frame;
        const pcd_mojo_int *pos[4] = { &fr->line, &fr->line_end, &fr->column, &fr->column_end };
        for (int i = 0; i < 4; i++)
            if (pos[i]->mag > 0x7fffffff) *line_table = (char)pos[i]->mag;
    }
    pcd_reader_close(&r);
    if (st != PCD_END) {
        fprintf(stderr, "%s: not a MOJO 3 file I can read\n", argv[1]);
        return 1;
    }
    printf("frames: %u\n", frames);
    return 0;
}
