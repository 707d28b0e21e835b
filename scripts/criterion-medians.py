#!/usr/bin/env python3
"""Medians of the last criterion run of each benchmark, from a target folder's criterion/
results (criterion prints means; BENCHMARKS.md gives medians).

Usage: scripts/criterion-medians.py [TARGET_DIR] [NAME_FILTER] [SINCE]   (default: ./target)
Prints: benchmark name, median, and the median's 95% confidence interval; with SINCE (Unix
seconds), only the benchmarks measured since then. RAW=1 prints name<TAB>median in ns.
"""

import json
import os
import sys


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "target"
    wanted = sys.argv[2] if len(sys.argv) > 2 else ""
    since = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    root = os.path.join(target, "criterion")
    for dirpath, _, files in sorted(os.walk(root)):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            name = json.load(f)["full_id"]
        if wanted not in name or os.path.getmtime(os.path.join(dirpath, "estimates.json")) < since:
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            median = json.load(f)["median"]
        ci = median["confidence_interval"]
        if os.environ.get("RAW"):
            print(f"{name}\t{median['point_estimate']}")
            continue
        line = f"{name:<64} {fmt(median['point_estimate']):>10}  [{fmt(ci['lower_bound'])} .. {fmt(ci['upper_bound'])}]"
        if os.environ.get("P95"):
            with open(os.path.join(dirpath, "sample.json")) as f:
                sample = json.load(f)
            means = sorted(t / i for t, i in zip(sample["times"], sample["iters"]))
            p95 = means[max(0, -(-95 * len(means) // 100) - 1)]
            line += f"  samples: median {fmt(means[len(means) // 2])}, p95 {fmt(p95)}"
        print(line)


if __name__ == "__main__":
    main()
