#!/usr/bin/env python3
"""collapsed_norm.py: collapsed stacks in the form CPython's `replay --collapsed` writes them.

usage: collapsed_norm.py mojo|tachyon|mojo-tids FILE

mojo: profcodec's MOJO collapsed stacks (`convert --to collapsed --metric samples`), mapped
the way `convert --to tachyon` maps MOJO (docs/mojo.md, "Converting between MOJO and
Tachyon"): the process id and interpreter id go, `T<tid>` becomes `tid:<tid>`, each frame
`file:scope:line` becomes `basename(file):scope:line`, `:GC:` becomes CPython's `<GC>`
frame, a `~` frame at line 0 shows its function alone, frames of CPython's bootstrap
(`_sync_coordinator.py`) and empty stacks are left out, and names are decoded as CPython
decodes them (UTF-8, bad bytes replaced).
A thread id that is not a number (Austin writes hex, austin-python shows it in decimal)
becomes 2^63, 2^63 + 1, ... in order of first appearance, as `convert --to tachyon` numbers them.
tachyon: CPython's collapsed stacks as they are.
Both: identical stacks merged, sorted by count (descending) then text, as CPython sorts.
mojo-tids: MOJO collapsed stacks with only the thread ids renumbered that way and names
decoded as CPython decodes a Tachyon file's (what MOJO -> Tachyon -> MOJO gives back), in their
order.
"""
import sys


def frame(part):
    if part == ":INVALID:":
        return part
    if part == ":GC:":
        return "<GC>"
    bits = part.rsplit(":", 2)
    if len(bits) != 3:
        return part
    file, scope, line = bits
    if file.endswith("_sync_coordinator.py"):
        return None
    if file == "~" and line == "0":
        return scope
    return "%s:%s:%s" % (file.rsplit("/", 1)[-1], scope, line)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    counts = {}
    synthetic = {}

    def tid_of(t):
        if t.isdigit() and t.isascii():
            return t
        return synthetic.setdefault(t, str(2**63 + len(synthetic)))

    with open(path, "rb") as f:
        # every kind decodes names as CPython does (Tachyon's strings are read so)
        for raw in f.read().decode("utf-8", "replace").split("\n"):
            if not raw:
                continue
            stack, _, value = raw.rpartition(" ")
            if kind == "mojo-tids":
                parts = stack.split(";")
                head, _, tid = parts[1].rpartition(":")
                parts[1] = (head + ":" if head else "T") + tid_of(tid if head else tid[1:])
                line = ";".join(parts) + " " + value + "\n"
                sys.stdout.buffer.write(line.encode("utf-8"))
                continue
            if kind == "mojo":
                parts = stack.split(";")
                tid = tid_of(parts[1][1:].rsplit(":", 1)[-1])
                frames = [x for x in (frame(p) for p in parts[2:]) if x is not None]
                if not frames:
                    continue
                stack = ";".join(["tid:" + tid] + frames)
            counts[stack] = counts.get(stack, 0) + int(value)
    if kind == "mojo-tids":
        return
    out = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    sys.stdout.buffer.write("".join("%s %d\n" % kv for kv in out).encode("utf-8"))


main()
