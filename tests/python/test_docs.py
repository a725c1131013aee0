"""The examples of docs/python.md run, in order, from the root of the source tree, in one session:
```pycon blocks as doctests (their output must be what the page shows), ```python blocks as code.
A block after `<!-- needs: the profile of FORMAT -->` needs FORMAT on the profile model: where this
build does not have it there, the block must fail with the UsageError that says so."""
import doctest
import os
import re

import profcodec

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "python.md")
FENCE = re.compile(r"^( *)```(\w+)\n(.*?)^\1```\n", re.S | re.M)
NEEDS = re.compile(r"<!-- needs: the profile of (\w+) -->")


def blocks():
    with open(DOC) as f:
        text = f.read()
    out = []
    for m in FENCE.finditer(text):
        indent, lang, body = len(m.group(1)), m.group(2), m.group(3)
        body = "".join(l[indent:] if l.strip() else "\n" for l in body.splitlines(True))
        before = text[:m.start()].rstrip().splitlines()
        needs = NEEDS.fullmatch(before[-1].strip()) if before else None
        out.append((text.count("\n", 0, m.start()) + 1, lang, body, needs.group(1) if needs else None))
    return out


def test_the_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    on_model = {f["name"] for f in profcodec.formats() if f["profile"]}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    session = {"__name__": "docs_python"}
    ran = {"pycon": 0, "python": 0}
    for line, lang, body, needs in blocks():
        if lang not in ran:
            continue
        ran[lang] += 1
        if needs and needs not in on_model:
            code = body if lang == "python" else "".join(e.source for e in parser.get_examples(body))
            try:
                exec(compile(code, "%s:%d" % (DOC, line), "exec"), dict(session))
            except profcodec.UsageError as e:
                assert "not imported into the profile model" in str(e)
                continue
            raise AssertionError("docs/python.md:%d needs the profile of %s, which this build does not have, "
                                 "yet it ran" % (line, needs))
        if lang == "python":
            exec(compile(body, "%s:%d" % (DOC, line), "exec"), session)
            continue
        test = parser.get_doctest(body, session, "docs/python.md:%d" % line, DOC, line - 1)
        result = runner.run(test, clear_globs=False)
        session.update(test.globs)   # (a DocTest holds a copy)
        assert result.failed == 0, "docs/python.md:%d: an example's output differs (above)" % line
    assert ran["pycon"] >= 10 and ran["python"] >= 1
