#!/usr/bin/env bash
# run-samples.sh: what `make run` shows: profcodec at work on the bundled sample files.
set -u
P=${1:-build/profcodec}
D=tests/data/heph
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$P" formats
step "$P" info "$D/runtime_example.bin.log"
step "$P" validate "$D"/runtime_example.bin.log "$D"/scalar_attributes.bin.log "$D"/array_attributes.bin.log "$D"/json_escaping.bin.log
step "$P" validate "$D/nested_array_quirk.bin.log"
step "$P" validate --all "$D/nested_array_quirk.bin.log"
printf '\n\033[1m$ %s | head -3\033[0m\n' "$P dump $D/array_attributes.bin.log"
"$P" dump "$D/array_attributes.bin.log" | head -3 | cut -c1-240
step "$P" dump "$D/runtime_example.bin.log" -o "$out/runtime_example.jsonl"
step "$P" encode "$out/runtime_example.jsonl" -o "$out/runtime_example.bin.log"
step cmp "$D/runtime_example.bin.log" "$out/runtime_example.bin.log"
echo "(identical bytes)"
step "$P" convert --to chrome "$D/array_attributes.bin.log" -o "$out/array_attributes.json"
head -c 600 "$out/array_attributes.json"; echo " ..."
step "$P" convert --to chrome --heph-compat "$D/runtime_example.bin.log" -o "$out/compat.json"
step cmp "$out/compat.json" "$D/runtime_example.chrome.json"
echo "(byte-identical to Heph's own converter)"

# ---- Austin MOJO
M=tests/data/mojo
step "$P" info "$M/v3_full.mojo"
step "$P" convert --to austin "$M/v3_full.mojo" -o "$out/v3_full.austin.txt"
step cmp "$out/v3_full.austin.txt" "$M/v3_full.austin.txt"
echo "(byte-identical to austin-python's mojo2austin)"
step "$P" convert --to collapsed "$M/v3_basic.mojo"
printf '\n\033[1m$ %s\033[0m\n' "cat $M/v3_basic.mojo | $P convert --to tachyon - -o $out/basic.bin"
cat "$M/v3_basic.mojo" | "$P" convert --to tachyon - -o "$out/basic.bin"
step "$P" convert --to collapsed "$out/basic.bin"

# ---- CPython's Tachyon
T=tests/data/tachyon
step "$P" info "$T/threads_gil_none.bin"
step "$P" validate "$T/threads_gil_none.bin" "$T/workload_all_zstd.bin"
step "$P" convert --to collapsed "$T/threads_gil_none.bin" -o "$out/threads.collapsed.txt"
step cmp "$out/threads.collapsed.txt" "$T/threads_gil_none.collapsed.txt"
echo "(byte-identical to CPython's replay --collapsed)"
step "$P" dump "$T/threads_gil_none.bin" -o "$out/threads.jsonl"
step "$P" encode --endian big "$out/threads.jsonl" -o "$out/threads.be.bin"
step "$P" convert --to collapsed "$out/threads.be.bin" -o "$out/threads.be.collapsed.txt"
step cmp "$out/threads.be.collapsed.txt" "$T/threads_gil_none.collapsed.txt"
echo "(the big-endian copy reads the same)"

# ---- Mono log profiler
O=tests/data/mono
step "$P" info "$O/sample.mlpd"
printf '\n\033[1m$ %s\033[0m\n' "$P info --json $O/sample.mlpd   # summary.samples: hits per method, as mprof-report counts them"
"$P" info --json "$O/sample.mlpd" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["summary"]["samples"], indent=1))'
step "$P" convert --to collapsed --metric samples "$O/sample.mlpd" -o "$out/sample.collapsed.txt"
awk '{print $NF "\t" $0}' "$out/sample.collapsed.txt" | sort -rn | head -3 | cut -f2- | sed -E 's/^(.{60}).*(.{80})$/\1 ... \2/'

# ---- MoarVM heap snapshots
V=tests/data/moarvm
step "$P" validate "$V/synthetic-three.mvmheap" "$V/synthetic-killed.mvmheap"
step "$P" convert --to summary "$V/synthetic-three.mvmheap" -o "$out/three.summary.txt"
head -12 "$out/three.summary.txt"

echo
echo "make run: done. Open a .json from 'convert --to chrome' in https://ui.perfetto.dev or chrome://tracing,"
echo "a speedscope file in https://www.speedscope.app, and collapsed stacks with flamegraph.pl or inferno."
