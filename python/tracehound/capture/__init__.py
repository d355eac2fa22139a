"""tracehound.capture: record a PyTorch job's trace into a run tracehound reads.

Needs only torch (the standard library does the rest). Four ways to capture,
all driven by one call at the end of each training step, ``session.step()``:

* programmatic::

      with tracehound.capture.run("runs/r1", steps=5, warmup=2, tags={"model": "mlp"}) as cap:
          for batch in data:
              train_step(batch)
              cap.step()

  skips ``warmup`` steps, records the next ``steps`` and writes
  ``rank<R>.trace.json`` and ``rank<R>.tracehound-manifest.json`` (host, rank,
  world size, start time, framework version, tags) into the folder;
* on demand: ``cap = tracehound.capture.serve(port=9999)`` and
  ``tracehound capture HOST:PORT... --steps N --out DIR`` from anywhere;
* continuous: ``serve(ring_steps=N, ring_bytes=B)`` keeps the last N steps
  (at most B bytes of events); ``tracehound capture HOST:PORT... --snapshot``;
* automatic: ``serve(triggers=[SlowSteps(k=2, m=3)], trigger_out=DIR)``
  captures ``trigger_steps`` steps into ``DIR/auto-<n>`` when a rule fires.

Rank and world size come from torch.distributed once it is initialised (else
RANK / WORLD_SIZE, else 0 and 1): create the session after
init_process_group.
"""

import contextlib

from . import _manifest
from ._manifest import MANIFEST_SUFFIX, TRACE_SUFFIX
from ._server import CaptureServer
from ._session import CaptureBusy, CaptureTimeout, Session
from ._triggers import MemoryAbove, SlowSteps

__all__ = ["run", "serve", "watch", "Session", "ServedSession", "SlowSteps", "MemoryAbove",
           "CaptureBusy", "CaptureTimeout", "MANIFEST_SUFFIX", "TRACE_SUFFIX", "jax_available"]


@contextlib.contextmanager
def run(directory, steps, warmup=0, tags=None):
    """Programmatic capture: the `steps` steps after `warmup` into `directory`.

    A loop that ends early leaves the steps it ran (the manifest's ``steps``
    says how many); none at all writes nothing."""
    session = Session(tags=tags)
    session.schedule(steps, "programmatic", warmup=warmup,
                     on_done=lambda m, t: _manifest.write_rank(directory, m, t))
    session.start()
    try:
        yield session
    finally:
        session.close()


class ServedSession(Session):
    """A Session with its capture server (``server.port``); close() stops both."""

    def __init__(self, host, port, **options):
        super().__init__(**options)
        self.server = CaptureServer(self, host, port)
        self.start()

    def close(self):
        self.server.close()
        super().close()


def serve(port=9999, host="127.0.0.1", *, tags=None, ring_steps=0, ring_bytes=64 << 20,
          triggers=(), trigger_steps=5, trigger_out=None):
    """Starts the capture server on (host, port) and returns the session whose
    step() the loop calls. host="0.0.0.0" accepts other machines (no
    authentication: expose it on a trusted network only)."""
    return ServedSession(host, port, tags=tags, ring_steps=ring_steps, ring_bytes=ring_bytes,
                         triggers=triggers, trigger_steps=trigger_steps, trigger_out=trigger_out)


def watch(triggers, out, steps=5, tags=None):
    """Automatic capture without a server: when a rule fires, the next
    `steps` steps go to ``out/auto-<n>``. Returns the session (call step()
    each step, close() at the end)."""
    session = Session(tags=tags, triggers=triggers, trigger_steps=steps, trigger_out=out)
    session.start()
    return session


def jax_available():
    """True when JAX can be imported (its jobs use JAX's own profiler server)."""
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True
