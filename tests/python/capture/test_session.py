"""In-process sessions: the ring buffer's byte bound and the automatic
triggers (a planted slow step fires, a steady job does not)."""

import os
import time

import torch

import tracehound.capture as thc
from capture_support import read_json, step_numbers


def tiny_step():
    a = torch.randn(16, 16)
    (a @ a).sum()


def test_ring_is_bounded_in_bytes():
    cap = thc.Session(ring_steps=50, ring_bytes=1)  # one step always stays
    cap.start()
    for _ in range(6):
        tiny_step()
        cap.step()
    info = cap.info()
    assert info["ring_steps"] == 1 and info["step"] == 6
    m = cap.snapshot()
    assert (m["steps"], m["first_step"]) == (1, 5)
    cap.close()


def run_job(out, slow_at=(), steps=24):
    cap = thc.watch([thc.SlowSteps(k=4, m=2, min_history=8)], out=out, steps=2)
    for i in range(steps):
        tiny_step()
        time.sleep(0.25 if i in slow_at else 0.02)
        cap.step()
    cap.close()
    return cap


def test_slow_steps_fire_and_capture_the_next_steps(tmp_path):
    out = str(tmp_path / "auto")
    cap = run_job(out, slow_at=(12, 13))
    assert [f["at_step"] for f in cap.fired] == [13]
    fired = cap.fired[0]
    assert fired["rule"] == "slow_steps" and len(fired["step_ns"]) == 2
    assert min(fired["step_ns"]) > 4 * fired["p50_ns"]
    m = read_json(os.path.join(out, "auto-1", "rank0.tracehound-manifest.json"))
    assert (m["mode"], m["steps"], m["first_step"]) == ("automatic", 2, 14)
    assert m["trigger"]["at_step"] == 13
    assert step_numbers(os.path.join(out, "auto-1", "rank0.trace.json")) == [14, 15]


def test_steady_job_does_not_fire(tmp_path):
    out = str(tmp_path / "auto")
    cap = run_job(out)
    assert cap.fired == []
    assert not os.path.exists(out)


def test_memory_threshold_fires(tmp_path):
    out = str(tmp_path / "mem")
    rss = thc._triggers.rss_bytes()
    cap = thc.watch([thc.MemoryAbove(bytes=rss + (64 << 20))], out=out, steps=1)
    keep = []
    for i in range(4):
        if i == 1:
            keep.append(torch.ones(32 << 20))  # 128 MiB, touched
        tiny_step()
        cap.step()
    cap.close()
    assert [f["rule"] for f in cap.fired] == ["memory_above"]
    assert cap.fired[0]["at_step"] == 1
    assert os.path.exists(os.path.join(out, "auto-1", "rank0.trace.json"))
