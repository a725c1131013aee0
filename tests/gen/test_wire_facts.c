/* test_wire_facts.c: the generated names that stand for the wire facts code above the bytes
 * wrote as literals before issue 14 (its list), with the values those literals had: src/
 * uses the names instead, and nothing changed. A fact that moves in a schema fails here;
 * tests/gen/wire_literals.sh keeps the literals out of src/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "heph_v0_1.h"
#include "moarvm_v3.h"
#include "moarvm_view.h"
#include "mojo_v3.h"
#include "mojo_view.h"
#include "mono_v3_0.h"
#include "tachyon_v1.h"

/* tachyon_ext.c: input_size - 24 / - 16 / - 40 / - 36; string_table_offset - 64 */
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_FILE_SIZE_AT_END == 24, "file_size");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CHECKSUM_AT_END == 16, "checksum");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_STATS_VERSION_AT_END == 40, "stats_version");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_STATS_SIZE_AT_END == 36, "stats_size");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_SAMPLES_AT == 64, "the samples start after the 64-byte header");
/* tachyon_ext.c: statistics blocks of 56 and 32 bytes */
PCD_STATIC_ASSERT(PCD_TACHYON_V1_STATS_FULL_SIZE + PCD_TACHYON_V1_FILE_STATS_SIZE_EXTRA == 56, "stats 56");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_STATS_MIN_SIZE + PCD_TACHYON_V1_FILE_STATS_SIZE_EXTRA == 32, "stats 32 (legacy)");
/* tachyon_ext.c and tachyon_replay.c: config bit 3, bits 4-8, bits 9 and up, mode bits 0-2 */
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CONFIG_FEATURES_KNOWN_MASK == 8, "bit 3");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CONFIG_FEATURES_MASK == 31u << 4, "bits 4-8");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CONFIG_FEATURES_SHIFT == 4, "features from bit 4");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CONFIG_RESERVED_SHIFT == 9, "bits 9 and up");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_CONFIG_MODE_MASK == 7, "mode bits 0-2");
/* moarvm_snap.c: the TOC's self pointer, the last 8 bytes; moarvm_write.c: 16 + 24 * n */
PCD_STATIC_ASSERT(PCD_MOARVM_V3_TOC_BLOCK_SELF_FROM_END == 8, "self");
PCD_STATIC_ASSERT(PCD_MOARVM_V3_BLOCK_TAG_SIZE + PCD_MOARVM_V3_TOC_BLOCK_ENTRIES_AT == 16, "kind name and count");
PCD_STATIC_ASSERT(PCD_MOARVM_V3_TOC_ENTRY_SIZE == 24, "a TOC entry");
/* moarvm_snap.c: refdescr d & 3, d >> 2 */
PCD_STATIC_ASSERT(PCD_MOARVM_V3_REFDESCR_KIND_MASK == 3 && PCD_MOARVM_V3_REFDESCR_INDEX_SHIFT == 2, "refdescr");
/* mono_ext.c: tag & 0x0f */
PCD_STATIC_ASSERT(PCD_MONO_V3_0_EVENT_TAG_TYPE_MASK == 0x0f, "the type nibble");
/* heph_ext.c: type & 0x80 */
PCD_STATIC_ASSERT(PCD_HEPH_V0_1_ATTRIBUTE_TYPE_ARRAY_MASK == 0x80, "the array flag");
/* the other literals the sweep found: Tachyon's present bits 1 and 2, compression 1, opcode
 * 255, depth 256, stack tags 0-3, status bits; MoarVM's refdescr kinds 0, 1, 2 and block
 * names; Mono's metadata types 1..7, GC events 0 and 5, monitor events 1..3; MOJO's tags
 * (1 metadata ... 11 string); Heph's type 1 */
PCD_STATIC_ASSERT(PCD_TACHYON_V1_STATS_PRESENT_ERROR_RATE_MASK == 1 && PCD_TACHYON_V1_STATS_PRESENT_MISSED_SAMPLES_MASK == 2,
                  "present");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_FILE_COMPRESSION_ZSTD == 1 && PCD_TACHYON_V1_FRAME_OPCODE_ABSENT == 255 &&
                      PCD_TACHYON_V1_SAMPLE_STACK_FULL_FRAMES_MAX_COUNT == 256,
                  "compression, opcode, depth");
PCD_STATIC_ASSERT(PCD_TACHYON_V1_SAMPLE_STACK_REPEAT_TAG == 0 && PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH_TAG == 3 &&
                      PCD_TACHYON_V1_THREAD_STATUS_ON_CPU_MASK == 2 && PCD_TACHYON_V1_THREAD_STATUS_UNKNOWN_MASK == 4 &&
                      PCD_TACHYON_V1_THREAD_STATUS_MAIN_THREAD_MASK == 32,
                  "stack tags, status");
PCD_STATIC_ASSERT(PCD_MOARVM_V3_REFDESCR_KIND_UNKNOWN == 0 && PCD_MOARVM_V3_REFDESCR_KIND_INDEX == 1 &&
                      PCD_MOARVM_V3_REFDESCR_KIND_STRING == 2,
                  "refdescr kinds");
