"""The module's API: what open() reads (paths, binary file objects with readinto or only read, pipes
still being written, gzip), the Reader (context manager, header, metadata, busy and closed states),
the GIL released while decoding, validate, profile, formats and schema, and the exceptions."""
import gzip
import io
import os
import subprocess
import sys
import threading
import time

import pytest

import profcodec

from conftest import CLI, DATA, DATA_IDS, SMALL, TESTDATA, cli, cli_env, read_all

MOJO = os.path.join(TESTDATA, "mojo", "v3_multiproc.mojo")
MONO_GZ = os.path.join(TESTDATA, "mono", "unload.mlpd")
# (the sanitize tree, SMALL: a small zstd file; the fast tree reads the 200k-sample one)
TACHYON = os.path.join(TESTDATA, "tachyon", "deep_zstd.bin" if SMALL else "workload_all_zstd.bin")


def records(source, **kw):
    with profcodec.open(source, **kw) as r:
        return [x.to_dict() for x in r]


class ReadOnly:
    """A file object with read() and nothing else."""

    def __init__(self, data, piece=7):
        self.data, self.pos, self.piece = data, 0, piece

    def read(self, n):
        n = min(n, self.piece)
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out


def test_sources_agree():
    want = records(MOJO)
    with open(MOJO, "rb") as f:
        data = f.read()
    assert records(io.BytesIO(data)) == want
    assert records(ReadOnly(data)) == want
    assert records(os.fsencode(MOJO)) == want
    import pathlib
    assert records(pathlib.Path(MOJO)) == want
    # a whole-file format from a file object, gzip from a file object
    assert records(io.BytesIO(open(TACHYON, "rb").read())) == records(TACHYON)
    assert records(io.BytesIO(open(MONO_GZ, "rb").read())) == records(MONO_GZ)
    assert records(ReadOnly(gzip.compress(data), 1000)) == want


def test_a_pipe_still_being_written_gives_records_as_they_come():
    """The first half of a MOJO file through a pipe: its records come out while the pipe is open."""
    with open(MOJO, "rb") as f:
        data = f.read()
    half = len(data) // 2
    r_fd, w_fd = os.pipe()
    os.write(w_fd, data[:half])
    got = []
    with profcodec.open(os.fdopen(r_fd, "rb", buffering=0)) as r:
        it = iter(r)
        want = [x for x in records(MOJO) if x.get("_offset", 0) + 1 < half][:3]
        while len(got) < len(want):
            got.append(next(it).to_dict())
        assert got == want
        os.write(w_fd, data[half:])
        os.close(w_fd)
        got += [x.to_dict() for x in it]
    assert got == records(MOJO)
    # a FIFO by path
    d = os.path.dirname(os.path.abspath(__file__))
    fifo = os.path.join(os.environ.get("PCD_BUILD_DIR", d), "test-api.fifo")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    try:
        writer = subprocess.Popen(["sh", "-c", 'cat "$0" > "$1"', MOJO, fifo])
        assert records(fifo) == records(MOJO)
        writer.wait()
    finally:
        os.unlink(fifo)


def test_reader():
    with profcodec.open(MOJO) as r:
        assert (r.format, r.version, r.title) == ("mojo", "3", "Austin MOJO")
        assert r.schema is profcodec.mojo_v3
        assert r.header == profcodec.mojo_v3.File(version=3)
        assert r.metadata == {"version": 3, "austin": "3.7.0", "interval": "1000", "mode": "cpu", "multiprocess": "on"}
        first = next(r)
        assert first is r.header
        assert r.records == 1
        rest = list(r)
        assert r.records == 1 + len(rest)
        assert r.header is first
    with pytest.raises(ValueError):
        next(r)
    with pytest.raises(ValueError):
        r.format
    with pytest.raises(profcodec.UsageError, match="cannot tell the format"):
        profcodec.open(io.BytesIO(b"hello, world"))
    with pytest.raises(profcodec.UsageError, match="unknown format"):
        profcodec.open(MOJO, format="nonsense")
    with pytest.raises(FileNotFoundError):
        profcodec.open("/nonexistent/file.mojo")
    with pytest.raises(TypeError):
        profcodec.open(42)
    with pytest.raises(OSError):
        profcodec.open(TESTDATA)
    # what a file object raises comes through
    class Broken(io.RawIOBase):
        def readinto(self, b):
            raise RuntimeError("disk on fire")
    with pytest.raises(RuntimeError, match="disk on fire"):
        records(Broken())


