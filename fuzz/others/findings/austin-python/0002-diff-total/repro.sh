#!/bin/sh
# total time: the target says 15, profcodec 0
# runs austin-python on the input beside this script (fuzz/others/austin-python.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../austin-python.sh" --repro "$here/input.mojo"
