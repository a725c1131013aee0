#!/usr/bin/env bash
# cpython.sh: CPython 3.15's binary profile reader (Modules/_remote_debugging/binary_io_reader.c,
# as profiling.sampling's replay uses it), fuzzed with Tachyon files mutated through
# schemas/tachyon. Two ways, the first that can be had:
#
# 1. The reader alone, built from source with AddressSanitizer, UndefinedBehaviorSanitizer and
#    libFuzzer's coverage, in a libFuzzer harness (cpython/reader_fuzz.c) that embeds Debian's
#    libpython3.15 (3.15.2, not instrumented) and links profcodec's libFuzzer plugin
#    (make fuzz-tools: the structure-aware mutators). What it needs:
#    - PCD_CPYTHON_SRC: a folder holding Modules/_remote_debugging/binary_io_reader.c and
#      binary_io.h (a checkout of python/cpython, or just those two files; docs/fuzzing.md says
#      where they came from for the campaign in fuzz/others/LEDGER.tsv and how to get them).
#      Nothing of it is checked in; it is copied into out/cpython/asan/ and patched there to the
#      layout 3.15.2 writes (below, patch_source);
#    - Debian's libpython3.15-dev and libpython3.15 (3.15.2, sid: Python.h, the internal headers,
#      libpython3.15.so), fetched with apt-get download through the same temporary apt
#      configuration as ../shared/tools/cpython315-root.sh, unpacked in out/cpython/dev/;
#    - a CPython 3.15 root (PCD_CPYTHON315_ROOT, or made in out/cpython/root): its C library runs
#      the harness (its ld.so, as a program: sid's libpython needs sid's glibc) and its standard
#      library is the interpreter's (PYTHONHOME).
#    libFuzzer runs for SECONDS, one process under nice -n 15; what it finds is triaged by
#    `profcodec fuzz --replay` (confirmed, minimized, told apart by stack), then each finding is
#    run through Debian's own build (cpython/run-in-root.sh) to say whether 3.15.2 has it too.
# 2. Otherwise Debian's own build, as a program: python3.15 from Debian's binary packages in the
#    root, running cpython/replay.py on each file, under `profcodec fuzz` (crashes with
#    faulthandler's stack, exceptions the reader should not raise, hangs, memory blow-ups, and
#    the number of samples against profcodec's --diff). Not instrumented: no coverage.
#
# usage: cpython.sh SECONDS        a campaign (make fuzz-others)
#        cpython.sh --repro FILE   the reader on one file (the sanitizer build if there is one)
set -u
. "$(dirname "$0")/lib.sh"
base="$others/out/cpython"
mkdir -p "$base"

# ---- the reader's source, Debian's headers and library, the instrumented build ------------------

reader_src() { # prints the folder holding the reader's two files, or why not on stderr
    local d=${PCD_CPYTHON_SRC:-}
    if [ -z "$d" ]; then
        echo "cpython: PCD_CPYTHON_SRC is not set (a folder with Modules/_remote_debugging/binary_io_reader.c" \
            "and binary_io.h: docs/fuzzing.md, \"CPython: the sanitizer build\")" >&2
        return 1
    fi
    local m="$d/Modules/_remote_debugging"
    if [ ! -f "$m/binary_io_reader.c" ] || [ ! -f "$m/binary_io.h" ]; then
        echo "cpython: PCD_CPYTHON_SRC=$d has no Modules/_remote_debugging/binary_io_reader.c and binary_io.h" >&2
        return 1
    fi
    echo "$m"
}

debian_dev() { # out/cpython/dev: libpython3.15-dev and libpython3.15 of the sid registry, unpacked
    local dev="$base/dev"
    if [ -f "$dev/usr/include/python3.15/Python.h" ] && [ -f "$dev/usr/lib/x86_64-linux-gnu/libpython3.15.so.1.0" ]; then
        echo "$dev"
        return 0
    fi
    local work uri
    work=$(mktemp -d)
    uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    mkdir -p "$work"/{lists/partial,cache/archives/partial} "$dev"
    echo "deb [trusted=yes] $uri sid main" >"$work/sources.list"
    : >"$work/status"
    local opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$work/lists" -o Dir::State::Status="$work/status"
                -o Dir::Cache="$work/cache" -o APT::Architecture=amd64)
    apt-get "${opts[@]}" update >"$work/log" 2>&1
    if ! (cd "$work/cache/archives" && apt-get "${opts[@]}" download libpython3.15-dev libpython3.15 >>"$work/log" 2>&1); then
        echo "cpython: apt-get download libpython3.15-dev libpython3.15 failed on $uri (sid):" >&2
        grep -E '^E:' "$work/log" | head -3 >&2
        rm -rf "$work"
        return 1
    fi
    local d
    for d in "$work"/cache/archives/*.deb; do dpkg -x "$d" "$dev"; done
    ls "$work"/cache/archives/*.deb | sed 's|.*/||' >"$dev/packages.txt"
    rm -rf "$work"
    echo "$dev"
}

