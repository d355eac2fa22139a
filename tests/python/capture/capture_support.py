"""Helpers of the capture tests: the tracehound command, free ports,
worker processes (worker.py) and the traces' step events."""

import json
import os
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "worker.py")


def tracehound_binary():
    path = os.environ.get("TRACEHOUND")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("TRACEHOUND (the built command) is not set: run these tests from ctest")
    return path


def tracehound(*args, check=True, cwd=None):
    r = subprocess.run([tracehound_binary(), *args], capture_output=True, text=True, timeout=120,
                       cwd=cwd)
    if check and r.returncode != 0:
        raise AssertionError("tracehound %s: exit %d\n%s\n%s" % (" ".join(args), r.returncode,
                                                                r.stdout, r.stderr))
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_worker(*args):
    env = dict(os.environ)
    return subprocess.Popen([sys.executable, WORKER, *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for(path, procs, timeout_s=90):
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path):
        for p in procs:
            if p.poll() is not None:
                raise AssertionError("worker exited %d before %s:\n%s" %
                                     (p.returncode, path, p.stdout.read()))
        if time.monotonic() > deadline:
            raise AssertionError("no %s after %d s" % (path, timeout_s))
        time.sleep(0.05)


def finish(procs, timeout_s=60):
    for p in procs:
        out, _ = p.communicate(timeout=timeout_s)
        assert p.returncode == 0, out


def step_numbers(trace_path):
    """The N of each ProfilerStep#N event in a trace, in time order."""
    with open(trace_path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = sorted((e["ts"], int(e["name"][len("ProfilerStep#"):])) for e in events
                   if e.get("name", "").startswith("ProfilerStep#"))
    return [n for _, n in steps]


def read_json(path):
    with open(path) as f:
        return json.load(f)
