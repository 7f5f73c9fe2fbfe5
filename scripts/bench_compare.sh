#!/usr/bin/env bash
# Interleaved A/B comparison of search settings (release): runs every
# configuration once per round, REPEAT rounds, then prints each one's median
# seconds and nodes. Interleaving spreads the machine's slow phases over all
# configurations alike; on a shared machine single runs differ by 20%.
#
#   scripts/bench_compare.sh "6 4 std 1 256 tables=tables table-seeds=20" \
#                            "6 4 std 2 256 tables=tables table-seeds=20"
#   REPEAT=7 scripts/bench_compare.sh "6 4 std 2 256 split=6" "6 4 std 2 256"
#
# Each argument is one bench_search command line (see
# solver/examples/bench_search.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-5}
cargo build --release -q -p kalah-solver --example bench_search
BIN="${CARGO_TARGET_DIR:-target}/release/examples/bench_search"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq "$REPEAT"); do
    i=0
    for cfg in "$@"; do
        # shellcheck disable=SC2086
        line=$("$BIN" $cfg 2>/dev/null)
        echo "round $round [$i] $line" >&2
        sed -E 's/.* time ([0-9.]+)s nodes ([0-9]+).*/\1 \2/' <<<"$line" >>"$out/$i"
        i=$((i + 1))
    done
done
i=0
for cfg in "$@"; do
    sort -g "$out/$i" | awk -v cfg="$cfg" '{t[NR]=$1; n[NR]=$2} END {
        m = int((NR + 1) / 2); printf "%-60s median %.3f s (min %.3f, max %.3f), nodes %d\n", cfg, t[m], t[1], t[NR], n[m] }'
    i=$((i + 1))
done
