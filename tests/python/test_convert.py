"""profcodec.convert: every conversion `profcodec formats` lists for every input in tests/data
gives the CLI's bytes, returned, written to a path and to a file object; damage raises
DamagedInput once the output holds what came before it, as the CLI's output does."""
import io
import json
import os
import warnings

import pytest

import profcodec

from conftest import cli, DATA, TESTDATA


def conversions():
    rc, out, _ = cli("formats", "--json")
    targets = {}
    for f in json.loads(out):
        targets[f["name"] + ":" + f["version"]] = f["convert_to"]
    cases = []
    for path, _, fmt in DATA:
        for to in targets.get(fmt, []):
            cases.append((path, fmt, to))
    return cases


CASES = conversions()


def test_formats_match_the_cli():
    rc, out, _ = cli("formats", "--json")
    want = json.loads(out)
    got = profcodec.formats()
    assert [(f["name"], f["version"], f["title"], f["schema"], f["streamable"], f["convert_to"]) for f in got] == \
        [(f["name"], f["version"], f["title"], f["schema"], f["streamable"], f["convert_to"]) for f in want]
    for f in got:
        assert getattr(profcodec, f["module"]).FORMAT == f["name"]


def read_out(out):
    """An output's bytes, or for a directory (--to table) a dict of each file's bytes, as the
    module returns it."""
    if out.is_dir():
        return {f.name: f.read_bytes() for f in out.iterdir()}
    return out.read_bytes() if out.exists() else None


@pytest.mark.parametrize("path,fmt,to", CASES, ids=[os.path.relpath(p, TESTDATA) + ":" + t for p, _, t in CASES])
def test_convert_is_the_cli(path, fmt, to, tmp_path):
    out = tmp_path / ("out." + to)
    rc, _, err = cli("convert", "--to", to, path, "-o", str(out))
    want = read_out(out)
    if rc == 0:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert profcodec.convert(path, to) == want
        # what the CLI says beside the output, the module says as warnings
        assert sorted(str(x.message) for x in w) == sorted(l for l in err.splitlines() if l)
        mine = tmp_path / "mine"
        assert profcodec.convert(path, to=to, output=str(mine)) is None
        assert read_out(mine) == want
        buf = io.BytesIO()
        with open(path, "rb") as f:
            if isinstance(want, dict):  # a directory is a path or a dict, not a file object
                with pytest.raises(TypeError, match="directory"):
                    profcodec.convert(f, to, buf)
            else:
                profcodec.convert(f, to, buf)
                assert buf.getvalue() == want
    elif ": nothing to show" in err.splitlines()[0]:
        # nothing to show (no damage): NothingToShow, with the CLI's message, and no output
        assert rc == 1 and want is None, err
        with pytest.raises(profcodec.NothingToShow) as e:
            profcodec.convert(path, to)
        assert err.splitlines()[0] == str(e.value)
    else:
        assert rc == 1, err
        with pytest.raises(profcodec.DamagedInput) as e:
            profcodec.convert(path, to)
        assert (e.value.output or b"") == (want or b"")
        # the first line the CLI prints is the damage DamagedInput says
        assert err.splitlines()[0] == str(e.value)


def test_convert_options(tmp_path):
    mojo = os.path.join(TESTDATA, "mojo", "v3_multiproc.mojo")
    for args, kw in [(["--dialect", "default"], {"dialect": "default"}),
                     (["--metric", "time"], {"metric": "time"})]:
        rc, out, err = cli("convert", "--to", "collapsed", *args, mojo)
        assert rc == 0, err
        assert profcodec.convert(mojo, "collapsed", **kw) == out
    other = os.path.join(TESTDATA, "mojo", "v3_basic.mojo")
    rc, out, err = cli("convert", "--to", "collapsed", "--base", other, "--raw", "--force", mojo)
    assert rc == 0, err
    assert profcodec.convert(mojo, "collapsed", base=other, raw=True, force=True) == out
    with pytest.raises(profcodec.UsageError, match="different clocks"):
        profcodec.convert(mojo, "collapsed", base=other)
    heph = os.path.join(TESTDATA, "heph", "runtime_example.bin.log")
    rc, out, err = cli("convert", "--to", "chrome", "--heph-compat", heph)
    assert rc == 0, err
    assert profcodec.convert(heph, "chrome", heph_compat=True) == out
    with pytest.raises(profcodec.UsageError, match="cannot be converted to 'nonsense'"):
        profcodec.convert(mojo, "nonsense")
    with pytest.raises(profcodec.UsageError, match="go with base"):
        profcodec.convert(mojo, "collapsed", raw=True)
    with pytest.raises(profcodec.UsageError):
        profcodec.convert(mojo, "collapsed", metric="nonsense")
    with pytest.raises(TypeError):
        profcodec.convert(mojo, "collapsed", nonsense=True)
    # nothing before the damage: no file
    cut = os.path.join(TESTDATA, "mojo", "v3_truncated_varint.mojo")
    out = tmp_path / "cut.json"
    with pytest.raises(profcodec.DamagedInput):
        profcodec.convert(cut, "speedscope", out)


