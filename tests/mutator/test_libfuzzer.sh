#!/usr/bin/env bash
# test_libfuzzer.sh: a real libFuzzer run (clang) of the MOJO 3 harness linked with the plugin:
# libFuzzer finds LLVMFuzzerCustomMutator and its runs use it ("Custom" mutations), without a
# crash. usage: test_libfuzzer.sh FUZZER SEEDS_DIR WORKDIR
set -eu
fuzzer=$1 seeds=$2 work=$3
rm -rf "$work"; mkdir -p "$work/corpus"
cp "$seeds"/v3_basic.mojo "$seeds"/v3_full.mojo "$seeds"/v3_multiproc.mojo "$work/corpus/"
PCD_MUT_FORMAT=mojo:3 "$fuzzer" "$work/corpus" -runs=3000 -seed=1 -max_len=65536 -print_final_stats=1 \
    >"$work/log.txt" 2>&1 || { tail -40 "$work/log.txt"; echo "FAIL: the fuzzer stopped"; exit 1; }
grep -q "found LLVMFuzzerCustomMutator" "$work/log.txt" || { tail -20 "$work/log.txt"; echo "FAIL: the plugin's hooks were not found"; exit 1; }
grep -q "Custom" "$work/log.txt" || { tail -20 "$work/log.txt"; echo "FAIL: no Custom mutation in the log"; exit 1; }
grep "stat::number_of_executed_units" "$work/log.txt"
echo "1 passed, 0 failed"
