"""tracehound in Python: traces as pandas DataFrames, pipelines and diffs.

>>> import tracehound
>>> traces = tracehound.load("runs/job42/")          # a TraceSet, one Trace per rank
>>> traces[0].kernels.groupby("name").dur.sum()       # ns, int64
>>> report = tracehound.run("default", traces)       # a Report
>>> report.findings; report.to_json()                # the bytes `tracehound run` writes

Frames view the C++ event graph without copying: numeric columns are
read-only numpy views, names are Categoricals over the trace's string pool.
"""
import os as _os

# An installed package carries the on-demand modules (archive reading, ...)
# in tracehound/modules; the build tree's are found without this.
_modules = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "modules")
if _os.path.isdir(_modules):
    _os.environ["TRACEHOUND_MODULE_PATH"] = _os.pathsep.join(
        p for p in (_modules, _os.environ.get("TRACEHOUND_MODULE_PATH", "")) if p)

from ._report import Diff, Report, diff, run  # noqa: E402
from ._traces import Trace, TraceSet, load  # noqa: E402

__all__ = ["load", "run", "diff", "TraceSet", "Trace", "Report", "Diff"]
