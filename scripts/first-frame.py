#!/usr/bin/env python3
"""Time from starting the dashboard (`reel`, in tmux at 160x48) to its first frame reaching
tmux (issue 14): with no engine process running for the folder (the dashboard starts one),
with one already running, and with `--no-service`.

Usage: cargo build --release && scripts/first-frame.py [RUNS]   (default 20 per case)
Env: LEGACY_BIN=path adds a case for a build without engine processes (its own folder).

How: the pane runs a small wrapper that waits until `tmux pipe-pane` is attached, notes the
time and execs reel; the pipe's reader notes the time at which the frame's text (the footer's
"Ctrl-S") has arrived. Both clocks are the same wall clock. Cases are interleaved, round after
round, so that the machine's load falls on all of them alike. Needs tmux and python3.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import Folder, Sim, machine, median_p95, reel_bin

SOCK = f"reel-ff-{os.getpid()}"
MARKER = b"Ctrl-S"
HERE = os.path.dirname(os.path.abspath(__file__))

WRAPPER = r"""
import os, sys, time
ready, t0 = sys.argv[1], sys.argv[2]
until = time.time() + 10
while not os.path.exists(ready) and time.time() < until:
    time.sleep(0.002)
with open(t0, "w") as f:
    f.write(str(time.time_ns()))
os.execv(sys.argv[3], sys.argv[3:])
"""

READER = r"""
import os, sys, time
ready, t1, marker = sys.argv[1], sys.argv[2], sys.argv[3].encode()
open(ready, "w").close()
seen, done = b"", False
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    if not done:
        seen += chunk
        if marker in seen:
            with open(t1, "w") as f:
                f.write(str(time.time_ns()))
            done = True
"""


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCK, *args], capture_output=True, text=True)


def first_frame(work, env, argv):
    """Milliseconds from exec to the first frame in tmux, for one start of `argv`."""
    ready, t0, t1 = (os.path.join(work, n) for n in ("ready", "t0", "t1"))
    for p in (ready, t0, t1):
        if os.path.exists(p):
            os.remove(p)
    envs = [f"{k}={v}" for k, v in env.items() if k.startswith("REEL_")]
    cmd = ["env", *envs, "python3", os.path.join(work, "wrapper.py"), ready, t0, *argv]
    pane = tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench", " ".join(cmd)).stdout.strip()
    tmux("pipe-pane", "-o", "-t", pane, f"python3 {os.path.join(work, 'reader.py')} {ready} {t1} {MARKER.decode()}")
    until = time.time() + 30
    while not os.path.exists(t1) and time.time() < until:
        time.sleep(0.01)
    ms = None
    if os.path.exists(t1) and os.path.exists(t0):
        time.sleep(0.01)
        ms = (int(open(t1).read()) - int(open(t0).read())) / 1e6
    tmux("send-keys", "-t", pane, "C-c")
    # The dashboard gives the terminal back and ends; the pane closes with it.
    until = time.time() + 10
    while pane in tmux("list-panes", "-a", "-F", "#{pane_id}").stdout.split() and time.time() < until:
        time.sleep(0.02)
    tmux("kill-pane", "-t", pane)
    return ms


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    legacy = os.environ.get("LEGACY_BIN")
    print(f"machine: {machine()}")
    work = tempfile.mkdtemp(prefix="reel-ff-")
    with open(os.path.join(work, "wrapper.py"), "w") as f:
        f.write(WRAPPER)
    with open(os.path.join(work, "reader.py"), "w") as f:
        f.write(READER)
    sim = Sim("--queue-secs", "0", "--render-min-secs", "36000", "--render-max-secs", "36000")
    folder = Folder(sim)
    old = Folder(sim) if legacy else None
    tmux("new-session", "-d", "-s", "bench", "-x", "160", "-y", "48", "sleep 100000")
    tmux("set-option", "-g", "remain-on-exit", "off")
    results = {"no engine running": [], "engine running": [], "--no-service": []}
    if legacy:
        results["legacy build"] = []
    try:
        # A first start creates the database; it is not counted.
        first_frame(work, folder.env, [reel_bin()])
        for _ in range(runs):
            folder.stop_engine()
            results["no engine running"].append(first_frame(work, folder.env, [reel_bin()]))
            # The engine the dashboard started stays (idle) after it quits: attach to it.
            results["engine running"].append(first_frame(work, folder.env, [reel_bin()]))
            folder.stop_engine()
            results["--no-service"].append(first_frame(work, folder.env, [reel_bin(), "--no-service"]))
            if legacy:
                results["legacy build"].append(first_frame(work, old.env, [os.path.abspath(legacy)]))
    finally:
        tmux("kill-server")
        shutil.rmtree(work, ignore_errors=True)
        folder.remove()
        if old:
            old.remove()
        sim.stop()
    print(f"{'case':<20} {'median':>8} {'p95':>8} {'max':>8}  runs")
    for case, values in results.items():
        ok = [v for v in values if v is not None]
        med, p95, mx = median_p95(ok)
        print(f"{case:<20} {med:>6.1f}ms {p95:>6.1f}ms {mx:>6.1f}ms  {len(ok)} of {len(values)}")


if __name__ == "__main__":
    main()
