#!/usr/bin/env python3
"""Grouping and filters through the CLI (issue 25): usage errors, nothing left, and damaged
inputs (the records before the damage still grouped, filtered and written, closed properly;
the sanitize tree runs it under ASan and UBSan).

  - an invalid regex of each option, a bad --granularity, a bad --tag or seconds, --from on a
    format whose samples have no times: exit 2, the option named, no file;
  - a filter that leaves nothing: exit 1, "left none of the N samples", no file (convert and top);
  - --tag on pprof's labels, --thread, --trim-path, --granularity line and address;
  - every input of tests/data cut at two thirds, through every output it has and top, with
    --focus on its most frequent function and --hide on another (or --granularity line and
    --ignore, every other output): exit 0, 1 or 2
    only (never a crash), and where the damage left samples that pass, an output that has them.

usage: test_filters_cli.py PROFCODEC TESTDATA WORKDIR
"""
import json
import os
import re
import subprocess
import sys

PC, DATA, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
failures = []
passed = 0
PPROF = os.path.join(DATA, "pprof", "labels.cpu.pprof")


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


def convert(path, to, *opts):
    out = os.path.join(WORK, "out." + to)
    if os.path.exists(out):
        os.unlink(out)
    rc, _, err = run("convert", "--to", to, *opts, path, "-o", out)
    return rc, err, open(out, "rb").read() if os.path.exists(out) else None


# ---- usage errors: exit 2, the option named, no file ------------------------------------------
for opt in ("--focus", "--ignore", "--hide", "--show", "--prune-from", "--show-from"):
    rc, err, data = convert(PPROF, "collapsed", opt, "a(b")
    check(rc == 2 and data is None and opt in err and "invalid regular expression" in err,
          "%s 'a(b': exit 2 naming it (exit %d: %s)" % (opt, rc, err.strip()))
for opts, needle in ((["--granularity", "files"], "--granularity"), (["--tag", "novalue"], "KEY=VALUE"),
                     (["--tag", "job=a(b"], "--tag"), (["--from", "-1"], "--from"), (["--until", "x"], "--until"),
                     (["--from", "2", "--until", "1"], "--until"), (["--from", "1"], "have no times"),
                     (["--tag", "bytes=99999999999999999999kb:"], "out of range")):
    rc, err, data = convert(PPROF, "collapsed", *opts)
    check(rc == 2 and data is None and needle in err, "%s: exit 2, says %r (exit %d: %s)" % (opts, needle, rc, err.strip()))
rc, _, err = run("top", "--focus", "(", PPROF)
check(rc == 2 and "--focus" in err, "top --focus '(': exit 2")

# ---- nothing left: exit 1, said, no file ------------------------------------------------------
for to in ("collapsed", "pprof", "svg", "html", "speedscope", "mojo", "austin"):
    rc, err, data = convert(PPROF, to, "--focus", "^no such function$")
    check(rc == 1 and data is None and "left none of the" in err and "not written" in err,
          "--to %s --focus nothing: exit 1, no file (exit %d: %s)" % (to, rc, err.strip()))
rc, out, err = run("top", "--ignore", ".", PPROF)
check(rc == 1 and not out and "left none of the" in err, "top --ignore .: exit 1, nothing printed")

# ---- the options bite ----------------------------------------------------------------------------
def top(*opts, path=PPROF):
    rc, out, err = run("top", "--json", *opts, path)
    check(rc == 0, "top %s: exit %d: %s" % (opts, rc, err.strip()))
    return json.loads(out) if rc == 0 else None


whole = top()
walk = top("--tag", "job=walk")
contend = top("--tag", "job=contend")
check(walk and contend and 0 < walk["shown"] < whole["shown"] and walk["shown"] + contend["shown"] <= whole["shown"],
      "--tag job=walk and job=contend split the samples")
check(walk and "main.walk" in [r["name"] for r in walk["rows"]] and "main.contend" not in
      [r["name"] for r in walk["rows"] if r["flat"]], "--tag job=walk keeps main.walk's samples only")
w4 = top("--tag", "job=walk", "--tag", "worker=[0-9]+")
check(w4 and w4["shown"] <= walk["shown"], "two --tag: both must match")
lines = top("--granularity", "line")
check(lines and len(lines["rows"]) > len(whole["rows"]) and all("line" in r for r in lines["rows"] if r["name"]),
      "--granularity line: more rows, each with its line")
