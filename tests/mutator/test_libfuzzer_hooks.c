/* test_libfuzzer_hooks.c: the libFuzzer plugin's hooks called as libFuzzer calls them, with a
 * stand-in for libFuzzer's own byte mutator (LLVMFuzzerMutate): structure-aware outputs that
 * decode, the byte-level share left to libFuzzer, crossover, and a schema named in the
 * environment. (The ASan build also runs a real libFuzzer with them: test_libfuzzer.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcd_mut.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

static unsigned byte_calls;

/* libFuzzer's byte mutator, as far as this test needs: one byte changed */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
    (void)max_size;
    byte_calls++;
    if (size) data[size / 2] ^= 0x55;
    return size;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[2][1 << 20];
    static int which;
    uint8_t *p = buf[which++ & 1];
    *n = fread(p, 1, sizeof buf[0], f);
    fclose(f);
    return p;
}

static bool decodes(const pcd_format *f, const uint8_t *p, size_t n)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false, false };
    if (pcd_reader_open_buffer(&r, f, p, n, &ro) != PCD_OK) return false;
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {}
    pcd_reader_close(&r);
    return st == PCD_END;
}

static void test_mutator_hook(void **state)
{
    (void)state;
    setenv("PCD_MUT_FORMAT", "mojo:3", 1);
    setenv("PCD_MUT_EVIL", "0", 1);
    setenv("PCD_MUT_BYTES", "0.25", 1);
    size_t n;
    const uint8_t *seed = slurp(PCD_TESTDATA "/mojo/v3_full.mojo", &n);
    static uint8_t data[1 << 20];
    unsigned structural = 0, same = 0;
    for (unsigned i = 0; i < 400; i++) {
        memcpy(data, seed, n);
        unsigned before = byte_calls;
        size_t len = LLVMFuzzerCustomMutator(data, n, sizeof data, i * 2654435761u);
        assert_true(len > 0 && len <= sizeof data);
        if (byte_calls != before) continue;
        structural++;
        same += len == n && memcmp(data, seed, n) == 0;
        /* evil off: what it writes decodes */
        assert_true(decodes(pcd_mutator_format(pcd_mutator_find("mojo", "3")), data, len));
    }
    /* about a quarter left to libFuzzer's byte mutations, the rest ours, and they change the file */
    assert_true(byte_calls > 40 && byte_calls < 180);
    assert_true(structural > 200);
    assert_true(same < structural / 10);
}

static void test_crossover_hook(void **state)
{
    (void)state;
    size_t n1, n2;
    const uint8_t *a = slurp(PCD_TESTDATA "/mojo/v3_full.mojo", &n1);
    const uint8_t *b = slurp(PCD_TESTDATA "/mojo/v3_multiproc.mojo", &n2);
    static uint8_t out[1 << 20];
    unsigned made = 0;
    for (unsigned i = 0; i < 50; i++) {
        size_t len = LLVMFuzzerCustomCrossOver(a, n1, b, n2, out, sizeof out, i);
        if (!len) continue;
        made++;
        assert_true(decodes(pcd_mutator_format(pcd_mutator_find("mojo", "3")), out, len));
    }
    assert_true(made > 25);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_mutator_hook), cmocka_unit_test(test_crossover_hook) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