def test_damage():
    cut = os.path.join(TESTDATA, "mojo", "v3_truncated.mojo")
    got, e = read_all(cut)
    assert isinstance(e, profcodec.DamagedInput) and isinstance(e, profcodec.Error)
    assert e.records == len(got) and e.file == cut
    assert e.offset == 57 and e.path == "string.value" and e.expected and e.found.startswith("end of data")
    assert str(e) == cut + ": " + e.message
    rc, _, err = cli("dump", cut)
    assert rc == 1 and err.splitlines()[0] == str(e)
    # the header itself: open raises when it is damaged
    with pytest.raises(profcodec.DamagedInput, match="unsupported Austin MOJO version"):
        profcodec.open(os.path.join(TESTDATA, "mojo", "v5_unsupported.mojo"))
    # all=True: warnings and reader.damage instead
    with pytest.warns(profcodec.InputWarning):
        with profcodec.open(cut, all=True) as r:
            assert len(list(r)) == len(got)
            assert [x.offset for x in r.damage] == [e.offset]
    assert issubclass(profcodec.LimitError, profcodec.DamagedInput)
    assert issubclass(profcodec.UsageError, ValueError)
    with pytest.raises(profcodec.LimitError):
        records(TACHYON, max_memory="64k")


def test_validate():
    v = profcodec.validate(MOJO)
    assert v.valid and v.records == len(records(MOJO)) - 1 and (v.format, v.version) == ("mojo", "3")
    out = subprocess.run([CLI, "validate", MOJO], stdout=subprocess.PIPE, env=cli_env(), check=True).stdout
    assert out.decode().strip().endswith("%d records" % v.records)
    undefined = os.path.join(TESTDATA, "mojo", "v3_undefined.mojo")
    rc, _, err = cli("validate", undefined)
    assert rc == 1
    with pytest.raises(profcodec.DamagedInput) as e:
        profcodec.validate(undefined)
    assert str(e.value) == err.splitlines()[0]
    v = profcodec.validate(undefined, all=True)
    assert not v.valid and [str(x) for x in v.errors] == [l for l in err.splitlines() if ": warning: " not in l]
    assert v.warnings == [l for l in err.splitlines() if ": warning: " in l]
    warned = os.path.join(TESTDATA, "mojo", "v1_early_defs.mojo")
    v = profcodec.validate(warned)
    rc, _, err = cli("validate", warned)
    assert v.valid == (rc == 0) and v.warnings == [l for l in err.splitlines() if ": warning: " in l]
    assert v.valid and v.warnings
    with pytest.raises(profcodec.DamagedInput):
        profcodec.validate(warned, strict=True)
    cut = os.path.join(TESTDATA, "mojo", "v3_truncated.mojo")
    with pytest.raises(profcodec.DamagedInput) as e:
        profcodec.validate(cut)
    assert len(e.value.errors) == 1
    v = profcodec.validate(cut, all=True)
    assert not v.valid and v.errors[0].offset == e.value.offset
    with profcodec.open(cut) as r:
        with pytest.raises(profcodec.DamagedInput):
            list(r)
        assert not r.validate(all=True).valid
    with open(MOJO, "rb") as f:
        assert profcodec.validate(f).valid


