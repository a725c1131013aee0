#!/usr/bin/env bash
# flame.sh: a flame graph of a command, drawn by profcodec itself: `perf record` samples the
# command's stacks, `perf script` prints them, this script folds them into Austin's text format
# (one line per sample: P<pid>;T<tid>;<binary>:<function>:0;... <microseconds>, outermost
# first), `profcodec encode --from austin` makes that a MOJO file and `convert --to svg` draws it.
# usage: scripts/flame.sh PROFCODEC OUT.svg COMMAND [ARGS...]
#        (PERF_FREQ=n samples a second, default 10000; the command's stdout is discarded)
# Needs perf (Debian: linux-perf) and a build with symbols (-g; make bench's Release build has
# the function names, which is enough for the frames of code compiled with frame pointers or
# with DWARF unwinding: perf record --call-graph dwarf is used).
set -eu
P=$1 out=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q -F "${PERF_FREQ:-10000}" -e cpu-clock --call-graph dwarf -o "$tmp/perf.data" -- "$@" >/dev/null
perf script -i "$tmp/perf.data" -F comm,pid,tid,period,ip,sym,dso 2>/dev/null | awk '
    function flush(   line, i) {
        if (n == 0) return
        line = "P" pid ";T" tid
        for (i = n; i >= 1; i--) line = line ";" frame[i]
        print line " " (period > 0 ? int(period / 1000) : 1)
        n = 0
    }
    # a sample: "comm pid/tid period" (or "comm pid period"), then one frame a line
    /^[^ \t]/ {
        flush()
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+(\/[0-9]+)?$/) break
        split($i, ids, "/"); pid = ids[1]; tid = (2 in ids) ? ids[2] : ids[1]; delete ids
        period = $(i + 1) + 0
        next
    }
    /^[ \t]+[0-9a-f]+ / {
        sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
        dso = $NF; gsub(/[()]/, "", dso); sub(/.*\//, "", dso)
        if (sym == "[unknown]") sym = "?"
        gsub(/[;:]/, "_", sym); gsub(/[;:]/, "_", dso)
        frame[++n] = dso ":" sym ":0"
        next
    }
    /^$/ { flush() }
    END { flush() }' >"$tmp/stacks.austin"
"$P" -q encode --from austin "$tmp/stacks.austin" -o "$tmp/stacks.mojo"
"$P" -q convert --to svg "$tmp/stacks.mojo" -o "$out"
echo "flame.sh: $(wc -l <"$tmp/stacks.austin") samples of $1 drawn in $out"
