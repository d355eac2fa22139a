"""Python plugins: a pipeline step written in Python.

A pipeline names one under ``plugins:`` by its id, with a ``python:`` key that
says where its class is, ``module:Class`` (imported; the pipeline's folder is
on ``sys.path``) or ``path/to/file.py:Class`` (relative to the pipeline)::

    plugins:
      slow-kernels: {python: "checks/slow_kernels.py:SlowKernels", min_ns: 1000}

The class derives from :class:`Plugin` and declares itself as a C++ plugin
does (``id`` equal to the pipeline key, ``version``, ``summary``, ``kind``,
``reads``, ``publishes``, ``options``); the host checks the declaration as it
checks a C++ plugin's. Its ``run(self, ctx)`` receives a :class:`Context`:
the traces' tables as read-only numpy arrays that view the host's columns
(no copy), and the C ABI's reporting functions (findings, metrics, tables,
checks, log, skip). Whatever ``run`` raises becomes that plugin's failure,
with the traceback's last lines; the other plugins still run.

The host calls a plugin through the C ABI (``sdk/include/tracehound/
plugin_api.h``): this module builds the plugin's ``th_plugin_descriptor``
with ctypes and wraps ``th_host_api``; it needs numpy, not the compiled
``tracehound._tracehound`` module. Arrays handed to ``run`` are valid only
during ``run``: copy what must outlive it.
"""
from __future__ import annotations

import ctypes as C
import importlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = ["Plugin", "Context", "Trace", "Column", "Table", "Option", "Number", "HostError",
           "PluginDeclarationError"]

_API_MAJOR, _API_MINOR = 2, 1
_U32, _I64, _U64, _F64, _STR, _PTR = (C.c_uint32, C.c_int64, C.c_uint64, C.c_double,
                                      C.c_char_p, C.c_void_p)

# th_value_type -> numpy dtype of a column's values (TH_TYPE_STRING is apart).
_BOOL, _TYPE_I64, _TYPE_F64, _TYPE_STRING = 0, 1, 2, 3
_DTYPES = {0: np.uint8, 1: np.int64, 2: np.float64, 4: np.uint32, 5: np.uint16, 6: np.uint8,
           7: np.int32, 8: np.float32, 9: np.int8, 10: np.int16, 11: np.uint32}
_COLUMN_TYPES = {"i64": _TYPE_I64, int: _TYPE_I64, "f64": _TYPE_F64, float: _TYPE_F64,
                 "str": _TYPE_STRING, str: _TYPE_STRING}
_OPTION_TYPES = {"bool": _BOOL, bool: _BOOL, "int": _TYPE_I64, int: _TYPE_I64,
                 "float": _TYPE_F64, float: _TYPE_F64, "str": _TYPE_STRING, str: _TYPE_STRING}
_KINDS = {"measured": 0, "read": 1, "inferred": 2}
_SEVERITIES = {"P0": 0, "P1": 1, "P2": 2, "info": 3}


# ---- the C ABI's structs (plugin_api.h), field for field ----

class _Column(C.Structure):
    _fields_ = [("data", _PTR), ("length", _U64), ("type", _U32), ("reserved", _U32)]


class _TableColumn(C.Structure):
    _fields_ = [("name", _STR), ("values", _Column), ("unit", _STR)]


class _Table(C.Structure):
    _fields_ = [("struct_size", _U32), ("column_count", _U32), ("name", _STR),
                ("columns", C.POINTER(_TableColumn)), ("row_count", _U64)]


class _ColumnSchema(C.Structure):
    _fields_ = [("name", _STR), ("type", _U32), ("reserved", _U32), ("unit", _STR),
                ("doc", _STR)]


class _TableSchema(C.Structure):
    _fields_ = [("struct_size", _U32), ("column_count", _U32), ("name", _STR), ("doc", _STR),
                ("columns", C.POINTER(_ColumnSchema)), ("view", _STR)]


class _TraceView(C.Structure):
    _fields_ = [("struct_size", _U32), ("table_count", _U32), ("path", _STR), ("rank", _I64),
                ("tables", C.POINTER(_Table)), ("host_trace", _PTR), ("group", _STR)]


class _OptionValue(C.Structure):
    _fields_ = [("name", _STR), ("type", _U32), ("reserved", _U32), ("i64", _I64),
                ("f64", _F64), ("str", _STR)]


class _Evidence(C.Structure):
    _fields_ = [("name", _STR), ("value", _F64), ("unit", _STR), ("kind", _U32),
                ("reserved", _U32)]


