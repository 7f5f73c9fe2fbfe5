#!/usr/bin/env bash
# How fast one unit of a distributed solve runs on several search threads:
# the speed a worker could give the units the search waits on by searching
# each on more than one core. Records a run first (`kalah-cluster solve
# --local`, one process; resumed, so a finished run costs nothing), then
# re-solves one recorded test in EVERY from an empty table on each thread
# count (cluster/examples/unit_threads.rs).
#
#   scripts/bench_unit_threads.sh [--pits M] [--seeds N] [--empty-capture]
#                                 [--standard] [--table-seeds K] [--tables DIR] [--work DIR]
#                                 [--unit-budget NODES] [--every N]
#
# Default: Kalah(6,5) empty capture over 28-seed tables (built when
# missing: minutes, about 2 GB), unit budget 300,000, one test in 20.
# THREADS   thread counts, comma-separated (default 1,2,4,8,16);
# REPEAT    rounds (default 3): each runs every count in turn; medians;
# TT_MB     each count's table, emptied before each unit (default 64);
# BIN_DIR   where prebuilt `kalah-cluster` is, with `unit_threads` beside it
#           or in its examples/ (a machine without cargo: carry
#           target/release/kalah-cluster and target/release/examples/unit_threads,
#           then BIN_DIR=target/release); default: built here.
# On fewer cores than threads the speedup says little; the node ratio
# still measures what the parallel search adds.
set -euo pipefail
cd "$(dirname "$0")/.."

pits=6 seeds=5 table_seeds=28 budget=300000 every=20 work= ec=1
tables=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pits|-m) pits=$2; shift 2 ;;
        --seeds|-n) seeds=$2; shift 2 ;;
        --table-seeds) table_seeds=$2; shift 2 ;;
        --unit-budget) budget=$2; shift 2 ;;
        --every) every=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --tables) mkdir -p "$2"; tables=(--tables "$2"); shift 2 ;;
        --empty-capture) ec=1; shift ;;
        --standard) ec=0; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "bench_unit_threads.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
rules=std
game=(--pits "$pits" --seeds "$seeds" --table-seeds "$table_seeds" "${tables[@]}")
if [ "$ec" = 1 ]; then
    rules=ec
    game+=(--empty-capture)
fi
work=${work:-target/cluster/unit-threads-$pits-$seeds-$rules-k$table_seeds}

if [ -z "${BIN_DIR:-}" ]; then
    cargo build --release --quiet -p kalah-cluster
    cargo build --release --quiet -p kalah-lab --example unit_threads
    BIN_DIR=target/release
    units=target/release/examples/unit_threads
else
    units=$BIN_DIR/examples/unit_threads
    [ -x "$units" ] || units=$BIN_DIR/unit_threads
fi
cluster=$BIN_DIR/kalah-cluster

# The tables' directory, as `kalah-cluster prepare` says it.
dir=$("$cluster" prepare "${game[@]}" 2>&1 | tee /dev/stderr | sed -n 's/.* ready in //p' | tail -1)
if [ -z "$dir" ]; then
    echo "bench_unit_threads.sh: no tables prepared (see above)" >&2
    exit 1
fi
"$cluster" solve "${game[@]}" --work "$work" --unit-budget "$budget" --cut-early 2 --local \
    --tt-mb 256 >&2
"$units" "$work" "$dir" "$every" "${THREADS:-1,2,4,8,16}" "${REPEAT:-3}" "${TT_MB:-64}"
