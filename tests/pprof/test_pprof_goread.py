#!/usr/bin/env python3
"""Every pprof file against Go's own parser, sample type by sample type, stack by stack.

A small Go program (goread/main.go) built on the `profile` package that Go 1.19 vendors for
`go tool pprof` (Debian's golang-1.19-src: cmd/vendor/github.com/google/pprof/profile; built
offline in GOPATH mode, the package reached through a symbolic link, nothing copied or fetched)
reads each file and writes, for every sample type, its stacks as our collapsed output writes them
(docs/pprof.md: frames, a nameless frame's address and mapping, the thread from the labels) with
their totals. For every sample type T, `profcodec convert --to collapsed --dialect default
--metric T` must give exactly those lines and totals; a type of which no sample has a value must
give exit status 1 and "nothing to show" naming it.

The files: every pprof of tests/data/pprof, every file of ../shared/corpus/pprof (other-writers/
included) that profcodec recognises as pprof, and the files of tests/pprof/crafted/*.jsonl made
through `profcodec encode` (an unsymbolized profile, a difference of heap profiles with negative
values, mappings without lines, ten sample types), each raw and gzip-compressed.

It prints a table: file, sample type, stacks, total, and whether ours are Go's.

usage: test_pprof_goread.py PROFCODEC TESTDATA CRAFTED WORKDIR [CORPUS]
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

GO = "/usr/lib/go-1.19/bin/go"
VENDORED = "/usr/share/go-1.19/src/cmd/vendor/github.com/google/pprof"
HERE = os.path.dirname(os.path.abspath(__file__))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


def build_goread(work):
    """goread, built in GOPATH mode with github.com/google/pprof a link to Go's vendored copy."""
    gopath = os.path.join(work, "gopath")
    shutil.rmtree(gopath, ignore_errors=True)
    os.makedirs(os.path.join(gopath, "src", "github.com", "google"))
    os.symlink(VENDORED, os.path.join(gopath, "src", "github.com", "google", "pprof"))
    src = os.path.join(gopath, "src", "goread")
    os.makedirs(src)
    shutil.copy(os.path.join(HERE, "goread", "main.go"), src)
    env = dict(os.environ, GO111MODULE="off", GOPATH=gopath, GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local",
               HOME=work, GOCACHE=os.path.join(work, "gocache"), CGO_ENABLED="0")
    exe = os.path.join(work, "goread")
    p = run([GO, "build", "-o", exe, "."], cwd=src, env=env)
    if p.returncode != 0:
        raise SystemExit("FAIL cannot build goread: %s" % p.stderr.decode(errors="replace"))
    return exe


def is_pprof(pc, path):
    p = run([pc, "info", "--json", path])
    try:
        return p.returncode in (0, 1) and json.loads(p.stdout)["format"] == "pprof"
    except (ValueError, KeyError):
        return False


def inputs(pc, data, crafted, work, corpus):
    files = []
    d = os.path.join(data, "pprof")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".pprof", ".pb"))]
    if corpus and os.path.isdir(os.path.join(corpus, "pprof")):
        for root, dirs, names in sorted(os.walk(os.path.join(corpus, "pprof"))):
            dirs.sort()
            for f in sorted(names):
                if f.endswith((".txt", ".md", ".tsv", ".go")):
                    continue
                if is_pprof(pc, os.path.join(root, f)):
                    files.append(os.path.join(root, f))
    for f in sorted(os.listdir(crafted)):
        if not f.endswith(".jsonl"):
            continue
        out = os.path.join(work, f[:-6] + ".pb")
        p = run([pc, "encode", os.path.join(crafted, f), "-o", out])
        if p.returncode != 0:
            raise SystemExit("FAIL encode %s: %s" % (f, p.stderr.decode(errors="replace")))
        with open(out, "rb") as a, gzip.open(out + ".gz", "wb") as b:
            b.write(a.read())
        files += [out, out + ".gz"]
    return files


def ours(pc, path, metric):
    p = run([pc, "convert", "--to", "collapsed", "--dialect", "default", "--granularity", "address", "--metric", metric, path])
    lines = {}
    for ln in p.stdout.split(b"\n"):
        if not ln:
            continue
        stack, _, v = ln.rpartition(b" ")
        key = stack.hex()
        if key in lines:
            lines[key] = None  # the same text on two lines: never equal to Go's
        else:
            lines[key] = int(v)
    return p.returncode, lines, p.stderr.decode(errors="replace")


def show(key):
    return bytes.fromhex(key).decode(errors="replace")[-100:]


def main():
    pc, data, crafted, work = sys.argv[1:5]
    corpus = sys.argv[5] if len(sys.argv) > 5 else None
    if not os.path.exists(GO) or not os.path.isdir(VENDORED):
        print("FAIL Go 1.19 and its sources are needed (scripts/setup-deps.sh installs golang-1.19-go and -src)")
        return 1
    os.makedirs(work, exist_ok=True)
    goread = build_goread(work)
    failures = 0
    rows = []
    for path in inputs(pc, data, crafted, work, corpus):
        name = os.path.relpath(path, work) if path.startswith(work) else os.path.relpath(path)
        name = name.replace("../shared/corpus/", "corpus/")
        g = json.loads(run([goread, path]).stdout)
        if "error" in g:
            rows.append((name, "-", "-", "-", "Go does not read it: " + g["error"][:60]))
            continue
        seen = set()
        for t, (ty, unit) in enumerate(g["types"]):
            theirs = g["totals"][t]
            if ty in seen:
                rows.append((name, ty, "-", "-", "skipped: a second type of that name (--metric names the first)"))
                continue
            seen.add(ty)
            rc, mine, err = ours(pc, path, ty)
            total = sum(theirs.values())
            if not theirs:
                ok = rc == 1 and "nothing to show" in err and ty in err
                rows.append((name, ty, 0, 0, "match (no values: exit 1, nothing to show)" if ok else
                             "MISMATCH: exit %d, %s" % (rc, err.strip()[-120:])))
            elif rc != 0 or mine != theirs:
                only_ours = [show(k) for k in mine if k not in theirs][:2]
                only_go = [show(k) for k in theirs if k not in mine][:2]
                diff = [(show(k), mine[k], theirs[k]) for k in mine if k in theirs and mine[k] != theirs[k]][:2]
                ok = False
                rows.append((name, ty, len(theirs), total, "MISMATCH: exit %d; only ours %s; only Go's %s; different %s; %s" % (
                    rc, only_ours, only_go, diff, err.strip()[-200:])))
            else:
                ok = True
                rows.append((name, ty, len(theirs), total, "match"))
            failures += not ok
    w = max(len(r[0]) for r in rows)
    print("%-*s  %-18s %7s %22s  %s" % (w, "file", "sample type", "stacks", "total", "against Go's profile package"))
    for r in rows:
        print("%-*s  %-18s %7s %22s  %s" % (w, r[0], r[1], r[2], r[3], r[4]))
    compared = [r for r in rows if r[4].startswith(("match", "MISMATCH"))]
    print("%d passed, %d failed" % (len(compared) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
