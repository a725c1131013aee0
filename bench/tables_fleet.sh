#!/bin/bash
# bench/tables_fleet.sh: a fleet's profiles into one query (issue 27; docs/tables.md, "From
# 10,000 files to one query"), measured: N copies of one real profile converted with
# `xargs -P JOBS` into a directory of tables each, then one DuckDB query over all of them
# (DuckDB's Node.js API from tests/web, as the tests use it). Prints wall and CPU seconds of
# each step, the rows and bytes, and the machine's load.
# usage: bench/tables_fleet.sh [PROFCODEC] [FILE] [N] [JOBS]   (make bench-tables)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
P=${1:-$root/build/profcodec}
F=${2:-}; F=${F:-$root/../shared/corpus/pprof/other-writers/java_async-profiler_jpprof.pb.gz}
N=${3:-1000}
J=${4:-2}
FLEET_OPTS=${FLEET_OPTS:-}   # e.g. "--compression gzip"
GZ=""
case "$FLEET_OPTS" in *gzip*) GZ=.gz ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/pcd-fleet.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/tables"
ext=${F##*/}
for i in $(seq -w 1 "$N"); do cp "$F" "$work/in/$i-$ext"; done
echo "fleet: ${FLEET_OPTS:+$FLEET_OPTS, }$N copies of $F ($(stat -c %s "$F") bytes), xargs -P$J, load $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$work"
/usr/bin/time -f "%e %U %S" -o conv.time sh -c \
    "ls in | xargs -P$J -I{} '$P' -q convert in/{} --to table $FLEET_OPTS -o tables/{}"
read -r cw cu cs < conv.time
bytes=$(du -sb tables | cut -f1)
echo "convert: $N files in $cw s wall, $(echo "$cu + $cs" | bc) s CPU; $((bytes / 1024 / 1024)) MiB of tables"
cat > q.mjs <<JS
import { DuckDBInstance } from '$root/tests/web/node_modules/@duckdb/node-api/lib/index.js';
const db = await (await DuckDBInstance.create(':memory:')).connect();
const t0 = performance.now();
const r = await db.runAndReadAll(\`
  SELECT f.function, sum(s.value) AS flat, count(DISTINCT s.profile) AS files, count(*) AS rows
  FROM read_ndjson_auto('tables/*/samples.ndjson${GZ}') s
  JOIN read_ndjson_auto('tables/*/stacks.ndjson${GZ}') st ON st.profile = s.profile AND st.id = s.stack
  JOIN read_ndjson_auto('tables/*/frames.ndjson${GZ}') f ON f.profile = st.profile AND f.id = st.frame
  GROUP BY f.function ORDER BY flat DESC LIMIT 5\`);
const rows = r.getRowObjectsJson();
console.log('query: ' + ((performance.now() - t0) / 1000).toFixed(2) + ' s wall; the top function: ' + rows[0].function +
            ' flat ' + rows[0].flat + ' in ' + rows[0].files + ' files, ' + rows.reduce((a, x) => a + Number(x.rows), 0) + ' rows of the 5 first');
JS
/usr/bin/time -f "%e %U %S %M" -o q.time node q.mjs
read -r qw qu qs qm < q.time
echo "query (node + DuckDB, one process): $qw s wall, $(echo "$qu + $qs" | bc) s CPU, peak $((qm / 1024)) MiB"
one=$("$P" top "$F" --json -n 1 | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["rows"][0]; print(r["name"], r["flat"])')
echo "check: top of one copy: $one (the query's flat is N times it)"
