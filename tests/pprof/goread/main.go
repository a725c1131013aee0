// goread: what Go's own pprof parser (github.com/google/pprof/profile, as vendored by Go 1.19
// and used by `go tool pprof`) reads from a pprof file, written as profcodec's collapsed output
// would show it: for every sample type, every distinct stack line with its total.
//
// Stacks are written as `profcodec convert --to collapsed --dialect default` writes them
// (docs/pprof.md): a thread prefix from the labels pid, iid, tid (numbers), tid_text, thread and
// process (texts); frames outermost first, a Location's Lines innermost first (the last is the
// caller the others are inlined into); a frame "function (file:line)" (basename of the file, no
// line when 0, the function alone without a file); a frame without a function name and a file
// named as go tool pprof names it (internal/graph's NodeInfo.NameComponents): the address as 16
// hex digits when not 0, then "[base of the mapping's file]", or "<unknown>" without a file.
// ';' in a name is written ':', and a line break a space. Lines of the same text are summed,
// lines whose sum is 0 left out.
//
// Output: JSON {"types":[[type,unit]...],"default":name,"totals":[{stack:total}...]}, each stack
// as the hex of its bytes (names need not be UTF-8), or {"error":text} when Go does not read the
// file.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

func esc(s string) string {
	return strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(s)
}

func base(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// nameless: go tool pprof's name of a frame that has no function name and no file.
func nameless(l *profile.Location) string {
	var parts []string
	if l.Address != 0 {
		parts = append(parts, fmt.Sprintf("%016x", l.Address))
	}
	if l.Mapping != nil && l.Mapping.File != "" {
		parts = append(parts, "["+filepath.Base(l.Mapping.File)+"]")
	} else {
		parts = append(parts, "<unknown>")
	}
	return strings.Join(parts, " ")
}

func frame(l *profile.Location, ln *profile.Line) string {
	fn, file := "", ""
	if ln != nil && ln.Function != nil {
		fn, file = ln.Function.Name, ln.Function.Filename
	}
	if fn == "" && file == "" {
		return esc(nameless(l))
	}
	if file == "" {
		return esc(fn)
	}
	s := esc(fn) + " (" + esc(base(file))
	if ln.Line != 0 {
		s += ":" + strconv.FormatInt(ln.Line, 10)
	}
	return s + ")"
}

// The thread a sample is on, as profcodec's pprof importer reads it from the labels (the last
// value of a key counts), and its collapsed prefix; ok false for a blank thread.
func thread(s *profile.Sample) (string, bool) {
	num := func(k string) (int64, bool) {
		if v := s.NumLabel[k]; len(v) > 0 {
			return v[len(v)-1], true
		}
		return 0, false
	}
	str := func(k string) (string, bool) {
		if v := s.Label[k]; len(v) > 0 {
			return v[len(v)-1], true
		}
		return "", false
	}
	pid, hasPid := num("pid")
	iid, hasIid := num("iid")
	tid, hasTid := num("tid")
	text, hasText := str("tid_text")
	name, hasName := str("thread")
	proc, hasProc := str("process")
	if !hasPid && !hasIid && !hasTid && !hasText && !hasName && !hasProc {
		return "", false
	}
	if hasPid || hasTid || hasText {
		var parts []string
		if hasPid {
			parts = append(parts, "P"+strconv.FormatInt(pid, 10))
		}
		if hasTid || hasText {
			t := "T"
			if hasIid && iid >= 0 {
				t += strconv.FormatInt(iid, 10) + ":"
			}
			if hasText {
				t += esc(text)
			} else {
				t += strconv.FormatUint(uint64(tid), 10)
			}
			parts = append(parts, t)
		}
		return strings.Join(parts, ";"), true
	}
	if hasName {
		return esc(name), true
	}
	return esc(proc), true
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	f, err := os.Open(os.Args[1])
	if err != nil {
		enc.Encode(map[string]string{"error": err.Error()})
		return
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		enc.Encode(map[string]string{"error": err.Error()})
		return
	}
	out := struct {
		Types   [][2]string        `json:"types"`
		Default string             `json:"default"`
		Totals  []map[string]int64 `json:"totals"`
	}{Default: p.DefaultSampleType}
	for _, st := range p.SampleType {
		out.Types = append(out.Types, [2]string{st.Type, st.Unit})
		out.Totals = append(out.Totals, map[string]int64{})
	}
	for _, s := range p.Sample {
		var frames []string
		if pre, ok := thread(s); ok {
			frames = append(frames, pre)
		}
		for i := len(s.Location) - 1; i >= 0; i-- {
			l := s.Location[i]
			if len(l.Line) == 0 {
				frames = append(frames, frame(l, nil))
			}
			for k := len(l.Line) - 1; k >= 0; k-- {
				frames = append(frames, frame(l, &l.Line[k]))
			}
		}
		key := hex.EncodeToString([]byte(strings.Join(frames, ";")))
		for t, v := range s.Value {
			out.Totals[t][key] += v
		}
	}
	for _, m := range out.Totals {
		for k, v := range m {
			if v == 0 {
				delete(m, k)
			}
		}
	}
	enc.Encode(out)
}
