"""Damaged inputs: the inputs tests/sweeps makes (every real file of every format, truncated,
bit-flipped, with bytes inserted and deleted, 1-8 byte windows set to 0, max and max-1), read
through profcodec.open as `profcodec dump` reads them: the same records before the damage, and
DamagedInput with the same offset, field path and message; never a crash (the sanitizers' build
runs this too). profcodec.validate says what `profcodec validate` says."""
import json
import os
import subprocess

import pytest

import profcodec

from conftest import cli, cli_env, dump_lines

SANITIZED = bool(os.environ.get("PCD_SANITIZED"))
LONG = os.environ.get("PCD_TEST_LONG", "0") not in ("", "0")
# Sized for CI (docs/testing.md): one input of each kind of damage per real file; under the
# sanitizers one of each kind per format version, the smallest of at most 256 KB (the C is the
# same for every file; the fast tree compares them all); make test-long (PCD_TEST_LONG=1) two of
# each kind (one under the sanitizers), every one of them compared.
PER_KIND = 2 if LONG and not SANITIZED else 1
SMALL = SANITIZED and not LONG
# The fast tree's one sizing here (not under PCD_TEST_LONG): a damaged copy of a real file over
# 1 MB (MoarVM's 2.4 MB heap of 252,000 records: 7 of the 469 inputs, 45 % of the CPU time) is read
# for 2 or 3 of its 7 kinds of damage, which rotate with the file's name; every kind runs on every
# smaller file, and on every file under PCD_TEST_LONG.
BIG = 1 << 20


def sized_for_ci(paths):
    out = []
    for f in paths:
        parts = os.path.basename(f).split("--")
        kind = int(parts[-1].split("-")[0])
        if os.path.getsize(f) > BIG and (kind + sum(parts[1].encode())) % 3 != 0:
            continue
        out.append(f)
    return out


# Under the sanitizers a damaged input of more than this many bytes is not read here: the records
# of a large real file built in an interpreter that runs on ASan's allocator took most of this
# test's time (MOARVM 2's and MOJO 2's only real files, 2.4 MB and 1 MB: 250,000 records, 10 s
# each). The binding's C is the same for any size; the sweeps read those files' damaged inputs
# under ASan, and the fast tree compares them all with the CLI here.
SMALL_MAX = 256 << 10


def one_per_kind(files):
    """'mojo-3--v3_basic.mojo--1-0.bin' (kind 1): the smallest input of each (format version, kind),
    the first of those by name, of at most SMALL_MAX bytes."""
    best = {}
    for f in files:
        if os.path.getsize(f) > SMALL_MAX:
            continue
        parts = os.path.basename(f).split("--")
        key = (parts[0], parts[-1].rsplit("-", 1)[0])
        rank = (os.path.getsize(f), f)
        if key not in best or rank < best[key]:
            best[key] = rank
    return sorted(f for _, f in best.values())


@pytest.fixture(scope="module")
def sweep_inputs(tmp_path_factory):
    d = os.environ.get("PCD_SWEEP_DIR") or str(tmp_path_factory.mktemp("sweep"))
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        os.unlink(os.path.join(d, name))
    subprocess.run([os.environ["PCD_SWEEPS"], "--save", d, str(PER_KIND)], check=True, env=cli_env(),
                   stdout=subprocess.DEVNULL)
    files = sorted(os.listdir(d))
    assert len(files) >= 50
    paths = [os.path.join(d, f) for f in files]
    if SMALL:
        paths = one_per_kind(paths)
        assert len(paths) >= 40
        return paths
    return paths if LONG else sized_for_ci(paths)


def spec_of(path):
    """'mojo-3--v3_basic.mojo--1-0.bin' -> 'mojo:3'"""
    head = os.path.basename(path).split("--")[0]
    name, version = head.split("-", 1)
    return name + ":" + version


