#!/usr/bin/env bash
# Search benchmark (release): Kalah(6,4) EC and STD without endgame tables,
# 1 and 2 threads, then the effect of each enhancement switch on a smaller
# game. Prints one line a run: value, seconds, nodes, nodes/s, MTD(f) tests.
#
#   scripts/bench_search.sh            # Kalah(6,4), 1 and 2 threads
#   scripts/bench_search.sh switches   # each switch flipped, Kalah(5,4)/(4,4) STD
#   scripts/bench_search.sh 6 5        # another start, 1 and 2 threads
#   TT_MB=2048 REPEAT=3 scripts/bench_search.sh
#
# Timings on a shared machine are noisy: compare node counts, and take the
# median of REPEAT runs for seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
TT_MB=${TT_MB:-1024}
REPEAT=${REPEAT:-1}
cargo build --release -q -p kalah-solver --example bench_search
BIN="${CARGO_TARGET_DIR:-target}/release/examples/bench_search"

run() { for _ in $(seq "$REPEAT"); do "$BIN" "$@"; done; }

if [[ "${1:-}" == switches ]]; then
    for sw in "" no-tt-move no-futility etc etc-min=24 no-parity guess0; do
        # shellcheck disable=SC2086
        run 5 4 std 1 256 $sw
    done
    # Without ordering the search is 7x to 200x bigger: a smaller game.
    for sw in "" no-ordering plain; do
        # shellcheck disable=SC2086
        run 4 4 std 1 256 $sw
    done
    exit 0
fi
M=${1:-6}
N=${2:-4}
for rules in ec std; do
    for threads in 1 2; do
        run "$M" "$N" "$rules" "$threads" "$TT_MB"
    done
done
