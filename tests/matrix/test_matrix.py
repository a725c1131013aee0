#!/usr/bin/env python3
"""The conversion matrix: every input file in tests/data, converted to every output its format
lists (`profcodec formats --json`), each result checked by a reader that is not the writer:

  speedscope  against speedscope's own file-format schema (the npm package's
              dist/release/file-format-schema.json), and its frame indexes in range;
  chrome      parsed as JSON: a traceEvents array of well-formed events;
  collapsed   every line "frames value"; the totals of each metric equal the input's own
              totals as `info --json` counts them (a different code path: the summaries);
  austin      every line Austin's grammar; read back (encode --from austin) and written again,
              the same text;
  mojo        read back: validates as MOJO 3, its collapsed sample count is the input's (the
              sample lines of the input's Austin text), and for MOJO input its time and memory
              totals are the input's own;
  html        one page: its data (#pcd-data) parsed as JSON, with frames, nodes and threads
              (tests/pictures checks it in depth, and in a browser);
  svg         parsed as XML: an <svg> with a frame per <g> (tests/pictures compares them);
  perfetto    validated by our own decoder of schemas/perfetto/v1.lua;
  tachyon     read back: validates as Tachyon 1 (and CPython's own reader when
              PCD_CPYTHON315_ROOT is set), its collapsed sample count is the input's;
  ndjson      every line a JSON object of a sample; its values' total per type equals the
              collapsed output's (the aggregate's path);
  table       the directory (-o DIR): every file JSON lines, one row per sample in
              samples.ndjson as profile.ndjson counts, every stack, frame and thread a sample
              names has its row (tests/tables runs DuckDB on them);
  the format's own outputs (summary, samples): exit status and non-empty output.
An output with nothing to show (docs/design.md) exits 1, says "nothing to show" and writes
nothing: accepted where the input's own summary has no sample values at all, and for a --metric
whose total the summary says is 0.

Sized for the sanitizers (PCD_TEST_SMALL=1, make test's sanitize tree, not with PCD_TEST_LONG=1):
every format version to every output it lists, on its files of at most 4 KB, and on its smallest
file when it has none that small; every file in the fast tree.

usage: test_matrix.py PROFCODEC TESTDATA SCHEMA WORKDIR
"""
import json
import os
import re
import subprocess
import sys

PROFCODEC, DATA, SCHEMA, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []
checked = 0


def fail(what):
    failures.append(what)
    print("FAIL: " + what)


