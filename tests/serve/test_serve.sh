#!/usr/bin/env bash
# pcd-serve (serve.c): a leak in any one of a server's runs fails the test it serves: with a block
# leaked in the 2nd of 3 runs it must end non-zero with LeakSanitizer's report of it; the same 3
# runs without the planted leak must end 0. And a run starts as a new process would: getopt's
# state of a run that returned in the middle of an option cluster (-hx) is not the next run's.
# usage: test_serve.sh PCD_SERVE PROFCODEC CLIENT WORKDIR
set -u
SERVE=$1 REAL=$2 CLIENT=$3 W=$4
mkdir -p "$W"
three='"$0" formats >/dev/null && "$0" info --json "$1" >/dev/null && "$0" validate "$1" 2>/dev/null'
data=$(dirname "$0")/../data/heph
f=$(ls "$data"/*.bin.log | head -1)
fail=0
"$SERVE" --real "$REAL" -- sh -c "$three" "$CLIENT" "$f" 2>"$W/clean.err"; rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: 3 clean runs in one server: exit $rc"; cat "$W/clean.err"; fail=1; fi
grep -q "^pcd-serve: 3 command lines ran" "$W/clean.err" || { echo "FAIL: not 3 runs in the server"; cat "$W/clean.err"; fail=1; }
"$SERVE" --plant-leak 2 --real "$REAL" -- sh -c "$three" "$CLIENT" "$f" 2>"$W/leak.err"; rc=$?
if [ $rc -eq 0 ]; then echo "FAIL: a leak planted in run 2 of 3: exit 0"; fail=1; fi
grep -q "LeakSanitizer: detected memory leaks" "$W/leak.err" && grep -q "4321 byte(s) in 1 object" "$W/leak.err" &&
    grep -q "in plant_leak" "$W/leak.err" || { echo "FAIL: no report of the planted leak"; cat "$W/leak.err"; fail=1; }
"$SERVE" --real "$REAL" -- sh -c '"$0" info -hx "$1" >/dev/null && "$0" validate -hq "$1" >/dev/null' \
    "$CLIENT" "$f" 2>"$W/getopt.err"; rc=$?
if [ $rc -ne 0 ] || grep -q "invalid option" "$W/getopt.err"; then
    echo "FAIL: the run after 'info -hx' saw its getopt state (exit $rc)"; cat "$W/getopt.err"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: 3 clean runs pass; a leak planted in run 2 of 3 is reported at the server's exit; getopt starts afresh"
exit $fail
