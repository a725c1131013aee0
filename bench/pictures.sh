# bench/pictures.sh: the pictures section of bench/RESULTS.md (issue 16; sourced by
# scripts/bench.sh, which provides $B $P $R $RUNS $data $res and the helpers).
# The input: a profile of 1 M samples and about 100 k distinct stacks on 4 threads, written by
# bench/gen_profile.py as Austin text and encoded to MOJO (`encode --from austin`), not checked
# in, and the same profile as a CPython 3.15 (Tachyon) file (`convert --to tachyon`): the issue
# times the html output from a Tachyon file; the MOJO times stay beside it.
# ---- pictures ----------------------------------------------------------------------------
pic="$data/pictures-1m.mojo"
if [ ! -f "$pic" ]; then
    echo "bench: building $pic (bench/gen_profile.py 1000000 100000 | encode --from austin)"
    python3 "$root/bench/gen_profile.py" 1000000 100000 - | "$P" -q encode --from austin - -o "$pic.part" && mv "$pic.part" "$pic"
fi
tpic="$data/pictures-1m.tachyon"
if [ ! -f "$tpic" ]; then
    echo "bench: building $tpic (convert --to tachyon)"
    "$P" -q convert --to tachyon "$pic" -o "$tpic"
fi
pic_samples=$("$P" info --json "$pic" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["samples"])')
# distinct stacks, threads merged (the default dialect's two thread parts cut off)
pic_stacks=$("$P" -q convert --to collapsed --dialect default "$pic" | sed 's/ [0-9]*$//' | cut -d';' -f3- | sort -u | wc -l)
warm "$pic"
warm "$tpic"
echo "bench: pictures: convert --to html and --to speedscope from Tachyon ($pic_samples samples, $pic_stacks stacks)"
alt "$RUNS" "$P" -q convert --to speedscope "$tpic" -o "$data/pictures.speedscope.json" -- \
    "$P" -q convert --to html "$tpic" -o "$data/pictures.html"
pic_ss=$alt_a
pic_html=$alt_b
echo "bench: pictures: the same from MOJO"
alt "$RUNS" "$P" -q convert --to speedscope "$pic" -o /dev/null -- \
    "$P" -q convert --to html "$pic" -o /dev/null
mpic_ss=$alt_a
mpic_html=$alt_b
pic_svg=$("$R" 3 "$P" -q convert --to svg "$pic" -o "$data/pictures.svg")
pic_collapsed=$("$R" 3 "$P" -q convert --to collapsed "$pic" -o /dev/null)
guard pictures.speedscope-tachyon "$pic_ss"
guard pictures.html-tachyon "$pic_html"
guard pictures.speedscope-mojo "$mpic_ss"
guard pictures.html-mojo "$mpic_html"
guard pictures.svg "$pic_svg"
guard pictures.collapsed "$pic_collapsed"
size_ss=$(stat -c %s "$data/pictures.speedscope.json")
size_html=$(stat -c %s "$data/pictures.html")
size_svg=$(stat -c %s "$data/pictures.svg")
echo "bench: pictures: first paint in headless Chromium"
paint=$(node "$root/bench/first_paint.mjs" "$data/pictures.html" "$RUNS")
paint_ms=$(field "$paint" median_ms)
t_ss=$(field "$pic_ss" median)
t_html=$(field "$pic_html" median)
r_time=$(ratio "$t_html" "$t_ss")
r_size=$(ratio "$size_html" "$size_ss")
sum_row pictures "\`convert --to html\` of a Tachyon file, 1 M samples" "\`convert --to speedscope\` of the same input (time)" "$r_time" "at most 2 x (issue 16)" "$(at_most "$r_time" 2)"
sum_row pictures "HTML size, 1 M samples" "speedscope JSON of the same input (bytes)" "$r_size" "at most 1 x (issue 16)" "$(at_most "$r_size" 1)"
sum_row pictures "first paint in headless Chromium" "2 s" "$(ratio "$paint_ms" 2000)" "at most 1 x: $paint_ms ms (issue 16)" "$(at_most "$paint_ms" 2000)"

cat >>"$res" <<EOF2

## Pictures (html, svg)

Input: \`bench/data/pictures-1m.tachyon\` ($(stat -c %s "$tpic") bytes), a CPython 3.15 profile written by
\`convert --to tachyon\` from \`bench/data/pictures-1m.mojo\` ($(stat -c %s "$pic") bytes): $pic_samples samples
on 4 threads, $pic_stacks distinct stacks (threads merged), made by \`bench/gen_profile.py 1000000 100000\`
as Austin text and \`encode --from austin\`.

| what | time (s) | output | peak RSS |
|---|---|---|---|
| \`profcodec convert --to speedscope\` (Tachyon) | $t_ss | $size_ss bytes | $(field "$pic_ss" max_rss_kb) KB |
| \`profcodec convert --to html\` (Tachyon) | $t_html | $size_html bytes | $(field "$pic_html" max_rss_kb) KB |
| \`profcodec convert --to speedscope\` (MOJO) | $(field "$mpic_ss" median) | | $(field "$mpic_ss" max_rss_kb) KB |
| \`profcodec convert --to html\` (MOJO) | $(field "$mpic_html" median) | | $(field "$mpic_html" max_rss_kb) KB |
| \`profcodec convert --to svg\` | $(field "$pic_svg" median) | $size_svg bytes | $(field "$pic_svg" max_rss_kb) KB |
| \`profcodec convert --to collapsed -o /dev/null\` (for scale) | $(field "$pic_collapsed" median) | | $(field "$pic_collapsed" max_rss_kb) KB |

html / speedscope: **$r_time x** the time (target at most 2 x: $(at_most "$r_time" 2)), **$r_size x** the
size (target at most 1 x: $(at_most "$r_size" 1)). First paint of the page in headless Chromium
(\`bench/first_paint.mjs\`: from the start of the navigation to the first flame graph drawn, the page's
data parsed and decoded and the totals summed; median of $RUNS loads, best $(field "$paint" best_ms) ms):
**$paint_ms ms** (target under 2 s: $(at_most "$paint_ms" 2000)).
EOF2
