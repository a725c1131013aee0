# bench/pprof.sh: the pprof section of bench/RESULTS.md (sourced by scripts/bench.sh, which
# provides $B $P $R $RUNS $data $shared $res and the helpers field/ratio/mbps/persec/warm/alt).
# ---- pprof ----------------------------------------------------------------------------------
seed="$root/tests/data/pprof/labels.cpu.pprof"
big="$data/pprof-110m.pb"
go=/usr/lib/go-1.19/bin/go
# A real profile re-encoded bigger: Go 1.19's CPU profile (runtime/pprof's field order and
# packing, labels) dumped, its samples repeated with their leaf location turned through the
# profile's locations (so that there are many distinct stacks), its tables once, then
# encoded by profcodec: a raw protobuf (not gzip-compressed), as go tool pprof also reads.
pprof_build() { # file copies
    [ -f "$1" ] && return 0
    echo "bench: building $1 from $(basename "$seed")'s records through profcodec encode"
    local j="$data/pprof-seed.jsonl"
    "$P" dump "$seed" -o "$j"
    awk -v copies="$2" '
        /"_kind":"sample"/ { s[ns++] = $0; next }
        /"_kind":"string_table"/ { t[nt++] = $0; next }
        /"_kind":"location"/ { nloc++ }
        { print }
        END {
            for (k = 0; k < copies; k++)
                for (j = 0; j < ns; j++) {
                    line = s[j]
                    sub(/"location_id":\[[0-9]+/, "\"location_id\":[" ((k * 7 + j * 13) % nloc + 1), line)
                    print line
                }
            for (i = 0; i < nt; i++) print t[i]
        }' "$j" | "$P" encode - -o "$1.part" && mv "$1.part" "$1"
    rm -f "$j"
}
pprof_build "$big" 33000
size=$(stat -c %s "$big")
records=$("$P" validate "$big" | sed -n 's/.*, \([0-9]*\) records/\1/p')
samples=$("$P" -q info --json "$big" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
warm "$big"
echo "bench: pprof ($((size / 1000000)) MB, $records records, $samples samples)"
alt "$RUNS" "$B/bench/hand_pprof" "$big" -- "$P" -q validate "$big"
hand=$alt_a
val=$alt_b
bytes_only=$("$R" 3 "$B/bench/hand_pprof" --bytes-only "$big")
dump=$("$R" 3 "$P" -q dump "$big" -o /dev/null)
th=$(field "$hand" median); tv=$(field "$val" median)
rh=$(ratio "$tv" "$th")
sum_row pprof "\`validate\`, $((size / 1000000)) MB" "hand-written protobuf walking loop (bench/hand_pprof.c)" "$rh" "at most 1 x (issue 26; 1.25 x issue 15)" "$(at_most "$rh" 1.00)"
grow="| \`go tool pprof -traces\` | not installed (Debian: golang-1.19-go) | | | |"
gverdict="go tool pprof not installed: not measured"
coll=$("$R" 3 "$P" -q convert --to collapsed "$big" -o /dev/null)
tc=$(field "$coll" median)
if [ -x "$go" ]; then
    gtmp=$(mktemp -d)
    export GOTOOLCHAIN=local HOME="$gtmp" GOCACHE="$gtmp/cache" PPROF_TMPDIR="$gtmp"
    alt 3 "$go" tool pprof -traces "$big" -- "$P" -q convert --to collapsed "$big" -o /dev/null
    gt=$alt_a
    coll=$alt_b
    tg=$(field "$gt" median); tc=$(field "$coll" median)
    rg=$(ratio "$tg" "$tc")
    grow="| \`go tool pprof -traces\` (Go 1.19; every sample's stack as text) | $tg | $(mbps "$size" "$tg") | $(persec "$samples" "$tg") | $(field "$gt" max_rss_kb) KB |"
    gverdict="\`go tool pprof -traces\` / \`convert --to collapsed\` (timed alternately, 3 runs each): **$rg x** (target at least 10 x: $(at_least "$rg" 10))"
    sum_row pprof "\`convert --to collapsed\`, $((size / 1000000)) MB" "\`go tool pprof -traces\` (whole process, faster by)" "$rg" "at least 10 x faster (issue 15)" "$(at_least "$rg" 10)"
    rm -rf "$gtmp"
fi
gz=$("$R" 3 "$P" -q convert --to pprof "$big" -o "$data/pprof-back.pprof")
guard pprof.validate "$val"
guard pprof.dump "$dump"
guard pprof.collapsed "$coll"
guard pprof.pprof "$gz"
cat >>"$res" <<EOF2

## pprof (profile.proto)

Input: \`bench/data/pprof-110m.pb\`, $(basename "$seed") (Go 1.19's runtime/pprof, tests/data/pprof)
dumped, its samples repeated with their leaf location turned through the profile's locations,
then encoded by \`profcodec encode\` (a raw protobuf, as Go's field order and packing): $size
bytes, $records records (Profile fields), $samples samples.

| what | time (s) | MB/s | M samples/s | peak RSS |
|---|---|---|---|---|
| hand-written protobuf walking loop with validate's checks (bench/hand_pprof.c) | $th | $(mbps "$size" "$th") | $(persec "$samples" "$th") | $(field "$hand" max_rss_kb) KB |
| the same loop, bytes only (\`--bytes-only\`: no id, reference or index checks) | $(field "$bytes_only" median) | $(mbps "$size" "$(field "$bytes_only" median)") | $(persec "$samples" "$(field "$bytes_only" median)") | $(field "$bytes_only" max_rss_kb) KB |
| \`profcodec validate\` (every record decoded, and the checks above the bytes) | $tv | $(mbps "$size" "$tv") | $(persec "$samples" "$tv") | $(field "$val" max_rss_kb) KB |
| \`profcodec dump -o /dev/null\` (JSON Lines) | $(field "$dump" median) | $(mbps "$size" "$(field "$dump" median)") | $(persec "$samples" "$(field "$dump" median)") | $(field "$dump" max_rss_kb) KB |
| \`profcodec convert --to collapsed -o /dev/null\` | $tc | $(mbps "$size" "$tc") | $(persec "$samples" "$tc") | $(field "$coll" max_rss_kb) KB |
| \`profcodec convert --to pprof\` (gzip) | $(field "$gz" median) | $(mbps "$size" "$(field "$gz" median)") | $(persec "$samples" "$(field "$gz" median)") | $(field "$gz" max_rss_kb) KB |
$grow

validate / hand-written loop: **$rh x** (issue 26's target at most 1 x: $(at_most "$rh" 1.00); issue 15's 1.25 x: $(at_most "$rh" 1.25)). The hand
loop reads with read() into a 1 MiB buffer and walks every field of the Profile and of the
messages in it (keys, wire types, varints of at most 10 bytes and 64 bits, lengths inside
their message, unknown fields skipped), and keeps ids and references in a set of 8-byte keys
to check what \`validate\` checks above the bytes (string_table[0], ids nonzero and unique,
references that exist, string indexes, one value per sample type). \`validate\` decodes every
record (the generated validator, then the filler: counts, arena arrays, values) for those
checks; streaming, its memory does not grow with the input.

$gverdict. convert keeps the samples until the profile's tables are read (Go writes its
string table last), as varints with interned label sets.
EOF2
