/* test_tachyon_warnings.c: the warnings schemas/tachyon/v1.lua declares (warn = ...), which
 * profcodec validate reports from the generated code (pcd_record_warnings), say exactly what
 * the hand-written checks said about the same fields before they moved to the schema (issue
 * 14): same offsets, paths, expectations and values found, on every Tachyon file of the test
 * data and the shared corpus, as they are and with each header anomaly patched in. Those
 * checks are kept here, as they were (reference_root), as the test's independent reference;
 * src/formats/tachyon/check.c no longer makes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachyon_v1.h"

typedef struct said {
    size_t n;
    char text[16][256];
} said;

/* the fields the schema's warnings cover */
static bool covered(const char *msg)
{
    static const char *const paths[] = { ": compression:", ": python_version.reserved:", ": config:", ": stats_version:",
                                         ": stats_size:" };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (strstr(msg, paths[i])) return true;
    return false;
}

static void keep(said *s, const pcd_error *e)
{
    char b[256];
    pcd_error_format(e, b, sizeof b);
    if (covered(b) && s->n < 16) snprintf(s->text[s->n++], sizeof s->text[0], "%s", b);
}

static void on_schema(void *ud, const pcd_error *e) { keep(ud, e); }

/* The checks src/lib/tachyon_ext.c's check_root made about these fields before issue 14
 * (the schema's warnings replace them), word for word: the reference. */
static void say(said *s, uint64_t offset, const char *path, const char *expected, pcd_found_kind fk, uint64_t found)
{
    pcd_error e;
    memset(&e, 0, sizeof e);
    e.offset = offset;
    e.expected = expected;
    e.found_kind = fk;
    e.found = found;
    pcd_error_push(&e, path, -1);
    keep(s, &e);
}

static void reference_root(const pcd_tachyon_v1_file *h, uint64_t input_size, said *s)
{
    if (h->compression > 1)
        say(s, 56, "compression", "0 (none) or 1 (zstd); CPython reads other values as none", PCD_FOUND_UINT,
            h->compression);
    if (h->python_version.reserved)
        say(s, 8 + 3, "python_version.reserved", "0 (reserved)", PCD_FOUND_UINT, h->python_version.reserved);
    if ((h->config & 8) == 0 && (h->config >> 4) != 0)
        say(s, 60, "config", "no feature bits when bit 3 (features known) is clear", PCD_FOUND_HEX, h->config);
    else if (h->config >> 9)
        say(s, 60, "config", "no bits above bit 8 (CPython ignores them)", PCD_FOUND_HEX, h->config);
    if (h->stats_tag && h->stats_version != 1)
        say(s, input_size ? input_size - 40 : 0, "stats_version",
            "statistics block version 1 (CPython ignores other versions)", PCD_FOUND_UINT, h->stats_version);
    if (h->stats_tag && h->stats_size != 56 && h->stats_size != 32)
        say(s, input_size ? input_size - 36 : 0, "stats_size", "a statistics block of 56 bytes (or 32, the legacy form)",
            PCD_FOUND_UINT, h->stats_size);
}

static int cmp(const void *a, const void *b) { return strcmp(a, b); }

/* Both sets of warnings about the root of p (false when it does not decode). */
static bool warnings(const uint8_t *p, size_t n, said *schema, said *ref)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_tachyon_v1_format, p, n, &o), PCD_OK);
    pcd_record rec;
    memset(schema, 0, sizeof *schema);
    memset(ref, 0, sizeof *ref);
    bool ok = pcd_reader_next(&r, &rec) == PCD_OK && rec.depth == 0;
    if (ok) {
        pcd_record_warnings(&rec, on_schema, schema);
        reference_root(rec.data, rec.input_size, ref);
    }
    pcd_reader_close(&r);
    qsort(schema->text, schema->n, sizeof schema->text[0], cmp);
    qsort(ref->text, ref->n, sizeof ref->text[0], cmp);
    return ok;
}

static size_t compared, warned;

static void same(const uint8_t *p, size_t n, const char *what)
{
    said a, b;
    if (!warnings(p, n, &a, &b)) return;
    compared++;
    if (a.n != b.n) {
        for (size_t i = 0; i < a.n; i++) print_message("schema: %s\n", a.text[i]);
        for (size_t i = 0; i < b.n; i++) print_message("ref:    %s\n", b.text[i]);
        fail_msg("%s: %zu warnings from the schema, %zu from the reference checks", what, a.n, b.n);
    }
    for (size_t i = 0; i < a.n; i++) assert_string_equal(a.text[i], b.text[i]);
    warned += a.n;
}

static void st32(uint8_t *p, uint32_t v, bool big)
{
    if (big) pcd_st_u32be(p, v);
    else pcd_st_u32le(p, v);
}

static uint32_t ld32(const uint8_t *p, bool big) { return big ? pcd_ld_u32be(p) : pcd_ld_u32le(p); }

/* The file as it is, then with each anomaly the warnings are about. */
static void variants(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    static uint8_t buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 96 || n == sizeof buf) return;
    bool big = memcmp(buf, "TACH", 4) == 0;
    static uint8_t v[1 << 22];
    same(buf, n, path);
    uint32_t config = ld32(buf + PCD_TACHYON_V1_FILE_CONFIG_AT, big);
    struct {
        size_t at;
        uint32_t value;
        bool byte;
    } patch[] = {
        { PCD_TACHYON_V1_FILE_COMPRESSION_AT, 7, false },
        { PCD_TACHYON_V1_FILE_PYTHON_VERSION_AT + PCD_TACHYON_V1_FILE_PYTHON_VERSION_RESERVED_AT, 1, true },
        /* features without bit 3; bits above 8 with bit 3; both */
        { PCD_TACHYON_V1_FILE_CONFIG_AT, (config & ~PCD_TACHYON_V1_FILE_CONFIG_FEATURES_KNOWN_MASK) | 1u << 5, false },
        { PCD_TACHYON_V1_FILE_CONFIG_AT, config | PCD_TACHYON_V1_FILE_CONFIG_FEATURES_KNOWN_MASK | 1u << 12, false },
        { PCD_TACHYON_V1_FILE_CONFIG_AT, (config & ~PCD_TACHYON_V1_FILE_CONFIG_FEATURES_KNOWN_MASK) | 1u << 20, false },
        /* the statistics block's version (when there is one) */
        { n - PCD_TACHYON_V1_FILE_STATS_VERSION_AT_END, 2, false },
    };
    for (size_t i = 0; i < sizeof patch / sizeof patch[0]; i++) {
        memcpy(v, buf, n);
        if (patch[i].byte) v[patch[i].at] = (uint8_t)patch[i].value;
        else st32(v + patch[i].at, patch[i].value, big);
        same(v, n, path);
    }
}

static void each_bin(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".bin") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            variants(path);
        }
    }
    closedir(d);
}

static void test_same_warnings(void **state)
{
    (void)state;
    each_bin(PCD_TESTDATA "/tachyon");
    each_bin(PCD_CORPUS "/tachyon");
    print_message("%zu files compared, %zu warnings agreed on\n", compared, warned);
    assert_true(compared >= 7 * 5);
    assert_true(warned >= compared / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_same_warnings) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
