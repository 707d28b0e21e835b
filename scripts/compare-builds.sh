#!/usr/bin/env bash
# The same criterion benchmarks in two checkouts, alternately (old, new, old, new, ...), so
# that the machine's load falls on both alike; prints each run's medians, then per benchmark
# the median and the lowest of the runs' medians for each side (on a shared, loaded machine
# the lowest is the least disturbed).
# Usage: scripts/compare-builds.sh OLD_CHECKOUT [BENCH...]   (default: scheduler store render)
# Env: ROUNDS (4); CRITERION ("--warm-up-time 1 --measurement-time 3"): arguments for criterion.
# OLD_CHECKOUT is another checkout of reel (e.g. `git worktree add ../reel-old <commit>`);
# both need `cargo bench --no-run` done first, or this builds them.
set -eu
new=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "$1" && pwd)
shift
benches=("$@")
[ ${#benches[@]} -eq 0 ] && benches=(scheduler store render)
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1024/1024}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "${ROUNDS:-4}"); do
  for bench in "${benches[@]}"; do
    for side in old new; do
      dir=$old; [ $side = new ] && dir=$new
      since=$(date +%s)
      # shellcheck disable=SC2086
      (cd "$dir" && cargo bench --locked --bench "$bench" -- ${CRITERION:---warm-up-time 1 --measurement-time 3} > /dev/null 2>&1)
      echo "== round $round, $bench, $side, load $(cut -d' ' -f1-3 /proc/loadavg)"
      python3 "$new/scripts/criterion-medians.py" "$dir/target" "" "$since"
      RAW=1 python3 "$new/scripts/criterion-medians.py" "$dir/target" "" "$since" | sed "s/^/$side\t/" >> "$raw"
    done
  done
done
echo "== summary: median of the runs' medians (lowest), ${ROUNDS:-4} runs each"
python3 - "$raw" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    side, name, ns = line.rstrip("\n").split("\t")
    runs[(name, side)].append(float(ns))
def fmt(ns):
    for unit, scale in (("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
for name in sorted({n for n, _ in runs}):
    cells = []
    for side in ("old", "new"):
        v = runs.get((name, side))
        cells.append(f"{side} {fmt(statistics.median(v))} ({fmt(min(v))})" if v else f"{side} -")
    print(f"{name:<56} " + "   ".join(cells))
PY
