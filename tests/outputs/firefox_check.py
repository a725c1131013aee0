#!/usr/bin/env python3
"""A checker of the Firefox Profiler's processed profile format, version 70, written from its
documented types (firefox-devtools/profiler: src/types/profile.ts, src/types/markers.ts and
docs-developer/CHANGELOG-formats.md; docs/design.md, "--to firefox"), not from its code.

It checks what the profiler relies on when it loads a processed profile without upgrading it:
the fields each table has (and not the ones the changelog removed), every column as long as
its table's length, every index in range (stacks, frames, funcs, resources, sources, strings,
categories and their subcategories, marker schemas), stack prefixes before their stacks,
sample times that never go back, markers' phases with the times they need and their data
typed by a schema whose unique-string fields hold string indexes.

check(doc) returns the list of problems (empty: valid).

usage: firefox_check.py FILE.json...   (exit 1 when a file has a problem)
"""
import json
import numbers
import sys

VERSION = 70
COLORS = {"transparent", "purple", "green", "orange", "yellow", "lightblue", "blue", "brown", "magenta", "red",
          "lightred", "darkgrey", "grey"}
DISPLAY = {"marker-chart", "marker-table", "timeline-overview", "timeline-memory", "timeline-ipc",
           "timeline-fileio", "timeline-network", "stack-chart"}
FORMATS = {"url", "file-path", "sanitized-string", "string", "unique-string", "flow-id", "terminating-flow-id",
           "duration", "time", "seconds", "milliseconds", "microseconds", "nanoseconds", "bytes", "percentage",
           "integer", "decimal", "pid", "tid", "list", "table"}
WEIGHT_TYPES = {"samples", "tracing-ms", "bytes"}
# (table, its columns) as profile.ts has them at version 70
SHARED = {
    "stackTable": ["frame", "prefixOffset"],
    "frameTable": ["address", "lib", "inlineDepth", "category", "subcategory", "func", "nativeSymbol",
                   "innerWindowID", "line", "column", "originalLocation"],
    "funcTable": ["name", "isJS", "relevantForJS", "resource", "source", "lineNumber", "columnNumber",
                  "originalLocation"],
    "resourceTable": ["name", "host", "type"],
    "nativeSymbols": ["libIndex", "address", "name", "functionSize"],
    "sources": ["id", "filename", "startLine", "startColumn", "sourceMapURL", "content"],
    "sourceLocationTable": ["source", "line", "column"],
}
# fields the changelog removed or moved (version: what)
REMOVED = {
    ("stackTable", "prefix"): 66, ("stackTable", "category"): 53, ("stackTable", "subcategory"): 53,
    ("frameTable", "implementation"): 54, ("funcTable", "fileName"): 58, ("resourceTable", "lib"): 70,
    ("sources", "uuid"): 61,
}
PER_THREAD_REMOVED = ["stackTable", "frameTable", "funcTable", "resourceTable", "nativeSymbols", "stringArray",
                      "stringTable"]


