#!/usr/bin/env bash
# test_fuzz_cmd.sh: `profcodec fuzz` on a MOJO reader with a planted crash (planted_reader.c):
# the crash is found from the seeds through the schema's mutations, confirmed, minimized
# (records dropped, then bytes) and written with a reproducer that crashes again; the campaign
# resumes from its folder; Ctrl-C stops it cleanly; differential runs report disagreements of
# verdict and of totals.
# usage: test_fuzz_cmd.sh PROFCODEC PLANTED_READER TESTDATA WORKDIR
set -u
P=$1 R=$2 DATA=$3 W=$4
# The planted reader is the campaign's target, not code under test: under the sanitizers it runs
# without LeakSanitizer (its exit scan, about 60 ms a process, was most of this test's CPU time);
# the fuzz command itself keeps it.
RUN=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}:detect_leaks=0" "$R")
rm -rf "$W"
mkdir -p "$W/seeds"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for n in v3_basic v3_full v3_multiproc; do cp "$DATA/mojo/$n.mojo" "$W/seeds/"; done

# 1. the planted crash: found, minimized, reproduced
t0=$(date +%s)
"$P" fuzz --seeds "$W/seeds" -o "$W/out" --seed 7 --max-findings 1 --max-time 120 --minimize-runs 400 \
    -- "${RUN[@]}" {} >"$W/log1" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
