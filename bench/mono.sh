# bench/mono.sh: the Mono section of bench/RESULTS.md (sourced by scripts/bench.sh, which
# provides $B $P $R $RUNS $data $shared $res and the helpers field/ratio/mbps/persec/warm).
# ---- Mono log profiler ---------------------------------------------------------------------
seed="$shared/mono/alloc.mlpd"
[ -f "$seed" ] || seed="$root/tests/data/mono/misc.mlpd"
big="$data/mono-200m.mlpd"
small="$data/mono-20m.mlpd"
# The real file's events through the encoder: its header once, then its buffers (each carries
# its own bases, so repeats decode the same) until the size is reached.
mono_build() { # file bytes
    [ -f "$1" ] && return 0
    echo "bench: building $1 from $(basename "$seed")'s events through profcodec encode"
    local j="$data/mono-seed.jsonl"
    "$P" dump "$seed" -o "$j"
    local n=$(( $2 / $(stat -c %s "$seed") + 1 ))
    { head -1 "$j"; for _ in $(seq 1 "$n"); do tail -n +2 "$j"; done; } | "$P" encode - -o "$1.part" && mv "$1.part" "$1"
    rm -f "$j"
}
mono_build "$big" 200000000
mono_build "$small" 20000000
size=$(stat -c %s "$big")
small_size=$(stat -c %s "$small")
records=$("$P" validate "$big" | sed -n 's/.*, \([0-9]*\) records/\1/p')
warm "$big" "$small"
echo "bench: mono ($((size / 1000000)) MB, $records records)"
val=$("$R" "$RUNS" "$P" -q validate "$big")
info=$("$R" "$RUNS" "$P" -q info --json "$big")
info_small=$("$R" 3 "$P" -q info --json "$small")
dump=$("$R" 3 "$P" -q dump "$big" -o /dev/null)
coll=$("$R" 3 "$P" -q convert --to collapsed --metric alloc-bytes "$big" -o /dev/null)
tv=$(field "$val" median); ti=$(field "$info" median)
mrow="| \`mprof-report\` | not installed (Debian: mono-utils) | | | |"
verdict="mprof-report not installed: not measured"
if command -v mprof-report >/dev/null 2>&1; then
    mp=$("$R" "$RUNS" mprof-report --out=/dev/null "$big")
    tm=$(field "$mp" median)
    mrow="| \`mprof-report --out=/dev/null\` (decode and report) | $tm | $(mbps "$size" "$tm") | $(persec "$records" "$tm") | $(field "$mp" max_rss_kb) KB |"
    r=$(ratio "$tm" "$ti")
    verdict="mprof-report / \`profcodec info\`: **$r x** (target at least 1.5 x: $(awk -v r="$r" 'BEGIN { print (r >= 1.5) ? "meets" : "MISSES" }'))"
fi

cat >>"$res" <<EOF2

## Mono log profiler 3.0 (data 17)

Input: \`bench/data/mono-200m.mlpd\`, $(basename "$seed")'s header and its buffers repeated,
written by \`profcodec encode\` from its dump: $size bytes, $records records (buffers and events).

| what | time (s) | MB/s | M records/s | peak RSS |
|---|---|---|---|---|
| \`profcodec validate\` | $tv | $(mbps "$size" "$tv") | $(persec "$records" "$tv") | $(field "$val" max_rss_kb) KB |
| \`profcodec info --json\` (decode every event and build the mprof-report summary) | $ti | $(mbps "$size" "$ti") | $(persec "$records" "$ti") | $(field "$info" max_rss_kb) KB |
| \`profcodec info --json\`, 20 MB input | $(field "$info_small" median) | $(mbps "$small_size" "$(field "$info_small" median)") | | $(field "$info_small" max_rss_kb) KB |
| \`profcodec dump -o /dev/null\` (JSON Lines) | $(field "$dump" median) | $(mbps "$size" "$(field "$dump" median)") | $(persec "$records" "$(field "$dump" median)") | $(field "$dump" max_rss_kb) KB |
| \`profcodec convert --to collapsed --metric alloc-bytes -o /dev/null\` | $(field "$coll" median) | $(mbps "$size" "$(field "$coll" median)") | $(persec "$records" "$(field "$coll" median)") | $(field "$coll" max_rss_kb) KB |
$mrow

$verdict.
EOF2
