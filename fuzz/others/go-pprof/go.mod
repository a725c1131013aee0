module profcodec.example/pprofharness

go 1.19

require github.com/google/pprof v0.0.0

// the parser's source is Go's own copy (golang-1.19-src); go-pprof.sh copies it beside the
// harness at build time, under pprof/ (nothing of it is checked in)
replace github.com/google/pprof => ./pprof
