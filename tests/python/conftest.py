"""Shared setup of the Python module's tests (run by ctest: tests/python/CMakeLists.txt).

Environment: PYTHONPATH has build/python; PCD_CLI the profcodec tool of the same build;
PCD_TESTDATA tests/data; PCD_CORPUS ../shared/corpus; PCD_SWEEP_DIR the mutated inputs
tests/sweeps wrote (test_sweeps --save). Under the sanitizers' build the interpreter runs with
the ASan runtime preloaded; the CLI, linked with its own, runs without the preload."""
import json
import os
import subprocess

import pytest

import profcodec

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.environ.get("PCD_CLI", os.path.join(ROOT, "build", "profcodec"))
TESTDATA = os.environ.get("PCD_TESTDATA", os.path.join(ROOT, "tests", "data"))
CORPUS = os.environ.get("PCD_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))


def pytest_configure(config):
    # what the CLI prints beside its output the module gives as warnings: tests that compare
    # them record them; elsewhere they are expected
    config.addinivalue_line("filterwarnings", "ignore::profcodec.InputWarning")


def cli_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def cli(*args, stdin=None):
    """Runs the CLI: (exit status, stdout bytes, stderr text)."""
    p = subprocess.run([CLI, "-q", *args], input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=cli_env())
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def data_files():
    """Every input file tests/data/PROVENANCE lists that this build reads: (path, real, format spec)."""
    out = []
    with open(os.path.join(TESTDATA, "PROVENANCE")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            path, kind, fmt = parts[0], parts[1], parts[2]
            if fmt == "-":
                continue
            out.append((os.path.join(TESTDATA, path), kind == "real", fmt))
    return out


# Sized for the sanitizers (docs/testing.md): in make test's sanitize tree (PCD_SANITIZED, not with
# PCD_TEST_LONG=1) the per-file tests read each format version's smallest file, a real one when it
# has one: every entry point and error path once, not every file again (the fast tree reads them all).
SANITIZED = bool(os.environ.get("PCD_SANITIZED"))
LONG = os.environ.get("PCD_TEST_LONG", "0") not in ("", "0")
SMALL = SANITIZED and not LONG


def smallest_per_format(files):
    best = {}
    for path, real, fmt in files:
        key = (os.path.getsize(path) if real else 1 << 62, path)
        if fmt not in best or key < best[fmt][0]:
            best[fmt] = (key, (path, real, fmt))
    return [e for e in files if e in {v[1] for v in best.values()}]


DATA = data_files()
if SMALL:
    DATA = smallest_per_format(DATA)
DATA_IDS = [os.path.relpath(p, TESTDATA) for p, _, _ in DATA]


def dump_lines(path, *opts):
    """The CLI's dump as parsed lines, and its exit status."""
    rc, out, err = cli("dump", *opts, path)
    lines = [json.loads(l) for l in out.decode("utf-8").splitlines() if l]
    return rc, lines, err


def read_all(path, **kw):
    """[r.to_dict() for r in profcodec.open(path)], and the DamagedInput that ended it (or None)."""
    got = []
    try:
        with profcodec.open(path, **kw) as r:
            for rec in r:
                got.append(rec.to_dict())
    except profcodec.DamagedInput as e:
        return got, e
    return got, None


@pytest.fixture(params=DATA, ids=DATA_IDS)
def data_file(request):
    return request.param
