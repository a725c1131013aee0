#!/usr/bin/env python3
"""Writes a large synthetic profile as Austin's text format, for `encode --from austin`: the
pictures' benchmark input (bench/pictures.sh). Deterministic (a fixed seed).

  SAMPLES samples on 4 threads of one process, about STACKS distinct stacks: call paths walked
  down a fixed call graph of 2,000 functions in 120 files (depth 6 to 24), drawn with a
  Zipf-like skew (one new pick in five takes the next stack in turn, so that all of them
  come); a thread stays on its last stack half of the time (as a sampler sees a function run
  for a while), so consecutive samples repeat as they do in real profiles.

usage: gen_profile.py SAMPLES STACKS OUT.txt|-
"""
import random
import sys

samples, n_stacks, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(16)
files = ["pkg/m%03d.py" % i for i in range(120)]
funcs = []
for i in range(2000):
    f = files[i % len(files)]
    funcs.append("%s:%s%d" % (f, rng.choice(["load", "parse", "run", "step", "emit", "read", "fold", "walk"]), i))
# each function calls a handful of others
calls = [[rng.randrange(2000) for _ in range(rng.randint(2, 6))] for _ in range(2000)]
roots = list(range(8))

stacks, seen = [], set()
while len(stacks) < n_stacks:
    depth = rng.randint(6, 24)
    fn = rng.choice(roots)
    path = []
    for d in range(depth):
        path.append("%s:%d" % (funcs[fn], 10 + (d * 7 + fn) % 90))
        fn = rng.choice(calls[fn])
    key = ";".join(path)
    if key not in seen:
        seen.add(key)
        stacks.append(key)

# Zipf-like weights over the stacks
weights = [1.0 / (i + 1) ** 0.9 for i in range(n_stacks)]
cum, acc = [], 0.0
for w in weights:
    acc += w
    cum.append(acc)


def pick():
    import bisect
    return bisect.bisect_left(cum, rng.random() * acc)


with (sys.stdout if out == "-" else open(out, "w")) as f:
    f.write("# austin: 3.7.0\n# interval: 1000\n# mode: wall\n")
    last = [pick() for _ in range(4)]
    turn = 0
    lines = []
    for i in range(samples):
        t = i % 4
        if rng.random() >= 0.5:
            if rng.random() < 0.8:
                last[t] = pick()
            else:
                last[t] = turn
                turn = (turn + 1) % n_stacks
        lines.append("P4242;T0:%d;%s %d\n" % (4242 + t, stacks[last[t]], 900 + rng.randrange(200)))
        if len(lines) >= 10000:
            f.writelines(lines)
            lines = []
    f.writelines(lines)
