#!/usr/bin/env python3
"""The engine process seen from its clients (issue 14): `reel engine status` end to end (a new
reel process, attach, one Status request, detach, exit) with the engine idle and with 2,000
tasks in flight; and the time of each of 20 `reel submit --count 100` in a row, so that the
20th starts with 1,900 tasks in flight.

Usage: cargo build --release && scripts/service-load.py [service|no-service|legacy] ...
  service     the data folder's engine process (default): status round trips and submits
  no-service  the 20 submits with `--no-service` (each starts an engine in its own process)
  legacy      the 20 submits with a build without engine processes (LEGACY_BIN=path)
Env: STATUS_RUNS (200); RPS (200): `[engine] requests_per_second`.

The simulator renders for ten hours, so every task stays in flight. The request budget is
raised from 10/s to RPS (200 by default: the budget with which an engine in the command's own
process gives the issue's figures, a first submit of 0.3 s and a 20th of about 10 s); every
other setting is the default. Each mode has its own simulator and data folder.
"""

import os
import subprocess
import sys
import time

from benchlib import MODEL, Folder, Sim, machine, median_p95, mib, reel_bin, status_kib

STATUS_RUNS = int(os.environ.get("STATUS_RUNS", "200"))
ENGINE = {"requests_per_second": int(os.environ.get("RPS", "200"))}
SUBMIT = ["submit", "--model", MODEL, "--prompt", "a red fox in snow", "--resolution", "480P", "--count", "100"]


def status_round_trips(folder, label):
    times = []
    for _ in range(STATUS_RUNS):
        t = time.perf_counter()
        out = folder.reel("engine", "status", "--json")
        times.append((time.perf_counter() - t) * 1000)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
    med, p95, mx = median_p95(times)
    print(f"`reel engine status`, {label}: median {med:.1f} ms, p95 {p95:.1f} ms, max {mx:.1f} ms ({STATUS_RUNS} runs)")


def submits(folder, argv):
    times = []
    for _ in range(20):
        t = time.perf_counter()
        out = subprocess.run(argv, env=folder.env, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
    return times


def main():
    modes = sys.argv[1:] or ["service"]
    print(f"machine: {machine()}")
    print(f"request budget: {ENGINE['requests_per_second']}/s")
    for mode in modes:
        sim = Sim("--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000")
        folder = Folder(sim, ENGINE)
        try:
            if mode == "service":
                engine = folder.spawn("engine", "run", "--stay")
                folder.engine_pid()
                status_round_trips(folder, "idle engine")
                times = submits(folder, [reel_bin(), *SUBMIT])
                in_flight = sum(1 for t in folder.tasks() if t["state"] in ("queued", "in_progress"))
                status_round_trips(folder, f"{in_flight} tasks in flight")
                print(f"engine process: VmRSS {mib(status_kib(engine.pid, 'VmRSS'))}, VmHWM {mib(status_kib(engine.pid, 'VmHWM'))}")
                folder.stop_engine()
                engine.wait()
            elif mode == "no-service":
                times = submits(folder, [reel_bin(), "--no-service", *SUBMIT])
            else:
                times = submits(folder, [os.path.abspath(os.environ["LEGACY_BIN"]), *SUBMIT])
            print(f"{mode}: 20 x `reel submit --count 100`, seconds each: " + " ".join(f"{t:.2f}" for t in times))
            print(f"{mode}: 1st {times[0]:.2f} s, 20th {times[-1]:.2f} s", flush=True)
        finally:
            folder.remove()
            sim.stop()


if __name__ == "__main__":
    main()
