/* pprof_gz_ext_fuzz.c: pprof as a user runs it: the gzip layer taken off as the CLI does
 * (zlib, CRC checked, at most 64 MiB out; an input that is not gzip is read as it is), then
 * the checks (ids, references, string indexes), info, every conversion `profcodec formats` lists
 * for pprof and one more with options drawn from the input (extlib.c); and the generated
 * readers of the root message whole (pcd_pprof_v1_profile_decode, _validate, _size, _encode),
 * which the record-by-record reader never calls. Invariants as tachyon_ext's, and for the whole
 * message: decode and validate agree, its size is what its encoder writes, and that decodes
 * again. Also builds as a corpus replay program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "extlib.h"
#include "fuzzlib.h"
#include "pprof_v1.h"

static uint8_t inflated[(size_t)64 << 20];
static uint8_t again[(size_t)1 << 20];

#define CHECK(cond, msg)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "pprof whole-message invariant broken at %s:%d: %s\n", __FILE__, __LINE__, msg); \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* The root message read whole (the generated decoder's, validator's, size and encoder of the
 * profile message), as a program embedding the codec would read a pprof file. */
static void whole(const uint8_t *p, size_t n)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
    uint8_t block[4096];
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, &al, (size_t)128 << 20);
    pcd_ctx x, vx;
    pcd_ctx_init(&x, &a);
    pcd_ctx_init(&vx, NULL);
    pcd_pprof_v1_profile prof;
    pcd_cursor c = pcd_cursor_make(&x, p, n, 0, true);
    pcd_status st = pcd_pprof_v1_profile_decode(&c, &prof);
    pcd_cursor vc = pcd_cursor_make(&vx, p, n, 0, true);
    pcd_status vst = pcd_pprof_v1_profile_validate(&vc);
    CHECK(st != PCD_E_INTERNAL && vst != PCD_E_INTERNAL, "an internal error");
    /* (decode can also run out of its arena's memory, which validate never takes) */
    CHECK(st == PCD_OK ? vst == PCD_OK : vst != PCD_OK || st == PCD_E_NOMEM || st == PCD_E_LIMIT,
          "decode and validate disagree");
    if (st == PCD_OK) {
        pcd_ctx ex;
        pcd_ctx_init(&ex, NULL);
        uint64_t want = pcd_pprof_v1_profile_size(&ex, &prof);
        if (want <= sizeof again) {
            pcd_sink s;
            pcd_sink_init(&s, again, sizeof again, NULL, NULL, NULL, &ex);
            CHECK(pcd_pprof_v1_profile_encode(&s, &prof) == PCD_OK, "a decoded profile does not encode");
            CHECK(s.len == want, "the profile's size is not what its encoder writes");
            pcd_arena_reset(&a);
            pcd_ctx_init(&x, &a);
            c = pcd_cursor_make(&x, again, s.len, 0, true);
            CHECK(pcd_pprof_v1_profile_decode(&c, &prof) == PCD_OK, "the encoder wrote a profile that does not decode");
        }
    }
    pcd_arena_free(&a);
    CHECK(al.in_use == 0, "the whole-message reader leaked");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
        pcd_fuzz_ext("pprof", &pcd_pprof_v1_format, data, size);
        whole(data, size);
        return 0;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 31) != Z_OK) return 0;
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = inflated;
    z.avail_out = sizeof inflated;
    int r = inflate(&z, Z_FINISH);
    size_t n = sizeof inflated - z.avail_out;
    inflateEnd(&z);
    if (r != Z_STREAM_END) return 0;   /* a broken gzip layer: the CLI stops there too */
    pcd_fuzz_ext("pprof", &pcd_pprof_v1_format, inflated, n);
    whole(inflated, n);
    return 0;
}
