"""TraceSet and Trace: loaded traces and their tables as pandas DataFrames."""
from __future__ import annotations

import functools
import os
from typing import Dict, Iterator, List, Sequence, Union

import numpy as np
import pandas as pd

from . import _frames
from . import _tracehound

# EventKind values (core/graph/event_kind.h) by name.
_KIND_NAMES: List[str] = list(_tracehound.event_kind_names())
_KIND = {name: value for value, name in enumerate(_KIND_NAMES)}
_TRACK_KINDS = ["cpu", "gpu_stream", "other"]


class Trace:
    """One rank's trace: its event graph's tables as DataFrames.

    Numeric columns are read-only numpy views of the graph (no copy); names
    are Categoricals over the trace's string pool; times are int64 ns on the
    trace's clock (add ``info['base_time_ns']`` for epoch time).
    """

    def __init__(self, owner: "_tracehound._TraceSet", index: int):
        self._owner = owner
        self._index = index
        self.info: Dict[str, object] = owner.info(index)
        self.rank: int = self.info["rank"]
        self.path: str = self.info["path"]
        self.format: str = self.info["format"]

    def __repr__(self) -> str:
        return f"<tracehound.Trace rank {self.rank} {self.format} {self.path!r}>"

    @functools.cached_property
    def strings(self) -> pd.CategoricalDtype:
        """The string pool as the dtype of every name column (id = code)."""
        return pd.CategoricalDtype(pd.Index(self._owner.strings(self._index), dtype=object))

    def table(self, name: str) -> pd.DataFrame:
        """Catalog table ``name`` (see ``table_names()``; docs/architecture.md)."""
        return self._table(name)

    def _columns(self, name: str):
        got = self._owner.table(self._index, name)
        if got is None:
            raise KeyError(f"no table {name!r} (tables: {', '.join(self.table_names())})")
        return got

    def _table(self, name: str, replace=None) -> pd.DataFrame:
        columns, schema = self._columns(name)
        out = _frames.frame(columns, schema, self.strings, replace(columns) if replace else None)
        out.attrs["units"] = _frames.units(schema)
        return out

    @staticmethod
    def table_names() -> List[str]:
        """Every table of the catalog: the event graph's and the host's facts."""
        return list(_tracehound._TraceSet.table_names())

    @functools.cached_property
    def events(self) -> pd.DataFrame:
        """Every event, file order: ts, dur (ns), name, cat, track, parent,
        depth, kind (Categorical of EventKind names), args_row, flags."""
        kinds = pd.CategoricalDtype(_KIND_NAMES)
        return self._table("events", lambda columns: {
            "kind": pd.Series(_frames.categorical(columns["kind"], kinds), copy=False),
            "flags": self._columns("event_flags")[0]["flags"],
        })

    @functools.cached_property
    def tracks(self) -> pd.DataFrame:
        """Timelines, row = track id: kind (cpu, gpu_stream, other), pid, tid,
        names, device, stream."""
        return self._table("tracks", lambda columns: {
            "kind": pd.Categorical.from_codes(columns["kind"].astype(np.int8),
                                              categories=_TRACK_KINDS)})

    @functools.cached_property
    def steps(self) -> pd.DataFrame:
        """ProfilerStep#N windows: number, event, ts, dur (ns)."""
        return self.table("profiler_steps")

    @functools.cached_property
    def gpu_args(self) -> pd.DataFrame:
        """Kernels, memcpy, memset and syncs: one row per event."""
        return self.table("gpu_args")

    def _gpu_activity(self, kind: str) -> pd.DataFrame:
        ev = self.events
        ga = self.gpu_args
        kinds = ev["kind"].cat.codes.to_numpy()
        rows = ga["event"].to_numpy()
        keep = kinds[rows] == _KIND[kind]
        rows = rows[keep]
        out = pd.DataFrame({
            "event": rows,
            "ts": ev["ts"].to_numpy()[rows],
            "dur": ev["dur"].to_numpy()[rows],
            "name": ev["name"].take(rows).reset_index(drop=True),
        })
        for column in ga.columns[1:]:
            out[column] = ga[column].to_numpy()[keep]
        return out

    @functools.cached_property
    def kernels(self) -> pd.DataFrame:
        """GPU kernels (a gathered copy): event, ts, dur (ns), name and their
        gpu_args (device, stream, grid, block, registers, ...)."""
        return self._gpu_activity("kernel")

    @functools.cached_property
    def memcpy(self) -> pd.DataFrame:
        """GPU copies (a gathered copy), as ``kernels``."""
        return self._gpu_activity("memcpy")

    @functools.cached_property
    def memset(self) -> pd.DataFrame:
        """GPU memsets (a gathered copy), as ``kernels``."""
        return self._gpu_activity("memset")

    @functools.cached_property
    def memory(self) -> pd.DataFrame:
        """Allocator events ([memory], [OutOfMemory]) with their time: event,
        ts (ns), kind, device_type, device_id, addr, bytes, total_allocated,
        total_reserved (INT64_MIN when absent)."""
        ma = self.table("memory_args")
        ev = self.events
        rows = ma["event"].to_numpy()
        ma.insert(1, "ts", ev["ts"].to_numpy()[rows])
        ma.insert(2, "kind", ev["kind"].take(rows).reset_index(drop=True))
        return ma

    @functools.cached_property
    def launches(self) -> pd.DataFrame:
        """Each launched event (ascending) with the host call that launched it."""
        return self.table("event_launches")

    @functools.cached_property
    def edges(self) -> pd.DataFrame:
        """Launch and flow edges: src, dst, kind (0 launch, 1 flow)."""
        return self.table("edges")

    @functools.cached_property
    def hlo(self) -> pd.DataFrame:
        """XProf captures: the HLO instructions of every module (empty otherwise)."""
        return self.table("hlo_instructions")

    @functools.cached_property
    def counters(self) -> pd.DataFrame:
        """Counter (C) events: event, series, value."""
        return self.table("counters")

    @functools.cached_property
    def collectives(self) -> pd.DataFrame:
        """NCCL/RCCL metadata of collective kernels."""
        return self.table("collective_args")

    @functools.cached_property
    def devices(self) -> pd.DataFrame:
        """Accelerators as the trace describes them."""
        return self.table("devices")

    @functools.cached_property
    def trust(self) -> pd.DataFrame:
        """The trust table: every defect met while reading (id, what,
        severity, count, example)."""
        return _trust_frame(self._owner.trust(self._index))


