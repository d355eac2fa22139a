"""Session: what a training loop calls once per step (``step()``), and the
captures it serves: a window of the next N steps (programmatic, on demand,
automatic) and a ring buffer of the last N steps (continuous).

Profiling runs in the training thread only; another thread (the HTTP server)
asks for a window and waits for it.
"""

import collections
import itertools
import os
import threading
import time

from . import _manifest
from ._recorder import StepRecorder, framework_facts, merge
from ._triggers import rss_bytes


class CaptureBusy(RuntimeError):
    """A window is already being captured."""


class CaptureTimeout(RuntimeError):
    """The job did not run the requested steps in time."""


def distributed_facts():
    """(rank, world size): torch.distributed's when initialised, else the
    RANK / WORLD_SIZE environment variables, else (0, 1)."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:
        pass
    return int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))


class _Window:
    def __init__(self, steps, mode, warmup=0, trigger=None, on_done=None):
        if steps < 1:
            raise ValueError("a capture needs steps >= 1")
        self.steps, self.mode, self.skip, self.warmup = steps, mode, warmup, warmup
        self.trigger, self.on_done = trigger, on_done
        self.collected = []
        self.result = None
        self.done = threading.Event()
        self.cancelled = False


class Session:
    """Per-step capture state of one rank. See tracehound.capture.run/serve."""

    _KEEP_RESULTS = 4

    def __init__(self, *, tags=None, ring_steps=0, ring_bytes=64 << 20, triggers=(),
                 trigger_steps=5, trigger_out=None):
        self.rank, self.world_size = distributed_facts()
        self.framework, self.framework_version, self.profiler = framework_facts()
        self.tags = dict(tags or {})
        self.ring_steps, self.ring_bytes = int(ring_steps), int(ring_bytes)
        self.triggers = list(triggers)
        if self.triggers and not trigger_out:
            raise ValueError("automatic triggers need trigger_out (the folder their runs go to)")
        self.trigger_steps, self.trigger_out = int(trigger_steps), trigger_out
        self.fired = []  # the trigger facts of each automatic capture started
        self._recorder = StepRecorder()
        self._lock = threading.Lock()
        self._step = 0
        self._last_ns = None
        self._ring = collections.deque()
        self._ring_held = 0
        self._window = None
        self._pending = None
        self._results = collections.OrderedDict()
        self._ids = itertools.count(1)
        self._closed = False

    # --- the training thread -------------------------------------------------

    def start(self):
        """Marks the start of the first step (run() and serve() call it)."""
        self._last_ns = time.perf_counter_ns()
        self._begin_step()

    def step(self):
        """Call once at the end of every training step."""
        if self._closed:
            return
        now = time.perf_counter_ns()
        step_ns = now - self._last_ns if self._last_ns is not None else 0
        self._last_ns = now
        trace = self._recorder.end() if self._recorder.active else None
        with self._lock:
            self._keep(trace)
            self._step += 1
        if step_ns:
            self._observe(self._step - 1, step_ns)
        self._begin_step()
        # Profiler start-up is no part of the next step's time.
        self._last_ns = time.perf_counter_ns() if self._recorder.active else now

    def close(self):
        """Ends profiling; a window left short is finished with the steps it has."""
        if self._closed:
            return
        self._closed = True
        if self._recorder.active:
            self._recorder.end()  # a step begun but never ended: not kept
        with self._lock:
            w, self._window = self._window, None
            if w is not None and w.collected:
                self._finish(w)
            elif w is not None:
                w.done.set()
            if self._pending is not None:  # asked for, never begun
                self._pending.done.set()
                self._pending = None
        self._recorder.close()

    def _begin_step(self):
        with self._lock:
            if self._window is None and self._pending is not None:
                self._window, self._pending = self._pending, None
            need = self.ring_steps > 0 or (self._window is not None and
                                           (self._window.skip == 0 or self.ring_steps > 0))
            step = self._step
        if need and not self._closed:
            self._recorder.begin(step)

    def _keep(self, trace):  # under the lock; trace is None for a step not profiled
        if trace is not None and self.ring_steps > 0:
            self._ring.append(trace)
            self._ring_held += trace.nbytes
            while self._ring and (len(self._ring) > self.ring_steps or
                                  (self._ring_held > self.ring_bytes and len(self._ring) > 1)):
                self._ring_held -= self._ring.popleft().nbytes
        w = self._window
        if w is None:
            return
        if w.skip > 0:
            w.skip -= 1
            return
        if trace is None:  # the window began after this step did
            return
        w.collected.append(trace)
        if len(w.collected) == w.steps:
            self._window = None
            self._finish(w)

    def _observe(self, step, step_ns):
        if not self.triggers:
            return
        rss = rss_bytes()
        for rule in self.triggers:
            fired = rule.observe(step, step_ns, rss)
            if fired is None:
                continue
            with self._lock:
                if self._window is not None or self._pending is not None:
                    return  # a capture is under way already
                out = os.path.join(self.trigger_out, "auto-%d" % (len(self.fired) + 1))
                self.fired.append(fired)
                self._pending = _Window(self.trigger_steps, "automatic", trigger=fired,
                                        on_done=lambda m, t, out=out: _manifest.write_rank(out, m, t))
            return

    def _finish(self, w):  # under the lock
        trace_bytes, start_ns = merge(w.collected)
        m = _manifest.make(rank=self.rank, world_size=self.world_size, start_time_ns=start_ns,
                           framework=self.framework, framework_version=self.framework_version,
                           profiler=self.profiler, mode=w.mode, steps=len(w.collected),
                           first_step=w.collected[0].step, tags=self.tags,
                           warmup=w.warmup if w.mode == "programmatic" else None,
                           trigger=w.trigger)
        if w.on_done is not None:
            w.on_done(m, trace_bytes)
        w.result = self._store(m, trace_bytes)
        w.done.set()

    def _store(self, m, trace_bytes):  # under the lock
        cid = "%d" % next(self._ids)
        m = dict(m, id=cid)
        self._results[cid] = (m, trace_bytes)
        while len(self._results) > self._KEEP_RESULTS:
            self._results.popitem(last=False)
        return m

    # --- other threads --------------------------------------------------------

    def schedule(self, steps, mode, warmup=0, on_done=None):
        """Captures `steps` steps after `warmup` more, without waiting;
        on_done(manifest, trace_bytes) runs in the training thread."""
        w = _Window(int(steps), mode, warmup=int(warmup), on_done=on_done)
        with self._lock:
            if self._window is not None or self._pending is not None:
                raise CaptureBusy("a capture is already under way")
            self._pending = w

    def request_window(self, steps, timeout_s, mode="on_demand"):
        """Captures the next `steps` steps; returns their manifest (with `id`)
        once the training loop has run them."""
        w = _Window(int(steps), mode)
        with self._lock:
            if self._closed:
                raise CaptureBusy("the capture session is closed")
            if self._window is not None or self._pending is not None:
                raise CaptureBusy("a capture is already under way")
            self._pending = w
        if not w.done.wait(timeout_s):
            with self._lock:
                if self._pending is w:
                    self._pending = None
                elif self._window is w:
                    self._window = None
            raise CaptureTimeout("the job ran %d of %d steps in %g s" %
                                 (len(w.collected), w.steps, timeout_s))
        if w.result is None:
            raise CaptureTimeout("the job ended before the capture had a step")
        return w.result

    def snapshot(self):
        """The ring buffer's steps as one capture; its manifest (with `id`)."""
        with self._lock:
            steps = list(self._ring)
        if not steps:
            raise CaptureBusy("the ring buffer holds no step yet" if self.ring_steps
                              else "no ring buffer (serve(ring_steps=N) keeps one)")
        trace_bytes, start_ns = merge(steps)
        m = _manifest.make(rank=self.rank, world_size=self.world_size, start_time_ns=start_ns,
                           framework=self.framework, framework_version=self.framework_version,
                           profiler=self.profiler, mode="snapshot", steps=len(steps),
                           first_step=steps[0].step, tags=self.tags)
        with self._lock:
            return self._store(m, trace_bytes)

    def result(self, cid):
        """(manifest, trace bytes) of a finished capture, or None."""
        with self._lock:
            return self._results.get(cid)

    def info(self):
        with self._lock:
            return {"tracehound_capture": 1, "rank": self.rank, "world_size": self.world_size,
                    "framework": self.framework, "framework_version": self.framework_version,
                    "profiler": self.profiler, "step": self._step,
                    "ring_steps": len(self._ring), "ring_bytes": self._ring_held}
