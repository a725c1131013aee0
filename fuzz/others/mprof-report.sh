#!/usr/bin/env bash
# mprof-report.sh: Mono's log profiler reader, mprof-report (Debian's mono-utils), fuzzed as a
# program with Mono log files mutated through schemas/mono. Findings: crashes (told apart by a
# gdb backtrace: the binary is stripped, gdb runs it without address randomisation, so the
# addresses of its frames are stable), hangs, memory blow-ups; and, where both read a file,
# the allocation and call totals of its report against profcodec's (--diff=totals: mprof-report
# reads what it can of a damaged file and exits 0, so its verdict says nothing).
# usage: mprof-report.sh SECONDS        a campaign (make fuzz-others)
#        mprof-report.sh --repro FILE   the reader on one file, as the campaign ran it
set -u
. "$(dirname "$0")/lib.sh"
cmd=(mprof-report --verbose --traces)
if [ "${1:-}" = --repro ]; then
    exec "${cmd[@]}" "$2"
fi
seconds=${1:-1800}
command -v mprof-report >/dev/null || { echo "mprof-report: not installed (Debian: mono-utils)"; exit 2; }
version=$(dpkg-query -W -f='${Version}' mono-utils 2>/dev/null || echo '?')
seeds="$others/out/mprof-report/seeds"
mkdir -p "$seeds"
cp "$root"/tests/data/mono/*.mlpd "$seeds/"
# the report's totals: "Total memory allocated: B bytes in N objects", "Total calls: N"
campaign mprof-report "mono-utils $version" "$seconds" -- --seeds "$seeds" --gdb --timeout 10 --diff=totals \
    --total 'alloc-bytes=Total memory allocated: ([0-9]+) bytes' \
    --total 'alloc-count=Total memory allocated: [0-9]+ bytes in ([0-9]+) objects' \
    --total 'calls=^Total calls: ([0-9]+)' \
    -- "${cmd[@]}" {} || exit $?
ledger "- (a stripped binary: not instrumented)"
