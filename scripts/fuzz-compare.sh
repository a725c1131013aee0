#!/usr/bin/env bash
# fuzz-compare.sh: coverage in equal time, structure-aware against byte-level, on our own
# harnesses (make bench-fuzz). For each format the two arms run at the same time, each one
# process (one core's worth), from the same seeds with the same dictionary and options:
#   byte-level:        fuzz_<h>     (libFuzzer's own mutations)
#   structure-aware:   fuzz_<h>_sa  (the libFuzzer plugin; PCD_MUT_BYTES of its calls byte-level)
# and the edges (libFuzzer's "cov") each reached are reported, with executions, the CPU
# seconds each process got and the load average while they ran.
# usage: fuzz-compare.sh BUILD SECONDS [FORMAT...]   (formats: tachyon_zstd moarvm pprof_gz
#        mojo mono heph; default all). Writes bench/fuzz-coverage.tsv (appends).
set -u
B=$1 T=${2:-600}
shift 2 || true
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/corpus"
formats=${*:-"tachyon_zstd moarvm pprof_gz mojo mono heph"}
out="$root/fuzz/out/compare"
mkdir -p "$out"
tsv="$root/bench/fuzz-coverage.tsv"
[ -f "$tsv" ] || printf 'date\tcommit\tformat\tharness\tseconds\tarm\texecutions\tcpu_s\tcov\tft\tcorpus\tload_before\tload_after\texit\n' >"$tsv"

# seeds of a format into DIR (files under 64 KB)
seeds() {
    local fmt=$1 dir=$2 fam
    mkdir -p "$dir"
    case $fmt in
        tachyon_zstd) fam=tachyon ;;
        pprof_gz) fam=pprof ;;
        *) fam=$fmt ;;
    esac
    for d in "$root/fuzz/corpus/$fam" "$root/tests/data/$fam" "$shared/$fam"; do
        [ -d "$d" ] || continue
        find "$d" -type f -size -64k ! -name '*.txt' ! -name '*.md' ! -name '*.json*' ! -name '*.py' ! -name '*.cs' \
            ! -name '*.sh' ! -name '*.sha256' ! -name '*.tsv' ! -name '*.gz' -print0 | xargs -0 -r cp -t "$dir"
    done
    case $fmt in
        # Tachyon files whose samples are zstd (compression = 1 at offset 56); pprof as files are: gzip
        tachyon_zstd|pprof_gz) python3 - "$fmt" "$dir" <<'PY'
import os, sys
fmt, d = sys.argv[1], sys.argv[2]
for n in os.listdir(d):
    p = os.path.join(d, n)
    b = open(p, 'rb').read(64)
    keep = (len(b) >= 60 and b[56] == 1) if fmt == 'tachyon_zstd' else b[:2] == b'\x1f\x8b'
    if not keep: os.remove(p)
PY
        ;;
    esac
}

# the schema the structure-aware arm mutates (the plugin would otherwise take the first input's)
schema_of() {
    case $1 in
        tachyon_zstd) echo tachyon:1 ;; moarvm) echo moarvm:3 ;; pprof_gz) echo pprof:1 ;;
        mojo) echo mojo:3 ;; mono) echo mono:3.0 ;; heph) echo heph:0.1 ;;
    esac
}

harness_of() {
    case $1 in
        tachyon_zstd) echo tachyon_v1 ;; moarvm) echo moarvm_v3 ;; pprof_gz) echo pprof_gz ;;
        mojo) echo mojo_v3 ;; mono) echo mono_v3_0 ;; heph) echo heph_v0_1 ;;
    esac
}

dict_of() {
    local h=$1
    for d in "$root/generated/$h.dict" "$root/generated/pprof_v1.dict"; do
        [ -f "$d" ] && { echo "$d"; return; }
    done
}

run_arm() {   # fmt harness binary arm seedsdir
    local fmt=$1 h=$2 bin=$3 arm=$4 sd=$5 dict
    dict=$(dict_of "$h")
    local w="$out/$fmt-$arm"
    rm -rf "$w"; mkdir -p "$w/corpus" "$w/artifacts"
    cp "$sd"/* "$w/corpus/" 2>/dev/null
    # (CPU seconds the process got: from /usr/bin/time)
    PCD_MUT_FORMAT=$(schema_of "$fmt") /usr/bin/time -f "%U %S" -o "$w/time.txt" "$bin" "$w/corpus" -max_total_time="$T" -timeout=30 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -seed=1 -artifact_prefix="$w/artifacts/" ${dict:+-dict="$dict"} \
        >"$w/log.txt" 2>&1
    echo $? >"$w/rc"
}

for fmt in $formats; do
    h=$(harness_of "$fmt")
    [ -n "$h" ] || { echo "unknown format $fmt"; exit 2; }
    sd="$out/$fmt-seeds"
    rm -rf "$sd"; seeds "$fmt" "$sd"
    n=$(ls "$sd" | wc -l)
    echo "== $fmt ($h): $n seeds, ${T}s, both arms at once"
    l0=$(cut -d' ' -f1 /proc/loadavg)
    run_arm "$fmt" "$h" "$B/fuzz/fuzz_$h" byte "$sd" &
    run_arm "$fmt" "$h" "$B/fuzz/fuzz_${h}_sa" structure "$sd" &
    wait
    l1=$(cut -d' ' -f1 /proc/loadavg)
    for arm in byte structure; do
        w="$out/$fmt-$arm"
        last=$(grep -E '^#[0-9]+' "$w/log.txt" | tail -1)
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log.txt")
        cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
        ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
        corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
        cpu=$(awk '{printf "%.0f", $1 + $2}' "$w/time.txt" 2>/dev/null)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
            "$(git -C "$root" rev-parse --short HEAD)" "$fmt" "$h" "$T" "$arm" "${execs:-?}" "${cpu:-?}" "${cov:-?}" \
            "${ft:-?}" "${corp:-?}" "$l0" "$l1" "$(cat "$w/rc")" >>"$tsv"
        echo "   $arm: cov ${cov:-?} ft ${ft:-?} corpus ${corp:-?}, ${execs:-?} executions in ${cpu:-?} CPU s (exit $(cat "$w/rc"))"
    done
done
