#!/usr/bin/env bash
# Replays a recorded distributed run (its work directory) on simulated
# workers: the speedup curve, what bounds it, and predicted wall times.
#
#   scripts/dist-sim.sh [--work DIR] [--rate NODES_PER_S] [--latency S]
#                       [--growth G] [--workers 1,8,64,512,4096] [--json]
#
# Default work directory: target/dist/6-5-ec (what
# `scripts/dist-local.sh --pits 6 --seeds 5 --empty-capture` writes).
# The rate defaults to the recorded units' own nodes over seconds (on a
# shared machine, pass the one-core rate of `kalah solve --threads 1`);
# the latency to 100 us (`kalah-dist ping` measures the real one).
# --growth G adds the prediction for a game G times the work (for
# Kalah(6,6) from Kalah(6,5), see README "Running on a cluster").
set -euo pipefail
cd "$(dirname "$0")/.."
work=target/dist/6-5-ec
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --work) work=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
cargo build --release --quiet -p kalah-dist
exec target/release/kalah-dist simulate --work "$work" "${args[@]}"
