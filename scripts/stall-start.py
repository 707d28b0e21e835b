#!/usr/bin/env python3
"""Time for a healthy download to start while four stalled ones hold the four download slots
(issue 12b; target: under the stall window plus one second).

Usage: cargo build --release && scripts/stall-start.py [STALL_SECS[:TRICKLE_BYTES]] ...
  (default: 30 5, i.e. `[engine] stall_secs` 30 and 5 with the simulator's default trickle)
Env: NO_SERVICE=1 runs `reel --no-service submit` (the engine in that process).

Five tasks finish after one second; the simulator answers the first four file requests with
`--trickle-bytes` (1024 unless given) and then one byte every 20 s (`--hostile-trickle first:4
--trickle-every-secs 20`). The fifth task's wait is read from reel's own journal: from its
`completed` event to its `downloading` event.
"""

import json
import os
import sys

from benchlib import MODEL, Folder, Sim, machine


def run(stall, trickle_bytes):
    flags = ["--queue-secs", "0", "--render-min-secs", "1", "--render-max-secs", "1"]
    flags += ["--hostile-trickle", "first:4", "--trickle-every-secs", "20"]
    if trickle_bytes is not None:
        flags += ["--trickle-bytes", str(trickle_bytes)]
    sim = Sim(*flags)
    folder = Folder(sim, {"first_poll_secs": 1, "stall_secs": stall})
    try:
        extra = ["--no-service"] if os.environ.get("NO_SERVICE") else []
        out = folder.reel(*extra, "submit", "--model", MODEL, "--prompt", "a fox", "--count", "5", "--wait", "--json")
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        waits = []
        for task in json.loads(out.stdout):
            events = json.loads(folder.reel("show", str(task["id"]), "--json").stdout)["events"]
            at = {}
            for e in events:
                at.setdefault(e["state"], e["at"])
            waits.append((at["downloading"] - at["completed"]) / 1000)
        files = sim.seen("GET /files/")
        trickled = [t for t, l in files if "trickle" in l]
        healthy_at = next(t for t, l in files if "trickle" not in l)
        return sorted(waits), healthy_at - max(trickled)
    finally:
        folder.remove()
        sim.stop()


def main():
    specs = sys.argv[1:] or ["30", "5"]
    print(f"machine: {machine()}")
    mode = "--no-service" if os.environ.get("NO_SERVICE") else "engine process"
    print(f"reel: {os.environ.get('REEL_BIN', 'target/release/reel')} ({mode})")
    print(f"{'stall_secs':>10} {'trickle head':>12} {'5th waits':>10} {'sim: 5th file GET after 4th':>28}  all waits")
    for spec in specs:
        stall, _, head = spec.partition(":")
        waits, gap = run(float(stall), int(head) if head else None)
        print(
            f"{stall:>10} {(head or '1024') + ' B':>12} {waits[-1]:>9.2f}s {gap:>27.2f}s  "
            + " ".join(f"{w:.2f}" for w in waits),
            flush=True,
        )


if __name__ == "__main__":
    main()
