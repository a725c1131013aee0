#!/bin/sh
# tests/data/mono/record.sh [WORKDIR]: records the Mono 6.8 files of this folder again, with
# mprof-report's outputs beside them (SOURCE.md says what each holds). Not run by the tests.
# Needs Debian 12's mono-runtime, mono-mcs, mono-utils (mprof-report), libmono-profiler,
# binutils (mono --aot) and a built profcodec (PROFCODEC, default build/profcodec; used by
# mprof68_compat.py). The programs run in WORKDIR (default /sample), so that the only
# program paths in the files are /sample/NAME.exe and Debian's /usr/lib/mono/...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/sample}
PROFCODEC=${PROFCODEC:-$here/../../../build/profcodec}
export PROFCODEC
mkdir -p "$work"
cd "$work"
for p in plugin unload events enterleave heapwalk counters aot; do cp "$here/$p.cs" .; done
mcs -target:library plugin.cs
for p in unload events enterleave heapwalk aot; do mcs "$p.cs"; done
mcs -r:System.dll counters.cs
mono --aot aot.exe >/dev/null

record() {   # NAME PROGRAM OPTIONS...: mono --profile=log:OPTIONS,output=NAME.mlpd PROGRAM.exe
    name=$1 prog=$2 opts=$3
    mono --profile=log:"$opts",output="$name".mlpd "$prog".exe >/dev/null
}
record unload unload nodefaults,zip
record events-nobt events nodefaults,alloc,exception,monitor,gchandle,maxframes=0
record events-bt events nodefaults,alloc,exception,monitor,gchandle,maxframes=4
record enterleave enterleave nodefaults,calls
record heapwalk heapwalk nodefaults,heapshot,gcroot,gcmove,gc,finalization,jit
record counters counters nodefaults,counter
record aot aot nodefaults

for name in unload events-nobt events-bt enterleave heapwalk counters aot; do
    in=$name.mlpd
    if [ "$name" = unload ]; then
        # mprof-report 6.8 misreads image unloads (see mprof68_compat.py): its outputs are
        # made from a copy it reads as the writer meant
        python3 "$here/mprof68_compat.py" "$name.mlpd" "$name.mprof68.mlpd"
        in=$name.mprof68.mlpd
    fi
    mprof-report "$in" > "$name.report.txt"
    # mprof-report 6.8 --verbose dies (SIGSEGV) printing a string counter's values: no
    # counters.verbose.txt
    if [ "$name" != counters ]; then
        mprof-report --verbose "$in" > "$name.verbose.txt"
        cp "$name.verbose.txt" "$here/"
    fi
    mprof-report --debug "$in" | gzip -9n > "$name.debug.txt.gz"
    cp "$name.mlpd" "$name.report.txt" "$name.debug.txt.gz" "$here/"
    # the allocations' backtraces, whole (mprof-report keeps 6 frames of each unless told)
    if [ "$name" = events-bt ]; then
        mprof-report --traces --maxframes=64 --reports=alloc "$in" > "$name.traces.txt"
        cp "$name.traces.txt" "$here/"
    fi
done
