#!/usr/bin/env bash
# Polling in real time against `reel sim`, the counterpart of `cargo bench --bench polling`.
# 20 tasks (TASKS=n to change), queued 15 s (the simulator's queue time is fixed), rendering
# 60 to 180 s, submitted at once with `reel submit --count --wait` (default engine settings):
#   phase 1: reel on a first run (empty data folder), with and without `progress` in the
#            answers (`reel sim --spec-only`), and a fixed 5 s poller, all at once;
#   phase 2: reel again on the same data folders, so render times are learned from phase 1.
# Times are real (not scaled down): the engine learns render times in the API's whole seconds.
# Polls per task come from the database (`poll_count`), the moment reel saw a finish from its
# `completed` event, the finish itself from the API's `completed_at`, which has whole seconds
# only: delays are taken from the middle of that second (±0.5 s, the same for every poller).
# Needs: cargo build, python3. About 8 minutes. Prints a table.
set -eu
cd "$(dirname "$0")/.."
bin=${BIN:-./target/debug/reel}
n=${TASKS:-20}
dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait; rm -rf "$dir"' EXIT

start_sim() { # name, extra flags; sets $url (not in a subshell, so that the trap stops it)
  local name=$1
  shift
  "$bin" sim --port 0 --queue-secs 15 --render-min-secs 60 --render-max-secs 180 --failure-rate 0 --seed 7 "$@" \
    > "$dir/$name.log" &
  pids+=($!)
  until grep -q '^Serving' "$dir/$name.log" 2>/dev/null; do sleep 0.1; done
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$dir/$name.log" | head -1)
}

batch() { # data folder, base URL; what `--wait` prints is shown only if it fails
  REEL_CONFIG=/dev/null REEL_DATA_DIR="$1" REEL_BASE_URL="$2" REEL_API_KEY=sim-key \
    "$bin" submit --model acme/aurora-3.0/text-to-video --prompt "a red fox running through fresh snow" \
    --count "$n" --wait > "$1.out" 2>&1 || { tail -20 "$1.out" >&2; return 1; }
}

fixed() { # base URL, interval s, output file
  python3 - "$1" "$2" "$n" > "$3" <<'EOF'
import http.client, json, sys, time, urllib.parse
url, every, n = urllib.parse.urlparse(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
conn = http.client.HTTPConnection(url.hostname, url.port)
def call(method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body else None,
                 headers={"Authorization": "Bearer sim-key", "Content-Type": "application/json"})
    return json.loads(conn.getresponse().read())
due, polls, out = {}, {}, []
for _ in range(n):
    task = call("POST", "/v1/videos", {"model": "acme/aurora-3.0/text-to-video", "prompt": "a red fox", "seconds": 5})
    due[task["id"]], polls[task["id"]] = time.time() + every, 0
while due:
    tid = min(due, key=due.get)
    time.sleep(max(0.0, due[tid] - time.time()))
    task, polls[tid] = call("GET", "/v1/videos/" + tid), polls[tid] + 1
    if task["status"] == "completed":
        out.append({"polls": polls[tid], "delay": time.time() - (task["completed_at"] + 0.5),
                    "total": task["completed_at"] - task["created_at"]})
        del due[tid]
    else:
        due[tid] += every
print(json.dumps(out))
EOF
}

# Every batch gets a simulator of its own with the same seed, so every poller meets the same
# 20 tasks (the seed draws them in the order they are submitted, before the first poll).
start_sim spec1 --spec-only
batch "$dir/spec" "$url" &
a=$!
start_sim progress1
batch "$dir/progress" "$url" &
b=$!
start_sim peer --spec-only
fixed "$url" 5 "$dir/fixed5.json" &
c=$!
wait $a
wait $b
wait $c
start_sim spec2 --spec-only
batch "$dir/spec" "$url" &
a=$!
start_sim progress2
batch "$dir/progress" "$url" &
b=$!
wait $a
wait $b

python3 - "$dir" "$n" <<'EOF'
import json, math, sqlite3, sys
d, n = sys.argv[1], int(sys.argv[2])
def batch(folder, first):
    db = sqlite3.connect(f"{d}/{folder}/reel.db")
    rows = db.execute(
        "SELECT t.poll_count, e.at - (t.remote_completed_at * 1000 + 500), "
        "t.remote_completed_at - t.remote_created_at FROM tasks t "
        "JOIN events e ON e.task_id = t.id AND e.state = 'completed' WHERE t.id BETWEEN ? AND ?",
        (first, first + n - 1)).fetchall()
    return [{"polls": p, "delay": ms / 1000, "total": total} for p, ms, total in rows]
def line(name, answers, rows):
    delays = sorted(r["delay"] for r in rows)
    q = lambda x: delays[max(0, math.ceil(len(delays) * x) - 1)]
    polls = sum(r["polls"] for r in rows) / len(rows)
    total = sum(r["total"] for r in rows) / len(rows)
    print(f"| {name} | {answers} | {len(rows)}, {total:.0f} s | {polls:.1f} | "
          f"{q(0.5):.1f} / {q(0.95):.1f} / {delays[-1]:.1f} s |")
print("| poller | answers | tasks, mean time to finish | polls per task | detection delay p50 / p95 / max |")
print("|---|---|---|---|---|")
for folder, answers in [("spec", "spec fields only"), ("progress", "with progress")]:
    line("reel, first run", answers, batch(folder, 1))
    line("reel, render times learned", answers, batch(folder, n + 1))
line("fixed 5 s", "any", json.load(open(f"{d}/fixed5.json")))
EOF
