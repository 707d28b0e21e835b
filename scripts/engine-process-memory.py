#!/usr/bin/env python3
"""Resident memory of the engine process (`reel engine run`) with 10,000 tasks in flight: the
process-level counterpart of `cargo bench --bench engine_memory`, which measures the engine
inside the bench's own process.

Usage: cargo build --release && scripts/engine-process-memory.py
The simulator renders for ten hours; the budget is 2,000 requests/s (as in the bench) so that
submitting is quick; 100 `reel submit --count 100` send the tasks; then polling runs at full
load for 10 s before VmRSS and VmHWM are read from /proc.
"""

import time

from benchlib import MODEL, Folder, Sim, machine, mib, status_kib


def main():
    print(f"machine: {machine()}")
    sim = Sim("--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000")
    folder = Folder(sim, {"requests_per_second": 2000})
    try:
        engine = folder.spawn("engine", "run", "--stay")
        folder.engine_pid()
        before = status_kib(engine.pid, "VmRSS")
        started = time.time()
        for _ in range(100):
            out = folder.reel("submit", "--model", MODEL, "--prompt", "a red fox running through fresh snow at dawn",
                              "--count", "100")
            if out.returncode != 0:
                raise RuntimeError(out.stderr)
        while sim.count("POST /v1/videos -> 200") < 10_000:
            time.sleep(0.1)
        all_in = time.time() - started
        time.sleep(10)
        rss, hwm = status_kib(engine.pid, "VmRSS"), status_kib(engine.pid, "VmHWM")
        print(f"time to submit 10,000 tasks (100 reel submit --count 100): {all_in:.1f} s")
        print(f"engine process before any task: VmRSS {mib(before)}")
        print(f"engine process, 10,000 tasks in flight: VmRSS {mib(rss)}, VmHWM {mib(hwm)}")
        print(f"per task: {(rss - before) / 10_000:.1f} KiB")
        folder.stop_engine()
        engine.wait()
    finally:
        folder.remove()
        sim.stop()


if __name__ == "__main__":
    main()
