#!/bin/sh
# no end within 10 s
# runs mprof-report on the input beside this script (fuzz/others/mprof-report.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../mprof-report.sh" --repro "$here/input.mlpd"
