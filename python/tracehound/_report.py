"""run() and diff(): pipelines and comparisons over loaded traces."""
from __future__ import annotations

import functools
import json
import os
import tempfile
from typing import Dict, List, Optional, Sequence, Union

import pandas as pd

from . import _tracehound
from ._traces import TraceSet, load

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _plugin_paths(extra: Sequence[str]) -> List[str]:
    """``extra``, then the package's own plugins (an installed package ships
    them in tracehound/plugins), else those of the build tree it came from."""
    shipped = os.path.join(_PACKAGE_DIR, "plugins")
    default = shipped if os.path.isdir(shipped) else _tracehound.build_plugin_dir
    return [os.fspath(p) for p in extra] + [default]


def _config(name: str) -> Optional[str]:
    """A shipped pipeline (``default``, ``pytorch-training.yaml`` ...), or None."""
    if not name.endswith(".yaml"):
        name += ".yaml"
    for folder in (os.path.join(_PACKAGE_DIR, "configs"), _tracehound.source_config_dir):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def _scope_columns(rows: List[Dict[str, object]]) -> List[Dict[str, object]]:
    """Rows whose ``scope`` object is spread into scope_* columns."""
    out = []
    for row in rows:
        row = dict(row)
        for key, value in (row.pop("scope", None) or {}).items():
            row["scope_" + key] = value
        out.append(row)
    return out


_SCOPE = ["scope_rank", "scope_device", "scope_stream", "scope_step_first", "scope_step_last"]
# Columns of each report frame when it has no rows (docs/findings-schema.md).
_EMPTY = {
    "findings": ["id", "group", "plugin", "severity", "title", "what", "evidence", "suggestion",
                 "confidence"] + _SCOPE,
    "metrics": ["plugin", "name", "value", "unit", "kind"] + _SCOPE,
    "checks": ["plugin", "name", "passed", "detail"],
    "notes": ["plugin", "level", "text"],
    "plugins": ["id", "status", "error", "version", "seconds"],
    "trust": ["id", "what", "severity", "count"],
}


def _rows_frame(kind: str, rows: List[Dict[str, object]]) -> pd.DataFrame:
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=_EMPTY[kind])


class Report:
    """A pipeline's report: findings, metrics, checks, notes and derived
    tables as DataFrames, and the bytes the CLI writes (``to_json``,
    ``to_html``, ``to_markdown``).

    Frames are read from the JSON report itself, so they hold exactly what
    ``tracehound run`` writes; derived tables are numpy views of the
    plugins' columns (strings as object columns).
    """

    def __init__(self, core: "_tracehound._Report", traces: TraceSet):
        self._core = core
        self.traces = traces

    def __repr__(self) -> str:
        return (f"<tracehound.Report {self.verdict} {len(self.findings)} finding(s) "
                f"exit {self.exit_code}>")

    def to_json(self) -> bytes:
        """The JSON report (docs/findings-schema.md) as ``tracehound run``
        writes it for this pipeline's json output (its filter applied)."""
        return self._core.to_json()

    def to_html(self) -> bytes:
        """The self-contained HTML report, as the pipeline's html output."""
        return self._core.to_html()

    def to_markdown(self) -> bytes:
        """The Markdown report, as the pipeline's markdown output."""
        return self._core.to_markdown()

    def terminal(self) -> str:
        """The terminal summary."""
        return self._core.terminal()

    def write_outputs(self) -> str:
        """Writes the pipeline's outputs (files atomically) exactly as
        ``tracehound run`` would; returns the terminal summary."""
        return self._core.write_outputs()

    @property
    def exit_code(self) -> int:
        """What ``tracehound run`` would exit with: 0, 3 (a finding reached
        fail_on) or 4 (a plugin failed)."""
        return self._core.exit_code

    @functools.cached_property
    def json(self) -> Dict[str, object]:
        """The JSON report, parsed."""
        return json.loads(self.to_json())

    @property
    def verdict(self) -> str:
        return self.json["verdict"]

    @functools.cached_property
    def findings(self) -> pd.DataFrame:
        """One row per finding (id, group, plugin, severity, title, what,
        evidence, suggestion, confidence, scope_*)."""
        return _rows_frame("findings", _scope_columns(self.json["findings"]))

    @functools.cached_property
    def metrics(self) -> pd.DataFrame:
        """One row per metric, the plugin that reported it first."""
        rows = []
        for plugin, metrics in self.json["metrics"].items():
            for m in _scope_columns(metrics):
                rows.append({"plugin": plugin, **m})
        return _rows_frame("metrics", rows)

    @functools.cached_property
    def checks(self) -> pd.DataFrame:
        """Reconciliation checks (plugin, name, passed, detail)."""
        return _rows_frame("checks", self.json["checks"])

    @functools.cached_property
    def notes(self) -> pd.DataFrame:
        return _rows_frame("notes", self.json["notes"])

    @functools.cached_property
    def plugins(self) -> pd.DataFrame:
        """Per plugin: status (ok|failed), error, version, seconds."""
        return _rows_frame("plugins", [{"id": k, **v} for k, v in self.json["plugins"].items()])

    @functools.cached_property
    def trust(self) -> pd.DataFrame:
        return _rows_frame("trust", self.json["trust"])

    def table_names(self) -> List[str]:
        """The derived tables the plugins published."""
        return list(self._core.table_names())

    def table(self, name: str) -> pd.DataFrame:
        """Derived table ``name``; ``attrs['units']`` and ``attrs['plugin']``
        say what its columns hold and who published it."""
        got = self._core.table(name)
        if got is None:
            raise KeyError(f"no derived table {name!r} (tables: {', '.join(self.table_names())})")
        columns, units, plugin = got
        out = pd.DataFrame(columns, copy=False)
        out.attrs["units"] = {n: u for n, u in units if u}
        out.attrs["plugin"] = plugin
        return out

    @property
    def tables(self) -> Dict[str, pd.DataFrame]:
        """Every derived table by name."""
        return {name: self.table(name) for name in self.table_names()}


