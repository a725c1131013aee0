#!/bin/sh
# make.sh: writes the Go profiles of tests/data/pprof again (a run gives other samples: the
# reference outputs beside each file are made from the same files). Needs Debian's
# golang-1.19-go; no network. usage: tests/data/pprof/gen/make.sh [OUTDIR] [MILLISECONDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/..}
ms=${2:-800}
go=/usr/lib/go-1.19/bin/go
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOTOOLCHAIN=local HOME="$tmp" GOCACHE="$tmp/cache" GOPATH="$tmp/gopath" GOFLAGS= GO111MODULE=off
cp "$here/work.go" "$tmp/"
(cd "$tmp" && "$go" build -trimpath -o work work.go)
"$tmp/work" "$out" "$ms"
# google/pprof's own encoder (go tool pprof -proto): a re-encoding, a merge, a coarser one
"$go" tool pprof -proto "$out/labels.cpu.pprof" >"$out/reencoded.cpu.pprof"
"$go" tool pprof -proto "$out/labels.cpu.pprof" "$out/reencoded.cpu.pprof" >"$out/merged.cpu.pprof"
"$go" tool pprof -proto -functions "$out/labels.allocs.pprof" >"$out/functions.allocs.pprof"
# a raw (not gzip-compressed) protobuf
gzip -dc "$out/labels.goroutine.pprof" >"$out/raw.goroutine.pb"
for f in "$out"/*.pprof "$out"/raw.goroutine.pb; do
    b=${f%.*}
    "$go" tool pprof -raw "$f" >"$b.raw.txt"
    "$go" tool pprof -traces "$f" >"$b.traces.txt"
done
