#!/usr/bin/env bash
# cpython.sh: CPython 3.15's binary profile reader (Modules/_remote_debugging/binary_io_reader.c,
# through profiling.sampling.binary_reader), fuzzed with Tachyon files mutated through
# schemas/tachyon. Two ways, the first that can be had:
#
# 1. Built from the source of Debian's python3.15 package with AddressSanitizer,
#    UndefinedBehaviorSanitizer and libFuzzer: `apt-get source python3.15` through a temporary apt
#    configuration on the same sid registry as ../shared/tools/cpython315-root.sh (or
#    PCD_CPYTHON_SRC naming an unpacked python3.15 source tree), configured with
#    --with-address-sanitizer --with-undefined-behavior-sanitizer and -fsanitize=fuzzer-no-link,
#    and cpython/libfuzzer.c linked with it and with profcodec's libFuzzer plugin
#    (make fuzz-tools: libpcdmut_libfuzzer.a). libFuzzer runs for SECONDS; what it finds is
#    triaged by `profcodec fuzz --replay` (confirmed, minimized, de-duplicated by stack).
#    Nothing of the source is checked in: it is fetched and built in out/cpython/ at run time.
# 2. Otherwise Debian's own build, as a program: python3.15 from Debian's binary packages in a
#    root made by ../shared/tools/cpython315-root.sh (PCD_CPYTHON315_ROOT, or made in
#    out/cpython/root), running cpython/replay.py on each file, under `profcodec fuzz` (crashes
#    with faulthandler's stack, exceptions the reader should not raise, hangs, memory blow-ups,
#    and the number of samples against profcodec's --diff). Not instrumented: no coverage.
#
# usage: cpython.sh SECONDS        a campaign (make fuzz-others)
#        cpython.sh --repro FILE   the reader on one file (the sanitizer build if there is one)
set -u
. "$(dirname "$0")/lib.sh"
base="$others/out/cpython"
mkdir -p "$base"

# ---- the source of Debian's python3.15, and the instrumented build --------------------------

fetch_source() { # prints the source tree's path, or why not on stderr
    if [ -n "${PCD_CPYTHON_SRC:-}" ]; then
        [ -f "$PCD_CPYTHON_SRC/Modules/_remote_debugging/binary_io_reader.c" ] && { echo "$PCD_CPYTHON_SRC"; return 0; }
        echo "PCD_CPYTHON_SRC=$PCD_CPYTHON_SRC has no Modules/_remote_debugging/binary_io_reader.c" >&2
        return 1
    fi
    local src="$base/src" work uri
    if [ -d "$src" ] && ls -d "$src"/python3.15-*/ >/dev/null 2>&1; then ls -d "$src"/python3.15-*/ | head -1; return 0; fi
    work=$(mktemp -d)
    uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    mkdir -p "$work"/{lists/partial,cache/archives/partial} "$src"
    echo "deb-src [trusted=yes] $uri sid main" >"$work/sources.list"
    : >"$work/status"
    local opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$work/lists" -o Dir::State::Status="$work/status"
                -o Dir::Cache="$work/cache" -o APT::Architecture=amd64)
    apt-get "${opts[@]}" update >"$work/log" 2>&1
    if ! (cd "$src" && apt-get "${opts[@]}" source python3.15 >>"$work/log" 2>&1); then
        echo "apt-get source python3.15 failed on $uri (sid):" >&2
        grep -E '^E:' "$work/log" | head -3 >&2
        rm -rf "$work"
        return 1
    fi
    rm -rf "$work"
    ls -d "$src"/python3.15-*/ | head -1
}

build_asan() { # SRC: builds out/cpython/asan/ and the harness in it; 0 when done
    local src=$1 b="$base/asan" tools="$root/build-fuzz-tools/fuzz/libpcdmut_libfuzzer.a"
    [ -x "$b/cpython_reader_fuzz" ] && return 0
    [ -f "$tools" ] || (cd "$root" && make fuzz-tools) || return 1
    mkdir -p "$b"
    (cd "$b" && CC=clang CXX=clang++ "$src/configure" --with-address-sanitizer --with-undefined-behavior-sanitizer \
        --without-pymalloc --disable-test-modules CFLAGS="-g -fsanitize=fuzzer-no-link" \
        LDFLAGS="-fsanitize=fuzzer-no-link" >configure.log 2>&1 && nice -n 10 make -j2 >make.log 2>&1) || {
        echo "cpython: the sanitizer build failed (see $b/configure.log, $b/make.log)" >&2
        return 1
    }
    # the harness beside the interpreter, so that it finds the build's standard library
    local libs
    libs=$(sed -n 's/^LIBS=[[:space:]]*//p; s/^SYSLIBS=[[:space:]]*//p; s/^MODLIBS=[[:space:]]*//p' "$b/Makefile" | tr '\n' ' ')
    clang -g -fsanitize=address,undefined,fuzzer -I"$src/Include" -I"$b" "$others/cpython/libfuzzer.c" \
        "$b"/libpython3.15*.a "$tools" $libs -lzstd -lz -lm -lpthread -ldl -lutil -Wl,--export-dynamic \
        -o "$b/cpython_reader_fuzz" || { echo "cpython: the harness does not link" >&2; return 1; }
}