class _Scope(C.Structure):
    _fields_ = [("rank", _I64), ("device", _I64), ("stream", _I64), ("step_first", _I64),
                ("step_last", _I64)]


class _Finding(C.Structure):
    _fields_ = [("struct_size", _U32), ("severity", _U32), ("title", _STR), ("what", _STR),
                ("suggestion", _STR), ("confidence", _F64), ("scope", _Scope),
                ("evidence", C.POINTER(_Evidence)), ("evidence_count", _U32),
                ("has_saving", _U32), ("saving_ns", _F64), ("has_time_lost", _U32),
                ("has_range", _U32), ("time_lost_ns", _F64), ("group", _STR), ("t0", _I64),
                ("t1", _I64)]


class _Check(C.Structure):
    _fields_ = [("struct_size", _U32), ("passed", _U32), ("name", _STR), ("detail", _STR)]


class _Metric(C.Structure):
    _fields_ = [("struct_size", _U32), ("kind", _U32), ("name", _STR), ("value", _F64),
                ("unit", _STR), ("scope", _Scope)]


_Status = C.c_int
_TraceP = C.POINTER(_TraceView)


class _HostApi(C.Structure):
    _fields_ = [("struct_size", _U32), ("api_major", _U32), ("api_minor", _U32),
                ("reserved", _U32), ("ctx", _PTR),
                ("log", C.CFUNCTYPE(None, _PTR, C.c_int, _STR)),
                ("string_at", C.CFUNCTYPE(_PTR, _PTR, _TraceP, _U32, C.POINTER(_U64))),
                ("correlation", C.CFUNCTYPE(_I64, _PTR, _TraceP, _U64)),
                ("external_id", C.CFUNCTYPE(_I64, _PTR, _TraceP, _U64)),
                ("add_finding", C.CFUNCTYPE(_Status, _PTR, C.POINTER(_Finding))),
                ("publish_metric", C.CFUNCTYPE(_Status, _PTR, C.POINTER(_Metric))),
                ("publish_table", C.CFUNCTYPE(_Status, _PTR, C.POINTER(_Table))),
                ("find_table", C.CFUNCTYPE(_Status, _PTR, _STR, C.POINTER(C.POINTER(_Table)))),
                ("add_check", C.CFUNCTYPE(_Status, _PTR, C.POINTER(_Check))),
                ("sort_by_key", _PTR), ("reduce_by_key", _PTR),
                ("segmented_percentiles", _PTR), ("interval_union", _PTR),
                ("interval_overlap", _PTR),
                ("skip_trace", C.CFUNCTYPE(_Status, _PTR, _TraceP, _STR)),
                ("find_group_table",
                 C.CFUNCTYPE(_Status, _PTR, _STR, _STR, C.POINTER(C.POINTER(_Table)))),
                ("column_buffer", _PTR)]  # 2.2; Python plugins publish copies


class _OptionDecl(C.Structure):
    _fields_ = [("name", _STR), ("type", _U32), ("has_min", _U32), ("has_max", _U32),
                ("choice_count", _U32), ("default_value", _OptionValue), ("min", _F64),
                ("max", _F64), ("doc", _STR), ("choices", C.POINTER(_STR))]


class _RunInput(C.Structure):
    _fields_ = [("struct_size", _U32), ("trace_count", _U32),
                ("traces", C.POINTER(_TraceP)), ("options", C.POINTER(_OptionValue)),
                ("option_count", _U32), ("reserved", _U32)]


_RunFn = C.CFUNCTYPE(_Status, C.POINTER(_HostApi), C.POINTER(_RunInput), _PTR, _U64)


class _Descriptor(C.Structure):
    _fields_ = [("struct_size", _U32), ("api_major", _U32), ("api_minor", _U32),
                ("kind", _U32), ("id", _STR), ("version", _STR), ("summary", _STR),
                ("options", C.POINTER(_OptionDecl)), ("option_count", _U32),
                ("read_count", _U32), ("reads", C.POINTER(_STR)), ("publish_count", _U32),
                ("flags", _U32), ("publishes", C.POINTER(_TableSchema)), ("run", _RunFn)]


# ---- what a plugin declares ----

@dataclass(frozen=True)
class Column:
    """A column of a published table: type ``"i64"``, ``"f64"`` or ``"str"``
    (or int, float, str), unit (``"ns"``, ``"bytes"``, ``""`` for counts)."""
    name: str
    type: Union[str, type] = "i64"
    unit: str = ""
    doc: str = ""


