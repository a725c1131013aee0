#!/usr/bin/env python3
"""--to perfetto (issue 27), read back with our own decoder (`profcodec dump`: the generated
decoder of schemas/perfetto/v1.lua), for every file of tests/data whose format converts to
perfetto (`profcodec formats --json`):

  - every packet decodes, is on sequence 1, and the first clears the sequence's interned state;
  - every track an event uses was described before it (a thread track under its process's), every
    interned id (event names, function names, frames, callstacks) was defined before its use and
    never defined twice;
  - slices: each SLICE_BEGIN is closed by a SLICE_END on its track; per thread (by process and
    thread name), the slices (name, begin, end, depth) equal our chrome output's X events (spans:
    Heph's, Mono's calls), the depth computed from the times the same way for both;
  - timed samples: a PerfSample per sample, each on a described thread, its callstack's frames
    all named; their number is the number of timed samples the input has (Tachyon: `info
    --json`'s samples);
  - an input with neither spans nor timed samples says "nothing to show" and writes nothing;
  - the bytes are the same when converted twice.

usage: test_perfetto.py PROFCODEC TESTDATA WORKDIR
"""
import collections
import json
import os
import subprocess
import sys

PC, DATA, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
failures = []
checked = 0


def check(ok, what):
    global checked
    checked += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def run(*args):
    p = subprocess.run([PC, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def convert(path, to, out):
    if os.path.exists(out):
        os.unlink(out)
    rc, _, err = run("convert", "--to", to, path, "-o", out)
    return rc, err, (open(out, "rb").read() if os.path.exists(out) else None)


def nest(slices):
    """(name, start, end) per thread -> sorted (name, start, end, depth)."""
    out = []
    stack = []
    for name, s, e in sorted(slices, key=lambda x: (x[1], -x[2], x[0])):
        while stack and stack[-1] <= s and not (stack[-1] == s == e):
            stack.pop()
        out.append((name, s, e, len(stack)))
        stack.append(e)
    return sorted(out)


def read_perfetto(label, path):
    """Tracks, slices per (process name, thread name), perf samples; checks the stream."""
    rc, out, err = run("dump", path)
    check(rc == 0, "%s: dump reads every packet (exit %d: %s)" % (label, rc, err.strip()[:200]))
    recs = [json.loads(ln) for ln in out.decode("utf-8").splitlines()]
    packets = [r for r in recs if r.get("_kind") == "packet"]
    check(len(packets) + 1 == len(recs), "%s: every record is a packet" % label)
    check(packets and packets[0].get("sequence_flags") == "incremental_state_cleared"
          and packets[0].get("first_packet_on_sequence"), "%s: the first packet clears the sequence's state" % label)
    procs, threads = {}, {}
    names, fns, frames, stacks = {}, {}, {}, {}
    open_ = collections.defaultdict(list)
    slices = collections.defaultdict(list)
    samples = []
    bad = collections.Counter()
    for pk in packets:
        if pk.get("trusted_packet_sequence_id") != 1:
            bad["packet not on sequence 1"] += 1
        idata = pk.get("interned_data", {})
        for table, field, into in (("event_names", "name", names), ("function_names", "str", fns),
                                   ("frames", "function_name_id", frames), ("callstacks", "frame_ids", stacks)):
            for e in idata.get(table, []):
                if e["iid"] in into:
                    bad["%s iid defined twice" % table] += 1
                into[e["iid"]] = e.get(field)
        if idata and pk.get("sequence_flags") != "needs_incremental_state":
            bad["interned data without needs_incremental_state"] += 1
        td = pk.get("track_descriptor")
        if td:
            if "process" in td:
                procs[td["uuid"]] = td["process"].get("process_name")
            elif "thread" in td:
                if td.get("parent_uuid") not in procs:
                    bad["thread track before its process's"] += 1
                # names resolve at the end: a later descriptor of the same uuid renames the track
                threads[td["uuid"]] = (td.get("parent_uuid"), td["thread"].get("thread_name"),
                                       td["thread"]["pid"], td["thread"]["tid"])
        te = pk.get("track_event")
        if te:
            t = te.get("track_uuid")
            if t not in threads:
                bad["event on an undescribed track"] += 1
                continue
            if te.get("type") == "slice_begin":
                if te.get("name_iid") not in names:
                    bad["name iid not defined before"] += 1
                open_[t].append((names.get(te.get("name_iid")), pk["timestamp"]))
            elif te.get("type") == "slice_end":
                if not open_[t]:
                    bad["end without a begin"] += 1
                    continue
                n, s = open_[t].pop()
                slices[t].append((n, s, pk["timestamp"]))
            else:
                bad["another event type"] += 1
        ps = pk.get("perf_sample")
        if ps:
            if not any(v[2:] == (ps["pid"], ps["tid"]) for v in threads.values()):
                bad["sample of an undescribed thread"] += 1
            cs = stacks.get(ps.get("callstack_iid"))
            if cs is None or any(f not in frames or frames[f] not in fns for f in cs):
                bad["callstack, frame or name not defined before"] += 1
            samples.append(ps)
    check(not any(open_.values()), "%s: every slice ends" % label)
    check(not bad, "%s: %s" % (label, dict(bad)))
    named = collections.defaultdict(list)
    for t, v in slices.items():
        named[(procs.get(threads[t][0]), threads[t][1])] += v
    return named, samples


def read_chrome(data):
    doc = json.loads(data)
    pnames, tnames = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    slices = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            s = round(e["ts"] * 1000)
            key = (pnames.get(e["pid"], "process %d" % e["pid"]), tnames.get((e["pid"], e["tid"]), "Thread %d" % e["tid"]))
            slices[key].append((e["name"], s, s + round(e["dur"] * 1000)))
    return slices


rc, out, _ = run("formats", "--json")
fmts = json.loads(out)
takes = set()
for f in fmts["formats"] if isinstance(fmts, dict) else fmts:
    if "perfetto" in f.get("outputs", f.get("convert_to", [])):
        takes.add((f["name"], str(f["version"])))
check(takes, "some format converts to perfetto (%s)" % sorted(takes))

files = []
with open(os.path.join(DATA, "PROVENANCE"), encoding="utf-8") as fh:
    for ln in fh:
        parts = ln.split("\t")
        if len(parts) >= 3 and not ln.startswith("#") and ":" in parts[2]:
            name, ver = parts[2].split(":", 1)
            if (name, ver) in takes:
                files.append((parts[0], name))

with_slices = with_samples = 0
for rel, fmt in files:
    path = os.path.join(DATA, rel)
    label = rel
    rc_valid, _, _ = run("validate", path)
    damaged = rc_valid != 0
    pf = os.path.join(WORK, rel.replace("/", "__") + ".pftrace")
    rc, err, data = convert(path, "perfetto", pf)
    if rc == 1 and "nothing to show" in err:
        check(data is None, "%s: nothing to show, nothing written" % label)
        rc2, err2, _ = convert(path, "chrome", pf + ".json")
        check(rc2 == 1 and "nothing to show" in err2, "%s: perfetto has nothing to show, and neither has chrome (%s)" % (label, err2.strip()[:120]))
        continue
    check(data is not None and rc in ((0, 1) if damaged else (0,)), "%s: converted (exit %d: %s)" % (label, rc, err.strip()[:200]))
    if data is None:
        continue
    rc, err, again = convert(path, "perfetto", pf + ".again")
    check(again == data, "%s: the same bytes twice" % label)
    slices, samples = read_perfetto(label, pf)
    if slices:
        with_slices += 1
        rc, err, cj = convert(path, "chrome", pf + ".json")
        chrome = read_chrome(cj) if cj else {}
        if fmt in ("heph", "mono"):
            check(sorted(slices) == sorted(chrome), "%s: the threads are chrome's (%s / %s)" % (label, sorted(slices)[:4], sorted(chrome)[:4]))
            for key in slices:
                a, b = nest(slices[key]), nest(chrome.get(key, []))
                check(a == b, "%s: thread %s: %d slices, chrome %d; first difference %s" % (
                    label, key, len(a), len(b), next(((x, y) for x, y in zip(a, b) if x != y), None)))
    if samples:
        with_samples += 1
        if fmt == "tachyon" and not damaged:
            rc, out, _ = run("info", "--json", path)
            n = json.loads(out)["summary"].get("samples")
            check(n is None or len(samples) == n, "%s: %d perf samples, info says %s" % (label, len(samples), n))

check(with_slices >= 2, "files with slices read back: %d" % with_slices)
print("perfetto: %d files, %d with slices, %d with samples; %d checks, %d failures" % (
    len(files), with_slices, with_samples, checked, len(failures)))
sys.exit(1 if failures else 0)