def is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def check(doc):
    errs = []

    def err(msg):
        if len(errs) < 50:
            errs.append(msg)

    def index(v, n, where, nullable=False, minus_one=False):
        if v is None and nullable:
            return
        if v == -1 and minus_one:
            return
        if not is_int(v) or not 0 <= v < n:
            err("%s: %r is not an index below %d" % (where, v, n))

    if not isinstance(doc, dict):
        return ["the profile is not a JSON object"]
    for k in ("meta", "libs", "threads", "shared"):
        if k not in doc:
            err("no %r" % k)
    if errs:
        return errs
    meta, shared, threads, libs = doc["meta"], doc["shared"], doc["threads"], doc["libs"]
    # ---- meta
    if meta.get("preprocessedProfileVersion") != VERSION:
        err("meta.preprocessedProfileVersion is %r, not %d" % (meta.get("preprocessedProfileVersion"), VERSION))
    for k in ("version", "processType", "stackwalk"):
        if not is_int(meta.get(k)):
            err("meta.%s is not an integer" % k)
    if not is_num(meta.get("interval")) or meta["interval"] <= 0:
        err("meta.interval %r is not a positive number" % meta.get("interval"))
    if not is_num(meta.get("startTime")):
        err("meta.startTime is not a number")
    if not isinstance(meta.get("product"), str):
        err("meta.product is not a string")
    cats = meta.get("categories")
    if not isinstance(cats, list) or not cats:
        err("meta.categories is not a non-empty list")
        cats = []
    for i, c in enumerate(cats):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or c.get("color") not in COLORS:
            err("meta.categories[%d] %r: needs a name and a known color" % (i, c))
        elif not isinstance(c.get("subcategories"), list) or not c["subcategories"] or \
                not all(isinstance(s, str) for s in c["subcategories"]):
            err("meta.categories[%d]: subcategories must be a non-empty list of names (0 is the default)" % i)
    if not any(isinstance(c, dict) and c.get("color") == "grey" for c in cats):
        err("meta.categories: no grey category (the default category, version 53)")
    schemas = {}
    ms = meta.get("markerSchema")
    if not isinstance(ms, list):
        err("meta.markerSchema is not a list")
        ms = []
    for i, s in enumerate(ms):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            err("meta.markerSchema[%d]: no name" % i)
            continue
        if "data" in s:
            err("meta.markerSchema[%d]: 'data' was renamed 'fields' (version 55)" % i)
        if not isinstance(s.get("display"), list) or any(d not in DISPLAY for d in s["display"]):
            err("meta.markerSchema[%d] %s: display %r" % (i, s["name"], s.get("display")))
        fields = s.get("fields")
        if not isinstance(fields, list):
            err("meta.markerSchema[%d] %s: fields is not a list" % (i, s["name"]))
            fields = []
        for f in fields:
            if not isinstance(f, dict) or not isinstance(f.get("key"), str) or f.get("format") not in FORMATS:
                err("meta.markerSchema[%d] %s: field %r needs a key and a known format (version 55)" % (i, s["name"], f))
            elif "searchable" in f:
                err("meta.markerSchema[%d] %s: 'searchable' was removed (version 57)" % (i, s["name"]))
        schemas[s["name"]] = fields
    if not isinstance(libs, list):
        err("libs is not a list")
        libs = []
    # ---- shared tables
    strings = shared.get("stringArray")
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        err("shared.stringArray is not a list of strings")
        strings = []
    ns = len(strings)
    lengths, tabs = {}, {}
    for t, cols in SHARED.items():
        tab = shared.get(t)
        if not isinstance(tab, dict):
            err("shared.%s is missing" % t)
            tab = {"length": 0}
        n = tab.get("length")
        if not is_int(n) or n < 0:
            err("shared.%s.length %r" % (t, n))
            n = 0
        lengths[t] = n
        # the columns as the checks below read them: a missing or short one (said) reads as nulls
        tabs[t] = {}
        for c in cols:
            col = tab.get(c)
            if not isinstance(col, list):
                err("shared.%s.%s is missing" % (t, c))
                col = []
            elif len(col) != n:
                err("shared.%s.%s has %d rows, the table %d" % (t, c, len(col), n))
            tabs[t][c] = (col + [None] * n)[:n]
        for (tt, c), v in REMOVED.items():
            if tt == t and c in tab:
                err("shared.%s.%s was removed in version %d" % (t, c, v))
    st, fr, fu = tabs["stackTable"], tabs["frameTable"], tabs["funcTable"]
    rs, so, sl, nsy = tabs["resourceTable"], tabs["sources"], tabs["sourceLocationTable"], tabs["nativeSymbols"]
    for i in range(lengths["stackTable"]):
        index(st["frame"][i], lengths["frameTable"], "stackTable.frame[%d]" % i)
        off = st["prefixOffset"][i]
        if not is_int(off) or not 0 <= off <= i:
            err("stackTable.prefixOffset[%d] = %r: a prefix must come before its stack (version 66)" % (i, off))
    for i in range(lengths["frameTable"]):
        if not is_int(fr["address"][i]) or fr["address"][i] < -1:
            err("frameTable.address[%d] = %r" % (i, fr["address"][i]))
        index(fr["lib"][i], len(libs), "frameTable.lib[%d]" % i, minus_one=True)
        if not is_int(fr["inlineDepth"][i]) or fr["inlineDepth"][i] < 0:
            err("frameTable.inlineDepth[%d] = %r" % (i, fr["inlineDepth"][i]))
        cat = fr["category"][i]
        index(cat, len(cats), "frameTable.category[%d]" % i, nullable=True)
        sub = fr["subcategory"][i]
        if is_int(cat) and 0 <= cat < len(cats) and isinstance(cats[cat], dict):
            index(sub, len(cats[cat].get("subcategories") or []), "frameTable.subcategory[%d]" % i, nullable=True)
        index(fr["func"][i], lengths["funcTable"], "frameTable.func[%d]" % i)
        index(fr["nativeSymbol"][i], lengths["nativeSymbols"], "frameTable.nativeSymbol[%d]" % i, nullable=True)
        for c in ("line", "column"):
            v = fr[c][i]
            if v is not None and (not is_int(v) or v < 0):
                err("frameTable.%s[%d] = %r" % (c, i, v))
        index(fr["originalLocation"][i], lengths["sourceLocationTable"], "frameTable.originalLocation[%d]" % i,
              nullable=True)
    for i in range(lengths["funcTable"]):
        index(fu["name"][i], ns, "funcTable.name[%d]" % i)
        for c in ("isJS", "relevantForJS"):
            if not isinstance(fu[c][i], bool):
                err("funcTable.%s[%d] is not a boolean" % (c, i))
        index(fu["resource"][i], lengths["resourceTable"], "funcTable.resource[%d]" % i, minus_one=True)
        index(fu["source"][i], lengths["sources"], "funcTable.source[%d]" % i, nullable=True)
        for c in ("lineNumber", "columnNumber"):
            if fu[c][i] is not None and not is_int(fu[c][i]):
                err("funcTable.%s[%d] = %r" % (c, i, fu[c][i]))
        index(fu["originalLocation"][i], lengths["sourceLocationTable"], "funcTable.originalLocation[%d]" % i,
              nullable=True)
    for i in range(lengths["resourceTable"]):
        index(rs["name"][i], ns, "resourceTable.name[%d]" % i)
        index(rs["host"][i], ns, "resourceTable.host[%d]" % i, nullable=True)
        if rs["type"][i] not in (0, 1, 2, 3, 4, 5):
            err("resourceTable.type[%d] = %r" % (i, rs["type"][i]))
    for i in range(lengths["nativeSymbols"]):
        index(nsy["libIndex"][i], len(libs), "nativeSymbols.libIndex[%d]" % i)
        index(nsy["name"][i], ns, "nativeSymbols.name[%d]" % i)
    for i in range(lengths["sources"]):
        index(so["filename"][i], ns, "sources.filename[%d]" % i)
        index(so["sourceMapURL"][i], ns, "sources.sourceMapURL[%d]" % i, nullable=True)
        for c in ("startLine", "startColumn"):
            if not is_int(so[c][i]) or so[c][i] < 1:
                err("sources.%s[%d] = %r (1-based)" % (c, i, so[c][i]))
    for i in range(lengths["sourceLocationTable"]):
        index(sl["source"][i], lengths["sources"], "sourceLocationTable.source[%d]" % i)
    # ---- threads
    if not isinstance(threads, list) or not threads:
        err("threads is not a non-empty list")
        threads = []
    for ti, th in enumerate(threads):
        w = "threads[%d]" % ti
        if not isinstance(th, dict):
            err(w + " is not an object")
            continue
        for k in PER_THREAD_REMOVED:
            if k in th:
                err("%s.%s: tables and strings are shared since version 60 (strings 56)" % (w, k))
        for k, ok in (("name", lambda v: isinstance(v, str)), ("pid", lambda v: isinstance(v, str)),
                      ("tid", lambda v: is_int(v) or isinstance(v, str)), ("processType", lambda v: isinstance(v, str)),
                      ("processStartupTime", is_num), ("registerTime", is_num),
                      ("pausedRanges", lambda v: isinstance(v, list)), ("isMainThread", lambda v: isinstance(v, bool)),
                      ("samples", lambda v: isinstance(v, dict)), ("markers", lambda v: isinstance(v, dict))):
            if k not in th or not ok(th[k]):
                err("%s.%s is missing or of the wrong type" % (w, k))
        sm = th.get("samples") if isinstance(th.get("samples"), dict) else {}
        n = sm.get("length")
        if not is_int(n) or n < 0:
            err(w + ".samples.length")
            n = 0
        if sm.get("weightType") not in WEIGHT_TYPES:
            err("%s.samples.weightType %r" % (w, sm.get("weightType")))
        stacks = sm.get("stack")
        times = sm.get("time")
        if not isinstance(stacks, list) or len(stacks) != n:
            err("%s.samples.stack: not %d rows" % (w, n))
            stacks = []
        if not isinstance(times, list) or len(times) != n:
            err("%s.samples.time: not %d rows" % (w, n))
            times = []
        weight = sm.get("weight", "absent")
        if weight is not None and (not isinstance(weight, list) or len(weight) != n or not all(is_num(x) for x in weight)):
            err("%s.samples.weight: null or %d numbers" % (w, n))
        for i, s in enumerate(stacks):
            index(s, lengths["stackTable"], "%s.samples.stack[%d]" % (w, i), nullable=True)
        prev = None
        for i, t in enumerate(times):
            if not is_num(t):
                err("%s.samples.time[%d] = %r" % (w, i, t))
                continue
            if prev is not None and t < prev:
                err("%s.samples.time[%d] = %r goes back (from %r)" % (w, i, t, prev))
            prev = t
        mk = th.get("markers") if isinstance(th.get("markers"), dict) else {}
        m = mk.get("length")
        if not is_int(m) or m < 0:
            err(w + ".markers.length")
            m = 0
        cols = {}
        for c in ("data", "name", "startTime", "endTime", "phase", "category"):
            v = mk.get(c)
            if not isinstance(v, list) or len(v) != m:
                err("%s.markers.%s: not %d rows" % (w, c, m))
                v = [None] * m
            cols[c] = v
        for i in range(m):
            index(cols["name"][i], ns, "%s.markers.name[%d]" % (w, i))
            index(cols["category"][i], len(cats), "%s.markers.category[%d]" % (w, i))
            ph, s0, s1 = cols["phase"][i], cols["startTime"][i], cols["endTime"][i]
            if ph not in (0, 1, 2, 3):
                err("%s.markers.phase[%d] = %r" % (w, i, ph))
            if ph in (0, 1, 2) and not is_num(s0):
                err("%s.markers.startTime[%d] = %r (phase %r needs it)" % (w, i, s0, ph))
            if ph in (1, 3) and not is_num(s1):
                err("%s.markers.endTime[%d] = %r (phase %r needs it)" % (w, i, s1, ph))
            if ph == 1 and is_num(s0) and is_num(s1) and s1 < s0:
                err("%s.markers[%d]: ends (%r) before it starts (%r)" % (w, i, s1, s0))
            d = cols["data"][i]
            if d is None:
                continue
            if not isinstance(d, dict) or d.get("type") not in schemas:
                err("%s.markers.data[%d]: type %r has no marker schema" % (w, i, d.get("type") if isinstance(d, dict) else d))
                continue
            for f in schemas[d["type"]]:
                if isinstance(f, dict) and f.get("format") == "unique-string" and f.get("key") in d:
                    index(d[f["key"]], ns, "%s.markers.data[%d].%s" % (w, i, f["key"]))
    return errs


def main(argv):
    bad = 0
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            errs = check(json.load(f))
        for e in errs:
            print("%s: %s" % (path, e))
        bad += bool(errs)
        if not errs:
            print("%s: valid processed profile, version %d" % (path, VERSION))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