def test_profile():
    with profcodec.open(MOJO) as r:
        p = r.profile()
    assert (p.format, p.version) == ("mojo", "3")
    assert len(p.samples) == len(p.samples.stack) == len(p.samples.thread) > 0
    assert p.samples.stack.format == "I" and p.samples.values.shape == (len(p.samples), len(p.sample_types))
    assert p.sample_types[p.default_type]["name"]
    # every sample's stack is a path of frames in the trie
    for s in set(p.samples.stack):
        for f in p.stack_frames(s):
            assert 0 <= f < len(p.frames)
    # the totals per stack are the collapsed output's
    collapsed = profcodec.convert(MOJO, "collapsed", dialect="default").decode()
    total = sum(int(line.rsplit(" ", 1)[1]) for line in collapsed.splitlines() if line)
    t = p.default_type
    assert total == sum(p.samples.values[i, t] * p.samples.count[i] for i in range(len(p.samples)))
    with profcodec.open(MOJO) as r:
        p2 = r.profile(times=True)
    assert sum(p2.samples.count) == sum(p.samples.count) and len(p2.samples) >= len(p.samples)
    # a Mono sampling log: with times, each sample hit is a row at its time (the same total)
    mono = os.path.join(TESTDATA, "mono", "sample.mlpd")
    with profcodec.open(mono) as r:
        summed = r.profile()
    with profcodec.open(mono) as r:
        timed = r.profile(times=True)
    t = summed.default_type
    assert all(x == profcodec.NONE for x in summed.samples.time)
    times = list(timed.samples.time)
    assert len(timed.samples) == 410 and profcodec.NONE not in times
    assert sum(timed.samples.values[i, t] for i in range(410)) == sum(
        summed.samples.values[i, t] * summed.samples.count[i] for i in range(len(summed.samples)))
    numpy = pytest.importorskip("numpy")
    stacks = numpy.asarray(p.samples.stack)
    assert stacks.dtype == numpy.uint32 and stacks.base is not None   # the same memory, no copy
    stacks[0] = stacks[0]
    assert numpy.shares_memory(stacks, numpy.asarray(p.samples.stack))
    values = numpy.asarray(p.samples.values)
    assert values.shape == (len(p.samples), len(p.sample_types))


def test_profile_duration_of_mojo():
    # Austin writes how long it sampled as the metadata "duration" (µs); the profile has it in ns
    # (it was None, issue 25)
    with profcodec.open(MOJO) as r:
        p = r.profile()
    duration_us = int(dict(p.metadata)["duration"])
    assert p.duration == duration_us * 1000 > 0


def test_profile_tables_for_pandas():
    # the profile as tables of 1-D NumPy arrays over the profile's own memory, which pandas takes
    # without a copy (issue 25)
    numpy = pytest.importorskip("numpy")
    path = os.path.join(TESTDATA, "mojo", "v3_full.mojo")
    with profcodec.open(path) as r:
        p = r.profile()
    t = p.tables()
    assert set(t) == {"samples", "frames", "stacks", "slices", "threads", "sample_types"}
    s = t["samples"]
    for name in ("thread", "stack", "time", "count", "flags"):
        assert numpy.shares_memory(s[name], numpy.asarray(getattr(p.samples, name))), name
    values = numpy.asarray(p.samples.values)
    for i, st in enumerate(p.sample_types):
        name = st["name"] if st["name"] not in ("thread", "stack", "time", "count", "flags") else "value_" + st["name"]
        assert numpy.shares_memory(s[name], values)
        # the column is the type's values, and times the counts its total, as weights() says
        assert list(s[name]) == [values[k, i] for k in range(len(values))]
        assert int((s[name] * s["count"]).sum()) == sum(p.weights(st["name"]))
    assert all(len(c) == len(p.frames) for c in t["frames"].values())
    assert t["threads"]["pid"].dtype == numpy.int64 and len(t["threads"]["pid"]) == len(p.threads)
    pandas = pytest.importorskip("pandas")
    df = pandas.DataFrame(s, copy=False)
    for name, column in s.items():
        assert numpy.shares_memory(df[name].to_numpy(), column), name
    frames = pandas.DataFrame(t["frames"], copy=False)
    assert len(frames) == len(p.frames)


