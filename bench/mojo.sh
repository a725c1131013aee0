# bench/mojo.sh: the Austin MOJO section of bench/RESULTS.md (sourced by scripts/bench.sh,
# which provides $B $P $R $RUNS $data $shared $res and the helpers field/ratio/mbps/persec/warm).
# austin-python is not needed: when AUSTIN_PYTHON names a checkout of austin-python 1.7.1
# (its mojo2austin; PYTHON picks the interpreter, default python3), it is timed too; so is the
# tree before the profile model (27509ba) when PCD_OLD names its profcodec (see bench/README.md).
# ---- Austin MOJO -----------------------------------------------------------------------
seed="$shared/mojo/wall_recursive.mojo"
[ -f "$seed" ] || seed="$root/tests/data/mojo/v3_multiproc.mojo"
big="$data/mojo-200m.mojo"
small="$data/mojo-20m.mojo"
mojo_repeat_to() { # file bytes: the seed's header once, then its events repeated
    [ -f "$1" ] && return 0
    echo "bench: building $1 from $(basename "$seed")'s events repeated"
    local body=$(( $(stat -c %s "$seed") - 4 ))
    local n=$(( $2 / body + 1 ))
    { head -c 4 "$seed"; for _ in $(seq 1 "$n"); do tail -c +5 "$seed"; done; } >"$1.part" && mv "$1.part" "$1"
}
mojo_repeat_to "$big" 200000000
mojo_repeat_to "$small" 20000000
# the 27 MB recording: a real austinp recording (kernel stacks, four threads taking turns), its
# events repeated, as the Austin text goal is stated on (issue 26)
rec_seed="$shared/mojo/austinp_kernel_threads.mojo"
rec27="$data/mojo-27m.mojo"
if [ -f "$rec_seed" ]; then
    seed_was=$seed
    seed=$rec_seed
    mojo_repeat_to "$rec27" 27000000
    seed=$seed_was
fi
size=$(stat -c %s "$big")
small_size=$(stat -c %s "$small")
records=$("$P" validate "$big" | sed -n 's/.*, \([0-9]*\) records.*/\1/p')
warm "$big" "$small"
echo "bench: mojo validate ($((size / 1000000)) MB, $records events)"
alt "$RUNS" "$B/bench/hand_mojo" "$big" -- "$P" -q validate "$big"
hand=$alt_a
ours=$alt_b
hand_bytes=$("$R" "$RUNS" "$B/bench/hand_mojo" --bytes-only "$big")
ours_small=$("$R" 3 "$P" -q validate "$small")
collapsed=$("$R" "$RUNS" "$P" -q convert --to collapsed "$big" -o /dev/null)
collapsed_small=$("$R" "$RUNS" "$P" -q convert --to collapsed "$small" -o /dev/null)
austin=$("$R" 3 "$P" -q convert --to austin "$big" -o /dev/null)
speedscope=$("$R" 3 "$P" -q convert --to speedscope "$big" -o /dev/null)
dump=$("$R" 3 "$P" -q dump "$big" -o /dev/null)
guard mojo.validate "$ours"
guard mojo.collapsed "$collapsed"
guard mojo.austin "$austin"
guard mojo.speedscope "$speedscope"
guard mojo.dump "$dump"
th=$(field "$hand" median); tb=$(field "$hand_bytes" median); to=$(field "$ours" median)
tc=$(field "$collapsed" median); tcs=$(field "$collapsed_small" median)
r=$(ratio "$to" "$th")
rb=$(ratio "$to" "$tb")
verdict=$(at_most "$r" 1.5)
sum_row MOJO "\`validate\`, 200 MB" "hand-written validating loop, same checks (bench/hand_mojo.c)" "$r" "at most 1 x (issue 26; 1.25 x issue 7)" "$(at_most "$r" 1.00)"

cat >>"$res" <<EOF2

## Austin MOJO 3

