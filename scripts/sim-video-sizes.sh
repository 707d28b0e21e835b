#!/usr/bin/env bash
# Sizes of the simulator's result files, by resolution, ratio and seconds.
set -eu
cd "$(dirname "$0")/.."
# Needs: cargo build --release, curl, python3.
./target/release/reel sim --port 8790 --queue-secs 0 --render-min-secs 0 --render-max-secs 0 --failure-rate 0 >/dev/null &
trap 'kill $!' EXIT; sleep 0.5
B=http://127.0.0.1:8790; H='Authorization: Bearer sim-key'
printf '%-6s %-5s %4s %10s %8s\n' res ratio secs bytes gen_ms
for spec in "480P 16:9 5" "720P 16:9 5" "720P 16:9 10" "720P 16:9 30" "1080P 16:9 5" "1080P 9:16 10" "1080P 16:9 30" ; do
  set -- $spec
  id=$(curl -s $B/v1/videos -H "$H" -H 'Content-Type: application/json' \
    -d "{\"model\":\"acme/aurora-3.0/text-to-video\",\"prompt\":\"p\",\"seconds\":$3,\"metadata\":{\"resolution\":\"$1\",\"ratio\":\"$2\"}}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])')
  url=$(curl -s $B/v1/videos/$id -H "$H" | python3 -c 'import json,sys;print(json.load(sys.stdin)["url"])')
  out=$(curl -s -o /dev/null -w '%{size_download} %{time_total}' "$url")
  set -- $1 $2 $3 $out
  printf '%-6s %-5s %4s %10s %8.1f\n' $1 $2 $3 $4 $(python3 -c "print($5*1000)")
done