@dataclass(frozen=True)
class Table:
    """The schema of a published table: its columns in order."""
    columns: Sequence[Column]
    doc: str = ""
    view: Optional[str] = None


@dataclass(frozen=True)
class Option:
    """An option: type ``"bool"``, ``"int"``, ``"float"`` or ``"str"`` (or the
    Python type), its default, and optional inclusive bounds or choices."""
    type: Union[str, type]
    default: Any
    doc: str = ""
    min: Optional[float] = None
    max: Optional[float] = None
    choices: Sequence[str] = ()


@dataclass(frozen=True)
class Number:
    """A finding's evidence: a value with its unit and how it was obtained
    (``"measured"`` from the trace, ``"read"`` from a spec, ``"inferred"``)."""
    name: str
    value: float
    unit: str = ""
    kind: str = "measured"


class PluginDeclarationError(ValueError):
    """A plugin class whose declaration the host cannot take."""


class HostError(RuntimeError):
    """The host refused a call (the reason is in the plugin's log)."""


class Plugin:
    """Base class of Python plugins; subclasses set the class attributes and
    override :meth:`run`. The class is instantiated once, without arguments,
    when the pipeline is loaded."""
    id: str = ""
    version: str = "0.1.0"
    summary: str = ""
    kind: str = "analyzer"  # or "detector"
    reads: Sequence[str] = ()  # catalog tables ("events", ...) and other plugins' tables
    publishes: Mapping[str, Table] = {}
    options: Mapping[str, Option] = {}

    def run(self, ctx: "Context") -> None:
        raise NotImplementedError(f"{type(self).__name__}.run")


# ---- what run() sees ----