Input: \`bench/data/mojo-200m.mojo\`, the events of $(basename "$seed") repeated after its header:
$size bytes, $records events. Also \`bench/data/mojo-20m.mojo\` ($small_size bytes), built the same way.

| what | time (s) | MB/s | M events/s | peak RSS |
|---|---|---|---|---|
| hand-written validating C loop, bytes and key references (bench/hand_mojo.c) | $th | $(mbps "$size" "$th") | $(persec "$records" "$th") | $(field "$hand" max_rss_kb) KB |
| the same loop, bytes only (\`hand_mojo --bytes-only\`) | $tb | $(mbps "$size" "$tb") | $(persec "$records" "$tb") | $(field "$hand_bytes" max_rss_kb) KB |
| \`profcodec validate\` (bytes and key references) | $to | $(mbps "$size" "$to") | $(persec "$records" "$to") | $(field "$ours" max_rss_kb) KB |
| \`profcodec validate\`, 20 MB input | $(field "$ours_small" median) | $(mbps "$small_size" "$(field "$ours_small" median)") | | $(field "$ours_small" max_rss_kb) KB |
| \`profcodec convert --to collapsed -o /dev/null\` | $tc | $(mbps "$size" "$tc") | $(persec "$records" "$tc") | $(field "$collapsed" max_rss_kb) KB |
| \`profcodec convert --to collapsed\`, 20 MB input | $tcs | $(mbps "$small_size" "$tcs") | | $(field "$collapsed_small" max_rss_kb) KB |
| \`profcodec convert --to austin -o /dev/null\` | $(field "$austin" median) | $(mbps "$size" "$(field "$austin" median)") | $(persec "$records" "$(field "$austin" median)") | $(field "$austin" max_rss_kb) KB |
| \`profcodec convert --to speedscope -o /dev/null\` | $(field "$speedscope" median) | $(mbps "$size" "$(field "$speedscope" median)") | | $(field "$speedscope" max_rss_kb) KB |
| \`profcodec dump -o /dev/null\` (JSON Lines) | $(field "$dump" median) | $(mbps "$size" "$(field "$dump" median)") | $(persec "$records" "$(field "$dump" median)") | $(field "$dump" max_rss_kb) KB |

validate / hand-written loop with the same checks: **$r x** (issue 26's target at most 1 x: $(at_most "$r" 1.00);
issue 7's 1.25 x: $(at_most "$r" 1.25)); against the bytes-only loop: $rb x. The hand loop (bench/hand_mojo.c) reads
with read() into a 1 MiB buffer, checks the header and every event (its id, its varints: at most 10
bytes and 64 bits, its NUL-terminated strings) and keeps a set of the (process, key) pairs defined,
so that every string and frame key a frame or frame reference names is checked as \`validate\` does;
\`--bytes-only\` leaves the key checks out. (\`validate\` also assembles samples for its warnings:
events outside a sample, repeated metrics.) Peak memory does not grow with the input (20 MB vs 200 MB above).
EOF2

if [ -n "${AUSTIN_PYTHON:-}" ] && [ -d "$AUSTIN_PYTHON/austin" ]; then
    py=${PYTHON:-python3}
    echo "bench: austin-python mojo2austin on the 20 MB input (one run)"
    ap=$("$R" 1 env PYTHONPATH="$AUSTIN_PYTHON${PYTHONPATH:+:$PYTHONPATH}" "$py" -m austin.format.mojo "$small" /dev/null)
    ta=$(field "$ap" median)
    cat >>"$res" <<EOF2

austin-python's \`mojo2austin\` ($AUSTIN_PYTHON, \`$py -m austin.format.mojo\`) on the 20 MB input: $ta s
(exit $(field "$ap" exit)); \`convert --to collapsed\` on the same input: $tcs s, **$(ratio "$ta" "$tcs") x faster**
(target at least 50 x).
EOF2
    sum_row MOJO "\`convert --to collapsed\`, 20 MB" "austin-python's mojo2austin" "$(ratio "$ta" "$tcs")" "at least 50 x faster (issue 3)" "$(at_least "$(ratio "$ta" "$tcs")" 50)"
else
    cat >>"$res" <<EOF2

austin-python was not timed (set AUSTIN_PYTHON to a checkout of austin-python 1.7.1 to add it).
EOF2
fi

# ---- the 27 MB recording to Austin text (issue 26): CPU time, peak memory, against the tree
# before the profile model (PCD_OLD) and against austin-python, each alternately
if [ -f "$rec27" ]; then
    r27_size=$(stat -c %s "$rec27")
    warm "$rec27"
    echo "bench: mojo: the 27 MB recording to Austin text"
    a27=$("$R" "$RUNS" "$P" -q convert --to austin "$rec27")
    guard mojo.austin-27m "$a27"
    c27=$(field "$a27" cpu)
    old_line="The tree before the profile model was not timed (set PCD_OLD to its profcodec, bench/README.md)."
    if [ -n "${PCD_OLD:-}" ] && [ -x "$PCD_OLD" ]; then
        alt "$RUNS" "$PCD_OLD" -q convert --to austin "$rec27" -- "$P" -q convert --to austin "$rec27"
        o27=$(field "$alt_a" cpu); n27=$(field "$alt_b" cpu)
        r_old=$(ratio "$n27" "$o27")
        old_line="Alternately with the tree before the profile model (27509ba, \`$PCD_OLD\`), $RUNS runs each: $o27 s against $n27 s of CPU, **$r_old x** its time."
        sum_row MOJO "\`convert --to austin\`, 27 MB recording (CPU)" "27509ba, the tree before the profile model" "$r_old" "at most 1 x (issue 26)" "$(at_most "$r_old" 1.00)"
    fi
    ap_line="austin-python was not timed (set AUSTIN_PYTHON to a checkout of austin-python 1.7.1)."
    if [ -n "${AUSTIN_PYTHON:-}" ] && [ -d "$AUSTIN_PYTHON/austin" ]; then
        py=${PYTHON:-python3}
        echo "bench: austin-python mojo2austin on the 27 MB recording (${AUSTIN_RUNS:-1} run(s), alternately)"
        alt "${AUSTIN_RUNS:-1}" env PYTHONPATH="$AUSTIN_PYTHON${PYTHONPATH:+:$PYTHONPATH}" "$py" -m austin.format.mojo "$rec27" /dev/null \
            -- "$P" -q convert --to austin "$rec27"
        apc=$(field "$alt_a" cpu); pcc=$(field "$alt_b" cpu)
        r_ap=$(ratio "$apc" "$pcc")
        ap_line="Alternately with austin-python's \`mojo2austin\` ($AUSTIN_PYTHON, \`$py -m austin.format.mojo\`; exit $(field "$alt_a" exit)), ${AUSTIN_RUNS:-1} run(s) each: $apc s against $pcc s of CPU: profcodec is **$r_ap x** faster (target at least 100 x: $(at_least "$r_ap" 100)). The texts are byte-identical (tests/mojo)."
        sum_row MOJO "\`convert --to austin\`, 27 MB recording (CPU)" "austin-python's mojo2austin (faster by)" "$r_ap" "at least 100 x faster (issue 26)" "$(at_least "$r_ap" 100)"
    fi
    sum_row MOJO "\`convert --to austin\`, 27 MB recording (CPU s)" "0.12 s" "$(ratio "$c27" 0.12)" "at most 1 x: 0.12 s (issue 26)" "$(at_most "$c27" 0.12)"
    cat >>"$res" <<EOF2

### Austin text of a 27 MB recording

Input: \`bench/data/mojo-27m.mojo\` ($r27_size bytes), the events of $(basename "$rec_seed") (austinp, Austin 3.7:
kernel stacks under the Python ones, four threads taking turns) repeated after its header.

\`profcodec convert --to austin\` (to stdout, /dev/null): median **$c27 s of CPU** (user + system; wall $(field "$a27" median) s),
peak RSS $(field "$a27" max_rss_kb) KB (the 200 MB input above: $(field "$austin" max_rss_kb) KB), target at most 0.12 s: $(at_most "$c27" 0.12).
$old_line
$ap_line
Reproduce: \`BENCH=mojo PCD_OLD=... AUSTIN_PYTHON=... PYTHON=/usr/bin/python3 make bench\`.
EOF2
fi
