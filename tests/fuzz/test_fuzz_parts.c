/* test_fuzz_parts.c: the parts of `profcodec fuzz` that do not mutate: reading a failed reader's
 * report (sanitizers, Go, Python, gdb, libFuzzer) and the signatures findings are told apart
 * by; the byte minimizer; byte-level mutations; the process runner (exit, signal, time limit,
 * memory cap, captured text); profcodec's own reading for differential runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fuzz_proc.h"
#include "fuzz/bytemut.h"
#include "fuzz/minimize.h"
#include "fuzz/reading.h"
#include "fuzz/report.h"

#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* ---- reports --------------------------------------------------------------------------------- */

static const char asan_text[] =
    "INFO: Seed: 1\n"
    "=================================================================\n"
    "==13388==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60200000001c at pc 0x562d5177df7e bp "
    "0x7ffd94793610 sp 0x7ffd94793608\n"
    "READ of size 4 at 0x60200000001c thread T0\n"
    "    #0 0x562d5177df7d in __asan_memcpy (/tmp/t+0xa414e) (BuildId: 0b8ae4b1)\n"
    "    #1 0x562d5177df7d in read_frame /src/reader.c:3:30\n"
    "    #2 0x562d5177dffd in read_file /src/reader.c:40:5\n"
    "    #3 0x562d5177dffd in main /src/main.c:4:56\n"
    "    #4 0x7fba91fe3249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16\n"
    "\n"
    "0x60200000001c is located 4 bytes to the right of 8-byte region [0x602000000010,0x602000000018)\n"
    "allocated by thread T0 here:\n"
    "    #0 0x562d5174314e in __interceptor_malloc (/tmp/t+0xa414e) (BuildId: 0b8ae4b1)\n"
    "    #1 0x562d5177dfaf in alloc_table /src/reader.c:9:37\n"
    "\n"
    "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/reader.c:3:30 in read_frame\n";

/* the same bug another time: other addresses, other sizes */
static const char asan_text2[] =
    "==991==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60b000000abc at pc 0x5555 bp 0x7f sp 0x7e\n"
    "READ of size 8 at 0x60b000000abc thread T0\n"
    "    #0 0x5555 in read_frame /src/reader.c:3:30\n"
    "    #1 0x5556 in read_file /src/reader.c:40:5\n"
    "    #2 0x5557 in main /src/main.c:4:56\n"
    "\n";

static const char segv_text[] =
    "AddressSanitizer:DEADLYSIGNAL\n"
    "==7==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x55 bp 0x7f sp 0x7e T0)\n"
    "==7==The signal is caused by a WRITE memory access.\n"
    "==7==Hint: address points to the zero page.\n"
    "    #0 0x55 in check_frame /src/planted.c:20:9\n"
    "    #1 0x56 in main /src/planted.c:44:5\n";

static const char ubsan_text[] =
    "some output first\n"
    "/src/u.c:1:24: runtime error: shift exponent 41 is too large for 32-bit type 'int'\n"
    "    #0 0x56323fbf6dcc in g /src/u.c:1:24\n"
    "    #1 0x56323fbf6dfd in main /src/u.c:2:35\n"
    "\n"
    "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior u.c:1:24 in \n";

static const char go_text[] =
    "panic: runtime error: index out of range [5] with length 2\n"
    "\n"
    "goroutine 1 [running]:\n"
    "github.com/google/pprof/profile.(*Profile).postDecode(0xc000104000)\n"
    "\t/usr/share/go-1.19/src/cmd/vendor/github.com/google/pprof/profile/encode.go:250 +0x1a5\n"
    "github.com/google/pprof/profile.parseUncompressed({0xc000180000, 0x2a, 0x200})\n"
    "\t/usr/share/go-1.19/src/cmd/vendor/github.com/google/pprof/profile/profile.go:190 +0x13e\n"
    "main.main()\n"
    "\t/tmp/h.go:12 +0x1e\n"
    "exit status 2\n";

