"""profcodec: profiler and tracer files at C speed.

Reads, writes, validates and converts the binary formats of Austin (MOJO), CPython's sampling
profiler (Tachyon), Mono's log profiler, MoarVM heap snapshots and Heph traces, with codecs
generated from declarative schemas. The classes of each format version are generated too
(``profcodec.mojo_v3``, ...; ``profcodec.schema("mojo:3")``).

    import profcodec
    with profcodec.open("profile.mojo") as r:
        for record in r:
            print(record.to_dict())

See docs/python.md.
"""
import json as _json
from array import array

from ._profcodec import (  # noqa: F401
    DamagedInput,
    Error,
    InputWarning,
    LimitError,
    NothingToShow,
    Reader,
    Record,
    UsageError,
    __version__,
    convert,
    encode,
    formats,
    merge,
    open,
    schema,
    validate,
)

__all__ = [
    "DamagedInput", "Error", "InputWarning", "LimitError", "NothingToShow", "Profile", "Reader", "Record",
    "UsageError", "__version__",
    "convert", "encode", "formats", "merge", "open", "schema", "top", "validate",
]

#: The grouping and filter keywords of convert(), top(), Reader.profile() and Profile.filter()
#: (pprof's meanings; README "Grouping and filters").
FILTERS = ("granularity", "focus", "ignore", "hide", "show", "prune_from", "tag", "thread", "from_", "until",
           "trim_path")


def top(source, n=0, *, cum=False, metric=None, format=None, all=False, max_memory=None, **filters):
    """go tool pprof -top's table as a dict (``profcodec top --json``'s schema): metric, unit,
    granularity, total (the input's, before filters), shown, functions, and rows, each with
    name, file, flat and cum (exact integers), sorted by flat (cum=True: by cum), the first n
    (0: all). Takes the grouping and filter keywords (FILTERS); groups by function unless
    granularity= says otherwise."""
    return _json.loads(convert(source, "top", n=n, cum=cum, metric=metric, format=format, all=all,
                               max_memory=max_memory, **filters))

#: A line, column or id the source does not give, in the profile's integer columns.
NONE = -(2 ** 63)

#: The kinds of frames (Profile.frames.kind), by number.
FRAME_KINDS = ("code", "native", "kernel", "gc", "idle", "invalid", "label", "type", "root")


class Columns:
    """A table as columns: each attribute a memoryview of one field (NumPy takes them
    without a copy: ``numpy.asarray(profile.samples.stack)``)."""

    def __init__(self, columns):
        self.__dict__.update(columns)
        self._names = tuple(columns)

    def __len__(self):
        return len(getattr(self, self._names[0])) if self._names else 0

    def __repr__(self):
        return "Columns(%s; %d rows)" % (", ".join(self._names), len(self))

    def to_numpy(self):
        """The columns as a dict of NumPy arrays over the same memory (no copy)."""
        import numpy
        return {name: numpy.asarray(getattr(self, name)) for name in self._names}


def _source_of(profile):
    src = getattr(profile, "_source", None)
    if src is None:
        raise UsageError("this Profile does not know what it was read from (Reader.profile() makes one that does)")
    if hasattr(src, "seek"):
        src.seek(0)
    return src


def _reopen(profile):
    return open(_source_of(profile))


