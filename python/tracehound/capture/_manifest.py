"""The run manifest: the facts of one rank's capture that the trace lacks.

Written beside the trace as ``rank<R>.tracehound-manifest.json``; tracehound's
loader, ``scan`` and ``serve`` read it (rank, host, start time, tags).
"""

import json
import os
import socket

MANIFEST_SUFFIX = ".tracehound-manifest.json"
TRACE_SUFFIX = ".trace.json"
MANIFEST_VERSION = 1


def trace_name(rank):
    return "rank%d%s" % (rank, TRACE_SUFFIX)


def manifest_name(rank):
    return "rank%d%s" % (rank, MANIFEST_SUFFIX)


def make(*, rank, world_size, start_time_ns, framework, framework_version, profiler,
         mode, steps, first_step, tags=None, warmup=None, trigger=None):
    """The manifest of one rank's capture, as a dict (JSON-ready)."""
    m = {
        "tracehound_manifest": MANIFEST_VERSION,
        "trace": trace_name(rank),
        "rank": int(rank),
        "world_size": int(world_size),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "start_time_ns": int(start_time_ns),
        "framework": framework,
        "framework_version": framework_version,
        "profiler": profiler,
        "mode": mode,
        "steps": int(steps),
        "first_step": int(first_step),
        "tags": {str(k): str(v) for k, v in (tags or {}).items()},
    }
    if warmup is not None:
        m["warmup"] = int(warmup)
    if trigger is not None:
        m["trigger"] = trigger
    return m


def _write_atomic(path, data):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_rank(directory, manifest, trace_bytes):
    """Writes the rank's trace, then its manifest (each via a temp file and a
    rename), into `directory`. Returns the trace's path."""
    os.makedirs(directory, exist_ok=True)
    trace_path = os.path.join(directory, manifest["trace"])
    _write_atomic(trace_path, trace_bytes)
    _write_atomic(os.path.join(directory, manifest_name(manifest["rank"])),
                  json.dumps(manifest, indent=1, sort_keys=True).encode() + b"\n")
    return trace_path