static const char go_text2[] =
    "panic: runtime error: index out of range [17] with length 3\n"
    "\n"
    "goroutine 1 [running]:\n"
    "github.com/google/pprof/profile.(*Profile).postDecode(0xc0000a2000)\n"
    "\t/usr/share/go-1.19/src/cmd/vendor/github.com/google/pprof/profile/encode.go:250 +0x1a5\n"
    "github.com/google/pprof/profile.parseUncompressed({0xc000190000, 0x30, 0x200})\n"
    "\t/x/profile.go:190 +0x13e\n"
    "main.main()\n"
    "\t/tmp/h.go:12 +0x1e\n";

static const char py_text[] =
    "Traceback (most recent call last):\n"
    "  File \"/usr/bin/harness.py\", line 9, in <module>\n"
    "    main()\n"
    "  File \"/opt/austin/format/mojo.py\", line 210, in read_event\n"
    "    return self._events[kind]()\n"
    "  File \"/opt/austin/format/mojo.py\", line 120, in read_frame\n"
    "    line = self.read_int()\n"
    "IndexError: list index out of range\n";

static const char pyfatal_text[] =
    "Fatal Python error: Segmentation fault\n"
    "\n"
    "Current thread 0x00007f3c1a (most recent call first):\n"
    "  File \"/opt/reader.py\", line 33 in read_chunk\n"
    "  File \"/opt/reader.py\", line 80 in main\n"
    "\n";

static const char gdb_text[] =
    "Program received signal SIGSEGV, Segmentation fault.\n"
    "0x0000555555555189 in ?? ()\n"
    "#0  0x0000555555555189 in ?? ()\n"
    "#1  0x00007ffff7df018a in __libc_start_call_main (main=main@entry=0x555555555139, argc=2) at "
    "../sysdeps/nptl/libc_start_call_main.h:58\n"
    "#2  0x00007ffff7df0245 in __libc_start_main_impl (main=0x1) at ../csu/libc-start.c:381\n"
    "#3  0x0000555555555075 in ?? ()\n";

static const char gdb_sym_text[] =
    "#0  __pthread_kill_implementation (threadid=1, signo=6) at ./nptl/pthread_kill.c:44\n"
    "#1  0x00007ffff7e0bf1f in __pthread_kill_internal (signo=6) at ./nptl/pthread_kill.c:78\n"
    "#2  0x00007ffff7dbcfb2 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n"
    "#3  0x00007ffff7da7472 in __GI_abort () at ./stdlib/abort.c:79\n"
    "#4  0x0000555555555189 in read_header (f=0x0) at mprof.c:120\n"
    "#5  0x0000555555555200 in main () at mprof.c:300\n";

static const char gdb_libc_text[] =
    "#0  __strlen_evex () at ../sysdeps/x86_64/multiarch/strlen-evex.S:79\n"
    "#1  0x00007ffff7e12258 in __vfprintf_internal (s=0x7ffff7f88760 <_IO_2_1_stdout_>, format=0x7ff \"%s\", "
    "mode_flags=2) at ./stdio-common/vfprintf-process-arg.c:397\n"
    "#2  0x00007ffff7ecab0f in ___fprintf_chk (fp=<optimized out>) at ./debug/fprintf_chk.c:33\n"
    "#3  0x0000555555558988 in ?? ()\n"
    "#4  0x0000555555558f8b in ?? ()\n"
    "#5  0x000055555556091b in ?? ()\n";

static const char libfuzzer_text[] =
    "==5== ERROR: libFuzzer: deadly signal\n"
    "    #0 0x4f in __sanitizer_print_stack_trace (/f+0x4f)\n"
    "    #1 0x50 in fuzzer::PrintStackTrace() (/f+0x50)\n"
    "    #2 0x51 in raise (/lib/libc.so.6+0x51)\n"
    "    #3 0x52 in abort (/lib/libc.so.6+0x52)\n"
    "    #4 0x53 in tachyon_read_samples /src/binary_io_reader.c:812:9\n"
    "    #5 0x54 in LLVMFuzzerTestOneInput /src/h.c:20:5\n";