class Profile:
    """An input imported into profcodec's profile model (Reader.profile()).

    strings       the interned strings (str; bytes that are not UTF-8 as surrogate escapes)
    frames        columns: function, file, module (string ids), line, end_line, column,
                  end_column (NONE when unknown), address, kind (FRAME_KINDS), flags, key
    stacks        columns: parent (a stack), frame, depth; stack 0 is the empty stack
    threads       a list of dicts: pid, iid, tid, tid_text, key, name, process_name
    sample_types  a list of dicts: name, unit, title, secondary, signed
    samples       columns: thread, stack, time (ns, NONE when none), count, flags, and values
                  (rows x sample types, unsigned 64 bits; a signed type's are int64 in the same
                  bits, as pprof's: weights() reads them so)
    slices        columns: track (a thread), start, end (ns), name, category (string ids)
    metadata      (key, value) pairs in file order
    """

    def __init__(self, d):
        self.__dict__.update(d)
        self.frames = Columns(d["frames"])
        self.stacks = Columns(d["stacks"])
        self.samples = Columns(d["samples"])
        self.slices = Columns(d["slices"])

    def text(self, s):
        """The string with id s."""
        return self.strings[s]

    def function(self, frame):
        """The function name of a frame."""
        return self.strings[self.frames.function[frame]]

    def stack_frames(self, stack):
        """The frames of a stack, outermost first."""
        out = []
        parent, frame = self.stacks.parent, self.stacks.frame
        while stack:
            out.append(frame[stack])
            stack = parent[stack]
        out.reverse()
        return out

    def tables(self):
        """The profile as tables for pandas and other column engines: a dict of table name
        (samples, frames, stacks, slices, threads, sample_types) to a dict of column name to a
        1-D NumPy array. The arrays of samples, frames, stacks and slices are the profile's own
        memory (no copy; ``pandas.DataFrame(t, copy=False)`` keeps it so); samples has a column of
        values per sample type, named as the type (``value_`` before a name that is already a
        column's), int64 for a signed type. Strings are ids into ``strings``; NONE marks what the
        source does not give."""
        import numpy
        samples = self.samples.to_numpy()
        values = samples.pop("values")
        if values.ndim == 1:
            values = values.reshape(len(values) // max(len(self.sample_types), 1) if len(values) else 0,
                                    len(self.sample_types))
        for t, st in enumerate(self.sample_types):
            name = st["name"] if st["name"] not in samples else "value_" + st["name"]
            column = values[:, t]
            samples[name] = column.view(numpy.int64) if st.get("signed") else column
        def column(xs):
            # object where a value is None or text; else bool, or int64, or uint64 for ids above
            # 2**63-1 (a thread's key)
            if any(x is None or isinstance(x, str) for x in xs):
                return numpy.array(xs, dtype=object)
            if xs and all(isinstance(x, bool) for x in xs):
                return numpy.array(xs, dtype=bool)
            return numpy.array(xs, dtype=numpy.uint64 if any(x > 2 ** 63 - 1 for x in xs) else numpy.int64)

        def rows(dicts, keys):
            return {k: column([d[k] for d in dicts]) for k in keys}
        return {
            "samples": samples,
            "frames": self.frames.to_numpy(),
            "stacks": self.stacks.to_numpy(),
            "slices": self.slices.to_numpy(),
            "threads": rows(self.threads, ("pid", "iid", "tid", "tid_text", "key", "name", "process_name")),
            "sample_types": rows(self.sample_types, ("name", "unit", "title", "secondary", "signed")),
        }

    def weights(self, sample_type=None):
        """What each row of samples adds to a total of a sample type (by name; None: the default
        one): its value times its count (a row may stand for a run of identical samples), as an
        array('Q'), or array('q') for a signed type (pprof's). With NumPy: ``values[:, t] * count``
        (``.view(np.int64)`` first for a signed type)."""
        t = self.sample_type(sample_type)
        k = len(self.sample_types)
        code = "q" if self.sample_types[t].get("signed") else "Q"
        v = self.samples.values
        flat = v.cast("B").cast(code) if v.ndim == 2 or code == "q" else v
        count = self.samples.count
        return array(code, [flat[i * k + t] * count[i] for i in range(len(count))])

    def sample_type(self, name):
        """The index of a sample type by name (the default one when name is None)."""
        if name is None:
            return self.default_type
        for i, t in enumerate(self.sample_types):
            if t["name"] == name:
                return i
        raise UsageError("no sample type %r (this profile has %s)"
                         % (name, ", ".join(t["name"] for t in self.sample_types)))

    def filter(self, **filters):
        """The same input imported again through the grouping and filters (FILTERS: focus=,
        ignore=, hide=, show=, prune_from=, tag=, thread=, from_=, until=, trim_path=,
        granularity=): a new Profile holding what passed."""
        return _reopen(self).profile(**filters)

    def top(self, n=0, *, cum=False, metric=None, **filters):
        """go tool pprof -top's table of this profile's input (profcodec.top()): a dict with rows
        of name, file, flat and cum per function. The filters apply as in filter()."""
        return top(_source_of(self), n, cum=cum, metric=metric, **filters)

    def __repr__(self):
        return "<Profile %s %s: %d frames, %d stacks, %d threads, %d samples, %d slices>" % (
            self.format, self.version, len(self.frames), len(self.stacks), len(self.threads),
            len(self.samples), len(self.slices))
