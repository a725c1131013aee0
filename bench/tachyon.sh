# bench/tachyon.sh: the Tachyon section of bench/RESULTS.md (sourced by scripts/bench.sh, which
# provides $B $P $R $RUNS $data $shared $res $root and the helpers field/ratio/mbps/persec/warm).
# ---- Tachyon ---------------------------------------------------------------------------
. "$root/bench/tachyon-data.bash"
tachyon_build 0 "$tnone"
tachyon_build 1 "$tzstd"
# the zstd stream of the compressed twin, alone: the floor (zstd -d)
tzst="$data/tachyon-200m-samples.zst"
soff=$(od -An -tu8 -j40 -N8 "$tzstd" | tr -d ' ')
[ "$tzst" -nt "$tzstd" ] || dd if="$tzstd" of="$tzst" bs=1M iflag=skip_bytes,count_bytes skip=64 count=$((soff - 64)) 2>/dev/null
tsize=$(stat -L -c %s "$tnone")
tzsize=$(stat -L -c %s "$tzstd")
tsamples=$((tcopies * 184858))
warm "$tnone" "$tzstd" "$tzst" "$tseed"
echo "bench: tachyon ($((tsize / 1000000)) MB raw, $((tzsize / 1000000)) MB zstd, $tsamples samples)"
# profcodec decompresses a large zstd region on a helper thread (--threads 2, the default),
# as the zstd tool reads and writes on one (its default, asyncio): those two are compared; the
# one-threaded pairs (--threads 1 / --no-asyncio, and against the one-threaded hand loop) too
alt "$RUNS" zstd -q -d -c "$tzst" -- "$P" -q convert --to collapsed "$tzstd" -o /dev/null
t_zd=$alt_a
t_cz=$alt_b
alt "$RUNS" zstd -q -d --no-asyncio -c "$tzst" -- "$P" -q --threads 1 convert --to collapsed "$tzstd" -o /dev/null
t_z1=$alt_a
t_cz1=$alt_b
t_cn=$("$R" "$RUNS" "$P" -q convert --to collapsed "$tnone" -o /dev/null)
alt "$RUNS" "$B/bench/hand_tachyon" "$tnone" -- "$P" -q validate "$tnone"
t_hn=$alt_a
t_vn=$alt_b
alt "$RUNS" "$B/bench/hand_tachyon" "$tzstd" -- "$P" -q --threads 1 validate "$tzstd"
t_hz=$alt_a
t_vz1=$alt_b
t_vz=$("$R" "$RUNS" "$P" -q validate "$tzstd")
t_seed=$("$R" "$RUNS" "$P" -q convert --to collapsed "$tseed" -o /dev/null)
guard tachyon.collapsed-zstd "$t_cz"
guard tachyon.collapsed-zstd-t1 "$t_cz1"
guard tachyon.collapsed-raw "$t_cn"
guard tachyon.validate-raw "$t_vn"
guard tachyon.validate-zstd "$t_vz"
guard tachyon.validate-zstd-t1 "$t_vz1"
guard tachyon.collapsed-real "$t_seed"
# the tree before the profile model (27509ba) when PCD_OLD names its profcodec: collapsed of the
# raw and zstd profiles and of the real one, alternately, CPU time (issue 26: at most its time)
old_rows=""
old_line="The tree before the profile model was not timed (set PCD_OLD to its profcodec, bench/README.md)."
if [ -n "${PCD_OLD:-}" ] && [ -x "$PCD_OLD" ]; then
    old_line="Against the tree before the profile model (27509ba, \`$PCD_OLD\`), alternately, $RUNS runs each, CPU time (user + system, both threads):"
    for pair in "raw 200 MB:$tnone" "zstd 200 MB:$tzstd" "real profile (zstd, 184858 samples):$tseed"; do
        what=${pair%%:*} in=${pair#*:}
        alt "$RUNS" "$PCD_OLD" -q convert --to collapsed "$in" -- "$P" -q convert --to collapsed "$in"
        oc=$(field "$alt_a" cpu); nc=$(field "$alt_b" cpu); ro=$(ratio "$nc" "$oc")
        old_rows="$old_rows
| \`convert --to collapsed\`, $what | $oc | $nc | **$ro x** | $(field "$alt_a" max_rss_kb) KB | $(field "$alt_b" max_rss_kb) KB |"
        sum_row Tachyon "\`convert --to collapsed\`, $what (CPU)" "27509ba, the tree before the profile model" "$ro" "at most 1 x (issue 26)" "$(at_most "$ro" 1.00)"
    done
fi
tzd=$(field "$t_zd" median); tcn=$(field "$t_cn" median); tcz=$(field "$t_cz" median)
tvn=$(field "$t_vn" median); tvz=$(field "$t_vz" median); tsd=$(field "$t_seed" median)
thn=$(field "$t_hn" median); thz=$(field "$t_hz" median); tz1=$(field "$t_z1" median)
tcz1=$(field "$t_cz1" median); tvz1=$(field "$t_vz1" median)
r_cz=$(ratio "$tcz" "$tzd"); r_vz=$(ratio "$tvz" "$tzd"); r_c1=$(ratio "$tcz1" "$tz1")
r_hn=$(ratio "$tvn" "$thn"); r_hz=$(ratio "$tvz1" "$thz"); r_hz2=$(ratio "$tvz" "$thz")
v_cz=$(at_most "$r_cz" 2)
sum_row Tachyon "\`validate\`, raw 200 MB" "hand-written validating loop (bench/hand_tachyon.c)" "$r_hn" "at most 1 x (issue 26; 1.25 x issue 7)" "$(at_most "$r_hn" 1.00)"
sum_row Tachyon "\`validate --threads 1\`, zstd" "hand-written validating loop (one thread too)" "$r_hz" "at most 1 x (issue 26; 1.25 x issue 7)" "$(at_most "$r_hz" 1.00)"
sum_row Tachyon "\`convert --to collapsed\`, zstd" "\`zstd -d\` of the sample stream (both with their second thread)" "$r_cz" "at most 2 x (issue 4)" "$v_cz"
sum_row Tachyon "\`--threads 1 convert --to collapsed\`, zstd" "\`zstd -d --no-asyncio\` (both on one thread)" "$r_c1" "at most 2 x (issue 4)" "$(at_most "$r_c1" 2)"
# CPython's own replay of the real profile, when a CPython 3.15 root is at hand (as root)
cpy_line="CPython's \`replay --collapsed\`: not measured (set PCD_CPYTHON315_ROOT to a root made by ../shared/tools/cpython315-root.sh, as root)."
if [ -n "${PCD_CPYTHON315_ROOT:-}" ] && [ -x "$PCD_CPYTHON315_ROOT/usr/bin/python3.15" ] && [ "$(id -u)" = 0 ]; then
    mkdir -p "$PCD_CPYTHON315_ROOT/tmp"
    cp "$tseed" "$PCD_CPYTHON315_ROOT/tmp/pcd-bench-seed.bin"
    # alternately with profcodec on the same file, CPU time (user + system) of each process
    alt 5 env LC_ALL=C chroot "$PCD_CPYTHON315_ROOT" /usr/bin/python3.15 -m profiling.sampling replay --collapsed \
        -o /tmp/pcd-bench-seed.txt /tmp/pcd-bench-seed.bin -- "$P" -q convert --to collapsed "$tseed"
    rm -f "$PCD_CPYTHON315_ROOT/tmp/pcd-bench-seed.bin" "$PCD_CPYTHON315_ROOT/tmp/pcd-bench-seed.txt"
    tcpy=$(field "$alt_a" cpu); tpc=$(field "$alt_b" cpu)
    r_cpy=$(ratio "$tcpy" "$tpc")
    v_cpy=$(at_least "$r_cpy" 50)
    cpy_line="CPython 3.15.2's \`replay --collapsed\` of the same real profile (whole process, chroot), alternately with \`convert --to collapsed\`, 5 runs each: $tcpy s against $tpc s of CPU; profcodec is **$r_cpy x** faster (target at least 50 x: $v_cpy; issue 4's 10 x: $(at_least "$r_cpy" 10))."
    sum_row Tachyon "\`convert --to collapsed\`, real profile (CPU)" "CPython's \`replay --collapsed\` (faster by)" "$r_cpy" "at least 50 x faster (issue 26; 10 x issue 4)" "$v_cpy"
fi

cat >>"$res" <<EOF2

## Tachyon (CPython sampling profiles) 1

Inputs: \`bench/data/tachyon-200m-none.bin\` ($tsize bytes) and its zstd twin \`tachyon-200m-zstd.bin\`
($tzsize bytes), $tsamples samples: the samples of \`tests/data/tachyon/workload_all_zstd.bin\` (a real
CPython 3.15.2 profile, 4 threads, 184858 samples) repeated $tcopies times, each copy's times stretched by
one of 11 factors, written by profcodec's CPython-choice writer (\`encode --from samples\`).
The floor is \`zstd -d\` of the compressed twin's sample stream alone (\`tachyon-200m-samples.zst\`).

| what | time (s) | MB/s (raw bytes) | M samples/s | peak RSS |
|---|---|---|---|---|
| \`zstd -d\` of the sample stream (the floor) | $tzd | $(mbps "$tsize" "$tzd") | $(persec "$tsamples" "$tzd") | $(field "$t_zd" max_rss_kb) KB |
| \`zstd -d --no-asyncio\` (one thread) | $tz1 | $(mbps "$tsize" "$tz1") | $(persec "$tsamples" "$tz1") | $(field "$t_z1" max_rss_kb) KB |
| hand-written validating C loop (bench/hand_tachyon.c), raw | $thn | $(mbps "$tsize" "$thn") | $(persec "$tsamples" "$thn") | $(field "$t_hn" max_rss_kb) KB |
| hand-written validating C loop, zstd | $thz | $(mbps "$tsize" "$thz") | $(persec "$tsamples" "$thz") | $(field "$t_hz" max_rss_kb) KB |
| \`convert --to collapsed\`, raw | $tcn | $(mbps "$tsize" "$tcn") | $(persec "$tsamples" "$tcn") | $(field "$t_cn" max_rss_kb) KB |
| \`convert --to collapsed\`, zstd | $tcz | $(mbps "$tsize" "$tcz") | $(persec "$tsamples" "$tcz") | $(field "$t_cz" max_rss_kb) KB |
| \`--threads 1 convert --to collapsed\`, zstd | $tcz1 | $(mbps "$tsize" "$tcz1") | $(persec "$tsamples" "$tcz1") | $(field "$t_cz1" max_rss_kb) KB |
| \`validate\` (every record, CPython's checks), raw | $tvn | $(mbps "$tsize" "$tvn") | $(persec "$tsamples" "$tvn") | $(field "$t_vn" max_rss_kb) KB |
| \`validate\`, zstd | $tvz | $(mbps "$tsize" "$tvz") | $(persec "$tsamples" "$tvz") | $(field "$t_vz" max_rss_kb) KB |
| \`--threads 1 validate\`, zstd | $tvz1 | $(mbps "$tsize" "$tvz1") | $(persec "$tsamples" "$tvz1") | $(field "$t_vz1" max_rss_kb) KB |
| \`convert --to collapsed\` of the real profile (184858 samples) | $tsd | | $(persec 184858 "$tsd") | $(field "$t_seed" max_rss_kb) KB |

zstd profile, \`convert --to collapsed\` / \`zstd -d\` alone: **$r_cz x** (target at most 2 x: $v_cz).
Both use a second thread by default: the zstd tool reads and writes on one, profcodec decompresses a
large zstd region on one, ahead of the decoding (\`--threads 1\` turns that off; output, errors and
limits are the same). Both on one thread (\`--threads 1\` against \`zstd -d --no-asyncio\`): **$r_c1 x**
($(at_most "$r_c1" 2)). \`validate\` / \`zstd -d\`: $r_vz x. $cpy_line

validate / hand-written loop: raw **$r_hn x**, zstd **$r_hz x** with \`--threads 1\` (the hand loop runs on
one thread too; with the helper thread: $r_hz2 x) (issue 26's target at most 1 x: $(at_most "$r_hn" 1.00),
$(at_most "$r_hz" 1.00); issue 7's 1.25 x: $(at_most "$r_hn" 1.25), $(at_most "$r_hz" 1.25)). The hand loop (bench/hand_tachyon.c) maps the file and
checks the header (magic in either byte order, version 1, table offsets ordered and inside the file,
mode 0..5), the footer and the statistics block (size, finite values); it reads the sample records
raw or through one zstd stream (ZSTD_decompressStream into a 1 MiB window), bounds every varint (10
bytes; the 32-bit ones at most 2^32-1; at most 256 frames a record), checks every frame index
against the frame count, replays the stacks per (thread, interpreter) in a 256-frame array
(REPEAT, FULL, SUFFIX with shared_count within the depth, POP_PUSH; final depth at most 256; at
most thread_count threads; timestamps summed; frames used marked), counts the samples against the
header, then checks the string table (lengths, UTF-8) and the frame table (varints, zigzag fields,
string indexes of the frames used) and where each ends: the checks \`validate\` makes (it rejects
the same 28 files of the corpus's invalid/ set).
Peak RSS does not grow with the input: a file read whole is mapped, and the pages already read
are dropped every 8 MiB (a whole-buffer reader's release hook); the hand loop keeps the whole
mapping (its peak is the file's size).

$old_line
EOF2
if [ -n "$old_rows" ]; then
    cat >>"$res" <<EOF2

| what | 27509ba CPU (s) | now CPU (s) | now / 27509ba | 27509ba peak RSS | now peak RSS |
|---|---|---|---|---|---|$old_rows
EOF2
fi
