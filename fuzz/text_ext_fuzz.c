/* text_ext_fuzz.c: the text inputs (collapsed stacks, Austin text, speedscope JSON; issue 25) as
 * a user runs them: detection, then each text importer into every output (extlib.c). Also
 * builds as a corpus replay program (tests/text: fuzz_replay_text_ext). */
#include "extlib.h"
#include "fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcd_fuzz_text(data, size);
    return 0;
}