def run(pipeline: Union[str, "os.PathLike[str]"], traces: Union[TraceSet, str, Sequence[str]],
        *, set: Sequence[str] = (), plugin_paths: Sequence[str] = ()) -> Report:
    """Runs a pipeline over traces, as ``tracehound run PIPELINE`` does.

    ``pipeline``: a YAML file, a shipped config's name (``default``,
    ``pytorch-training``, ...) or the YAML text itself. ``traces``: a
    ``TraceSet`` from ``load()``, or inputs to load. ``set``: overrides
    (``plugins.kernel-stats.include_memory=false``), as ``--set``.
    Raises ValueError for a pipeline error (FILE:LINE:COLUMN: what).
    """
    if not isinstance(traces, TraceSet):
        traces = load(traces)
    text = os.fspath(pipeline)
    path = text if os.path.isfile(text) else _config(text) if "\n" not in text else None
    if path is not None:
        core = _tracehound.run(path, traces._owner, list(set), _plugin_paths(plugin_paths))
        return Report(core, traces)
    with tempfile.TemporaryDirectory(prefix="tracehound-") as folder:
        path = os.path.join(folder, "pipeline.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        core = _tracehound.run(path, traces._owner, list(set), _plugin_paths(plugin_paths))
    return Report(core, traces)


class Diff:
    """Two runs compared (docs/diff.md): ``to_json`` / ``to_markdown`` /
    ``to_html`` are the files ``tracehound diff -o`` writes; ``rows`` the
    aggregate rows as a DataFrame."""

    def __init__(self, core: "_tracehound._Diff"):
        self._core = core

    def to_json(self) -> bytes:
        return self._core.to_json()

    def to_markdown(self) -> bytes:
        return self._core.to_markdown()

    def to_html(self) -> bytes:
        return self._core.to_html()

    def terminal(self) -> str:
        return self._core.terminal()

    @functools.cached_property
    def json(self) -> Dict[str, object]:
        return json.loads(self.to_json())

    @functools.cached_property
    def rows(self) -> pd.DataFrame:
        """The aggregate rows (class, name, A and B time per step, Δ ...)."""
        return pd.DataFrame(self.json.get("aggregate", []))


def diff(a: Union[TraceSet, str, Sequence[str]], b: Union[TraceSet, str, Sequence[str]], *,
         threshold_ns: int = 1000, all_steps: bool = False, all_classes: bool = False,
         hta: bool = False, max_structural: int = 50, max_step_pairs: int = 8,
         plugin_paths: Sequence[str] = ()) -> Diff:
    """Compares run ``a`` (the baseline) with run ``b``, as ``tracehound diff
    A B`` does (same options)."""
    a = a if isinstance(a, TraceSet) else load(a)
    b = b if isinstance(b, TraceSet) else load(b)
    return Diff(_tracehound.diff(a._owner, b._owner, _plugin_paths(plugin_paths),
                                 threshold_ns=threshold_ns, all_steps=all_steps,
                                 all_classes=all_classes, hta=hta,
                                 max_structural=max_structural, max_step_pairs=max_step_pairs))
