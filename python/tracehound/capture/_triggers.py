"""Automatic triggers: rules that start a capture by themselves.

A rule sees every step's wall time (ns) and answers, after each step, whether
to fire and why (a dict recorded in the capture's manifest).
"""

import os


def _median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) // 2


class SlowSteps:
    """Fires when each of the last `m` steps took more than `k` times the
    median (p50) of the steps before them. The median is over at most
    `history` earlier steps and needs at least `min_history` of them."""

    def __init__(self, k=2.0, m=1, min_history=10, history=200):
        if k <= 1 or m < 1 or min_history < 1:
            raise ValueError("SlowSteps needs k > 1, m >= 1, min_history >= 1")
        self.k, self.m, self.min_history, self.history = float(k), int(m), int(min_history), int(history)
        self._times = []

    def observe(self, step, step_ns, rss_bytes):
        self._times.append(int(step_ns))
        if len(self._times) > self.history + self.m:
            del self._times[0]
        before, recent = self._times[:-self.m], self._times[-self.m:]
        if len(before) < self.min_history:
            return None
        p50 = _median(before)
        if all(t > p50 * self.k for t in recent):
            return {"rule": "slow_steps", "k": self.k, "m": self.m, "p50_ns": p50,
                    "step_ns": list(recent), "at_step": step}
        return None


def rss_bytes():
    """This process's resident memory (Linux /proc), or None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class MemoryAbove:
    """Fires when the process's resident memory rises above `bytes` (or, with
    cuda=True, torch.cuda.memory_allocated() does): once per crossing, again
    only after it has been back below."""

    def __init__(self, bytes, cuda=False):  # noqa: A002 (the rule's unit)
        self.limit = int(bytes)
        self.cuda = bool(cuda)
        self._above = False

    def observe(self, step, step_ns, rss):
        if self.cuda:
            import torch
            used, what = torch.cuda.memory_allocated(), "cuda_allocated_bytes"
        else:
            used, what = rss, "rss_bytes"
        crossed = used is not None and used > self.limit and not self._above
        self._above = used is not None and used > self.limit
        if crossed:
            return {"rule": "memory_above", "limit_bytes": self.limit, what: int(used),
                    "at_step": step}
        return None