PCD_STATIC_ASSERT(PCD_MONO_V3_0_METADATA_TYPE_CLASS == 1 && PCD_MONO_V3_0_METADATA_TYPE_VTABLE == 7 &&
                      PCD_MONO_V3_0_GC_EVENT_START == 0 && PCD_MONO_V3_0_GC_EVENT_END == 5 &&
                      PCD_MONO_V3_0_MONITOR_EVENT_CONTENTION == 1 && PCD_MONO_V3_0_MONITOR_EVENT_FAIL == 3,
                  "Mono values");
PCD_STATIC_ASSERT(PCD_MOJO_V3_EVENT_METADATA_TAG == 1 && PCD_MOJO_V3_EVENT_STACK_TAG == 2 && PCD_MOJO_V3_EVENT_FRAME_TAG == 3 &&
                      PCD_MOJO_V3_EVENT_INVALID_TAG == 4 && PCD_MOJO_V3_EVENT_FRAME_REF_TAG == 5 &&
                      PCD_MOJO_V3_EVENT_KERNEL_TAG == 6 && PCD_MOJO_V3_EVENT_GC_TAG == 7 && PCD_MOJO_V3_EVENT_IDLE_TAG == 8 &&
                      PCD_MOJO_V3_EVENT_TIME_TAG == 9 && PCD_MOJO_V3_EVENT_MEMORY_TAG == 10 &&
                      PCD_MOJO_V3_EVENT_STRING_TAG == 11,
                  "MOJO tags");
PCD_STATIC_ASSERT(PCD_HEPH_V0_1_ATTRIBUTE_TYPE_U64 == 1, "Heph u64");

static void test_wire_facts(void **state)
{
    (void)state;
    /* the accessors agree with the hand-written bit twiddling */
    for (uint32_t config = 0; config < (1u << 12); config += 7) {
        int features = (config & 8) ? (int)((config >> 4) & 31) : -1;
        int gen = pcd_tachyon_v1_file_config_features_known(config) ? pcd_tachyon_v1_file_config_features(config) : -1;
        assert_int_equal(features, gen);
        assert_int_equal(config >> 9, pcd_tachyon_v1_file_config_reserved(config));
        assert_int_equal(config & 7, pcd_tachyon_v1_file_config_mode(config));
    }
    for (unsigned t = 0; t < 256; t++) {
        assert_int_equal(t & 0x0f, pcd_mono_v3_0_event_tag_type((uint8_t)t));
        assert_int_equal((t & 0x80) != 0, pcd_heph_v0_1_attribute_type_array((uint8_t)t));
    }
    uint64_t d = UINT64_C(0xfedcba9876543212);
    assert_int_equal(d & 3, pcd_moarvm_v3_refdescr_kind(d));
    assert_true((d >> 2) == pcd_moarvm_v3_refdescr_index(d));
    assert_true(pcd_moarvm_v3_refdescr_make(2, d >> 2) == d);
    /* tachyon_replay.c and tachyon_writer.c: the end deltas, both ways */
    pcd_tachyon_v1_frame f = { 0 };
    int32_t loc[4] = { 12, 15, 4, 9 };
    f.lineno = loc[0];
    f.end_lineno_delta = (loc[0] != -1 && loc[1] != -1) ? (int32_t)((uint32_t)loc[1] - (uint32_t)loc[0]) : 0;
    f.column = loc[2];
    f.end_column_delta = (loc[2] != -1 && loc[3] != -1) ? (int32_t)((uint32_t)loc[3] - (uint32_t)loc[2]) : 0;
    assert_int_equal(f.end_lineno_delta, pcd_tachyon_v1_frame_end_lineno_delta_of(loc[0], loc[1]));
    assert_int_equal(f.end_column_delta, pcd_tachyon_v1_frame_end_column_delta_of(loc[2], loc[3]));
    assert_int_equal(pcd_tachyon_v1_frame_end_lineno(&f), 15);
    assert_int_equal(pcd_tachyon_v1_frame_end_column(&f), 9);
    f.column = -1;
    assert_int_equal(pcd_tachyon_v1_frame_end_column(&f), -1);
    assert_int_equal(pcd_tachyon_v1_frame_end_column_delta_of(-1, 9), 0);
    /* tachyon_writer.c: its own uleb_size, and regions found by name */
    assert_int_equal(pcd_size_uleb128(127), 1);
    assert_int_equal(pcd_size_uleb128(128), 2);
    assert_int_equal(pcd_size_uleb128(UINT64_MAX), 10);
    const char *names[] = { "samples", "strings", "frames", "stats" };
    const pcd_region_desc *regions[] = { &pcd_tachyon_v1_region_samples, &pcd_tachyon_v1_region_strings,
                                         &pcd_tachyon_v1_region_frames, &pcd_tachyon_v1_region_stats };
    for (int i = 0; i < 4; i++) assert_string_equal(regions[i]->name, names[i]);
    /* MoarVM's block names */
    assert_string_equal(PCD_MOARVM_V3_BLOCK_FILEMETA_TAG, "filemeta");
    assert_string_equal(PCD_MOARVM_V3_BLOCK_TOC_TAG, "toc");
    assert_string_equal(PCD_MOARVM_V3_BLOCK_TOP_IDS_TAG, "topIDs");
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_wire_facts) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
