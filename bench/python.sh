# bench/python.sh: the Python module's section of bench/RESULTS.md (sourced by scripts/bench.sh,
# which provides $B $P $R $RUNS $data $res $root and the helpers field/ratio/mbps/persec/warm/alt).
# The module is the bench build's ($B/python: Release). PYTHON picks the interpreter (default
# Debian's /usr/bin/python3). austin-python is not needed: when AUSTIN_PYTHON names a checkout of
# austin-python 1.7.1, its reader is timed on the same file (AUSTIN_RUNS runs, default 1: over a
# minute each).
# ---- Python ------------------------------------------------------------------------------
py=${PYTHON:-/usr/bin/python3}
pyenv="PYTHONPATH=$B/python"
# the 200 MB MOJO file of the MOJO section (bench/mojo.sh builds it the same way)
pmojo="$data/mojo-200m.mojo"
if [ ! -f "$pmojo" ]; then
    pseed="$shared/mojo/wall_recursive.mojo"
    [ -f "$pseed" ] || pseed="$root/tests/data/mojo/v3_multiproc.mojo"
    echo "bench: building $pmojo from $(basename "$pseed")'s events repeated"
    pbody=$(( $(stat -c %s "$pseed") - 4 ))
    { head -c 4 "$pseed"; for _ in $(seq 1 $(( 200000000 / pbody + 1 ))); do tail -c +5 "$pseed"; done; } >"$pmojo.part" &&
        mv "$pmojo.part" "$pmojo"
fi
# the big Tachyon profile of the Tachyon section, when this build imports Tachyon into the model
. "$root/bench/tachyon-data.bash"
on_model=$(env "$pyenv" "$py" -c 'import profcodec; print(int(any(f["name"] == "tachyon" and f["profile"] for f in profcodec.formats())))')
[ "$on_model" = 1 ] && tachyon_build 1 "$tzstd"
psize=$(stat -L -c %s "$pmojo")
precords=$(env "$pyenv" "$py" "$root/bench/python_iter.py" profcodec "$pmojo")
warm "$pmojo"

# iterating records
echo "bench: python: iterating the records of $(basename "$pmojo") ($precords records)"
py_iter=$("$R" "$RUNS" env "$pyenv" "$py" "$root/bench/python_iter.py" profcodec "$pmojo")
py_dump=$("$R" 3 "$P" -q dump "$pmojo" -o /dev/null)
t_iter=$(field "$py_iter" median)
if [ -n "${AUSTIN_PYTHON:-}" ] && [ -d "$AUSTIN_PYTHON/austin" ]; then
    # one run each, alternately, as often as AUSTIN_RUNS says: both see the same load
    echo "bench: python: austin-python's reader on the same file (${AUSTIN_RUNS:-1} x, about a minute each)"
    alt "${AUSTIN_RUNS:-1}" env "$pyenv" "$py" "$root/bench/python_iter.py" profcodec "$pmojo" -- \
        env PYTHONPATH="$AUSTIN_PYTHON" "$py" "$root/bench/python_iter.py" austin "$pmojo"
    t_iter_alt=$(field "$alt_a" median)
    t_austin=$(field "$alt_b" median)
    r_austin=$(ratio "$t_austin" "$t_iter_alt")
    sum_row Python "iterating the records of a 200 MB MOJO file" "austin-python 1.7.1's reader (MojoFile.parse), faster by" \
        "$r_austin" "at least 20 x faster (issue 17)" "$(at_least "$r_austin" 20)"
    austin_row="| austin-python 1.7.1's reader: \`for e in MojoFile(f).parse()\` ($AUSTIN_PYTHON) | $t_austin | $(mbps "$psize" "$t_austin") | $(persec "$precords" "$t_austin") | $(field "$alt_b" max_rss_kb) KB |
