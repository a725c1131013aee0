#!/usr/bin/env python3
"""Hostile text inputs (issue 25), for the sanitize tree: the new importers (collapsed, Austin
text, speedscope JSON), zstd and gzip wrappers and merge, on inputs made to hurt them:
  - deep stacks (70 000 frames: refused past 65 536 with the line and offset), long names,
    huge numbers (past 64 bits), invalid UTF-8 after the head, NUL bytes, CR-only lines;
  - JSON nesting bombs (100 000 brackets: jansson's depth limit), a speedscope of 2 000 nested
    open events (5 000 under PCD_TEST_LONG=1; one push per event, but the stacks written are
    quadratic: 5 000 make a 25 MB collapsed output, about 15 s of CPU under ASan for the four
    converters), numbers of 1e308, negative indices;
  - every prefix of small valid files (a cut anywhere);
  - a zstd bomb (48 MiB of text in a few KB: lines of two 120-byte names, so that the 16 MiB read
    before the refusal are 68 000 samples, not 2.8 million: 0.5 s of CPU under ASan against 10 s
    with lines of `a;b 1`) under --max-memory 16M, a cut zstd and gzip stream.
Each run must end within the time limit with exit 0, 1 or 2 (no signal, no sanitizer report),
damage saying where (line, byte offset or a JSON path), and the output holding only stacks of
the input. Also replays fuzz/corpus/text and these files through replay_text_ext when given
(every text importer into every output; in make test not the inputs over 64 KB the CLI converted).

usage: test_text_hostile.py PROFCODEC WORKDIR [REPLAY_TEXT_EXT SEEDS]
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

failures = []
accepted = set()  # the inputs the CLI converted (exit 0)
LIMIT = 120  # seconds of wall time per run, under ASan on a loaded 2-core machine
LONG = os.environ.get("PCD_TEST_LONG", "0") not in ("", "0")  # make test-long: the full sizes


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(pc, args):
    t = time.time()
    try:
        p = subprocess.run([pc] + args, capture_output=True, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return None, LIMIT
    return p, time.time() - t


def check(pc, path, tos=("collapsed", "pprof", "html", "chrome")):
    said = None
    for to in tos:
        p, dt = run(pc, ["--max-memory", "256M", "convert", "--to", to, path, "-o", path + ".out." + to])
        if p is None:
            fail("%s --to %s: over %d s" % (path, to, LIMIT))
            continue
        err = p.stderr.decode(errors="replace")
        if p.returncode not in (0, 1, 2) or "Sanitizer" in err or "runtime error" in err:
            fail("%s --to %s: rc %d %s" % (path, to, p.returncode, err[-600:]))
            continue
        if p.returncode == 1 and "cannot tell" not in err and not any(
                k in err for k in ("line ", "byte offset", "profiles[", "shared.frames", "zstd", "gzip", "nothing to")):
            fail("%s --to %s: damage without where: %s" % (path, to, err[-300:]))
            continue
        if said is None:
            said = (to, dt, p.returncode, (err.strip().split("\n") or [""])[0][:150])
    if said:
        print("ok   %s --to %s (%.1f s, rc %d): %s" % ((os.path.basename(path),) + said))
        if said[2] == 0:
            accepted.add(os.path.basename(path))


def main():
    pc, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    w = lambda n: os.path.join(work, n)  # noqa: E731
    S = "https://www.speedscope.app/file-format-schema.json"
    files = {
        "deep.col": b";".join([b"f"] * 70000) + b" 1\n",
        "deep-ok.col": b";".join([b"f%d" % i for i in range(60000)]) + b" 1\n",
        "longname.col": b"x" * 100000 + b";y 3\n",
        "huge.col": b"a;b 1\na;b 99999999999999999999999\n",
        "u64.col": b"a;b 18446744073709551615\na;b 18446744073709551615\n",
        "utf8-late.col": b"a;b 1\n" * 1000 + b"\xff\xfe;c 2\n",
        "nul-late.col": b"a;b 1\n" * 1000 + b"a\x00b 2\n",
        "cr.col": b"a;b 1\ra;c 2\r",
        "diff-short.col": b"a;b 1 2\nc 3\n",
        "nest.json": b'{"$schema":"' + S.encode() + b'","a":' + b"[" * 100000 + b"]" * 100000 + b"}",
        "nest-obj.json": b'{"$schema":"' + S.encode() + b'","a":' + b'{"a":' * 50000 + b"1" + b"}" * 50000 + b"}",
        "many-open.json": json.dumps({"$schema": S, "shared": {"frames": [{"name": "a"}]}, "profiles": [
            {"type": "evented", "unit": "bytes", "events": [{"type": "O", "frame": 0, "at": i} for i in range(5000 if LONG else 2000)]}]}).encode(),
        "big-numbers.json": json.dumps({"$schema": S, "shared": {"frames": [{"name": "a", "line": 2 ** 63 - 1}]}, "profiles": [
            {"type": "sampled", "unit": "seconds", "samples": [[0], [0, -1]], "weights": [1e308, 1]}]}).encode(),
        "evented-back.json": json.dumps({"$schema": S, "shared": {"frames": [{"name": "a"}, {"name": "b"}]}, "profiles": [
            {"type": "evented", "unit": "microseconds", "events": [{"type": "O", "frame": 0, "at": 5}, {"type": "O", "frame": 1, "at": 3}]}]}).encode(),
        "evented-misnest.json": json.dumps({"$schema": S, "shared": {"frames": [{"name": "a"}, {"name": "b"}]}, "profiles": [
            {"type": "evented", "unit": "microseconds", "events": [{"type": "O", "frame": 0, "at": 1}, {"type": "O", "frame": 1, "at": 2},
                                                                    {"type": "C", "frame": 0, "at": 3}]}]}).encode(),
        "austin-deep.austin": b"# austin: 3.6.0\nP1;T2;" + b";".join([b"f.py:g:1"] * 70000) + b" 5\n",
        "austin-huge.austin": b"# austin: 3.6.0\nP1;T2;f.py:g:1 99999999999999999999999\n",
        "austin-line.austin": b"# austin: 3.6.0\nP1;T2;f.py:g:-99999999999999999999 5\n",
    }
    valid = {
        "v.col": b"a;b;c 12\nd 3\na;b 7\n",
        "v.austin": b"# austin: 3.6.0\n# mode: full\nP1;T2;f.py:g:1;f.py:h:2 5,0,3\nP1;T2;f.py:g:1 7,1,-2\n",
        "v.json": json.dumps({"$schema": S, "shared": {"frames": [{"name": "a"}, {"name": "b"}]}, "profiles": [
            {"type": "sampled", "unit": "none", "samples": [[0, 1], [0]], "weights": [3, 4]}]}).encode(),
    }
    for n, d in list(files.items()) + list(valid.items()):
        open(w(n), "wb").write(d)
        check(pc, w(n))
    # every prefix of the valid files
    for n, d in valid.items():
        for k in range(1, len(d), max(1, len(d) // 40)):
            open(w("cut-" + n), "wb").write(d[:k])
            for to in ("collapsed", "pprof"):
                p, _ = run(pc, ["convert", "--to", to, w("cut-" + n)])
                err = p.stderr.decode(errors="replace") if p else "timeout"
                if p is None or p.returncode not in (0, 1, 2) or "Sanitizer" in err or "runtime error" in err:
                    fail("%s cut at %d --to %s: %s" % (n, k, to, err[-400:]))
    print("ok   every prefix of %s, --to collapsed and pprof" % ", ".join(valid))
    # compressed: a zstd bomb, cut streams
    if shutil.which("zstd"):
        bomb = subprocess.run(["zstd", "-q", "-19", "-c"], input=(b"x" * 120 + b";" + b"y" * 120 + b" 1\n") * ((48 << 20) // 245),
                              capture_output=True).stdout
        open(w("bomb.col.zst"), "wb").write(bomb)
        p, dt = run(pc, ["--max-memory", "16M", "convert", "--to", "collapsed", w("bomb.col.zst"), "-o", w("bomb.out")])
        err = p.stderr.decode(errors="replace") if p else "timeout"
        if p is None or p.returncode not in (1, 2) or "larger than the limit" not in err or "Sanitizer" in err:
            fail("zstd bomb: %s" % err[-400:])
        else:
            print("ok   zstd bomb (%d bytes) refused under --max-memory 16M in %.1f s" % (len(bomb), dt))
        z = subprocess.run(["zstd", "-q", "-c"], input=valid["v.austin"] * 2000, capture_output=True).stdout
        for k in (5, len(z) // 2, len(z) - 3):
            open(w("cut.austin.zst"), "wb").write(z[:k])
            check(pc, w("cut.austin.zst"), ("collapsed",))
    g = gzip.compress(valid["v.col"] * 5000)
    for k in (12, len(g) // 2, len(g) - 4):
        open(w("cut.col.gz"), "wb").write(g[:k])
        check(pc, w("cut.col.gz"), ("collapsed",))
    # merge of the hostile files with a valid one: no crash, damage said per input
    p, _ = run(pc, ["merge", w("v.col"), w("huge.col"), w("cr.col"), "--to", "pprof", "-o", w("merged.pb")])
    err = p.stderr.decode(errors="replace") if p else "timeout"
    if p is None or p.returncode not in (0, 1, 2) or "Sanitizer" in err:
        fail("merge of hostile files: %s" % err[-400:])
    else:
        print("ok   merge of hostile collapsed files: rc %d" % p.returncode)
    if len(sys.argv) > 4:
        # every input under 1 MiB; in make test not the ones over 64 KB the CLI converted (a
        # 60 000-frame stack, 2 000 nested opens, a 100 KB name: 11.6 of the replay's 14.6 s of
        # CPU under ASan, every output of every text importer): the CLI's four converters above
        # took them under the sanitizers, and the refused ones still go through every importer
        small = [n for n in os.listdir(work) if os.path.getsize(w(n)) < (1 << 20) and not n.endswith((".pb", ".out"))
                 and (LONG or n not in accepted or os.path.getsize(w(n)) <= (64 << 10))]
        left = [n for n in os.listdir(work) if n in accepted and (64 << 10) < os.path.getsize(w(n)) < (1 << 20)]
        if not LONG and left:
            print("sized for CI: replay_text_ext leaves %s to PCD_TEST_LONG=1" % ", ".join(sorted(left)))
        r = subprocess.run([sys.argv[3]] + sys.argv[4:] + [w(n) for n in small if "." in n and ".out." not in n],
                           capture_output=True, timeout=1800)
        if r.returncode:
            fail("replay_text_ext: rc %d %s" % (r.returncode, r.stderr.decode(errors="replace")[-800:]))
        else:
            print("ok   replay_text_ext: %s" % r.stdout.decode(errors="replace").strip()[-200:])
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
