#!/usr/bin/env bash
# test_cli_tachyon.sh: the profcodec CLI on Tachyon profiles: every command, both byte orders,
# dump|encode and samples|encode round trips, CPython's outputs, damage and exit codes.
# PCD_TEST_SMALL=1 (make test's sanitize tree; not with PCD_TEST_LONG=1): the per-file checks on
# tests/data's profiles only (the corpus's are agreement with CPython: the fast tree's); the rest
# (damage, memory cap, the large zstd region and its helper thread, stdin) in full.
# usage: test_cli_tachyon.sh PROFCODEC TESTDATA CORPUS WORKDIR
set -u
P=$1 DATA=$2 CORPUS=$3 W=$4
mkdir -p "$W"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # expected-rc description command...
    local want=$1 what=$2; shift 2
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else bad "$what: exit $rc, wanted $want"; sed 's/^/    /' "$W/err" | head -5; fi
}
is_json() { # file (skipped without python3)
    command -v "${PCD_PYTHON:-python3}" >/dev/null || return 0
    "${PCD_PYTHON:-python3}" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}
same() { # what a b
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1: $2 and $3 differ"; fi
}

profiles=()
for n in deep_zstd gc_native_opcodes_zstd recursion_nogc_blocking_none sleepy_cpu_zstd threads_gil_none; do
    profiles+=("$DATA/tachyon/$n.bin")
done
[ -n "${PCD_TEST_SMALL:-}" ] && [ "${PCD_TEST_LONG:-0}" = 0 ] && echo "sized for the sanitizers: tests/data's profiles" ||
for n in deep_none recursion_wall_none recursion_wall_zstd sleepy_wall_none sleepy_wall_none.be threads_all_none \
         threads_all_zstd unicode_exception_opcodes_none; do
    [ -f "$CORPUS/tachyon/$n.bin" ] && profiles+=("$CORPUS/tachyon/$n.bin")
done

expect_rc 0 "formats" "$P" formats
grep -q '^tachyon .*collapsed' "$W/out" || bad "formats lists tachyon and its conversions"
# every row's "convert to:" starts in the same column (a long title once pushed tachyon's out;
# a format with no conversion, perfetto, has none); the rows of formats of schemas, which end at
# the blank line before the text inputs' own block
[ "$(awk '/^$/ { exit } index($0, "convert to:") { print index($0, "convert to:") }' "$W/out" | sort -u | wc -l)" = 1 ] && ok "formats: columns line up" || bad "formats: columns line up"
expect_rc 0 "encode --help lists --from samples" "$P" encode --help
grep -q 'samples' "$W/out" || bad "encode --help names the samples importer"

for t in "${profiles[@]}"; do
    n=$(basename "$t" .bin)
    ref_dir=$(dirname "$t")
    base=${n%.be}
    expect_rc 0 "validate --strict $n" "$P" validate --strict "$t"
    expect_rc 0 "info $n" "$P" info "$t"
    grep -q '^config:      0x' "$W/out" || bad "info $n shows the config word"
    expect_rc 0 "info --json $n" "$P" info --json "$t"
    cp "$W/out" "$W/$n.info.json"
    is_json "$W/$n.info.json" || bad "info --json $n is JSON"
    expect_rc 0 "collapsed $n" "$P" convert --to collapsed "$t" -o "$W/$n.collapsed.txt"
    same "collapsed = CPython's: $n" "$W/$n.collapsed.txt" "$ref_dir/$base.collapsed.txt"
    expect_rc 0 "samples $n" "$P" convert --to samples "$t" -o "$W/$n.samples.txt"
    same "samples = CPython's reader: $n" "$W/$n.samples.txt" "$ref_dir/$n.samples.txt"
    expect_rc 0 "speedscope $n" "$P" convert --to speedscope "$t" -o "$W/$n.speedscope.json"
    expect_rc 0 "chrome $n" "$P" convert --to chrome "$t" -o "$W/$n.chrome.json"
    for j in speedscope chrome; do
        is_json "$W/$n.$j.json" || bad "$j of $n is JSON"
    done
    # dump | encode: the same bytes (zstd too: the corpus was compressed at level 5)
    expect_rc 0 "dump $n" "$P" dump "$t" -o "$W/$n.jsonl"
    expect_rc 0 "encode $n" "$P" encode "$W/$n.jsonl" -o "$W/$n.re.bin"
    same "dump|encode identical: $n" "$t" "$W/$n.re.bin"
    # the other byte order: the same samples
    if head -c 4 "$t" | grep -q TACH; then other=little; else other=big; fi
    expect_rc 0 "encode --endian $other $n" "$P" encode --endian "$other" "$W/$n.jsonl" -o "$W/$n.swapped.bin"
    expect_rc 0 "validate swapped $n" "$P" validate --strict "$W/$n.swapped.bin"
    "$P" convert --to samples "$W/$n.swapped.bin" -o "$W/$n.swapped.samples.txt"
    same "swapped byte order, same samples: $n" "$W/$n.swapped.samples.txt" "$W/$n.samples.txt"
    # samples text back to the file: CPython's choices
    if head -c 4 "$t" | grep -q TACH; then e=big; else e=little; fi
    expect_rc 0 "encode --from samples $n" "$P" encode --from samples --endian "$e" "$W/$n.samples.txt" -o "$W/$n.fromsamples.bin"
    if [ "$(od -An -tu1 -j56 -N1 "$t" | tr -d ' ')" = 1 ] || [ "$(od -An -tu1 -j59 -N1 "$t" | tr -d ' ')" = 1 ]; then
        "$P" convert --to samples "$W/$n.fromsamples.bin" -o "$W/$n.fromsamples.txt"
        same "samples -> encode -> samples (zstd): $n" "$W/$n.fromsamples.txt" "$W/$n.samples.txt"
    else
        same "samples -> encode identical: $n" "$t" "$W/$n.fromsamples.bin"
    fi
