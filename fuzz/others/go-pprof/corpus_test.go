// corpus_test.go: the statement coverage of Go's pprof parser by a campaign's kept inputs
// (go-pprof.sh runs `go test -cover` with PCD_CORPUS naming folders, colon separated).
package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorpus(t *testing.T) {
	n := 0
	for _, dir := range strings.Split(os.Getenv("PCD_CORPUS"), ":") {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue // folders, side files
			}
			func() {
				defer func() { recover() }() // a finding's panic: counted up to it
				check(data, io.Discard, io.Discard)
			}()
			n++
		}
	}
	t.Logf("%d inputs", n)
}
