# lib.sh: what the campaigns against other readers share (sourced by fuzz/others/<reader>.sh).
# A campaign is `profcodec fuzz` on the reader (as a program, or a harness of ours around it),
# run under nice in fuzz/others/out/<reader>/ (not checked in). Afterwards:
#   - fuzz/others/LEDGER.tsv gets a line: date, commit, reader, version, seconds, runs, runs/s,
#     runs spent confirming and minimizing, coverage (where measured), findings, load average;
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

# campaign READER VERSION SECONDS REPRO_HINT -- FUZZ-ARGS...: runs `profcodec fuzz -o OUT
# --max-time SECONDS FUZZ-ARGS` (OUT = out/READER/campaign: an earlier campaign there is resumed,
# and SECONDS counts its time too), then the ledger line and the findings' copies. COVERAGE (a
# text, if the caller measures it afterwards) is added by ledger_coverage.
campaign() {
    local reader=$1 version=$2 seconds=$3
    shift 4
    local out="$others/out/$reader/campaign" pcd
    pcd=$(pcd_bin)
    mkdir -p "$out"
    local load0 t0 rc
    load0=$(load_avg)
    t0=$(date +%s)
    echo "== $reader ($version): profcodec fuzz for ${seconds}s, load $load0"
    nice -n 10 "$pcd" fuzz -o "$out" --max-time "$seconds" "$@" 2>&1 | tee "$others/out/$reader/log.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -le 1 ] || { echo "$reader: profcodec fuzz failed (exit $rc)"; return "$rc"; }
    CAMPAIGN_OUT=$out CAMPAIGN_READER=$reader CAMPAIGN_VERSION=$version CAMPAIGN_LOAD="$load0 .. $(load_avg)"
    copy_findings "$reader" "$out"
}

# The figures of the campaign in $CAMPAIGN_OUT as one ledger line (coverage: $1 or "-").
ledger() {
    local cov=${1:--} st="$CAMPAIGN_OUT/state"
    local runs triage secs n
    runs=$(sed -n 's/^runs //p' "$st")
    triage=$(sed -n 's/^triage_runs //p' "$st")
    secs=$(sed -n 's/^seconds //p' "$st")
    n=$(grep -vc '^#' "$CAMPAIGN_OUT/findings.tsv" 2>/dev/null || echo 0)
    local rate
    rate=$(awk -v r="$runs" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? r / s : 0) }')
    [ -f "$others/LEDGER.tsv" ] || printf '# date\tcommit\treader\tversion\tseconds\truns\truns_per_s\ttriage_runs\tcoverage\tfindings\tload\n' >"$others/LEDGER.tsv"
    printf '%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
        "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$CAMPAIGN_READER" "$CAMPAIGN_VERSION" \
        "$secs" "$runs" "$rate" "$triage" "$cov" "$n" "$CAMPAIGN_LOAD" >>"$others/LEDGER.tsv"
    echo "$CAMPAIGN_READER ($CAMPAIGN_VERSION): ${secs}s, $runs runs ($rate/s), $triage more to confirm and minimize," \
        "coverage: $cov, findings: $n, load $CAMPAIGN_LOAD"
}

# Each finding of a campaign folder into fuzz/others/findings/READER/ID/ (input, mutation,
# report cut short, repro.sh running READER.sh --repro).
copy_findings() {
    local reader=$1 out=$2 d id dst in
    for d in "$out"/findings/*/; do
        [ -d "$d" ] || continue
        id=$(basename "$d")
        dst="$others/findings/$reader/$id"
        mkdir -p "$dst"
        in=$(ls "$d" | grep '^input' | head -1)
        cp "$d/$in" "$d/mutation.txt" "$dst/"
        awk 'NR <= 120' "$d/report.txt" >"$dst/report.txt"
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
