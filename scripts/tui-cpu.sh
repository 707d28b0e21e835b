#!/usr/bin/env bash
# CPU used by the dashboard, idle and with 1,000 tasks in flight.
# Needs: cargo build --release, tmux, python3. Prints one line per measurement.
set -eu
cd "$(dirname "$0")/.."
bin=./target/release/reel
port=8795
dir=$(mktemp -d)
printf '[engine]\nrequests_per_second = %s\n' "${RPS:-10}" > "$dir/config.toml"
$bin sim --port $port --queue-secs 0 --render-min-secs 36000 --render-max-secs 36000 --failure-rate 0 > "$dir/sim.log" &
sim=$!
sock=reel-cpu-$$
trap 'tmux -L $sock kill-server 2>/dev/null; kill $sim 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
tmux -L $sock new-session -d -s cpu -x 160 -y 48 \
  "REEL_BASE_URL=http://127.0.0.1:$port REEL_API_KEY=sim-key REEL_DATA_DIR=$dir/data REEL_CONFIG=$dir/config.toml $bin"
sleep 2
pid=$(pgrep -f "^$bin\$" | head -1)
ticks() { awk '{print $14 + $15}' /proc/$pid/stat; }
measure() { # seconds label
  local a b hz; hz=$(getconf CLK_TCK); a=$(ticks); sleep "$1"; b=$(ticks)
  python3 -c "print(f'$2: {($b-$a)/$hz/$1*100:.2f}% of one core over $1 s')"
}
measure 20 "idle, no tasks"
tmux -L $sock send-keys -t cpu -l "a red fox running through fresh snow"
for _ in 1 2 3 4 5 6 7 8; do tmux -L $sock send-keys -t cpu Tab; done
tmux -L $sock send-keys -t cpu -l "50"
tmux -L $sock send-keys -t cpu Tab
tmux -L $sock send-keys -t cpu -l "16:9 9:16 1:1 4:3 3:4 4 5 6 7"
tmux -L $sock send-keys -t cpu C-s
for _ in $(seq 1 200); do
  tmux -L $sock capture-pane -p -t cpu | grep -q "1000 tasks, 1000 running" && break
  sleep 1
done
tmux -L $sock capture-pane -p -t cpu | head -1
# Let every submission be answered, then measure while all 1,000 are polled.
while [ "$(grep -c 'POST /v1/videos -> 200' "$dir/sim.log")" -lt 1000 ]; do sleep 1; done
measure 30 "1,000 tasks in flight"
tmux -L $sock send-keys -t cpu Escape
measure 20 "1,000 tasks in flight, table focused"
