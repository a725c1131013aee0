/* libfuzzer_mutator.c: libFuzzer's custom mutator hooks over profcodec's structure-aware
 * mutators. Link it with any libFuzzer harness of a reader of these formats:
 *     clang -fsanitize=fuzzer harness.c -Wl,--whole-archive libpcdmut_libfuzzer.a -Wl,--no-whole-archive \
 *         -lzstd -lz -lm -lpthread
 * (--whole-archive: libFuzzer looks the hooks up as weak symbols, which pull nothing out of an archive).
 * Settings: plugin_env.h (PCD_MUT_FORMAT, PCD_MUT_EVIL, PCD_MUT_LAYER, PCD_MUT_BYTES, ...).
 * A share of the calls (PCD_MUT_BYTES) goes to libFuzzer's own byte-level mutations of the whole
 * input, and so do most calls on an input our decoder cannot read at all (the others write a
 * valid file made from nothing, the seed-less generator's); another share (PCD_MUT_INNER)
 * to the kind inner_bytes with libFuzzer's byte-level mutations of what a compressed layer
 * holds (its dictionary and comparison traces included), the layer made right around it;
 * another (PCD_MUT_WIRE, protobuf formats) to pb_wire on the input's own bytes; the rest to the
 * schema's kinds. */
#include <string.h>

#include "plugin_env.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

static plugin P;
static uint8_t out_buf[(size_t)1 << 22];

static size_t lf_bytes(void *ud, uint8_t *data, size_t size, size_t max_size)
{
    (void)ud;
    return size && max_size >= size ? LLVMFuzzerMutate(data, size, max_size) : size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    pcd_mut *m = plugin_session(&P, data, size);
    double r = (double)(seed % 1000) / 1000.0;
    if (!m || r < P.bytes_share) return LLVMFuzzerMutate(data, size, max_size);
    pcd_mut_set_bytes(m, lf_bytes, NULL);
    pcd_mut_reseed(m, seed);
    size_t len = 0, cap = max_size < sizeof out_buf ? max_size : sizeof out_buf;
    if (P.grow > 0 && size + size / 4 + (size_t)P.grow < cap) cap = size + size / 4 + (size_t)P.grow;
    pcd_status st = pcd_mut_load(m, data, size);
    if (st != PCD_OK) {
        /* not this schema's at all: byte-level, or now and then a valid file made from nothing
         * (which the schema's kinds then work on) */
        if ((seed >> 10) % 4 != 0 || pcd_mut_generate(m) != PCD_OK || pcd_mut_encode(m, out_buf, max_size < sizeof out_buf ? max_size : sizeof out_buf, &len) != PCD_OK || len == 0)
            return LLVMFuzzerMutate(data, size, max_size);
        memcpy(data, out_buf, len);
        return len;
    }
    st = PCD_END;
    if (r < P.bytes_share + P.inner_share && pcd_mut_apply(m, PCD_MUT_INNER_BYTES) == PCD_OK)
        st = pcd_mut_encode(m, out_buf, cap, &len);
    else if (r >= P.bytes_share + P.inner_share && r < P.bytes_share + P.inner_share + P.wire_share)
        st = pcd_mut_wire_input(m, data, size, out_buf, cap, &len);
    if (st != PCD_OK) st = pcd_mut_fuzz(m, data, size, out_buf, cap, &len);
    if (st != PCD_OK || len == 0) return LLVMFuzzerMutate(data, size, max_size);
    if (P.verbose) fprintf(stderr, "%s\n", pcd_mut_describe(m));
    memcpy(data, out_buf, len);
    return len;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed)
{
    pcd_mut *m = plugin_session(&P, data1, size1);
    if (!m) return 0;
    pcd_mut_reseed(m, seed);
    size_t len = 0;
    if (pcd_mut_load(m, data1, size1) != PCD_OK || pcd_mut_crossover(m, data2, size2) != PCD_OK ||
        pcd_mut_encode(m, out, max_out_size, &len) != PCD_OK)
        return 0;   /* libFuzzer then does without */
    if (P.verbose) fprintf(stderr, "%s\n", pcd_mut_describe(m));
    return len;
}