def test_merge_is_the_cli(tmp_path):
    """profcodec.merge (issue 25): the CLI's merge, byte for byte; mismatched types refused unless
    force=True."""
    a = os.path.join(TESTDATA, "pprof", "labels.cpu.pprof")
    b = os.path.join(TESTDATA, "mojo", "v3_multiproc.mojo")
    for to in ("collapsed", "pprof"):
        rc, out, err = cli("merge", a, a, "--to", to)
        assert rc == 0, err
        assert profcodec.merge([a, a], to) == out
    mine = tmp_path / "merged.pprof"
    assert profcodec.merge([a, a], "pprof", output=str(mine)) is None
    assert mine.read_bytes() == out
    with pytest.raises(profcodec.UsageError, match="--force merges them"):
        profcodec.merge([a, b], "collapsed")
    rc, out, err = cli("merge", a, b, "--force", "--to", "collapsed")
    assert rc == 0, err
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert profcodec.merge([a, b], "collapsed", force=True) == out
    assert any("--force" in str(x.message) for x in w)
    with pytest.raises(profcodec.UsageError):
        profcodec.merge([], "collapsed")
    # an output of several files (--to table): the CLI's directory, or a dict of its files
    d = tmp_path / "tables"
    rc, _, err = cli("merge", a, a, "--to", "table", "-o", str(d))
    assert rc == 0, err
    assert profcodec.merge([a, a], "table") == {f.name: f.read_bytes() for f in d.iterdir()}
    with pytest.raises(FileExistsError):
        profcodec.merge([a, a], "table", output=str(d))


def test_text_inputs_are_the_cli(tmp_path):
    """Collapsed stacks, Austin text and speedscope JSON (issue 25) are inputs of convert, merge
    and top as they are the CLI's: the same bytes, told by their content or named by format=."""
    col = os.path.join(TESTDATA, "tachyon", "deep_zstd.collapsed.txt")
    aus = os.path.join(TESTDATA, "mojo", "v3_full.austin.txt")
    ss = tmp_path / "deep.speedscope.json"
    assert cli("convert", "--to", "speedscope", os.path.join(TESTDATA, "tachyon", "deep_zstd.bin"), "-o", str(ss))[0] == 0
    for src in (col, aus, str(ss)):
        for to in ("collapsed", "pprof", "speedscope"):
            rc, out, err = cli("convert", "--to", to, src)
            assert rc == 0, err
            assert profcodec.convert(src, to) == out
        with open(src, "rb") as f:  # (a file object: its name is not the path's, which pprof keeps)
            assert profcodec.convert(io.BytesIO(f.read()), "collapsed") == cli("convert", "--to", "collapsed", src)[1]
        rc, out, err = cli("top", "--json", src)
        assert rc == 0, err
        assert profcodec.top(src) == json.loads(out)
    assert profcodec.convert(col, "collapsed", format="collapsed") == cli("convert", "--to", "collapsed", col)[1]
    rc, out, err = cli("merge", col, str(ss), "--force", "--to", "collapsed")
    assert rc == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert profcodec.merge([col, str(ss)], "collapsed", force=True) == out
    with pytest.raises(profcodec.UsageError, match="cannot be converted to 'mojo'"):
        profcodec.convert(col, "mojo")
    with pytest.raises(profcodec.UsageError, match="has no records"):
        profcodec.open(col)