def test_metadata_has_the_pairs_after_the_header():
    # MOJO's metadata events (the schema's metadata = { key, value }) that follow the header are
    # reader.metadata's too, read ahead without losing a record (issue 25)
    path = os.path.join(TESTDATA, "mojo", "v3_full.mojo")
    with profcodec.open(path) as r:
        plain = list(r)
    leading = {}
    for rec in plain[1:]:
        if rec._kind != "metadata":
            break
        leading[rec.key] = rec.value
    assert {"austin", "interval", "mode"} <= set(leading)
    with profcodec.open(path) as r:
        assert r.metadata == dict({"version": 3}, **leading)
        assert r.records == 0
        got = list(r)
        assert got == plain and r.records == len(plain)
        assert [x._offset for x in got] == [x._offset for x in plain]
        assert r.metadata == dict({"version": 3}, **leading)
    # asked for in the middle of the metadata: the same, and the records go on where they were
    with profcodec.open(path) as r:
        first = [next(r), next(r)]
        assert r.metadata == dict({"version": 3}, **leading)
        assert first + list(r) == plain
    # a format without metadata records: the header's fields only
    with profcodec.open(os.path.join(TESTDATA, "tachyon", "workload_all_zstd.bin")) as r:
        assert all(not k.startswith("_") for k in r.metadata) and "austin" not in r.metadata


def test_profile_thread_ids_are_numbers():
    # MOJO's records keep the file's text (hexadecimal, as Austin writes it); the profile's threads
    # have the id as a number, and its text as Austin's text shows it (decimal) (issue 25)
    with profcodec.open(MOJO) as r:
        in_file = {(x.pid, int(x.tid, 16)) for x in r if x._kind == "stack"}
        p = r.profile()
    assert {(t["pid"], t["tid"]) for t in p.threads} == in_file
    assert all(t["tid_text"] == str(t["tid"]) for t in p.threads)


PROFILES = {(f["name"], f["version"]): f["profile"] for f in profcodec.formats()}


@pytest.mark.parametrize("path,real,fmt", DATA, ids=DATA_IDS)
def test_profile_of_every_input(path, real, fmt):
    """Every input of a format on the profile model gives a consistent profile; the others say
    they are not on it."""
    with profcodec.open(path) as r:
        on_model = PROFILES[(r.format, r.version)]
        if not on_model:
            with pytest.raises(profcodec.UsageError, match="not imported into the profile model"):
                r.profile()
            return
        try:
            p = r.profile()
        except profcodec.DamagedInput as e:
            # the records before the damage, as the CLI converts them
            p = e.profile
            assert p is not None and cli("validate", path)[0] == 1
    n = len(p.samples)
    assert len(p.samples.thread) == len(p.samples.time) == len(p.samples.count) == n
    if n and p.sample_types:
        assert p.samples.values.shape == (n, len(p.sample_types))
    else:
        assert len(p.samples.values) == 0   # (a memoryview's shape has no zeros: 1-D when empty)
    assert len(p.stacks) >= 1 and p.stacks.parent[0] == 0 and p.stacks.depth[0] == 0
    for s in range(1, len(p.stacks)):
        assert p.stacks.parent[s] < s and p.stacks.depth[s] == p.stacks.depth[p.stacks.parent[s]] + 1
        assert 0 <= p.stacks.frame[s] < len(p.frames)
    assert all(0 <= s < len(p.stacks) for s in p.samples.stack)
    assert all(0 <= t < len(p.threads) for t in p.samples.thread)
    assert all(0 <= f < len(p.strings) for f in p.frames.function)
    if n:
        assert 0 <= p.default_type < len(p.sample_types)


