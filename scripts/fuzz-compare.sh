#!/usr/bin/env bash
# fuzz-compare.sh: coverage in equal CPU time, structure-aware against byte-level, on our own
# harnesses (make bench-fuzz). For each format the two arms run at the same time, each one
# process (one core's worth), from the same seeds with the same dictionary and options:
#   byte-level:        fuzz_<h>     (libFuzzer's own mutations)
#   structure-aware:   fuzz_<h>_sa  (the libFuzzer plugin; PCD_MUT_BYTES of its calls byte-level)
#
# Equal time means equal CPU time, not wall time: on a shared machine two processes started
# together get very different shares of a core. Each arm runs with a -max_total_time far beyond
# the budget and is stopped (SIGINT: libFuzzer prints its final stats) when the CPU time of its
# process (utime + stime of /proc/PID/stat, every thread) reaches CPU_SECONDS. Its coverage is
# then counted by the byte-level binary replaying the arm's final corpus (-runs=0: "INITED cov"),
# so that both arms are counted by the same instrumented code: the structure-aware binary's own
# "cov" would also count edges its mutator lit up in the library (our reader and writer run
# inside the mutator too). The seeds alone are counted the same way ("gained" = edges beyond).
# Every 10 CPU seconds the CPU time, the wall time, libFuzzer's last status line and the load
# average are logged (curve.tsv), and every FUZZ_COMPARE_SNAP (60) CPU seconds the corpus is
# kept as it is then (hard links, snap-<cpu>/). When an arm is stopped by the wall-time limit
# (FUZZ_COMPARE_WALL seconds, default none: a machine too loaded to give the budget in time),
# the two arms are compared at the last snapshot both reached: the same CPU time for both, less
# than the budget, and the row says so (stopped = wall).
#
# usage: fuzz-compare.sh BUILD CPU_SECONDS [FORMAT...]   (formats: tachyon_zstd moarvm pprof_gz
#        mojo mono heph; default all). FUZZ_COMPARE_JOBS=N: N formats at once (default 1; each
#        format is two processes); FUZZ_COMPARE_LEVEL=user|decode: the harnesses (harness_of);
#        FUZZ_COMPARE_SEEDS=real|one|corpus: the seeds (seeds); FUZZ_COMPARE_TIMEOUT: libFuzzer's
#        -timeout in (wall) seconds, default 30; FUZZ_COMPARE_OUT: where the arms' corpora go
#        (default fuzz/out/compare).
#        Appends to bench/fuzz-coverage.tsv (the harness is in its own column).
set -u
B=$1 T=${2:-600}
shift 2 || true
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/corpus"
formats=${*:-"tachyon_zstd moarvm pprof_gz mojo mono heph"}
jobs=${FUZZ_COMPARE_JOBS:-1}
level=${FUZZ_COMPARE_LEVEL:-user}
seedset=${FUZZ_COMPARE_SEEDS:-real}
snap=${FUZZ_COMPARE_SNAP:-60}
wall=${FUZZ_COMPARE_WALL:-0}
# libFuzzer's -timeout counts wall time: on a loaded machine at a low priority (autogroup nice
# 19) a seed can wait 30 s for a core, and the arm then stops on a "timeout" that is not one
# (the first try of the fourth round lost its Tachyon byte arm so). A real hang spends CPU and
# meets the CPU budget.
timeout=${FUZZ_COMPARE_TIMEOUT:-30}
out=${FUZZ_COMPARE_OUT:-"$root/fuzz/out/compare"}   # (another run at the same time: a directory of its own)
mkdir -p "$out"
tsv="$root/bench/fuzz-coverage.tsv"
hz=$(getconf CLK_TCK)
commit=$(git -C "$root" rev-parse --short HEAD)
[ -f "$tsv" ] || printf 'date\tcommit\tformat\tharness\tcpu_budget_s\tarm\texecutions\tcpu_s\twall_s\tcov_replayed\tft_replayed\tcov_seeds\tcov_printed\tcorpus\tload_start\tload_mean\tload_end\texit\tstopped\tseeds\n' >"$tsv"

# seeds of a format into DIR (files under 64 KB). FUZZ_COMPARE_SEEDS=real (the default): the
# files real writers wrote (tests/data, the shared corpus); one: the smallest valid one alone;
# corpus: those and fuzz/corpus, the inputs earlier byte-level campaigns kept (most of what a
# decoder can reach, before either arm runs).
seeds() {
    local fmt=$1 dir=$2 fam dirs
    mkdir -p "$dir"
    case $fmt in
        tachyon_zstd) fam=tachyon ;;
        pprof_gz) fam=pprof ;;
        *) fam=$fmt ;;
    esac
    dirs="$root/tests/data/$fam $shared/$fam"
    [ "$seedset" = corpus ] && dirs="$root/fuzz/corpus/$fam $dirs"
    for d in $dirs; do
        [ -d "$d" ] || continue
        find "$d" -type f -size -64k ! -name '*.txt' ! -name '*.md' ! -name '*.json*' ! -name '*.py' ! -name '*.cs' \
            ! -name '*.sh' ! -name '*.sha256' ! -name '*.tsv' ! -name '*.gz' -print0 | xargs -0 -r cp -t "$dir"
    done
    case $fmt in
        # Tachyon files whose samples are zstd (compression = 1 at offset 56); pprof as files are:
        # gzip; MoarVM: heap snapshots only (../shared/corpus/moarvm/programs holds the NQP and
        # Raku programs that made them)
        tachyon_zstd|pprof_gz|moarvm) python3 - "$fmt" "$dir" <<'PY'