done

# damage: CPython's verdicts, exit 1 with a place; converters report it too
inv="$CORPUS/tachyon/invalid"
if [ -d "$inv" ]; then
    expect_rc 1 "suffix_shared_too_big rejected" "$P" validate "$inv/suffix_shared_too_big.bin"
    grep -q 'offset 11402: samples\[460\].stack.suffix.shared_count' "$W/err" || bad "the error names the record and field"
    expect_rc 1 "sample_count_plus1 rejected" "$P" validate "$inv/sample_count_plus1.bin"
    expect_rc 1 "collapsed of a damaged file" "$P" convert --to collapsed "$inv/frame_index_out_of_range.bin" -o "$W/x.txt"
    # validate's samples go from the decoding run straight to the replay (the sample's type
    # declares no warnings): the replay still checks each frame index
    expect_rc 1 "validate: a frame index past the frame table" "$P" validate "$inv/frame_index_out_of_range.bin"
    grep -q 'offset 11402: samples\[460\].stack.full.frames: expected a frame index below 22 (the footer.s frame_count), found 127$' \
        "$W/err" || bad "validate names the bad frame index"
    expect_rc 0 "ok_bad_footer_size_and_checksum: a warning only" "$P" validate "$inv/ok_bad_footer_size_and_checksum.bin"
    grep -q 'warning: offset 11813: file_size' "$W/err" || bad "the footer's file size is a warning"
    expect_rc 1 "... but an error with --strict" "$P" validate --strict "$inv/ok_bad_footer_size_and_checksum.bin"
    # a warning the schema declares (warn = ...), reported by validate from the generated code
    expect_rc 0 "ok_compression_2: a warning only" "$P" validate "$inv/ok_compression_2.bin"
    grep -q 'warning: offset 56: compression: expected 0 (none) or 1 (zstd); CPython reads other values as none, found 2' \
        "$W/err" || bad "the schema's warning about compression"
    grep -q 'valid tachyon 1, 495 records, 1 warning$' "$W/out" || bad "one warning counted"
    expect_rc 1 "... an error with --strict" "$P" validate --strict "$inv/ok_compression_2.bin"
    expect_rc 1 "version 2 is not read as version 1" "$P" validate "$inv/version_2.bin"
    grep -q 'unsupported CPython sampling profile (Tachyon) version 2 (this build reads 1)' "$W/err" || bad "version 2 says so"
