#!/usr/bin/env bash
# What a stop costs a long solve: the same `solve --local` run to the
# end, once uninterrupted and once stopped by SIGTERM every STOP seconds
# and resumed from its records (lab/journal/cluster.md, "what a stop
# costs a long solve"). Prints each run's stretches and its work
# directory's status (nodes, units, abandoned units).
#
#   lab/scripts/stop_cost.sh [STOP]      # default 6 s
#
# Settings (environment): BIN (the cluster binary, default
# target/release/kalah-cluster), TT_MB (4), BUDGET (2000000), OUT (a
# temporary directory).
set -euo pipefail
cd "$(dirname "$0")/../.."
stop=${1:-6}
bin=${BIN:-target/release/kalah-cluster}
tt=${TT_MB:-4} budget=${BUDGET:-2000000}
out=${OUT:-$(mktemp -d)}
target/release/kalah build --pits 6 --max-seeds 14 --empty-capture --tables "$out/tables" >/dev/null
run() { # work dir, seconds between stops (0: none)
    local work=$1 every=$2 n=0
    local cmd=(nice -n 5 "$bin" solve --local --threads 1 --pits 6 --seeds 4 --empty-capture
        --tables "$out/tables" --table-seeds 14 --tt-mb "$tt" --unit-budget "$budget" --work "$work" --json)
    while :; do
        n=$((n + 1))
        if [[ $every == 0 ]]; then "${cmd[@]}" >"$work.out" 2>"$work.err" || true
        else timeout -s TERM "$every" "${cmd[@]}" >"$work.out" 2>"$work.err" || true; fi
        grep -q '"value"' "$work.out" && break
    done
    echo "$(basename "$work"): $n stretches"
    "$bin" status --work "$work" --json
}
run "$out/uninterrupted" 0
run "$out/stopped" "$stop"