static void parse(const char *text, pcd_fz_report *r, char *sig, size_t cap)
{
    assert_true(pcd_fz_report_parse(text, strlen(text), r));
    pcd_fz_signature(NULL, r, sig, cap);
}

static void test_asan(void **state)
{
    (void)state;
    pcd_fz_report r, r2;
    char sig[512], sig2[512];
    parse(asan_text, &r, sig, sizeof sig);
    assert_int_equal(r.kind, PCD_FZ_ASAN);
    assert_string_equal(r.what, "heap-buffer-overflow READ");
    assert_int_equal(r.n_frames, 3); /* __asan_memcpy is the sanitizer's, not the reader's */
    assert_string_equal(r.frames[0], "read_frame");
    assert_string_equal(r.frames[1], "read_file");
    assert_string_equal(r.where, "/src/reader.c:3:30");
    assert_string_equal(r.title, "AddressSanitizer: heap-buffer-overflow (READ of size 4)");
    assert_string_equal(sig, "asan|heap-buffer-overflow READ|read_frame|read_file|main");
    /* the same bug with other addresses and sizes: one finding */
    parse(asan_text2, &r2, sig2, sizeof sig2);
    assert_string_equal(sig, sig2);
    parse(segv_text, &r, sig, sizeof sig);
    assert_string_equal(sig, "asan|SEGV WRITE|check_frame|main");
    assert_string_equal(r.title, "AddressSanitizer: SEGV on unknown address (WRITE)");
}

static void test_ubsan(void **state)
{
    (void)state;
    pcd_fz_report r;
    char sig[512];
    parse(ubsan_text, &r, sig, sizeof sig);
    assert_int_equal(r.kind, PCD_FZ_UBSAN);
    assert_string_equal(r.where, "u.c:1");
    assert_string_equal(r.what, "shift exponent N is too large for N-bit type 'int'");
    assert_string_equal(sig, "ubsan|shift exponent N is too large for N-bit type 'int'|u.c:1|g|main");
}

static void test_go(void **state)
{
    (void)state;
    pcd_fz_report r, r2;
    char sig[512], sig2[512];
    parse(go_text, &r, sig, sizeof sig);
    assert_int_equal(r.kind, PCD_FZ_GO);
    assert_int_equal(r.n_frames, 3);
    assert_string_equal(r.frames[0], "github.com/google/pprof/profile.(*Profile).postDecode");
    assert_string_equal(r.frames[1], "github.com/google/pprof/profile.parseUncompressed");
    assert_string_equal(r.frames[2], "main.main");
    assert_string_equal(r.what, "panic: runtime error: index out of range [N] with length N");
    parse(go_text2, &r2, sig2, sizeof sig2);
    assert_string_equal(sig, sig2);
}

static void test_python(void **state)
{
    (void)state;
    pcd_fz_report r;
    char sig[512];
    parse(py_text, &r, sig, sizeof sig);
    assert_int_equal(r.kind, PCD_FZ_PYTHON);
    assert_string_equal(r.what, "IndexError");
    assert_string_equal(r.frames[0], "mojo.py:read_frame"); /* innermost first */
    assert_string_equal(r.frames[1], "mojo.py:read_event");
    assert_string_equal(r.title, "IndexError: list index out of range");
    parse(pyfatal_text, &r, sig, sizeof sig);
    assert_string_equal(r.what, "Fatal Python error: Segmentation fault");
    assert_string_equal(r.frames[0], "reader.py:read_chunk");
    assert_string_equal(r.frames[1], "reader.py:main");
}