def read_records(path, **kw):
    """[r for r in profcodec.open(path)] (the Record objects), and the DamagedInput that ended it."""
    got = []
    try:
        with profcodec.open(path, **kw) as r:
            for rec in r:
                got.append(rec)
    except profcodec.DamagedInput as e:
        return got, e
    return got, None


def test_damage_is_the_clis(sweep_inputs):
    """Every record the binding reads is the one dump writes: rec.to_dict() == json.loads(line).

    The damaged inputs of one real file share most of their records (those before the damage), and
    parsing both sides' JSON for each of them was most of this test's time (2 million records). So
    each input is compared with a reference, an input of the same real file already compared in
    full: a record whose dump line is byte for byte the reference's line at that place, and which
    the binding reads equal to the reference's record there (Record ==: the binding's own JSON of
    both, compared in C) at the same _offset, has the reference's to_dict(), which equals that
    line; any other record is compared in full. A record that differs on either side is therefore
    still compared in full, and fails."""
    damaged = 0
    full = 0
    ref_key, ref_lines, ref_recs = None, [], []
    for path in sweep_inputs:
        spec = spec_of(path)
        rc, out, err = cli("dump", "--format", spec, path)
        assert rc in (0, 1), (path, err)
        lines = [l for l in out.split(b"\n") if l]
        got, exc = read_records(path, format=spec)
        stopped = json.loads(lines[-1]) if lines else None
        if stopped and stopped.get("_kind") == "stopped":
            lines.pop()
            damaged += 1
            assert exc is not None, path
            assert (exc.offset, exc.message, exc.records) == (stopped["_offset"], stopped["error"], stopped["records"]), path
            assert exc.message.startswith("offset %d" % exc.offset)
            assert (": %s: " % exc.path) in exc.message
            assert str(exc) == err.splitlines()[0], path
        else:
            assert exc is None, (path, str(exc))
        assert len(got) == len(lines), (path, len(got), len(lines))
        key = os.path.basename(path).split("--")[:2]
        if key != ref_key:
            ref_key, ref_lines, ref_recs = key, [], []
        for i, (line, rec) in enumerate(zip(lines, got)):
            if i < len(ref_lines) and line == ref_lines[i] and rec == ref_recs[i] and rec._offset == ref_recs[i]._offset:
                continue
            full += 1
            assert rec.to_dict() == json.loads(line), (path, i, line[:300])
        if len(lines) > len(ref_lines):
            ref_lines, ref_recs = lines, got
    assert damaged >= len(sweep_inputs) // 4
    assert full > 0


def test_validate_is_the_clis(sweep_inputs):
    for path in sweep_inputs[::3]:
        spec = spec_of(path)
        rc, _, err = cli("validate", "--format", spec, path)
        lines = [l for l in err.splitlines() if l and ": warning: " not in l]
        if rc == 0:
            v = profcodec.validate(path, format=spec)
            assert v.valid and not v.errors
        else:
            assert rc == 1, err
            with pytest.raises(profcodec.Error) as e:
                profcodec.validate(path, format=spec)
            assert str(e.value) == lines[0], path
            assert [str(x) for x in e.value.errors] == lines, path


def test_all_goes_past_damage(sweep_inputs):
    """open(all=True) reads on past damage it can skip, as dump --all does."""
    for path in sweep_inputs[::5]:
        spec = spec_of(path)
        rc, lines, _ = dump_lines(path, "--format", spec, "--all")
        kept = [l for l in lines if l.get("_kind") not in ("damage", "stopped")]
        with profcodec.open(path, format=spec, all=True) as r:
            got = [x.to_dict() for x in r]
            places = r.damage
        assert got == kept, path
        assert [e.message for e in places] == [l["message"] for l in lines if l.get("_kind") == "damage"] + \
            [l["error"] for l in lines if l.get("_kind") == "stopped" and
             not any(d.get("_kind") == "damage" and d["message"] == l["error"] for d in lines)], path
