#!/usr/bin/env bash
# test_xformat.sh: MOJO <-> Tachyon conversions. For every MOJO file (tests/data, the shared
# corpus, austin-python's test files): `convert --to tachyon` validates, and its collapsed
# stacks equal the MOJO file's, mapped as docs/mojo.md says (collapsed_norm.py); MOJO ->
# Tachyon -> MOJO keeps stacks, sample counts and time metrics. For every Tachyon file:
# `convert --to mojo` validates, its stacks equal the Tachyon file's, and Tachyon -> MOJO ->
# Tachyon gives the same collapsed stacks byte for byte. Also: both compressions, a pipe,
# the warnings (one line per kind), bad options.
# PCD_TEST_SMALL=1 (make test's sanitize tree; not with PCD_TEST_LONG=1): the conversions of
# tests/data's files under 64 KB only (the others are agreement on large files: the fast tree's;
# their C runs under the sanitizers in fuzz_replay_tachyon_ext and conversion_matrix).
# usage: test_xformat.sh PROFCODEC TESTDATA CORPUS WORKDIR
set -u
P=$1 DATA=$2 CORPUS=$3 W=$4
HERE=$(cd "$(dirname "$0")" && pwd)
NORM="${PCD_PYTHON:-python3} $HERE/collapsed_norm.py"
SMALL=
[ -n "${PCD_TEST_SMALL:-}" ] && [ "${PCD_TEST_LONG:-0}" = 0 ] && SMALL=1
skip_large() { # file: true when sized for the sanitizers and it is not a small file of tests/data
    [ -n "$SMALL" ] || return 1
    case $1 in "$DATA"/*) [ "$(stat -c %s "$1")" -gt 65536 ] ;; *) return 0 ;; esac
}
mkdir -p "$W"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
same() { # file file description
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3"; diff "$1" "$2" | head -4 | cut -c1-160 | sed 's/^/    /'; fi
}
valid() { # file description
    if "$P" validate "$1" >/dev/null 2>"$W/verr"; then ok "$2"; else bad "$2: $(head -1 "$W/verr")"; fi
}
nopid() { sed 's/^P[0-9-]*;/P;/' "$1" | LC_ALL=C sort; }

# ---- MOJO -> Tachyon ------------------------------------------------------------------------
n_mojo=0
for f in "$DATA"/mojo/*.mojo "$CORPUS"/mojo/*.mojo "$CORPUS"/mojo/austin-python-testdata/*.mojo; do
    [ -f "$f" ] || continue
    skip_large "$f" && continue
    n=$(basename "$f" .mojo)
    case $n in v3_truncated* | *_unsupported) continue ;; esac # damaged, or not read
    n_mojo=$((n_mojo + 1))
    t="$W/$n.bin"
    if ! "$P" convert --to tachyon "$f" -o "$t" 2>"$W/$n.warn"; then bad "$n: convert --to tachyon failed: $(head -1 "$W/$n.warn")"; continue; fi
    valid "$t" "$n: the Tachyon output validates"
    "$P" convert --to collapsed --metric samples "$f" -o "$W/$n.mojo.collapsed" 2>/dev/null
    $NORM mojo "$W/$n.mojo.collapsed" >"$W/$n.expected"
    "$P" convert --to collapsed "$t" -o "$W/$n.tachyon.collapsed"
    $NORM tachyon "$W/$n.tachyon.collapsed" >"$W/$n.got"
    same "$W/$n.expected" "$W/$n.got" "$n: MOJO -> Tachyon keeps every stack and count"
    # and back
    "$P" convert --to mojo "$t" -o "$W/$n.rt.mojo" 2>/dev/null || bad "$n: convert --to mojo of the Tachyon output failed"
    valid "$W/$n.rt.mojo" "$n: MOJO -> Tachyon -> MOJO validates"
    v=$(head -c 4 "$f" | tail -c 1 | od -An -tu1 | tr -d ' ')
    metrics="samples time"
    grep -q "^# mode: memory" <("$P" convert --to austin "$f" 2>/dev/null) && metrics=samples # time is not in memory mode
    for m in $metrics; do
        "$P" convert --to collapsed --metric "$m" "$f" 2>/dev/null >"$W/$n.a.$m"
        "$P" convert --to collapsed --metric "$m" "$W/$n.rt.mojo" >"$W/$n.b.$m"
        [ "$v" -lt 3 ] && sed -i 's/^\(P[0-9-]*\);T/\1;T0:/' "$W/$n.a.$m" # MOJO 3 on always has an interpreter id
        # (Tachyon's interpreter ids are unsigned: MOJO 4's negative one is written as 0, with a warning)
        [ "$v" -ge 4 ] && sed -i 's/^\(P[0-9-]*\);T-[0-9]*:/\1;T0:/' "$W/$n.a.$m"
        $NORM mojo-tids "$W/$n.a.$m" >"$W/$n.a2.$m" && mv "$W/$n.a2.$m" "$W/$n.a.$m"
        same <(nopid "$W/$n.a.$m") <(nopid "$W/$n.b.$m") "$n: MOJO -> Tachyon -> MOJO keeps stacks and $m"
        # Linux recordings: each process's main thread carries its pid
        case $f in "$CORPUS"/mojo/[a-z]*_*.mojo | "$DATA"/mojo/v3_*.mojo)
            same <(LC_ALL=C sort "$W/$n.a.$m") <(LC_ALL=C sort "$W/$n.b.$m") "$n: ... and process ids ($m)" ;;
        esac
    done
done
[ "$n_mojo" -gt 0 ] && ok "$n_mojo MOJO files" || bad "no MOJO file found"

# ---- Tachyon -> MOJO ------------------------------------------------------------------------
n_tach=0
for f in "$DATA"/tachyon/*.bin "$CORPUS"/tachyon/*.bin; do
    [ -f "$f" ] || continue
    skip_large "$f" && continue
    n=$(basename "$f" .bin)
    n_tach=$((n_tach + 1))
    m="$W/$n.mojo"
    if ! "$P" convert --to mojo "$f" -o "$m" 2>"$W/$n.warn"; then bad "$n: convert --to mojo failed: $(head -1 "$W/$n.warn")"; continue; fi
    valid "$m" "$n: the MOJO output validates"
    "$P" convert --to collapsed "$f" -o "$W/$n.t.collapsed"
    $NORM tachyon "$W/$n.t.collapsed" >"$W/$n.expected"
    "$P" convert --to collapsed --metric samples "$m" -o "$W/$n.m.collapsed"
    $NORM mojo "$W/$n.m.collapsed" >"$W/$n.got"
    same "$W/$n.expected" "$W/$n.got" "$n: Tachyon -> MOJO keeps every stack and count"
    for c in none zstd; do
        "$P" convert --to tachyon --compression $c "$m" -o "$W/$n.rt.$c.bin" 2>/dev/null || bad "$n: back to Tachyon ($c) failed"
        valid "$W/$n.rt.$c.bin" "$n: Tachyon -> MOJO -> Tachyon ($c) validates"
        "$P" convert --to collapsed "$W/$n.rt.$c.bin" -o "$W/$n.rt.$c.collapsed"
        same "$W/$n.t.collapsed" "$W/$n.rt.$c.collapsed" "$n: Tachyon -> MOJO -> Tachyon ($c): the same collapsed stacks"
    done
    # time metrics are the timestamp deltas: the same timeline comes back
    "$P" convert --to samples "$f" | grep '^S' | awk '{print $2, $5}' >"$W/$n.ts0"
    "$P" convert --to samples "$W/$n.rt.none.bin" | grep '^S' | awk '{print $2, $5}' >"$W/$n.ts1"
    s0=$("$P" convert --to samples "$f" | grep -m1 '^# info start_time_us=' | cut -d= -f2)
    awk -v s="$s0" '{print $1, $2 - s}' "$W/$n.ts0" | LC_ALL=C sort >"$W/$n.ts0s"
    LC_ALL=C sort "$W/$n.ts1" >"$W/$n.ts1s"
    same "$W/$n.ts0s" "$W/$n.ts1s" "$n: every sample's time (from the start) comes back"
done
[ "$n_tach" -gt 0 ] && ok "$n_tach Tachyon files" || bad "no Tachyon file found"

# ---- options, pipes, warnings -----------------------------------------------------------------
f="$DATA/mojo/v3_full.mojo"
"$P" convert --to tachyon --compression none "$f" -o "$W/none.bin" 2>/dev/null
"$P" convert --to tachyon "$f" -o "$W/zstd.bin" 2>/dev/null
"$P" info "$W/none.bin" | grep -q "^compression: *none" && ok "--compression none" || bad "--compression none"
"$P" info "$W/zstd.bin" | grep -q "^compression: *zstd" && ok "zstd by default (as CPython)" || bad "zstd by default"
cat "$f" | "$P" convert --to tachyon - -o "$W/pipe.bin" 2>/dev/null && cmp -s "$W/pipe.bin" "$W/zstd.bin" &&
    ok "MOJO from a pipe" || bad "MOJO from a pipe"
"$P" convert --to tachyon --compression lz4 "$f" -o "$W/x.bin" 2>/dev/null
[ $? = 2 ] && ok "--compression lz4 is a usage error" || bad "--compression lz4 is a usage error"
"$P" convert --to tachyon "$f" -o "$W/w.bin" 2>"$W/w.err"
w=$(grep -c "memory metrics of .* samples dropped" "$W/w.err")
[ "$w" = 1 ] && ok "full mode: one warning for the memory metrics" || bad "full mode: $w memory warnings"
g="$CORPUS/tachyon/unicode_exception_opcodes_none.bin"
if [ -f "$g" ]; then
    "$P" convert --to mojo "$g" -o "$W/u.mojo" 2>"$W/u.err"
    for k in "thread statuses" "mode exception written as MOJO mode wall" "metadata entries dropped"; do
        c=$(grep -c "$k" "$W/u.err")
        [ "$c" = 1 ] && ok "Tachyon -> MOJO warns once: $k" || bad "Tachyon -> MOJO warning '$k' $c times"
    done
    "$P" convert --to austin "$W/u.mojo" | head -4 >"$W/u.head"
    printf '# austin: 3.7.0\n# interval: 1000\n# mode: wall\n# python: 3.15.2\n' >"$W/u.want"
    same "$W/u.want" "$W/u.head" "Tachyon -> MOJO metadata: austin, interval, mode, python"
fi
echo "$fails failure(s)"
[ "$fails" = 0 ]
