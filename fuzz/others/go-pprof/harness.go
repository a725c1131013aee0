// harness.go: Go's pprof parser (github.com/google/pprof/profile, as vendored in Go's own tree)
// run on one file, for `profcodec fuzz` (fuzz/others/go-pprof.sh builds it).
//
// It reads the file with profile.ParseData, as `go tool pprof` does (gzip, protobuf, the legacy
// text forms, then CheckValid). Exit 1 and one line on standard error: the parser rejected the
// file. Exit 0: accepted; standard output has the totals profcodec compares with its own
// ("samples N", "total TYPE/UNIT V" per sample type). The totals are summed as profcodec's model
// sums amounts: negative values (a difference of profiles) count as 0, and a sum stops at 2^64-1
// instead of wrapping; otherwise the two would differ by design. Then what pprof's tools do with every
// profile they load: write it, read it back, merge it with itself, compact it. Exit 3: a
// profile the parser accepted could not be written and read back the same (a finding). A
// panic exits 2 with Go's trace (a finding).
package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/google/pprof/profile"
)

// check reads data as the tools do; it returns the exit status, writing the totals to out and
// the reason for a rejection or a failure to errw.
func check(data []byte, out, errw io.Writer) int {
	p, err := profile.ParseData(data)
	if err != nil {
		fmt.Fprintln(errw, "rejected:", err)
		return 1
	}
	fmt.Fprintf(out, "samples %d\n", len(p.Sample))
	for i, st := range p.SampleType {
		var sum uint64
		for _, s := range p.Sample {
			if i < len(s.Value) && s.Value[i] > 0 {
				if v := uint64(s.Value[i]); sum+v < sum {
					sum = math.MaxUint64
				} else {
					sum += v
				}
			}
		}
		fmt.Fprintf(out, "total %s/%s %d\n", st.Type, st.Unit, sum)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		fmt.Fprintln(errw, "write:", err)
		return 3
	}
	q, err := profile.ParseData(buf.Bytes())
	if err != nil {
		fmt.Fprintln(errw, "an accepted profile, written by Write, is rejected:", err)
		return 3
	}
	if len(q.Sample) != len(p.Sample) {
		fmt.Fprintf(errw, "written and read back: %d samples, was %d\n", len(q.Sample), len(p.Sample))
		return 3
	}
	if _, err := profile.Merge([]*profile.Profile{p, q}); err != nil {
		fmt.Fprintln(errw, "merge with itself:", err)
		return 3
	}
	p.Compact()
	return 0
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: harness FILE")
		os.Exit(64)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(64)
	}
	os.Exit(check(data, os.Stdout, os.Stderr))
}
