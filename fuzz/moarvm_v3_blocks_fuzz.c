/* moarvm_v3_blocks_fuzz.c: MoarVM heap snapshots, the block and TOC layer: every generated
 * invariant (fuzzlib), then what sits above the bytes on the same input: snapshot assembly,
 * TOC checks and every invariant (the collector, formats/moarvm/snapshot.h), info, and the
 * summary, collapsed and speedscope conversions (moarvm_fuzzlib.c); then every other conversion
 * `profcodec formats` lists for MoarVM and one more with options drawn from the input (extlib.c).
 * Checks: nothing crashes or leaks, the collapsed stacks of a snapshot weigh exactly its heap
 * size, and extlib's invariants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extlib.h"
#include "fuzzlib.h"
#include "moarvm_fuzzlib.h"
#include "moarvm_v3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcd_fuzz_one(&pcd_moarvm_v3_format, data, size);
    moarvm_fuzz_above(data, size, NULL);
    static const char *const done[] = { "summary", "speedscope", "collapsed", NULL };
    pcd_fuzz_ext_some("moarvm", &pcd_moarvm_v3_format, data, size, done);
    return 0;
}
