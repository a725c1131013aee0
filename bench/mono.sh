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
alt "$RUNS" "$B/bench/hand_mono" "$big" -- "$P" -q validate "$big"
hand=$alt_a
val=$alt_b
val_small=$("$R" 3 "$P" -q validate "$small")
info_small=$("$R" 3 "$P" -q info --json "$small")
dump=$("$R" 3 "$P" -q dump "$big" -o /dev/null)
coll=$("$R" 3 "$P" -q convert --to collapsed --metric alloc-bytes "$big" -o /dev/null)
th=$(field "$hand" median); tv=$(field "$val" median)
rh=$(ratio "$tv" "$th")
guard mono.validate "$val"
guard mono.dump "$dump"
guard mono.collapsed "$coll"
sum_row Mono "\`validate\`, 200 MB" "hand-written validating loop (bench/hand_mono.c)" "$rh" "at most 1 x (issue 26; 1.25 x issue 7)" "$(at_most "$rh" 1.00)"
mrow="| \`mprof-report\` | not installed (Debian: mono-utils) | | | |"
verdict="mprof-report not installed: not measured"
if command -v mprof-report >/dev/null 2>&1; then
    alt "$RUNS" mprof-report --out=/dev/null "$big" -- "$P" -q info --json "$big"
    mp=$alt_a
    info=$alt_b
    tm=$(field "$mp" median); ti=$(field "$info" median)
    cm=$(field "$mp" cpu); ci=$(field "$info" cpu)
    alt "$RUNS" mprof-report --out=/dev/null "$big" -- "$P" -q validate "$big"
    tm2=$(field "$alt_a" median); tv2=$(field "$alt_b" median)
    mrow="| \`mprof-report --out=/dev/null\` (decode and report) | $tm | $(mbps "$size" "$tm") | $(persec "$records" "$tm") | $(field "$mp" max_rss_kb) KB |"
    r=$(ratio "$cm" "$ci")
    r2=$(ratio "$tm2" "$tv2")
    verdict="mprof-report / \`profcodec info --json\`, CPU time (user + system), alternately: $cm s against $ci s, **$r x** (issue 26's target at least 3 x: $(at_least "$r" 3); wall: $tm s against $ti s); mprof-report / \`profcodec validate\` (timed alternately with it: $tm2 s and $tv2 s): **$r2 x** ($(at_least "$r2" 1.5))"
    sum_row Mono "\`info --json\` (the mprof-report summary), 200 MB (CPU)" "\`mprof-report\` (whole process, faster by)" "$r" "at least 3 x faster (issue 26; 1.5 x issue 5)" "$(at_least "$r" 3)"
    sum_row Mono "\`validate\`, 200 MB" "\`mprof-report\` (whole process, faster by)" "$r2" "at least 1.5 x faster (issue 5)" "$(at_least "$r2" 1.5)"
else
    info=$("$R" "$RUNS" "$P" -q info --json "$big")
    ti=$(field "$info" median)
fi
guard mono.info "$info"

cat >>"$res" <<EOF2

## Mono log profiler 3.0 (data 17)

Input: \`bench/data/mono-200m.mlpd\`, $(basename "$seed")'s header and its buffers repeated,
written by \`profcodec encode\` from its dump: $size bytes, $records records (buffers and events).

| what | time (s) | MB/s | M records/s | peak RSS |
|---|---|---|---|---|
| hand-written validating C loop (bench/hand_mono.c) | $th | $(mbps "$size" "$th") | $(persec "$records" "$th") | $(field "$hand" max_rss_kb) KB |
| \`profcodec validate\` | $tv | $(mbps "$size" "$tv") | $(persec "$records" "$tv") | $(field "$val" max_rss_kb) KB |
| \`profcodec validate\`, 20 MB input | $(field "$val_small" median) | $(mbps "$small_size" "$(field "$val_small" median)") | | $(field "$val_small" max_rss_kb) KB |
| \`profcodec info --json\` (decode every event and build the mprof-report summary) | $ti | $(mbps "$size" "$ti") | $(persec "$records" "$ti") | $(field "$info" max_rss_kb) KB |
| \`profcodec info --json\`, 20 MB input | $(field "$info_small" median) | $(mbps "$small_size" "$(field "$info_small" median)") | | $(field "$info_small" max_rss_kb) KB |
| \`profcodec dump -o /dev/null\` (JSON Lines) | $(field "$dump" median) | $(mbps "$size" "$(field "$dump" median)") | $(persec "$records" "$(field "$dump" median)") | $(field "$dump" max_rss_kb) KB |
| \`profcodec convert --to collapsed --metric alloc-bytes -o /dev/null\` | $(field "$coll" median) | $(mbps "$size" "$(field "$coll" median)") | $(persec "$records" "$(field "$coll" median)") | $(field "$coll" max_rss_kb) KB |
$mrow

validate / hand-written loop: **$rh x** (issue 7's target at most 1.25 x: $(at_most "$rh" 1.25)). The hand
loop (bench/hand_mono.c) reads with read() into a 1 MiB buffer and checks the header (magic,
versions 3.0 and 17, flags 0, the three sized strings) and every buffer (magic, 48-byte header,
events ending exactly at its length) and every event: the event byte, every LEB128 (at most 10
bytes, 64 bits), every string within its 1 MiB limit, backtrace, IP and frame counts at most
65536, metadata types 1..7 with what each carries, heap references and roots, counter
descriptions and values, JIT helpers. Like \`validate\` it does not resolve the running deltas
(no check depends on them); it reads uncompressed data 17 files only (\`validate\` also reads
gzip and data 13).

$verdict. Peak memory does not grow with the input (20 MB vs 200 MB above, validate and info).
EOF2