# ---- Debian's build, as a program -------------------------------------------------------------

cpy_root() {
    local r=${PCD_CPYTHON315_ROOT:-$base/root}
    if [ ! -x "$r/usr/bin/python3.15" ]; then
        LC_ALL=C "$root/../shared/tools/cpython315-root.sh" "$r" >&2 || return 1
    fi
    echo "$r"
}

asan_env() {
    export PYTHONPATH="$others/cpython" PCD_MUT_FORMAT=tachyon
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:symbolize=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
}

if [ "${1:-}" = --repro ]; then
    if [ -x "$base/asan/cpython_reader_fuzz" ]; then
        asan_env
        exec "$base/asan/cpython_reader_fuzz" "$2"
    fi
    r=$(cpy_root) || exit 2
    exec "$others/cpython/run-in-root.sh" "$r" "$2"
fi
seconds=${1:-1800}
seeds="$base/seeds"
mkdir -p "$seeds"
cp "$root"/tests/data/tachyon/*.bin "$seeds/"
for f in "$root"/../shared/corpus/tachyon/*.bin; do [ -f "$f" ] && cp "$f" "$seeds/"; done
rm -f "$seeds/workload_all_zstd.bin" # 300 kB: too slow a seed

if src=$(fetch_source) && build_asan "$src"; then
    asan_env
    ver=$(sed -n 's/^PACKAGE_VERSION=[[:space:]]*//p' "$base/asan/Makefile" 2>/dev/null)
    work="$base/libfuzzer"
    mkdir -p "$work/corpus" "$work/artifacts"
    echo "== cpython (python3.15 $ver, ASan+UBSan+libFuzzer): libFuzzer for ${seconds}s, load $(load_avg)"
    load0=$(load_avg)
    (cd "$work" && nice -n 10 "$base/asan/cpython_reader_fuzz" corpus "$seeds" -max_total_time="$seconds" \
        -timeout=30 -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 -artifact_prefix=artifacts/ \
        >log.txt 2>&1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt")
    cov=$(grep -E '^#[0-9]+' "$work/log.txt" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/\1 edges, \2 features/p')
    echo "cpython: libFuzzer ran $execs inputs, coverage $cov"
    # what it found: confirmed, minimized, told apart by stack
    n=0
    if ls "$work"/artifacts/* >/dev/null 2>&1; then
        rm -rf "$base/triage"
        nice -n 10 "$(pcd_bin)" fuzz --replay "$work/artifacts" -o "$base/triage" --python-tracebacks --timeout 60 \
            --minimize-time "${MINIMIZE_SECONDS:-600}" --minimize-runs 100000 -- "$base/asan/cpython_reader_fuzz" {}
        copy_findings cpython "$base/triage"
        n=$(ls "$base/triage/findings" | wc -l)
    fi
    [ -f "$others/LEDGER.tsv" ] || printf '# date\tcommit\treader\tversion\tseconds\truns\truns_per_s\ttriage_runs\tcoverage\tfindings\tload\n' >"$others/LEDGER.tsv"
    printf '%s\t%s\tcpython\tpython3.15 %s (ASan+UBSan+libFuzzer)\t%s\t%s\t-\t-\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
        "$(git -C "$root" rev-parse --short HEAD)" "$ver" "$seconds" "${execs:-?}" "${cov:-?}" "$n" "$load0 .. $(load_avg)" \
        >>"$others/LEDGER.tsv"
    exit 0
fi
echo "cpython: no sanitizer build (above: why); Debian's own python3.15, as a program, instead"
r=$(cpy_root) || { echo "cpython: no CPython 3.15 root"; exit 2; }
ver=$(LC_ALL=C chroot "$r" /usr/bin/python3.15 -c 'import sys; print(sys.version.split()[0])')
campaign cpython "python3.15 $ver (Debian's build, not instrumented)" "$seconds" -- --seeds "$seeds" --diff \
    --python-tracebacks --timeout 30 --total '@samples=^samples ([0-9]+)$' \
    -- "$others/cpython/run-in-root.sh" "$r" {} || exit $?
ledger "- (Debian's build: not instrumented)"
