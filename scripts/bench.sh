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
only=${BENCH:-}   # e.g. BENCH=heph make bench: one section only
# Only a full run writes bench/RESULTS.md (every section); BENCH=<format> writes its section to
# bench/data/RESULTS-<format>.md, so that a one-format run never drops the other sections.
final="$root/bench/RESULTS.md"
[ -n "$only" ] && final="$data/RESULTS-$only.md"
tmp=$(mktemp)
res=$(mktemp)      # the sections, as they are written
summary=$(mktemp)  # one table row per ratio, from the sections (see sum_row)
trap 'rm -f "$tmp" "$res" "$summary"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

field() { echo "$1" | sed -n "s/.*$2=\([^ ]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mbps() { awk -v bytes="$1" -v s="$2" 'BEGIN { printf "%.0f", bytes / s / 1e6 }'; }
persec() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e6 }'; }
warm() { cat "$@" >/dev/null; }
# alt N A... -- B...: runs command A and command B alternately, one run each, N times (so that
# both see the same load); sets alt_a and alt_b to lines like the runner's (median, best, runs,
# max_rss_kb, exit of the last run)
alt() {
    local n=$1 side=a line
    shift
    local -a ca=() cb=() ta=() tb=()
    local ra=0 rb=0 ea=0 eb=0 r
    for x in "$@"; do
        if [ "$side" = a ] && [ "$x" = "--" ]; then side=b; continue; fi
        if [ "$side" = a ]; then ca+=("$x"); else cb+=("$x"); fi
    done
    for _ in $(seq 1 "$n"); do
        line=$("$R" 1 "${ca[@]}")
        ta+=("$(field "$line" median)"); r=$(field "$line" max_rss_kb); [ "$r" -gt "$ra" ] && ra=$r; ea=$(field "$line" exit)
        line=$("$R" 1 "${cb[@]}")
        tb+=("$(field "$line" median)"); r=$(field "$line" max_rss_kb); [ "$r" -gt "$rb" ] && rb=$r; eb=$(field "$line" exit)
    done
    alt_a=$(printf '%s\n' "${ta[@]}" | sort -g | awk -v rss="$ra" -v ex="$ea" '{ t[NR] = $1 }
        END { printf "median=%.4f best=%.4f runs=%d max_rss_kb=%s exit=%s", t[int((NR + 1) / 2)], t[1], NR, rss, ex }')
    alt_b=$(printf '%s\n' "${tb[@]}" | sort -g | awk -v rss="$rb" -v ex="$eb" '{ t[NR] = $1 }
        END { printf "median=%.4f best=%.4f runs=%d max_rss_kb=%s exit=%s", t[int((NR + 1) / 2)], t[1], NR, rss, ex }')
}
# sum_row FORMAT WHAT BASELINE RATIO TARGET VERDICT: a row of the summary table
sum_row() { echo "| $1 | $2 | $3 | **$4 x** | $5 | $6 |" >>"$summary"; }
# at_most R LIMIT / at_least R LIMIT: "meets" or "MISSES"
at_most() { awk -v r="$1" -v l="$2" 'BEGIN { print (r <= l) ? "meets" : "MISSES" }'; }
at_least() { awk -v r="$1" -v l="$2" 'BEGIN { print (r >= l) ? "meets" : "MISSES" }'; }

for sec in "$root"/bench/*.sh; do
    name=$(basename "$sec" .sh)
    [ -n "$only" ] && [ "$only" != "$name" ] && continue
    echo "bench: $name"
    # shellcheck disable=SC1090
    . "$sec"
done

load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
{
    cat <<EOF2
# profcodec benchmark results

Written by \`make bench\` (scripts/bench.sh and bench/<format>.sh) on $(date -u +%Y-%m-%d),
$(nproc) CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo "unknown CPU").
Times are whole-process wall times, median of $RUNS runs (3 for the slower ones), page cache
warm; where a ratio is the target, the two commands ran alternately, one run each, $RUNS times
(bench/runner.c times each run), so that both see the same conditions. Peak memory is the
largest resident set of those runs (wait4's ru_maxrss). Load average (1, 5, 15 min) at the
start: $load_start; at the end: $load_end (other jobs share the machine: ratios are steadier
than the times themselves).

## Summary

| format | what | baseline | ratio | target | |
|---|---|---|---|---|---|
EOF2
    cat "$summary"
    cat "$res"
} >"$final"
cat "$final"
