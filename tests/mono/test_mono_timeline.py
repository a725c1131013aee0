#!/usr/bin/env python3
"""Mono timelines (issue 25): enter/leave events become a slice per call, on a track per thread.

For every Mono file of tests/data/mono and ../shared/corpus/mono, whole and cut short, against
`profcodec dump` (the generated decoder's events, a different path from the importer):
  - `convert --to chrome` has one X event per method_enter event, per thread (the buffer's
    thread id), closed or not (the calls' slices, category "mono"; GC events are slices of their
    own, test_mono_gc.py); a file without enter events or GC events says "nothing to show" and
    writes nothing;
  - per thread, in output order, the slices start at the enter events' times (ns, relative to
    the thread's first enter), so starts never go back, and are named by the JIT event of the
    method where the file has one;
  - slices nest: each one lies inside every slice still open around it;
  - a slice closed by anything but its own leave says how ("closed": "unwound" / "end of input");
  - a file cut short gives every call before the cut, and --max-memory too small is refused.

Sample hits (log:sample) are timed samples on their sampled thread, each counted once:
  - `convert --to ndjson` has one row per instruction pointer of each sample_hit event, on the
    event's thread (its tid), at the event's time (ns, the same offset for every hit), in time
    order per thread;
  - summed per stack, those rows are what `--to collapsed --metric samples` and `top --json`
    give (the outputs that sum keep the hits' totals);
  - `--to chrome` draws them: per thread, every X event of the hits starts at one of the
    thread's hit times, and its first starts at the thread's first hit;
  - --max-memory too small for the buffered hits is refused;
  - `--from A --until B` keeps the hits whose times (the ndjson rows') are in [A, B): collapsed
    is their sum per thread and stack; a range past the end writes nothing (exit 1); a log without hits
    (its samples the call tree's untimed sums) is refused, as before.

usage: test_mono_timeline.py PROFCODEC TESTDATA CORPUS WORKDIR
"""
import collections
import glob
import json
import os
import subprocess
import sys

PC, DATA, CORPUS, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []
checked = 0
SMALL = os.environ.get("PCD_TEST_SMALL", "") not in ("", "0") and os.environ.get("PCD_TEST_LONG", "0") in ("", "0")


def check(ok, what):
    global checked
    checked += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def dump_calls(path):
    """Per thread id: the enter events' (time, method) in file order; the JIT names by method."""
    p = subprocess.run([PC, "dump", path], capture_output=True)
    enters = collections.defaultdict(list)
    names = {}
    thread = None
    gcs = 0
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        r = json.loads(ln)
        k = r.get("_kind")
        if k == "buffer":
            thread = int(r["thread_id"], 16)
        elif k == "method_enter":
            enters[thread].append((r["time"], r["method"]))
        elif k == "jit":
            names.setdefault(r["method"], r.get("name"))
        elif k == "gc_event" and r.get("event") in ("start", 0, "pre_stop_world", 6, "mark_start", 1, "reclaim_start", 3):
            gcs += 1
    return enters, names, gcs


def dump_hits(path):
    """Per sampled thread id: the sample hits' times in file order, one per instruction pointer."""
    p = subprocess.run([PC, "dump", path], capture_output=True)
    hits = collections.defaultdict(list)
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        r = json.loads(ln)
        if r.get("_kind") == "sample_hit":
            hits[int(r["thread"], 16)].extend([r["time"]] * len(r["ips"]))
    return hits


def chrome(path, *extra, pre=()):
    out = os.path.join(WORK, os.path.basename(path) + ".json")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PC, *pre, "convert", "--to", "chrome", *extra, path, "-o", out], capture_output=True)
    doc = json.load(open(out)) if os.path.exists(out) else None
    return p.returncode, p.stderr.decode("utf-8", "replace"), doc


def ns(us):
    return round(us * 1000)


