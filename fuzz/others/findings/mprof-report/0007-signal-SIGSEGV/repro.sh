#!/bin/sh
# killed by SIGSEGV (in 0x000055555555f0b9)
# runs mprof-report on the input beside this script (fuzz/others/mprof-report.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../mprof-report.sh" --repro "$here/input.mlpd"
