/* tachyon_ext_fuzz.c: libFuzzer harness for Tachyon above the bytes: the checks (replay with
 * per-thread stacks, frame and string indexes), info, every conversion `profcodec formats` lists
 * for it (through pcd_convert: the profile model's outputs and the format's own per-sample
 * text) and one more with options drawn from the input's bytes, on any input (extlib.c). Invariants: no crash or leak, bounded memory, exit status 0
 * or 1 (never a usage, memory or internal error), and a file the checks find valid converts
 * without error. Also builds as a corpus replay program. */
#include "extlib.h"
#include "fuzzlib.h"
#include "tachyon_v1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcd_fuzz_ext("tachyon", &pcd_tachyon_v1_format, data, size);
    return 0;
}