def check_file(path, label, whole):
    enters, names, gcs = dump_calls(path)
    n_enters = sum(len(v) for v in enters.values())
    rc, err, doc = chrome(path)
    if not n_enters and not gcs and not dump_hits(path):
        check(rc == 1 and "nothing to show" in err and doc is None,
              "%s: no calls: nothing to show, nothing written (exit %d: %s)" % (label, rc, err.strip()[:120]))
        return 0
    if not n_enters:
        hits = dump_hits(path)
        check(doc is not None and not any(e["ph"] == "X" and (e.get("cat") == "mono" or (not hits and e.get("cat") != "gc"))
                                          for e in doc["traceEvents"]),
              "%s: no calls: no call slices; without hits, only GC slices (exit %d: %s)" % (label, rc, err.strip()[:120]))
        return 0
    check(doc is not None and (rc == 0 if whole else rc in (0, 1)), "%s: chrome written (exit %d: %s)" % (label, rc, err.strip()[:160]))
    if doc is None:
        return 0
    per = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "mono":
            per[e["tid"]].append(e)
    if not dump_hits(path):
        check(sorted(per) == sorted(t for t in enters if enters[t]),
              "%s: the tracks are the threads with enter events (%s, %s)" % (label, sorted(per), sorted(enters)))
    for tid, evs in per.items():
        want = enters.get(tid, [])
        evs = [e for e in evs if e.get("cat") == "mono"]  # (the calls: the hits' frames are "code", "native")
        check(len(evs) == len(want), "%s: thread %x: %d slices, %d enter events" % (label, tid, len(evs), len(want)))
        t0 = want[0][0] if want else 0
        s0 = ns(evs[0]["ts"]) if evs else 0
        bad_time = bad_name = bad_nest = bad_closed = 0
        stack = []
        prev = None
        for e, (t, m) in zip(evs, want):
            start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            if start - s0 != t - t0 or (prev is not None and start < prev):
                bad_time += 1
            prev = start
            if names.get(m) and e["name"] != names[m]:
                bad_name += 1
            while stack and stack[-1] <= start and stack[-1] != end:
                stack.pop()
            # inside every open slice: ends no later than the innermost open one
            if stack and end > stack[-1]:
                bad_nest += 1
            stack.append(end)
            how = e.get("args", {}).get("closed")
            if how not in (None, "unwound", "end of input"):
                bad_closed += 1
        check(not bad_time, "%s: thread %x: %d slices do not start at their enter's time, in order" % (label, tid, bad_time))
        check(not bad_name, "%s: thread %x: %d slices not named by their method's JIT event" % (label, tid, bad_name))
        check(not bad_nest, "%s: thread %x: %d slices do not nest" % (label, tid, bad_nest))
        check(not bad_closed, "%s: thread %x: %d slices with an unknown 'closed'" % (label, tid, bad_closed))
    return n_enters


