#!/usr/bin/env python3
"""Issue 27: `--to firefox`, the Firefox Profiler's processed format (version 70).

Every input file tests/data/PROVENANCE lists whose format converts to firefox is converted and
checked by firefox_check.py (written from the profiler's documented types, not from our writer):
tables, lengths, indices, prefixes, categories, times, markers and their schemas. The output is
the same bytes twice. The markers the inputs carry are there (Tachyon's GIL and GC, MOJO's GC
and idle, Heph's spans, one marker per span), and the samples are all there. Then the checker
is shown to fail on planted errors, one at a time.

usage: test_firefox.py PROFCODEC TESTDATA WORKDIR
"""
import copy
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import firefox_check  # noqa: E402

PC, DATA, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL " + what)


def run(*args):
    p = subprocess.run([PC, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def inputs():
    fits = {(f["name"], f["version"]): f["convert_to"] for f in json.loads(run("formats", "--json")[1])}
    with open(os.path.join(DATA, "PROVENANCE"), encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            path, _kind, fv = line.rstrip("\n").split("\t")[:3]
            if fv == "-":
                continue
            fmt, ver = fv.split(":")
            if "firefox" in fits.get((fmt, ver), []):
                yield os.path.join(DATA, path), fmt


def names(doc, t):
    return [doc["shared"]["stringArray"][i] for i in t["markers"]["name"]]


converted = 0
docs = {}
for path, fmt in inputs():
    rel = os.path.relpath(path, DATA)
    rc, data, err = run("convert", "--to", "firefox", path)
    damaged = run("validate", path)[0] != 0
    if rc == 1 and not data and ("nothing to show" in err or damaged):
        print("skip %s: %s" % (rel, err.strip().splitlines()[-1][:160] if err.strip() else "exit 1"))
        continue
    check(rc == 0 or (damaged and rc == 1 and data), "%s: exit %d: %s" % (rel, rc, err.strip()[:300]))
    if not data:
        continue
    converted += 1
    doc = json.loads(data)
    errs = firefox_check.check(doc)
    for e in errs[:5]:
        print("  %s: %s" % (rel, e))
    check(not errs, "%s: the checker finds %d problems" % (rel, len(errs)))
    check(run("convert", "--to", "firefox", path)[1] == data, "%s: the same bytes twice" % rel)
    docs[rel] = doc
    # something to show: samples weigh something (a metric without values gave an empty call tree)
    rows = [t["samples"] for t in doc["threads"] if t["samples"]["length"]]
    check(not rows or any(r["weight"] is None or any(w > 0 for w in r["weight"]) for r in rows),
          "%s: every sample weighs 0" % rel)
    if not damaged and (fmt == "tachyon" or (fmt == "mojo" and not rel.startswith("mojo/v4"))):
        # every sample is there, one row each (MOJO 4's task lanes have rows of their own)
        info = json.loads(run("info", "--json", path)[1])["summary"]
        want = info.get("samples")
        got = sum(t["samples"]["length"] for t in doc["threads"])
        if isinstance(want, int):
            check(got == want, "%s: %d sample rows, the input has %d samples" % (rel, got, want))

check(converted >= 20, "converted %d files (every sample-bearing file of tests/data)" % converted)

# ---- the markers the inputs carry ---------------------------------------------------------------
def marker_names(rel):
    doc = docs.get(rel)
    return [n for t in doc["threads"] for n in names(doc, t)] if doc else []


check("GIL held" in marker_names("tachyon/threads_gil_none.bin"), "Tachyon: GIL markers from the status bits")
check("GC" in marker_names("tachyon/gc_native_opcodes_zstd.bin"), "Tachyon: GC markers from <GC> frames")
check("On CPU" in marker_names("tachyon/sleepy_cpu_zstd.bin"), "Tachyon: On CPU markers (cpu mode)")
mojo = marker_names("mojo/v3_full.mojo")
check("GC" in mojo and "Idle" in mojo, "MOJO: GC and idle markers (%s)" % sorted(set(mojo)))
heph = docs.get("heph/runtime_example.bin.log")
if heph:
    spans = sum(1 for t in heph["threads"] for d in t["markers"]["data"] if d and d["type"] == "Span")
    chrome = json.loads(run("convert", "--to", "chrome", os.path.join(DATA, "heph/runtime_example.bin.log"))[1])
    xs = sum(1 for e in chrome["traceEvents"] if e.get("ph") == "X")
    check(spans == xs and spans > 0, "Heph: %d Span markers, chrome has %d spans" % (spans, xs))
else:
    check(False, "Heph: runtime_example converted")

# ---- the checker fails on planted errors -------------------------------------------------------
base = docs.get("tachyon/gc_native_opcodes_zstd.bin")


def plant(what, fn):
    d = copy.deepcopy(base)
    fn(d)
    errs = firefox_check.check(d)
    check(bool(errs), "planted error caught: %s" % what)


if base:
    sh = base["shared"]
    plant("a frame index past the frame table", lambda d: d["shared"]["stackTable"]["frame"].__setitem__(0, len(sh["frameTable"]["func"])))
    plant("a prefix after its stack", lambda d: d["shared"]["stackTable"]["prefixOffset"].__setitem__(0, 1))
    plant("a sample time that goes back", lambda d: d["threads"][0]["samples"]["time"].__setitem__(1, -5))
    plant("a string index past the string array", lambda d: d["shared"]["funcTable"]["name"].__setitem__(0, len(sh["stringArray"])))
    plant("an unknown category", lambda d: d["shared"]["frameTable"]["category"].__setitem__(0, 99))
    plant("a column shorter than its table", lambda d: d["shared"]["funcTable"]["isJS"].pop())
    plant("a marker type without a schema", lambda d: [t["markers"]["data"].__setitem__(0, {"type": "Nope"}) for t in d["threads"] if t["markers"]["length"]])
    plant("no grey category", lambda d: [c.__setitem__("color", "blue") for c in d["meta"]["categories"] if c["color"] == "grey"])
    plant("the removed stackTable.prefix (version 66)", lambda d: d["shared"]["stackTable"].__setitem__("prefix", [None] * d["shared"]["stackTable"]["length"]))
    plant("a per-thread stringArray (before version 56)", lambda d: d["threads"][0].__setitem__("stringArray", []))
    plant("another version", lambda d: d["meta"].__setitem__("preprocessedProfileVersion", 57))
    plant("an interval marker that ends before it starts", lambda d: [t["markers"]["endTime"].__setitem__(0, -1) for t in d["threads"] if t["markers"]["length"]])
    plant("a sample stack past the stack table", lambda d: d["threads"][0]["samples"]["stack"].__setitem__(0, d["shared"]["stackTable"]["length"]))
else:
    check(False, "tachyon/gc_native_opcodes_zstd.bin converted (the planted errors' base)")

print("firefox: %d files converted and checked, %d checks passed, %d failed" % (converted, passed, len(failures)))
sys.exit(1 if failures else 0)
