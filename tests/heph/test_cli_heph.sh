#!/usr/bin/env bash
# test_cli_heph.sh: the profcodec CLI on Heph traces: exit codes, round trips,
# byte-identical --heph-compat output, damage handling, stdin, atomic output.
# usage: test_cli_heph.sh PROFCODEC TESTDATA CORPUS WORKDIR
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

traces=()
for n in runtime_example scalar_attributes array_attributes json_escaping; do traces+=("$DATA/heph/$n.bin.log"); done
# (PCD_TEST_SMALL=1, make test's sanitize tree: tests/data's traces only; the corpus's large ones in
# the fast tree)
[ -n "${PCD_TEST_SMALL:-}" ] && [ "${PCD_TEST_LONG:-0}" = 0 ] ||
for n in stress substreams; do [ -f "$CORPUS/heph/$n.bin.log" ] && traces+=("$CORPUS/heph/$n.bin.log"); done

expect_rc 0 "formats" "$P" formats
grep -q '^heph ' "$W/out" || bad "formats lists heph"
# every regression input to every output a Heph trace converts to (the sanitize tree runs this test:
# first-packet-an-event-table.bin was a use after free in --to table)
REGRESS=$(dirname "$0")/../regress/heph
for f in "$REGRESS"/*.bin; do
    for o in speedscope chrome firefox perfetto table; do
        expect_rc 0 "convert --to $o $(basename "$f")" "$P" convert --to $o "$f" -o "$W/regress.$o"
    done
done
for cmd in formats info validate dump encode convert; do expect_rc 0 "$cmd --help" "$P" $cmd --help; done
expect_rc 2 "unknown command" "$P" frobnicate
expect_rc 2 "missing file" "$P" validate "$W/does-not-exist"
expect_rc 2 "convert needs --to" "$P" convert "${traces[0]}"
expect_rc 2 "unknown conversion" "$P" convert --to pprof "${traces[0]}"

for t in "${traces[@]}"; do
    n=$(basename "$t" .bin.log)
    expect_rc 0 "validate $n" "$P" validate "$t"
    expect_rc 0 "dump $n" "$P" dump "$t" -o "$W/$n.jsonl"
    expect_rc 0 "encode $n" "$P" encode "$W/$n.jsonl" -o "$W/$n.bin"
    if cmp -s "$t" "$W/$n.bin"; then ok "dump|encode identical: $n"; else bad "dump|encode differs: $n"; fi
    expect_rc 0 "convert --to chrome $n" "$P" convert --to chrome "$t" -o "$W/$n.chrome.json"
    ref="${t%.bin.log}.chrome.json"
    if [ -f "$ref" ]; then
        expect_rc 0 "convert --heph-compat $n" "$P" convert --to chrome --heph-compat "$t" -o "$W/$n.compat.json"
        if cmp -s "$ref" "$W/$n.compat.json"; then ok "--heph-compat byte-identical: $n"; else bad "--heph-compat differs: $n"; fi
    fi
    # speedscope: evented profiles speedscope can read (closes close the frame on top, times
    # never go back), one or more nesting lanes per (stream, substream)
    expect_rc 0 "convert --to speedscope $n" "$P" convert --to speedscope "$t" -o "$W/$n.speedscope.json"
    "${PCD_PYTHON:-python3}" -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["profiles"], "no profiles"
for pr in d["profiles"]:
    assert pr["type"] == "evented" and pr["name"].startswith("Spans profile for stream "), pr["name"]
    st, last = [], None
    for ev in pr["events"]:
        assert last is None or ev["at"] >= last, ("time goes back", pr["name"], ev)
        last = ev["at"]
        if ev["type"] == "O": st.append(ev["frame"])
        else: assert st and st.pop() == ev["frame"], ("close of a frame not on top", pr["name"], ev)
    assert not st, ("left open", pr["name"])' "$W/$n.speedscope.json" && ok "speedscope nests: $n" || bad "speedscope evented profiles do not nest: $n"
    expect_rc 0 "info $n" "$P" info "$t"
    expect_rc 0 "info --json $n" "$P" info --json "$t"
done

# pipes: stdin, and dump | encode through a pipe
t="$DATA/heph/runtime_example.bin.log"
expect_rc 0 "validate from stdin" bash -c "cat '$t' | '$P' validate -"
if cat "$t" | "$P" dump - | "$P" encode - -o "$W/piped.bin" && cmp -s "$t" "$W/piped.bin"; then
    ok "cat | dump - | encode - round trip"
else
    bad "piped round trip"
fi
expect_rc 0 "info with --format" "$P" info --format heph:0.1 "$t"

# damage: nested_array_quirk
q="$DATA/heph/nested_array_quirk.bin.log"
expect_rc 1 "validate nested_array_quirk" "$P" validate "$q"
off=$(sed -n 's/.*: offset \([0-9]*\): .*/\1/p' "$W/err" | head -1)
if [ -n "$off" ] && [ "$off" -gt 83 ] && [ "$off" -lt 200 ]; then ok "error offset $off inside the 2nd packet"; else bad "error offset '$off' not inside 83..200"; fi
grep -q "nested_array_quirk.bin.log: offset [0-9]*: event.attributes\[1\].type: expected" "$W/err" && ok "error names file, offset, field path" || bad "error message form: $(cat "$W/err")"
expect_rc 1 "dump nested_array_quirk" "$P" dump "$q"
[ "$(grep -c '"_kind":"event"' "$W/out")" = 1 ] && grep -q '"_offset":23' "$W/out" && ok "dump yields the 1st packet" || bad "dump before damage"
cp "$W/out" "$W/q.jsonl"
tail -n 1 "$W/q.jsonl" | grep -q '^{"_kind":"stopped","_offset":168,"error":"offset 168: event.attributes\[1\].type: expected one of .*","records":3,"bytes_not_read":91}$' && ok "dump ends with a stopped line" || bad "stopped line: $(tail -n 1 "$W/q.jsonl")"
rm -f "$W/q.bin.log"
expect_rc 1 "encode of a dump that stopped at damage" "$P" encode "$W/q.jsonl" -o "$W/q.bin.log"
grep -q "q.jsonl:4: the dump stopped at damage" "$W/err" && grep -q "91 bytes of the file were not read" "$W/err" && [ ! -e "$W/q.bin.log" ] && ok "encode refuses it, naming the line" || bad "encode of a stopped dump: $(cat "$W/err")"
expect_rc 0 "encode --partial of it" "$P" encode --partial "$W/q.jsonl" -o "$W/q.bin.log"
cmp -s "$W/q.bin.log" <(head -c 83 "$q") && ok "--partial writes the packets before the damage" || bad "--partial output"
expect_rc 1 "dump --all nested_array_quirk" "$P" dump --all "$q"
grep -q '"_offset":200' "$W/out" && grep -q '"_kind":"damage"' "$W/out" && ok "dump --all recovers the 3rd packet" || bad "dump --all"
cp "$W/out" "$W/qa.jsonl"
expect_rc 1 "encode of a dump --all with damage" "$P" encode "$W/qa.jsonl" -o "$W/qa.bin.log"
grep -q "qa.jsonl:4: the dump skipped damaged bytes here" "$W/err" && ok "encode refuses skipped damage, naming the line" || bad "encode of damage: $(cat "$W/err")"
expect_rc 0 "encode --partial of a dump --all" "$P" encode --partial "$W/qa.jsonl" -o "$W/qa.bin.log"
expect_rc 0 "it validates" "$P" validate "$W/qa.bin.log"
expect_rc 1 "validate --all nested_array_quirk" "$P" validate --all "$q"
grep -q "resuming at offset 200" "$W/err" && ok "validate --all resumes at the 3rd packet" || bad "validate --all"
expect_rc 1 "convert nested_array_quirk" "$P" convert --to chrome "$q" -o "$W/q.json"
python_free_json_check() { # closes properly: ends with ]} and a newline
    tail -c 3 "$1" | od -An -c | tr -d ' \n' | grep -q ']}\\n'
}
python_free_json_check "$W/q.json" && ok "output before the damage is closed properly" || bad "damaged convert output not closed"