static void test_gdb_and_libfuzzer(void **state)
{
    (void)state;
    pcd_fz_report r;
    char sig[512];
    memset(&r, 0, sizeof r);
    assert_int_equal(pcd_fz_gdb_frames(gdb_text, strlen(gdb_text), &r), 2);
    assert_int_equal(r.kind, PCD_FZ_GDB);
    pcd_fz_signature("signal|SIGSEGV", &r, sig, sizeof sig);
    assert_string_equal(sig, "signal|SIGSEGV|0x0000555555555189|0x0000555555555075");
    memset(&r, 0, sizeof r);
    assert_int_equal(pcd_fz_gdb_frames(gdb_sym_text, strlen(gdb_sym_text), &r), 2);
    assert_string_equal(r.frames[0], "read_header"); /* abort's own frames left out */
    assert_string_equal(r.frames[1], "main");
    /* a crash inside the C library: its first frame, then the program's */
    memset(&r, 0, sizeof r);
    assert_int_equal(pcd_fz_gdb_frames(gdb_libc_text, strlen(gdb_libc_text), &r), 3);
    pcd_fz_signature("signal|SIGSEGV", &r, sig, sizeof sig);
    assert_string_equal(sig, "signal|SIGSEGV|__strlen_evex|0x0000555555558988|0x0000555555558f8b");
    parse(libfuzzer_text, &r, sig, sizeof sig);
    assert_int_equal(r.kind, PCD_FZ_LIBFUZZER);
    assert_string_equal(sig, "libfuzzer|deadly signal|tachyon_read_samples|LLVMFuzzerTestOneInput");
    /* nothing to report */
    assert_false(pcd_fz_report_parse("all fine\nexit 0\n", 16, &r));
    char norm[64];
    pcd_fz_normalize_line("at 0x7ffd93 read 12 of -4 items v2\n", 35, norm, sizeof norm);
    assert_string_equal(norm, "at N read N of N items v2");
}

/* ---- the byte minimizer ------------------------------------------------------------------------ */

typedef struct needle {
    const char *what;
    int calls;
    int stop_after;
} needle;

/* fails while the bytes "BUG" are in it, preceded somewhere by a '<' */
static int has_bug(void *ud, const uint8_t *p, size_t n)
{
    needle *nd = ud;
    nd->calls++;
    if (nd->stop_after && nd->calls > nd->stop_after) return -1;
    const uint8_t *lt = memchr(p, '<', n);
    if (!lt) return 0;
    for (size_t i = (size_t)(lt - p); i + 3 <= n; i++)
        if (memcmp(p + i, nd->what, 3) == 0) return 1;
    return 0;
}

static void test_minimize(void **state)
{
    (void)state;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 1 << 20);
    uint8_t buf[600];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)('a' + i % 26);
    buf[100] = '<';
    memcpy(buf + 400, "BUG", 3);
    size_t n = sizeof buf;
    needle nd = { "BUG", 0, 0 };
    pcd_fz_min_stats st;
    assert_int_equal(pcd_fz_minimize_bytes(&al, buf, &n, 0, has_bug, &nd, &st), PCD_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(buf, "<BUG", 4);
    assert_false(st.stopped);
    assert_int_equal(st.tries, (uint64_t)nd.calls);
    assert_int_equal(al.in_use, 0);
    /* a budget, and an oracle that says stop: what was kept so far stays, and still fails */
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)('a' + i % 26);
    buf[10] = '<';
    memcpy(buf + 500, "BUG", 3);
    n = sizeof buf;
    assert_int_equal(pcd_fz_minimize_bytes(&al, buf, &n, 5, has_bug, &nd, &st), PCD_OK);
    assert_true(st.stopped);
    assert_int_equal(st.tries, 5);
    nd.calls = 0;
    assert_int_equal(has_bug(&nd, buf, n), 1);
    nd.stop_after = 3;
    nd.calls = 0;
    assert_int_equal(pcd_fz_minimize_bytes(&al, buf, &n, 0, has_bug, &nd, &st), PCD_OK);
    assert_true(st.stopped);
    nd.stop_after = 0;
    assert_int_equal(has_bug(&nd, buf, n), 1);
}

/* ---- byte mutations --------------------------------------------------------------------------- */

