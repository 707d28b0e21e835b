#!/usr/bin/env bash
# Polling in real time against `reel sim`, the counterpart of `cargo bench --bench polling`.
# Workloads, run side by side, each batch of 20 tasks (TASKS=n to change) submitted at once with
# `reel submit --count --wait` (default engine settings) against a simulator of its own:
#   fast     queued 2 s, rendering 8 to 30 s
#   spec     queued 15 s, rendering 60 to 180 s (the spec's "typically 1 to 5 minutes")
#   shift    queued 2 s, rendering 90 to 150 s, on copies of fast's data folders after its first
#            run: render times learned on fast, then the service slows down
#   stalled  queued 2 s, rendering 70 to 110 s, with client_timeout_secs = 60: every task is
#            stalled before it finishes (a late finish must be seen within 30 s)
#   slow     queued 15 s, rendering 300 to 540 s: only with SLOW=1 (then about 20 minutes)
# WORKLOADS="fast spec stalled slow" chooses (shift comes with fast; the default leaves slow out).
# (the simulator's queue time is fixed, not a range). For each workload:
#   phase 1: reel on a first run (empty data folder), with and without `progress` in the answers
#            (`reel sim --spec-only`), and a fixed 5 s poller, all at once;
#   phase 2: reel again on the same data folders, so render times are learned from phase 1.
# Every batch of a workload has a simulator of its own with the same seed, so every poller meets
# the same tasks (the seed draws them in the order they are submitted, before the first poll).
# Times are real (not scaled down): the engine learns render times in the API's whole seconds.
# Polls per task come from the database (`poll_count`), the moment reel saw a finish from its
# `completed` event, the finish itself from the API's `completed_at`, which has whole seconds
# only: delays are taken from the middle of that second (±0.5 s, the same for every poller).
# Needs: cargo build, python3. About 7 minutes (SLOW=1: about 20). Prints a table.
set -eu
cd "$(dirname "$0")/.."
bin=${BIN:-./target/debug/reel}
n=${TASKS:-20}
dir=$(mktemp -d)
: > "$dir/pids"
# Simulators run until the end; engines exit on their own once idle. KEEP=1 keeps the folders.
trap 'kill $(cat "$dir/pids") 2>/dev/null || true; wait; if [ "${KEEP:-0}" = 1 ]; then echo "kept $dir" >&2; else rm -rf "$dir"; fi' EXIT
printf '[engine]\nclient_timeout_secs = 60\n' > "$dir/stalled.toml"

start_sim() { # log name, queue s, render min s, render max s, extra flags; sets $url
  local log=$dir/$1.log q=$2 lo=$3 hi=$4
  shift 4
  "$bin" sim --port 0 --queue-secs "$q" --render-min-secs "$lo" --render-max-secs "$hi" --failure-rate 0 \
    --seed 7 "$@" > "$log" &
  echo $! >> "$dir/pids"
  until grep -q '^Serving' "$log" 2>/dev/null; do sleep 0.1; done
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$log" | head -1)
}

