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
measured=$(mktemp) # key, CPU seconds: what the regression guard compares (see guard)
trap 'rm -f "$tmp" "$res" "$summary" "$measured"' EXIT
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
    local -a ca=() cb=() ta=() tb=() ua=() ub=()
    local ra=0 rb=0 ea=0 eb=0 r
    for x in "$@"; do
        if [ "$side" = a ] && [ "$x" = "--" ]; then side=b; continue; fi
        if [ "$side" = a ]; then ca+=("$x"); else cb+=("$x"); fi
    done
    for _ in $(seq 1 "$n"); do
        line=$("$R" 1 "${ca[@]}")
        ta+=("$(field "$line" median)"); ua+=("$(field "$line" cpu)")
        r=$(field "$line" max_rss_kb); [ "$r" -gt "$ra" ] && ra=$r; ea=$(field "$line" exit)
        line=$("$R" 1 "${cb[@]}")
        tb+=("$(field "$line" median)"); ub+=("$(field "$line" cpu)")
        r=$(field "$line" max_rss_kb); [ "$r" -gt "$rb" ] && rb=$r; eb=$(field "$line" exit)
    done
    alt_a=$(alt_line "$ra" "$ea" "${ta[*]}" "${ua[*]}")
    alt_b=$(alt_line "$rb" "$eb" "${tb[*]}" "${ub[*]}")
}
# alt_line RSS EXIT "TIMES" "CPU TIMES": a runner-like line of the medians
alt_line() {
    awk -v rss="$1" -v ex="$2" -v ts="$3" -v us="$4" 'function med(s,   a, n, i, j, x) {
            n = split(s, a, " ")
            for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
            return a[int((n + 1) / 2)] }
        function best(s,   a, n, i, b) { n = split(s, a, " "); b = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < b + 0) b = a[i]; return b }
        BEGIN { printf "median=%.4f best=%.4f runs=%d max_rss_kb=%s exit=%s cpu=%.4f", med(ts), best(ts), split(ts, z, " "), rss, ex, med(us) }'
}
# ---- the regression guard: each path's CPU time against bench/baseline.tsv ------------------
# guard KEY RUNNER_LINE: keeps the line's median CPU time under KEY (format.what), for the
# comparison at the end (and, with BENCH_BASELINE=write, for a new baseline).
guard() { printf '%s\t%s\n' "$1" "$(field "$2" cpu)" >>"$measured"; }
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

# The regression guard: every guarded path's CPU time now against bench/baseline.tsv. A ratio
# above 1.10 is printed as a regression (make bench still succeeds: it is a report, never a
# timed test). BENCH_BASELINE=write makes these times the new baseline (at a release), keeping
# the keys this run did not measure.
baseline="$root/bench/baseline.tsv"
guard_md=$(mktemp)
trap 'rm -f "$tmp" "$res" "$summary" "$measured" "$guard_md"' EXIT
if [ -s "$measured" ]; then
    base_of=$(sed -n 's/^# measured at: //p' "$baseline" 2>/dev/null | head -1)
    {
        echo
        echo "## Regression guard"
        echo
        echo "CPU time (user + system, median of the runs above) of each guarded path against"
        echo "\`bench/baseline.tsv\` (${base_of:-no baseline yet}). A ratio above 1.10 is a regression."
        echo
        echo "| path | baseline (s) | now (s) | ratio | |"
        echo "|---|---|---|---|---|"
        awk -F'\t' 'NR == FNR { if ($0 !~ /^#/ && NF >= 2) b[$1] = $2; next }
            { has = ($1 in b) && b[$1] > 0; r = has ? $2 / b[$1] : 0
              printf "| %s | %s | %s | %s | %s |\n", $1, has ? b[$1] : "-", $2, has ? sprintf("%.2f x", r) : "-",
                     (!has ? "no baseline" : (r > 1.10 ? "**REGRESSION**" : "ok")) }' "$baseline" "$measured" 2>/dev/null ||
            awk -F'\t' '{ printf "| %s | - | %s | - | no baseline |\n", $1, $2 }' "$measured"
    } >"$guard_md"
    echo "bench: regression guard (CPU time against bench/baseline.tsv; above 1.10 x is a regression):"
    grep '^| [a-z][a-z0-9]*\.' "$guard_md" | sed 's/^| //; s/ |$//; s/ | /  /g; s/^/    /'
    if [ "${BENCH_BASELINE:-}" = write ]; then
        [ -f "$baseline" ] || : >"$baseline"
        {
            echo "# bench/baseline.tsv: the CPU time (seconds, user + system, median) of each path make bench"
            echo "# guards (scripts/bench.sh: guard), written by BENCH_BASELINE=write make bench at a release."
            echo "# measured at: $(git -C "$root" describe --tags --always 2>/dev/null || echo unknown) on $(date -u +%Y-%m-%d),"
            echo "#   $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), load $load_start"
            awk -F'\t' 'NR == FNR { now[$1] = $2; order[++n] = $1; next }
                /^#/ { next } NF >= 2 && !($1 in now) { print }
                END { for (i = 1; i <= n; i++) printf "%s\t%s\n", order[i], now[order[i]] }' \
                "$measured" "$baseline" 2>/dev/null | sort
        } >"$baseline.new" && mv "$baseline.new" "$baseline"
        echo "bench: wrote $baseline"
    fi
fi
{
    cat <<EOF2
# profcodec benchmark results

Written by \`make bench\` (scripts/bench.sh and bench/<format>.sh) on $(date -u +%Y-%m-%d),
$(nproc) CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo "unknown CPU").
Times are whole-process wall times, median of $RUNS runs (3 for the slower ones), page cache
warm, unless a row says CPU: CPU time is user + system time of the whole process (all its
threads), the figure to trust on a machine shared with other work (issue 26's goals are stated
on it). Where a ratio is the target, the two commands ran alternately, one run each, $RUNS times
(bench/runner.c times each run), so that both see the same conditions. Peak memory is the
largest resident set of those runs (wait4's ru_maxrss). Load average (1, 5, 15 min) at the
start: $load_start; at the end: $load_end (other jobs share the machine: ratios are steadier
than the times themselves). The reference tools and how to reproduce: bench/README.md.

## Summary

| format | what | baseline | ratio | target | |
|---|---|---|---|---|---|
EOF2
    cat "$summary"
    cat "$guard_md"
    cat "$res"
} >"$final"
cat "$final"
