/* heph_ext_fuzz.c: Heph 0.1 as a user runs it: the whole file read (the format has no
 * checks above the schema's), info, every conversion `profcodec formats` lists for it and one more
 * with options drawn from the input's bytes (extlib.c).
 * Invariants as tachyon_ext's. Also builds as a corpus replay program. */
#include "extlib.h"
#include "fuzzlib.h"
#include "heph_v0_1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcd_fuzz_ext("heph", &pcd_heph_v0_1_format, data, size);
    return 0;
}