files = sorted(glob.glob(os.path.join(DATA, "mono", "*.mlpd")) + glob.glob(os.path.join(CORPUS, "mono", "*.mlpd")))
with_calls = 0
for f in files:
    if SMALL and os.path.getsize(f) > 120000:
        continue
    label = os.path.relpath(f, os.path.dirname(DATA) if f.startswith(DATA) else os.path.dirname(CORPUS))
    n = check_file(f, label, True)
    with_calls += n > 0
    if n:
        # cut short: every call before the cut (the last ones still open, closed at the end)
        data = open(f, "rb").read()
        for frac in ((2,) if SMALL else (3, 2)):
            cut = os.path.join(WORK, "cut%d_" % frac + os.path.basename(f))
            open(cut, "wb").write(data[:len(data) * (frac - 1) // frac + 7])
            check_file(cut, "%s cut at 1/%d" % (label, frac), False)
        rc, err, doc = chrome(f, pre=("--max-memory", "64K"))
        check(rc != 0 and "raise --max-memory" in err and doc is None,
              "%s: --max-memory 64K is refused (exit %d: %s)" % (label, rc, err.strip()[:160]))
check(with_calls >= 2, "at least two Mono files with calls were checked (%d)" % with_calls)

# the unwinding of an exception: every frame gets its own exception leave, so nothing is "unwound"
el = os.path.join(DATA, "mono", "enterleave.mlpd")
rc, err, doc = chrome(el)
if doc:
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "mono"]
    check(not any(e.get("args") for e in xs), "enterleave.mlpd: every call closed by its own leave")


def frames_key(stack):
    """An ndjson row's stack (leaf first) as collapsed writes it (outermost first, ';')."""
    return ";".join(f["function"].replace(";", ":").replace("\n", " ") for f in reversed(stack))


def check_hits(path, label, whole=True):
    hits = dump_hits(path)
    n = sum(len(v) for v in hits.values())
    if not n:
        return 0
    out = os.path.join(WORK, os.path.basename(path) + ".ndjson")
    p = subprocess.run([PC, "convert", "--to", "ndjson", "--metric", "samples", path, "-o", out], capture_output=True)
    check(p.returncode == (0 if whole else 1) and os.path.exists(out),
          "%s: ndjson (exit %d: %s)" % (label, p.returncode, p.stderr.decode()[:160]))
    rows = [json.loads(ln) for ln in open(out)] if os.path.exists(out) else []
    timed = [r for r in rows if r["time"] is not None]
    check(all(r["value"] == 1 and r["count"] == 1 for r in timed), "%s: a timed row is one hit" % label)
    check(all(r["value"] == 0 for r in rows if r["time"] is None), "%s: the call tree's rows hold no hits" % label)
    per = collections.defaultdict(list)
    for r in timed:
        per[int(r["tid"])].append(r["time"])
    t0 = min(t for v in hits.values() for t in v)
    r0 = min((t for v in per.values() for t in v), default=0)
    for tid in sorted(set(hits) | set(per)):
        want = sorted(t - t0 for t in hits.get(tid, []))
        got = [t - r0 for t in per.get(tid, [])]
        check(got == want, "%s: thread %x: %d timed samples at the hits' times in order (%d hits; first %s, %s)"
              % (label, tid, len(got), len(want), got[:3], want[:3]))
    # summed per stack: the hits' totals of the outputs that sum
    sums = collections.Counter()
    for r in timed:
        sums[frames_key(r["stack"])] += 1
    p = subprocess.run([PC, "convert", "--to", "collapsed", "--metric", "samples", path], capture_output=True)
    folded = collections.Counter()
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        st, _, v = ln.rpartition(" ")
        folded[st] += int(v)
    check(sums == folded, "%s: the timed samples summed per stack are collapsed's (%d stacks, %d; %d hits, %d)"
          % (label, len(sums), len(folded), sum(sums.values()), sum(folded.values())))
    p = subprocess.run([PC, "top", "--json", "--metric", "samples", "-n", "100000", path], capture_output=True)
    top = json.loads(p.stdout) if p.returncode == (0 if whole else 1) and p.stdout else {}
    rows_top = top.get("rows", top.get("functions", [])) if isinstance(top, dict) else top
    flat = collections.Counter()
    for r in timed:
        flat[r["stack"][0]["function"]] += 1
    tflat = {r["name"]: r["flat"] for r in rows_top if r.get("flat")}
    check(dict(flat) == tflat, "%s: the timed samples' leaves are top's flat (%d, %d functions)" % (label, len(flat), len(tflat)))
    # chrome: the hits' frames start at hit times of their thread, the first at its first hit
    rc, err, doc = chrome(path)
    xs = [e for e in (doc or {}).get("traceEvents", []) if e["ph"] == "X" and e.get("cat") != "mono"]
    byt = collections.defaultdict(list)
    for e in xs:
        byt[e["tid"]].append(ns(e["ts"]))
    c0 = min((t for v in byt.values() for t in v), default=0)
    for tid, want in hits.items():
        ts = set(t - t0 for t in want)
        got = [t - c0 for t in byt.get(tid, [])]
        check(got and min(got) == min(ts) and all(t in ts for t in got),
              "%s: chrome: thread %x: %d X events of the hits start at its hit times (first %s, %s)"
              % (label, tid, len(got), sorted(got)[:2], sorted(ts)[:2]))
    if whole:
        rc, err, doc = chrome(path, pre=("--max-memory", "300K"))
        check(rc != 0 and "raise --max-memory" in err and doc is None,
              "%s: --max-memory 300K is refused (exit %d: %s)" % (label, rc, err.strip()[:160]))
    return n


with_hits = 0
for f in files:
    if SMALL and os.path.getsize(f) > 120000:
        continue
    label = os.path.relpath(f, os.path.dirname(DATA) if f.startswith(DATA) else os.path.dirname(CORPUS))
    if check_hits(f, label) > 0:
        with_hits += 1
        # cut short (the sampler's buffers come late in the file): every hit before the cut
        data = open(f, "rb").read()
        cut = os.path.join(WORK, "cut10_" + os.path.basename(f))
        open(cut, "wb").write(data[:len(data) * 9 // 10])
        check(check_hits(cut, label + " cut at 9/10", False) > 0, "%s cut at 9/10: hits before the cut" % label)
check(with_hits >= 1, "at least one Mono file with sample hits was checked (%d)" % with_hits)


def collapsed(path, *extra):
    """`convert --to collapsed --metric samples` (with extra options): exit, stderr, the lines
    summed per stack (None when no file was written)."""
    out = os.path.join(WORK, os.path.basename(path) + ".range.folded")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PC, "convert", "--to", "collapsed", "--metric", "samples", *extra, path, "-o", out],
                       capture_output=True)
    folded = None
    if os.path.exists(out):
        folded = collections.Counter()
        for ln in open(out, encoding="utf-8", errors="replace").read().splitlines():
            st, _, v = ln.rpartition(" ")
            folded[st] += int(v)
    return p.returncode, p.stderr.decode("utf-8", "replace"), folded


# --from/--until on a sampling log: the hits whose times are in [A, B), summed per thread and
# stack (the call tree's sums have no time: outside every range); the times are the ndjson rows' (ns since
# the file's first event, the filter's time 0), the bounds in seconds as the filter reads them
def thread_key(r):
    """An ndjson row's thread as collapsed prefixes a thread's lines (P<pid>;T<tid>;): a hit in a
    range is a sample of its thread, not of the call tree's blank one."""
    return ("P%d;" % r["pid"] if r.get("pid") is not None else "") + "T%d;" % r["tid"]


sample = os.path.join(DATA, "mono", "sample.mlpd")
out = os.path.join(WORK, "range.ndjson")
p = subprocess.run([PC, "convert", "--to", "ndjson", "--metric", "samples", sample, "-o", out], capture_output=True)
rows = [json.loads(ln) for ln in open(out)] if p.returncode == 0 and os.path.exists(out) else []
timed = sorted((r for r in rows if r["time"] is not None), key=lambda r: r["time"])
check(len(timed) > 100, "sample.mlpd: ndjson has the hits (%d rows)" % len(timed))
if timed:
    # bounds at hits' own times (a hit at A is in, one at B is out), and between hits
    ta, tb = timed[len(timed) // 4]["time"], timed[len(timed) * 2 // 3]["time"]
    ranges = [("%.9f" % (ta / 1e9), "%.9f" % (tb / 1e9)), ("0", "0.3"), ("0.25", None), (None, "0.2")]
    for a, b in ranges:
        lo = int(float(a) * 1e9) if a is not None else 0
        hi = int(float(b) * 1e9) if b is not None else 1 << 62
        want = collections.Counter(thread_key(r) + frames_key(r["stack"]) for r in timed if lo <= r["time"] < hi)
        extra = (["--from", a] if a is not None else []) + (["--until", b] if b is not None else [])
        rc, err, got = collapsed(sample, *extra)
        check(rc == 0 and got == want and sum(want.values()) > 0,
              "sample.mlpd %s: the hits in the range summed per thread and stack (exit %d: %s; %d stacks, %s; %d hits, %s)"
              % (" ".join(extra), rc, err.strip()[:120], len(want), len(got or ()), sum(want.values()),
                 sum((got or {}).values())))
    # the edges: a hit at A is in the range, a hit at B is not
    rc, err, got = collapsed(sample, "--from", "%.9f" % (ta / 1e9), "--until", "%.9f" % ((ta + 1) / 1e9))
    n_at = sum(1 for r in timed if r["time"] == ta)
    check(rc == 0 and got is not None and sum(got.values()) == n_at,
          "sample.mlpd: [A, A+1ns) holds the %d hits at A (exit %d, %s)" % (n_at, rc, got))
    # a range past the end: nothing written, exit 1
    end = timed[-1]["time"] / 1e9
    rc, err, got = collapsed(sample, "--from", "%.3f" % (end + 1))
    check(rc == 1 and got is None and "nothing to show" in err,
          "sample.mlpd --from past the end: nothing written, exit 1 (exit %d: %s)" % (rc, err.strip()[:160]))
# a log without hits refuses as before (its samples are the call tree's sums, with no time)
for path in (os.path.join(DATA, "mono", "aot.mlpd"), os.path.join(CORPUS, "mono", "alloc.mlpd"),
             os.path.join(CORPUS, "mono", "calls.mlpd")):
    f = os.path.basename(path)
    if not os.path.exists(path):
        continue
    rc, err, got = collapsed(path, "--from", "0")
    check(rc == 2 and got is None and "the samples of a mono file have no times" in err,
          "%s --from 0: refused, the samples have no times (exit %d: %s)" % (f, rc, err.strip()[:160]))

print("mono timeline: %d checks, %d failures" % (checked, len(failures)))
sys.exit(1 if failures else 0)
