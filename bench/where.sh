# bench/where.sh: where the time goes on each headline path (sourced by scripts/bench.sh, last):
# `perf record` of one run of each, its top functions by CPU samples (self time), and a flame
# graph of each drawn by profcodec itself (scripts/flame.sh: perf script folded into Austin text,
# encode --from austin, convert --to svg) into bench/data/flame-<path>.svg. Skipped when perf
# cannot sample (perf record -e cpu-clock needs perf_event_paranoid <= 2, or root).
# ---- where the time goes ---------------------------------------------------------------------
where_tmp=$(mktemp -d)
if perf record -q -e cpu-clock -o "$where_tmp/probe.data" -- true >/dev/null 2>&1; then
    where_rows=""
    # name|input|command arguments (the inputs the sections above built)
    while IFS='|' read -r name input args; do
        [ -f "$input" ] || continue
        echo "bench: where: $name"
        # shellcheck disable=SC2086
        perf record -q -F 5000 -e cpu-clock -o "$where_tmp/$name.data" -- "$P" -q $args "$input" >/dev/null 2>&1 || continue
        top=$(perf report -i "$where_tmp/$name.data" --no-children --stdio --sort sym 2>/dev/null |
            awk '/^ +[0-9.]+%/ { pct = $1; k = $2 == "[k]" ? " [k]" : ""; $1 = ""; $2 = ""; sub(/^ +/, "")
                printf "%s%s%s %s", (n++ ? ", " : ""), $0, k, pct; if (n == 6) exit }')
        where_rows="$where_rows
| \`$args\` ($(basename "$input")) | $top |"
        # shellcheck disable=SC2086
        PERF_FREQ=2000 "$root/scripts/flame.sh" "$P" "$data/flame-$name.svg" "$P" -q $args "$input" >/dev/null 2>&1 || true
    done <<EOF2
mojo-austin|$data/mojo-27m.mojo|convert --to austin
mojo-collapsed|$data/mojo-20m.mojo|convert --to collapsed
mojo-validate|$data/mojo-20m.mojo|validate
tachyon-collapsed-zstd|$data/tachyon-200m-zstd.bin|--threads 1 convert --to collapsed
tachyon-collapsed-raw|$data/tachyon-200m-none.bin|convert --to collapsed
tachyon-validate-raw|$data/tachyon-200m-none.bin|validate
mono-info|$data/mono-20m.mlpd|info --json
mono-validate|$data/mono-20m.mlpd|validate
heph-validate|$data/heph-20m.bin.log|validate
pprof-validate|$data/pprof-110m.pb|validate
EOF2
    cat >>"$res" <<EOF2

## Where the time goes

One run of each path under \`perf record -F 5000 -e cpu-clock\` (this section's own runs, the same
build): the functions that took the most CPU samples by themselves (inlined functions count in their
caller), kernel symbols marked [k]. Flame graphs of the same commands, drawn by profcodec from
\`perf script\` (\`scripts/flame.sh\`), are in \`bench/data/flame-*.svg\` after a run.

| command | top functions (share of the samples) |
|---|---|$where_rows
EOF2
else
    cat >>"$res" <<EOF2

## Where the time goes

Not measured: perf cannot sample here (install linux-perf; perf_event_paranoid at most 2, or root).
EOF2
fi
rm -rf "$where_tmp"