fi
expect_rc 1 "a used frame with a bad string index" "$P" validate "$DATA/tachyon/crafted/used_frame_bad_string.bin"
expect_rc 0 "the same, unused: a warning" "$P" validate "$DATA/tachyon/crafted/unused_frame_bad_string.bin"
expect_rc 1 "... an error with --strict" "$P" validate --strict "$DATA/tachyon/crafted/unused_frame_bad_string.bin"
head -c 5000 "$DATA/tachyon/threads_gil_none.bin" >"$W/cut.bin"
expect_rc 1 "a cut file" "$P" validate "$W/cut.bin"
# the samples region made to end inside a record (string_table_offset 2001): the run stops at the
# cut record, every sample before it is replayed (183 of them, the header says 1304), and the
# string records after it still get validate's warnings (the strings go through the same direct
# path as the samples)
cp "$DATA/tachyon/threads_gil_none.bin" "$W/midcut.bin"
printf '\321\007\0\0\0\0\0\0' | dd of="$W/midcut.bin" bs=1 seek=40 conv=notrunc 2>/dev/null
expect_rc 1 "a samples region that ends inside a record" "$P" validate --all "$W/midcut.bin"
grep -q 'offset 2001: stack.repeat.samples: expected ULEB128 varint, found end of data (0 bytes left)$' "$W/err" ||
    bad "the cut record is named"
grep -q 'offset 28: sample_count: expected 183 samples (the samples the records hold), found 1304$' "$W/err" ||
    bad "every sample before the cut is replayed"
grep -q 'warning: offset 2001: strings\[0\].value: expected UTF-8' "$W/err" || bad "the strings after the cut are checked"
[ "$(grep -c 'warning: offset [0-9]*: strings\[[0-9]*\].value: expected UTF-8' "$W/err")" = 11 ] || bad "every string's warning"
grep -q '2 damaged places, 176 records read$' "$W/err" || bad "176 records read"
expect_rc 1 "samples text with an unknown frame" bash -c "printf '# info start_time_us=1\n# info sample_interval_us=1\nS 1 0 0 5 3\n' | '$P' encode --from samples - -o '$W/x.bin'"
grep -q ':3: frame 3 has no F line' "$W/err" || bad "the importer names the line"
[ -e "$W/x.bin" ] && bad "no output left behind after a failed import"
# --max-memory covers the importer: 3000 frames of long names and their samples in 1 MiB
awk 'BEGIN { print "# info start_time_us=1"; print "# info sample_interval_us=1000"
             for (i = 0; i < 3000; i++) printf "F %d %d %d 0 0 -1 \"file%d_%0200d.py\" \"f%d\"\n", i, i, i, i, 0, i
             for (i = 0; i < 3000; i++) printf "S 1 0 0 %d %d %d\n", i, i, (i + 1) % 3000 }' >"$W/mem.txt"
expect_rc 0 "samples text within the default memory cap" "$P" encode --from samples "$W/mem.txt" -o "$W/mem.bin"
expect_rc 2 "samples text over --max-memory 1M" "$P" --max-memory 1M encode --from samples "$W/mem.txt" -o "$W/mem1.bin"
grep -q 'out of memory (raise --max-memory)' "$W/err" || bad "the importer says the memory cap stopped it"
[ -e "$W/mem1.bin" ] && bad "no output left behind after the memory cap"
expect_rc 2 "piped samples text over --max-memory 1M" bash -c "cat '$W/mem.txt' | '$P' --max-memory 1M encode --from samples - -o '$W/mem1.bin'"
grep -q '(raise --max-memory)' "$W/err" || bad "a pipe over the memory cap is said so"

# stdin
t="$DATA/tachyon/deep_zstd.bin"
expect_rc 0 "collapsed from stdin" bash -c "cat '$t' | '$P' convert --to collapsed - -o '$W/stdin.txt'"
same "collapsed from stdin" "$W/stdin.txt" "$DATA/tachyon/deep_zstd.collapsed.txt"