def _decode(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


def _column_array(col: _Column) -> Union[np.ndarray, List[str]]:
    """A read-only numpy view of a host column (a list of str for a string
    column, whose values are C strings)."""
    n = int(col.length)
    if col.type == _TYPE_STRING:
        ptrs = C.cast(col.data, C.POINTER(_STR))
        return [_decode(ptrs[i]) for i in range(n)]
    dtype = np.dtype(_DTYPES[col.type])
    if n == 0 or not col.data:
        array = np.empty(0, dtype)
    else:
        raw = (C.c_char * (n * dtype.itemsize)).from_address(col.data)
        array = np.frombuffer(raw, dtype=dtype, count=n)
    array.flags.writeable = False
    return array


def _table_dict(table: _Table) -> Dict[str, Any]:
    return {_decode(table.columns[i].name): _column_array(table.columns[i].values)
            for i in range(table.column_count)}


class Trace:
    """One input trace: ``path``, ``rank``, ``group`` and its declared tables
    (``trace.tables["events"]["dur"]``, or ``trace["events"]``), each a dict
    of column name to read-only numpy array."""

    def __init__(self, view: _TraceView, pointer):
        self._pointer = pointer
        self.path = _decode(view.path)
        self.rank = int(view.rank)
        self.group = _decode(view.group) if view.struct_size >= C.sizeof(_TraceView) else ""
        self.tables = {_decode(view.tables[i].name): _table_dict(view.tables[i])
                       for i in range(view.table_count)}

    def __getitem__(self, name: str) -> Dict[str, Any]:
        return self.tables[name]

    def __repr__(self) -> str:
        return f"Trace(path={self.path!r}, rank={self.rank}, tables={sorted(self.tables)})"


def _c(s: Optional[str], what: str = "a text") -> Optional[bytes]:
    if s is None:
        return None
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a str, got {type(s).__name__}")
    return s.encode("utf-8")


def _scope(rank, device, stream, steps) -> _Scope:
    first, last = (-1, -1) if steps is None else (int(steps[0]), int(steps[1]))
    return _Scope(int(rank), int(device), int(stream), first, last)


def _number_kind(kind: str) -> int:
    if kind not in _KINDS:
        raise ValueError(f"number kind {kind!r} is none of {sorted(_KINDS)}")
    return _KINDS[kind]


class Context:
    """What a running plugin gets: ``traces``, ``options`` and the host's
    functions. Each reporting call raises :class:`HostError` when the host
    refuses it (the reason is logged)."""

    def __init__(self, host: _HostApi, run_input: _RunInput, plugin: Plugin):
        self._host = host
        self._plugin = plugin
        self.traces: List[Trace] = [Trace(run_input.traces[i].contents, run_input.traces[i])
                                    for i in range(run_input.trace_count)]
        self.options: Dict[str, Any] = {}
        for i in range(run_input.option_count):
            o = run_input.options[i]
            value = {_BOOL: lambda: bool(o.i64), _TYPE_I64: lambda: int(o.i64),
                     _TYPE_F64: lambda: float(o.f64), _TYPE_STRING: lambda: _decode(o.str)}
            self.options[_decode(o.name)] = value[o.type]()

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise HostError(f"the host refused {what} (see the plugin's log)")

    def string(self, trace: Trace, string_id: int) -> str:
        """The string with id ``string_id`` of ``trace``'s string pool."""
        length = _U64(0)
        ptr = self._host.string_at(self._host.ctx, trace._pointer, int(string_id),
                                   C.byref(length))
        return C.string_at(ptr, length.value).decode("utf-8", "replace") if ptr else ""

    def log(self, message: str, level: str = "info") -> None:
        """A note (``"info"``) or ``"warning"`` in the plugin's log."""
        self._host.log(self._host.ctx, 1 if level == "warning" else 0, _c(message))

    def skip(self, trace: Trace, reason: str) -> None:
        """Leaves ``trace`` out, for ``reason`` (one sentence); reports list it."""
        self._check(self._host.skip_trace(self._host.ctx, trace._pointer, _c(reason)),
                    "skip")

    def add_finding(self, title: str, what: str, severity: str = "P1", *,
                    suggestion: Optional[str] = None, confidence: float = 1.0,
                    rank: int = -1, device: int = -1, stream: int = -1,
                    steps: Optional[Tuple[int, int]] = None,
                    evidence: Sequence[Number] = (), saving_ns: Optional[float] = None,
                    time_lost_ns: Optional[float] = None, group: Optional[str] = None,
                    time_range: Optional[Tuple[int, int]] = None) -> None:
        """A finding (``th_finding``): severity ``"P0"``, ``"P1"``, ``"P2"`` or
        ``"info"``; scope by rank, device, stream and ``steps`` (first, last);
        evidence as :class:`Number` s; ``time_range`` (t0, t1) in ns."""
        if severity not in _SEVERITIES:
            raise ValueError(f"severity {severity!r} is none of {list(_SEVERITIES)}")
        rows = (_Evidence * max(len(evidence), 1))()
        for i, e in enumerate(evidence):
            if not isinstance(e, Number):
                raise TypeError(f"evidence item {i} is a {type(e).__name__}, not a Number")
            rows[i] = _Evidence(_c(e.name), float(e.value), _c(e.unit), _number_kind(e.kind), 0)
        f = _Finding(struct_size=C.sizeof(_Finding), severity=_SEVERITIES[severity],
                     title=_c(title, "title"), what=_c(what, "what"),
                     suggestion=_c(suggestion, "suggestion"),
                     confidence=float(confidence), scope=_scope(rank, device, stream, steps),
                     evidence=rows, evidence_count=len(evidence),
                     has_saving=saving_ns is not None, saving_ns=float(saving_ns or 0),
                     has_time_lost=time_lost_ns is not None,
                     time_lost_ns=float(time_lost_ns or 0), has_range=time_range is not None,
                     group=_c(group))
        if time_range is not None:
            f.t0, f.t1 = int(time_range[0]), int(time_range[1])
        self._check(self._host.add_finding(self._host.ctx, C.byref(f)), "add_finding")

    def publish_metric(self, name: str, value: float, unit: str = "", kind: str = "measured",
                       *, rank: int = -1, device: int = -1, stream: int = -1,
                       steps: Optional[Tuple[int, int]] = None) -> None:
        """A metric (``th_metric``) with its unit and kind."""
        m = _Metric(C.sizeof(_Metric), _number_kind(kind), _c(name, "name"), float(value),
                    _c(unit, "unit"),
                    _scope(rank, device, stream, steps))
        self._check(self._host.publish_metric(self._host.ctx, C.byref(m)), "publish_metric")

    def add_check(self, name: str, passed: bool, detail: str = "") -> None:
        """A reconciliation check that reports list."""
        c = _Check(C.sizeof(_Check), 1 if passed else 0, _c(name), _c(detail))
        self._check(self._host.add_check(self._host.ctx, C.byref(c)), "add_check")

    def publish_table(self, name: str, columns: Mapping[str, Any]) -> None:
        """Publishes table ``name`` (declared in ``publishes``) from a dict of
        column name to values (numpy arrays or sequences), in any order."""
        schema = self._plugin.publishes.get(name) if isinstance(self._plugin.publishes,
                                                                Mapping) else None
        if schema is None:
            raise HostError(f"table {name!r} is not declared in {type(self._plugin).__name__}"
                            ".publishes")
        extra = set(columns) - {c.name for c in schema.columns}
        if extra:
            raise ValueError(f"table {name!r} has no column {sorted(extra)[0]!r}")
        keep = []
        cols = (_TableColumn * len(schema.columns))()
        rows = None
        for i, c in enumerate(schema.columns):
            if c.name not in columns:
                raise ValueError(f"table {name!r}: column {c.name!r} is missing")
            col_type = _COLUMN_TYPES[c.type]
            if col_type == _TYPE_STRING:
                values = [_c(str(v)) for v in columns[c.name]]
                data = (_STR * max(len(values), 1))(*values)
                n = len(values)
            else:
                data = np.ascontiguousarray(columns[c.name],
                                            dtype=np.int64 if col_type == _TYPE_I64
                                            else np.float64)
                n = len(data)
            if rows is not None and n != rows:
                raise ValueError(f"table {name!r}: column {c.name!r} has {n} rows, not {rows}")
            rows = n
            keep.append(data)
            address = C.addressof(data) if col_type == _TYPE_STRING else data.ctypes.data
            cols[i] = _TableColumn(_c(c.name), _Column(address, n, col_type, 0), _c(c.unit))
        t = _Table(C.sizeof(_Table), len(schema.columns), _c(name), cols, rows or 0)
        self._check(self._host.publish_table(self._host.ctx, C.byref(t)), "publish_table")

    def find_table(self, name: str, group: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """A table a plugin before this one published (declared in ``reads``),
        as a dict of column name to read-only numpy array; None when none was
        published. ``group``: that input group's (``"baseline"``/``"inputs"``)."""
        out = C.POINTER(_Table)()
        if group is None:
            status = self._host.find_table(self._host.ctx, _c(name), C.byref(out))
        else:
            status = self._host.find_group_table(self._host.ctx, _c(group), _c(name),
                                                 C.byref(out))
        self._check(status, f"find_table({name!r})")
        return _table_dict(out.contents) if out else None


# ---- declaration -> descriptor ----

def _fail(cls: type, what: str) -> None:
    raise PluginDeclarationError(f"{cls.__module__}.{cls.__qualname__}: {what}")


def _option_decl(cls: type, name: str, o: Any, keep: list) -> _OptionDecl:
    if not isinstance(o, Option):
        _fail(cls, f"options[{name!r}] is a {type(o).__name__}, not a tracehound.Option")
    if name == "python":
        _fail(cls, "declares an option named 'python', the key that names a Python plugin")
    if o.type not in _OPTION_TYPES:
        _fail(cls, f"options[{name!r}] has type {o.type!r}, not bool, int, float or str")
    t = _OPTION_TYPES[o.type]
    ok = {_BOOL: isinstance(o.default, bool),
          _TYPE_I64: isinstance(o.default, int) and not isinstance(o.default, bool),
          _TYPE_F64: isinstance(o.default, (int, float)) and not isinstance(o.default, bool),
          _TYPE_STRING: isinstance(o.default, str)}[t]
    if not ok:
        _fail(cls, f"options[{name!r}] default {o.default!r} is not of its type {o.type!r}")
    d = _OptionDecl(name=_c(name), type=t, doc=_c(o.doc))
    d.default_value = _OptionValue(name=_c(name), type=t)
    if t == _TYPE_STRING:
        d.default_value.str = _c(o.default)
    elif t == _TYPE_F64:
        d.default_value.f64 = float(o.default)
    else:
        d.default_value.i64 = int(o.default)
    if o.min is not None:
        d.has_min, d.min = 1, float(o.min)
    if o.max is not None:
        d.has_max, d.max = 1, float(o.max)
    choices = (_STR * max(len(o.choices), 1))(*[_c(c) for c in o.choices])
    keep.append(choices)
    d.choices, d.choice_count = choices, len(o.choices)
    return d


def _table_schema(cls: type, name: str, t: Any, keep: list) -> _TableSchema:
    if not isinstance(t, Table):
        _fail(cls, f"publishes[{name!r}] is a {type(t).__name__}, not a tracehound.Table")
    cols = (_ColumnSchema * max(len(t.columns), 1))()
    for i, c in enumerate(t.columns):
        if not isinstance(c, Column) or c.type not in _COLUMN_TYPES:
            _fail(cls, f"publishes[{name!r}] column {i} is not a Column of type i64, f64 or str")
        cols[i] = _ColumnSchema(_c(c.name), _COLUMN_TYPES[c.type], 0, _c(c.unit), _c(c.doc))
    keep.append(cols)
    return _TableSchema(C.sizeof(_TableSchema), len(t.columns), _c(name), _c(t.doc), cols,
                        _c(t.view))


def _text_attr(cls: type, attr: str) -> bytes:
    value = getattr(cls, attr, None)
    if not isinstance(value, str):
        _fail(cls, f"'{attr}' is a {type(value).__name__}, not a str")
    return _c(value)


class _Bound:
    """A loaded plugin: its instance, descriptor and everything the
    descriptor points to (kept alive while the host holds this object)."""

    def __init__(self, cls: type):
        if not (isinstance(cls, type) and issubclass(cls, Plugin)):
            raise PluginDeclarationError(f"{cls!r} is not a subclass of tracehound.Plugin")
        self.instance = cls()
        self.keep: list = []
        d = _Descriptor(struct_size=C.sizeof(_Descriptor), api_major=_API_MAJOR,
                        api_minor=_API_MINOR)
        if cls.kind not in ("analyzer", "detector"):
            _fail(cls, f"kind {cls.kind!r} is neither 'analyzer' nor 'detector'")
        d.kind = 0 if cls.kind == "analyzer" else 1
        d.id, d.version, d.summary = (_text_attr(cls, a) for a in ("id", "version", "summary"))
        reads = cls.reads
        if isinstance(reads, str) or not all(isinstance(r, str) for r in reads):
            _fail(cls, "'reads' is not a list of table names")
        d.reads = (_STR * max(len(reads), 1))(*[_c(r) for r in reads])
        d.read_count = len(reads)
        for attr in ("publishes", "options"):
            if not isinstance(getattr(cls, attr), Mapping):
                _fail(cls, f"'{attr}' is a {type(getattr(cls, attr)).__name__}, not a dict")
        schemas = [_table_schema(cls, n, t, self.keep) for n, t in cls.publishes.items()]
        d.publishes = (_TableSchema * max(len(schemas), 1))(*schemas)
        d.publish_count = len(schemas)
        options = [_option_decl(cls, n, o, self.keep) for n, o in cls.options.items()]
        d.options = (_OptionDecl * max(len(options), 1))(*options)
        d.option_count = len(options)
        self.run_fn = _RunFn(self._run)
        d.run = self.run_fn
        self.descriptor = d
        self.address = C.addressof(d)

    def _run(self, host, run_input, error, capacity) -> int:
        try:
            self.instance.run(Context(host.contents, run_input.contents, self.instance))
            return 0
        except BaseException:  # noqa: B902 - every failure is the plugin's, never the host's
            message = _traceback_tail().encode("utf-8", "replace")[:max(int(capacity) - 1, 0)]
            if error and capacity:
                C.memmove(error, message + b"\0", len(message) + 1)
            return 1


def _traceback_tail(lines: int = 4) -> str:
    """The current exception as its traceback's last ``lines`` lines, the
    frames of this module left out (the plugin's own line is what helps)."""
    kind, error, tb = sys.exc_info()
    frames = [f for f in traceback.extract_tb(tb) if f.filename != __file__]
    text = "".join(traceback.format_list(frames) +
                   traceback.format_exception_only(kind, error)).rstrip().splitlines()
    return "\n".join(text[-lines:])


def _class_of(spec: str, base_dir: str) -> type:
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise PluginDeclarationError(
            f"python plugin {spec!r} is neither 'module:Class' nor 'file.py:Class'")
    if where.endswith(".py") or os.sep in where:
        path = where if os.path.isabs(where) else os.path.join(base_dir, where)
        module_name = "_tracehound_plugin_" + os.path.splitext(os.path.basename(path))[0]
        file_spec = importlib.util.spec_from_file_location(module_name, path)
        if file_spec is None or not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such Python file")
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[module_name] = module
        file_spec.loader.exec_module(module)
    else:
        if base_dir and base_dir not in sys.path:
            sys.path.append(base_dir)
        module = importlib.import_module(where)
    cls = getattr(module, name, None)
    if cls is None:
        raise PluginDeclarationError(f"{where} has no class {name!r}")
    return cls


def _load(spec: str, base_dir: str) -> _Bound:
    """Called by the host: imports the plugin class named by ``spec``
    relative to ``base_dir`` and returns it bound to its descriptor
    (``.address``)."""
    return _Bound(_class_of(spec, base_dir))
