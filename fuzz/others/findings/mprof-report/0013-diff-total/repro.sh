#!/bin/sh
# total alloc-bytes: the target printed none (profcodec: 1)
# runs mprof-report on the input beside this script (fuzz/others/mprof-report.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../mprof-report.sh" --repro "$here/input.mlpd"
