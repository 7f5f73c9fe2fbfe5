#!/usr/bin/env bash
# One distributed solve on this machine, through the real engine: Open MPI
# starts W worker ranks and one coordinator rank of `kalah-cluster solve`.
#
#   scripts/cluster-local.sh --pits M --seeds N [--empty-capture] --workers W [--json]
#                         [--work DIR] [any other `kalah-cluster solve` flag]
#
# --workers W is the worker ranks; with `--rank-workers K` each runs K
# workers on one shared table (W x K workers in all).
#
# The endgame tables are prepared first (built when missing, in
# $KALAH_TABLES or the default directory), then every rank maps them.
# The work directory (default target/cluster/M-N-RULES) holds the run's
# state: run the same command again after a kill and it resumes.
# Prints `kalah solve`'s answer (with --json its JSON fields) plus the
# units and the sum of their nodes. Needs mpirun (Debian: openmpi-bin,
# libopenmpi-dev) and libclang (bindgen) to build.
set -euo pipefail
cd "$(dirname "$0")/.."

pits=6 seeds= workers=4 work= ec=0
game=() rest=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pits|-m) pits=$2; shift 2 ;;
        --seeds|-n) seeds=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --empty-capture) ec=1; game+=("$1"); shift ;;
        --end|--tables|--table-seeds) game+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) rest+=("$1"); shift ;;
    esac
done
if [ -z "$seeds" ]; then
    echo "cluster-local.sh: --seeds N is required (see --help)" >&2
    exit 2
fi
case "$workers" in
    ''|*[!0-9]*|0) echo "cluster-local.sh: --workers $workers: a worker count of at least 1" >&2; exit 2 ;;
esac
if ! command -v mpirun >/dev/null; then
    echo "cluster-local.sh: mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev)" >&2
    exit 2
fi
rules=std
[ "$ec" = 1 ] && rules=ec
work=${work:-target/cluster/$pits-$seeds-$rules}

cargo build --release --quiet -p kalah-cluster --features mpi
bin=target/release/kalah-cluster
"$bin" prepare --pits "$pits" --seeds "$seeds" "${game[@]}" >&2

root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
# --oversubscribe: more ranks than cores is fine (the coordinator sleeps
# between messages); --bind-to none: let the kernel spread the workers.
exec mpirun "${root[@]}" --oversubscribe --bind-to none -n $((workers + 1)) \
    "$bin" solve --pits "$pits" --seeds "$seeds" "${game[@]}" --work "$work" "${rest[@]}"
