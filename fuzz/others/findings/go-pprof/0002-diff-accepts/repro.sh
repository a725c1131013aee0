#!/bin/sh
# the target accepts a file profcodec rejects (offset 0: location.mapping_id: expected the id of a mapping the profile has, found 1)
# runs go-pprof on the input beside this script (fuzz/others/go-pprof.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../go-pprof.sh" --repro "$here/input.block.pprof"
