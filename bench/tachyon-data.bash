# bench/tachyon-data.bash: the big Tachyon inputs of make bench (bench/data/, not checked in), for
# the sections that use them (tachyon.sh, python.sh): sourced, with $P $data $root from
# scripts/bench.sh. tachyon_build COMPRESSION OUTPUT makes one when it is not there yet.
tseed="$root/tests/data/tachyon/workload_all_zstd.bin"  # CPython 3.15.2, -a -r 2khz: 184858 samples
tnone="$data/tachyon-200m-none.bin"
tzstd="$data/tachyon-200m-zstd.bin"
tcopies=${TACHYON_COPIES:-225}
# The big profiles: the real samples (profcodec convert --to samples), in time order, repeated
# with each copy's times stretched by one of 11 factors (so deltas differ as in real runs),
# written by profcodec's CPython-choice writer (encode --from samples), raw and zstd.
tachyon_build() { # compression output
    [ -f "$2" ] && return 0
    echo "bench: building $2 ($tcopies copies of $(basename "$tseed")'s samples)"
    local txt="$data/tachyon-seed.samples.txt"
    "$P" -q convert --to samples "$tseed" -o "$txt"
    {
        grep -v '^S \|^# stats\|^# replayed' "$txt" | sed "s/^# info compression_type=.*/# info compression_type=$1/"
        grep '^S ' "$txt" | sort -s -n -k5,5 | awk -v K="$tcopies" '{ line[NR] = $0; ts[NR] = $5 }
            END {
                t0 = ts[1]; span = ts[NR] - t0 + 1000; base = t0
                for (k = 0; k < K; k++) {
                    f = 1 + ((k % 11) - 5) * 0.01
                    for (i = 1; i <= NR; i++) { $0 = line[i]; $5 = sprintf("%.0f", base + int((ts[i] - t0) * f)); print }
                    base += int(span * 1.06) + 1000
                }
            }'
    } >"$data/tachyon-big.samples.txt"
    "$P" -q encode --from samples "$data/tachyon-big.samples.txt" -o "$2.part" && mv "$2.part" "$2"
    rm -f "$data/tachyon-big.samples.txt" "$txt"
}
