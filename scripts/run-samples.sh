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
echo
echo "make run: done. Open a .json from 'convert --to chrome' in https://ui.perfetto.dev or chrome://tracing."
