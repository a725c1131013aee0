#!/usr/bin/env bash
# mprof-report.sh: Mono's log profiler reader, mprof-report (Debian's mono-utils), fuzzed as a
# program with Mono log files mutated through schemas/mono. Findings: crashes (told apart by a
# gdb backtrace: the binary is stripped, gdb runs it without address randomisation, so the
# addresses of its frames are stable), hangs, memory blow-ups; and, where both read a file,
# the allocation and call totals of its report against profcodec's (--diff=totals: mprof-report
# reads what it can of a damaged file and exits 0, so its verdict says nothing).
#
# For the reports, each finding is run again on mprof-report built from the source of the same
# Debian package with AddressSanitizer and UndefinedBehaviorSanitizer (`apt-get source mono`
# through a temporary apt configuration on this machine's registry; only mprof-report.c and
# eglib are compiled, in out/mprof-report/asan/; nothing of it is checked in): its report, with
# the source lines, is kept as asan.txt beside the finding.
# usage: mprof-report.sh SECONDS          a campaign (make fuzz-others)
#        mprof-report.sh --repro FILE     the installed reader on one file, as the campaign ran it
#        mprof-report.sh --asan FILE      the sanitizer build on one file
set -u
. "$(dirname "$0")/lib.sh"
args=(--verbose --traces)
base="$others/out/mprof-report"
version=$(dpkg-query -W -f='${Version}' mono-utils 2>/dev/null || echo '?')

asan_build() { # out/mprof-report/asan/mprof-report-asan, from Debian's source of the installed version
    local b="$base/asan" work uri src
    [ -x "$b/mprof-report-asan" ] && return 0
    mkdir -p "$b"
    work=$(mktemp -d)
    uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    mkdir -p "$work"/{lists/partial,cache/archives/partial}
    printf 'deb-src [trusted=yes] %s bookworm main\ndeb-src [trusted=yes] %s bookworm-updates main\n' "$uri" "$uri" >"$work/sources.list"
    : >"$work/status"
    local opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$work/lists" -o Dir::State::Status="$work/status"
                -o Dir::Cache="$work/cache" -o APT::Architecture=amd64)
    apt-get "${opts[@]}" update >"$work/log" 2>&1
    if ! (cd "$b" && apt-get "${opts[@]}" source --download-only "mono=$version" >>"$work/log" 2>&1); then
        echo "mprof-report: apt-get source mono=$version failed:" >&2
        grep -E '^E:' "$work/log" | head -3 >&2
        rm -rf "$work"
        return 1
    fi
    rm -rf "$work"
    # mprof-report.c and eglib only (Debian's one patch, debian-changes, touches neither)
    (cd "$b" && rm -rf src && mkdir src && tar -xJf mono_*.orig.tar.xz -C src --strip-components=1 --wildcards \
        '*/mono/profiler/*' '*/mono/eglib/*' '*/mono/metadata/*.h' '*/mono/utils/*.h') || return 1
    sed -e 's/@GNUC_PRETTY@/__FUNCTION__/; s/@GNUC_UNUSED@/__attribute__((__unused__))/; s/@ORDER@/G_LITTLE_ENDIAN/' \
        -e 's/@GNUC_NORETURN@/__attribute__((__noreturn__))/; s/@SEARCHSEP@/:/g; s/@PATHSEP@/\//g; s/@OS@/UNIX/' \
        -e 's/@BREAKPOINT@/G_STMT_START { __asm__ ("int $03"); } G_STMT_END/; s/@HAVE_ALLOCA_H@/1/; s/@HAVE_UNISTD_H@/1/' \
        -e 's/@GSIZE@/unsigned long/; s/@GSSIZE@/long/; s/@GSIZE_FORMAT@/"lu"/; s/@PIDTYPE@/int/' \
        "$b/src/mono/eglib/eglib-config.h.in" >"$b/eglib-config.h"
    # what mono's configure would find on Debian 12, for these files
    printf '%s\n' '#define HAVE_SYS_ZLIB 1' '#define SIZEOF_VOID_P 8' '#define HAVE_UNISTD_H 1' '#define HAVE_ALLOCA_H 1' \
        '#define HAVE_STRNDUP 1' '#define HAVE_SYS_TIME_H 1' '#define HAVE_PTHREAD_H 1' '#define HAVE_GETPWUID_R 1' \
        '#define HAVE_PWD_H 1' '#define HAVE_STPCPY 1' '#define HAVE_VASPRINTF 1' '#define HAVE_UNSETENV 1' \
        '#define HAVE_SETENV 1' '#define HAVE_REALPATH 1' '#define HOST_LINUX 1' '#define TARGET_AMD64 1' \
        '#define HAVE_DLFCN_H 1' '#define HAVE_SYS_MMAN_H 1' '#define HAVE_SYS_WAIT_H 1' '#define HAVE_STRERROR_R 1' \
        '#define HAVE_SYS_STAT_H 1' '#define HAVE_STDINT_H 1' '#define HAVE_DIRENT_H 1' '#include <pwd.h>' >"$b/config.h"
    local f objs=()
    for f in mprof-report garray gbytearray gerror ghashtable giconv gmem goutput gqsort gstr gslist gstring \
        gptrarray glist gqueue gpath gshell gspawn gfile gfile-posix gpattern gmarkup gutf8 gunicode gdate-unix \
        gdir-unix gfile-unix gmisc-unix gmodule-unix gtimer-unix; do
        local c="$b/src/mono/eglib/$f.c"
        [ "$f" = mprof-report ] && c="$b/src/mono/profiler/mprof-report.c"
        nice clang -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -w -I"$b" -I"$b/src" \
            -I"$b/src/mono/eglib" -I"$b/src/mono" -c "$c" -o "$b/$f.o" || return 1
        objs+=("$b/$f.o")
    done
    clang -fsanitize=address,undefined "${objs[@]}" -lz -lm -o "$b/mprof-report-asan"
}

if [ "${1:-}" = --repro ]; then
    exec mprof-report "${args[@]}" "$2"
fi
if [ "${1:-}" = --asan ]; then
    asan_build || exit 2
    ASAN_OPTIONS=detect_leaks=0 exec "$base/asan/mprof-report-asan" "${args[@]}" "$2"
fi
seconds=${1:-1800}
command -v mprof-report >/dev/null || { echo "mprof-report: not installed (Debian: mono-utils)"; exit 2; }
seeds="$base/seeds"
mkdir -p "$seeds"
cp "$root"/tests/data/mono/*.mlpd "$seeds/"
# the report's totals: "Total memory allocated: B bytes in N objects", "Total calls: N"
campaign mprof-report "mono-utils $version" "$seconds" -- --seeds "$seeds" --gdb --timeout 10 --diff=totals \
    --total 'alloc-bytes=Total memory allocated: ([0-9]+) bytes' \
    --total 'alloc-count=Total memory allocated: [0-9]+ bytes in ([0-9]+) objects' \
    --total 'calls=^Total calls: ([0-9]+)' \
    -- mprof-report "${args[@]}" {} || exit $?
ledger "- (a stripped binary: not instrumented)"
# the sanitizer build's report of each finding
if asan_build; then
    for d in "$others"/findings/mprof-report/*/; do
        [ -d "$d" ] || continue
        in=$(ls "$d" | grep '^input' | head -1)
        ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 timeout 60 "$base/asan/mprof-report-asan" \
            "${args[@]}" "$d/$in" 2>&1 >/dev/null | sed "s|$base/asan/src/||g" | head -60 >"$d/asan.txt"
    done
else
    echo "mprof-report: no sanitizer build: the findings have no asan.txt"
fi
