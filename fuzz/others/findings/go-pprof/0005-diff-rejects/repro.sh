#!/bin/sh
# the target rejects a file profcodec accepts (rejected: malformed profile: location id: N has a line with nil function)
# runs go-pprof on the input beside this script (fuzz/others/go-pprof.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../go-pprof.sh" --repro "$here/input.allocs.pprof"
