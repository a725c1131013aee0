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


def chrome(path, *extra):
    out = os.path.join(WORK, os.path.basename(path) + ".json")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PC, "convert", "--to", "chrome", *extra, path, "-o", out], capture_output=True)
    doc = json.load(open(out)) if os.path.exists(out) else None
    return p.returncode, p.stderr.decode("utf-8", "replace"), doc


def ns(us):
    return round(us * 1000)


def check_file(path, label, whole):
    enters, names, gcs = dump_calls(path)
    n_enters = sum(len(v) for v in enters.values())
    rc, err, doc = chrome(path)
    if not n_enters and not gcs:
        check(rc == 1 and "nothing to show" in err and doc is None,
              "%s: no calls: nothing to show, nothing written (exit %d: %s)" % (label, rc, err.strip()[:120]))
        return 0
    if not n_enters:
        check(doc is not None and not any(e["ph"] == "X" and e.get("cat") != "gc" for e in doc["traceEvents"]),
              "%s: no calls, GC events: only GC slices (exit %d: %s)" % (label, rc, err.strip()[:120]))
        return 0
    check(doc is not None and (rc == 0 if whole else rc in (0, 1)), "%s: chrome written (exit %d: %s)" % (label, rc, err.strip()[:160]))
    if doc is None:
        return 0
    per = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "mono":
            per[e["tid"]].append(e)
    check(sorted(per) == sorted(t for t in enters if enters[t]),
          "%s: the tracks are the threads with enter events (%s, %s)" % (label, sorted(per), sorted(enters)))
    for tid, evs in per.items():
        want = enters.get(tid, [])
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
        rc, err, doc = chrome(f, "--max-memory", "300K")
        check(rc != 0 and "--max-memory" in err and doc is None,
              "%s: --max-memory 300K is refused (exit %d: %s)" % (label, rc, err.strip()[:160]))
check(with_calls >= 2, "at least two Mono files with calls were checked (%d)" % with_calls)

# the unwinding of an exception: every frame gets its own exception leave, so nothing is "unwound"
el = os.path.join(DATA, "mono", "enterleave.mlpd")
rc, err, doc = chrome(el)
if doc:
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "mono"]
    check(not any(e.get("args") for e in xs), "enterleave.mlpd: every call closed by its own leave")

print("mono timeline: %d checks, %d failures" % (checked, len(failures)))
sys.exit(1 if failures else 0)
