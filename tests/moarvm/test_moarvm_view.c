/* test_moarvm_view.c: the generated view of a format 2 reference (generated/moarvm_view.h,
 * declared in schemas/moarvm/v2.lua) holds the description, index and target whatever the
 * width of its case, as moarvm_snap.c's format 2 adapter reads them case by case; and
 * format 3's refdescr layout (schemas/moarvm/v3.lua) packs and unpacks them as the adapter
 * and the column reader do by hand (idx << 2 | d, d & 3, d >> 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moarvm_view.h"
#include "moarvm_v3.h"

static void test_ref_view(void **state)
{
    (void)state;
    /* the refdescr word */
    for (uint64_t d = 0; d < 4; d++) {
        uint64_t idx = UINT64_C(0x123456789) + d;
        uint64_t w = pcd_moarvm_v3_refdescr_make((uint8_t)d, idx);
        assert_true(w == (idx << 2 | d));
        assert_int_equal(pcd_moarvm_v3_refdescr_kind(w), w & 3);
        assert_true(pcd_moarvm_v3_refdescr_index(w) == w >> 2);
    }
    FILE *f = fopen(PCD_CORPUS "/moarvm/nqp-v2-stock-debian.mvmheap", "rb");
    if (!f) {
        print_message("no shared corpus: the synthetic references only\n");
    }
    size_t refs = 0, widths[4] = { 0 };
    if (f) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *p = malloc((size_t)n);
        size_t got = fread(p, 1, (size_t)n, f);
        fclose(f);
        pcd_alloc al;
        pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
        pcd_reader r;
        pcd_reader_opts o = { &al, NULL, 0, false };
        assert_int_equal(pcd_reader_open_buffer(&r, &pcd_moarvm_v2_format, p, got, &o), PCD_OK);
        pcd_record rec;
        while (pcd_reader_next(&r, &rec) == PCD_OK) {
            pcd_moarvm_ref_view v;
            if (!pcd_moarvm_ref_view_of(&rec, &v)) continue;
            const pcd_moarvm_v2_ref *x = rec.data;
            uint64_t d, idx, t;
            switch (x->which) {
            case PCD_MOARVM_V2_REF_REF8: d = x->u.ref8.descr, idx = x->u.ref8.index, t = x->u.ref8.target; break;
            case PCD_MOARVM_V2_REF_REF16: d = x->u.ref16.descr, idx = x->u.ref16.index, t = x->u.ref16.target; break;
            case PCD_MOARVM_V2_REF_REF32: d = x->u.ref32.descr, idx = x->u.ref32.index, t = x->u.ref32.target; break;
            default: d = x->u.ref64.descr, idx = x->u.ref64.index, t = x->u.ref64.target; break;
            }
            assert_true(v.has_descr && v.has_index && v.has_target);
            assert_true(v.descr == d && v.index == idx && v.target == t);
            assert_int_equal(v.kind, (int)x->which);
            widths[x->which]++;
            refs++;
        }
        pcd_reader_close(&r);
        free(p);
        assert_true(refs > 1000);
    }
    print_message("%zu references (8: %zu, 16: %zu, 32: %zu, 64: %zu bits)\n", refs, widths[0], widths[1], widths[2],
                  widths[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_ref_view) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
