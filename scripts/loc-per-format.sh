#!/usr/bin/env bash
# loc-per-format.sh: lines of hand-written C (.c and .h files) per format and per shared layer,
# at a git revision, for docs/design.md's table.
# usage: scripts/loc-per-format.sh [REV]   (default HEAD)
#
# Counted: every .c and .h file under src/ and runtime/ (generated/ is the generator's output,
# not hand-written; the HTML viewer's JavaScript and CSS are not C). Each file goes to one row:
#   a format (heph, mojo, mono, moarvm, tachyon)  src/formats/<format>/, or in the flat tree
#                                                 before the layers src/lib/<format>_*
#   cross-format (MOJO <-> Tachyon)               src/formats/xformat/, src/lib/xformat*
#   registry and jobs                             src/pipeline/, src/formats/registry.*,
#                                                 src/formats/detect.*, src/lib/pcd_ext.*
#   writers (shared by an output and an importer) src/writers/
#   I/O (files, gzip, JSON Lines: CLI and Python)  src/io/
#   common (hash, arrays, text)                   src/common/, src/lib/pcd_hmap.*
#   model                                         src/model/
#   outputs                                       src/outputs/
#   fuzz (profcodec fuzz below the CLI)           src/fuzz/
#   mutators (structure-aware, from the schemas)  src/mutator/
#   CLI                                           src/cli/, and src/lib/pcd_{io,gzin,jsonr}.*
#                                                 (CLI-only code that sat in src/lib then)
#   runtime                                       runtime/
# Two numbers per row: all lines (wc -l), and code lines: lines that are neither blank nor
# only comment (/* ... */ and // comments removed by a small scanner that knows strings).
set -eu
rev=${1:-HEAD}
cd "$(dirname "$0")/.."
row_of() {
    case $1 in
    src/formats/xformat/* | src/lib/xformat*) echo "cross-format" ;;
    src/formats/registry.* | src/formats/detect.* | src/pipeline/*) echo "registry and jobs" ;;
    src/writers/*) echo "writers" ;;
    src/io/*) echo "I/O" ;;
    src/formats/*/*) echo "${1#src/formats/}" | cut -d/ -f1 ;;
    src/lib/pcd_ext.*) echo "registry and jobs" ;;
    src/lib/pcd_hmap.*) echo "common" ;;
    src/lib/pcd_io.* | src/lib/pcd_gzin.* | src/lib/pcd_jsonr.*) echo "CLI" ;;
    src/lib/*_*) basename "$1" | cut -d_ -f1 ;;
    src/common/*) echo "common" ;;
    src/model/*) echo "model" ;;
    src/outputs/*) echo "outputs" ;;
    src/fuzz/*) echo "fuzz (profcodec fuzz below the CLI)" ;;
    src/mutator/*) echo "mutators" ;;
    src/cli/*) echo "CLI" ;;
    src/python/*) echo "Python extension" ;;
    runtime/*) echo "runtime" ;;
    *) echo "other" ;;
    esac
}
# code lines of C on stdin: not blank, not only comment
code_lines() {
    awk '
    BEGIN { inc = 0; n = 0 }
    {
        line = $0; out = ""; i = 1; L = length(line); instr = 0; q = ""
        while (i <= L) {
            c = substr(line, i, 1); d = substr(line, i, 2)
            if (inc) { if (d == "*/") { inc = 0; i += 2 } else i++; continue }
            if (instr) {
                out = out c
                if (c == "\\") { out = out substr(line, i + 1, 1); i += 2; continue }
                if (c == q) instr = 0
                i++; continue
            }
            if (d == "/*") { inc = 1; i += 2; continue }
            if (d == "//") break
            if (c == "\"" || c == "\047") { instr = 1; q = c }
            out = out c; i++
        }
        if (out ~ /[^ \t]/) n++
    }
    END { print n }'
}
declare -A lines code
while read -r path; do
    case $path in *.c | *.h) ;; *) continue ;; esac
    case $path in src/* | runtime/*) ;; *) continue ;; esac
    r=$(row_of "$path")
    text=$(git show "$rev:$path")
    l=$(printf '%s\n' "$text" | wc -l)
    k=$(printf '%s\n' "$text" | code_lines)
    lines[$r]=$(( ${lines[$r]:-0} + l ))
    code[$r]=$(( ${code[$r]:-0} + k ))
done < <(git ls-tree -r --name-only "$rev")
echo "| $(git log -1 --format='%h' "$rev") | lines | code lines |"
echo "|---|---|---|"
total=0 total_code=0
for r in heph mojo mono moarvm tachyon pprof "cross-format" "registry and jobs" writers common model outputs I/O "fuzz (profcodec fuzz below the CLI)" mutators CLI "Python extension" runtime other; do
    [ -n "${lines[$r]:-}" ] || { [ "$r" = other ] && continue; echo "| $r | 0 | 0 |"; continue; }
    echo "| $r | ${lines[$r]} | ${code[$r]} |"
    total=$((total + lines[$r])) total_code=$((total_code + code[$r]))
done
echo "| total | $total | $total_code |"
