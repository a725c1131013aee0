#!/usr/bin/env bash
# test_cpython.sh: CPython 3.15.2's own reader on files profcodec writes: the other byte order,
# re-encodings from the per-sample text (CPython's choices), zstd. Needs a CPython 3.15 root
# (../shared/tools/cpython315-root.sh DIR) named by PCD_CPYTHON315_ROOT, and root (chroot);
# exits 77 (skipped) without them.
# usage: test_cpython.sh PROFCODEC TESTDATA CORPUS WORKDIR
set -u
P=$1 DATA=$2 CORPUS=$3 W=$4
R=${PCD_CPYTHON315_ROOT:-}
if [ -z "$R" ] || [ ! -x "$R/usr/bin/python3.15" ]; then
    echo "skipped: set PCD_CPYTHON315_ROOT to a CPython 3.15 root (../shared/tools/cpython315-root.sh DIR)"
    exit 77
fi
if [ "$(id -u)" != 0 ] || ! LC_ALL=C chroot "$R" /usr/bin/python3.15 -c 'import _remote_debugging' 2>/dev/null; then
    echo "skipped: cannot chroot into $R (needs root)"
    exit 77
fi
py() { LC_ALL=C chroot "$R" /usr/bin/python3.15 "$@"; }
# a folder of this run's own inside the root (other runs may share the root at the same time)
mkdir -p "$W" "$R/tmp"
T=$(mktemp -d "$R/tmp/pcd-test.XXXXXX") || exit 1
C=/tmp/${T##*/} # the same folder as the chroot sees it
trap 'rm -rf "$T"' EXIT
cp "$CORPUS/tachyon/tools/dump_samples.py" "$T/" 2>/dev/null || { echo "skipped: no tools/dump_samples.py in the corpus"; exit 77; }
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# CPython's collapsed output and per-sample dump of a file; compared with ours
check() { # name file reference-collapsed
    local n=$1 f=$2 ref=$3
    cp "$f" "$T/$n.bin"
    if ! py -m profiling.sampling replay --collapsed -o "$C/$n.collapsed.txt" "$C/$n.bin" >"$W/$n.log" 2>&1; then
        bad "CPython cannot replay $n: $(tail -1 "$W/$n.log")"
        return
    fi
    if cmp -s "$T/$n.collapsed.txt" "$ref"; then ok "CPython reads $n: the same stacks"; else bad "CPython's stacks of $n differ"; fi
    py $C/dump_samples.py "$C/$n.bin" "$C/$n.samples.txt"
    "$P" convert --to samples "$f" -o "$W/$n.ours.txt"
    if cmp -s "$T/$n.samples.txt" "$W/$n.ours.txt"; then ok "CPython's reader and ours agree on every sample of $n"
    else bad "CPython's reader and ours differ on $n"; fi
}

for t in "$DATA"/tachyon/*.bin "$CORPUS"/tachyon/*.bin; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .bin)
    base=${n%.be}
    ref="$(dirname "$t")/$base.collapsed.txt"
    [ -f "$ref" ] || continue
    if head -c 4 "$t" | grep -q TACH; then other=little; else other=big; fi
    "$P" dump "$t" -o "$W/$n.jsonl" && "$P" encode --endian "$other" "$W/$n.jsonl" -o "$W/$n.$other.bin" &&
        check "$n.$other" "$W/$n.$other.bin" "$ref"
    "$P" convert --to samples "$t" -o "$W/$n.samples.txt" &&
        "$P" encode --from samples --endian big "$W/$n.samples.txt" -o "$W/$n.writer-big.bin" &&
        check "$n.writer-big" "$W/$n.writer-big.bin" "$ref"
    # the other compression
    sed 's/^# info compression_type=1$/# info compression_type=X/; s/^# info compression_type=0$/# info compression_type=1/; s/^# info compression_type=X$/# info compression_type=0/' \
        "$W/$n.samples.txt" >"$W/$n.recompressed.txt"
    "$P" encode --from samples "$W/$n.recompressed.txt" -o "$W/$n.recompressed.bin" &&
        check "$n.recompressed" "$W/$n.recompressed.bin" "$ref"
done
echo "$fails failure(s)"
[ "$fails" = 0 ]
