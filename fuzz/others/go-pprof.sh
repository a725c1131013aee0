#!/usr/bin/env bash
# go-pprof.sh: Go's pprof parser (the profile package of github.com/google/pprof as Go 1.19
# vendors it: Debian's golang-1.19-src), through a harness of ours (go-pprof/harness.go) that
# reads one file as `go tool pprof` does and then writes, re-reads, merges and compacts it.
# The parser's source is copied beside the harness at build time (nothing of it is checked in);
# the build is offline. Findings: panics, the harness's own failures (exit 3), hangs, memory
# blow-ups, and disagreements with profcodec: on the verdict, the number of samples and each
# sample type's total (--diff). Coverage: afterwards, the statements of the profile package that
# the campaign's kept inputs (seeds, queue, findings) run, against the seeds alone (go test -cover).
# usage: go-pprof.sh SECONDS        a campaign (make fuzz-others)
#        go-pprof.sh --repro FILE   the harness on one file
set -u
. "$(dirname "$0")/lib.sh"
GO=${GO:-/usr/lib/go-1.19/bin/go}
src=/usr/share/go-1.19/src/cmd/vendor/github.com/google/pprof/profile
work="$others/out/go-pprof/build"
[ -x "$GO" ] && [ -d "$src" ] || { echo "go-pprof: needs golang-1.19-go and golang-1.19-src"; exit 2; }
build() {
    mkdir -p "$work/pprof/profile"
    cp "$others"/go-pprof/{harness.go,corpus_test.go,go.mod} "$work/"
    cp "$src"/*.go "$work/pprof/profile/"
    printf 'module github.com/google/pprof\n\ngo 1.19\n' >"$work/pprof/go.mod"
    (cd "$work" && GOPROXY=off GOFLAGS=-mod=mod GOCACHE="$work/cache" GOPATH="$work/gopath" "$GO" build -o harness .) ||
        { echo "go-pprof: the harness does not build"; exit 2; }
}
coverage() { # folders, colon separated: "N% of statements"
    (cd "$work" && PCD_CORPUS="$1" GOPROXY=off GOFLAGS=-mod=mod GOCACHE="$work/cache" GOPATH="$work/gopath" \
        "$GO" test -count=1 -cover -coverpkg=github.com/google/pprof/profile -run TestCorpus . 2>&1) |
        sed -n 's/.*coverage: \([0-9.]*%\) of statements.*/\1/p' | head -1
}
build >&2
if [ "${1:-}" = --repro ]; then
    exec "$work/harness" "$2"
fi
seconds=${1:-1800}
version="Go $("$GO" env GOVERSION | sed 's/^go//') vendored github.com/google/pprof"
seeds="$others/out/go-pprof/seeds"
mkdir -p "$seeds"
cp "$root"/tests/data/pprof/*.pprof "$root"/tests/data/pprof/*.pb "$seeds/"
for f in "$root"/../shared/corpus/pprof/*.pprof; do [ -f "$f" ] && cp "$f" "$seeds/"; done
campaign go-pprof "$version" "$seconds" -- --seeds "$seeds" --diff --crash-exit 3 \
    --total '@samples=^samples ([0-9]+)$' --total '*=^total {name}/[^ ]* (-?[0-9]+)$' \
    -- "$work/harness" {} || exit $?
out="$others/out/go-pprof/campaign"
finds=$(ls -d "$out"/findings/*/ 2>/dev/null | tr '\n' ':')
cov_seeds=$(coverage "$seeds")
cov_all=$(coverage "$seeds:$out/queue:$finds")
ledger "${cov_all:-?} of the profile package's statements by the kept inputs (seeds alone: ${cov_seeds:-?})"
