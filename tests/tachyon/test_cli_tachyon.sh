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
# --decompress-threads 1
# reads it alone; the same output and the same errors either way
seed="$DATA/tachyon/workload_all_zstd.bin"
if "$P" -q convert --to samples "$seed" -o "$W/seed.txt"; then
    {
        grep -v '^S \|^# stats\|^# replayed' "$W/seed.txt"
        grep '^S ' "$W/seed.txt" | sort -s -n -k5,5 | awk '{ line[NR] = $0; ts[NR] = $5 }
            END {
                t0 = ts[1]; span = ts[NR] - t0 + 1000; base = t0
                for (k = 0; k < 7; k++) {
                    f = 1 + (k - 3) * 0.01
                    for (i = 1; i <= NR; i++) { $0 = line[i]; $5 = sprintf("%.0f", base + int((ts[i] - t0) * f)); print }
                    base += int(span * 1.06) + 1000
                }
            }'
    } >"$W/big.txt"
    expect_rc 0 "a profile with a large zstd region" "$P" -q encode --from samples "$W/big.txt" -o "$W/big.bin"
    soff=$(od -An -tu8 -j40 -N8 "$W/big.bin" | tr -d ' ')
    if [ "$((soff - 64))" -ge 1048576 ]; then ok "its sample region is $((soff - 64)) bytes"; else bad "sample region only $((soff - 64)) bytes"; fi
    expect_rc 0 "collapsed, helper thread" "$P" -q convert --to collapsed "$W/big.bin" -o "$W/big2.txt"
    expect_rc 0 "collapsed, --decompress-threads 1" "$P" -q --decompress-threads 1 convert --to collapsed "$W/big.bin" -o "$W/big1.txt"
    same "collapsed, either thread setting" "$W/big1.txt" "$W/big2.txt"
    expect_rc 0 "samples, helper thread" "$P" -q convert --to samples "$W/big.bin" -o "$W/bigs2.txt"
    expect_rc 0 "samples, --decompress-threads=1" "$P" -q --decompress-threads=1 convert --to samples "$W/big.bin" -o "$W/bigs1.txt"
    same "samples, either thread setting" "$W/bigs1.txt" "$W/bigs2.txt"
    # damage in the middle of the zstd data, and a cut: the same verdict and message
    cp "$W/big.bin" "$W/bigbad.bin"
    printf '\125\125\125\125' | dd of="$W/bigbad.bin" bs=1 seek=$((64 + (soff - 64) / 2)) conv=notrunc 2>/dev/null
    expect_rc 1 "damaged zstd, helper thread" "$P" validate "$W/bigbad.bin"
    cp "$W/err" "$W/err2"
    expect_rc 1 "damaged zstd, --threads 1 (the old spelling)" "$P" --threads 1 validate "$W/bigbad.bin"
    same "the same error either way" "$W/err" "$W/err2"
    grep -q 'decompressed samples at offset 64' "$W/err" || bad "the error says where in the decompressed samples"
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
