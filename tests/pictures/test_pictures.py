#!/usr/bin/env python3
"""The pictures without a browser, on every tests/data file of every format that lists them
(`profcodec formats --json`), checked by readers that are not the writers:

  svg        parsed with Python's xml: the frames (their <title> texts and values) are exactly
             the frames flamegraph.pl would draw from our `convert --to collapsed --dialect
             default` of the same input (every line's elements a path; frames narrower than
             0.1 px of 1180 left out, with everything above them);
  html       its data (the JSON in #pcd-data) read back, varint columns decoded: per metric,
             the self values of every thread add up to the collapsed total; columns hold as
             many values as they say; nothing on the page refers to the network;
  both       the same input gives the same bytes;
  --base     refusals (a metric of another clock, an output with no differential form, --raw
             alone), --force, the collapsed differential form's columns, a damaged base; on
             each file of a format as the base of the next (every ordered pair of them under
             PCD_TEST_LONG=1, make test-long).

Sized for the sanitizers (PCD_TEST_SMALL=1, make test's sanitize tree, not with PCD_TEST_LONG=1):
the files of at most 4 KB, and each format version's smallest; every file in the fast tree.

usage: test_pictures.py PROFCODEC TESTDATA CORPUS WORKDIR
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

PROFCODEC, DATA, CORPUS, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []
checks = 0
JS_MAX = 2 ** 53 - 1
LONG = os.environ.get("PCD_TEST_LONG", "0") not in ("", "0")


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def run(*args):
    p = subprocess.run([PROFCODEC, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


SMALL = os.environ.get("PCD_TEST_SMALL", "") not in ("", "0") and not LONG


def inputs():
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
        if (fmt, ver) not in smallest or os.path.getsize(path) < os.path.getsize(smallest[(fmt, ver)]):
            smallest[(fmt, ver)] = path
    return [(p, f, v) for p, f, v in every if os.path.getsize(p) <= 4096 or smallest[(f, v)] == p]


FORMATS = {(f["name"], f["version"]): f["convert_to"] for f in json.loads(run("formats", "--json")[1])}


def collapsed(path, *opts):
    """[(elements, value)] of the default dialect's lines."""
    rc, out, _ = run("convert", "--to", "collapsed", "--dialect", "default", *opts, path)
    lines = []
    for ln in out.decode("utf-8", "replace").split("\n"):
        if not ln:
            continue
        stack, v = ln.rsplit(" ", 1)
        lines.append((stack.split(";") if stack else [], int(v)))
    return lines


# ---- svg -----------------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"
TITLE = re.compile(r"^(.*) \(([\d,]+) ([^,]*), ([\d.]+)%\)$")


def svg_frames(lines):
    """The frames flamegraph.pl draws: a trie of the lines' elements, widths by value."""
    # (sums held at 2^64-1, as profcodec's are)
    sat = lambda x: min(x, 2 ** 64 - 1)
    total = sat(sum(v for _, v in lines))
    value = {(): total}
    for elems, v in lines:
        for i in range(1, len(elems) + 1):
            key = tuple(elems[:i])
            value[key] = sat(value.get(key, 0) + v)
    frames = [("all", total)]
    for key, v in value.items():
        if not key:
            continue
        # drawn when it and every frame below it is at least 0.1 px wide
        if all(value[key[:i]] * 1180.0 / total >= 0.1 for i in range(1, len(key) + 1)):
            frames.append((key[-1], v))
    return sorted(frames)


def check_svg(name, path, data):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        check(False, "%s: the SVG does not parse: %s" % (name, e))
        return
    check(root.tag == SVG + "svg" and root.get("width") == "1200", "%s: not a 1200 px wide <svg>" % name)
    got = []
    for g in root.iter(SVG + "g"):
        t = g.find(SVG + "title")
        if t is None:
            continue
        m = TITLE.match(t.text or "")
        check(m is not None, "%s: a frame's title %r" % (name, t.text))
        if m:
            got.append((m.group(1), int(m.group(2).replace(",", ""))))
        check(g.find(SVG + "rect") is not None, "%s: a frame without a rect" % name)
    lines = [(e, v) for e, v in collapsed(path) if v]
    if not lines:
        return
    want = svg_frames(lines)
    check(sorted(got) == want, "%s: %d frames in the SVG, flamegraph.pl would draw %d (first differences: %s)" %
          (name, len(got), len(want), [x for x in set(got) ^ set(want)][:4]))


# ---- html ----------------------------------------------------------------------------------------

