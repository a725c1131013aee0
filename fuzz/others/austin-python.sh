#!/usr/bin/env bash
# austin-python.sh: austin-python's MOJO reader (austin.format.mojo.MojoStreamReader), through a
# harness of ours (austin-python/harness.py) run by Debian's python3. austin-python is not in
# Debian and not installed: AUSTIN_PYTHON names a checkout of it (its reader needs nothing beyond
# the standard library; nothing of it is checked in here). Findings: exceptions other than the
# reader's own MojoParseError and ValueError, hangs, memory blow-ups, and disagreements with
# profcodec on the verdict, the number of samples and the time and memory totals (--diff).
# Coverage: afterwards, the lines of austin/format/mojo.py the campaign's kept inputs run,
# against the seeds alone, when Debian's python3-coverage is installed.
# usage: AUSTIN_PYTHON=DIR austin-python.sh SECONDS        a campaign (make fuzz-others)
#        AUSTIN_PYTHON=DIR austin-python.sh --repro FILE   the harness on one file
set -u
. "$(dirname "$0")/lib.sh"
ap=${AUSTIN_PYTHON:-}
if [ -z "$ap" ] || [ ! -f "$ap/austin/format/mojo.py" ]; then
    echo "austin-python: set AUSTIN_PYTHON to a checkout of github.com/P403n1x87/austin-python (not in Debian)"
    exit 77
fi
py=/usr/bin/python3
export PYTHONPATH="$ap${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
if [ "${1:-}" = --repro ]; then
    exec "$py" "$others/austin-python/harness.py" "$2"
fi
seconds=${1:-1800}
rev=$(git -C "$ap" rev-parse --short HEAD 2>/dev/null || echo '?')
ver=$(git -C "$ap" describe --tags 2>/dev/null || echo "$rev")
version="austin-python $ver ($rev), $("$py" --version)"
seeds="$others/out/austin-python/seeds"
mkdir -p "$seeds"
# valid files of MOJO 1-3 (profcodec reads no MOJO 4 yet)
cp "$root"/tests/data/mojo/v3_basic.mojo "$root"/tests/data/mojo/v3_full.mojo "$root"/tests/data/mojo/v3_multiproc.mojo \
    "$root"/tests/data/mojo/v2_columns.mojo "$root"/tests/data/mojo/v1_early_defs.mojo "$seeds/"
for f in "$root"/../shared/corpus/mojo/*.mojo; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 150000 ] && cp "$f" "$seeds/"; done
campaign austin-python "$version" "$seconds" -- --seeds "$seeds" --diff --python-tracebacks --timeout 30 \
    --total '@samples=^samples ([0-9]+)$' --total 'time=^total time ([0-9]+)$' \
    --total 'memory=^total memory ([0-9]+)$' --total 'memory-released=^total memory-released ([0-9]+)$' \
    -- "$py" "$others/austin-python/harness.py" {} || exit $?
out="$others/out/austin-python/campaign"
cov=-
if "$py" -c 'import coverage' 2>/dev/null; then
    measure() { # folders: "N%" of austin/format/mojo.py's lines
        local d=$(mktemp -d) f
        for dir in "$@"; do
            for f in "$dir"/*; do
                [ -f "$f" ] || continue
                (cd "$d" && "$py" -m coverage run -a --include="*/austin/format/mojo.py" "$others/austin-python/harness.py" "$f" >/dev/null 2>&1)
            done
        done
        (cd "$d" && "$py" -m coverage report 2>/dev/null | awk '/mojo.py/ {print $NF}')
        rm -rf "$d"
    }
    c_seeds=$(measure "$seeds")
    c_all=$(measure "$seeds" "$out/queue" "$out"/findings/*)
    cov="${c_all:-?} of austin/format/mojo.py's lines by the kept inputs (seeds alone: ${c_seeds:-?})"
fi
ledger "$cov"
