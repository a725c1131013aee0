#!/usr/bin/env python3
"""check_layers.py: the include graph of the C sources against the layer order docs/design.md
states, and no circles between files.

usage: check_layers.py ROOT            check ROOT's src/, runtime/ and generated/
       check_layers.py --self-test ROOT   the same, then plant a wrong-way include and a circle
                                          (in memory) and check that both are caught

The layer order is the fenced block after the line "<!-- layers -->" in docs/design.md: one
layer a line, lowest first; a line holds path patterns (a folder ending in "/", or a file glob)
and "|" between groups that sit side by side (neither includes the other). A file belongs to
the layer of its longest matching pattern. A file may include files of its own group and of
lower layers, never of a higher layer or of a side-by-side group. Inside src/formats/ a format
includes no other format's folder.

Circles: besides its includes, a file has an edge to each .c file that defines (not static) a
function it calls, declared in a header it includes: a.c calling b() of b.h, defined in b.c,
gives a.c -> b.h and a.c -> b.c. A circle is a strongly connected set of more than one file:
files that call each other, through one shared header (python's internal.h) or two. A format
version's generated files are separate nodes like any others: its explain functions
(generated/X_explain.c) call its decoders (generated/X.c), and its descriptors
(generated/X_desc.c) point at both; X.c refers to neither.
"""
import fnmatch
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# extra folders searched for "..." includes (the build's include directories)
SEARCH = ["src", "runtime", "generated", "src/cli", "src/python", "src/mutator", "fuzz"]
SCANNED = ("src/", "runtime/", "generated/")


