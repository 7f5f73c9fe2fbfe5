#!/usr/bin/env bash
# `kalah query --value-only` against a full `kalah query` on one 48-seed
# position (Kalah(6,4) after an opening line: 48 seeds in play), median of
# REPEAT runs each, the two interleaved so that the machine's slow phases
# fall on both alike. Prints every run (wall seconds, nodes), the medians,
# their ratio, and whether value-only took at most half the time (the
# goal of issue 14). Both must give the same value.
#
#   scripts/bench_value_only.sh                # standard rules, 22-seed tables
#   RULES=ec TABLE_SEEDS=24 REPEAT=5 LINE=3.6 scripts/bench_value_only.sh
#
# The tables come from $KALAH_TABLES (else tables/), built to TABLE_SEEDS
# first when missing (6 houses, about 20 s for 22 seeds, 2 min for 24).
set -euo pipefail
cd "$(dirname "$0")/.."
RULES=${RULES:-std}
TABLE_SEEDS=${TABLE_SEEDS:-22}
REPEAT=${REPEAT:-5}
LINE=${LINE:-3.6}
DIR=${KALAH_TABLES:-tables}
flag=()
if [[ $RULES == ec ]]; then flag=(--empty-capture); fi
cargo build --release -q
BIN="${CARGO_TARGET_DIR:-target}/release/kalah"
"$BIN" build --pits 6 --max-seeds "$TABLE_SEEDS" --tables "$DIR" "${flag[@]}" >/dev/null 2>&1
pos=$("$BIN" play-line --pits 6 --seeds 4 "${flag[@]}" "$LINE" --json |
    sed -E 's/.*"position":"([^"]*)".*/\1/')
echo "Kalah(6,4) $RULES after $LINE: $pos ($TABLE_SEEDS-seed tables)"

# run MODE..: one query; prints "seconds nodes value".
run() {
    local t0 t1 out
    t0=$(date +%s.%N)
    out=$("$BIN" query $pos "${flag[@]}" --tables "$DIR" --table-seeds "$TABLE_SEEDS" \
        --json "$@" 2>/dev/null)
    t1=$(date +%s.%N)
    local nodes value
    # The answer's own value comes right after "rules"; moves have theirs.
    nodes=$(sed -E 's/.*"nodes":([0-9]+).*/\1/' <<<"$out")
    value=$(sed -E 's/.*"rules":"[^"]*","value":(-?[0-9]+).*/\1/' <<<"$out")
    echo "$(awk "BEGIN {printf \"%.3f\", $t1 - $t0}") $nodes $value"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
full=()
only=()
values=()
for i in $(seq "$REPEAT"); do
    read -r t n v < <(run)
    echo "round $i full:       ${t} s  $n nodes  value $v"
    full+=("$t")
    values+=("$v")
    read -r t n v < <(run --value-only)
    echo "round $i value-only: ${t} s  $n nodes  value $v"
    only+=("$t")
    values+=("$v")
done
if [[ $(printf '%s\n' "${values[@]}" | sort -u | wc -l) -ne 1 ]]; then
    echo "FAIL: the values differ: ${values[*]}"
    exit 1
fi
mf=$(printf '%s\n' "${full[@]}" | median)
mo=$(printf '%s\n' "${only[@]}" | median)
ratio=$(awk "BEGIN {printf \"%.3f\", $mo / $mf}")
echo "median full ${mf} s, value-only ${mo} s: ratio ${ratio}"
if awk "BEGIN {exit !($ratio <= 0.5)}"; then
    echo "ok: value-only takes at most half the time of a full query"
else
    echo "FAIL: value-only takes more than half the time of a full query"
    exit 1
fi
