#!/usr/bin/env python3
"""Text inputs, zstd-wrapped inputs and merge (issue 25).

Round trips: the collapsed output of a collapsed, Austin-text or speedscope input equals the
input's own stacks (a multiset of stack -> value):
  - collapsed: real files of another tool (CPython's `replay --collapsed`, ../shared/corpus/
    tachyon/*.collapsed.txt) and our own `convert --to collapsed` of corpus files: byte-identical
    after sorting;
  - Austin text: real files (austin, austin-python's mojo2austin: ../shared/corpus/mojo) and our
    own `convert --to austin`: the stacks and metrics the text's own sample lines hold (the thread
    part, P<pid>;T<tid>, set aside: the importer gives a thread without an interpreter id one,
    0, as MOJO records it);
  - speedscope: our own `convert --to speedscope --metric M`: per stack the totals of the
    original's `convert --to collapsed --metric M` (thread parts set aside: a profile's name
    stands for its thread).
Detection: each text format told by its rule, near-misses refused, binary formats unchanged.
Damage: a bad line says line, byte offset, expected, found, and the stacks before it are written.
zstd: a .mojo.zst reads as the .mojo; a zstd bomb is refused under --max-memory; a cut frame is
damage after what came before. Merge: `merge a.pprof b.pprof --to pprof` has the totals and
stacks (go tool pprof -raw) of `go tool pprof -proto a.pprof b.pprof`; mismatched sample types
are refused unless --force; each sample has the label source=FILE.

usage: test_text_inputs.py PROFCODEC TESTDATA CORPUS WORKDIR
"""
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pprof"))
from test_pprof_go import GO, go_env, parse_raw  # noqa: E402

failures = []
SMALL = os.environ.get("PCD_TEST_SMALL") == "1" and os.environ.get("PCD_TEST_LONG") != "1"


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(args, input=None, env=None):
    return subprocess.run(args, capture_output=True, input=input, env=env)


def collapsed_lines(data):
    return sorted(l for l in data.decode("utf-8", "surrogateescape").split("\n") if l)


def multiset(text, drop_prefix):
    """stack -> summed value from collapsed lines; drop_prefix: how many leading elements are the
    thread's (0, 1: a name, 2: P<pid>;T<tid>)."""
    m = collections.Counter()
    for ln in text.decode("utf-8", "surrogateescape").split("\n"):
        if not ln:
            continue
        stack, _, v = ln.rpartition(" ")
        parts = stack.split(";")
        m[";".join(parts[drop_prefix:])] += int(v)
    return {k: v for k, v in m.items() if v}


def austin_own(path):
    """The stacks and metrics an Austin text's sample lines hold (frames after P;T; the time of
    time,idle,memory; in memory mode the memory, as Austin's own reader takes it)."""
    memory = False
    m = collections.Counter()
    for ln in open(path, "rb").read().decode("utf-8", "surrogateescape").split("\n"):
        ln = ln.rstrip("\r")
        if ln.startswith("# mode: "):
            memory = ln[8:] == "memory"
        if not ln.startswith("P"):
            continue
        stack, _, met = ln.rpartition(" ")
        parts = stack.split(";")
        vals = met.split(",")
        v = int(vals[0]) if len(vals) == 3 or not memory else int(vals[-1])
        if memory and len(vals) == 1 and v < 0:
            continue  # released memory: the type memory-released, not the default
        # ";L<line>" is ":<line>" (Austin's alternative format)
        frames = ";".join(parts[2:])
        m[frames] += max(v, 0)
    return {k: v for k, v in m.items() if v}


def compare(what, ours, expected):
    if ours != expected:
        only_o = sorted(set(ours) - set(expected))[:3]
        only_e = sorted(set(expected) - set(ours))[:3]
        diff = sorted(k for k in set(ours) & set(expected) if ours[k] != expected[k])[:3]
        fail("%s: %d stacks vs %d expected; only ours %s, only expected %s, values differ %s" % (
            what, len(ours), len(expected), only_o, only_e, [(k, ours[k], expected[k]) for k in diff]))
        return False
    print("ok   %s: %d stacks, total %d" % (what, len(ours), sum(ours.values())))
    return True


