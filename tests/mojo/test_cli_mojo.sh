#!/usr/bin/env bash
# test_cli_mojo.sh: the profcodec CLI on Austin MOJO files: every corpus file validates,
# round-trips through dump | encode, and converts to Austin's text byte for byte like
# austin-python 1.7.1's mojo2austin (2.2.0's for version 4 and --dialect austin2); collapsed and
# speedscope output; the austin importer; version 4 (repeats, tasks, --to mojo --version 4);
# version 5, truncation and undefined keys; stdin.
# usage: test_cli_mojo.sh PROFCODEC TESTDATA CORPUS WORKDIR
set -u
P=$1 DATA=$2 CORPUS=$3 W=$4
mkdir -p "$W"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # expected-rc description command...
    local want=$1 what=$2; shift 2
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else bad "$what: exit $rc, wanted $want"; sed 's/^/    /' "$W/err" | head -5; fi
}
same() { # file file description
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($(cmp "$1" "$2" 2>&1 | head -1))"; fi
}

expect_rc 0 "formats" "$P" formats
for v in 1 2 3 4; do grep -q "^mojo  *$v .*convert to: austin collapsed speedscope" "$W/out" && ok "formats lists mojo $v" || bad "formats lists mojo $v"; done
expect_rc 0 "convert --help" "$P" convert --help
sed -n '/^outputs (--to):/,/^inputs (rows)/p' "$W/out" >"$W/help-outputs"
for t in austin collapsed speedscope chrome html svg mojo tachyon pprof; do
    [ "$(grep -c "^  $t  " "$W/help-outputs")" = 1 ] && ok "convert --help describes --to $t once" || bad "convert --help: --to $t $(grep -c "^  $t  " "$W/help-outputs") times"
done

