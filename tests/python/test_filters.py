"""Grouping, filters and top in the Python module (issue 25): the same stage as the CLI's
(model/transform.h), so convert(..., focus=...) gives the CLI's bytes, top() its --json, and
Profile.filter() the profile of what passed."""
import json
import os

import pytest

import profcodec
from conftest import CLI, CORPUS, TESTDATA, cli

PPROF = os.path.join(TESTDATA, "pprof", "labels.cpu.pprof")
TACHYON = sorted(os.path.join(TESTDATA, "tachyon", f) for f in os.listdir(os.path.join(TESTDATA, "tachyon"))
                 if f.endswith(".bin"))[0]


@pytest.mark.parametrize("opts", [
    {"focus": "main\\.walk"}, {"ignore": "walk"}, {"hide": "runtime"}, {"show": "^main\\."},
    {"prune_from": "main\\.contend"}, {"granularity": "line"}, {"granularity": "address"},
    {"trim_path": "runtime/"}, {"focus": "walk", "hide": "pprof", "granularity": "function"},
    {"show_from": "main\\.main\\.func7"},
])
def test_convert_filters_are_the_cli(opts, tmp_path):
    args = []
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-"), v]
    for to in ("collapsed", "pprof", "speedscope"):
        out = tmp_path / ("o." + to)
        rc, _, err = cli("convert", "--to", to, *args, PPROF, "-o", str(out))
        assert rc == 0, err
        assert profcodec.convert(PPROF, to, **opts) == out.read_bytes()


def test_top_is_the_cli():
    for extra, kw in (([], {}), (["--cum", "-n", "4"], {"cum": True, "n": 4}), (["--focus", "walk"], {"focus": "walk"})):
        rc, out, err = cli("top", "--json", *extra, PPROF)
        assert rc == 0, err
        assert profcodec.top(PPROF, **kw) == json.loads(out)
        with profcodec.open(PPROF) as r:
            assert r.profile().top(**kw) == json.loads(out)


def test_top_recursion_counts_once_per_stack():
    t = profcodec.top(PPROF)
    total = t["total"]
    assert all(r["cum"] <= total for r in t["rows"])
    assert sum(r["flat"] for r in t["rows"]) == t["shown"] == total


def test_profile_filter():
    with profcodec.open(PPROF) as r:
        p = r.profile()
    q = p.filter(focus="main\\.walk")
    assert 0 < len(q.samples) < len(p.samples)
    walk = [f for f in range(len(q.frames)) if q.function(f) == "main.walk"]
    assert walk
    for s in q.samples.stack:
        assert any(q.function(f) == "main.walk" for f in q.stack_frames(s))
    g = p.filter(granularity="function")
    names = [(g.function(f), g.text(g.frames.file[f])) for f in range(len(g.frames))]
    assert len(names) == len(set(names)), "a function is one frame"
    assert len(g.frames) < len(p.frames)


def test_errors():
    with pytest.raises(profcodec.UsageError, match="invalid regular expression"):
        profcodec.convert(PPROF, "collapsed", focus="(")
    with pytest.raises(profcodec.NothingToShow, match="left none of the"):
        profcodec.convert(PPROF, "collapsed", focus="no such function anywhere")
    with pytest.raises(profcodec.UsageError, match="have no times"):
        profcodec.convert(PPROF, "collapsed", from_=1.0)
    with pytest.raises(profcodec.UsageError, match="granularity"):
        profcodec.convert(PPROF, "collapsed", granularity="files")


def test_time_range_and_threads():
    whole = profcodec.top(TACHYON)
    part = profcodec.top(TACHYON, from_=0.0, until=0.001)
    assert part["total"] == whole["total"] and part["shown"] < whole["shown"]
    with profcodec.open(TACHYON) as r:
        p = r.profile()
    tid = p.threads[0]["tid"]
    q = p.filter(thread=tid)
    assert len(q.threads) == 1 and q.threads[0]["tid"] == tid
    assert profcodec.convert(TACHYON, "collapsed", thread=[tid]) == profcodec.convert(TACHYON, "collapsed", thread=str(tid))


def test_time_range_on_mono_hits():
    """A Mono sampling log's hits are timed samples: from_/until keep those in the range in
    top(), convert() and Reader.profile(), as the CLI's --from/--until do; a log without hits is
    refused, as by the CLI."""
    mono = os.path.join(TESTDATA, "mono", "sample.mlpd")
    rc, out, err = cli("top", "--json", "--metric", "samples", "--from", "0", "--until", "0.3", mono)
    assert rc == 0, err
    want = json.loads(out)
    assert 0 < want["shown"] < want["total"]
    got = profcodec.top(mono, metric="samples", from_=0.0, until=0.3)
    assert (got["total"], got["shown"]) == (want["total"], want["shown"])
    rc, out, err = cli("convert", "--to", "collapsed", "--metric", "samples", "--from", "0", "--until", "0.3", mono)
    assert rc == 0, err
    assert profcodec.convert(mono, "collapsed", metric="samples", from_=0.0, until=0.3) == out
    with profcodec.open(mono) as r:
        p = r.profile(from_=0.0, until=0.3)
    k = [t["name"] for t in p.sample_types].index("samples")
    times = list(p.samples.time)
    assert profcodec.NONE not in times and all(0 <= t < 300_000_000 for t in times)
    n = sum(p.samples.values[i, k] * p.samples.count[i] for i in range(len(p.samples)))
    assert n == want["shown"], (n, want["shown"])
    alloc = os.path.join(CORPUS, "mono", "alloc.mlpd")
    if os.path.exists(alloc):
        with profcodec.open(alloc) as r:
            with pytest.raises(profcodec.UsageError, match="have no times"):
                r.profile(from_=0.0)


def test_tag_ranges_are_the_cli():
    """pprof's -tagfocus ranges (bytes=1kb:8kb...) on a Go heap profile's numbers: the CLI's."""
    allocs = os.path.join(TESTDATA, "pprof", "labels.allocs.pprof")
    shown = set()
    for r in (":2kb", "1kb:8kb", "64kb:", "8kb"):
        rc, out, err = cli("top", "--json", "--metric", "alloc_space", "--tag", "bytes=" + r, allocs)
        assert rc == 0, err
        got = profcodec.top(allocs, metric="alloc_space", tag="bytes=" + r)
        assert got == json.loads(out)
        shown.add(got["shown"])
    assert len(shown) == 4 and all(0 < s < got["total"] for s in shown)


def test_base_auto_trim(tmp_path):
    """--base's automatic common-prefix trim (model/pathtrim.h): on by default, auto_trim=False is
    --no-auto-trim; both the CLI's bytes."""
    head = "# austin: 3.7.0\n# interval: 100\n# mode: wall\n\n"
    a, b = tmp_path / "a.austin", tmp_path / "b.austin"
    a.write_text(head + "P1;T1;/corpus/busy.py:main:20;/corpus/busy.py:work:8 500\n")
    b.write_text(head + "P2;T2;busy.py:main:20;busy.py:work:8 400\n")
    for kw, extra in (({}, []), ({"auto_trim": False}, ["--no-auto-trim"])):
        out = tmp_path / "d.html"
        rc, _, err = cli("convert", "--to", "html", str(a), "--base", str(b), *extra, "-o", str(out))
        assert rc == 0, err
        page = profcodec.convert(str(a), "html", base=str(b), **kw)
        assert page == out.read_bytes()
        assert (b'"/corpus/busy.py"' in page) == bool(extra)
    with pytest.raises(profcodec.UsageError):
        profcodec.convert(str(a), "html", auto_trim=False)
