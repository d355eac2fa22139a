"""kernel-totals: a Python plugin (docs/python.md, "Python plugins").

Counts each rank's GPU kernels and their time from the events table's numpy
columns, publishes both as metrics and as the table `kernel_totals`, and
flags a rank whose longest kernel lasts `min_longest_ns` or more.

    plugins:
      kernel-totals: {python: "kernel_totals.py:KernelTotals", min_longest_ns: 500000}
"""
import numpy as np

import tracehound

EVENT_KERNEL = 7  # TH_EVENT_KERNEL, the events table's `kind`


class KernelTotals(tracehound.Plugin):
    id = "kernel-totals"
    version = "1.0.0"
    summary = "GPU kernel count and time per rank; flags a rank's longest kernel"
    kind = "detector"
    reads = ["events"]
    publishes = {
        "kernel_totals": tracehound.Table(
            [tracehound.Column("rank", "i64", "", "rank of the trace"),
             tracehound.Column("kernels", "i64", "", "GPU kernels"),
             tracehound.Column("kernel_ns", "i64", "ns", "summed kernel durations"),
             tracehound.Column("longest", "str", "", "name of the longest kernel")],
            doc="GPU kernels per rank"),
    }
    options = {
        "min_longest_ns": tracehound.Option(
            "int", 1_000_000, "flag a rank whose longest kernel lasts this long (ns)", min=0),
    }

    def run(self, ctx):
        table = {"rank": [], "kernels": [], "kernel_ns": [], "longest": []}
        for trace in ctx.traces:
            events = trace["events"]
            kernels = events["kind"] == EVENT_KERNEL
            durations = events["dur"][kernels]
            count, total = int(kernels.sum()), int(durations.sum())
            ctx.publish_metric("kernel_count", count, "", "measured", rank=trace.rank)
            ctx.publish_metric("kernel_time", total, "ns", "measured", rank=trace.rank)
            longest = ""
            if count:
                i = int(np.argmax(durations))
                longest = ctx.string(trace, int(events["name"][kernels][i]))
                if durations[i] >= ctx.options["min_longest_ns"]:
                    ctx.add_finding(
                        f"Rank {trace.rank}'s longest kernel runs {int(durations[i])} ns",
                        f"{longest} lasts {int(durations[i])} ns, "
                        f"{100 * int(durations[i]) // max(total, 1)} % of the rank's kernel time.",
                        "P2", rank=trace.rank,
                        evidence=[tracehound.Number("longest_kernel", int(durations[i]), "ns"),
                                  tracehound.Number("kernel_time", total, "ns")])
            for key, value in (("rank", trace.rank), ("kernels", count), ("kernel_ns", total),
                               ("longest", longest)):
                table[key].append(value)
        ctx.publish_table("kernel_totals", table)