def _trust_frame(rows: List[Dict[str, object]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["id", "what", "severity", "count", "example"])


class TraceSet(Sequence[Trace]):
    """The traces of one ``load()``, ordered by rank.

    ``set[i]`` is a ``Trace`` (frames that view its graph). The frames of the
    set (``set.events`` ...) are those of its one trace when it has one, else
    the traces' frames concatenated with a ``rank`` column (a copy).
    """

    def __init__(self, owner: "_tracehound._TraceSet"):
        self._owner = owner
        self._traces = [Trace(owner, i) for i in range(len(owner))]

    def __len__(self) -> int:
        return len(self._traces)

    def __getitem__(self, i):  # type: ignore[override]
        return self._traces[i]

    def __iter__(self) -> Iterator[Trace]:
        return iter(self._traces)

    def __repr__(self) -> str:
        return f"<tracehound.TraceSet {len(self)} trace(s) from {self.inputs!r}>"

    @property
    def inputs(self) -> List[str]:
        """The inputs as given to ``load()``."""
        return list(self._owner.inputs)

    @property
    def ranks(self) -> List[int]:
        return [t.rank for t in self._traces]

    def _over_ranks(self, frames: List[pd.DataFrame]) -> pd.DataFrame:
        return frames[0] if len(frames) == 1 else _frames.concat_ranks(frames, self.ranks)

    def _frame(self, name: str) -> pd.DataFrame:
        return self._over_ranks([getattr(t, name) for t in self._traces])

    def table(self, name: str) -> pd.DataFrame:
        """Catalog table ``name`` of every trace (see ``Trace.table``)."""
        return self._over_ranks([t.table(name) for t in self._traces])

    events = property(lambda self: self._frame("events"), doc=Trace.events.__doc__)
    tracks = property(lambda self: self._frame("tracks"), doc=Trace.tracks.__doc__)
    steps = property(lambda self: self._frame("steps"), doc=Trace.steps.__doc__)
    gpu_args = property(lambda self: self._frame("gpu_args"), doc=Trace.gpu_args.__doc__)
    kernels = property(lambda self: self._frame("kernels"), doc=Trace.kernels.__doc__)
    memcpy = property(lambda self: self._frame("memcpy"), doc=Trace.memcpy.__doc__)
    memset = property(lambda self: self._frame("memset"), doc=Trace.memset.__doc__)
    memory = property(lambda self: self._frame("memory"), doc=Trace.memory.__doc__)
    launches = property(lambda self: self._frame("launches"), doc=Trace.launches.__doc__)
    edges = property(lambda self: self._frame("edges"), doc=Trace.edges.__doc__)
    hlo = property(lambda self: self._frame("hlo"), doc=Trace.hlo.__doc__)
    counters = property(lambda self: self._frame("counters"), doc=Trace.counters.__doc__)
    collectives = property(lambda self: self._frame("collectives"),
                           doc=Trace.collectives.__doc__)
    devices = property(lambda self: self._frame("devices"), doc=Trace.devices.__doc__)

    @property
    def trust(self) -> pd.DataFrame:
        """Every trace's trust rows with its rank, then the set's own (rank -1:
        inputs skipped, duplicate ranks)."""
        parts = []
        for t in self._traces:
            f = t.trust.copy()
            f.insert(0, "rank", t.rank)
            parts.append(f)
        own = _trust_frame(self._owner.set_trust())
        own.insert(0, "rank", -1)
        parts.append(own)
        return pd.concat(parts, ignore_index=True)


def load(inputs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
         *, keep_truncated: bool = False, chunk_kib: int = 1024,
         threads: int = 0) -> TraceSet:
    """Reads traces into a ``TraceSet``, as ``tracehound info`` does.

    ``inputs``: a path or a list of them: trace files (Kineto JSON, .gz,
    XProf .xplane.pb ...), folders of rank files, globs, .tar.gz/.zip
    archives. Options mirror the CLI's: ``keep_truncated`` reads the complete
    events of a truncated trace (an error-severity trust entry says so),
    ``chunk_kib`` is the JSON text per parallel chunk, ``threads`` the worker
    threads (0 = all cores).

    Raises ValueError for input that is no trace or is malformed (the message
    names the file and offset), FileNotFoundError for a missing path.
    """
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    paths = [os.fspath(p) for p in inputs]
    return TraceSet(_tracehound.load(paths, keep_truncated=keep_truncated,
                                     chunk_kib=chunk_kib, threads=threads))
