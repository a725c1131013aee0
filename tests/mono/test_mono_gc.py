#!/usr/bin/env python3
"""Mono's GC events on the timeline (issue 27): GC slices on one "GC" track of the process.

For every Mono file of tests/data/mono and ../shared/corpus/mono, whole and cut short:
  - against mprof-report (its report kept beside the file, `NAME.report.txt`, else mprof-report
    run where it is installed: "GenN collections: count, max time, total time"): `convert --to chrome` has as many "GenN collection" slices
    per generation, and their durations (ns) give the same total and maximum in µs (mprof-report
    sums ns and divides by 1000); a file whose report has no collections has none;
  - against `dump` (the generated decoder, not the importer): one slice per start event of a
    collection, a mark or reclaim phase, and a world stop (pre_stop_world), each starting at its
    event's time (ns, relative to the first one's) with its generation and
    the thread whose buffer holds the event; a collection lies inside its world stop;
  - `convert --to firefox`: the same slices as markers of schema "GC" in the GC category, with
    their generation, on the "GC" thread; the "GC" schema only in files that have some;
  - `--to collapsed` is unchanged by them (the call tree); a file cut short gives the slices that
    started before the cut, at the same times.
A file without GC events has no GC track.

usage: test_mono_gc.py PROFCODEC TESTDATA CORPUS WORKDIR
"""
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys

PC, DATA, CORPUS, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []
checked = 0
SMALL = os.environ.get("PCD_TEST_SMALL", "") not in ("", "0") and os.environ.get("PCD_TEST_LONG", "0") in ("", "0")
STARTS = {"start": "collection", "mark_start": "Mark", "reclaim_start": "Reclaim", "pre_stop_world": "World stopped"}


def check(ok, what):
    global checked
    checked += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def dump_gc(path):
    """The GC start events, in file order: (kind name, generation, time, thread id)."""
    p = subprocess.run([PC, "dump", "--all", path], capture_output=True)
    starts = []
    thread = None
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        r = json.loads(ln)
        k = r.get("_kind")
        if k == "buffer":
            thread = int(r["thread_id"], 16) if "thread_id" in r else None
        if k == "gc_event" and r.get("event") in STARTS:
            starts.append((STARTS[r["event"]], r["generation"], r["time"], thread))
    return starts


