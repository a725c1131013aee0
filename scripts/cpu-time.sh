#!/usr/bin/env bash
# cpu-time.sh LABEL COMMAND...: runs COMMAND, then prints its wall time and the CPU time (user and
# system) of everything it ran, so that make test's log shows what each step costs (issue 26:
# make test's budget is CPU time on 2 cores). Exits with COMMAND's status.
#
# The children's times are read before and after COMMAND and subtracted: a shell that runs this
# script as its last command may exec it in place (dash does, for make test's sanitize chain), and
# the process then already holds the CPU of the children it waited for before (the sanitize
# tree's build, which was counted a second time in the tests' figure until i26t).
label=$1
shift
# bash's `times`: the shell's own line, then its children's (minutes and seconds, user and system)
# (run in this shell, not in a subshell: a subshell's children are its own)
t=$(mktemp)
times >"$t"
before=$(tail -1 "$t" | sed 's/m/ /g; s/s//g')
start=$SECONDS
"$@"
rc=$?
times >"$t"
after=$(tail -1 "$t" | sed 's/m/ /g; s/s//g')
rm -f "$t"
awk -v l="$label" -v w=$((SECONDS - start)) -v b="$before" -v a="$after" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    u = (y[1] * 60 + y[2]) - (x[1] * 60 + x[2]); s = (y[3] * 60 + y[4]) - (x[3] * 60 + x[4])
    printf "%s: %d s wall, %.1f s user + %.1f s system CPU\n", l, w, u, s }'
exit $rc