batch() { # data folder, base URL, config file; what `--wait` prints is shown only if it fails
  REEL_CONFIG=$3 REEL_DATA_DIR="$1" REEL_BASE_URL="$2" REEL_API_KEY=sim-key \
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

phase() { # workload, phase number, queue s, render min s, render max s, config file, fixed poller (1/0)
  local w=$1 k=$2 q=$3 lo=$4 hi=$5 conf=$6 with_fixed=$7 waiting=()
  mkdir -p "$dir/$w"
  start_sim "$w-spec$k" "$q" "$lo" "$hi" --spec-only
  batch "$dir/$w/spec" "$url" "$conf" &
  waiting+=($!)
  start_sim "$w-progress$k" "$q" "$lo" "$hi"
  batch "$dir/$w/progress" "$url" "$conf" &
  waiting+=($!)
  if [ "$with_fixed" = 1 ]; then
    start_sim "$w-fixed" "$q" "$lo" "$hi" --spec-only
    fixed "$url" 5 "$dir/$w/fixed5.json" &
    waiting+=($!)
  fi
  for p in "${waiting[@]}"; do wait "$p"; done
}

learned_from() { # workload, the workload whose data folders it starts from
  mkdir -p "$dir/$1/spec" "$dir/$1/progress"
  for answers in spec progress; do
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
      "$dir/$2/$answers/reel.db" "$dir/$1/$answers/reel.db"
  done
}

workload() { # name, queue s, render min s, render max s, config file
  phase "$1" 1 "$2" "$3" "$4" "$5" 1
  phase "$1" 2 "$2" "$3" "$4" "$5" 0
}

chosen=" ${WORKLOADS:-fast spec stalled} "
[ "${SLOW:-0}" = 1 ] && chosen="$chosen slow "
jobs_=()
if [[ $chosen == *" fast "* ]]; then
  (
    phase fast 1 2 8 30 /dev/null 1
    learned_from shift fast
    phase fast 2 2 8 30 /dev/null 0 &
    other=$!
    workload shift 2 90 150 /dev/null
    wait $other
  ) &
  jobs_+=($!)
fi
if [[ $chosen == *" spec "* ]]; then
  workload spec 15 60 180 /dev/null &
  jobs_+=($!)
fi
if [[ $chosen == *" stalled "* ]]; then
  workload stalled 2 70 110 "$dir/stalled.toml" &
  jobs_+=($!)
fi
if [[ $chosen == *" slow "* ]]; then
  workload slow 15 300 540 /dev/null &
  jobs_+=($!)
fi
for j in "${jobs_[@]}"; do wait "$j"; done

python3 - "$dir" "$n" <<'EOF'
import json, math, os, sqlite3, sys
d, n = sys.argv[1], int(sys.argv[2])
def batch(w, answers, first):
    db = sqlite3.connect(f"{d}/{w}/{answers}/reel.db")
    rows = db.execute(
        "SELECT t.poll_count, e.at - (t.remote_completed_at * 1000 + 500), "
        "t.remote_completed_at - t.remote_created_at FROM tasks t "
        "JOIN events e ON e.task_id = t.id AND e.state = (SELECT code FROM states WHERE name = 'completed') "
        "WHERE t.id BETWEEN ? AND ?",
        (first, first + n - 1)).fetchall()
    return [{"polls": p, "delay": ms / 1000, "total": total} for p, ms, total in rows]
def line(w, name, answers, rows, fixed_polls):
    if not rows:
        print(f"| {w} | {name} | {answers} | none finished | | |")
        return
    delays = sorted(r["delay"] for r in rows)
    q = lambda x: delays[max(0, math.ceil(len(delays) * x) - 1)]
    polls = sum(r["polls"] for r in rows) / len(rows)
    total = sum(r["total"] for r in rows) / len(rows)
    print(f"| {w} | {name} | {answers} | {len(rows)}, {total:.0f} s | {polls:.1f} ({polls / fixed_polls:.2f}x) | "
          f"{q(0.5):.1f} / {q(0.95):.1f} / {delays[-1]:.1f} s |")
print("| workload | poller | answers | tasks, mean time to finish | polls per task (x fixed 5 s) "
      "| detection delay p50 / p95 / max |")
print("|---|---|---|---|---|---|")
names = {"shift": ("reel, learned on fast", "reel, learned on fast, then on the shift")}
for w in ["fast", "spec", "slow", "shift", "stalled"]:
    if not os.path.exists(f"{d}/{w}/fixed5.json"):
        continue
    fixed = json.load(open(f"{d}/{w}/fixed5.json"))
    fixed_polls = sum(r["polls"] for r in fixed) / len(fixed)
    # A shift's folders start with fast's first run.
    skip = n if w == "shift" else 0
    first, learned = names.get(w, ("reel, first run", "reel, render times learned"))
    for answers, label in [("spec", "spec fields only"), ("progress", "with progress")]:
        line(w, first, label, batch(w, answers, skip + 1), fixed_polls)
        line(w, learned, label, batch(w, answers, skip + n + 1), fixed_polls)
    line(w, "fixed 5 s", "any", fixed, fixed_polls)
EOF
