#!/usr/bin/env bash
# fuzz.sh: runs every libFuzzer harness built in BUILD for SECONDS each, from the
# checked-in seeds (fuzz/corpus/<format>/) plus the shared corpus, with the generated
# dictionary. Work corpora and crash artifacts go to fuzz/out/ (not checked in).
# MERGE=1 also merges what it found back into fuzz/corpus/<format>/ (minimised);
# FUZZ_ONLY=mojo runs only the harnesses whose name matches it (a bash regex, so
# FUZZ_ONLY='^mojo_v3$' picks one harness). Every run appends a line to fuzz/LEDGER.tsv
# (date, commit, harness, seconds, executions, exec/s, coverage, features, exit), which
# is checked in: it is the record of how long each harness has run across sessions.
# -timeout=30: the machine may be shared, and a starved fuzzer would report slow inputs that
# are not (slow inputs are the job of tests/hostile, which times them). usage: fuzz.sh BUILD SECONDS
set -u
B=$1 T=${2:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/corpus"
status=0
summary=()
for h in "$B"/fuzz/fuzz_*; do
    [ -x "$h" ] || continue
    fmt=$(basename "$h"); fmt=${fmt#fuzz_}          # heph_v0_1
    [ -n "${FUZZ_ONLY:-}" ] && ! [[ "$fmt" =~ $FUZZ_ONLY ]] && continue
    fam=${fmt%%_v*}                                  # heph
    fam=${fam%_ext}                                  # tachyon_ext (checks, converters): tachyon's inputs
    out="$root/fuzz/out/$fmt"
    mkdir -p "$out/corpus" "$out/artifacts"
    cp -n "$root"/fuzz/corpus/"$fam"/* "$out/corpus/" 2>/dev/null
    cp -n "$root"/tests/data/"$fam"/* "$out/corpus/" 2>/dev/null
    [ -d "$shared/$fam" ] && find "$shared/$fam" -maxdepth 1 -type f -size -64k -exec cp -n {} "$out/corpus/" \;
    dict="$root/generated/$fmt.dict"
    [ -f "$dict" ] || dict="$root/fuzz/$fmt.dict"
    # a hand-written harness (fuzz/<fmt>_<what>_fuzz.c) uses its format's dictionary
    [ -f "$dict" ] || dict="$root/generated/${fmt%_*}.dict"
    [ -f "$dict" ] || dict=$(ls "$root"/generated/"$fam"_v*.dict 2>/dev/null | tail -1)
    [ -f "$dict" ] || dict=""
    echo "== fuzzing $fmt for ${T}s"
    t0=$(date +%s)
    "$h" "$out/corpus" -max_total_time="$T" -timeout=30 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/" ${dict:+-dict="$dict"} >"$out/log.txt" 2>&1
    rc=$?
    took=$(( $(date +%s) - t0 ))    # what really ran (less than T when interrupted)
    last=$(grep -E '^#[0-9]+' "$out/log.txt" | tail -1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log.txt")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/log.txt")
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    if [ $rc -ne 0 ]; then
        echo "CRASH in $fmt (exit $rc): see $out/log.txt and $out/artifacts/"
        tail -30 "$out/log.txt"
        status=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
        "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$fmt" "$took" \
        "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$rc" >>"$root/fuzz/LEDGER.tsv"
    summary+=("$fmt: ${took}s, ${execs:-?} executions, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, exit $rc")
    if [ "${MERGE:-0}" = 1 ]; then
        mkdir -p "$root/fuzz/corpus/$fam"
        "$h" -merge=1 "$root/fuzz/corpus/$fam" "$out/corpus" >/dev/null 2>&1
    fi
done
echo
echo "fuzz summary:"
printf '  %s\n' "${summary[@]}"
exit $status