trimmed = top("--trim-path", "runtime/")
check(trimmed and any(r["file"].startswith("proc.go") or r["file"] == "proc.go" for r in trimmed["rows"]),
      "--trim-path runtime/ takes the prefix off")
rc, out, err = run("convert", "--to", "collapsed", "--show", "^main\\.", PPROF)
check(rc == 0 and all(f.startswith("main.") for ln in out.decode().splitlines() for f in ln.rsplit(" ", 1)[0].split(";")),
      "--show ^main\\.: only main's frames")
rc, out, err = run("convert", "--to", "collapsed", "--prune-from", "^main\\.walk$", PPROF)
check(rc == 0 and all(ln.rsplit(" ", 1)[0].split(";")[-1].startswith("main.walk") for ln in out.decode().splitlines()
                      if "main.walk" in ln), "--prune-from main.walk: main.walk is the leaf")
tachyon = sorted(os.path.join(DATA, "tachyon", f) for f in os.listdir(os.path.join(DATA, "tachyon")) if f.endswith(".bin"))
t0 = top(path=tachyon[0])
t1 = top("--until", "0.001", path=tachyon[0])
check(t0 and t1 and t1["shown"] < t0["shown"] and t1["total"] == t0["total"], "--until: fewer samples, the same total")

# ---- damaged inputs: what came before the damage, filtered ------------------------------------
formats = {}
for ln in run("formats")[1].decode().splitlines():
    m = re.match(r"^(\S+)\s.*convert to: (.*)$", ln)
    if m:
        formats[m.group(1)] = m.group(2).split()
inputs = []
for root, dirs, names in sorted(os.walk(DATA)):
    dirs.sort()
    for n in sorted(names):
        p = os.path.join(root, n)
        rc, out, _ = run("info", "--json", p)
        try:
            fmt = json.loads(out)["format"]
        except (ValueError, KeyError):
            continue
        if fmt in formats and os.path.getsize(p) > 64:
            inputs.append((p, fmt))
cut = 0
for path, fmt in inputs:
    data = open(path, "rb").read()
    full = subprocess.run([PC, "top", "--json", path], capture_output=True)
    try:
        rows = [r for r in json.loads(full.stdout)["rows"] if r["name"] and r["flat"] > 0]
    except ValueError:
        rows = []
    focus = re.escape(rows[0]["name"]) if rows else "."
    hide = re.escape(rows[1]["name"]) if len(rows) > 1 else "^$"
    for frac in (3,):
        part = os.path.join(WORK, "cut." + os.path.basename(path))
        with open(part, "wb") as f:
            f.write(data[: len(data) * (frac - 1) // frac])
        cut += 1
        for to in formats[fmt] + ["top"]:
            if to in ("summary", "samples"):
                continue
            args = ["top", part] if to == "top" else ["convert", "--to", to, part, "-o", os.path.join(WORK, "cut.out")]
            # one set of options an output, the two sets alternating
            k = (formats[fmt] + ["top"]).index(to) % 2
            for opts in ((["--focus", focus, "--hide", hide], ["--granularity", "line", "--ignore", hide])[k],):
                p = subprocess.run([PC] + args[:1] + opts + args[1:], capture_output=True)
                check(p.returncode in (0, 1, 2) and b"Sanitizer" not in p.stderr and b"runtime error" not in p.stderr,
                      "%s cut at %d/%d --to %s %s: exit %d %s" % (os.path.relpath(path, DATA), frac - 1, frac, to, opts,
                                                              p.returncode, p.stderr.decode(errors="replace")[-300:]))
        # collapsed before the damage: every line goes through the focused function
        rc, err, out = convert(part, "collapsed", "--dialect", "default", "--focus", focus, "--all")
        if out:
            check(all(re.search(focus, ln.decode(errors="replace")) for ln in out.splitlines() if ln.strip()),
                  "%s cut: every collapsed line has %s" % (os.path.relpath(path, DATA), focus))

print("filters: %d checks, %d inputs cut, %d failures" % (passed + len(failures), cut, len(failures)))
sys.exit(1 if failures else 0)
