#!/usr/bin/env python3
"""`submit_unknown` left by `kill -9` in the middle of a batch of 50 (issue 12c; target: at most
the POSTs in flight at the kill).

Usage: cargo build --release && scripts/kill-mid-batch.py [RUNS] [MODE...]   (default 12 no-service service)
  no-service  `reel --no-service submit --count 50`; that process (the engine inside it) is killed
  service     `reel submit --count 50` handed to the folder's engine process (`reel engine run`,
              started by this script so its pid is known); the engine process is killed
  legacy      `reel submit --count 50` of a build without engine processes (REEL_BIN=...)
Env: KILL_AT (10): the kill lands when the simulator has answered this many POSTs.

Each run: a fresh simulator (renders of 0 to 1 s) and data folder with the default config
(10 requests/s); the process is killed (SIGKILL) from the thread that reads the simulator's
request log, on the KILL_AT-th POST line. Then the journal is read as the kill left it (`reel
list --json`, which reads the database and starts no engine: tasks `submitting` are the POSTs
in flight), recovery runs (`reel wait --all`, in the same mode) and the journal is read again.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

from benchlib import MODEL, Folder, Sim, machine

KILL_AT = int(os.environ.get("KILL_AT", "10"))
SUBMIT = ["submit", "--model", MODEL, "--prompt", "batch", "--resolution", "480P", "--count", "50"]


def one_run(mode):
    victim = {}
    fired = threading.Event()
    posts = [0]

    def on_line(line):
        if line.startswith("POST /v1/videos"):
            posts[0] += 1
            if posts[0] == KILL_AT and "pid" in victim:
                os.kill(victim["pid"], signal.SIGKILL)
                fired.set()

    sim = Sim("--queue-secs", "0", "--render-min-secs", "0", "--render-max-secs", "1", on_line=on_line)
    folder = Folder(sim)
    flags = ["--no-service"] if mode == "no-service" else []
    try:
        if mode == "service":
            engine = folder.spawn("engine", "run")
            folder.engine_pid()
            victim["pid"] = engine.pid
            client = folder.spawn(*SUBMIT)
        else:
            client = folder.spawn(*flags, *SUBMIT)
            victim["pid"] = client.pid
        if not fired.wait(60):
            raise RuntimeError("the kill never fired")
        if mode == "service":
            engine.wait()
        # The submit (service mode) learns that its engine went away and ends.
        try:
            client.wait(timeout=10)
        except subprocess.TimeoutExpired:
            client.kill()
            client.wait()
        time.sleep(0.3)  # a POST already written to the socket may still reach the simulator
        posts_seen = sim.count("POST /v1/videos")
        at_kill = Counter(t["state"] for t in folder.tasks())
        done = folder.reel(*flags, "wait", "--all", timeout=300)
        after = Counter(t["state"] for t in folder.tasks())
        created = sim.count("POST /v1/videos -> 200")
        return {"posts_seen": posts_seen, "at_kill": at_kill, "after": after, "created": created,
                "wait_code": done.returncode}
    finally:
        folder.remove()
        sim.stop()


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    modes = sys.argv[2:] or ["no-service", "service"]
    print(f"machine: {machine()}")
    print(f"reel: {os.environ.get('REEL_BIN', 'target/release/reel')}; kill -9 on the simulator's POST #{KILL_AT}")
    for mode in modes:
        print(f"== {mode}")
        print("run  POSTs seen  at kill: waiting submitting answered  after recovery: submit_unknown downloaded"
              "  POSTs answered 200  wait exit")
        unknowns, in_flight = [], []
        for i in range(1, runs + 1):
            r = one_run(mode)
            k, a = r["at_kill"], r["after"]
            answered = sum(v for s, v in k.items() if s not in ("waiting", "submitting"))
            unknowns.append(a["submit_unknown"])
            in_flight.append(k["submitting"])
            print(
                f"{i:>3} {r['posts_seen']:>11}  {k['waiting']:>16} {k['submitting']:>10} {answered:>8}"
                f"  {a['submit_unknown']:>30} {a['downloaded']:>10} {r['created']:>19} {r['wait_code']:>10}",
                flush=True,
            )
        print(f"{mode}: submit_unknown over {runs} runs: {dict(sorted(Counter(unknowns).items()))}")
        print(f"{mode}: POSTs in flight at the kill (tasks `submitting`): {dict(sorted(Counter(in_flight).items()))}")
        ok = all(u <= f for u, f in zip(unknowns, in_flight))
        print(f"{mode}: every run: submit_unknown <= POSTs in flight: {ok}", flush=True)


if __name__ == "__main__":
    main()
