# lib.sh: what the campaigns against other readers share (sourced by fuzz/others/<reader>.sh).
# A campaign is `profcodec fuzz` on the reader (as a program, or a harness of ours around it),
# run under nice in fuzz/others/out/<reader>/ (not checked in), then its findings minimized
# (campaign(), below). Afterwards:
#   - fuzz/others/LEDGER.tsv gets a line: date, commit, reader, version, seconds, runs, runs/s,
#     runs spent confirming and minimizing (not in the seconds), coverage (where measured),
#     findings (distinct, confirmed), load average;
#   - each finding's minimized input, its mutation, its report (the target's output cut to 120
#     lines) and a reproducer that runs `<reader>.sh --repro INPUT` go to
#     fuzz/others/findings/<reader>/<id>/ (checked in).
set -u
others=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$others/../.." && pwd)

# The profcodec to fuzz with: $PROFCODEC, else build/profcodec (make builds it).
pcd_bin() {
    local p=${PROFCODEC:-$root/build/profcodec}
    [ -x "$p" ] || { echo "$p: no profcodec (run make build, or set PROFCODEC)" >&2; exit 2; }
    echo "$p"
}

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# campaign READER VERSION SECONDS -- FUZZ-OPTIONS... -- COMMAND...: `profcodec fuzz -o OUT
# --max-time SECONDS --minimize-runs 0 FUZZ-OPTIONS -- COMMAND` (OUT = out/READER/campaign: an
# earlier campaign there is resumed, and SECONDS counts its time too): the campaign's time goes to
# mutated inputs, each finding only confirmed and told apart from the others. Then the triage, apart
# from the campaign's time: every finding's input as found, replayed (`--replay`) with the same
# options and minimized (out/READER/triage, MINIMIZE_SECONDS per finding, default 600), and its
# reproducer copied to findings/READER/.
campaign() {
    local reader=$1 version=$2 seconds=$3
    shift 4
    local opts=() cmd=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    cmd=("$@")
    local base="$others/out/$reader" pcd
    local out="$base/campaign"
    pcd=$(pcd_bin)
    mkdir -p "$out"
    local load0 rc
    load0=$(load_avg)
    echo "== $reader ($version): profcodec fuzz for ${seconds}s, load $load0"
    nice -n 10 "$pcd" fuzz -o "$out" --max-time "$seconds" --minimize-runs 0 "${opts[@]}" -- "${cmd[@]}" 2>&1 |
        tee "$base/log.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -le 1 ] || { echo "$reader: profcodec fuzz failed (exit $rc)"; return "$rc"; }
    CAMPAIGN_OUT=$out CAMPAIGN_READER=$reader CAMPAIGN_VERSION=$version CAMPAIGN_LOAD="$load0 .. $(load_avg)"
    # the triage: each distinct finding's input as found, minimized
    local found="$base/found" d
    rm -rf "$found" "$base/triage"
    mkdir -p "$found"
    for d in "$out"/findings/*/; do
        [ -d "$d" ] || continue
        cp "$d"/original* "$found/$(basename "$d")$(ls "$d" | sed -n 's/^original//p' | head -1)"
    done
    # (seeds' own options do not apply to a replay)
    local ropts=() skip=0 o
    for o in "${opts[@]}"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case $o in --seeds) skip=1; continue ;; --seeds=*) continue ;; esac
        ropts+=("$o")
    done
    if ls "$found"/* >/dev/null 2>&1; then
        echo "== $reader: minimizing $(ls "$found" | wc -l) finding(s), ${MINIMIZE_SECONDS:-600}s each at most"
        nice -n 10 "$pcd" fuzz --replay "$found" -o "$base/triage" --minimize-time "${MINIMIZE_SECONDS:-600}" \
            --minimize-runs 100000 "${ropts[@]}" -- "${cmd[@]}" 2>&1 | tee "$base/triage.log"
        copy_findings "$reader" "$base/triage"
    fi
}

# The figures of the campaign in $CAMPAIGN_OUT as one ledger line (coverage: $1 or "-").
ledger() {
    local cov=${1:--} st="$CAMPAIGN_OUT/state"
    local runs triage secs n
    runs=$(sed -n 's/^runs //p' "$st")
    triage=$(sed -n 's/^triage_runs //p' "$st")
    secs=$(sed -n 's/^seconds //p' "$st")
    n=$(grep -vc '^#' "$CAMPAIGN_OUT/findings.tsv" 2>/dev/null)
    local tri="${CAMPAIGN_OUT%/campaign}/triage"
    if [ -f "$tri/state" ]; then # the minimizing runs count with the confirming ones
        triage=$((triage + $(sed -n 's/^runs //p' "$tri/state") + $(sed -n 's/^triage_runs //p' "$tri/state")))
        n=$(grep -vc '^#' "$tri/findings.tsv" 2>/dev/null)
    fi
    n=${n:-0}
    local rate
    rate=$(awk -v r="$runs" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? r / s : 0) }')
    [ -f "$others/LEDGER.tsv" ] || printf '# date\tcommit\treader\tversion\tseconds\truns\truns_per_s\ttriage_runs\tcoverage\tfindings\tload\n' >"$others/LEDGER.tsv"
    printf '%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
        "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$CAMPAIGN_READER" "$CAMPAIGN_VERSION" \
        "$secs" "$runs" "$rate" "$triage" "$cov" "$n" "$CAMPAIGN_LOAD" >>"$others/LEDGER.tsv"
    echo "$CAMPAIGN_READER ($CAMPAIGN_VERSION): ${secs}s, $runs runs ($rate/s), $triage more to confirm and minimize," \
        "coverage: $cov, findings: $n, load $CAMPAIGN_LOAD"
}

# Each finding of a folder (the triage's, or a campaign's) into fuzz/others/findings/READER/ID/
# (input, mutation, report cut short, repro.sh running READER.sh --repro). A finding the triage
# replayed keeps the mutation its campaign recorded (campaign/findings/ID/mutation.txt).
copy_findings() {
    local reader=$1 out=$2 d id dst in from
    for d in "$out"/findings/*/; do
        [ -d "$d" ] || continue
        id=$(basename "$d")
        dst="$others/findings/$reader/$id"
        mkdir -p "$dst"
        in=$(ls "$d" | grep '^input' | head -1)
        cp "$d/$in" "$dst/"
        from=$(sed -n 's|^found: .* made from .*/found/\([0-9]*-[^./]*\).*|\1|p' "$d/report.txt")
        if [ -n "$from" ] && [ -f "$others/out/$reader/campaign/findings/$from/mutation.txt" ]; then
            cp "$others/out/$reader/campaign/findings/$from/mutation.txt" "$dst/"
        else
            cp "$d/mutation.txt" "$dst/"
        fi
        awk -v m="$(cat "$dst/mutation.txt")" 'NR <= 120 { if (/^mutation: replayed as it is/) print "mutation: " m; else print }' \
            "$d/report.txt" >"$dst/report.txt"
        [ "$(wc -l <"$d/report.txt")" -gt 120 ] && echo "[... report cut at 120 lines ...]" >>"$dst/report.txt"
        cat >"$dst/repro.sh" <<EOF
#!/bin/sh
# $(sed -n 's/^what: //p' "$d/report.txt")
# runs $reader on the input beside this script (fuzz/others/$reader.sh builds what it needs)
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$here/../../../$reader.sh" --repro "\$here/$in"
EOF
        chmod +x "$dst/repro.sh"
    done
}