import os, sys
fmt, d = sys.argv[1], sys.argv[2]
for n in os.listdir(d):
    p = os.path.join(d, n)
    b = open(p, 'rb').read(64)
    keep = {'tachyon_zstd': len(b) >= 60 and b[56] == 1, 'pprof_gz': b[:2] == b'\x1f\x8b',
            'moarvm': b[:12] == b'MoarHeapDump'}[fmt]
    if not keep: os.remove(p)
PY
        ;;
    esac
    # one: the smallest of those files that `profcodec validate` finds valid, alone (what the
    # maintainer of a new reader starts from: one small valid file; PROFCODEC, default
    # build/profcodec)
    if [ "$seedset" = one ]; then
        local keep="" f
        for f in $(ls -Sr "$dir"); do
            if "${PROFCODEC:-$root/build/profcodec}" validate "$dir/$f" >/dev/null 2>&1; then keep=$f; break; fi
        done
        [ -n "$keep" ] || { echo "$fmt: no seed that profcodec validate finds valid" >&2; exit 2; }
        find "$dir" -type f ! -name "$keep" -delete
    fi
}

# the schema the structure-aware arm mutates (the plugin would otherwise take the first input's)
schema_of() {
    case $1 in
        tachyon_zstd) echo tachyon:1 ;; moarvm) echo moarvm:3 ;; pprof_gz) echo pprof:1 ;;
        mojo) echo mojo:3 ;; mono) echo mono:3.0 ;; heph) echo heph:0.1 ;;
    esac
}

# The harness both arms run. FUZZ_COMPARE_LEVEL=user (the default): what a user runs on a
# file, decode, the checks above the bytes and every conversion (the hand-written harnesses:
# fuzz/*_ext_fuzz.c over extlib.c, moarvm_v3_blocks, mojo_v3_asm); decode: the generated
# decode-only harnesses (every decode path and the re-encode, nothing above the bytes).
harness_of() {
    if [ "$level" = decode ]; then
        case $1 in
            tachyon_zstd) echo tachyon_v1 ;; moarvm) echo moarvm_v3 ;; pprof_gz) echo pprof_gz ;;
            mojo) echo mojo_v3 ;; mono) echo mono_v3_0 ;; heph) echo heph_v0_1 ;;
        esac
    else
        case $1 in
            tachyon_zstd) echo tachyon_ext ;; moarvm) echo moarvm_v3_blocks ;; pprof_gz) echo pprof_gz_ext ;;
            mojo) echo mojo_v3_asm ;; mono) echo mono_ext ;; heph) echo heph_ext ;;
        esac
    fi
}

