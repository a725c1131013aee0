#!/usr/bin/env bash
# test_cli_explain.sh: `profcodec explain` in the terminal: the annotated hex dump's fields,
# offsets, values and doc strings; colours only when asked (or on a terminal); --from and
# --records; the failure display (the fields before it, the failing one, what was expected, the
# bytes found) and --all's recovery; --to json and --to html; usage errors.
# usage: test_cli_explain.sh PROFCODEC TESTDATA WORKDIR
set -u
P=$1 DATA=$2 W=$3
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
has() { # description pattern (fixed string, in $W/out)
    if grep -qF -- "$2" "$W/out"; then ok "$1"; else bad "$1: no '$2' in: $(head -c 600 "$W/out")"; fi
}
D="$DATA/mojo"

expect_rc 0 "explain v3_full" "$P" explain "$D/v3_full.mojo"
has "the head names the format" "v3_full.mojo: mojo 3 (Austin MOJO), 172 bytes"
has "the root's fields, with their bytes, values and doc strings" "  00000003  03                          version = 3  # Format version"
has "a record's header line" "record 5 · event stack · offset 58 (0x3a) · 5 bytes"
has "the record's bytes as a hex dump" "  0000003a  02 0a 00 61 00                                   ...a."
has "the case's tag" "  0000003a  02                          _tag = \"stack\""
has "a nested field, indented" "  0000003b  0a                            pid = 10  # Process id"
grep -q $'\033\[' "$W/out" && bad "colours written to a file" || ok "no colours when standard output is not a terminal"
expect_rc 0 "--color always" "$P" explain --color always "$D/v3_full.mojo"
grep -q $'\033\[3[1-6]m' "$W/out" && ok "--color always: the fields in colours" || bad "--color always: no colours"
expect_rc 0 "--from 0x3a --records 1" "$P" explain --from 0x3a --records 1 "$D/v3_full.mojo"
has "--from: the record that ends after the offset" "record 5 · event stack · offset 58"
[ "$(grep -c '^record ' "$W/out")" = 2 ] && ok "--records 1: that record (and the file's own)" || bad "--records 1: $(grep '^record ' "$W/out")"
expect_rc 0 "--from 1000000" "$P" explain --from 1000000 "$D/v3_full.mojo"
has "--from beyond the end says so" "(no record ends after --from)"

# failures: the fields read before it, the failing one, what was expected, the bytes found
expect_rc 1 "explain a truncated file" "$P" explain "$D/v3_truncated.mojo"
has "the failing record" "record 5 · event string · offset 52 (0x34) · decoding failed"
has "the last good field" "  00000035  bf ff ff 7f                   key = 134217727"
has "the failing field" "value  <- decoding failed here"
has "what the schema expected" "damage at offset 57: string.value: expected NUL-terminated string, found end of data (3 bytes left)"
has "the bytes found" "the bytes found there: 61 70 70 | end of data"
grep -q "v3_truncated.mojo: offset 57: string.value" "$W/err" && ok "the error on stderr too" || bad "stderr: $(cat "$W/err")"
expect_rc 1 "--all over a damaged packet" "$P" explain --all "$DATA/heph/nested_array_quirk.bin.log"
has "where it failed" "damage at offset 168: event.attributes[1].type: expected one of u64=0x1"
has "where reading resumed" "--all: skipped to offset 200 (0xc8), reading on"
has "the records after it" "record 4 · packet event · offset 200 (0xc8) · 59 bytes"

# compressed regions: the region, then its records in the decompressed data
T=$(ls "$DATA"/tachyon/*_zstd.bin | head -1)
expect_rc 0 "explain a zstd Tachyon profile" "$P" explain --records 3 "$T"
has "the compressed region" "samples  (compressed records, decompressed below"
has "records in the decompressed data" "in the decompressed samples at 0x40"

# --to json, --to html
expect_rc 0 "--to json" "$P" explain --to json "$D/v4_tasks.mojo" -o "$W/t.jsonl"
head -1 "$W/t.jsonl" | grep -q '^{"t":"file","file":".*v4_tasks.mojo","format":"mojo","version":"4","size":440' && ok "the JSON head line" || bad "json head: $(head -1 "$W/t.jsonl")"
grep -q '"kind":"task_stack",.*"offset":297,.*{"name":"task","kind":"field","offset":298,"size":2,"leaf":true,"value":4096,"hex":"8040"' "$W/t.jsonl" &&
    ok "a task stack's task id: offset, size, value, bytes" || bad "json task: $(grep -m1 task_stack "$W/t.jsonl")"
expect_rc 0 "--to html" "$P" explain --to html "$D/v4_tasks.mojo" -o "$W/t.html"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$W/t.html" && ! grep -qi '<script src\|<link ' "$W/t.html" &&
    ok "one offline page (its CSP fetches nothing)" || bad "html page"
expect_rc 1 "explain an unsupported version" "$P" explain "$D/v5_unsupported.mojo"
grep -q "unsupported Austin MOJO version 5" "$W/err" && ok "says which version" || bad "v5: $(cat "$W/err")"
expect_rc 2 "--to bogus" "$P" explain --to bogus "$D/v3_full.mojo"
expect_rc 2 "--from abc" "$P" explain --from abc "$D/v3_full.mojo"
expect_rc 2 "--color sometimes" "$P" explain --color sometimes "$D/v3_full.mojo"
[ ! -e "$W/x.html" ] && "$P" explain --to bogus -o "$W/x.html" "$D/v3_full.mojo" 2>/dev/null; [ ! -e "$W/x.html" ] && ok "nothing written on a usage error" || bad "a file left behind"

echo "$fails failure(s)"
[ "$fails" = 0 ]
