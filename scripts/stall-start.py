#!/usr/bin/env python3
"""Time for a healthy download to start while four stalled ones hold the four download slots
(issue 12b; target: under the stall window plus one second).

Usage: cargo build --release && scripts/stall-start.py [STALL_SECS[:TRICKLE_BYTES]] ...
  (default: 30 5, i.e. `[engine] stall_secs` 30 and 5 with the simulator's default trickle;
  STALL_SECS "-" leaves the setting out)
Env: NO_SERVICE=1 runs `reel --no-service submit` (the engine in that process); LIMIT (300):
seconds after which the submit is killed and a download not started yet is reported as such
(for builds that never cut a stalled transfer, REEL_BIN=...).

Five tasks finish after one second; the simulator answers the first four file requests with
`--trickle-bytes` (1024 unless given) and then one byte every 20 s (`--hostile-trickle first:4
--trickle-every-secs 20`). The fifth task's wait is read from reel's own journal: from its
`completed` event to its `downloading` event.
"""

import json
import os
import subprocess
import sys

from benchlib import MODEL, Folder, Sim, machine


def run(stall, trickle_bytes):
    flags = ["--queue-secs", "0", "--render-min-secs", "1", "--render-max-secs", "1"]
    flags += ["--hostile-trickle", "first:4", "--trickle-every-secs", "20"]
    if trickle_bytes is not None:
        flags += ["--trickle-bytes", str(trickle_bytes)]
    sim = Sim(*flags)
    engine = {"first_poll_secs": 1}
    if stall is not None:
        engine["stall_secs"] = stall
    folder = Folder(sim, engine)
    try:
        extra = ["--no-service"] if os.environ.get("NO_SERVICE") else []
        submit = folder.spawn(*extra, "submit", "--model", MODEL, "--prompt", "a fox", "--count", "5", "--wait")
        limit = float(os.environ.get("LIMIT", "300"))
        try:
            submit.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            submit.kill()
            submit.wait()
        waits = []
        for task in folder.tasks():
            events = json.loads(folder.reel("show", str(task["id"]), "--json").stdout)["events"]
            at = {}
            for e in events:
                at.setdefault(e["state"], e["at"])
            if "downloading" in at:
                waits.append((at["downloading"] - at["completed"]) / 1000)
            else:
                waits.append(float("inf"))
        files = sim.seen("GET /files/")
        trickled = [t for t, l in files if "trickle" in l]
        healthy = [t for t, l in files if "trickle" not in l]
        gap = healthy[0] - max(trickled) if healthy and trickled else float("inf")
        return sorted(waits), gap
    finally:
        folder.remove()
        sim.stop()


def main():
    specs = sys.argv[1:] or ["30", "5"]
    print(f"machine: {machine()}")
    mode = "--no-service" if os.environ.get("NO_SERVICE") else "as `reel submit` runs it"
    print(f"reel: {os.environ.get('REEL_BIN', 'target/release/reel')} ({mode})")
    print(f"{'stall_secs':>10} {'trickle head':>12} {'5th waits':>10} {'sim: 5th file GET after 4th':>28}  all waits")
    for spec in specs:
        stall, _, head = spec.partition(":")
        # "-": no stall_secs in the config (a build that does not know the setting)
        waits, gap = run(None if stall == "-" else float(stall), int(head) if head else None)
        if waits[-1] == float("inf"):
            print(f"{stall:>10} {(head or '1024') + ' B':>12}  not started within LIMIT", flush=True)
            continue
        print(
            f"{stall:>10} {(head or '1024') + ' B':>12} {waits[-1]:>9.2f}s {gap:>27.2f}s  "
            + " ".join(f"{w:.2f}" for w in waits),
            flush=True,
        )


if __name__ == "__main__":
    main()
