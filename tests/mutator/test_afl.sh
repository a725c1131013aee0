#!/usr/bin/env bash
# test_afl.sh: AFL++ (Debian's afl++) driven for a few seconds with pcdmut_afl.so as its only
# mutator, on a small instrumented MOJO reader: the plugin loads, its mutants run, and the
# queue holds entries it made (named by afl_custom_describe: "mojo_v3:...").
# usage: test_afl.sh PLUGIN.so SEEDS_DIR WORKDIR
set -eu
plugin=$1 seeds=$2 work=$3
command -v afl-fuzz >/dev/null && command -v afl-clang-fast >/dev/null || { echo "afl-fuzz or afl-clang-fast missing (Debian's afl++: scripts/setup-deps.sh)"; exit 1; }
rm -rf "$work"; mkdir -p "$work/in"
cp "$seeds"/v3_basic.mojo "$seeds"/v3_full.mojo "$work/in/"
AFL_QUIET=1 afl-clang-fast -O1 -o "$work/target" "$(dirname "$0")/afl_target.c" 2>"$work/cc.log" || { cat "$work/cc.log"; exit 1; }
export AFL_CUSTOM_MUTATOR_LIBRARY=$plugin AFL_CUSTOM_MUTATOR_ONLY=1 AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 AFL_FAST_CAL=1 PCD_MUT_FORMAT=mojo:3
timeout 60 afl-fuzz -i "$work/in" -o "$work/out" -V 5 -- "$work/target" @@ >"$work/afl.log" 2>&1 || true
stats=$work/out/default/fuzzer_stats
[ -f "$stats" ] || { tail -30 "$work/afl.log"; echo "FAIL: afl-fuzz wrote no stats"; exit 1; }
grep -q "Custom mutator '.*pcdmut_afl.so' installed\|pcdmut_afl" "$work/afl.log" || { tail -30 "$work/afl.log"; echo "FAIL: the plugin was not loaded"; exit 1; }
execs=$(sed -n 's/^execs_done *: *//p' "$stats")
made=$(ls "$work/out/default/queue" | grep -c "mojo_v3" || true)
echo "afl-fuzz ran $execs inputs; $made queue entries made by pcdmut_afl.so"
[ "${execs:-0}" -ge 50 ] || { echo "FAIL: too few executions"; exit 1; }
[ "$made" -ge 1 ] || { ls "$work/out/default/queue"; echo "FAIL: no queue entry came from the plugin"; exit 1; }
echo "1 passed, 0 failed"