def read_layers(root):
    text = open(os.path.join(root, "docs", "design.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers -->\s*```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        sys.exit("docs/design.md: no layer block (a fenced block after <!-- layers -->)")
    layers = []  # (level, group, pattern)
    for level, line in enumerate(l for l in m.group(1).splitlines() if l.strip() and not l.lstrip().startswith("#")):
        line = line.split("#")[0]
        for gi, group in enumerate(line.split("|")):
            for pat in group.split():
                layers.append((level, f"{level}.{gi}", pat))
    return layers


def layer_of(path, layers):
    best = None
    for level, group, pat in layers:
        if pat.endswith("/"):
            ok = path.startswith(pat)
        else:
            ok = fnmatch.fnmatchcase(path, pat)
        if ok and (best is None or len(pat) > len(best[2])):
            best = (level, group, pat)
    return best


def sources(root):
    out = []
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def resolve(root, src, inc, files):
    cands = [os.path.normpath(os.path.join(os.path.dirname(src), inc))] + [os.path.normpath(os.path.join(s, inc)) for s in SEARCH]
    for c in cands:
        if c in files:
            return c
    for c in cands:
        if os.path.exists(os.path.join(root, c)):
            return c  # outside the scanned trees (fuzz/fuzzlib.h)
    return None


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


DECL = re.compile(r"\b([A-Za-z_]\w*)\s*\(", re.M)
DEF = re.compile(r"^(?!static\b)(?![ \t#])[A-Za-z_][^;{}()=]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{", re.M)


def declared(text):
    """Functions a header declares: names followed by '(' in a declaration ending with ';' at
    top level (not macros, not function-pointer fields)."""
    names = set()
    body = re.sub(r"^\s*#.*?(?<!\\)$", "", strip_comments(text), flags=re.M | re.S)
    depth = 0
    stmt = []
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            stmt = []
            continue
        if depth:
            continue
        stmt.append(ch)
        if ch == ";":
            s = "".join(stmt)
            stmt = []
            if "typedef" in s or "(*" in s:
                continue
            m = DECL.search(s)
            if m:
                names.add(m.group(1))
    return names


def defined(text):
    return {m.group(1) for m in DEF.finditer(strip_comments(text))}


def graph(root, extra_edges=()):
    files = sources(root)
    fileset = set(files)
    texts = {f: open(os.path.join(root, f), encoding="utf-8", errors="replace").read() for f in files}
    includes = {f: [] for f in files}
    unresolved = []
    for f in files:
        for inc in INCLUDE.findall(texts[f]):
            r = resolve(root, f, inc, fileset)
            if r is None:
                unresolved.append((f, inc))
            else:
                includes[f].append(r)
    for a, b in extra_edges:
        includes.setdefault(a, []).append(b)
    # what each file calls through each header it includes: the .c files that define those names
    defs = {f: defined(texts[f]) for f in files if f.endswith(".c")}
    by_name = {}
    for c, names in defs.items():
        for n in names:
            by_name.setdefault(n, []).append(c)
    words = {f: set(re.findall(r"\b[A-Za-z_]\w*\b", strip_comments(texts[f]))) for f in files}
    definers = {}
    for f in files:
        used = set()
        for h in includes[f]:
            if h in fileset and h.endswith(".h"):
                for n in declared(texts[h]) & words[f]:
                    used.update(c for c in by_name.get(n, ()) if c != f)
        definers[f] = sorted(used)
    return files, includes, definers, unresolved


def check_layers(includes, layers):
    problems = []
    for f, incs in includes.items():
        lf = layer_of(f, layers)
        if lf is None:
            problems.append(f"{f}: in no layer of docs/design.md")
            continue
        for i in incs:
            if not i.startswith(SCANNED):
                continue
            li = layer_of(i, layers)
            if li is None:
                problems.append(f"{i}: in no layer of docs/design.md")
                continue
            if li[0] > lf[0] or (li[0] == lf[0] and li[1] != lf[1]):
                problems.append(f"{f} (layer {lf[2]}) includes {i} (layer {li[2]}): a wrong-way include")
            elif f.startswith("src/formats/") and i.startswith("src/formats/"):
                a, b = f.split("/"), i.split("/")
                if len(a) > 3 and len(b) > 3 and a[2] != b[2]:
                    problems.append(f"{f} includes {i}: a format includes another format")
    return problems


def circles(files, includes, definers):
    edges = {f: set() for f in files}
    for f, incs in includes.items():
        edges.setdefault(f, set()).update(i for i in incs if i != f)
        edges.setdefault(f, set()).update(d for d in definers.get(f, ()) if d != f)
    # Tarjan's strongly connected components, iteratively
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps)


def run(root, extra_edges=(), quiet=False):
    layers = read_layers(root)
    files, includes, definers, unresolved = graph(root, extra_edges)
    problems = [f"{f}: #include \"{i}\" is no file of the tree" for f, i in unresolved]
    problems += check_layers(includes, layers)
    for comp in circles(files, includes, definers):
        problems.append("a circle: " + " -> ".join(comp))
    if not quiet:
        for p in problems:
            print(p)
    return problems, files


def main():
    args = sys.argv[1:]
    self_test = args and args[0] == "--self-test"
    if self_test:
        args = args[1:]
    root = os.path.abspath(args[0] if args else ".")
    problems, files = run(root)
    n_inc = 0
    if problems:
        print(f"check_layers: {len(problems)} problems")
        return 1
    print(f"check_layers: {len(files)} files, every include goes down the layers, no circles")
    if self_test:
        # a planted wrong-way include: the runtime including the CLI
        p, _ = run(root, [("runtime/pcd_reader.c", "src/cli/cli.h")], quiet=True)
        if not any("wrong-way" in x and "runtime/pcd_reader.c" in x for x in p):
            print("self-test: a planted include of src/cli/cli.h in runtime/pcd_reader.c was not caught")
            return 1
        # a planted sideways include: an output including a format
        p, _ = run(root, [("src/outputs/collapsed.c", "src/formats/mojo/asm.h")], quiet=True)
        if not any("wrong-way" in x and "src/outputs/collapsed.c" in x for x in p):
            print("self-test: a planted include of formats/mojo/asm.h in an output was not caught")
            return 1
        # a planted circle: the model's header including the aggregate's, which includes it
        p, _ = run(root, [("src/model/profile.h", "src/model/aggregate.h")], quiet=True)
        if not any(x.startswith("a circle:") and "src/model/profile.h" in x for x in p):
            print("self-test: a planted circle profile.h <-> aggregate.h was not caught")
            return 1
        print("check_layers: self-test: a planted wrong-way include, sideways include and circle are each caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
