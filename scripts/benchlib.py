"""Shared pieces of the measurement scripts: the simulator in its own process, a data folder
with its config, the reel binary under test, and what /proc says about a process.

REEL_BIN picks the reel that is measured (default: this checkout's release build); SIM_BIN the
one that runs `reel sim` (default: the same build, whose simulator has every hostile flag).
Nothing here talks to anything but 127.0.0.1.
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(ROOT, "target", "release", "reel")
MODEL = "acme/aurora-3.0/text-to-video"


def reel_bin():
    return os.path.abspath(os.environ.get("REEL_BIN", DEFAULT_BIN))


def sim_bin():
    return os.path.abspath(os.environ.get("SIM_BIN", DEFAULT_BIN))


def machine():
    """One line naming the machine, for the top of every report."""
    cores = os.cpu_count()
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) / 1024 / 1024
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = open("/proc/loadavg").read().split()[:3]
    return f"{cores} cores ({model}), {mem:.0f} GiB, load average {' '.join(load)}"


class Sim:
    """`reel sim` on a free port of 127.0.0.1, in its own process. Every request line it prints
    is counted; `on_line` (if given) sees each line as it arrives, from a reader thread."""

    def __init__(self, *flags, on_line=None):
        self.proc = subprocess.Popen(
            [sim_bin(), "sim", "--port", "0", "--failure-rate", "0", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "REEL_CONFIG": "/dev/null"},
            text=True,
            bufsize=1,
        )
        self.base_url = None
        for line in self.proc.stdout:
            if self.base_url is None and "http://127.0.0.1:" in line:
                self.base_url = next(w for w in line.split() if w.startswith("http://127.0.0.1:"))
            if line.startswith("Serving"):
                break
        if not self.base_url:
            raise RuntimeError("reel sim did not print its URL")
        self.lock = threading.Lock()
        self.lines = []
        self.on_line = on_line
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            with self.lock:
                self.lines.append((time.time(), line))
            if self.on_line:
                self.on_line(line)

    def count(self, prefix):
        """Request lines seen so far that start with `prefix` (e.g. "POST /v1/videos")."""
        with self.lock:
            return sum(1 for _, l in self.lines if l.startswith(prefix))

    def seen(self, prefix):
        """(time, line) of the request lines that start with `prefix`."""
        with self.lock:
            return [(t, l) for t, l in self.lines if l.startswith(prefix)]

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Folder:
    """A fresh data folder and config file, and the environment that points reel at them and
    at `sim`."""

    def __init__(self, sim, engine=None):
        self.dir = tempfile.mkdtemp(prefix="reel-bench-")
        self.data = os.path.join(self.dir, "data")
        self.config = os.path.join(self.dir, "config.toml")
        lines = ["[engine]"] + [f"{k} = {v}" for k, v in (engine or {}).items()]
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.env = {
            **os.environ,
            "REEL_BASE_URL": sim.base_url,
            "REEL_API_KEY": "sim-key",
            "REEL_DATA_DIR": self.data,
            "REEL_CONFIG": self.config,
        }
        self.env.pop("REEL_PROFILE", None)

    def reel(self, *args, **kw):
        """Runs reel to its end; returns the CompletedProcess (text)."""
        return subprocess.run([reel_bin(), *args], env=self.env, capture_output=True, text=True, **kw)

    def spawn(self, *args, **kw):
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        return subprocess.Popen([reel_bin(), *args], env=self.env, **kw)

    def tasks(self):
        out = self.reel("list", "--json", "--limit", "100000")
        return json.loads(out.stdout) if out.returncode == 0 else []

    def socket(self):
        return os.path.join(self.data, "engine.sock")

    def engine_pid(self, timeout=20):
        """The pid of the folder's engine process, once it answers."""
        until = time.time() + timeout
        while time.time() < until:
            out = self.reel("engine", "status", "--json")
            if out.returncode == 0:
                status = json.loads(out.stdout)
                if status.get("running"):
                    return status["pid"]
            time.sleep(0.05)
        raise RuntimeError("no engine process answered")

    def stop_engine(self):
        """Stops the folder's engine process (tasks unfinished or not) and waits until it is
        gone. Harmless with a reel that has no engine process."""
        if not os.path.exists(self.socket()):
            return
        pid = None
        out = self.reel("engine", "status", "--json")
        if out.returncode == 0 and out.stdout.strip():
            pid = json.loads(out.stdout).get("pid")
        self.reel("engine", "stop", "--force", stdin=subprocess.DEVNULL)
        until = time.time() + 15
        while pid and os.path.exists(f"/proc/{pid}") and time.time() < until:
            if proc_state(pid) == "Z":
                break
            time.sleep(0.05)

    def remove(self):
        self.stop_engine()
        shutil.rmtree(self.dir, ignore_errors=True)


def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def status_kib(pid, field):
    """A field of /proc/PID/status in KiB (VmHWM, VmRSS), or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_ticks(pid):
    """User plus system CPU ticks of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


CLK_TCK = os.sysconf("SC_CLK_TCK")


def median_p95(values):
    """(median, p95, max) of a list of numbers; p95 by the nearest-rank method."""
    s = sorted(values)
    p95 = s[max(0, -(-95 * len(s) // 100) - 1)]
    return statistics.median(s), p95, s[-1]


def mib(kib):
    return f"{kib / 1024:.1f} MiB"