DIGITS = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def column(s):
    out, v, mul = [], 0, 1
    for ch in s:
        d = DIGITS[ch]
        if d >= 32:
            v += (d - 32) * mul
            mul *= 32
        else:
            out.append(v + d * mul)
            v, mul = 0, 1
    return out


def page_data(name, html):
    m = re.search(rb'<script type="application/json" id="pcd-data">(.*?)</script>', html, re.S)
    check(m is not None, "%s: no #pcd-data" % name)
    return json.loads(m.group(1)) if m else None


NET = re.compile(rb"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:|//)|url\(\s*["']?(?:https?:|//)|@import""", re.I)


def check_html(name, path, html, damaged):
    d = page_data(name, html)
    if d is None:
        return
    check(not NET.search(html), "%s: the page refers to the network" % name)
    check(b"Content-Security-Policy" in html and b"default-src 'none'" in html, "%s: no CSP that forbids fetching" % name)
    n_frames, n_nodes = d["frames"]["n"], d["nodes"]["n"]
    for k in ("name", "file", "line", "kind", "module"):
        check(len(column(d["frames"][k])) == n_frames, "%s: frames.%s holds the wrong count" % (name, k))
    parents = column(d["nodes"]["parent"])
    check(len(parents) == n_nodes - 1 and all(1 <= p <= i + 1 for i, p in enumerate(parents)),
          "%s: node parents out of order" % name)
    check(all(f < n_frames for f in column(d["nodes"]["frame"])), "%s: a node's frame is out of range" % name)
    names = [s for s in d["strings"]]
    check(all(n < len(names) for n in column(d["frames"]["name"])), "%s: a frame name out of range" % name)
    for i, t in enumerate(d["types"]):
        total = 0
        for th in d["threads"]:
            col = th["self"]["v"][i]
            vals = column(col)
            check(not col or len(vals) == th["self"]["n"], "%s: thread self column of %s" % (name, t["name"]))
            total += sum(vals)
            runs = th.get("runs")
            if runs and runs["v"][i]:
                check(sum(column(runs["v"][i])) == sum(vals), "%s: the runs of %s add up differently" % (name, t["name"]))
        # heap snapshots as threads ("snapshot N", no thread id): the page holds them all
        every = len(d["threads"]) > 1 and all(th.get("tid") is None and re.match(r"snapshot \d+$", th.get("name") or "")
                                               for th in d["threads"])
        want = sum(min(v, JS_MAX) for _, v in collapsed(path, "--metric", t["name"] + ("@all" if every else "")))
        # (lines are clamped as the page clamps its entries; a thread's entries by display frame
        # may merge lines, so above 2^53 only the order of magnitude is checked)
        ok = total == want or (want > JS_MAX and abs(total - want) <= want * 1e-3 + JS_MAX)
        check(ok, "%s: %s adds up to %d in the page, %d in the collapsed output" % (name, t["name"], total, want))


# ---- every file ------------------------------------------------------------------------------------

by_format = {}
for path, fmt, ver in inputs():
    outs = FORMATS.get((fmt, ver), [])
    rel = os.path.relpath(path, DATA).replace("/", "__")
    damaged = run("validate", path)[0] != 0
    if not damaged:
        by_format.setdefault(fmt, []).append((path, ver))
    for to in ("svg", "html"):
        if to not in outs:
            continue
        name = "%s.%s" % (rel, to)
        rc, data, err = run("convert", "--to", to, path)
        if rc == 1 and "nothing to show" in str(err) and not data:
            # an input without sample values: said, nothing written, as collapsed says
            check(not collapsed(path), "%s: nothing to show, but collapsed has lines" % name)
            continue
        check(rc in ((0, 1) if damaged else (0,)), "%s: exit %d: %s" % (name, rc, err.strip()[:300]))
        if not data:
            continue
        rc2, again, _ = run("convert", "--to", to, path)
        check(again == data, "%s: not the same bytes twice" % name)
        if to == "svg":
            check_svg(name, path, data)
        else:
            check_html(name, path, data, damaged)

# ---- --base ----------------------------------------------------------------------------------------


def frames_total(path, metric):
    """the values of the lines with frames (austin dialect: the thread is always 2 elements)"""
    rc, out, _ = run("convert", "--to", "collapsed", "--dialect", "austin", "--metric", metric, path)
    total = 0
    for ln in out.decode("utf-8", "replace").split("\n"):
        if ln and len(ln.rsplit(" ", 1)[0].split(";")) > 2:
            total += int(ln.rsplit(" ", 1)[1])
    return total


def base_pairs(files):
    """Sized for CI: each file once as the base of the next (a cycle: every file on both sides,
    and a format with files of two kinds has a pair of them); make test-long (PCD_TEST_LONG=1):
    every ordered pair."""
    if LONG:
        return [(b, n) for b in files for n in files if b != n]
    return [(files[i], files[(i + 1) % len(files)]) for i in range(len(files))] if len(files) > 1 else []


refused = forced = damaged_bases = 0
for fmt, files in sorted(by_format.items()):
    files = [p for p, v in files if "html" in FORMATS.get((fmt, v), [])]
    if not files:
        continue
    a = files[0]
    rc, _, err = run("convert", "--to", "collapsed", "--raw", a)
    check(rc == 2 and "--base" in err, "--raw without --base: exit %d: %s" % (rc, err.strip()))
    for to in ("svg", "speedscope"):
        rc, out, err = run("convert", "--to", to, "--base", a, a)
        check(rc == 2 and "no differential form" in err and not out, "--to %s --base: exit %d: %s" % (to, rc, err.strip()))
    rc, _, err = run("convert", "--to", "html", "--base", os.path.join(WORK, "missing"), a)
    check(rc == 2 and "missing" in err, "a missing base: exit %d: %s" % (rc, err.strip()))
    for b, n in base_pairs(files):
        rc, out, err = run("convert", "--to", "html", "--base", b, n)
        # (a format whose files measure different things, pprof's CPU and allocation
        # profiles, is refused for its units)
        if rc == 2 and ("different clocks" in err or "different units" in err):
            refused += 1
            check("--force" in err, "the refusal does not name --force: " + err)
            rc, out, err = run("convert", "--to", "html", "--base", b, n, "--force")
            check(rc == 0 and page_data("forced", out) is not None, "--force: exit %d: %s" % (rc, err.strip()))
            forced += 1
            continue
        if rc == 1 and "nothing to show" in err and not out:
            # neither side has sample values (two Mono logs of counters): said, nothing written
            check(not collapsed(b) and not collapsed(n), "--base %s %s: nothing to show, but collapsed has lines" % (b, n))
            continue
        if rc != 0:
            check(False, "--base %s %s: exit %d: %s" % (b, n, rc, err.strip()))
            continue
        d = page_data("diff", out)
        check(d["base"] is not None and d["timeline"] is None, "--base: no base in the page's data")
        # the collapsed differential form, raw: its columns are each side's lines with frames
        rc, out, err = run("convert", "--to", "collapsed", "--base", b, n, "--raw")
        check(rc == 0, "collapsed --base %s %s: exit %d: %s" % (b, n, rc, err.strip()))
        rows = [ln.rsplit(" ", 2) for ln in out.decode("utf-8", "replace").split("\n") if ln]
        check(all(len(r) == 3 and r[1].isdigit() and r[2].isdigit() for r in rows), "collapsed --base: not 3 columns")
        metric = d["types"][d["type"]]["name"]
        bmetric = d["base"]["types"][d["base"]["type"]]["name"]
        newsum, basesum = sum(int(r[2]) for r in rows), sum(int(r[1]) for r in rows)
        want_new, want_base = frames_total(n, metric), frames_total(b, bmetric) * d["base"]["scale"]
        check(newsum == want_new, "collapsed --base %s %s: new column %d, the input's lines %d" % (b, n, newsum, want_new))
        check(abs(basesum - want_base) <= len(rows), "collapsed --base %s %s: base column %d, the base's lines %d" %
              (b, n, basesum, want_base))
    # a damaged base: the page of what came before the damage, exit 1 (a base damaged
    # before its first sample has no page to give: such a file is not the case tried here)
    def damaged_with_records(p):
        rc, out, _ = run("convert", "--to", "html", p)
        return rc == 1 and bool(out.strip())
    for p, f2, ver in inputs():
        if f2 == fmt and "html" in FORMATS.get((f2, ver), []) and damaged_with_records(p):
            rc, out, err = run("convert", "--to", "html", "--base", p, a, "--force")
            check(rc == 1 and page_data("damaged base", out) is not None, "a damaged base: exit %d: %s" % (rc, err.strip()[:200]))
            damaged_bases += 1
            break
check(damaged_bases > 0, "no damaged tests/data file was tried as a base")
check(refused > 0 and refused == forced, "no pair of tests/data files was refused for comparing different clocks")

print("pictures: %d checks, %d failures" % (checks, len(failures)))
sys.exit(1 if failures else 0)
