#!/usr/bin/env bash
# snapshot-outputs.sh: every converter's output for every input file, for comparing two builds
# byte for byte (refactors must not change what users get).
# usage: scripts/snapshot-outputs.sh PROFCODEC OUTDIR [INPUT_DIR...]
#        (default inputs: tests/data and ../shared/corpus; SHARD=i/n takes every n-th input
#        from the i-th, so that n runs side by side fill one OUTDIR)
# Writes OUTDIR/<input path with / as __>.<to>[.<options>].out with the exit status and stderr
# appended after a line "---- rc=N", so a diff -r of two OUTDIRs shows every change.
# Besides convert and info: validate (plain and --all --strict), dump (plain and --all), explain
# (text, json and html, the first 200 records), encode of the dump back to the binary format, and
# encode --from austin (a MOJO file's Austin text) and --from samples (a Tachyon file's text, both
# byte orders). EXTRA=0 leaves those out (convert and info only).
# CONVERT_OPTS: options added to every convert (word-split), e.g. CONVERT_OPTS="--granularity
# address": the frames as read, which reproduces the outputs of before issue 25's grouping (a
# snapshot of a build with it diffs empty against one of a build from before; docs/design.md).
set -u
read -r -a copts <<<"${CONVERT_OPTS:-}"
P=$1 OUT=$2
shift 2
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(tests/data ../shared/corpus)
mkdir -p "$OUT"
run() { # name args...
    local name=$1; shift
    "$P" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    local rc=$?
    echo "---- rc=$rc" >>"$OUT/$name.out"
    [ -s "$OUT/$name.err" ] && sed "s#$PWD/##g" "$OUT/$name.err" >>"$OUT/$name.out"
    rm -f "$OUT/$name.err"
}
run_in() { # name input args...: run with standard input from a file (whose name then says nothing)
    local name=$1 input=$2; shift 2
    run "$name" "$@" <"$input"
}
formats=$("$P" formats)
# SHARD=i/n: every n-th input from the i-th (0-based), for runs side by side
shard=${SHARD:-0/1}
find "${dirs[@]}" -type f | sort | awk -v i="${shard%/*}" -v n="${shard#*/}" '(NR - 1) % n == i' | while read -r f; do
    fmt=$("$P" info --json "$f" 2>/dev/null | sed -n '1s/^{"file":.*,"size":[0-9]*,"format":"\([^"]*\)".*/\1/p')
    [ -n "$fmt" ] || continue
    key=$(echo "$f" | sed 's#^\.\./##; s#/#__#g')
    tos=$(echo "$formats" | awk -v f="$fmt" '$1==f { sub(/.*convert to: /, ""); print; exit }')
    for to in $tos; do
        run "$key.$to" convert "${copts[@]}" --to "$to" "$f"
        case "$fmt:$to" in
        mojo:collapsed|mojo:speedscope) for m in time memory samples; do run "$key.$to.$m" convert "${copts[@]}" --to "$to" --metric "$m" "$f"; done ;;
        mono:collapsed|mono:speedscope) for m in alloc-bytes alloc-count calls time samples; do run "$key.$to.$m" convert "${copts[@]}" --to "$to" --metric "$m" "$f"; done ;;
        moarvm:collapsed) for m in size count; do run "$key.$to.$m" convert "${copts[@]}" --to "$to" --metric "$m" "$f"; done ;;
        heph:chrome) run "$key.$to.compat" convert "${copts[@]}" --to chrome --heph-compat "$f" ;;
        mojo:tachyon) run "$key.$to.none" convert "${copts[@]}" --to tachyon --compression none "$f" ;;
        esac
        run "$key.$to.all" convert "${copts[@]}" --all --to "$to" "$f"
    done
    run "$key.info" info "$f"
    run "$key.info-json" info --json "$f"
    [ "${EXTRA:-1}" = 0 ] && continue
    run "$key.validate" validate "$f"
    run "$key.validate.all-strict" validate --all --strict "$f"
    run "$key.dump" dump "$f"
    run "$key.dump.all" dump --all "$f"
    run "$key.explain-text" explain --records 200 --color never "$f"
    run "$key.explain-json" explain --records 200 --to json "$f"
    run "$key.explain-html" explain --records 200 --to html "$f"
    tmp=$(mktemp)
    "$P" dump --all "$f" >"$tmp" 2>/dev/null
    run_in "$key.encode" "$tmp" encode - -o -
    case "$fmt" in
    mojo)
        "$P" convert --to austin "$f" >"$tmp" 2>/dev/null
        run_in "$key.encode-from-austin" "$tmp" encode --from austin - -o - ;;
    tachyon)
        "$P" convert --to samples "$f" >"$tmp" 2>/dev/null
        for e in little big; do run_in "$key.encode-from-samples.$e" "$tmp" encode --from samples --endian "$e" - -o -; done ;;
    esac
    rm -f "$tmp"
done
echo "snapshot: $(ls "$OUT" | wc -l) outputs in $OUT${SHARD:+ (shard $SHARD)}"