def run(*args, ok=(0,)):
    p = subprocess.run([PROFCODEC, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


SMALL = os.environ.get("PCD_TEST_SMALL", "") not in ("", "0") and os.environ.get("PCD_TEST_LONG", "0") in ("", "0")


def inputs():
    """(path, format, version) of every file PROVENANCE lists with a version this build reads
    (sized for the sanitizers: the small ones, and each version's smallest)."""
    every = []
    with open(os.path.join(DATA, "PROVENANCE"), encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            path, _kind, fv = line.rstrip("\n").split("\t")[:3]
            if fv == "-":
                continue
            fmt, ver = fv.split(":")
            every.append((os.path.join(DATA, path), fmt, ver))
    if not SMALL:
        return every
    smallest = {}
    for path, fmt, ver in every:
        k = (fmt, ver)
        if k not in smallest or os.path.getsize(path) < os.path.getsize(smallest[k]):
            smallest[k] = path
    keep = [(p, f, v) for p, f, v in every if os.path.getsize(p) <= 4096 or smallest[(f, v)] == p]
    print("matrix: sized for the sanitizers, %d of %d files (PCD_TEST_LONG=1: all)" % (len(keep), len(every)))
    return keep


def formats():
    rc, out, _ = run("formats", "--json")
    return {(f["name"], f["version"]): f["convert_to"] for f in json.loads(out)}


try:
    import jsonschema
    with open(SCHEMA, encoding="utf-8") as f:
        SPEEDSCOPE = jsonschema.Draft7Validator(json.load(f))
except (ImportError, OSError) as e:
    print("matrix: the speedscope schema cannot be loaded (%s); run scripts/setup-deps.sh" % e)
    sys.exit(1)


def check_speedscope(name, data):
    doc = json.loads(data)
    errs = sorted(SPEEDSCOPE.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:3]:
        fail("%s: speedscope schema: %s at %s" % (name, e.message[:200], list(e.path)[:6]))
    n = len(doc["shared"]["frames"])
    for p in doc["profiles"]:
        idx = [i for s in p.get("samples", []) for i in s] + [e["frame"] for e in p.get("events", [])]
        if any(not (0 <= i < n) for i in idx):
            fail("%s: profile %r uses a frame index outside 0..%d" % (name, p["name"], n - 1))
        if p["type"] == "sampled" and len(p["samples"]) != len(p["weights"]):
            fail("%s: profile %r has %d samples and %d weights" % (name, p["name"], len(p["samples"]), len(p["weights"])))
        if p["type"] == "evented":
            open_ = []
            for e in p["events"]:
                if e["type"] == "O":
                    open_.append(e["frame"])
                elif not open_ or open_.pop() != e["frame"]:
                    fail("%s: profile %r closes frame %d out of order" % (name, p["name"], e["frame"]))
                    break


def check_chrome(name, data):
    doc = json.loads(data)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        fail("%s: no traceEvents array" % name)
        return
    for e in evs:
        if e.get("ph") == "X" and not (isinstance(e.get("ts"), (int, float)) and e.get("dur", 0) >= 0):
            fail("%s: a complete event without a time or with a negative duration: %r" % (name, e))
            return


LINE = re.compile(rb"^(.+) (\d+)$")


def collapsed_total(name, data):
    total = 0
    for ln in data.split(b"\n")[:-1]:
        m = LINE.match(ln)
        if not m:
            fail("%s: not a collapsed line: %r" % (name, ln[:120]))
            return None
        total += int(m.group(2))
    if data and not data.endswith(b"\n"):
        fail("%s: the last line has no newline" % name)
    return total


def info(path):
    rc, out, _ = run("info", "--json", path)
    return json.loads(out)["summary"] if out else {}


def expected_totals(fmt, path):
    """{(metric, extra convert options): total} from the input's own summary."""
    s = info(path)
    if fmt == "mojo":
        # MOJO 4's asyncio tasks are samples of their own (lanes), which the summary counts apart
        return {("time", ()): int(s["time_us"]) + int(s["task_time_us"]), ("memory", ()): s["memory_allocated"],
                ("samples", ()): s["samples"] + s["task_samples"]}
    if fmt == "tachyon":
        # the default dialect keeps empty stacks (CPython's collapsed leaves them out)
        return {("samples", ("--dialect", "default")): s["samples"]}
    if fmt == "mono":
        t = s["totals"]
        return {("alloc-bytes", ()): t["allocated_bytes"], ("alloc-count", ()): t["allocated_objects"],
                ("calls", ()): t["calls"], ("samples", ()): s["sample_hits"]["total"]}
    if fmt == "moarvm":
        snaps = [x for x in s.get("snapshots", []) if "heap_size" in x]
        if not snaps:
            return {}
        return {("size", ()): snaps[-1]["heap_size"], ("count", ()): snaps[-1]["collectables"]}
    return {}


AUSTIN = re.compile(rb"^(# [^:]+: .*|P-?\d+;T.* -?\d+(,[01],-?\d+)?)$")


def check_austin(name, data):
    for ln in data.split(b"\n")[:-1]:
        if not AUSTIN.match(ln):
            fail("%s: not Austin text: %r" % (name, ln[:120]))
            return
    text = os.path.join(WORK, name + ".txt")
    back = os.path.join(WORK, name + ".mojo")
    with open(text, "wb") as f:
        f.write(data)
    rc, _, err = run("encode", "--from", "austin", text, "-o", back)
    if rc != 0:
        fail("%s: encode --from austin: %s" % (name, err.strip()[:300]))
        return
    rc, again, err = run("convert", "--to", "austin", back)
    # MOJO 3 always has an interpreter id: a line without one comes back with "T0:" (a MOJO 4
    # thread whose interpreter id is negative, which austin-python 1.7.1's text leaves out)
    a, b = data.split(b"\n"), again.split(b"\n")
    if len(a) == len(b):
        again = b"\n".join(y.replace(b";T0:", b";T", 1) if re.match(rb"^P-?\d+;T[^:;]*[;\s]", x) else y
                            for x, y in zip(a, b))
    if rc != 0 or again != data:
        fail("%s: Austin text -> MOJO 3 -> Austin text differs (exit %d)" % (name, rc))


def json_lines(name, data):
    rows = []
    for i, line in enumerate(data.decode("utf-8").splitlines()):
        r = json.loads(line)
        if not isinstance(r, dict) or "profile" not in r:
            raise ValueError("line %d is not a row: %r" % (i + 1, line[:100]))
        rows.append(r)
    return rows


COLLAPSED_TOTAL = {}  # path -> the total of its collapsed output (the matrix's own run of it)


def check_ndjson(name, data, path):
    rows = json_lines(name, data)
    if not rows:
        fail("%s: no rows" % name)
        return
    # the shown metric's total equals collapsed's (its default metric: the same profile; the
    # grouping changes no total), from the collapsed output the matrix converted before
    want = COLLAPSED_TOTAL.get(path)  # (none for a damaged input: the rows are checked as JSON)
    got = sum(r["value"] for r in rows)
    if want is not None and got != want:
        fail("%s: value total %d, collapsed's %d" % (name, got, want))


def check_table(name, path, fmt, damaged):
    out = os.path.join(WORK, name)
    if os.path.isdir(out):
        for f in os.listdir(out):
            os.unlink(os.path.join(out, f))
        os.rmdir(out)
    rc, _, err = run("convert", "--to", "table", "-o", out, path)
    if rc == 1 and "nothing to show" in err and not os.path.isdir(out):
        totals = expected_totals(fmt, path) if not damaged else None
        if totals and any(int(v) for v in totals.values()):
            fail("%s: nothing to show, but the input's summary has values %s" % (name, totals))
        return
    if rc not in ((0, 1) if damaged else (0,)):
        fail("%s: exit %d: %s" % (name, rc, err.strip()[:300]))
        return
    if rc != 0 and not os.path.isdir(out):
        return  # damage before anything could be converted: no directory
    t = {}
    for f in sorted(os.listdir(out)):
        with open(os.path.join(out, f), "rb") as fh:
            t[f] = json_lines(name + "/" + f, fh.read())
    if sorted(t) != ["frames.ndjson", "metadata.ndjson", "profile.ndjson", "samples.ndjson", "slices.ndjson",
                     "stacks.ndjson", "threads.ndjson", "types.ndjson"]:
        fail("%s: files %s" % (name, sorted(t)))
        return
    prof = t["profile.ndjson"][0]
    if prof["samples"] != len(t["samples.ndjson"]) or prof["slices"] != len(t["slices.ndjson"]):
        fail("%s: %d sample and %d slice rows, the profile row says %s" % (name, len(t["samples.ndjson"]),
             len(t["slices.ndjson"]), prof))
    stacks = {r["id"]: r for r in t["stacks.ndjson"]}
    frames = {r["id"] for r in t["frames.ndjson"]}
    threads = {r["id"] for r in t["threads.ndjson"]}
    for r in t["samples.ndjson"]:
        if (r["stack"] and r["stack"] not in stacks) or r["thread"] not in threads or len(r["values"]) != len(t["types.ndjson"]):
            fail("%s: a sample row names what has no row: %s" % (name, r))
            break
    for r in t["stacks.ndjson"]:
        if r["frame"] not in frames or (r["parent"] is not None and stacks.get(r["parent"], {}).get("depth") != r["depth"] - 1):
            fail("%s: a stack row names what has no row: %s" % (name, r))
            break


def check_html(name, data):
    m = re.search(rb'^<!DOCTYPE html>.*<script type="application/json" id="pcd-data">(.*?)</script>', data, re.S)
    if not m:
        fail("%s: not a profcodec page" % name)
        return
    d = json.loads(m.group(1))
    for k in ("strings", "frames", "nodes", "threads", "types"):
        if k not in d:
            fail("%s: the page's data has no %s" % (name, k))


def check_svg(name, data):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(data)
    if root.tag != "{http://www.w3.org/2000/svg}svg" or not root.findall(".//{http://www.w3.org/2000/svg}g"):
        fail("%s: not an SVG flame graph" % name)


def sample_lines(path):
    """The samples of an input: the sample lines of its Austin text (a line per sample)."""
    rc, text, _ = run("convert", "--to", "austin", path)
    return sum(1 for ln in text.split(b"\n") if ln and not ln.startswith(b"#")) if rc == 0 else None


def check_readback(name, data, fmt, path, in_fmt, damaged):
    out = os.path.join(WORK, name + "." + fmt)
    with open(out, "wb") as f:
        f.write(data)
    rc, _, err = run("validate", out)
    if rc != 0:
        fail("%s: the %s output does not validate: %s" % (name, fmt, err.strip()[:300]))
        return
    rc, o, _ = run("info", "--json", out)
    if json.loads(o)["format"] != fmt:
        fail("%s: the output reads as %s, not %s" % (name, json.loads(o)["format"], fmt))
    if not damaged:
        # read back: as many samples as the input has (Austin's text has no tasks: MOJO counts
        # those apart), and MOJO's own totals
        # (MOJO 3, the default --to mojo, has no tasks either; Tachyon keeps them as threads)
        n = sample_lines(path)
        if in_fmt == "mojo" and fmt != "mojo" and n is not None:
            n += info(path)["task_samples"]
        want = {("samples", ("--dialect", "default")): n}
        if in_fmt == "mojo" and fmt == "mojo":
            want[("time", ())] = info(path)["time_us"]
            want[("memory", ())] = info(path)["memory_allocated"]
        for (metric, opts), n in want.items():
            rc, d2, err = run("convert", "--to", "collapsed", "--metric", metric, *opts, out)
            got = collapsed_total(name + ".back." + metric, d2) if rc == 0 else None
            if rc == 1 and "nothing to show" in err and not d2:
                got = 0  # no sample has a value of that metric: said, nothing written
            if n is None or got != int(n):
                fail("%s: read back, --metric %s totals %s, the input's %s" % (name, metric, got, n))
    root = os.environ.get("PCD_CPYTHON315_ROOT")
    if fmt == "tachyon" and root and os.path.exists(os.path.join(root, "usr/bin/python3.15")):
        inside = os.path.join(root, "tmp", "matrix-%d-%s.bin" % (os.getpid(), name))
        with open(inside, "wb") as f:
            f.write(data)
        p = subprocess.run(["chroot", root, "/usr/bin/python3.15", "-m", "profiling.sampling", "replay",
                            "--collapsed", "-o", "/dev/null", "/tmp/" + os.path.basename(inside)],
                           capture_output=True, env=dict(os.environ, LC_ALL="C"))
        os.unlink(inside)
        if p.returncode != 0:
            fail("%s: CPython 3.15 cannot read it: %s" % (name, p.stderr.decode()[-300:]))


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "outputs"))
import firefox_check  # noqa: E402  (tests/outputs/firefox_check.py)

matrix = formats()
for path, fmt, ver in inputs():
    rc_valid, _, _ = run("validate", path)
    damaged = rc_valid != 0
    for to in matrix.get((fmt, ver), []):
        name = "%s.%s" % (os.path.relpath(path, DATA).replace("/", "__"), to)
        if to == "table":  # a directory (-o DIR)
            checked += 1
            try:
                check_table(name, path, fmt, damaged)
            except (ValueError, KeyError, TypeError, IndexError) as e:
                fail("%s: %s: %s" % (name, type(e).__name__, e))
            continue
        rc, data, err = run("convert", "--to", to, path)
        checked += 1
        if rc == 1 and "nothing to show" in err and not damaged:
            totals = expected_totals(fmt, path)
            if fmt == "mono" and to in ("chrome", "perfetto"):
                # a timeline of Mono's calls (issues 25, 27): its call tree has no times
                totals = {k: v for k, v in totals.items() if k[0] == "calls"}
            if data or not totals or any(int(v) for v in totals.values()):
                fail("%s: nothing to show, but the input's summary has values %s (%s)" % (name, totals, err.strip()[:200]))
            continue
        if rc not in ((0, 1) if damaged else (0,)):
            fail("%s: exit %d: %s" % (name, rc, err.strip()[:300]))
            continue
        if rc != 0 and not data:
            continue  # damage before anything could be converted
        try:
            if to == "speedscope":
                check_speedscope(name, data)
            elif to == "chrome":
                check_chrome(name, data)
            elif to == "collapsed":
                total = collapsed_total(name, data)
                if not damaged:
                    COLLAPSED_TOTAL[path] = total
                if not damaged:
                    for (metric, opts), want in expected_totals(fmt, path).items():
                        rc, d2, err = run("convert", "--to", "collapsed", "--metric", metric, *opts, path)
                        got = collapsed_total(name + "." + metric, d2) if rc == 0 else None
                        if rc == 1 and "nothing to show" in err and not d2:
                            got = 0  # no sample has a value of that metric: said, nothing written
                        if got != int(want):
                            fail("%s --metric %s %s: total %s, the input's summary says %s" % (name, metric, " ".join(opts), got, want))
            elif to == "austin":
                if fmt == "mojo" and ver == "4":
                    # MOJO 4's text is austin-python 2.2.0's, which leaves markers out and writes
                    # one metric in full mode: Austin's own text (1.7.1's) is the one to read back
                    rc, data, err = run("convert", "--to", "austin", "--dialect", "austin", path)
                check_austin(name, data)
            elif to in ("mojo", "tachyon"):
                check_readback(name, data, to, path, fmt, damaged)
            elif to == "perfetto":
                # read back by our decoder (tests/outputs/test_perfetto.py compares it with chrome)
                out = os.path.join(WORK, name)
                with open(out, "wb") as fh:
                    fh.write(data)
                rc2, o2, e2 = run("validate", "--format", "perfetto", out)
                if rc2 != 0:
                    fail("%s: not a valid Perfetto trace: %s" % (name, e2.strip()[:200]))
            elif to == "html":
                check_html(name, data)
            elif to == "svg":
                check_svg(name, data)
            elif to == "ndjson":
                check_ndjson(name, data, path)
            elif to == "firefox":
                # issue 27: the checker written from the Firefox Profiler's documented types
                for e in firefox_check.check(json.loads(data))[:3]:
                    fail("%s: firefox: %s" % (name, e))
            elif not data:
                fail("%s: no output" % name)
        except (ValueError, KeyError, TypeError, SyntaxError) as e:
            fail("%s: %s: %s" % (name, type(e).__name__, e))

print("matrix: %d conversions checked, %d failures" % (checked, len(failures)))
sys.exit(1 if failures else 0)
