#!/usr/bin/env bash
# CPU used by the dashboard and by its engine process, idle and with 1,000 tasks in flight.
# Needs: cargo build --release, tmux, python3. Prints one line per measurement.
#   RPS=N          [engine] requests_per_second (default 10)
#   NO_SERVICE=1   run `reel --no-service`: one process, the engine inside the dashboard
#   BIN=path       another reel build (one without engine processes is measured as one process)
set -eu
cd "$(dirname "$0")/.."
bin=$(realpath "${BIN:-./target/release/reel}")
port=${PORT:-8795}
dir=$(mktemp -d)
printf '[engine]\nrequests_per_second = %s\n' "${RPS:-10}" > "$dir/config.toml"
export REEL_BASE_URL=http://127.0.0.1:$port REEL_API_KEY=sim-key REEL_DATA_DIR=$dir/data REEL_CONFIG=$dir/config.toml
./target/release/reel sim --port $port --queue-secs 0 --render-min-secs 36000 --render-max-secs 36000 --failure-rate 0 > "$dir/sim.log" &
sim=$!
sock=reel-cpu-$$
flag=""
[ -n "${NO_SERVICE:-}" ] && flag=" --no-service"
cleanup() {
  tmux -L $sock kill-server 2>/dev/null || true
  # The engine process outlives the dashboard (its tasks never finish): stop it.
  [ -S "$dir/data/engine.sock" ] && "$bin" engine stop --force > /dev/null 2>&1 < /dev/null || true
  kill $sim 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
sleep 0.5
tmux -L $sock new-session -d -s cpu -x 160 -y 48 \
  "REEL_BASE_URL=$REEL_BASE_URL REEL_API_KEY=sim-key REEL_DATA_DIR=$REEL_DATA_DIR REEL_CONFIG=$REEL_CONFIG $bin$flag"
sleep 2
pid=$(pgrep -f "^$bin$flag\$" | head -1)
engine=""
if [ -S "$dir/data/engine.sock" ]; then
  engine=$("$bin" engine status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
fi
echo "dashboard pid $pid${engine:+, engine process pid $engine}${flag:+ (--no-service)}"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # seconds label
  local a b ea=0 eb=0 hz; hz=$(getconf CLK_TCK)
  a=$(ticks "$pid"); [ -n "$engine" ] && ea=$(ticks "$engine")
  sleep "$1"
  b=$(ticks "$pid"); [ -n "$engine" ] && eb=$(ticks "$engine")
  python3 -c "
d, e = ($b - $a) / $hz / $1 * 100, ($eb - $ea) / $hz / $1 * 100
print(f'$2: dashboard {d:.2f}%' + (f', engine process {e:.2f}%, both {d + e:.2f}%' if '$engine' else '') + ' of one core over $1 s')"
}
measure 20 "idle, no tasks"
tmux -L $sock send-keys -t cpu -l "a red fox running through fresh snow"
for _ in 1 2 3 4 5 6 7 8; do tmux -L $sock send-keys -t cpu Tab; done
tmux -L $sock send-keys -t cpu -l "50"
tmux -L $sock send-keys -t cpu Tab
tmux -L $sock send-keys -t cpu -l "16:9 9:16 1:1 4:3 3:4 4 5 6 7"
tmux -L $sock send-keys -t cpu C-s
for _ in $(seq 1 200); do
  tmux -L $sock capture-pane -p -t cpu | grep -Eq "1000 tasks, 1000 (running|active)" && break
  sleep 1
done
tmux -L $sock capture-pane -p -t cpu | head -1
# Let every submission be answered, then measure while all 1,000 are polled.
while [ "$(grep -c 'POST /v1/videos -> 200' "$dir/sim.log")" -lt 1000 ]; do sleep 1; done
measure 30 "1,000 tasks in flight, form focused"
tmux -L $sock send-keys -t cpu Escape
measure 20 "1,000 tasks in flight, table focused"
