#!/usr/bin/env bash
# test_cpython_xformat.sh: CPython 3.15.2's own `profiling.sampling replay --collapsed` on the
# Tachyon files `convert --to tachyon` makes from MOJO files (both compressions): it must read
# them, and give what our `convert --to collapsed` gives (which is the MOJO file's stacks,
# test_xformat.sh). Needs a CPython 3.15 root (../shared/tools/cpython315-root.sh DIR) named
# by PCD_CPYTHON315_ROOT, and root (chroot); exits 77 (skipped) without them.
# usage: test_cpython_xformat.sh PROFCODEC TESTDATA CORPUS WORKDIR
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
# a folder of this run's own inside the root (other runs may share the root at the same time)
mkdir -p "$W" "$R/tmp"
T=$(mktemp -d "$R/tmp/pcd-xformat.XXXXXX") || exit 1
C=/tmp/${T##*/} # the same folder as the chroot sees it
trap 'rm -rf "$T"' EXIT
fails=0 n=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in "$DATA"/mojo/*.mojo "$CORPUS"/mojo/*.mojo "$CORPUS"/mojo/austin-python-testdata/*.mojo; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .mojo)
    case $b in v3_truncated* | *_unsupported | repeat) continue ;; esac
    for c in none zstd; do
        t="$b.$c"
        "$P" convert --to tachyon --compression $c "$f" -o "$W/$t.bin" 2>/dev/null || { bad "$t: convert failed"; continue; }
        cp "$W/$t.bin" "$T/$t.bin"
        if ! LC_ALL=C chroot "$R" /usr/bin/python3.15 -m profiling.sampling replay --collapsed \
            -o "$C/$t.txt" "$C/$t.bin" >"$W/$t.log" 2>&1; then
            bad "CPython cannot replay $t: $(tail -1 "$W/$t.log")"
            continue
        fi
        n=$((n + 1))
        "$P" convert --to collapsed "$W/$t.bin" -o "$W/$t.ours.txt"
        if cmp -s "$T/$t.txt" "$W/$t.ours.txt"; then ok "CPython reads $t (from MOJO): the same stacks"
        else bad "CPython's stacks of $t differ from ours"; fi
    done
done
[ "$n" -gt 0 ] || bad "no file was replayed"
echo "$fails failure(s)"
[ "$fails" = 0 ]
