/* pprof_gz_ext_fuzz.c: pprof as a user runs it: the gzip layer taken off as the CLI does
 * (zlib, CRC checked, at most 64 MiB out; an input that is not gzip is read as it is), then
 * the checks (ids, references, string indexes) and every conversion `profcodec formats` lists
 * for pprof (extlib.c). Invariants as tachyon_ext's. Also builds as a corpus replay program. */
#include <string.h>
#include <zlib.h>

#include "extlib.h"
#include "fuzzlib.h"
#include "pprof_v1.h"

static uint8_t inflated[(size_t)64 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
        pcd_fuzz_ext("pprof", &pcd_pprof_v1_format, data, size);
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
    return 0;
}