# a truncated file
head -c 500 "$t" >"$W/cut.bin.log"
expect_rc 1 "validate truncated" "$P" validate "$W/cut.bin.log"
grep -q "found end of data" "$W/err" && ok "truncation reported" || bad "truncation message: $(cat "$W/err")"

# atomic output: a failing encode leaves nothing behind
printf '{"_kind":"file","_format":"heph","_version":"0.1"}\n{"_kind":"event","stream_id":"x"}\n' >"$W/bad.jsonl"
rm -f "$W/bad.bin"
expect_rc 1 "encode of a bad record" "$P" encode "$W/bad.jsonl" -o "$W/bad.bin"
[ ! -e "$W/bad.bin" ] && ! ls "$W"/bad.bin.tmp.* >/dev/null 2>&1 && ok "no output file left behind" || bad "a failed encode left a file"
grep -q "bad.jsonl:2: event: stream_id" "$W/err" && ok "encode error names line and field" || bad "encode error: $(cat "$W/err")"
# a device or a pipe is written in place (a temporary file renamed over /dev/null would replace
# the device with a regular file): a FIFO stays a FIFO and its reader gets the whole output
rm -f "$W/fifo" "$W/fifo.out" && mkfifo "$W/fifo"
cat "$W/fifo" >"$W/fifo.out" &
reader=$!
expect_rc 0 "dump into a FIFO" "$P" dump "$t" -o "$W/fifo"
if [ -p "$W/fifo" ] && ! ls "$W"/fifo.tmp.* >/dev/null 2>&1; then
    ok "the FIFO is still a FIFO"
    wait "$reader"
    "$P" dump "$t" | cmp -s - "$W/fifo.out" && ok "the FIFO's reader got the dump" || bad "dump through a FIFO differs"
else
    bad "the FIFO was replaced by a file"
    kill "$reader" 2>/dev/null
