#!/usr/bin/env bash
# cpu-time.sh LABEL COMMAND...: runs COMMAND, then prints its wall time and the CPU time (user and
# system) of everything it ran, so that make test's log shows what each step costs (issue 26:
# make test's budget is CPU time on 2 cores). Exits with COMMAND's status.
label=$1
shift
start=$SECONDS
"$@"
rc=$?
# bash's `times` (run in this shell, not a subshell): the shell's own, then its children's
t=$(mktemp)
times >"$t"
tail -1 "$t" | sed 's/m/ /g; s/s//g' |
    awk -v l="$label" -v w=$((SECONDS - start)) '{ printf "%s: %d s wall, %.1f s user + %.1f s system CPU\n", l, w, $1 * 60 + $2, $3 * 60 + $4 }'
rm -f "$t"
exit $rc