def test_the_gil_is_released_while_decoding(tmp_path):
    """With thread switching left to the threads themselves, another thread runs while a big
    file is decoded: the reader gives the GIL up for each batch.

    Whether the other thread is scheduled inside one of those windows is up to the OS: on a
    loaded machine a whole pass can go by without it. So the file is read again, up to ten
    times, until the other thread has run five times. A reader that kept the GIL lets it run
    in none of them (the switch interval is 1000 s), so the test still fails then."""
    with open(MOJO, "rb") as f:
        data = f.read()
    big = tmp_path / "big.mojo"
    big.write_bytes(data[:4] + data[4:] * 3000)
    ticks = [0]
    done = threading.Event()

    def other():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    t = threading.Thread(target=other)
    seen = 0
    passes = []
    sys.setswitchinterval(1000)
    try:
        t.start()
        for _ in range(10):
            start = ticks[0]
            n = 0
            for _ in profcodec.open(str(big)):
                n += 1
            passes.append(n)
            seen += ticks[0] - start
            if seen >= 5:
                break
    finally:
        done.set()
        sys.setswitchinterval(old)
        t.join()
    assert all(n > 3000 * 10 for n in passes)
    assert seen >= 5, f"the other thread ran {seen} times in {len(passes)} passes"


def test_one_reader_one_thread_at_a_time():
    with profcodec.open(MOJO) as r:
        errors = []

        def read():
            try:
                list(r)
            except RuntimeError as e:
                errors.append(e)
        ts = [threading.Thread(target=read) for _ in range(4)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    # each record went to exactly one thread; any thread that found the reader busy says so
    assert all("another thread" in str(e) for e in errors)


def test_formats_and_schemas():
    fs = profcodec.formats()
    assert {f["name"] for f in fs} >= {"heph", "mojo", "mono", "moarvm", "tachyon"}
    for f in fs:
        m = profcodec.schema(f["name"] + ":" + f["version"])
        assert m is getattr(profcodec, f["module"])
        assert (m.FORMAT, m.VERSION) == (f["name"], f["version"])
        import importlib
        assert importlib.import_module("profcodec." + f["module"]) is m
    assert profcodec.schema("mojo") is profcodec.mojo_v4
    with pytest.raises(profcodec.UsageError):
        profcodec.schema("nope")
    import inspect
    sig = inspect.signature(profcodec.mojo_v3.EventFrame)
    assert list(sig.parameters)[:2] == ["key", "filename"]
    # the stubs sit beside the extension, one per format version, a class for each of its classes
    import ast
    pkg = os.path.dirname(profcodec.__file__)
    with open(os.path.join(pkg, "__init__.pyi")) as f:
        ast.parse(f.read())
    assert os.path.exists(os.path.join(pkg, "py.typed"))
    for f in fs:
        m = getattr(profcodec, f["module"])
        with open(os.path.join(pkg, f["module"] + ".pyi")) as s:
            tree = ast.parse(s.read())
        assert sorted(n.name for n in tree.body if isinstance(n, ast.ClassDef)) == \
            sorted(n for n, v in vars(m).items() if isinstance(v, type))


@pytest.mark.skipif(SMALL, reason="peak RSS is ASan's there (shadow, quarantine); the fast tree measures the module's")
def test_memory_does_not_grow_with_the_input(tmp_path):
    """Iterating a file ten times as large takes no more memory: the records go out in batches,
    each batch's staging reused (peak RSS of a child process reading 4 MB, then 40 MB)."""
    with open(MOJO, "rb") as f:
        data = f.read()
    body = data[4:]
    peaks = []
    for mb in (4, 40):
        path = tmp_path / ("%d.mojo" % mb)
        path.write_bytes(data[:4] + body * (mb * 1000000 // len(body)))
        # (VmHWM: this process's peak since its exec; ru_maxrss would count the parent's at the fork)
        code = ("import profcodec, sys\n"
                "n = sum(1 for _ in profcodec.open(sys.argv[1]))\n"
                "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
                "print(n, hwm)\n")
        out = subprocess.run([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, check=True,
                             env=os.environ).stdout.split()
        peaks.append((int(out[0]), int(out[1])))
    assert peaks[1][0] > 9 * peaks[0][0]
    assert peaks[1][1] - peaks[0][1] < 8 * 1024, peaks   # KB
