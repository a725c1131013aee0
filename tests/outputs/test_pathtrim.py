#!/usr/bin/env python3
"""The automatic common-prefix trim of --base (issue 25; model/pathtrim.h), through the CLI.

  - Austin text profiles written here: an absolute path against a relative one, two checkouts
    in two directories, functions that do not meet (nothing trimmed), one pair only (another
    directory pair with fewer functions stays apart), --no-auto-trim, the note on stderr;
  - the real pair: Tachyon's /corpus/column.py (tests/outputs/pathtrim, CPython 3.15.2) against
    Austin's /tmp/column.py (../shared/corpus/mojo/austin-python-testdata/column.mojo): the
    page's shared functions, with each side's numbers as each file's own top says; and merge
    with --trim-path: one row per shared function in top, its flat the two inputs' sum.

usage: test_pathtrim.py PROFCODEC HERE CORPUS WORKDIR
"""
import json
import os
import re
import subprocess
import sys

PC, HERE, CORPUS, WORK = sys.argv[1:5]
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
    p = subprocess.run([PC] + list(args), capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


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


def page(new, base, *opts):
    out = os.path.join(WORK, "diff.html")
    if os.path.exists(out):
        os.unlink(out)
    rc, _, err = run("convert", "--to", "html", new, "--base", base, "-o", out, *opts)
    check(rc == 0, "html %s --base %s %s: exit %d: %s" % (new, base, " ".join(opts), rc, err.strip()))
    if rc != 0:
        return None, err
    m = re.search(rb'<script type="application/json" id="pcd-data">(.*?)</script>', open(out, "rb").read(), re.S)
    return json.loads(m.group(1)), err


def functions(d):
    """(name, file) of every frame of the page, with how many frames each has."""
    names, files = column(d["frames"]["name"]), column(d["frames"]["file"])
    got = {}
    for n, f in zip(names, files):
        key = (d["strings"][n], d["strings"][f])
        got[key] = got.get(key, 0) + 1
    return got


def self_by_function(d, threads, t):
    """Per (name, file): the sum of the nodes' self values of metric t over these threads."""
    frames = column(d["nodes"]["frame"])
    names, files = column(d["frames"]["name"]), column(d["frames"]["file"])
    got = {}
    for th in threads:
        nodes, vals = column(th["self"]["node"]), column(th["self"]["v"][t]) if th["self"]["v"][t] else None
        if vals is None:
            continue
        node = 0
        for dn, v in zip(nodes, vals):
            node += dn
            f = frames[node - 1] if node else None
            if f is None:
                continue
            key = (d["strings"][names[f]], d["strings"][files[f]])
            got[key] = got.get(key, 0) + v
    return got


def side_functions(d, threads):
    """(name, file) of the frames on the stacks of these threads' samples."""
    frames, parents = column(d["nodes"]["frame"]), column(d["nodes"]["parent"])
    names, files = column(d["frames"]["name"]), column(d["frames"]["file"])
    got = set()
    for th in threads:
        node = 0
        for dn in column(th["self"]["node"]):
            node += dn
            k = node
            while k:
                f = frames[k - 1]
                got.add((d["strings"][names[f]], d["strings"][files[f]]))
                k -= parents[k - 1]
    return got


def austin(name, lines):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write("# austin: 3.7.0\n# interval: 100\n# mode: wall\n\n" + "".join(l + "\n" for l in lines))
    return path


# ---- written here ------------------------------------------------------------------------------
# an absolute path (Tachyon's) against a relative one (Austin's, as the command line gave it),
# and the standard library of two Python versions: one pair only, the one with more functions
a = austin("abs.austin", ["P1;T1;/corpus/busy.py:<module>:30;/corpus/busy.py:main:20;/corpus/busy.py:work:8 500",
                          "P1;T1;/corpus/busy.py:<module>:30;/corpus/busy.py:main:21;/usr/lib/python3.15/threading.py:run:1012 300",
                          "P1;T1;/corpus/other.py:<module>:1 5"])
b = austin("rel.austin", ["P2;T2;busy.py:<module>:30;busy.py:main:20;busy.py:work:8 400",
                          "P2;T2;busy.py:<module>:30;busy.py:main:21;/usr/lib/python3.11/threading.py:run:1010 200"])
d, err = page(a, b)
if d:
    fn = functions(d)
    for f in ("<module>", "main", "work"):
        check(("%s" % f, "busy.py") in fn and (f, "/corpus/busy.py") not in fn,
              "abs/rel: %s does not meet in busy.py: %s" % (f, sorted(fn)))
    check(fn.get(("<module>", "busy.py")) == 1 and fn.get(("work", "busy.py")) == 1,
          "abs/rel: one frame per function and line: %s" % sorted(fn))
    check(("<module>", "other.py") in fn, "abs/rel: a file under the prefix on one side only is trimmed too: %s" % sorted(fn))
    check(("run", "/usr/lib/python3.15/threading.py") in fn and ("run", "/usr/lib/python3.11/threading.py") in fn,
          "abs/rel: the second pair (fewer functions) was trimmed: %s" % sorted(fn))
    check("'/corpus/' off this input's and nothing off the base's: 3 functions meet" in err,
          "abs/rel: the note: %r" % err)
    t = d["type"]
    new = self_by_function(d, d["threads"], t)
    old = self_by_function(d, d["base"]["threads"], d["base"]["type"])
    check(new.get(("work", "busy.py")) == 500 * 100 and old.get(("work", "busy.py")) == 400 * 100 or
          new.get(("work", "busy.py")) == 500 and old.get(("work", "busy.py")) == 400,
          "abs/rel: work's self values on the two sides: %s %s" % (new, old))
d, err = page(a, b, "--no-auto-trim")
if d:
    fn = functions(d)
    check(("work", "/corpus/busy.py") in fn and ("work", "busy.py") in fn, "--no-auto-trim: paths changed: %s" % sorted(fn))
    check("trimmed" not in err, "--no-auto-trim: a note: %r" % err)
# the base trimmed: the input relative (the sides' roles swapped)
d, err = page(b, a)
if d:
    fn = functions(d)
    check(("work", "busy.py") in fn and ("work", "/corpus/busy.py") not in fn, "rel/abs: %s" % sorted(fn))
    check("nothing off this input's and '/corpus/' off the base's" in err, "rel/abs: the note: %r" % err)

# two checkouts of one project in two directories: both sides trimmed, at a directory
c1 = austin("co1.austin", ["P1;T1;/home/ann/src/proj/app/main.py:main:3;/home/ann/src/proj/app/db.py:query:9 70",
                           "P1;T1;/home/ann/src/proj/app/main.py:main:4;/home/ann/src/proj/lib/log.py:write:2 30"])
c2 = austin("co2.austin", ["P1;T1;/tmp/ci/proj/app/main.py:main:3;/tmp/ci/proj/app/db.py:query:9 50",
                           "P1;T1;/tmp/ci/proj/app/main.py:main:4;/tmp/ci/proj/lib/log.py:write:2 10",
                           "P1;T1;/tmp/ci/xproj/app/main.py:other:1 10",
                           "P1;T1;/opt/site/proj/app/main.py:main:3 10"])
d, err = page(c1, c2)
if d:
    fn = functions(d)
    check(all((f, p) in fn for f, p in (("main", "proj/app/main.py"), ("query", "proj/app/db.py"),
                                          ("write", "proj/lib/log.py"))),
          "checkouts: %s" % sorted(fn))
    check(("other", "xproj/app/main.py") in fn and ("main", "/opt/site/proj/app/main.py") in fn,
          "checkouts: the base's files under the prefix, and only those: %s" % sorted(fn))
    check("'/home/ann/src/' off this input's and '/tmp/ci/' off the base's: 3 functions meet" in err,
          "checkouts: the note: %r" % err)

# nothing to meet: the same file names, other functions; and one file name's tail alone
# (column.py against xcolumn.py) is no common tail
n1 = austin("n1.austin", ["P1;T1;/a/column.py:f:1;/a/column.py:g:2 10"])
n2 = austin("n2.austin", ["P1;T1;/b/xcolumn.py:f:1;/b/column.py:h:2 10"])
d, err = page(n1, n2)
if d:
    fn = functions(d)
    check(("f", "/a/column.py") in fn and ("f", "/b/xcolumn.py") in fn and ("h", "/b/column.py") in fn,
          "nothing to meet: paths changed: %s" % sorted(fn))
    check("trimmed" not in err, "nothing to meet: a note: %r" % err)

# usage: --no-auto-trim without --base
rc, _, err = run("convert", "--to", "html", a, "--no-auto-trim", "-o", os.path.join(WORK, "x.html"))
check(rc == 2 and "--no-auto-trim" in err, "--no-auto-trim without --base: exit %d: %s" % (rc, err.strip()))

# ---- the real pair: Tachyon and Austin on column.py ----------------------------------------------
tachyon = os.path.join(HERE, "pathtrim", "column_wall_none.bin")
mojo = os.path.join(CORPUS, "mojo", "austin-python-testdata", "column.mojo")
if not os.path.exists(mojo):
    print("pathtrim: %s is not there: the real pair is not tried" % mojo)
else:
    def top(path, *opts):
        rc, out, err = run("top", "--json", "--metric", "time", path, *opts)
        check(rc == 0, "top %s: exit %d: %s" % (path, rc, err.strip()))
        return {(r["name"], r["file"]): r for r in json.loads(out)["rows"]} if rc == 0 else {}
    tt, tm = top(tachyon), top(mojo)
    check(("lazy", "/corpus/column.py") in tt and ("lazy", "/tmp/column.py") in tm, "column: top's rows %s %s" % (tt, tm))
    d, err = page(tachyon, mojo, "--metric", "time")
    if d:
        shared = side_functions(d, d["threads"]) & side_functions(d, d["base"]["threads"])
        check(sorted(shared) == [("<module>", "column.py"), ("lazy", "column.py")],
              "column: the shared functions: %s" % sorted(shared))
        check("'/corpus/' off this input's and '/tmp/' off the base's: 2 functions meet" in err, "column: the note: %r" % err)
        new = self_by_function(d, d["threads"], d["type"])
        old = self_by_function(d, d["base"]["threads"], d["base"]["type"])
        # (each side's self time of lazy, as each file's own top says: µs)
        check(new.get(("lazy", "column.py")) == tt[("lazy", "/corpus/column.py")]["flat"] and
              old.get(("lazy", "column.py")) == tm[("lazy", "/tmp/column.py")]["flat"],
              "column: lazy's self time on the two sides: %s %s" % (new.get(("lazy", "column.py")),
                                                                  old.get(("lazy", "column.py"))))
        print("column: lazy in column.py, self time %d us (Tachyon) and %d us (Austin)" %
              (new.get(("lazy", "column.py"), -1), old.get(("lazy", "column.py"), -1)))
    d, err = page(tachyon, mojo, "--metric", "time", "--no-auto-trim")
    if d:
        check(not any(p == "column.py" for _, p in functions(d)), "column --no-auto-trim: trimmed anyway")
    # merge with --trim-path: one row per shared function, the two inputs' flat and cum summed
    merged = os.path.join(WORK, "column.pprof")
    rc, _, err = run("merge", mojo, tachyon, "--to", "pprof", "--force", "--trim-path", "/corpus/", "--trim-path", "/tmp/",
                     "-o", merged)
    check(rc == 0, "merge: exit %d: %s" % (rc, err.strip()))
    if rc == 0:
        tg = top(merged)
        for f in ("lazy", "<module>"):
            row = tg.get((f, "column.py"))
            want_flat = tt[(f, "/corpus/column.py")]["flat"] + tm[(f, "/tmp/column.py")]["flat"]
            want_cum = tt[(f, "/corpus/column.py")]["cum"] + tm[(f, "/tmp/column.py")]["cum"]
            check(row is not None and row["flat"] == want_flat and row["cum"] == want_cum,
                  "merge --trim-path: %s: %s, want flat %d cum %d" % (f, row, want_flat, want_cum))
        check(not any(p.startswith("/corpus/") or p.startswith("/tmp/") for _, p in tg),
              "merge --trim-path: untrimmed rows: %s" % sorted(tg))
        rc, _, _ = run("merge", mojo, tachyon, "--to", "pprof", "--force", "-o", merged)
        t0 = top(merged)
        check(("lazy", "/corpus/column.py") in t0 and ("lazy", "/tmp/column.py") in t0,
              "merge without --trim-path: the paths met: %s" % sorted(t0))

print("pathtrim: %d passed, %d failed" % (passed, len(failures)))
sys.exit(1 if failures else 0)
