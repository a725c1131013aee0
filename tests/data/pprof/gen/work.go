// work.go: writes the Go profiles under tests/data/pprof (see ../SOURCE.md) with Go 1.19's
// runtime/pprof: a CPU profile whose samples carry labels (pprof.Do), the allocation profile,
// the goroutine profile, and the mutex and block profiles, while goroutines recurse, compress,
// parse JSON, allocate, contend on a lock and wait on channels. Usage:
//
//	go build -trimpath -o work work.go && ./work OUTDIR MILLISECONDS
package main

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// walk recurses to a depth that depends on n, so that stacks have different lengths.
func walk(n, depth int) int {
	if depth == 0 {
		return n
	}
	if n%3 == 0 {
		return walk(n/3+1, depth-1) + 1
	}
	return walk(n+depth, depth-1)
}

func squeeze(rounds int) int {
	var buf bytes.Buffer
	data := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog "), 200)
	total := 0
	for i := 0; i < rounds; i++ {
		buf.Reset()
		w, _ := flate.NewWriter(&buf, flate.BestCompression)
		w.Write(data)
		w.Close()
		total += buf.Len()
	}
	return total
}

type record struct {
	Name  string            `json:"name"`
	Tags  map[string]string `json:"tags"`
	Score float64           `json:"score"`
}

func parse(rounds int) int {
	n := 0
	for i := 0; i < rounds; i++ {
		r := record{Name: "r" + strconv.Itoa(i), Tags: map[string]string{"k": strconv.Itoa(i % 7)}, Score: float64(i)}
		b, _ := json.Marshal(r)
		var back record
		json.Unmarshal(b, &back)
		n += len(back.Name)
	}
	return n
}

var keep [][]byte

func churn(rounds int) {
	for i := 0; i < rounds; i++ {
		keep = append(keep, make([]byte, 64<<(i%8)))
		if len(keep) > 2000 {
			keep = keep[:0]
		}
	}
}

func contend(mu *sync.Mutex, until time.Time) int {
	n := 0
	for time.Now().Before(until) {
		mu.Lock()
		for i := 0; i < 2000; i++ {
			n += i
		}
		mu.Unlock()
	}
	return n
}

func main() {
	dir, ms := os.Args[1], os.Args[2]
	d, _ := strconv.Atoi(ms)
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	cpu, _ := os.Create(filepath.Join(dir, "labels.cpu.pprof"))
	pprof.StartCPUProfile(cpu)
	until := time.Now().Add(time.Duration(d) * time.Millisecond)
	var wg sync.WaitGroup
	var mu sync.Mutex
	jobs := []struct {
		name string
		run  func()
	}{
		{"walk", func() {
			for time.Now().Before(until) {
				for i := 0; i < 1000; i++ {
					walk(i, 20+i%30)
				}
			}
		}},
		{"squeeze", func() {
			for time.Now().Before(until) {
				squeeze(4)
			}
		}},
		{"parse", func() {
			for time.Now().Before(until) {
				parse(200)
			}
		}},
		{"churn", func() {
			for time.Now().Before(until) {
				churn(500)
			}
		}},
		{"contend", func() { contend(&mu, until) }},
		{"contend", func() { contend(&mu, until) }},
	}
	ch := make(chan int)
	for i, j := range jobs {
		wg.Add(1)
		go func(i int, name string, run func()) {
			defer wg.Done()
			labels := pprof.Labels("job", name, "worker", strconv.Itoa(i))
			pprof.Do(context.Background(), labels, func(context.Context) { run() })
		}(i, j.name, j.run)
	}
	go func() {
		for time.Now().Before(until) {
			ch <- 1
			time.Sleep(time.Millisecond)
		}
		close(ch)
	}()
	for range ch {
	}
	wg.Wait()
	pprof.StopCPUProfile()
	cpu.Close()
	runtime.GC()
	for _, p := range []string{"allocs", "goroutine", "mutex", "block"} {
		f, _ := os.Create(filepath.Join(dir, "labels."+p+".pprof"))
		pprof.Lookup(p).WriteTo(f, 0)
		f.Close()
	}
}
