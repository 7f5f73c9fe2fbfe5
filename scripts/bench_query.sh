#!/usr/bin/env bash
# Query benchmark (release build): 6-house tables to K seeds (default 20,
# built into tables/ if missing), then
#  1. single queries of positions inside the tables, each a whole process
#     (cold start: exec, open, map, probe, print); median wall time of RUNS;
#  2. batch throughput: N random positions inside the tables through
#     `query --batch`, positions/s.
# Usage: scripts/bench_query.sh [K] [RUNS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-20}; RUNS=${2:-31}; N=${3:-1000000}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/kalah
$bin build --pits 6 --max-seeds "$K" --tables tables > /dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$K" "$N" "$work/batch.txt" "$work/single.txt" <<'PY'
import random, sys
k, n, batch, single = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
random.seed(1)
def pos():
    seeds = random.randint(1, k)
    h = [0] * 12
    for _ in range(seeds):
        h[random.randrange(12)] += 1
    s = [random.randint(0, 20), random.randint(0, 20)]
    return " ".join(map(str, h[:6] + [s[0]] + h[6:] + [s[1]])) + " " + random.choice("SN")
with open(batch, "w") as f:
    for _ in range(n):
        f.write(pos() + "\n")
with open(single, "w") as f:
    for _ in range(200):
        f.write(pos() + "\n")
PY
echo "single queries (whole process, tables in page cache), $RUNS runs:"
mapfile -t singles < "$work/single.txt"
times=()
for i in $(seq 1 "$RUNS"); do
  p=${singles[$i]}
  t0=$(date +%s%N)
  $bin query "$p" --tables tables --json > /dev/null
  t1=$(date +%s%N)
  times+=($(( (t1 - t0) / 1000 )))
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "  median %.2f ms, min %.2f ms, max %.2f ms\n", a[int((NR+1)/2)]/1000, a[1]/1000, a[NR]/1000}'
echo "batch of $N positions (value and every move's value, no PV):"
t0=$(date +%s%N)
$bin query --batch "$work/batch.txt" --tables tables > "$work/out.jsonl" 2> "$work/err.txt"
t1=$(date +%s%N)
lines=$(wc -l < "$work/out.jsonl")
awk -v n="$lines" -v ns="$((t1 - t0))" 'BEGIN {printf "  %d answers in %.2f s: %.2f M positions/s (whole process, parse + probe + JSON)\n", n, ns/1e9, n/(ns/1e9)/1e6}'
grep -c '"source":"table"' "$work/out.jsonl" | awk '{print "  from the tables: " $1}'
