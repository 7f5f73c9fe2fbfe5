#!/usr/bin/env bash
# Query benchmark (release build): 6-house tables to K seeds (default 20,
# built into $KALAH_TABLES, else tables/, if missing), then
#  1. single queries of positions inside the tables, each a whole process
#     (cold start: exec, open, map, probe, print); median wall time of RUNS;
#  2. batch throughput: N random positions inside the tables through
#     `query --batch`, median wall and CPU time of BATCH_RUNS (default 5).
# With BASE (another build of kalah, say of an earlier commit), every run
# of this build is paired with the same run of BASE (which goes first
# alternates), and each measurement gives both medians and their ratio. BASE_TABLES: BASE's own table
# directory, for a table format this build does not share (built by BASE
# when missing; default: the same tables).
# Usage: scripts/bench_query.sh [K] [RUNS] [N] [BASE]
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-20}; RUNS=${2:-31}; N=${3:-1000000}; base=${4:-}
BATCH_RUNS=${BATCH_RUNS:-5}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/kalah
tables=${KALAH_TABLES:-tables}
base_tables=${BASE_TABLES:-$tables}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
build() { # BIN DIR: the tables, quietly unless the build fails
  mkdir -p "$2"
  "$1" build --pits 6 --max-seeds "$K" --tables "$2" > /dev/null 2> "$work/build.log" \
    || { cat "$work/build.log" >&2; exit 1; }
}
build "$bin" "$tables"
[ -z "$base" ] || build "$base" "$base_tables"
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
# Runs the builds in turn, RUNS times each, and prints each one's median
# wall and CPU (user + system) time and their ratios to this build's.
python3 - "$RUNS" "$BATCH_RUNS" "$work" "$bin" "$tables" "$base" "$base_tables" <<'PY'
import os, statistics, subprocess, sys, time
runs, batch_runs, work, bin_, tables, base, base_tables = sys.argv[1:]
builds = [("this build", bin_, tables)] + ([("base", base, base_tables)] if base else [])

def timed(argv, out):
    t0 = time.perf_counter_ns()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e9
    if status != 0:
        sys.exit(f"{argv[0]} exited with status {status}")
    return wall, ru.ru_utime + ru.ru_stime

def report(title, times, unit, scale):
    print(title)
    ref = None
    for name, _, _ in builds:
        wall = statistics.median(t[0] for t in times[name])
        cpu = statistics.median(t[1] for t in times[name])
        ref = ref or (wall, cpu)
        ratio = "" if name == builds[0][0] else \
            f"  (this build / base: wall {ref[0] / wall:.3f}, CPU {ref[1] / cpu:.3f})"
        print(f"  {name}: median wall {wall * scale:.2f} {unit}, CPU {cpu * scale:.2f} {unit}"
              f" ({len(times[name])} runs){ratio}")
    return statistics.median(t[0] for t in times[builds[0][0]])

def turns(i):
    """The builds in the order of pair `i`: who goes first alternates."""
    return builds if i % 2 == 0 else builds[::-1]

singles = open(f"{work}/single.txt").read().splitlines()
times = {name: [] for name, _, _ in builds}
for i in range(int(runs)):
    for name, b, t in turns(i):
        with open(os.devnull, "w") as null:
            p = singles[i % len(singles)]
            times[name].append(timed([b, "query", p, "--tables", t, "--json"], null))
report("single queries (whole process, tables in page cache), runs interleaved:", times, "ms", 1e3)

times = {name: [] for name, _, _ in builds}
for i in range(int(batch_runs)):
    for name, b, t in turns(i):
        with open(f"{work}/out.jsonl", "w") as out:
            times[name].append(timed([b, "query", "--batch", f"{work}/batch.txt", "--tables", t], out))
        if name == builds[0][0]:
            lines = open(f"{work}/out.jsonl").readlines()
            answers = len(lines)
            table = sum('"source":"table"' in l for l in lines)
wall = report(f"batch of {answers} positions (value and every move's value, no PV;"
              f" {table} from the tables), runs interleaved:", times, "s", 1)
print(f"  this build: {answers / wall / 1e6:.2f} M positions/s"
      " (whole process: parse, probe, JSON)")
PY