# The source as the code index holds it is older than 3.15.2 in its header's layout (and in
# some checks: docs/fuzzing.md). Three changes, each made only where the text is the old one:
# - 3.15.2 writes the sample count as a u64 at offset 28, so the thread count is at 36, not 32
#   (the reader still reads the count's first four bytes: the same number in a little-endian
#   file below 2^32; a big-endian file then reads as 0 samples and is rejected at its end);
# - binary_reader_open's declaration takes the path object its definition takes;
# - USE_MMAP 0: the reader's own portable path (Windows'), which reads the file into a
#   PyMem_Malloc'd buffer where ASan sees a read past its end; the mmap path parses the same
#   bytes, but ASan cannot see past the end of a mapping.
patch_source() { # DIR: the copies in DIR
    local h="$1/binary_io.h"
    sed -i -e 's|^#define HDR_OFF_THREADS .*(HDR_OFF_SAMPLES + HDR_SIZE_SAMPLES).*|#define HDR_OFF_THREADS      (HDR_OFF_SAMPLES + 8)  /* pcd: 3.15.2 writes a u64 sample count */|' \
        -e 's|^BinaryReader \*binary_reader_open(const char \*filename);|BinaryReader *binary_reader_open(PyObject *path);|' \
        -e 's|^\( *\)#define USE_MMAP 1$|\1#define USE_MMAP 0  /* pcd: the file on the heap, where ASan sees */|' "$h"
    grep -q 'define USE_MMAP 0  /\* pcd' "$h" || { echo "cpython: binary_io.h: USE_MMAP not found" >&2; return 1; }
}

build_asan() { # builds out/cpython/asan/reader_fuzz and run.sh; 0 when done
    local m dev r b="$base/asan" tools="$root/build-fuzz-tools/fuzz/libpcdmut_libfuzzer.a"
    m=$(reader_src) || return 1
    dev=$(debian_dev) || return 1
    r=$(cpy_root) || return 1
    local sum
    sum=$({ cat "$m/binary_io_reader.c" "$m/binary_io.h" "$others/cpython/reader_fuzz.c" "$others/cpython/shim/_remote_debugging.h"
            declare -f patch_source build_asan; } | sha256sum | cut -c1-16) # what the build is made of, and how
    if [ -x "$b/reader_fuzz" ] && [ "$(cat "$b/source.sum" 2>/dev/null)" = "$sum" ]; then return 0; fi
    [ -f "$tools" ] || (cd "$root" && make fuzz-tools) || return 1
    rm -rf "$b"
    mkdir -p "$b/lib"
    cp "$m/binary_io_reader.c" "$m/binary_io.h" "$b/"
    patch_source "$b" || return 1
    sha256sum "$m/binary_io_reader.c" "$m/binary_io.h" | sed 's|  .*/|  |' >"$b/source.txt"
    local inc=(-I"$others/cpython/shim" -I"$b" -I"$dev/usr/include/python3.15" -I"$dev/usr/include/python3.15/internal" -I"$dev/usr/include")
    local cflags=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -DPy_BUILD_CORE_MODULE -DHAVE_ZSTD)
    # the reader with coverage, the harness without: libFuzzer's cov counts the reader's edges only
    (cd "$b" && clang "${cflags[@]}" -fsanitize=address,undefined,fuzzer-no-link "${inc[@]}" -c binary_io_reader.c -o reader.o &&
        clang "${cflags[@]}" -fsanitize=address,undefined "${inc[@]}" -c "$others/cpython/reader_fuzz.c" -o harness.o &&
        clang -g -fsanitize=address,undefined,fuzzer harness.o reader.o -Wl,--whole-archive "$tools" -Wl,--no-whole-archive \
            "$dev/usr/lib/x86_64-linux-gnu/libpython3.15.so.1.0" -lzstd -lz -lm -lpthread -Wl,--allow-shlib-undefined \
            -Wl,--dynamic-linker="$r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" -Wl,--disable-new-dtags \
            -Wl,-rpath,"$b/lib:$r/usr/lib/x86_64-linux-gnu" -o reader_fuzz) >"$b/build.log" 2>&1 || {
        echo "cpython: the sanitizer build failed (see $b/build.log)" >&2
        return 1
    }
    # at run time (the program's interpreter and rpath): sid's libpython and C library (the
    # root's), and this machine's libstdc++ for libFuzzer
    cp "$dev/usr/lib/x86_64-linux-gnu/libpython3.15.so.1.0" "$b/lib/"
    cp -L /usr/lib/x86_64-linux-gnu/libstdc++.so.6 "$b/lib/"
    {
        echo '#!/bin/sh'
        echo "# reader_fuzz, whose C library is the CPython 3.15 root's ($r: sid's, which libpython3.15 needs)"
        echo "export PYTHONHOME='$r/usr' PCD_MUT_FORMAT=\${PCD_MUT_FORMAT:-tachyon}"
        echo 'export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}'
        echo "export ASAN_SYMBOLIZER_PATH=\${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer || ls /usr/lib/llvm-*/bin/llvm-symbolizer 2>/dev/null | tail -1)}"
        echo "exec '$b/reader_fuzz' \"\$@\""
    } >"$b/run.sh"
    chmod +x "$b/run.sh"
    echo "$sum" >"$b/source.sum"
}

