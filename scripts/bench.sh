#!/usr/bin/env bash
# bench.sh: make bench. Builds the big inputs it needs (bench/data/, not checked in), times
# profcodec against each format's baseline (whole process, median of RUNS runs, page cache
# warm), and writes bench/RESULTS.md.
# usage: bench.sh BUILD_DIR
set -eu
B=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RUNS=${RUNS:-7}
P="$B/profcodec"
R="$B/bench/pcd_bench_runner"
data="$root/bench/data"
mkdir -p "$data"
shared="$root/../shared/corpus"
res="$root/bench/RESULTS.md"
only=${BENCH:-}   # e.g. BENCH=heph make bench: one section only
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

field() { echo "$1" | sed -n "s/.*$2=\([^ ]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mbps() { awk -v bytes="$1" -v s="$2" 'BEGIN { printf "%.0f", bytes / s / 1e6 }'; }
persec() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e6 }'; }
warm() { cat "$@" >/dev/null; }

cat >"$res" <<EOF2
# profcodec benchmark results

Written by \`make bench\` (scripts/bench.sh and bench/<format>.sh) on $(date -u +%Y-%m-%d),
$(nproc) CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo "unknown CPU").
Times are whole-process wall times, median of $RUNS runs (3 for the slower ones), page cache
warm. Peak memory is the largest resident set of those runs (wait4's ru_maxrss).
EOF2

for sec in "$root"/bench/*.sh; do
    name=$(basename "$sec" .sh)
    [ -n "$only" ] && [ "$only" != "$name" ] && continue
    echo "bench: $name"
    # shellcheck disable=SC1090
    . "$sec"
done
cat "$res"
