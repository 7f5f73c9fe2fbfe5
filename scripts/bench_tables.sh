#!/usr/bin/env bash
# Benchmark of the endgame-table builder (6 houses).
#
#   scripts/bench_tables.sh [K] [DIR] [RULES...]
#
# K      seeds on the board, tiers 0..=K are built (default 22: 548.4 M boards,
#        the default size of `kalah solve`)
# DIR    scratch directory for the tables (default /tmp/kalah-bench-tables;
#        wiped before every run)
# RULES  any of: ec std (default: ec std)
#
# For every rule set: a build with 1 thread and one with 2 threads, each from
# an empty directory; reports wall seconds, boards/s, CPU seconds, peak memory
# (max RSS from /usr/bin/time -v) against the size of the tables, and the
# speedup from 1 to 2 threads. Set THREADS="2" to skip the 1-thread runs
# (e.g. for K=24). The machine may be shared: CPU seconds are less noisy
# than wall seconds; take medians over repeated runs.
set -euo pipefail
K=${1:-22}
DIR=${2:-/tmp/kalah-bench-tables}
shift $(( $# > 2 ? 2 : $# )) || true
RULES=${*:-ec std}
THREADS=${THREADS:-1 2}
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=${CARGO_TARGET_DIR:-target}/release/kalah
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)"; exit 1; }

printf '%-4s %-3s %7s %9s %12s %8s %10s %10s %8s\n' rules thr K boards wall_s Mpos/s cpu_s rss_MB table_MB
for r in $RULES; do
  flag=""; [ "$r" = ec ] && flag="--empty-capture"
  declare -A wall=()
  for t in $THREADS; do
    rm -rf "$DIR"
    log=$(mktemp)
    /usr/bin/time -v "$BIN" build --pits 6 --max-seeds "$K" $flag --tables "$DIR" --threads "$t" >"$log.out" 2>"$log"
    w=$(grep -E "^done:" "$log.out" | sed -E 's/.* in ([0-9.]+) s .*/\1/')
    boards=$(grep -E "^done:" "$log.out" | sed -E 's/.*\), ([0-9]+) boards built.*/\1/')
    u=$(grep "User time" "$log" | awk '{print $NF}')
    s=$(grep "System time" "$log" | awk '{print $NF}')
    rss=$(grep "Maximum resident" "$log" | awk '{print $NF}')
    tbl=$(du -sb "$DIR" | awk '{print $1}')
    wall[$t]=$w
    awk -v r="$r" -v t="$t" -v k="$K" -v b="$boards" -v w="$w" -v u="$u" -v s="$s" -v rss="$rss" -v tbl="$tbl" 'BEGIN {
      printf "%-4s %-3s %7s %9.1fM %12.2f %8.2f %10.2f %10.1f %8.1f\n", r, t, k, b/1e6, w, b/w/1e6, u+s, rss/1024, tbl/1048576 }'
    rm -f "$log" "$log.out"
  done
  if [ -n "${wall[1]:-}" ] && [ -n "${wall[2]:-}" ]; then
    awk -v a="${wall[1]}" -v b="${wall[2]}" -v r="$r" 'BEGIN { printf "%-4s speedup 1 -> 2 threads: %.2fx\n", r, a/b }'
  fi
  unset wall
done
rm -rf "$DIR"