# ---- Debian's build, as a program -------------------------------------------------------------

cpy_root() {
    local r=${PCD_CPYTHON315_ROOT:-$base/root}
    if [ ! -x "$r/usr/bin/python3.15" ]; then
        LC_ALL=C "$root/../shared/tools/cpython315-root.sh" "$r" >&2 || return 1
    fi
    echo "$r"
}

if [ "${1:-}" = --repro ]; then
    if [ -x "$base/asan/run.sh" ]; then
        exec "$base/asan/run.sh" "$2"
    fi
    r=$(cpy_root) || exit 2
    exec "$others/cpython/run-in-root.sh" "$r" "$2"
fi
seconds=${1:-1800}
seeds="$base/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
cp "$root"/tests/data/tachyon/*.bin "$seeds/"
for f in "$root"/../shared/corpus/tachyon/*.bin; do [ -f "$f" ] && cp "$f" "$seeds/"; done
rm -f "$seeds/workload_all_zstd.bin" # 300 kB: too slow a seed

# One libFuzzer run after another (libFuzzer stops at its first crash) until SECONDS are spent;
# before each new run, the corpus loses the inputs that ended the last one (a slow input kept in
# the corpus would end every run at its start). Findings already reported are suppressed in these
# runs (cpython/known.supp), not in the triage.
libfuzzer_campaign() {
    local work=$1 seconds=$2 t0 left i=0 rc
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    t0=$(date +%s)
    while :; do
        left=$((seconds - ($(date +%s) - t0)))
        [ "$left" -ge 10 ] && [ "$i" -lt 50 ] || break
        i=$((i + 1))
        (cd "$work" && UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$others/cpython/known.supp" \
            nice -n 15 "$base/asan/run.sh" corpus "$seeds" -max_total_time="$left" -timeout=30 \
            -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=artifacts/ >"log.$i.txt" 2>&1)
        rc=$?
        local a
        for a in "$work"/artifacts/*; do
            [ -f "$a" ] && rm -f "$work/corpus/$(sha1sum <"$a" | cut -c1-40)"
        done
        echo "cpython: libFuzzer run $i ended (exit $rc) after $(($(date +%s) - t0))s; artifacts: $(ls "$work/artifacts" | wc -l)"
        [ "$rc" = 0 ] && break
    done
    echo "$(($(date +%s) - t0))" >"$work/seconds"
}

if build_asan; then
    rm -f "$seeds"/*.be.bin # the big-endian seed: see patch_source
    src=${PCD_CPYTHON_SRC%/}
    ver="binary_io_reader.c and binary_io.h of $(head -1 "$src/SOURCE" 2>/dev/null || sed 's/  / /' "$base/asan/source.txt" | tr '\n' ' ')"
    ver="$ver patched to 3.15.2's layout, in Debian's libpython3.15 $(sed -n 's/^libpython3.15_\(.*\)_amd64.deb$/\1/p' "$base/dev/packages.txt")"
    total=$(cd "$base" && "$base/asan/run.sh" -runs=0 "$seeds" 2>&1 | tee "$base/seeds-coverage.txt" |
        sed -n 's/.*Loaded 1 modules *(\([0-9]*\) inline 8-bit counters.*/\1/p' | head -1)
    cov0=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$base/seeds-coverage.txt" | head -1)
    work="$base/libfuzzer"
    load0=$(load_avg)
    echo "== cpython ($ver: ASan+UBSan+libFuzzer): libFuzzer for ${seconds}s, load $load0"
    libfuzzer_campaign "$work" "$seconds"
    load1=$(load_avg)
    secs=$(cat "$work/seconds")
    execs=$(cat "$work"/log.*.txt | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{ s += $1 } END { print s + 0 }')
    cov=$(cat "$work"/log.*.txt | sed -n 's/^#[0-9].* cov: \([0-9]*\) .*/\1/p' | sort -n | tail -1)
    echo "cpython: libFuzzer ran $execs inputs in ${secs}s, coverage ${cov:-?} of $total edges of the reader (seeds alone: $cov0)"
    # what it found: confirmed, minimized, told apart by stack, then tried on Debian's own build
    n=0 triage=0
    rm -rf "$base/triage"
    if ls "$work"/artifacts/* >/dev/null 2>&1; then
        nice -n 15 "$(pcd_bin)" fuzz --replay "$work/artifacts" -o "$base/triage" --python-tracebacks --timeout 60 \
            --minimize-time "${MINIMIZE_SECONDS:-600}" --minimize-runs 100000 -- "$base/asan/run.sh" {}
        r=$(cpy_root)
        for d in "$base"/triage/findings/*/; do
            [ -d "$d" ] || continue
            in=$(ls "$d" | grep '^input' | head -1)
            { echo; echo "Debian's own python3.15 (3.15.2, cpython/run-in-root.sh) on the minimized input:"
              timeout 60 "$others/cpython/run-in-root.sh" "$r" "$d/$in" 2>&1 | head -20; echo "(exit ${PIPESTATUS[0]})"; } >>"$d/report.txt"
        done
        copy_findings cpython "$base/triage"
        n=$(grep -vc '^#' "$base/triage/findings.tsv" 2>/dev/null)
        triage=$(($(sed -n 's/^runs //p' "$base/triage/state") + $(sed -n 's/^triage_runs //p' "$base/triage/state")))
    fi
    [ -f "$others/LEDGER.tsv" ] || printf '# date\tcommit\treader\tversion\tseconds\truns\truns_per_s\ttriage_runs\tcoverage\tfindings\tload\n' >"$others/LEDGER.tsv"
    printf '%s\t%s\tcpython\t%s (ASan+UBSan+libFuzzer, structure-aware)\t%s\t%s\t%s\t%s\t%s of %s edges of the reader (seeds alone: %s)\t%s\t%s\n' \
        "$(date -u +%Y-%m-%dT%H:%MZ)" "$(git -C "$root" rev-parse --short HEAD)" "$ver" "$secs" "$execs" \
        "$(awk -v r="$execs" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? r / s : 0) }')" "$triage" "${cov:-?}" "$total" "$cov0" \
        "${n:-0}" "$load0 .. $load1" >>"$others/LEDGER.tsv"
    tail -1 "$others/LEDGER.tsv"
    exit 0
fi
echo "cpython: no sanitizer build (above: why); Debian's own python3.15, as a program, instead"
r=$(cpy_root) || { echo "cpython: no CPython 3.15 root"; exit 2; }
ver=$(LC_ALL=C chroot "$r" /usr/bin/python3.15 -c 'import sys; print(sys.version.split()[0])')
campaign cpython "python3.15 $ver (Debian's build, not instrumented)" "$seconds" -- --seeds "$seeds" --diff \
    --python-tracebacks --timeout 30 --total '@samples=^samples ([0-9]+)$' \
    -- "$others/cpython/run-in-root.sh" "$r" {} || exit $?
ledger "- (Debian's build: not instrumented)"
