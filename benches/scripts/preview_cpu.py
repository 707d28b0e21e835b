#!/usr/bin/env python3
"""CPU of the dashboard while a preview plays inline, at 80x24 and 160x48, beside the same
dashboard idle with a poster on screen and with the player paused.

Run from the repository: `cargo build --release && python3 benches/scripts/preview_cpu.py`.
Needs tmux and ffmpeg. The release binary runs in demo mode in a private data folder; one task
is sent and saved, the history is opened (its detail pane has room for a poster at 80x24),
then for each size: 10 s idle with the poster shown, 10 s playing (`p`), 10 s paused (Space). CPU is user + system time from /proc of the dashboard process and of
every ffmpeg it started, over the wall time, in percent of one core.
"""
import os, subprocess, sys, tempfile, time

REEL = os.path.abspath("target/release/reel")
SECONDS = 10
TICK = os.sysconf("SC_CLK_TCK")


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", "reel-cpu", *args], capture_output=True, text=True, check=check).stdout


def screen():
    return tmux("capture-pane", "-p", "-t", "cpu")


def wait_for(text, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if text in screen():
            return
        time.sleep(0.1)
    sys.exit(f"{text!r} never appeared:\n{screen()}")


def children(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(p))
            except OSError:
                pass
    return out


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # utime, stime, cutime, cstime: the ffmpeg children that ended count in cutime/cstime.
        return sum(int(x) for x in fields[11:15])
    except OSError:
        return 0


def tree_ticks(pid):
    return cpu_ticks(pid) + sum(cpu_ticks(c) for c in children(pid))


def measure(pid):
    before, t0 = tree_ticks(pid), time.time()
    time.sleep(SECONDS)
    return 100.0 * (tree_ticks(pid) - before) / TICK / (time.time() - t0)


def main():
    data = tempfile.mkdtemp(prefix="reel-cpu-")
    env = f"HOME={data} REEL_DATA_DIR={data}/data"
    tmux("kill-server", check=False)
    tmux("new-session", "-d", "-s", "cpu", "-x", "160", "-y", "48", f"{env} {REEL}; sleep 600")
    wait_for("Compose")
    tmux("send-keys", "-t", "cpu", "-l", "a lighthouse at dusk, waves crashing")
    tmux("send-keys", "-t", "cpu", "C-s")
    wait_for("downloaded")
    tmux("send-keys", "-t", "cpu", "Escape")
    wait_for("p play")
    # The history's detail pane: it has room for a poster at 80x24 too (the task table's has not).
    tmux("send-keys", "-t", "cpu", "H")
    wait_for("┌ 1 task ")
    shell = int(tmux("list-panes", "-t", "cpu", "-F", "#{pane_pid}").strip())
    dash = [c for c in children(shell) if open(f"/proc/{c}/comm").read().strip() == "reel"][0]
    rows = []
    for w, h in [(80, 24), (160, 48)]:
        tmux("resize-window", "-t", "cpu", "-x", str(w), "-y", str(h))
        time.sleep(2)
        idle = measure(dash)
        tmux("send-keys", "-t", "cpu", "p")
        wait_for("playing")
        time.sleep(1)
        playing = measure(dash)
        tmux("send-keys", "-t", "cpu", "Space")
        wait_for("paused")
        paused = measure(dash)
        tmux("send-keys", "-t", "cpu", "Escape")
        time.sleep(1)
        rows.append((f"{w}x{h}", idle, playing, paused))
    tmux("send-keys", "-t", "cpu", "q")
    time.sleep(1)
    tmux("kill-server", check=False)
    print(f"CPU of the dashboard and its ffmpeg, % of one core over {SECONDS} s each:")
    print("| size | idle, poster shown | playing (10 frames/s) | paused |")
    print("|---|---|---|---|")
    for size, idle, playing, paused in rows:
        print(f"| {size} | {idle:.1f}% | {playing:.1f}% | {paused:.1f}% |")


main()