| \`for r in profcodec.open(f)\`, run alternately with it | $t_iter_alt | $(mbps "$psize" "$t_iter_alt") | $(persec "$precords" "$t_iter_alt") | $(field "$alt_a" max_rss_kb) KB |"
    austin_text="austin-python's reader takes **$r_austin x** as long (target at least 20 x: $(at_least "$r_austin" 20)): both
ran once each, alternately ($(field "$alt_b" runs) x), so that they saw the same load."
else
    austin_row=""
    austin_text="austin-python was not timed (set AUSTIN_PYTHON to a checkout of austin-python 1.7.1 to add it)."
fi

# Reader.profile() of a Tachyon profile, against the CLI's convert --to collapsed
if [ "$on_model" = 1 ]; then
    warm "$tzstd"
    echo "bench: python: Reader.profile() of $(basename "$tzstd") and convert --to collapsed"
    prof_py='import profcodec, sys
with profcodec.open(sys.argv[1]) as r:
    p = r.profile()
print(len(p.samples))'
    alt "$RUNS" "$P" -q convert --to collapsed "$tzstd" -o /dev/null -- env "$pyenv" "$py" -c "$prof_py" "$tzstd"
    t_coll=$(field "$alt_a" median)
    t_prof=$(field "$alt_b" median)
    r_prof=$(ratio "$t_prof" "$t_coll")
    rows=$(env "$pyenv" "$py" -c "$prof_py" "$tzstd")
    prof_seed=$("$R" "$RUNS" env "$pyenv" "$py" -c "$prof_py" "$tseed")
    coll_seed=$("$R" "$RUNS" "$P" -q convert --to collapsed "$tseed" -o /dev/null)
    py_start=$("$R" "$RUNS" env "$pyenv" "$py" -c 'import profcodec')
    sum_row Python "\`Reader.profile()\` of a Tachyon profile (41.6 M samples, zstd)" "\`profcodec convert --to collapsed\` of the same file" \
        "$r_prof" "at most 1.5 x (issue 17)" "$(at_most "$r_prof" 1.5)"
    prof_rows="Input: \`bench/data/tachyon-200m-zstd.bin\` ($(stat -L -c %s "$tzstd") bytes), the file of the Tachyon section.

| what | time (s) | peak RSS |
|---|---|---|
| \`profcodec convert --to collapsed -o /dev/null\` | $t_coll | $(field "$alt_a" max_rss_kb) KB |
| \`with profcodec.open(f) as r: r.profile()\` ($rows rows of samples: runs of identical samples are one row with a count) | $t_prof | $(field "$alt_b" max_rss_kb) KB |
| the same on the real profile ($(basename "$tseed"), 184858 samples): \`convert --to collapsed\` | $(field "$coll_seed" median) | $(field "$coll_seed" max_rss_kb) KB |
| the same on the real profile: \`Reader.profile()\` | $(field "$prof_seed" median) | $(field "$prof_seed" max_rss_kb) KB |
| \`python3 -c 'import profcodec'\` (the interpreter's start and the import, in the times above) | $(field "$py_start" median) | $(field "$py_start" max_rss_kb) KB |"
    prof_text="\`Reader.profile()\` / \`convert --to collapsed\`: **$r_prof x** (target at most 1.5 x: $(at_most "$r_prof" 1.5)); the two
ran alternately, one run each, $RUNS times. The profile holds every sample (its columns: thread, stack, time,
count, flags, a value per sample type), where collapsed keeps a total per distinct stack."
else
    prof_rows=""
    prof_text="\`Reader.profile()\` of a Tachyon profile: not measured, this build does not import Tachyon into the
profile model (\`profcodec.formats()\`)."
fi

cat >>"$res" <<EOF2

## Python (\`import profcodec\`)

The module of the bench build (\`$B/python\`, Release), run by \`$py\` (whole process: the
interpreter's start and the import included). \`bench/python_iter.py\` counts the records it is given.
Input: \`bench/data/mojo-200m.mojo\` ($psize bytes, $precords records), the file of the MOJO section.

| what | time (s) | MB/s | M records/s | peak RSS |
|---|---|---|---|---|
| \`for r in profcodec.open(f)\`: every record a Python object | $t_iter | $(mbps "$psize" "$t_iter") | $(persec "$precords" "$t_iter") | $(field "$py_iter" max_rss_kb) KB |
| \`profcodec dump -o /dev/null\` (the CLI: every record as a JSON line) | $(field "$py_dump" median) | $(mbps "$psize" "$(field "$py_dump" median)") | $(persec "$precords" "$(field "$py_dump" median)") | $(field "$py_dump" max_rss_kb) KB |${austin_row:+
$austin_row}

$austin_text Peak memory does not grow with the file: the records are decoded in batches, without the GIL.

${prof_rows:+$prof_rows
}${prof_rows:+
}$prof_text
EOF2
