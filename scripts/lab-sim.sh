#!/usr/bin/env bash
# The laboratory's `kalah-lab simulate`: replays a recorded cluster run
# (its work directory) on simulated workers: the speedup curve, what bounds it (the critical chain of units
# that ran one after another, the longest unit, the idle fraction), and
# predicted wall times.
#
#   scripts/lab-sim.sh [--work DIR] [--workers 1,8,64,512,4096] [--fill]
#                       [--emulate [--budget NODES] [--charge-plans]
#                                  [--records FILE]]
#                       [--fill-threads N] [--fill-cap UNITS] [--tt-mb MB]
#                       [--rate NODES_PER_S] [--latency S] [--waves S]
#                       [--growth G] [--tables DIR] [--json]
#
# Default work directory: target/cluster/6-5-ec (what
# `scripts/cluster-local.sh --pits 6 --seeds 5 --empty-capture` writes).
# A schedule on more workers than the recorded run asks for units that
# run never answered: the table's "guessed" column counts them, and their
# times are guesses. --fill first solves them for real in this process
# (N threads, default all cores; each unit on a solver with an empty
# table, the run's tables, rules and unit budget), stores them in the
# work directory as filled records, and simulates again until no
# schedule guesses a unit (or --fill-cap units were solved: it says so).
# Stopped, it keeps every unit it solved; run it again to go on. It can
# take long: each round prints how many units it will solve; run it
# under `nice` on a shared machine.
# --emulate replays nothing: it runs the solve again on each simulated
# worker count, every unit searched here on its simulated worker's own
# table (--tt-mb MiB each: mind the memory) when the coordinator hands it
# out, held at each step of the simulated clock, so that what units cost
# on many workers is measured, not guessed (work about a real run's on
# that many workers; rate default 2e6). --charge-plans puts the
# coordinator's planning, timed here, on the simulated clock (run one
# emulation at a time: that figure depends on this machine); --records
# FILE writes every emulated unit, one JSON record a line (FILE.P for
# each worker count P when there are several).
# The rate defaults to the recorded units' own nodes over seconds (on a
# shared machine, pass the one-core rate of `kalah solve --threads 1`);
# the latency to 100 us (`kalah-cluster ping` measures the real one).
# --growth G adds the prediction for a game G times the work (for
# Kalah(6,6) from Kalah(6,5), see README "Running on a cluster").
set -euo pipefail
cd "$(dirname "$0")/.."
work=target/cluster/6-5-ec
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --work) work=$2; shift 2 ;;
        -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done
cargo build --release --quiet -p kalah-lab
exec target/release/kalah-lab simulate --work "$work" "${args[@]}"
