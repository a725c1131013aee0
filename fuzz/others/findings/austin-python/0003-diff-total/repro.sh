#!/bin/sh
# total memory: the target says 2134016, profcodec 1359872
# runs austin-python on the input beside this script (fuzz/others/austin-python.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../austin-python.sh" --repro "$here/input.mojo"
