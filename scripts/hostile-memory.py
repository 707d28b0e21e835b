#!/usr/bin/env python3
"""Peak resident memory (VmHWM) of the process that polls while the server's task answers are
endless or huge (issue 12a; target: under 64 MB).

Usage: cargo build --release && scripts/hostile-memory.py [service|no-service|legacy] ...
  service     `reel submit` hands the tasks to the data folder's engine process; that process
              is measured (default)
  no-service  `reel --no-service submit --wait`: the engine runs in that one process, measured
  legacy      `reel submit --wait` of a build without engine processes (REEL_BIN=...)
Env: TASKS (10), SECS (30) of polling per case, RPS (10, the default request budget); with
more tasks and a higher budget, up to 16 answers (the engine's cap on API requests in flight)
are read at once. Each case starts a fresh simulator (renders
that never finish, every task GET answered as the case says) and a fresh data folder.
"""

import os
import sys
import time

from benchlib import MODEL, Folder, Sim, machine, mib, status_kib

TASKS = int(os.environ.get("TASKS", "10"))
SECS = float(os.environ.get("SECS", "30"))
# Kill a process that grows past this: the machine is shared.
CEILING_KIB = 2 * 1024 * 1024

CASES = [
    ("plain answers (control)", []),
    ("endless JSON ([[[[...)", ["--hostile-endless", "always"]),
    ("a task then endless spaces", ["--hostile-endless-spaces", "always"]),
    ("valid JSON of 50 MiB", ["--hostile-huge", "always", "--huge-bytes", str(50 * 1024 * 1024)]),
]
# Polls come quickly, so that many hostile answers arrive within SECS (errors still back off).
ENGINE = {
    "first_poll_secs": 1,
    "poll_interval_secs": 1,
    "max_poll_interval_secs": 2,
    "requests_per_second": int(os.environ.get("RPS", "10")),
}


def measure(mode, flags):
    sim = Sim("--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000", *flags)
    folder = Folder(sim, ENGINE)
    submit = ["submit", "--model", MODEL, "--prompt", "a red fox in snow", "--count", str(TASKS)]
    try:
        if mode == "service":
            out = folder.reel(*submit)
            if out.returncode != 0:
                raise RuntimeError(out.stderr)
            pid = folder.engine_pid()
            proc = None
        else:
            extra = ["--no-service"] if mode == "no-service" else []
            proc = folder.spawn(*extra, *submit, "--wait")
            pid = proc.pid
        start = time.time()
        killed = False
        while time.time() - start < SECS:
            rss = status_kib(pid, "VmRSS")
            if rss is None:
                break
            if rss > CEILING_KIB:
                killed = True
                break
            time.sleep(0.05)
        hwm = status_kib(pid, "VmHWM")
        gets = sim.count("GET /v1/videos/")
        if proc:
            proc.kill()
            proc.wait()
        return hwm, gets, killed, time.time() - start
    finally:
        folder.remove()
        sim.stop()


def main():
    modes = sys.argv[1:] or ["service"]
    print(f"machine: {machine()}")
    print(
        f"reel: {os.environ.get('REEL_BIN', 'target/release/reel')}; {TASKS} tasks, "
        f"{ENGINE['requests_per_second']} requests/s, {SECS:.0f} s of polling per case"
    )
    print(f"{'mode':<11} {'answers':<28} {'VmHWM':>12} {'task GETs':>10}")
    for mode in modes:
        for name, flags in CASES:
            hwm, gets, killed, secs = measure(mode, flags)
            note = f"  (killed past 2 GiB after {secs:.1f} s)" if killed else ""
            print(f"{mode:<11} {name:<28} {mib(hwm or 0):>12} {gets:>10}{note}", flush=True)


if __name__ == "__main__":
    main()