static void test_bytemut(void **state)
{
    (void)state;
    uint8_t a[256], b[256], other[32];
    char da[512], db[512];
    memset(other, 'o', sizeof other);
    for (int round = 0; round < 200; round++) {
        pcd_fz_rng r1 = { (uint64_t)round }, r2 = { (uint64_t)round };
        size_t na = 64, nb = 64;
        for (int i = 0; i < 64; i++) a[i] = b[i] = (uint8_t)i;
        da[0] = db[0] = 0;
        pcd_fz_mutate_bytes(&r1, a, &na, sizeof a, other, sizeof other, da, sizeof da);
        pcd_fz_mutate_bytes(&r2, b, &nb, sizeof b, other, sizeof other, db, sizeof db);
        /* deterministic, within the room given, and described */
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        assert_string_equal(da, db);
        assert_true(na <= sizeof a);
        assert_true(strncmp(da, "bytes:", 6) == 0 && strlen(da) > 7);
    }
    pcd_fz_rng r = { 7 };
    uint64_t seen = 0;
    for (int i = 0; i < 1000; i++) seen |= UINT64_C(1) << pcd_fz_below(&r, 64);
    assert_true(seen == UINT64_MAX);
}

/* ---- the process runner -------------------------------------------------------------------------- */

static pcd_fz_run run_helper(pcd_fz_runner *fr, const char *a1, const char *a2, double timeout, uint64_t rss)
{
    char *argv[4] = { (char *)PCD_FUZZ_HELPER, (char *)a1, (char *)a2, NULL };
    pcd_fz_cmd cmd;
    pcd_fz_cmd_init(&cmd, a2 ? 3 : 2, argv);
    pcd_fz_limits lim = { timeout, rss, 0, 0, 1 << 16 };
    pcd_fz_run res;
    assert_int_equal(pcd_fz_runner_run(fr, &cmd, "/dev/null", &lim, &res, NULL), 0);
    return res;
}

static void test_runner(void **state)
{
    (void)state;
    pcd_fz_runner fr;
    pcd_alloc fr_al;
    pcd_alloc_init(&fr_al, pcd_alloc_libc, NULL, 0);
    assert_int_equal(pcd_fz_runner_init(&fr, 1 << 16, &fr_al), 0);
    pcd_fz_run r = run_helper(&fr, "exit", "3", 10, 0);
    assert_int_equal(r.end, FZ_EXITED);
    assert_int_equal(r.code, 3);
    assert_string_equal(r.err, "exiting with 3\n");
    r = run_helper(&fr, "segv", NULL, 10, 0);
    assert_int_equal(r.end, FZ_SIGNALED);
    assert_int_equal(r.code, SIGSEGV);
    assert_string_equal(pcd_fz_signal_name(r.code), "SIGSEGV");
    r = run_helper(&fr, "sleep", "30", 0.3, 0);
    assert_int_equal(r.end, FZ_TIMEOUT);
    assert_true(r.wall_s < 5);
    /* a child holding the pipes does not hold the run */
    r = run_helper(&fr, "child-sleep", "30", 10, 0);
    assert_int_equal(r.end, FZ_EXITED);
    assert_true(r.wall_s < 5);
    /* the memory cap (not under sanitizers: their shadow memory counts too) */
#ifndef UNDER_ASAN
    r = run_helper(&fr, "alloc", "400", 30, (uint64_t)64 << 20);
    assert_int_equal(r.end, FZ_MEMORY);
    r = run_helper(&fr, "alloc", "8", 30, (uint64_t)512 << 20);
    assert_int_equal(r.end, FZ_EXITED);
#endif
    /* 200 kB of text through a 64 kB capture: its start and its end are kept */
    r = run_helper(&fr, "spam", "200", 10, 0);
    assert_int_equal(r.end, FZ_EXITED);
    assert_int_equal(r.err_total, 200 * 1024 + 14);
    assert_true(r.err_len < (1 << 16) + 100);
    assert_true(strncmp(r.err, "xxxx", 4) == 0);
    assert_non_null(strstr(r.err, "bytes not kept ..."));
    assert_true(r.err_len > 14 && strcmp(r.err + r.err_len - 14, "the last line\n") == 0);
    /* {} is the input; without it the input is standard input */
    char *argv[4] = { (char *)PCD_FUZZ_HELPER, "cat", "{}", NULL };
    pcd_fz_cmd cmd;
    assert_true(pcd_fz_cmd_init(&cmd, 3, argv));
    pcd_fz_limits lim = { 10, 0, 0, 0, 1 << 16 };
    assert_int_equal(pcd_fz_runner_run(&fr, &cmd, PCD_TESTDATA "/mojo/v3_full.mojo", &lim, &r, NULL), 0);
    assert_int_equal(r.out_total, 172);
    assert_false(pcd_fz_cmd_init(&cmd, 2, argv));
    assert_int_equal(pcd_fz_runner_run(&fr, &cmd, PCD_TESTDATA "/mojo/v3_basic.mojo", &lim, &r, NULL), 0);
    assert_int_equal(r.out_total, 253);
    /* a program that is not there */
    char *none[2] = { "/nonexistent/reader", NULL };
    pcd_fz_cmd_init(&cmd, 1, none);
    assert_int_equal(pcd_fz_runner_run(&fr, &cmd, "/dev/null", &lim, &r, NULL), 0);
    assert_int_equal(r.end, FZ_NOEXEC);
    pcd_fz_runner_free(&fr);
    assert_int_equal(fr_al.in_use, 0);
}

