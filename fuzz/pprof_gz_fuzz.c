/* pprof_gz_fuzz.c: pprof as files are: gzip around the protobuf (as Go writes them and every
 * pprof reader takes them). The gzip layer is taken off as the CLI does (zlib, CRC checked,
 * at most 64 MiB out), then the generated harness's invariants run on what is inside. An
 * input that is not gzip is read as it is. */
#include <string.h>
#include <zlib.h>

#include "fuzzlib.h"
#include "pprof_v1.h"

static uint8_t inflated[(size_t)64 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return pcd_fuzz_one(&pcd_pprof_v1_format, data, size);
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
    if (r != Z_STREAM_END) return 0;   /* a broken gzip layer: rejected before the protobuf */
    return pcd_fuzz_one(&pcd_pprof_v1_format, inflated, n);
}
