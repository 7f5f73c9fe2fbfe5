#!/usr/bin/env bash
# Compact tables (format version 2) against one-byte ones (version 1):
# build cost, identical values, bytes a board, probe cost and search time.
#
#   scripts/compare_tables.sh OLD_KALAH [K] [RULES] [DIR] [RUNS]
#
# OLD_KALAH  a `kalah` binary that writes version 1 tables, built from a
#            commit before the compact format, e.g.
#              git worktree add --detach /tmp/kalah-v1 a92c833
#              (cd /tmp/kalah-v1 && cargo build --release)
#              scripts/compare_tables.sh /tmp/kalah-v1/target/release/kalah
# K          tiers 0..=K of 6 houses (default 22)
# RULES      ec or std (default std)
# DIR        scratch directory (default /tmp/kalah-compare-tables; DIR/v1
#            and DIR/v2 are wiped first and removed at the end)
# RUNS       interleaved runs of each timed step (default 3)
#
# 1. Builds tiers 0..=K with both binaries, interleaved: wall and CPU
#    seconds and peak memory (/usr/bin/time -v), median of RUNS.
# 2. Compares every value of every tier (examples/compact_tables compare:
#    the version 1 file read directly, the version 2 file decoded in full
#    and by random probes) and prints bits a board per tier.
# 3. Random probes/s of tier K in both forms (interleaved rounds).
# 4. Solves Kalah(6,4) over tables of K seeds with both binaries, each
#    on its own format, interleaved: median wall and CPU seconds.
# The machine may be shared: compare CPU seconds and ratios, not walls.
set -euo pipefail
OLD=${1:?usage: scripts/compare_tables.sh OLD_KALAH [K] [RULES] [DIR] [RUNS]}
K=${2:-22}
R=${3:-std}
DIR=${4:-/tmp/kalah-compare-tables}
RUNS=${5:-3}
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet -p kalah-solver --example compact_tables
NEW=${CARGO_TARGET_DIR:-target}/release/kalah
TOOL=${CARGO_TARGET_DIR:-target}/release/examples/compact_tables
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)"; exit 1; }
flag=""; [ "$R" = ec ] && flag="--empty-capture"

# Runs "$@" under GNU time; prints "wall cpu rss_MB".
timed() {
  local log; log=$(mktemp)
  /usr/bin/time -v "$@" >/dev/null 2>"$log"
  awk -F': ' '/Elapsed \(wall/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
              /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
              END { printf "%.2f %.2f %.0f\n", w, u + s, m / 1024 }' "$log"
  rm -f "$log"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== build, tiers 0..=$K, rules $R ($RUNS interleaved runs; wall_s cpu_s rss_MB)"
mkdir -p "$DIR"; : > "$DIR/v1.build"; : > "$DIR/v2.build"
for i in $(seq "$RUNS"); do
  for v in v1 v2; do
    bin=$OLD; [ $v = v2 ] && bin=$NEW
    rm -rf "${DIR:?}/$v"; mkdir -p "$DIR/$v"
    timed "$bin" build --pits 6 --max-seeds "$K" $flag --tables "$DIR/$v" --threads 2 | tee -a "$DIR/$v.build" | sed "s/^/$v run $i: /"
  done
done
for v in v1 v2; do
  printf '%s median: wall %s s, cpu %s s, rss %s MB, files %s MB\n' "$v" \
    "$(cut -d' ' -f1 "$DIR/$v.build" | median)" "$(cut -d' ' -f2 "$DIR/$v.build" | median)" \
    "$(cut -d' ' -f3 "$DIR/$v.build" | median)" \
    "$(du -sb "$DIR/$v" | awk '{ printf "%.1f", $1 / 1048576 }')"
done
rm -f "$DIR/v1.build" "$DIR/v2.build"

echo "== every value, bits a board"
"$TOOL" compare "$DIR/v1" "$DIR/v2" 6 "$R" "$K"

echo "== random probes of tier $K"
"$TOOL" probe "$DIR/v1" "$DIR/v2" 6 "$R" "$K" 5000000 "$((RUNS * 2 + 1))"

echo "== solve Kalah(6,4) over $K-seed tables ($RUNS interleaved runs; wall_s cpu_s rss_MB)"
: > "$DIR/v1.solve"; : > "$DIR/v2.solve"
for i in $(seq "$RUNS"); do
  for v in v1 v2; do
    bin=$OLD; [ $v = v2 ] && bin=$NEW
    timed "$bin" solve --pits 6 --seeds 4 $flag --tables "$DIR/$v" --table-seeds "$K" | tee -a "$DIR/$v.solve" | sed "s/^/$v run $i: /"
  done
done
w1=$(cut -d' ' -f1 "$DIR/v1.solve" | median); w2=$(cut -d' ' -f1 "$DIR/v2.solve" | median)
c1=$(cut -d' ' -f2 "$DIR/v1.solve" | median); c2=$(cut -d' ' -f2 "$DIR/v2.solve" | median)
awk -v w1="$w1" -v w2="$w2" -v c1="$c1" -v c2="$c2" 'BEGIN {
  printf "median: one byte wall %.2f s cpu %.2f s; compact wall %.2f s cpu %.2f s; compact/one byte: wall %.2fx, cpu %.2fx\n", w1, c1, w2, c2, w2 / w1, c2 / c1 }'
rm -f "$DIR/v1.solve" "$DIR/v2.solve"
rm -rf "${DIR:?}/v1" "${DIR:?}/v2"
