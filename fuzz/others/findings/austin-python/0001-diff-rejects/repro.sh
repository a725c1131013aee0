#!/bin/sh
# the target rejects a file profcodec accepts (rejected: Invalid byte sequence at offset N (last read: N))
# runs austin-python on the input beside this script (fuzz/others/austin-python.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../austin-python.sh" --repro "$here/input.mojo"
