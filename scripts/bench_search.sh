#!/usr/bin/env bash
# Search benchmark (release). Prints one line a run: value, seconds, nodes,
# nodes/s, MTD(f) tests; with REPEAT > 1, then the median seconds and the
# 1 -> 2 thread speedup of the medians.
#
#   scripts/bench_search.sh              # Kalah(6,4) EC and STD, no tables, 1 and 2 threads
#   scripts/bench_search.sh tables 22    # the same with the endgame tables to 22 seeds
#                                        # (built into tables/ first if missing), probed
#                                        # through the mapped files as `kalah solve` does
#                                        # for Kalah(6,4)
#   scripts/bench_search.sh scratch      # `kalah solve` Kalah(6,4) EC and STD from an empty
#                                        # table directory: build + solve seconds, peak memory
#   scripts/bench_search.sh switches     # each switch flipped, Kalah(5,4)/(4,4) STD
#   scripts/bench_search.sh 6 5          # another start, no tables
#   TT_MB=1024 REPEAT=3 scripts/bench_search.sh tables 20
#
# Timings on a shared machine are noisy: compare node counts, and take the
# median of REPEAT runs for seconds (1 and 2 threads run alternately).
# scripts/bench_compare.sh compares any settings the same way;
# scripts/bench_threads.sh measures how the search scales with threads.
set -euo pipefail
cd "$(dirname "$0")/.."
TT_MB=${TT_MB:-64}
REPEAT=${REPEAT:-1}
cargo build --release -q -p kalah-solver --example bench_search
BIN="${CARGO_TARGET_DIR:-target}/release/examples/bench_search"

# run ARGS..: REPEAT runs, their lines, then the median seconds on stdout's
# last line as "median S".
run() {
    local times=()
    for _ in $(seq "$REPEAT"); do
        line=$("$BIN" "$@")
        echo "$line" >&2
        times+=("$(sed -E 's/.* time ([0-9.]+)s.*/\1/' <<<"$line")")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print "median", a[int((NR+1)/2)]}'
}

if [[ "${1:-}" == scratch ]]; then
    cargo build --release -q
    for flag in --empty-capture ""; do
        for _ in $(seq "$REPEAT"); do
            dir=$(mktemp -d)
            # shellcheck disable=SC2086
            /usr/bin/time -f "peak %M KB, wall %e s" "${CARGO_TARGET_DIR:-target}/release/kalah" solve --pits 6 --seeds 4 \
                $flag --tables "$dir" --json 2>&1 | grep -v '^\s*$' | tail -2
            rm -rf "$dir"
        done
    done
    exit 0
fi
if [[ "${1:-}" == switches ]]; then
    for sw in "" no-tt-move no-futility no-probe-cuts no-parity guess0; do
        # shellcheck disable=SC2086
        run 5 4 std 1 256 $sw >/dev/null
    done
    # Without ordering the search is 7x to 200x bigger: a smaller game.
    for sw in "" no-ordering plain; do
        # shellcheck disable=SC2086
        run 4 4 std 1 256 $sw >/dev/null
    done
    exit 0
fi
M=6
N=4
extra=()
if [[ "${1:-}" == tables ]]; then
    K=${2:-22}
    for rules in ec std; do
        flag=$([[ $rules == ec ]] && echo --empty-capture || true)
        # shellcheck disable=SC2086
        cargo run --release -q -- build --pits 6 --max-seeds "$K" --tables tables $flag >/dev/null 2>&1
    done
    extra=(tables=tables "table-seeds=$K" mapped)
elif [[ $# -ge 2 ]]; then
    M=$1
    N=$2
fi
# 1 and 2 threads alternate, REPEAT rounds: the machine's slow phases fall
# on both alike.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for rules in ec std; do
    t1=()
    t2=()
    for _ in $(seq "$REPEAT"); do
        for threads in 1 2; do
            line=$("$BIN" "$M" "$N" "$rules" "$threads" "$TT_MB" "${extra[@]}" 2>/dev/null)
            echo "$line"
            t=$(sed -E 's/.* time ([0-9.]+)s.*/\1/' <<<"$line")
            if [[ $threads == 1 ]]; then t1+=("$t"); else t2+=("$t"); fi
        done
    done
    m1=$(printf '%s\n' "${t1[@]}" | median)
    m2=$(printf '%s\n' "${t2[@]}" | median)
    echo "Kalah($M,$N) $rules: median 1 thread ${m1}s, 2 threads ${m2}s, speedup $(awk "BEGIN {printf \"%.2f\", $m1 / $m2}")x"
done
