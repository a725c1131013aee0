#!/bin/sh
# the target accepts a file profcodec rejects (offset 12: sample.label.num_unit: expected an index into the string table (below its size), found 65536)
# runs go-pprof on the input beside this script (fuzz/others/go-pprof.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../go-pprof.sh" --repro "$here/input.cpu.pprof"