def report_gc(path):
    """mprof-report's collections per generation: {gen: (count, max_us, total_us)}, from its report kept
    beside the file, else from mprof-report itself where it is installed (Debian's mono-utils); None
    without either."""
    rep = path[:-len(".mlpd")] + ".report.txt"
    if os.path.exists(rep):
        text = open(rep).read()
    elif shutil.which("mprof-report"):
        try:
            p = subprocess.run(["mprof-report", path], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None
        if p.returncode != 0:
            return None
        text = p.stdout.decode("utf-8", "replace")
    else:
        return None
    out = {}
    for m in re.finditer(r"Gen(\d+) collections: (\d+), max time: (\d+)us, total time: (\d+)us", text):
        out[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return out


def convert(path, to, *extra):
    out = os.path.join(WORK, os.path.basename(path) + "." + to)
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([PC, "convert", "--to", to, *extra, path, "-o", out], capture_output=True)
    data = open(out, "rb").read() if os.path.exists(out) else None
    return p.returncode, p.stderr.decode("utf-8", "replace"), data


def ns(us):
    return round(us * 1000)


def gc_slices(doc):
    """chrome's GC slices: (name, generation, start ns, end ns, thread) in output order; the GC track's (pid, tid)."""
    out, tracks = [], set()
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "gc":
            a = e.get("args", {})
            out.append((e["name"], a.get("generation"), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), a.get("thread"), a.get("closed")))
            tracks.add((e["pid"], e["tid"]))
    return out, tracks


def check_file(path, label, whole):
    starts = dump_gc(path)
    rc, err, data = convert(path, "chrome")
    if not starts:
        doc = json.loads(data) if data else None
        check(doc is None or not gc_slices(doc)[0], "%s: no GC events, no GC slices" % label)
        return []
    check(data is not None and (rc == 0 if whole else rc in (0, 1)), "%s: chrome written (exit %d: %s)" % (label, rc, err.strip()[:160]))
    if data is None:
        return []
    doc = json.loads(data)
    got, tracks = gc_slices(doc)
    check(len(tracks) == 1, "%s: the GC slices are on one track (%s)" % (label, sorted(tracks)))
    if tracks:
        pid, tid = next(iter(tracks))
        names = [e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"
                 and e["pid"] == pid and e["tid"] == tid]
        check(names == ["GC"], "%s: the GC track is named GC (%s)" % (label, names))
    # against dump: one slice per start event, in order, at its time, generation and thread
    check(len(got) == len(starts), "%s: %d GC slices, %d GC start events in dump" % (label, len(got), len(starts)))
    bad = []
    s0, t0 = (got[0][2], starts[0][2]) if got else (0, 0)
    for (name, gen, s, e, thr, closed), (kind, dgen, t, dthr) in zip(got, starts):
        want = "Gen%d collection" % dgen if kind == "collection" else kind
        if name != want or gen != dgen or s - s0 != t - t0 or thr != "0x%x" % dthr or e < s:
            bad.append(((name, gen, s - s0, thr), (want, dgen, t - t0, "0x%x" % dthr)))
        if closed not in (None, "end of input", "restarted") or (whole and closed == "end of input"):
            bad.append(("closed", name, closed))
    check(not bad, "%s: %d GC slices differ from dump's events; first %s" % (label, len(bad), bad[:1]))
    # a collection lies inside its thread's world stop (6.x writes both; 2010's files have no stops)
    stops = [(s, e, thr) for name, _, s, e, thr, _ in got if name == "World stopped"]
    if stops:
        outside = [x for x in got if x[0].endswith("collection") and not any(s <= x[2] and x[3] <= e and thr == x[4] for s, e, thr in stops)]
        check(not outside, "%s: %d collections outside a world stop; first %s" % (label, len(outside), outside[:1]))
    # against mprof-report
    rep = report_gc(path) if whole else None
    if rep is not None:
        per = collections.defaultdict(list)
        for name, gen, s, e, _, _ in got:
            if name.endswith("collection"):
                per[gen].append(e - s)
        mine = {g: (len(d), max(d) // 1000, sum(d) // 1000) for g, d in per.items()}
        check(mine == rep, "%s: collections per generation (count, max us, total us) %s, mprof-report %s" % (label, mine, rep))
    # firefox: the same slices as GC markers
    rc, err, fdata = convert(path, "firefox")
    check(fdata is not None, "%s: firefox written (exit %d: %s)" % (label, rc, err.strip()[:160]))
    if fdata:
        ff = json.loads(fdata)
        cats = [c["name"] for c in ff["meta"]["categories"]]
        schemas = [s["name"] for s in ff["meta"]["markerSchema"]]
        strings = ff["shared"]["stringArray"]
        marks = []
        for th in ff["threads"]:
            mk = th["markers"]
            for i in range(mk["length"]):
                d = mk["data"][i]
                if d and d.get("type") == "GC":
                    marks.append((th["name"], strings[mk["name"][i]], d.get("generation"), cats[mk["category"][i]],
                                  round(mk["startTime"][i] * 1e6), round(mk["endTime"][i] * 1e6)))
        want = [("GC", name, gen, "GC", s, e) for name, gen, s, e, _, _ in got]
        check("GC" in schemas, "%s: firefox has the GC marker schema (%s)" % (label, schemas))
        check(marks == want, "%s: firefox GC markers %d, chrome GC slices %d; first difference %s" % (
            label, len(marks), len(want), next(((a, b) for a, b in zip(marks, want) if a != b), None)))
    return got


files = sorted(glob.glob(os.path.join(DATA, "mono", "*.mlpd")) + glob.glob(os.path.join(CORPUS, "mono", "*.mlpd")))
with_gc = reported = 0
for f in files:
    if SMALL and os.path.getsize(f) > 120000:
        continue
    label = os.path.relpath(f, os.path.dirname(DATA) if f.startswith(DATA) else os.path.dirname(CORPUS))
    got = check_file(f, label, True)
    if not got:
        rc, err, fdata = convert(f, "firefox")
        if fdata:
            check("GC" not in [s["name"] for s in json.loads(fdata)["meta"]["markerSchema"]], "%s: no GC events, no GC schema" % label)
        continue
    with_gc += 1
    reported += report_gc(f) is not None
    # the call tree does not see them
    rc, err, col = convert(f, "collapsed")
    check(col is None or b"collection" not in col, "%s: collapsed stacks have no GC slices" % label)
    # cut short: the slices that started before the cut, at the same times
    data = open(f, "rb").read()
    cut = os.path.join(WORK, "cut2_" + os.path.basename(f))
    open(cut, "wb").write(data[:len(data) // 2 + 7])
    part = check_file(cut, label + " cut at 1/2", False)
    whole = collections.Counter((x[0], x[1], x[4]) for x in got)
    check(not (collections.Counter((x[0], x[1], x[4]) for x in part) - whole) and len(part) <= len(got),
          "%s cut at 1/2: %d GC slices, not a part of the whole file's %d" % (label, len(part), len(got)))
check(with_gc >= 3 and reported >= 3, "at least three Mono files with GC events checked, against mprof-report (%d, %d)" % (with_gc, reported))

print("mono gc: %d files with GC events, %d against mprof-report; %d checks, %d failures" % (with_gc, reported, checked, len(failures)))
sys.exit(1 if failures else 0)