# ---- the small files of tests/data ----------------------------------------------------------
D="$DATA/mojo"
for f in "$D"/*.mojo; do
    n=$(basename "$f" .mojo)
    case $n in
    v3_truncated*|*_unsupported) continue ;;
    v3_undefined) ;;
    *) expect_rc 0 "validate $n" "$P" validate "$f" ;;
    esac
    expect_rc 0 "dump $n" "$P" dump "$f" -o "$W/$n.jsonl"
    expect_rc 0 "encode $n" "$P" encode "$W/$n.jsonl" -o "$W/$n.mojo"
    same "$f" "$W/$n.mojo" "dump|encode identical: $n"
    if [ -f "$D/$n.austin.txt" ]; then
        expect_rc 0 "convert --to austin $n" "$P" convert --to austin "$f" -o "$W/$n.txt"
        same "$D/$n.austin.txt" "$W/$n.txt" "austin text as expected: $n"
    fi
    expect_rc 0 "info $n" "$P" info "$f"
    expect_rc 0 "info --json $n" "$P" info --json "$f"
done

# definitions before the first stack: a warning, an error only with --strict
expect_rc 0 "validate v1_early_defs" "$P" validate "$D/v1_early_defs.mojo"
grep -q "warning: offset 42: string: expected a stack event before it" "$W/err" && ok "early definitions: a warning" || bad "early definitions warning: $(cat "$W/err")"
expect_rc 1 "validate --strict v1_early_defs" "$P" validate --strict "$D/v1_early_defs.mojo"

# undefined keys: errors with offsets and paths; convert renders them and says so
expect_rc 1 "validate v3_undefined" "$P" validate "$D/v3_undefined.mojo"
grep -q "v3_undefined.mojo: offset 27: frame.scope: expected a string key defined in this process, found 3" "$W/err" &&
    grep -q "offset 37: frame_ref.key: expected a frame key defined in this process, found 10" "$W/err" &&
    grep -q "offset 46: frame_ref.key: expected a frame key defined in this process, found 9" "$W/err" &&
    ok "undefined keys reported with offsets" || bad "undefined keys: $(cat "$W/err")"
expect_rc 0 "convert v3_undefined" "$P" convert --to austin "$D/v3_undefined.mojo" -o "$W/u.txt"
grep -q "warning: 1 references to undefined string keys and 2 to undefined frame keys" "$W/err" && ok "convert warns about undefined keys" || bad "convert warning: $(cat "$W/err")"

# version 4: repeats as austin-python 2.2.0 expands them, its text, tasks, --to mojo --version 4
[ "$("$P" convert --to austin "$D/v4_repeat.mojo" | sha256sum | cut -c1-64)" = "$(cat "$D/v4_repeat.austin.sha256")" ] &&
    ok "v4_repeat: austin-python 2.2.0's text (its digest)" || bad "v4_repeat: the text differs from austin-python 2.2.0's"
expect_rc 0 "info v4_repeat" "$P" info "$D/v4_repeat.mojo"
grep -q "records:     6589 (metadata 9, stack 1708, string 8, frame 20, frame_ref 2163, time 1708, stack_repeat 973)" "$W/out" &&
    grep -q "repeats:     973 samples" "$W/out" && ok "v4_repeat: the events NOTES-mojo-v4.md counts" || bad "v4_repeat info: $(cat "$W/out")"
expect_rc 0 "--dialect austin of v4_native" "$P" convert --to austin --dialect austin "$D/v4_native.mojo" -o "$W/n1.txt"
same "$D/v4_native.austin1.txt" "$W/n1.txt" "v4_native in austin-python 1.7.1's text"
expect_rc 0 "collapsed v4_tasks" "$P" convert --to collapsed "$D/v4_tasks.mojo" -o "$W/tc.txt"
same "$D/v4_tasks.collapsed.txt" "$W/tc.txt" "v4_tasks: the tasks as lanes (collapsed)"
expect_rc 0 "austin v4_tasks" "$P" convert --to austin "$D/v4_tasks.mojo" -o "$W/ta.txt"
grep -q "warning: 3 samples of asyncio tasks left out (Austin's text has no tasks)" "$W/err" && ok "austin text says it leaves tasks out" || bad "austin tasks warning: $(cat "$W/err")"
expect_rc 0 "info v4_tasks" "$P" info "$D/v4_tasks.mojo"
grep -q "tasks:       3 asyncio tasks in 6 task stacks, 3 waiter edges" "$W/out" && ok "info counts the tasks" || bad "info tasks: $(cat "$W/out")"
# --to mojo --version 4: the same text and lanes back, repeats where Austin 4 writes them
for n in v4_repeat v4_native v4_tasks; do
    expect_rc 0 "--to mojo --version 4 $n" "$P" convert --to mojo --version 4 "$D/$n.mojo" -o "$W/$n.v4.mojo"
    expect_rc 0 "validate --strict its output" "$P" validate --strict "$W/$n.v4.mojo"
    "$P" convert --to austin "$D/$n.mojo" -o "$W/$n.a.txt" 2>/dev/null
    "$P" convert --to austin "$W/$n.v4.mojo" -o "$W/$n.b.txt" 2>/dev/null
    same "$W/$n.a.txt" "$W/$n.b.txt" "$n -> MOJO 4 -> austin text unchanged"
    "$P" convert --to collapsed --dialect default "$D/$n.mojo" | sort >"$W/$n.a.col"
    "$P" convert --to collapsed --dialect default "$W/$n.v4.mojo" | sort >"$W/$n.b.col"
    same "$W/$n.a.col" "$W/$n.b.col" "$n -> MOJO 4: the same stacks, tasks and values"
done
"$P" dump "$D/v4_repeat.mojo" | awk '/"_kind":"stack"/{n++} /"_kind":"stack_repeat"/{print n}' >"$W/rep.a"
"$P" dump "$W/v4_repeat.v4.mojo" | awk '/"_kind":"stack"/{n++} /"_kind":"stack_repeat"/{print n}' >"$W/rep.b"
[ "$(wc -l <"$W/rep.a")" = 973 ] && [ -z "$(comm -23 <(sort "$W/rep.a") <(sort "$W/rep.b"))" ] && [ "$(wc -l <"$W/rep.b")" = 1193 ] &&
    ok "--version 4 repeats every stack Austin repeated (973), and the 220 more whose stacks are the same" ||
    bad "repeats: $(wc -l <"$W/rep.a") in Austin's file, $(wc -l <"$W/rep.b") written, $(comm -23 <(sort "$W/rep.a") <(sort "$W/rep.b") | wc -l) of Austin's missing"
[ "$("$P" dump "$W/v4_tasks.v4.mojo" | grep -c '"_kind":"task_waiter"')" = 3 ] && ok "task waiters written back" || bad "task waiters: $("$P" dump "$W/v4_tasks.v4.mojo" | grep -c task_waiter)"
expect_rc 0 "--to mojo (3) of v4_tasks" "$P" convert --to mojo "$D/v4_tasks.mojo" -o "$W/t3.mojo"
grep -q "warning: 3 samples of asyncio tasks left out (MOJO 3 has no tasks: --version 4)" "$W/err" && ok "MOJO 3 says it leaves tasks out" || bad "mojo 3 tasks: $(cat "$W/err")"
expect_rc 2 "--version 5" "$P" convert --to mojo --version 5 "$D/v3_full.mojo" -o "$W/v5.mojo"
grep -q "writes MOJO 3 or 4" "$W/err" && ok "--version 5 refused" || bad "--version 5: $(cat "$W/err")"

# version 5 and damage
expect_rc 1 "validate v5" "$P" validate "$D/v5_unsupported.mojo"
grep -q "unsupported Austin MOJO version 5 (this build reads 1, 2, 3, 4)" "$W/err" && ok "version 5: a clear error" || bad "version 5 message: $(cat "$W/err")"
expect_rc 1 "validate truncated in a varint" "$P" validate "$D/v3_truncated_varint.mojo"
grep -q "offset 53: string.key: expected MOJO varint, found end of data (2 bytes left)" "$W/err" && ok "truncated varint reported" || bad "truncation message: $(cat "$W/err")"
expect_rc 1 "validate truncated in a string" "$P" validate "$D/v3_truncated.mojo"
grep -q "offset 57: string.value: expected NUL-terminated string, found end of data" "$W/err" && ok "truncated string reported" || bad "truncation message: $(cat "$W/err")"
expect_rc 1 "dump truncated" "$P" dump "$D/v3_truncated.mojo" -o "$W/t.jsonl"
[ "$(grep -v '"_kind":"stopped"' "$W/t.jsonl" | grep -c '"_kind"')" = 5 ] && ok "dump yields the records before the damage" || bad "dump before damage: $(cat "$W/t.jsonl")"
[ "$(tail -n 1 "$W/t.jsonl")" = '{"_kind":"stopped","_offset":57,"error":"offset 57: string.value: expected NUL-terminated string, found end of data (3 bytes left)","records":5,"bytes_not_read":3}' ] && ok "dump ends with where and why it stopped" || bad "stopped line: $(tail -n 1 "$W/t.jsonl")"
rm -f "$W/t.mojo"
expect_rc 1 "encode of a dump that stopped at damage" "$P" encode "$W/t.jsonl" -o "$W/t.mojo"
grep -q "t.jsonl:6: the dump stopped at damage: everything after it is missing (offset 57: string.value" "$W/err" && grep -q -- "--partial" "$W/err" && ok "encode names the stopped line and --partial" || bad "encode stopped message: $(cat "$W/err")"
[ ! -e "$W/t.mojo" ] && ok "no partial file without --partial" || bad "encode wrote a file"
expect_rc 0 "encode --partial" "$P" encode --partial "$W/t.jsonl" -o "$W/t.mojo"
expect_rc 0 "the partial file validates" "$P" validate "$W/t.mojo"
cmp -s "$W/t.mojo" <(head -c 52 "$D/v3_truncated.mojo") && ok "--partial writes the records before the damage" || bad "--partial output differs from the first 52 bytes"
expect_rc 1 "convert truncated" "$P" convert --to austin "$D/v3_truncated.mojo" -o "$W/t.txt"
[ "$(tail -1 "$W/t.txt")" = "P4242;T0:4242 0" ] && ok "convert closes the cut sample" || bad "convert truncated: $(cat "$W/t.txt")"
printf 'MOJ\x03\x0d' >"$W/badev.mojo"
expect_rc 1 "unknown event id" "$P" validate "$W/badev.mojo"
grep -q "offset 4: event: expected one of 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC, found 0x0d" "$W/err" && ok "event 13 rejected" || bad "event 13: $(cat "$W/err")"
printf 'MOJ\x03\x05\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00' >"$W/long.mojo"
expect_rc 1 "11-byte varint" "$P" validate "$W/long.mojo"
grep -q "offset 5: frame_ref.key: expected MOJO varint of at most 10 bytes and 64 bits" "$W/err" && ok "11-byte varint rejected" || bad "11-byte varint: $(cat "$W/err")"

# stdin, pipes, --format
expect_rc 0 "validate from stdin" bash -c "cat '$D/v3_full.mojo' | '$P' validate -"
if cat "$D/v3_full.mojo" | "$P" dump - | "$P" encode - -o "$W/piped.mojo" && cmp -s "$D/v3_full.mojo" "$W/piped.mojo"; then
    ok "cat | dump - | encode - round trip"
else
    bad "piped round trip"
fi
expect_rc 0 "convert from stdin" bash -c "cat '$D/v3_full.mojo' | '$P' convert --to austin - -o '$W/stdin.txt'"
same "$D/v3_full.austin.txt" "$W/stdin.txt" "convert from stdin"
expect_rc 0 "info --format mojo:3" "$P" info --format mojo:3 "$D/v3_full.mojo"
expect_rc 1 "a v3 file read as v1" "$P" validate --format mojo:1 "$D/v3_full.mojo"

# collapsed and speedscope
expect_rc 0 "collapsed" "$P" convert --to collapsed "$D/v3_full.mojo" -o "$W/c.txt"
[ "$(cat "$W/c.txt")" = "P10;T0:10;:INVALID:;gc.py:collect:3;kernel:do_syscall_64:0;:GC: 2000
P10;T0:11;gc.py:collect:3 1001
P10;T0:10 999" ] && ok "collapsed stacks (time)" || bad "collapsed: $(cat "$W/c.txt")"
expect_rc 0 "collapsed --metric memory" "$P" convert --to collapsed --metric memory "$D/v3_full.mojo" -o "$W/cm.txt"
[ "$(cat "$W/cm.txt")" = "P10;T0:10 8192" ] && ok "collapsed stacks (memory allocated)" || bad "collapsed memory: $(cat "$W/cm.txt")"
expect_rc 2 "collapsed --metric bogus" "$P" convert --to collapsed --metric bogus "$D/v3_full.mojo" -o "$W/cb.txt"
[ ! -e "$W/cb.txt" ] && ok "no output left behind on a usage error" || bad "output left behind"
# binary outputs and pages are not written to a terminal (issue 25); text is, and a pipe takes all
if command -v script >/dev/null; then
    for t in pprof mojo html; do
        expect_rc 2 "--to $t to a terminal" script -qec "'$P' convert --to $t '$D/v3_full.mojo'" /dev/null
        grep -q "not writing it to a terminal" "$W/out" && ok "--to $t to a terminal: says why" || bad "--to $t to a terminal: $(head -c 200 "$W/out")"
    done
    expect_rc 2 "merge --to pprof to a terminal" script -qec "'$P' merge --to pprof '$D/v3_full.mojo' '$D/v3_basic.mojo'" /dev/null
    grep -q "profcodec merge: --to pprof writes a file" "$W/out" && ok "merge to a terminal: says why" || bad "merge to a terminal: $(head -c 200 "$W/out")"
    expect_rc 0 "--to collapsed to a terminal" script -qec "'$P' convert --to collapsed '$D/v3_full.mojo'" /dev/null
    grep -q "gc.py:collect:3 1001" "$W/out" && ok "collapsed on a terminal" || bad "collapsed on a terminal: $(head -c 200 "$W/out")"
    expect_rc 0 "--to pprof to a pipe" bash -c "'$P' convert --to pprof '$D/v3_full.mojo' | cat >'$W/pipe.pb.gz'"
    [ "$(head -c 2 "$W/pipe.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] && ok "pprof through a pipe: gzip" || bad "pprof through a pipe"
else
    echo "skip: no script(1) for a terminal"
fi
# --metric as users say it: "wall" and "cpu", any case, with or without "-time" (issue 25)
expect_rc 0 "collapsed --metric wall (full mode)" "$P" convert --to collapsed --metric wall "$D/v3_full.mojo" -o "$W/cw.txt"
same "$W/c.txt" "$W/cw.txt" "--metric wall is the type titled Wall time"
expect_rc 0 "collapsed --metric cpu-time" "$P" convert --to collapsed --metric cpu-time "$D/v3_full.mojo" -o "$W/cc1.txt"
expect_rc 0 "collapsed --metric CPU" "$P" convert --to collapsed --metric CPU "$D/v3_full.mojo" -o "$W/cc2.txt"
same "$W/cc1.txt" "$W/cc2.txt" "--metric CPU is cpu-time"
cmp -s "$W/c.txt" "$W/cc1.txt" && bad "cpu-time and time gave the same stacks: the test shows nothing" || ok "cpu-time is not time here"
expect_rc 0 "collapsed (cpu mode)" "$P" convert --to collapsed "$D/v3_multiproc.mojo" -o "$W/mp.txt"
expect_rc 0 "collapsed --metric cpu (cpu mode)" "$P" convert --to collapsed --metric cpu "$D/v3_multiproc.mojo" -o "$W/mpc.txt"
same "$W/mp.txt" "$W/mpc.txt" "--metric cpu is the time of a cpu-mode file"
expect_rc 2 "collapsed --metric wall (cpu mode)" "$P" convert --to collapsed --metric wall "$D/v3_multiproc.mojo" -o "$W/mpw.txt"
grep -q "time (CPU time)" "$W/err" && ok "the refusal names the types with their titles" || bad "refusal: $(cat "$W/err")"
expect_rc 0 "speedscope" "$P" convert --to speedscope "$D/v3_full.mojo" -o "$W/s.json"
head -c 100 "$W/s.json" | grep -q '^{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":\[' && ok "speedscope header" || bad "speedscope: $(head -c 200 "$W/s.json")"

# encode --from austin: text -> MOJO 3 -> text
for n in v3_full v3_multiproc v2_columns; do
    expect_rc 0 "encode --from austin $n" "$P" encode --from austin "$D/$n.austin.txt" -o "$W/$n.from.mojo"
    expect_rc 0 "validate --strict the import of $n" "$P" validate --strict "$W/$n.from.mojo"
    expect_rc 0 "convert the import of $n" "$P" convert --to austin "$W/$n.from.mojo" -o "$W/$n.back.txt"
    if [ $n = v2_columns ]; then
        # MOJO 3 has an interpreter id: T7 comes back as T0:7
        sed 's/;T7;/;T0:7;/' "$D/$n.austin.txt" >"$W/$n.want.txt"
        same "$W/$n.want.txt" "$W/$n.back.txt" "austin -> MOJO 3 -> austin: $n"
    else
        same "$D/$n.austin.txt" "$W/$n.back.txt" "austin -> MOJO 3 -> austin: $n"
    fi
done
printf '# mode: wall\nP1;T0:1;a.py:f 3\n' >"$W/bad.austin"
expect_rc 1 "encode --from austin, a bad frame" "$P" encode --from austin "$W/bad.austin" -o "$W/bad.mojo"
grep -q "bad.austin:2: a frame is <file>:<function>:<line>" "$W/err" && ok "importer errors name the line" || bad "importer error: $(cat "$W/err")"
# --max-memory covers the importer: 20000 samples of distinct frames in 1 MiB
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "P1;T1;mod%d_%0100d.py:f%d:%d 1\n", i, 0, i, i }' >"$W/mem.austin"
expect_rc 0 "encode --from austin within the default memory cap" "$P" encode --from austin "$W/mem.austin" -o "$W/mem.mojo"
expect_rc 2 "encode --from austin over --max-memory 1M" "$P" --max-memory 1M encode --from austin "$W/mem.austin" -o "$W/mem1.mojo"
grep -q 'out of memory (raise --max-memory)' "$W/err" || bad "the importer says the memory cap stopped it"
[ -e "$W/mem1.mojo" ] && bad "no output left behind after the memory cap"
[ ! -e "$W/bad.mojo" ] && ok "nothing left behind by a failed import" || bad "failed import left output"

# ---- the shared corpus: real recordings and austin-python's own test files -------------------
if [ -d "$CORPUS/mojo" ]; then
    # (PCD_TEST_SMALL=1, make test's sanitize tree: not this agreement with Austin's tools on every
    # corpus file, the fast tree's; the named files below run in both)
    for f in "$CORPUS"/mojo/*.mojo "$CORPUS"/mojo/austin-python-testdata/*.mojo; do
        [ -n "${PCD_TEST_SMALL:-}" ] && [ "${PCD_TEST_LONG:-0}" = 0 ] && break
        n=$(basename "$f" .mojo)
        expect_rc 0 "validate $n" "$P" validate "$f"
        "$P" dump "$f" | "$P" encode - -o "$W/c_$n.mojo" && same "$f" "$W/c_$n.mojo" "dump|encode identical: $n"
        ref="${f%.mojo}.austin.txt"
        [ -f "$ref" ] || ref="${f%.mojo}.austin"
        [ -f "$ref" ] || ref="${f%.mojo}.expected.austin"
        if [ -f "$ref" ]; then
            expect_rc 0 "convert --to austin $n" "$P" convert --to austin "$f" -o "$W/c_$n.txt"
            same "$ref" "$W/c_$n.txt" "byte-identical to mojo2austin: $n"
        fi
        # austin-python 2.2.0's text of any version (--dialect austin2), and through MOJO 4
        if [ -f "${f%.mojo}.austin-py2.txt" ]; then
            expect_rc 0 "--dialect austin2 $n" "$P" convert --to austin --dialect austin2 "$f" -o "$W/c_$n.py2"
            same "${f%.mojo}.austin-py2.txt" "$W/c_$n.py2" "byte-identical to austin-python 2.2.0's mojo2austin: $n"
            "$P" convert --to mojo --version 4 "$f" -o "$W/c_$n.v4.mojo" && "$P" convert --to austin "$W/c_$n.v4.mojo" -o "$W/c_$n.v4.txt"
            same "${f%.mojo}.austin-py2.txt" "$W/c_$n.v4.txt" "$n -> MOJO 4: austin-python 2.2.0's text"
        fi
        expect_rc 0 "convert --to collapsed $n" "$P" convert --to collapsed "$f" -o "$W/c_$n.collapsed"
        expect_rc 0 "convert --to speedscope $n" "$P" convert --to speedscope "$f" -o "$W/c_$n.json"
    done
    T="$CORPUS/mojo/austin-python-testdata"
    if [ -f "$T/column.mojo" ]; then
        # no reference beside it: austin-python 1.7.1's output (run once) has this digest
        "$P" convert --to austin "$T/column.mojo" -o "$W/column.txt"
        [ "$(sha256sum <"$W/column.txt" | cut -c1-64)" = "$(cat "$DATA/mojo/column.austin.sha256")" ] &&
            ok "column.mojo (v2) as mojo2austin writes it" || bad "column.mojo text differs from mojo2austin's"
    fi
    if [ -f "$T/austinp.mojo" ]; then
        # austin-python crashes on it (definitions before the first stack); we read it
        expect_rc 0 "convert austinp.mojo" "$P" convert --to austin "$T/austinp.mojo" -o "$W/austinp.txt"
        [ "$(grep -c '^P' "$W/austinp.txt")" = 1323 ] && ok "austinp.mojo: all 1323 samples" || bad "austinp samples: $(grep -c '^P' "$W/austinp.txt")"
        grep -q '^P44633;T44633;native@5c9ea5:_start:37;' "$W/austinp.txt" && ok "austinp.mojo: native frames resolved" || bad "austinp frames"
    fi
    V4="$CORPUS/mojo/v4"
    if [ -f "$V4/repeat.mojo" ]; then
        expect_rc 0 "validate v4/repeat.mojo" "$P" validate "$V4/repeat.mojo"
        "$P" dump "$V4/repeat.mojo" | "$P" encode - -o "$W/v4r.mojo" && same "$V4/repeat.mojo" "$W/v4r.mojo" "dump|encode identical: v4/repeat.mojo"
        expect_rc 0 "convert --to austin v4/repeat.mojo" "$P" convert --to austin "$V4/repeat.mojo" -o "$W/v4r.txt"
        same "$V4/repeat.expected.austin" "$W/v4r.txt" "v4/repeat.mojo: austin-python 2.2.0's text"
    fi
    # austin -> MOJO 3 -> austin over a real recording
    f="$CORPUS/mojo/full_sleepy.austin.txt"
    if [ -f "$f" ]; then
        "$P" encode --from austin "$f" -o "$W/fs.mojo" && "$P" convert --to austin "$W/fs.mojo" -o "$W/fs.txt"
        same "$f" "$W/fs.txt" "austin -> MOJO 3 -> austin: full_sleepy"
    fi
else
    echo "skip: no shared corpus at $CORPUS"
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
