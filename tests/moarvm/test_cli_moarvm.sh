#!/usr/bin/env bash
# test_cli_moarvm.sh: the profcodec CLI on MoarVM heap snapshots: validate, info --json
# figures, dump | encode byte-identical, summary, collapsed and speedscope, killed, truncated
# and damaged files, the v2 format.
# usage: test_cli_moarvm.sh PROFCODEC TESTDATA CORPUS WORKDIR
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
# Values from info --json (one line; each snapshot's numbers come before its first nested object)
nsnaps() { grep -o '{"index":[0-9]*,"offset":[0-9]*,"gc_seq_num\|{"index":[0-9]*,"offset":[0-9]*,"collectables' "$1" | wc -l; }
snap() { # FILE K FIELD (K: 1-based, or $ for the last)
    grep -o '{"index":[0-9]*,"offset":[0-9]*,[^{]*' "$1" | sed -n "$2p" | grep -o "\"$3\":[0-9]*" | cut -d: -f2
}
top() { # FILE FIELD: strings, types or frames of the whole file
    grep -o '"blocks":[0-9]*,"strings":[0-9]*,"types":[0-9]*,"frames":[0-9]*' "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2
}

files=("$DATA/moarvm/synthetic-three.mvmheap" "$DATA/moarvm/synthetic-killed.mvmheap")
# (PCD_TEST_SMALL=1, make test's sanitize tree: the per-file checks on tests/data's heaps and the
# killed one of the corpus (624 KB), whose two snapshots are checked below; every corpus heap, the
# 6 MB three-snapshot one's facts too, in the fast tree; test_moarvm checks those facts in C)
SMALL=
[ -n "${PCD_TEST_SMALL:-}" ] && [ "${PCD_TEST_LONG:-0}" = 0 ] && SMALL=1
for f in "$CORPUS"/moarvm/*.mvmheap; do
    [ -n "$SMALL" ] && [ "$(basename "$f")" != nqp-killed.mvmheap ] && continue
    [ -f "$f" ] && [ "$(head -c 16 "$f")" = "MoarHeapDumpv003" ] && files+=("$f")
done

expect_rc 0 "formats" "$P" formats
grep -q '^moarvm ' "$W/out" || bad "formats lists moarvm"
grep -q 'summary collapsed speedscope' "$W/out" && ok "formats: moarvm converts to summary, collapsed and speedscope" || bad "formats: converters"

for f in "${files[@]}"; do
    n=$(basename "$f" .mvmheap)
    expect_rc 0 "validate $n" "$P" validate "$f"
    expect_rc 0 "info $n" "$P" info "$f"
    expect_rc 0 "info --json $n" "$P" info --json "$f" && cp "$W/out" "$W/$n.info.json"
    snaps=$(nsnaps "$W/$n.info.json")
    [ "$snaps" -ge 1 ] && ok "$n: $snaps snapshots" || bad "$n: no snapshot"
    expect_rc 0 "dump $n" "$P" dump "$f" -o "$W/$n.jsonl"
    expect_rc 0 "encode $n" "$P" encode "$W/$n.jsonl" -o "$W/$n.again"
    if cmp -s "$f" "$W/$n.again"; then ok "dump|encode byte-identical: $n"; else bad "dump|encode differs: $n"; fi
    "$P" dump "$W/$n.again" -o "$W/$n.again.jsonl" && cmp -s "$W/$n.jsonl" "$W/$n.again.jsonl" \
        && ok "decode -> encode -> decode identical: $n" || bad "decode -> encode -> decode differs: $n"
    expect_rc 0 "convert --to summary $n" "$P" convert --to summary "$f" -o "$W/$n.summary.txt"
    c=$(grep -c '^Snapshot ' "$W/$n.summary.txt")
    [ "$c" = "$snaps" ] && ok "summary: $c snapshots" || bad "summary: $c snapshots, info says $snaps"
    expect_rc 0 "convert --to collapsed $n" "$P" convert --to collapsed "$f" -o "$W/$n.folded"
    sum=$(awk '{ s += $NF } END { print s }' "$W/$n.folded")
    heap=$(snap "$W/$n.info.json" '$' heap_size)
    [ "$sum" = "$heap" ] && ok "collapsed: weights add up to the heap size ($heap)" || bad "collapsed: $sum != heap $heap"
    expect_rc 0 "convert --to collapsed --metric count@0 $n" "$P" convert --to collapsed --metric count@0 "$f" -o "$W/$n.count.folded"
    cnt=$(awk '{ s += $NF } END { print s }' "$W/$n.count.folded")
    coll=$(snap "$W/$n.info.json" 1 collectables)
    [ "$cnt" = "$coll" ] && ok "collapsed count: $cnt collectables" || bad "collapsed count $cnt != $coll"
    expect_rc 0 "convert --to speedscope $n" "$P" convert --to speedscope "$f" -o "$W/$n.speedscope.json"
    if command -v "${PCD_PYTHON:-python3}" >/dev/null; then
        # one sampled profile of the last snapshot, weighing its heap; every sample's frames exist
        "${PCD_PYTHON:-python3}" -c 'import json,sys
d = json.load(open(sys.argv[1])); p = d["profiles"]; nf = len(d["shared"]["frames"])
assert len(p) == 1 and p[0]["type"] == "sampled" and p[0]["unit"] == "bytes", p
assert sum(p[0]["weights"]) == p[0]["endValue"] == int(sys.argv[2]), (p[0]["endValue"], sys.argv[2])
assert len(p[0]["samples"]) == len(p[0]["weights"]) and all(0 <= i < nf for s in p[0]["samples"] for i in s)' \
            "$W/$n.speedscope.json" "$heap" && ok "speedscope: one profile weighing the heap ($heap)" || bad "speedscope: $n"
    fi
done

# the corpus files against their facts (the C test checks every figure; here the CLI's JSON)
if [ -z "$SMALL" ] && [ -f "$CORPUS/moarvm/nqp-three-snapshots.mvmheap" ]; then
    j="$W/nqp-three-snapshots.info.json"
    [ "$(snap "$j" 2 references)" = 250847 ] && ok "three: references" || bad "three: references"
    [ "$(snap "$j" 3 heap_size)" = 6313149 ] && ok "three: heap size" || bad "three: heap size"
    [ "$(top "$j" strings) $(top "$j" types) $(top "$j" frames)" = "925 250 161" ] \
        && ok "three: table totals" || bad "three: table totals"
    grep -A3 'Top 10 objects by count' "$W/nqp-three-snapshots.summary.txt" | grep -q 'VMString *18093' \
        && ok "three: top object by count" || bad "three: top object by count"
fi
if [ -f "$CORPUS/moarvm/nqp-killed.mvmheap" ]; then
    k="$CORPUS/moarvm/nqp-killed.mvmheap"
    [ "$(nsnaps "$W/nqp-killed.info.json")" = 2 ] && ok "killed: both snapshots" \
        || bad "killed: not 2 snapshots"
    expect_rc 1 "validate --strict killed (no final TOC is a warning)" "$P" validate --strict "$k"
fi

# a killed writer: valid, with a warning
s="$DATA/moarvm/synthetic-three.mvmheap"
expect_rc 0 "validate killed" "$P" validate "$DATA/moarvm/synthetic-killed.mvmheap"
grep -q 'warning: .*final empty TOC' "$W/err" && ok "killed: warned" || bad "killed: no warning"

# cut inside a block: every snapshot before it, the damage with its offset
size=$(stat -c %s "$s")
head -c 9000 "$s" >"$W/cut.mvmheap"
expect_rc 1 "validate a cut file" "$P" validate "$W/cut.mvmheap"
grep -q 'offset [0-9]*' "$W/err" && ok "cut: damage reported with its offset" || bad "cut: no offset"
expect_rc 1 "info --json a cut file" "$P" info --json "$W/cut.mvmheap"
[ "$(nsnaps "$W/out")" = 1 ] && ok "cut: the complete snapshot before the cut" \
    || bad "cut: snapshots before the cut"
grep -q '"damage":{"offset":[0-9]*' "$W/out" && ok "cut: damage in info --json" || bad "cut: no damage in info --json"
# cut at a block boundary: no damage for the reader, an incomplete snapshot for the checks
b=$(grep -m1 -o '"_kind":"colsize","_offset":[0-9]*' "$W/synthetic-three.jsonl" | sed 's/.*://')
head -c "$b" "$s" >"$W/cut2.mvmheap"
expect_rc 1 "validate a file cut between blocks" "$P" validate "$W/cut2.mvmheap"
grep -q 'the TOC of this snapshot' "$W/err" && ok "cut between blocks: incomplete snapshot reported" || bad "cut2: not reported"
expect_rc 1 "info --json a file cut between blocks (damage seen above the bytes)" "$P" info --json "$W/cut2.mvmheap"
grep -q '"incomplete":{"index":0,' "$W/out" && ok "cut between blocks: info marks it incomplete" \
    || bad "cut2: info"
grep -q '"valid":false' "$W/out" && ok "cut between blocks: not valid" || bad "cut2: valid"

# a damaged frame in the middle: validate stops there; --all resumes at the next block
cp "$s" "$W/damaged.mvmheap"
off=$(grep -m2 -o '"_kind":"refdescr","_offset":[0-9]*' "$W/synthetic-three.jsonl" | tail -1 | sed 's/.*://')
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$W/damaged.mvmheap" bs=1 seek=$((off + 30)) conv=notrunc 2>/dev/null
expect_rc 1 "validate a damaged frame" "$P" validate "$W/damaged.mvmheap"
expect_rc 1 "validate --all a damaged frame" "$P" validate --all "$W/damaged.mvmheap"
grep -q 'resuming at offset' "$W/err" && ok "damaged: resumed" || bad "damaged: not resumed"
expect_rc 1 "convert --all --to summary a damaged file" "$P" convert --all --to summary "$W/damaged.mvmheap" -o "$W/damaged.txt"
grep -q '^Snapshot 2' "$W/damaged.txt" && ok "damaged: the snapshot after the damage is there" || bad "damaged: later snapshot lost"

# JSON metadata that is not JSON: an error naming the block
sed 's/"json":"{ \\"snap_time\\"/"json":"{ \\"snap_time\\" oops/' "$W/synthetic-three.jsonl" >"$W/badjson.jsonl"
expect_rc 0 "encode an edited dump" "$P" encode "$W/badjson.jsonl" -o "$W/badjson.mvmheap"
expect_rc 1 "validate bad snapmeta JSON" "$P" validate "$W/badjson.mvmheap"
grep -q 'snapmeta: expected a JSON object' "$W/err" && ok "bad JSON reported" || bad "bad JSON not reported"

# an edited dump: blocks move, the TOCs move with them
sed 's/"text":"Permanent Roots"/"text":"Permanent Roots, renamed so that every later block moves"/' \
    "$W/synthetic-three.jsonl" >"$W/moved.jsonl"
expect_rc 0 "encode an edited dump whose blocks move" "$P" encode "$W/moved.jsonl" -o "$W/moved.mvmheap"
[ "$(stat -c %s "$W/moved.mvmheap")" -gt "$(stat -c %s "$s")" ] && ok "edited dump: the file grew" || bad "edited dump: same size"
expect_rc 0 "validate it (every TOC entry relocated)" "$P" validate "$W/moved.mvmheap"

# options
expect_rc 2 "collapsed: bad metric" "$P" convert --to collapsed --metric bytes "$s"
expect_rc 1 "collapsed: no such snapshot" "$P" convert --to collapsed --metric size@9 "$s"
expect_rc 2 "speedscope: bad metric" "$P" convert --to speedscope --metric size@ "$s"
expect_rc 0 "speedscope --metric count@1" "$P" convert --to speedscope --metric count@1 "$s" -o "$W/count1.json"
grep -q '"name":"Retained collectables, snapshot 1","unit":"none"' "$W/count1.json" && ok "speedscope: count@1" \
    || bad "speedscope: count@1"
expect_rc 2 "summary: bad metric" "$P" convert --to summary --metric 0 "$s"

# format 2 (Debian's stock MoarVM, built without zstd)
v2="$CORPUS/moarvm/nqp-v2-stock-debian.mvmheap"
if [ -f "$v2" ]; then
    expect_rc 0 "validate a v2 file" "$P" validate "$v2"
    grep -q 'valid moarvm 2' "$W/out" && ok "v2: read as format 2" || bad "v2: not format 2"
    expect_rc 0 "info --json v2" "$P" info --json "$v2"
    [ "$(nsnaps "$W/out") $(snap "$W/out" 1 collectables) $(top "$W/out" strings)" = "1 40418 925" ] \
        && ok "v2: one snapshot, 40418 collectables, 925 strings" || bad "v2: figures"
    expect_rc 0 "dump v2" "$P" dump "$v2" -o "$W/v2.jsonl"
    expect_rc 0 "encode v2" "$P" encode "$W/v2.jsonl" -o "$W/v2.again"
    cmp -s "$v2" "$W/v2.again" && ok "v2: dump|encode byte-identical" || bad "v2: dump|encode differs"
    expect_rc 0 "summary v2" "$P" convert --to summary "$v2" -o "$W/v2.summary.txt"
    grep -A3 'Top 10 objects by count' "$W/v2.summary.txt" | grep -q 'VMString *10532' && ok "v2: top object" || bad "v2: top object"
    head -c 2000000 "$v2" >"$W/v2cut.mvmheap"
    expect_rc 1 "validate a cut v2 file" "$P" validate "$W/v2cut.mvmheap"
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