[ $rc = 1 ] && ok "a finding: exit 1 (${took}s)" || { bad "exit $rc, wanted 1"; tail -20 "$W/log1"; }
dirs=("$W"/out/findings/*/)
if [ ${#dirs[@]} = 1 ] && [ -d "${dirs[0]}" ]; then
    d=${dirs[0]%/}
    id=$(basename "$d")
    case $id in
    0001-signal-SIGSEGV | 0001-asan-segv-* | 0001-ubsan-store-to-null-pointer-*) ok "the planted crash found: $id" ;;
    *) bad "unexpected finding $id" ;;
    esac
    orig=$(stat -c %s "$d/original.mojo") min=$(stat -c %s "$d/input.mojo")
    if [ "$min" -lt "$orig" ] && [ "$min" -le 64 ]; then ok "minimized: $orig -> $min bytes"
    else bad "not minimized: $orig -> $min bytes"; fi
    grep -q '^minimized: .*structurally [1-9][0-9]* step' "$d/report.txt" && ok "records dropped while minimizing" ||
        bad "no structural step in: $(grep '^minimized' "$d/report.txt")"
    [ "$(wc -l <"$d/mutation.txt")" = 1 ] && grep -q 'mojo_v3: ' "$d/mutation.txt" && ok "one line of mutation: $(cat "$d/mutation.txt")" ||
        bad "mutation.txt: $(cat "$d/mutation.txt")"
    "$d/repro.sh" >/dev/null 2>"$W/repro.err"
    rrc=$?
    if [ $rrc -ge 128 ] || grep -q 'AddressSanitizer: SEGV\|runtime error: store to null' "$W/repro.err"; then ok "repro.sh crashes again (exit $rrc)"
    else bad "repro.sh exit $rrc"; fi
    "$R" "$d/original.mojo" >/dev/null 2>&1
    [ $? -ge 1 ] && ok "the original crashes too" || bad "the original does not crash"
    grep -q "^$id	1	" "$W/out/findings.tsv" && ok "findings.tsv lists it" || bad "findings.tsv: $(cat "$W/out/findings.tsv")"
else
    bad "findings: ${dirs[*]}"
fi

# 2. resumed: the same command goes on from the state (more runs, the same finding not again)
runs1=$(sed -n 's/^runs //p' "$W/out/state")
"$P" fuzz --seeds "$W/seeds" -o "$W/out" --runs $((runs1 + 40)) --minimize-runs 50 -- "${RUN[@]}" {} >"$W/log2" 2>&1
runs2=$(sed -n 's/^runs //p' "$W/out/state")
grep -q 'resuming the campaign' "$W/log2" && [ "$runs2" -ge $((runs1 + 40)) ] && ok "resumed: $runs1 -> $runs2 runs" ||
    { bad "not resumed ($runs1 -> $runs2)"; tail -5 "$W/log2"; }
[ "$(ls "$W/out/findings" | wc -l)" = 1 ] && ok "the known crash is not written again" || bad "findings: $(ls "$W/out/findings")"
"$P" fuzz --seeds "$W/seeds" -o "$W/out" --runs 5 -- "${RUN[@]}" --other {} >"$W/log3" 2>&1
[ $? = 2 ] && grep -q 'another command' "$W/log3" && ok "another command is refused in a campaign's folder" || bad "another command: $(cat "$W/log3")"

# 3. Ctrl-C: stops at once, saves the state, says how to resume
"$P" fuzz --seeds "$W/seeds" -o "$W/int" --seed 9 --max-time 120 -- "${RUN[@]}" {} >"$W/log4" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
t0=$(date +%s)
wait $pid
rc=$?
took=$(( $(date +%s) - t0 ))
if [ $took -le 15 ] && [ -f "$W/int/state" ] && grep -q 'the same command resumes' "$W/log4"; then ok "Ctrl-C: stopped in ${took}s (exit $rc), state saved"
else bad "Ctrl-C: ${took}s, exit $rc"; tail -5 "$W/log4"; fi

# 4. differential: a reader that accepts everything disagrees with profcodec on broken files; a
# reader that prints a wrong total disagrees on totals (four findings: which kind comes first
# depends on the mutations drawn, and a new kind changes the draws)
H=$(dirname "$R")/fuzz_helper
"$P" fuzz --seeds "$W/seeds" -o "$W/diff" --seed 5 --diff --runs 300 --max-findings 4 --minimize-runs 20 \
    --total '@samples=exiting with ([0-9]+)' -- "$H" exit 0 {} >"$W/log5" 2>&1
ls "$W/diff/findings" | grep -q 'diff-accepts' && ok "--diff: the target accepts files profcodec rejects" ||
    bad "--diff: no diff-accepts in: $(ls "$W/diff/findings")"
t=$(ls -d "$W"/diff/findings/*diff-total 2>/dev/null | head -1)
if [ -n "$t" ] && grep -q '^what: total @samples: the target says 0, profcodec [1-9]' "$t/report.txt" &&
    grep -q '^profcodec: accepts' "$t/report.txt"; then ok "--diff --total: $(sed -n 's/^what: //p' "$t/report.txt")"
else bad "--diff --total: no total disagreement"; fi

# 5. --replay: files as they are (another fuzzer's crashes), triaged the same way
mkdir -p "$W/crashes"
cp "$W"/out/findings/*/original.mojo "$W/crashes/crash-1.mojo" 2>/dev/null
cp "$W/seeds/v3_basic.mojo" "$W/crashes/fine.mojo"
"$P" fuzz --replay "$W/crashes" -o "$W/replay" --minimize-runs 100 -- "${RUN[@]}" {} >"$W/log7" 2>&1
[ $? = 1 ] && [ "$(ls "$W/replay/findings" | wc -l)" = 1 ] && ok "--replay: the crash triaged, the good file not" ||
    bad "--replay: $(ls "$W/replay/findings" 2>&1)"

# 6. the queue: a reader whose output changes with every input (its first line: the file's)
# queues many inputs; adding them moves the inputs' array under the input they came from
"$P" fuzz --seeds "$W/seeds" -o "$W/queue" --seed 3 --runs 150 --mutate bytes -- "$H" cat {} >"$W/log8" 2>&1
rc=$?
q=$(ls "$W/queue/queue" | grep -vc '\.txt$')
[ $rc = 0 ] && [ "$q" -gt 64 ] && ok "the queue: $q inputs (exit $rc)" || { bad "the queue: $q inputs, exit $rc"; tail -3 "$W/log8"; }

# 7. usage
"$P" fuzz --seeds "$W/seeds" >/dev/null 2>&1
[ $? = 2 ] && ok "no command: exit 2" || bad "no command"
"$P" fuzz --seeds "$W/seeds" -o "$W/x" -- /nonexistent/reader {} >"$W/log6" 2>&1
[ $? = 2 ] && grep -q 'cannot run' "$W/log6" && ok "a command that cannot run: exit 2" || bad "cannot run: $(cat "$W/log6")"
"$P" fuzz --help | grep -q -- '--diff' && ok "fuzz --help" || bad "fuzz --help"
echo "$fails failure(s)"
[ "$fails" = 0 ]