/* ---- profcodec's own reading ------------------------------------------------------------------------ */

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = malloc(1 << 22);
    *n = fread(buf, 1, 1 << 22, f);
    fclose(f);
    return buf;
}

static void test_reading(void **state)
{
    (void)state;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
    size_t n;
    uint8_t *data = slurp(PCD_TESTDATA "/mojo/v3_basic.mojo", &n);
    pcd_fz_reading rd;
    assert_int_equal(pcd_fz_read(NULL, data, n, &al, &rd), PCD_OK);
    assert_true(rd.accepted);
    assert_string_equal(rd.f->name, "mojo");
    assert_true(rd.has_totals);
    assert_true(rd.samples > 0);
    assert_int_equal(pcd_fz_total_index(&rd, "@samples"), -1);
    assert_int_equal(pcd_fz_total_index(&rd, "no such type"), -2);
    /* cut: not accepted, and why, with an offset */
    assert_int_equal(pcd_fz_read(NULL, data, n - 3, &al, &rd), PCD_OK);
    assert_false(rd.accepted);
    assert_non_null(strstr(rd.why, "offset"));
    /* not a profile at all */
    assert_int_equal(pcd_fz_read(NULL, (const uint8_t *)"hello, world", 12, &al, &rd), PCD_OK);
    assert_false(rd.accepted);
    assert_null(rd.f);
    assert_true(rd.why[0] != 0);
    free(data);
    /* gzip around a pprof profile is taken off; a damaged gzip layer is a reason */
    data = slurp(PCD_TESTDATA "/pprof/labels.cpu.pprof", &n);
    assert_int_equal(pcd_fz_read(NULL, data, n, &al, &rd), PCD_OK);
    assert_true(rd.accepted);
    assert_string_equal(rd.f->name, "pprof");
    assert_true(rd.has_totals && rd.n_types >= 1);
    data[n - 5] ^= 0x55; /* the stored size of the uncompressed data */
    assert_int_equal(pcd_fz_read(NULL, data, n, &al, &rd), PCD_OK);
    assert_false(rd.accepted);
    assert_non_null(strstr(rd.why, "gzip"));
    free(data);
    assert_int_equal(al.in_use, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asan),     cmocka_unit_test(test_ubsan),   cmocka_unit_test(test_go),
        cmocka_unit_test(test_python),   cmocka_unit_test(test_gdb_and_libfuzzer),
        cmocka_unit_test(test_minimize), cmocka_unit_test(test_bytemut), cmocka_unit_test(test_runner),
        cmocka_unit_test(test_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
