#!/bin/sh
# the target rejects a file profcodec accepts (rejected: parsing profile: concatenated profiles detected)
# runs go-pprof on the input beside this script (fuzz/others/go-pprof.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../go-pprof.sh" --repro "$here/input.mutex.pprof"
