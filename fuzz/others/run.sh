#!/usr/bin/env bash
# run.sh: the campaigns against other readers (make fuzz-others; never in make test): each
# fuzz/others/<reader>.sh for FUZZ_OTHERS_SECONDS (default 1800) of `profcodec fuzz`, one after
# the other, under nice. FUZZ_OTHERS=regex picks some (FUZZ_OTHERS='go|mprof'). A reader whose
# prerequisites are missing is skipped with the reason (austin-python needs AUSTIN_PYTHON).
# Each appends its figures to fuzz/others/LEDGER.tsv and copies its findings' reproducers to
# fuzz/others/findings/<reader>/; docs/fuzzing.md has their reports.
set -u
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_OTHERS_SECONDS:-1800}
status=0
for r in mprof-report go-pprof cpython austin-python; do
    [ -n "${FUZZ_OTHERS:-}" ] && ! [[ "$r" =~ $FUZZ_OTHERS ]] && continue
    "$here/$r.sh" "$seconds"
    rc=$?
    case $rc in
    0) ;;
    77) echo "$r: skipped" ;;
    *) echo "$r: failed (exit $rc)"; status=1 ;;
    esac
done
echo
echo "fuzz-others: figures in fuzz/others/LEDGER.tsv, findings in fuzz/others/findings/"
exit $status