# the schema's dictionary (generated/<schema>.dict), the same for both arms
dict_of() {
    local d
    d="$root/generated/$(schema_of "$1" | sed 's/:/_v/; s/\./_/').dict"
    [ -f "$d" ] && echo "$d"
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
load1() { cut -d' ' -f1 /proc/loadavg; }

# edges the byte-level binary of harness h reaches on the inputs of DIR: "cov ft"
replay_cov() {
    local bin=$1 dir=$2 log=$3
    "$bin" -runs=0 -max_len=65536 -timeout="$timeout" -rss_limit_mb=2048 -artifact_prefix="${log%/*}/" "$dir" >"$log" 2>&1
    sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' "$log" | tail -1
}

run_arm() {   # fmt harness binary arm seedsdir
    local fmt=$1 h=$2 bin=$3 arm=$4 sd=$5 dict
    dict=$(dict_of "$fmt")
    local w="$out/$fmt-$arm"
    rm -rf "$w"; mkdir -p "$w/corpus" "$w/artifacts"
    cp "$sd"/* "$w/corpus/" 2>/dev/null
    printf 'cpu_s\twall_s\tload1\tlast_status\n' >"$w/curve.tsv"
    local t0=$SECONDS budget=$((T * hz)) lsum=0 ln=0 ticks=0 next=0 nsnap=$((snap * hz)) stopped=budget
    PCD_MUT_FORMAT=$(schema_of "$fmt") "$bin" "$w/corpus" -max_total_time=$((T * 100)) -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -seed=1 -artifact_prefix="$w/artifacts/" ${dict:+-dict="$dict"} \
        >"$w/log.txt" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        ticks=$(cpu_ticks "$pid")
        [ -n "$ticks" ] || break
        if [ "$ticks" -ge "$nsnap" ] && [ "$ticks" -lt "$budget" ]; then
            cp -al "$w/corpus" "$w/snap-$((nsnap / hz))" 2>/dev/null   # (files libFuzzer deletes meanwhile: left out)
            nsnap=$((nsnap + snap * hz))
        fi
        if [ "$ticks" -ge "$budget" ]; then
            kill -INT "$pid" 2>/dev/null
            break
        fi
        if [ "$wall" -gt 0 ] && [ $((SECONDS - t0)) -ge "$wall" ]; then
            stopped=wall
            kill -INT "$pid" 2>/dev/null
            break
        fi
        if [ "$ticks" -ge "$next" ]; then
            local l; l=$(load1)
            lsum=$(awk -v a="$lsum" -v b="$l" 'BEGIN { print a + b }'); ln=$((ln + 1))
            printf '%s\t%s\t%s\t%s\n' "$((ticks / hz))" "$((SECONDS - t0))" "$l" \
                "$(grep -aE '^#[0-9]+' "$w/log.txt" | tail -1)" >>"$w/curve.tsv"
            next=$((next + 10 * hz))
        fi
        sleep 2
    done
    wait "$pid"
    echo $? >"$w/rc"
    # ended by itself before the budget (a crash or a broken invariant: artifacts/): compared
    # like a wall-time stop, at the last snapshot both arms reached
    [ "$stopped" = budget ] && [ "${ticks:-0}" -lt "$budget" ] && stopped=exit
    echo "$((ticks / hz)) $((SECONDS - t0)) $(awk -v a="$lsum" -v n="$ln" 'BEGIN { printf "%.1f", n ? a / n : 0 }') $stopped" >"$w/cpu.txt"
    printf '%s\t%s\t%s\t%s\n' "$((ticks / hz))" "$((SECONDS - t0))" "$(load1)" \
        "$(grep -aE '^#[0-9]+' "$w/log.txt" | tail -1)" >>"$w/curve.tsv"
}

compare_format() {
    local fmt=$1 h sd n l0 l1 base
    h=$(harness_of "$fmt")
    sd="$out/$fmt-seeds"
    rm -rf "$sd"; seeds "$fmt" "$sd"
    n=$(ls "$sd" | wc -l)
    echo "== $fmt ($h): $n seeds ($seedset), $T CPU s per arm, both arms at once (load $(load1))"
    l0=$(load1)
    run_arm "$fmt" "$h" "$B/fuzz/fuzz_$h" byte "$sd" &
    run_arm "$fmt" "$h" "$B/fuzz/fuzz_${h}_sa" structure "$sd" &
    wait
    l1=$(load1)
    base=$(replay_cov "$B/fuzz/fuzz_$h" "$sd" "$out/$fmt-seeds.replay.txt")
    # both arms at the budget: their final corpora; else the last snapshot both reached
    local at=$T arm c s
    for arm in byte structure; do
        read -r c _ _ s <"$out/$fmt-$arm/cpu.txt"
        [ "$s" = budget ] || at=$(( (c < at ? c : at) / snap * snap ))
    done
    for arm in byte structure; do
        local w="$out/$fmt-$arm" last execs pcov corp cpu wall lmean rc cf dir stop
        read -r cpu wall lmean stop <"$w/cpu.txt"
        dir="$w/corpus" last=$(grep -aE '^#[0-9]+' "$w/log.txt" | tail -1)
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log.txt")
        if [ "$at" -lt "$T" ]; then
            dir="$w/snap-$at"
            [ "$stop" = exit ] || stop=wall
            [ -d "$dir" ] || dir="$sd"   # (no snapshot reached: the seeds)
            # libFuzzer's status line and executions when the arm had that much CPU
            last=$(awk -F'\t' -v c="$at" 'NR > 1 && $1 <= c { l = $4; for (i = 5; i <= NF; i++) l = l " " $i } END { print l }' "$w/curve.tsv")
            execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
            cpu=$at
        fi
        pcov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
        corp=$(ls "$dir" | wc -l)
        rc=$(cat "$w/rc")
        cf=$(replay_cov "$B/fuzz/fuzz_$h" "$dir" "$w/replay.txt")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
            "$commit" "$fmt" "$h" "$at" "$arm" "${execs:-?}" "$cpu" "$wall" "${cf% *}" "${cf#* }" "${base% *}" \
            "${pcov:-?}" "$corp" "$l0" "$lmean" "$l1" "$rc" "$stop" "$seedset:$(ls "$sd" | wc -l)" >>"$tsv"
        echo "   $fmt $arm: $(echo "$cf" | cut -d' ' -f1) edges replayed (seeds ${base% *}), ${execs:-?} executions in $cpu CPU s ($wall s wall, load ~$lmean), corpus $corp, exit $rc, stopped by $stop"
    done
}

for fmt in $formats; do
    [ -n "$(harness_of "$fmt")" ] || { echo "unknown format $fmt"; exit 2; }
done
for fmt in $formats; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    compare_format "$fmt" &
done
wait