fi
expect_rc 2 "output into a missing directory" "$P" dump "$t" -o "$W/no/such/dir/x.jsonl"
expect_rc 1 "unrecognised input" "$P" validate "$DATA/heph/SOURCE.md"
expect_rc 2 "bad --max-memory" "$P" --max-memory lots validate "$t"
# a 60 kB packet under a 32 kB memory cap: a clear error, not a crash
long=$(head -c 60000 /dev/zero | tr '\0' 'x')
printf '{"_kind":"file","_format":"heph","_version":"0.1"}\n{"_kind":"event","stream_id":1,"stream_counter":0,"substream_id":0,"start_ns":1,"end_ns":2,"description":"%s","attributes":[]}\n' "$long" >"$W/big.jsonl"
expect_rc 0 "encode a 60 kB packet" "$P" encode "$W/big.jsonl" -o "$W/big.bin.log"
expect_rc 0 "validate it" "$P" validate "$W/big.bin.log"
expect_rc 1 "validate it under --max-memory 32K" "$P" --max-memory 32K validate "$W/big.bin.log"
grep -q "raise --max-memory" "$W/err" && ok "the memory limit is named" || bad "memory limit message: $(cat "$W/err")"
# a record the writer refuses (too long for its u16 size field): the message names it
long=$(head -c 70000 /dev/zero | tr '\0' 'x')
printf '{"_kind":"file","_format":"heph","_version":"0.1"}\n{"_kind":"event","stream_id":1,"stream_counter":0,"substream_id":0,"start_ns":1,"end_ns":2,"description":"%s","attributes":[]}\n' "$long" >"$W/huge.jsonl"
expect_rc 1 "encode a 70 kB packet" "$P" encode "$W/huge.jsonl" -o "$W/huge.bin.log"
grep -q "huge.jsonl:2: cannot encode this event: " "$W/err" && ok "the writer's error names line and kind" || bad "writer error: $(cat "$W/err")"

# negative zero keeps its sign: -0.0 in our JSON (scalars and arrays); Rust's Display "-0"
# with --heph-compat, as Heph's converter prints it (scalar_attributes.chrome.json)
printf '{"_kind":"file","_format":"heph","_version":"0.1"}\n{"_kind":"event","stream_id":1,"stream_counter":0,"substream_id":0,"start_ns":1,"end_ns":2,"description":"z","attributes":[{"name":"nz","type":"f64","value":-0.0},{"name":"pz","type":"f64","value":0.0},{"name":"arr","type":"f64_array","value":[-0.0,0.0,-1.5]}]}\n' >"$W/negzero.jsonl"
expect_rc 0 "encode negative zeros" "$P" encode "$W/negzero.jsonl" -o "$W/negzero.bin.log"
expect_rc 0 "convert negative zeros" "$P" convert --to chrome "$W/negzero.bin.log" -o "$W/negzero.json"
grep -q '"nz":-0.0,"pz":0.0,"arr":\[-0.0,0.0,-1.5\]' "$W/negzero.json" && ok "-0.0 keeps its sign in chrome JSON" || bad "negative zero: $(grep -o '"args":{[^}]*}' "$W/negzero.json")"
"${PCD_PYTHON:-python3}" -c 'import json,math,sys; a=[e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph")=="X"][0]["args"]; sys.exit(0 if math.copysign(1,a["nz"])<0 and math.copysign(1,a["arr"][0])<0 and math.copysign(1,a["pz"])>0 else 1)' "$W/negzero.json" && ok "a JSON reader sees -0.0" || bad "a JSON reader does not see -0.0"
expect_rc 0 "convert negative zeros --heph-compat" "$P" convert --to chrome --heph-compat "$W/negzero.bin.log" -o "$W/negzero.compat.json"
grep -q '"nz": -0, "pz": 0, "arr": \[-0, 0, -1.5\]' "$W/negzero.compat.json" && ok "--heph-compat prints -0 as Heph does" || bad "compat negative zero: $(cat "$W/negzero.compat.json")"
# JSON's -0 (as Heph's converter and many tools print it) is a negative zero in a float field,
# and plain 0 in an integer field; inside a string it is text
printf '{"_kind":"file","_format":"heph","_version":"0.1"}\n{"_kind":"event","stream_id":1,"stream_counter":0,"substream_id":-0,"start_ns":1,"end_ns":2,"description":"z -0","attributes":[{"name":"nz","type":"f64","value":-0},{"name":"arr","type":"f64_array","value":[-0,-0.5]}]}\n' >"$W/negzero2.jsonl"
expect_rc 0 "encode JSON -0" "$P" encode "$W/negzero2.jsonl" -o "$W/negzero2.bin.log"
"$P" dump "$W/negzero2.bin.log" | grep -q '"substream_id":0,.*"description":"z -0","attributes":\[{"name":"nz","type":"f64","value":-0.0},{"name":"arr","type":"f64_array","value":\[-0.0,-0.5\]}' && ok "JSON -0 encodes a negative zero" || bad "JSON -0: $("$P" dump "$W/negzero2.bin.log" | tail -1)"
dump_rt=$("$P" dump "$W/negzero.bin.log" | grep -c '"value":-0.0')
[ "$dump_rt" = 1 ] && ok "dump keeps -0.0" || bad "dump lost -0.0"

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all CLI checks passed"
