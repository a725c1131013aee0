#!/usr/bin/env bash
# test_cli_memcap.sh: --max-memory covers what the tool allocates itself (src/io and the CLI), not
# only the library: a small cap stops a pipe read into memory, a gzip input and `profcodec fuzz`
# with exit 2 and the out-of-memory message, without a crash and without an output left behind;
# a cap large enough gives the same output as no cap.
# usage: test_cli_memcap.sh PROFCODEC TESTDATA WORKDIR
set -u
P=$1 DATA=$2 W=$3
rm -rf "$W"
mkdir -p "$W/seeds"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# capped NAME WANT_RC OUTPUT CMD...: runs CMD (stderr to $W/err), checks its status, the message
# and that OUTPUT is not there
capped() {
    local name=$1 want=$2 out=$3
    shift 3
    "$@" 2>"$W/err" >/dev/null
    local rc=$?
    [ "$rc" = "$want" ] && ok "$name: exit $rc" || bad "$name: exit $rc, wanted $want: $(cat "$W/err")"
    [ "$rc" -ge 128 ] && bad "$name: killed by a signal"
    grep -q '(raise --max-memory)' "$W/err" && ok "$name: $(head -1 "$W/err")" || bad "$name: no memory message: $(cat "$W/err")"
    [ -e "$out" ] && bad "$name: $out left behind"
    ls "$W" | grep -q '\.tmp\.' && bad "$name: a temporary file left behind"
}

M=$DATA/moarvm/synthetic-three.mvmheap  # a whole-file format: a pipe is read into memory
"$P" convert --to summary "$M" -o "$W/want.txt" || bad "convert $M"

# a pipe read into memory: more than the cap (the limit), and a cap the reader then misses
for i in $(seq 100); do cat "$M"; done >"$W/big.mvmheap"
capped "a 1.4 MB pipe under --max-memory 1M" 2 "$W/o1.txt" \
    sh -c 'cat "$3" | "$1" --max-memory 1M convert --to summary - -o "$2"' sh "$P" "$W/o1.txt" "$W/big.mvmheap"
capped "a pipe under --max-memory 64K" 2 "$W/o2.txt" \
    sh -c 'cat "$3" | "$1" --max-memory 64K convert --to summary - -o "$2"' sh "$P" "$W/o2.txt" "$M"
cat "$M" | "$P" --max-memory 16M convert --to summary - -o "$W/o3.txt" && cmp -s "$W/want.txt" "$W/o3.txt" &&
    ok "the pipe under --max-memory 16M: the same output" || bad "the pipe under --max-memory 16M"

# a gzip input: the decompressor's state, then the decompressed file read whole
gzip -c "$M" >"$W/m.mvmheap.gz"
capped "gzip under --max-memory 64K (its state)" 2 "$W/o4.txt" \
    "$P" --max-memory 64K convert --to summary "$W/m.mvmheap.gz" -o "$W/o4.txt"
capped "gzip under --max-memory 1M (the file read whole)" 2 "$W/o5.txt" \
    "$P" --max-memory 1M convert --to summary "$W/m.mvmheap.gz" -o "$W/o5.txt"
"$P" --max-memory 16M convert --to summary "$W/m.mvmheap.gz" -o "$W/o6.txt" && cmp -s "$W/want.txt" "$W/o6.txt" &&
    ok "gzip under --max-memory 16M: the same output" || bad "gzip under --max-memory 16M"

# encode of a dump: the line reader and the record through the tool's allocator
"$P" dump "$DATA/mojo/v3_basic.mojo" >"$W/v3.jsonl" || bad "dump v3_basic"
capped "encode under --max-memory 16K" 2 "$W/o7.mojo" "$P" --max-memory 16K encode "$W/v3.jsonl" -o "$W/o7.mojo"
# a line whose JSON jansson cannot hold under the cap (common/json_mem.c: jansson allocates from
# the tool's allocator): out of memory for the line's JSON, exit 2, not an invalid line
{ head -4 "$W/v3.jsonl"; printf '{"_kind":"metadata","key":"note","value":"%s"}\n' "$(head -c 200000 /dev/zero | tr '\0' x)";
  tail -n +5 "$W/v3.jsonl"; } >"$W/bigline.jsonl"
capped "encode of a 200 kB line under --max-memory 1M (jansson asserted here before: load.c:442)" 2 "$W/o10.mojo" "$P" --max-memory 1M encode "$W/bigline.jsonl" -o "$W/o10.mojo"
grep -q "out of memory for the line's JSON" "$W/err" && ok "the line's JSON named" || bad "not the line's JSON: $(cat "$W/err")"
"$P" --max-memory 16M encode "$W/bigline.jsonl" -o "$W/o11.mojo" && ok "the 200 kB line under --max-memory 16M" ||
    bad "the 200 kB line under --max-memory 16M"
# encode to a zstd-compressed format: zstd's compression tables come from the cap too; refused,
# that is out of memory (exit 2), not an invalid dump (exit 1)
"$P" dump "$M" >"$W/m.jsonl" || bad "dump $M"
capped "encode of a MoarVM dump under --max-memory 2M" 2 "$W/o8.mvmheap" \
    "$P" --max-memory 2M encode "$W/m.jsonl" -o "$W/o8.mvmheap"
"$P" --max-memory 64M encode "$W/m.jsonl" -o "$W/o9.mvmheap" && cmp -s "$M" "$W/o9.mvmheap" &&
    ok "encode of a MoarVM dump under --max-memory 64M: the same bytes" || bad "encode of a MoarVM dump under 64M"

# profcodec fuzz: its input buffer (16 MiB) and the captures come from the same cap
cp "$DATA/mojo/v3_basic.mojo" "$W/seeds/"
capped "fuzz under --max-memory 8M" 2 "$W/fz" "$P" --max-memory 8M fuzz --seeds "$W/seeds" -o "$W/fz" --runs 3 -- true {}
"$P" --max-memory 64M fuzz --seeds "$W/seeds" -o "$W/fz2" --seed 1 --runs 3 -- true {} 2>"$W/err" &&
    ok "fuzz under --max-memory 64M runs" || bad "fuzz under --max-memory 64M: $(cat "$W/err")"

[ $fails = 0 ] && echo "test_cli_memcap: all passed" || echo "test_cli_memcap: $fails failed"
[ $fails = 0 ]
