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

__all__ = ["load", "run", "diff", "TraceSet", "Trace", "Report", "Diff", "Plugin", "Column",
           "Table", "Option", "Number"]

# The extension module is loaded on first use of these names, so that
# tracehound.capture (pure Python, needs only torch) imports without it.
_LAZY = {"load": "._traces", "TraceSet": "._traces", "Trace": "._traces",
         "run": "._report", "diff": "._report", "Report": "._report", "Diff": "._report",
         # Python plugins (plugin.py): pure Python with numpy.
         "Plugin": ".plugin", "Column": ".plugin", "Table": ".plugin", "Option": ".plugin",
         "Number": ".plugin"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tracehound' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
