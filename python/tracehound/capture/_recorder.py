"""One profiler session per training step, and the merge of consecutive
steps into one trace.

PyTorch built without Kineto (Debian's 1.13) writes the autograd profiler's
Chrome trace: a bare JSON array whose ``ts`` are microseconds from the start of
that session. Each step's session starts at a wall-clock time taken just
before it; a merged trace shifts each step's events by that time's distance to
the first step's, so ``ts`` count from the manifest's ``start_time_ns`` (to a
few microseconds: the gap between the clock read and the session's start).
Kineto builds write a ``traceEvents`` object on one clock; those events are
kept as written.
"""

import json
import os
import tempfile
import time


def framework_facts():
    import torch
    kineto = bool(getattr(torch.autograd, "kineto_available", lambda: False)())
    return "torch", torch.__version__, "kineto" if kineto else "autograd"


class StepTrace:
    """The events of one profiled step."""

    __slots__ = ("step", "start_time_ns", "events", "top_level", "nbytes")

    def __init__(self, step, start_time_ns, events, top_level):
        self.step = step
        self.start_time_ns = start_time_ns
        self.events = events          # list of event dicts
        self.top_level = top_level    # other top-level keys (Kineto), or None
        self.nbytes = sum(len(json.dumps(e)) + 2 for e in events)


class StepRecorder:
    """Profiles one step at a time in the training thread: Begin(step) at a
    step's start, End() at its end returns its StepTrace."""

    def __init__(self):
        import torch  # noqa: F401  (the only framework this recorder wraps)
        self._prof = None
        self._rf = None
        self._step = None
        self._start_ns = None
        self._dir = tempfile.mkdtemp(prefix="tracehound-capture-")

    def begin(self, step):
        import torch
        from torch.autograd import profiler as autograd_profiler
        self._step = step
        self._start_ns = time.time_ns()
        self._prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
        self._prof.__enter__()
        self._rf = autograd_profiler.record_function("ProfilerStep#%d" % step)
        self._rf.__enter__()

    @property
    def active(self):
        return self._prof is not None

    def end(self):
        self._rf.__exit__(None, None, None)
        self._prof.__exit__(None, None, None)
        path = os.path.join(self._dir, "step.json")
        self._prof.export_chrome_trace(path)
        self._prof = self._rf = None
        with open(path, "rb") as f:
            doc = json.load(f)
        os.unlink(path)
        if isinstance(doc, dict):
            events = doc.pop("traceEvents", [])
            return StepTrace(self._step, self._start_ns, events, doc)
        return StepTrace(self._step, self._start_ns, doc, None)

    def close(self):
        if self._prof is not None:
            self.end()
        try:
            os.rmdir(self._dir)
        except OSError:
            pass


def merge(steps):
    """One trace (bytes) of consecutive StepTraces, and its start time (ns)."""
    first = steps[0]
    if first.top_level is not None:  # Kineto: one clock already
        doc = dict(first.top_level)
        doc["traceEvents"] = [e for s in steps for e in s.events]
        return json.dumps(doc).encode(), first.start_time_ns
    out = []
    for s in steps:
        shift_us = (s.start_time_ns - first.start_time_ns) // 1000
        for e in s.events:
            if shift_us and isinstance(e.get("ts"), (int, float)):
                e = dict(e)
                e["ts"] += shift_us
            out.append(e)
    return json.dumps(out).encode(), first.start_time_ns