def main():
    pc, testdata, corpus, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    w = lambda n: os.path.join(work, n)  # noqa: E731

    # ---- collapsed: real files of another tool, byte-identical after sorting -----------------
    real = sorted(glob.glob(os.path.join(corpus, "tachyon", "*.collapsed.txt")))
    for f in real[:2] if SMALL else real:
        p = run([pc, "convert", "--to", "collapsed", f])
        if p.returncode or collapsed_lines(p.stdout) != collapsed_lines(open(f, "rb").read()):
            fail("%s: collapsed round trip differs (rc %d) %s" % (f, p.returncode, p.stderr[-300:]))
        else:
            print("ok   %s: collapsed -> collapsed, %d lines identical after sorting" % (os.path.basename(f), len(collapsed_lines(p.stdout))))

    # ---- our own outputs of corpus files --------------------------------------------------------
    sources = sorted(glob.glob(os.path.join(corpus, "mojo", "*.mojo")))[:4] + \
        sorted(glob.glob(os.path.join(corpus, "tachyon", "*_none.bin")))[:2] + \
        [os.path.join(corpus, "pprof", "cpu.pprof"), os.path.join(testdata, "pprof", "labels.cpu.pprof")]
    if SMALL:
        sources = sources[:1] + sources[-1:]
    for src in sources:
        if not os.path.exists(src):
            continue
        name = os.path.basename(src)
        col = run([pc, "convert", "--to", "collapsed", src, "-o", w(name + ".col")])
        if col.returncode:
            fail("%s: convert --to collapsed: %s" % (name, col.stderr))
            continue
        back = run([pc, "convert", "--to", "collapsed", w(name + ".col")])
        orig = open(w(name + ".col"), "rb").read()
        if back.returncode or collapsed_lines(back.stdout) != collapsed_lines(orig):
            fail("%s: our collapsed read back differs (rc %d) %s" % (name, back.returncode, back.stderr[-300:]))
        else:
            print("ok   %s: convert --to collapsed, read back: %d lines identical" % (name, len(collapsed_lines(orig))))
        # Austin text (our writer), its own stacks
        a = run([pc, "convert", "--to", "austin", src, "-o", w(name + ".austin")])
        if a.returncode == 0:
            p = run([pc, "convert", "--to", "collapsed", "--dialect", "austin", w(name + ".austin")])
            if p.returncode:
                fail("%s.austin: %s" % (name, p.stderr))
            else:
                compare(name + ".austin -> collapsed", multiset(p.stdout, 2), austin_own(w(name + ".austin")))
        # speedscope (our writer), one metric
        info = run([pc, "info", "--json", src])
        ss = run([pc, "convert", "--to", "speedscope", src, "-o", w(name + ".ss.json")])
        if ss.returncode:
            continue
        doc = json.load(open(w(name + ".ss.json")))
        units = {p_["unit"] for p_ in doc["profiles"]}
        # the original's collapsed output for the metric of the first profile's type
        first = doc["profiles"][0]["name"].split(" profile for ")[0]
        p = run([pc, "convert", "--to", "collapsed", w(name + ".ss.json")])
        if p.returncode:
            fail("%s.ss.json: %s" % (name, p.stderr))
            continue
        if len(doc["profiles"]) == 1 and len(units) == 1:
            ours = multiset(p.stdout, 0)
            # the original in the default dialect (the speedscope file names frames so), its
            # thread part (P<pid>;T<tid>, T<tid>) set aside
            ref = run([pc, "convert", "--to", "collapsed", "--dialect", "default", src]).stdout
            if sum(multiset(ref, 0).values()) != sum(ours.values()):
                # the default metric of collapsed is not the speedscope profile's (a count beside
                # a time): the time's, by its unit
                for metric in ("wall-time", "time", "cpu-time", "cpu"):
                    r2 = run([pc, "convert", "--to", "collapsed", "--dialect", "default", "--metric", metric, src])
                    if r2.returncode == 0 and sum(multiset(re.sub(rb"(?m)^(P-?[0-9]+;)?T[0-9:]+;", b"", r2.stdout), 0).values()) == sum(ours.values()):
                        ref = r2.stdout
                        break
            ref = re.sub(rb"(?m)^(P-?[0-9]+;)?T[0-9:]+;", b"", ref)
            compare("%s.ss.json (%s) -> collapsed" % (name, first), ours, multiset(ref, 0))
        else:
            tot = sum(sum(p_.get("weights", [])) for p_ in doc["profiles"] if p_["unit"] == doc["profiles"][0]["unit"])
            got = sum(multiset(p.stdout, 1).values())
            if tot != got:
                fail("%s.ss.json: total %d, the weights of its profiles in the first unit %d" % (name, got, tot))
            else:
                print("ok   %s.ss.json: %d profiles, total %d = the weights" % (name, len(doc["profiles"]), got))
        del info

    # ---- Austin text: real files ----------------------------------------------------------------
    austins = sorted(glob.glob(os.path.join(corpus, "mojo", "*.austin.txt"))) + \
        [os.path.join(corpus, "mojo", "austin-python-testdata", "test.austin")]
    for f in austins[:1] if SMALL else austins:
        p = run([pc, "convert", "--to", "collapsed", "--dialect", "austin", f])
        if p.returncode:
            fail("%s: %s" % (f, p.stderr[-300:]))
            continue
        compare(os.path.basename(f) + " -> collapsed", multiset(p.stdout, 2), austin_own(f))

    # ---- speedscope: hand-made, evented and sampled, shared frames, two threads ------------------
    doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
           "shared": {"frames": [{"name": "main", "file": "/a/m.py", "line": 3}, {"name": "work"}, {"name": "io"}]},
           "profiles": [
               {"type": "evented", "name": "T1", "unit": "milliseconds", "startValue": 0, "endValue": 10,
                "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 2},
                           {"type": "C", "frame": 1, "at": 5.5}, {"type": "C", "frame": 0, "at": 10}]},
               {"type": "sampled", "name": "T2", "unit": "milliseconds", "startValue": 0, "endValue": 4,
                "samples": [[0, 2], [0, 2], [0]], "weights": [1, 2, 1]}]}
    open(w("hand.speedscope.json"), "w").write(json.dumps(doc))
    # (by line: the frames' lines are what this checks; collapsed groups by function by default)
    p = run([pc, "convert", "--to", "collapsed", "--granularity", "line", w("hand.speedscope.json")])
    want = {"T1;main (m.py:3)": 6500000, "T1;main (m.py:3);work": 3500000, "T2;main (m.py:3);io": 3000000,
            "T2;main (m.py:3)": 1000000}
    compare("hand-made speedscope (evented with a fraction: ns)", multiset(p.stdout, 0) if not p.returncode else {}, want)

    # ---- detection: each rule, and near-misses --------------------------------------------------
    cases = [
        ("col", b"a;b;c 12\nd 3\n", "collapsed stacks"),
        ("col3", b"a;b 12 15\nc 1 0\n", "collapsed stacks"),
        ("crlf", b"a;b 1\r\n", "collapsed stacks"),
        ("austin", b"# austin: 3.6.0\n# mode: wall\n\nP1;T2;f.py:g:1 5\n", "Austin's text"),
        ("austin-noheader", b"P1;T2;f.py:g:1 5\n", "Austin's text"),
        ("speedscope", b' {"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[]},"profiles":[]}', "speedscope JSON"),
        # near-misses: nothing
        ("decimal", b"a;b 12.5\n", None),
        ("comment", b"# comment\na;b 1\n", None),
        ("nocount", b"a;b\n", None),
        ("json", b'{"profiles": []}', None),
        ("nul", b"a;b 1\n\x00", None),
        ("badutf8", b"a\xff;b 1\n", None),
        ("austin-ish", b"P1;X2;f:g:1 5\n", "collapsed stacks"),
        ("mixed", b"# austin: 3\na;b 1\n", None),
    ]
    for name, data, title in cases:
        open(w(name + ".txt"), "wb").write(data)
        p = run([pc, "info", w(name + ".txt")])
        err = p.stderr.decode(errors="replace")
        if title is None:
            ok = "cannot tell the format" in err and "collapsed" in err and "speedscope" in err
        else:
            ok = title in err and "convert and merge read it" in err
        (print if ok else fail)("%s %s: %s -> %s" % ("ok  " if ok else "", name, data[:30], err.strip()[:160]))
    # a binary format is still itself (pprof protobuf, MOJO): info reads it
    for f in [os.path.join(testdata, "pprof", "labels.cpu.pprof")] + sorted(glob.glob(os.path.join(corpus, "mojo", "*.mojo")))[:1]:
        p = run([pc, "info", f])
        (print if p.returncode == 0 else fail)("ok   binary still detected: %s" % f if p.returncode == 0 else "%s: %s" % (f, p.stderr))

    # ---- damage: line, byte offset, expected, found; what came before is written ----------------
    open(w("bad.col"), "wb").write(b"a;b 1\na;c 2\na;d x3\na;e 4\n")
    p = run([pc, "convert", "--to", "collapsed", w("bad.col"), "-o", w("bad.out")])
    err = p.stderr.decode()
    ok = p.returncode == 1 and "line 3: byte offset 16: expected a count" in err and 'found "x3"' in err and \
        open(w("bad.out"), "rb").read() == b"a;b 1\na;c 2\n"
    (print if ok else fail)("%s damaged collapsed: rc %d, %s" % ("ok  " if ok else "", p.returncode, err.strip()))
    open(w("bad.ss.json"), "w").write(json.dumps(dict(doc, profiles=[doc["profiles"][1], dict(doc["profiles"][1], samples=[[0, 9]], weights=[1])])))
    p = run([pc, "convert", "--to", "collapsed", w("bad.ss.json"), "-o", w("bad2.out")])
    err = p.stderr.decode()
    ok = p.returncode == 1 and "profiles[1].samples[0][1]: expected an index into shared.frames, found 9" in err and \
        os.path.exists(w("bad2.out"))
    (print if ok else fail)("%s damaged speedscope: rc %d, %s" % ("ok  " if ok else "", p.returncode, err.strip()))
    open(w("cut.ss.json"), "w").write(json.dumps(doc)[:120])
    p = run([pc, "convert", "--to", "collapsed", w("cut.ss.json")])
    err = p.stderr.decode()
    ok = p.returncode == 1 and "expected JSON" in err and "byte offset" in err
    (print if ok else fail)("%s cut speedscope: rc %d, %s" % ("ok  " if ok else "", p.returncode, err.strip()))

    # ---- zstd -----------------------------------------------------------------------------------
    if shutil.which("zstd"):
        m = sorted(glob.glob(os.path.join(corpus, "mojo", "*.mojo")))[0]
        subprocess.run(["zstd", "-q", "-f", m, "-o", w("x.mojo.zst")], check=True)
        a, b = run([pc, "convert", "--to", "collapsed", m]), run([pc, "convert", "--to", "collapsed", w("x.mojo.zst")])
        (print if a.stdout == b.stdout and not b.returncode else fail)("ok   .mojo.zst reads as the .mojo" if a.stdout == b.stdout else ".mojo.zst differs: %s" % b.stderr)
        bomb = subprocess.run(["zstd", "-q", "-c"], input=b"a;b 1\n" * (8 << 20), capture_output=True).stdout
        open(w("bomb.col.zst"), "wb").write(bomb)
        p = run([pc, "--max-memory", "16M", "convert", "--to", "collapsed", w("bomb.col.zst"), "-o", w("bomb.out")])
        err = p.stderr.decode()
        ok = p.returncode != 0 and "larger than the limit" in err
        (print if ok else fail)("%s zstd bomb (%d bytes -> 48 MiB) under --max-memory 16M: rc %d, %s" % ("ok  " if ok else "", len(bomb), p.returncode, err.strip()[-200:]))
        big = os.path.join(corpus, "mojo", "austin-python-testdata", "test.austin")
        z = subprocess.run(["zstd", "-q", "-c", big], capture_output=True).stdout
        open(w("cut.austin.zst"), "wb").write(z[:len(z) * 3 // 4])
        p = run([pc, "convert", "--to", "collapsed", w("cut.austin.zst"), "-o", w("cut.out")])
        err = p.stderr.decode()
        n = len(open(w("cut.out"), "rb").read().split(b"\n")) if os.path.exists(w("cut.out")) else 0
        ok = p.returncode == 1 and "zstd stream ends early" in err and n > 10
        (print if ok else fail)("%s cut zstd frame of Austin text: rc %d, %d lines kept, %s" % ("ok  " if ok else "", p.returncode, n, err.strip()[-160:]))
        gz = subprocess.run(["gzip", "-c", w("col.txt")], capture_output=True).stdout
        open(w("col.txt.gz"), "wb").write(gz)
        p = run([pc, "convert", "--to", "collapsed", w("col.txt.gz")])
        (print if p.stdout == b"a;b;c 12\nd 3\n" else fail)("ok   gzip-wrapped collapsed" if p.stdout == b"a;b;c 12\nd 3\n" else "gzip collapsed: %s" % p.stderr)

    # ---- merge --------------------------------------------------------------------------------------
    a, b = os.path.join(testdata, "pprof", "labels.cpu.pprof"), os.path.join(corpus, "pprof", "cpu.pprof")
    if not os.path.exists(b):
        b = a
    p = run([pc, "convert", "--to", "pprof", a, b])
    ok = p.returncode == 2 and b"use merge" not in p.stderr and b"profcodec merge" in p.stderr
    (print if ok else fail)("%s convert with two inputs: %s" % ("ok  " if ok else "", p.stderr.decode().strip()))
    p = run([pc, "merge", a, b, "--to", "pprof", "-o", w("merged.pb")])
    if p.returncode:
        fail("merge: %s" % p.stderr)
    elif not SMALL or True:
        env = go_env(work)
        ref = subprocess.run([GO, "tool", "pprof", "-proto", a, b], capture_output=True, env=env)
        open(w("ref.pb"), "wb").write(ref.stdout)
        def totals(path):
            text = subprocess.run([GO, "tool", "pprof", "-raw", path], capture_output=True, env=env).stdout.decode(errors="surrogateescape")
            types, _, samples, locs = parse_raw(text)
            per = collections.Counter()
            sources = set()
            for vals, ids, labels in samples:
                stack = tuple(fr for i in ids for fr in locs[i])
                for t, v in enumerate(vals):
                    per[(types[t], stack)] += v
                sources.update(labels.get("source", []))
            return types, {k: v for k, v in per.items() if v}, sources
        t1, m1, s1 = totals(w("merged.pb"))
        t2, m2, _ = totals(w("ref.pb"))
        if t1 != t2:
            fail("merge: sample types %s, go tool pprof -proto's %s" % (t1, t2))
        elif m1 != m2:
            fail("merge: %d (type, stack) totals vs go's %d; differ: %s" % (len(m1), len(m2), sorted(set(m1.items()) ^ set(m2.items()))[:4]))
        else:
            tot = {t: sum(v for (ty, _), v in m1.items() if ty == t) for t in t1}
            print("ok   merge %s %s --to pprof = go tool pprof -proto: %d (type, stack) totals, totals %s" % (
                os.path.basename(a), os.path.basename(b), len(m1), tot))
        ok = s1 == {a, b} if a != b else s1 == {a}
        (print if ok else fail)("%s merge: source labels %s" % ("ok  " if ok else "", sorted(s1)))
    alloc = os.path.join(testdata, "pprof", "labels.allocs.pprof")
    p = run([pc, "merge", a, alloc, "--to", "collapsed"])
    err = p.stderr.decode()
    ok = p.returncode == 2 and "--force merges them" in err and not p.stdout
    (print if ok else fail)("%s merge of mismatched types refused: %s" % ("ok  " if ok else "", err.strip()[:200]))
    p = run([pc, "merge", a, alloc, "--force", "--to", "collapsed"])
    ok = p.returncode == 0 and b"--force" in p.stderr and p.stdout
    (print if ok else fail)("%s merge --force: rc %d %s" % ("ok  " if ok else "", p.returncode, p.stderr.decode().strip()[:200]))
    # the grouping and filters apply to the merged profile: --tag source=A keeps A's samples, which
    # are then A's own collapsed stacks; a filter that leaves nothing writes nothing (exit 1)
    if b != a:
        p = run([pc, "merge", a, b, "--to", "collapsed", "--tag", "source=" + re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", a)])
        q = run([pc, "convert", "--to", "collapsed", a])
        ok = p.returncode == 0 and q.returncode == 0 and multiset(p.stdout, 0) == multiset(q.stdout, 0)
        (print if ok else fail)("%s merge --tag source=A = A's collapsed stacks (rc %d %s)" % (
            "ok  " if ok else "", p.returncode, p.stderr.decode().strip()[:200]))
        p = run([pc, "merge", a, b, "--to", "collapsed", "--focus", "^no function is called this$", "-o", w("none.col")])
        ok = p.returncode == 1 and not os.path.exists(w("none.col"))
        (print if ok else fail)("%s merge --focus that leaves nothing: rc %d %s" % (
            "ok  " if ok else "", p.returncode, p.stderr.decode().strip()[:200]))
    # text and binary inputs together, into a timeline
    m = sorted(glob.glob(os.path.join(corpus, "mojo", "*.mojo")))[:2]
    if len(m) == 2:
        p = run([pc, "merge", m[0], m[1], "--to", "chrome", "-o", w("merged.chrome.json")])
        ok = p.returncode == 0 and json.load(open(w("merged.chrome.json")))["traceEvents"]
        (print if ok else fail)("%s merge of two MOJO files --to chrome: rc %d %s" % ("ok  " if ok else "", p.returncode, p.stderr.decode()[:200]))
        p = run([pc, "merge", m[0], m[0] + ".col" if False else w(os.path.basename(m[0]) + ".col"), "--force", "--to", "collapsed"])
        ok = p.returncode == 0
        (print if ok else fail)("%s merge of MOJO and collapsed text (--force) rc %d %s" % ("ok  " if ok else "", p.returncode, p.stderr.decode()[:200]))

    # top reads the text inputs (the same table as of the binary input they came from), and
    # formats lists them with what they convert to
    tb = os.path.join(testdata, "tachyon", "deep_zstd.bin")
    ss = run([pc, "convert", "--to", "speedscope", tb, "-o", w("deep.speedscope.json")])
    t1 = run([pc, "top", "--json", tb])
    t2 = run([pc, "top", "--json", w("deep.speedscope.json")])
    # (speedscope's weights are the samples' time: the same table in another unit, per total)
    def rows(p):
        if p.returncode:
            return None
        d = json.loads(p.stdout)
        return sorted((r["name"], r["file"], r["flat"] / d["total"], r["cum"] / d["total"]) for r in d["rows"])
    ok = ss.returncode == 0 and rows(t1) is not None and rows(t1) == rows(t2)
    (print if ok else fail)("%s top of a speedscope input = top of its source (rc %d %s)" % (
        "ok  " if ok else "", t2.returncode, t2.stderr.decode().strip()[:200]))
    f = run([pc, "formats"]).stdout.decode()
    ok = all(re.search(r"^%s  .*\n +convert to: .*\bcollapsed\b" % n, f, re.M) for n in ("speedscope", "austin", "collapsed"))
    (print if ok else fail)("%s formats lists the text inputs" % ("ok  " if ok else ""))

    if failures:
        print("%d failures" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
