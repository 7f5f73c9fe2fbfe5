#!/usr/bin/env bash
# How the search scales with threads (release): for each thread count, the
# search seconds (tables loaded before the clock starts), nodes, nodes/s,
# speedup and node overhead against one thread.
#
#   scripts/bench_threads.sh                 # Kalah(6,4) STD (18-seed tables), EC (20)
#   scripts/bench_threads.sh --big           # and Kalah(6,5) EC with 24-seed tables
#   scripts/bench_threads.sh --only-big      # Kalah(6,5) EC alone
#   scripts/bench_threads.sh --tables DIR    # tables in DIR (built there when missing;
#                                            # default: a temporary directory, removed after)
#   THREADS="1 2 16" REPEAT=3 scripts/bench_threads.sh
#
# THREADS   thread counts (default 1 2 4 8 16, then doubling up to the
#           machine's cores, and the core count itself);
# REPEAT    rounds (default 1): every round runs every thread count in turn,
#           so that a shared machine's slow phases fall on all alike; the
#           figures are the medians;
# TT_MB     transposition table MiB (default 64 for Kalah(6,4), 2048 for
#           Kalah(6,5), as `kalah solve` picks).
#
# On fewer cores than threads the speedup says little, but the node
# overhead still measures the search overhead of the parallel scheme.
set -euo pipefail
cd "$(dirname "$0")/.."

big=0
small=1
dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --big) big=1 ;;
    --only-big)
        big=1
        small=0
        ;;
    --tables)
        dir=${2:?--tables needs a directory}
        shift
        ;;
    *)
        echo "unknown argument '$1' (--big, --only-big, --tables DIR)" >&2
        exit 2
        ;;
    esac
    shift
done
if [[ -z "$dir" ]]; then
    dir=$(mktemp -d /tmp/kalah-bench-threads.XXXXXX)
    trap 'rm -rf "$dir"' EXIT
fi
REPEAT=${REPEAT:-1}
cores=$(nproc)
if [[ -z "${THREADS:-}" ]]; then
    THREADS="1 2 4 8 16"
    t=32
    while ((t < cores)); do
        THREADS+=" $t"
        t=$((t * 2))
    done
    ((cores > 16)) && [[ " $THREADS " != *" $cores "* ]] && THREADS+=" $cores"
fi
[[ " $THREADS " == *" 1 "* ]] || THREADS="1 $THREADS"

cargo build --release -q
cargo build --release -q -p kalah-solver --example bench_search
TARGET=${CARGO_TARGET_DIR:-target}/release
BIN=$TARGET/examples/bench_search

# tables RULES K: builds tiers 0..=K for 6 houses into $dir (kept if there).
tables() {
    local flag=()
    [[ $1 == ec ]] && flag=(--empty-capture)
    local log
    log=$("$TARGET/kalah" build --pits 6 --max-seeds "$2" --tables "$dir" "${flag[@]}" 2>&1) || {
        echo "$log" >&2
        exit 1
    }
}

# bench M N RULES K TT: the table of one game.
bench() {
    local m=$1 n=$2 rules=$3 k=$4 tt=$5 out
    out=$(mktemp -d)
    tables "$rules" "$k"
    for _ in $(seq "$REPEAT"); do
        for t in $THREADS; do
            line=$("$BIN" "$m" "$n" "$rules" "$t" "$tt" "tables=$dir" "table-seeds=$k" 2>/dev/null)
            sed -E 's/.* value ([-+0-9]+) time ([0-9.]+)s nodes ([0-9]+).*/\1 \2 \3/' <<<"$line" >>"$out/$t"
        done
    done
    echo
    echo "Kalah($m,$n) $rules, $k-seed tables, ${tt} MiB table, $cores cores, median of $REPEAT"
    printf '%7s %6s %9s %10s %10s %8s %8s\n' threads value search_s nodes nodes/s speedup nodes/1t
    for t in $THREADS; do
        sort -k2 -g "$out/$t" | awk -v t="$t" '{v[NR]=$1; s[NR]=$2; n[NR]=$3} END {
            m = int((NR + 1) / 2); printf "%s %s %s\n", t, v[m], s[m]; }' >>"$out/time"
        sort -k3 -g "$out/$t" | awk '{n[NR]=$3} END { print n[int((NR + 1) / 2)] }' >>"$out/nodes"
    done
    paste -d' ' "$out/time" "$out/nodes" | awk '
        NR == 1 { s1 = $3; n1 = $4 }
        { printf "%7d %6s %9.3f %9.1fM %9.2fM %7.2fx %7.2fx\n",
            $1, $2, $3, $4 / 1e6, $4 / $3 / 1e6, s1 / $3, $4 / n1 }'
    rm -rf "$out"
}

if ((small)); then
    bench 6 4 std 18 "${TT_MB:-64}"
    bench 6 4 ec 20 "${TT_MB:-64}"
fi
if ((big)); then
    bench 6 5 ec 24 "${TT_MB:-2048}"
fi