# a zstd region of over 1 MiB: decompressed ahead on a second thread by default;
# --decompress-threads 1 reads it alone; the same output and the same errors either way.
# The seed's 185,000 samples, each at a random time within 4e15 us (the importer sorts them): the
# time deltas are about 4.6 random bytes a sample that zstd cannot shrink, a region of 1.23 MB
# (since i26u of s12: seven copies of the seed at scaled times made 1.29 million samples for
# 1.6 MB, 18 of the test's 23 s of CPU under ASan, most of it 37 MB of samples text read and written)
seed="$DATA/tachyon/workload_all_zstd.bin"
if "$P" -q convert --to samples "$seed" -o "$W/seed.txt"; then
    awk 'BEGIN { srand(1) } /^# stats|^# replayed/ { next } !/^S / { print; next }
         { $5 = sprintf("%.0f", int(rand() * 40000000) * 100000000 + int(rand() * 100000000)); print }' \
        "$W/seed.txt" >"$W/big.txt"
    expect_rc 0 "a profile with a large zstd region" "$P" -q encode --from samples "$W/big.txt" -o "$W/big.bin"
    soff=$(od -An -tu8 -j40 -N8 "$W/big.bin" | tr -d ' ')
    if [ "$((soff - 64))" -ge 1048576 ]; then ok "its sample region is $((soff - 64)) bytes"; else bad "sample region only $((soff - 64)) bytes"; fi
    expect_rc 0 "collapsed, helper thread" "$P" -q convert --to collapsed "$W/big.bin" -o "$W/big2.txt"
    expect_rc 0 "collapsed, --decompress-threads 1" "$P" -q --decompress-threads 1 convert --to collapsed "$W/big.bin" -o "$W/big1.txt"
    same "collapsed, either thread setting" "$W/big1.txt" "$W/big2.txt"
    expect_rc 0 "samples, helper thread" "$P" -q convert --to samples "$W/big.bin" -o "$W/bigs2.txt"
    expect_rc 0 "samples, --decompress-threads=1" "$P" -q --decompress-threads=1 convert --to samples "$W/big.bin" -o "$W/bigs1.txt"
    same "samples, either thread setting" "$W/bigs1.txt" "$W/bigs2.txt"
    # damage in the zstd data (4 bytes at a half, the quarters, the eighths, ... of the region, until
    # a damage zstd itself reports and one found in the decompressed samples have both been seen):
    # the same verdict and message either way. Which damage zstd sees depends on the bytes zstd
    # wrote, so the test looks for one of each instead of naming the places.
    seen_z= seen_d=
    for i in 8 4 12 2 6 10 14 1 3 5 7 9 11 13 15; do
        off=$((64 + (soff - 64) * i / 16))
        cp "$W/big.bin" "$W/bigbad.bin"
        printf '\125\125\125\125' | dd of="$W/bigbad.bin" bs=1 seek=$off conv=notrunc 2>/dev/null
        "$P" validate "$W/bigbad.bin" >/dev/null 2>"$W/err2"
        rc2=$?
        "$P" --threads 1 validate "$W/bigbad.bin" >/dev/null 2>"$W/err" # the old spelling
        rc=$?
        if [ "$rc" != "$rc2" ] || ! cmp -s "$W/err" "$W/err2"; then
            bad "damage at $off: exit $rc2 with the helper thread, $rc alone, or another message"
            sed 's/^/    /' "$W/err2" "$W/err" | head -4
        elif [ "$rc" = 1 ] && [ -z "$seen_z" ] && grep -q ': samples: expected valid zstd data' "$W/err"; then
            seen_z=$off
            ok "damaged zstd data at $off: exit 1 and the same message either way"
        elif [ "$rc" = 1 ] && [ -z "$seen_d" ] && grep -q ': offset [0-9]* of \(decompressed \)\?samples at offset 64: ' "$W/err"; then
            seen_d=$off
            ok "damaged samples at $off: exit 1 and the same message either way, an offset in the decompressed samples"
        fi
        [ -n "$seen_z" ] && [ -n "$seen_d" ] && break
    done
    [ -n "$seen_z" ] || bad "no damage that zstd reports (exit 1, 'expected valid zstd data')"
    [ -n "$seen_d" ] || bad "no damage found in the decompressed samples (exit 1, an offset in them)"
else
    bad "samples of $seed"
fi
expect_rc 2 "--decompress-threads 0" "$P" --decompress-threads 0 formats
grep -q "bad --decompress-threads '0'" "$W/err" && ok "the refusal names the option" || bad "refusal: $(cat "$W/err")"
expect_rc 2 "--threads x" "$P" --threads x formats

# a dump cut short (no stats footer): encode refuses it and names the last line, even with --partial
"$P" dump "$DATA/tachyon/deep_zstd.bin" | head -n -1 >"$W/cut.jsonl"
n=$(wc -l <"$W/cut.jsonl")
rm -f "$W/cut.bin"
for flag in "" --partial; do
    expect_rc 1 "encode $flag of a dump cut short" "$P" encode $flag "$W/cut.jsonl" -o "$W/cut.bin"
    grep -q "cut.jsonl:$n: the dump ends at this line without the records that close a tachyon 1 file (was it cut short?)" "$W/err" && [ ! -e "$W/cut.bin" ] && ok "a cut dump is refused, naming its last line" || bad "cut dump: $(cat "$W/err")"
done

echo "$fails failure(s)"
[ "$fails" = 0 ]
