#!/usr/bin/env bash
# Kalah(6,5) (or Kalah(6,SEEDS)) from the start, both rules, over endgame tables of a given
# depth: one `kalah solve` each under /usr/bin/time -v, then a table of the
# value, nodes, search seconds, wall seconds, CPU seconds (user and
# system) and peak resident memory
# (the figures of lab/journal/search.md, "Search above the tables", and of
# issue 14's goal: EC +12 in at most 60 s, STD +10 in at most 150 s, peak
# at most 16 GiB).
#
#   scripts/bench_65.sh                  # 24-seed tables, both rules
#   TABLE_SEEDS=26 RULES=ec scripts/bench_65.sh
#   THREADS=2 TT_MB=4096 scripts/bench_65.sh
#   SEEDS=4 TABLE_SEEDS=20 scripts/bench_65.sh   # Kalah(6,4): a check in seconds
#   TSV=rows.tsv scripts/bench_65.sh     # also append rows for scripts/cost_model.sh fit
#
# The tables come from $KALAH_TABLES (else tables/) and must be there to
# TABLE_SEEDS: the build is timed apart (`kalah build --pits 6 --max-seeds
# K`, about 2 min for 24 seeds a rule), never inside these figures. A solve
# takes minutes (6 to 15 over 24-seed tables on 2 cores); the machine's
# other load shows in the wall time, not in the nodes.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLE_SEEDS=${TABLE_SEEDS:-24}
RULES=${RULES:-ec std}
THREADS=${THREADS:-0}
SEEDS=${SEEDS:-5}
DIR=${KALAH_TABLES:-tables}
extra=()
if [[ -n ${TT_MB:-} ]]; then extra=(--tt-mb "$TT_MB"); fi
cargo build --release -q
BIN="${CARGO_TARGET_DIR:-target}/release/kalah"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rows=()
for rules in $RULES; do
    flag=()
    if [[ $rules == ec ]]; then flag=(--empty-capture); fi
    # Every tier must be there already: no build inside the timing.
    have=$("$BIN" tables --tables "$DIR" --json | tr '{' '\n' |
        sed -nE "s/.*\"pits\":6,\"rules\":\"$rules\",.*\"complete_up_to\":([0-9]+).*/\1/p")
    if [[ -z $have || $have -lt $TABLE_SEEDS ]]; then
        echo "missing: $rules tables to $TABLE_SEEDS seeds in $DIR (complete to ${have:-none})" >&2
        echo "build them first: $BIN build --pits 6 --max-seeds $TABLE_SEEDS --tables $DIR ${flag[*]}" >&2
        exit 1
    fi
    out=$(/usr/bin/time -v -o "$log" "$BIN" solve --pits 6 --seeds "$SEEDS" "${flag[@]}" \
        --tables "$DIR" --table-seeds "$TABLE_SEEDS" --threads "$THREADS" "${extra[@]}" \
        --json 2>/dev/null)
    field() { sed -E "s/.*\"$1\":(-?[0-9.]+).*/\\1/" <<<"$out"; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
        for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s}' "$log")
    peak=$(awk -F': ' '/Maximum resident set size/ {printf "%.2f", $2 / 1048576}' "$log")
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {printf "%.1f", s}' "$log")
    rows+=("| $rules | $TABLE_SEEDS | $(field value) | $(field nodes) | $(field solve_seconds) | $wall | $cpu | $peak |")
    echo "${rows[-1]}"
    if [[ -n ${TSV:-} ]]; then
        if [[ ! -s $TSV ]]; then
            printf 'game\tposition\trules\tN\tK\tN-K\tvalue\tnodes\tcpu_s\n' >"$TSV"
        fi
        printf '6,%s\tstart\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$SEEDS" "$rules" $((12 * SEEDS)) \
            "$TABLE_SEEDS" $((12 * SEEDS - TABLE_SEEDS)) "$(field value)" "$(field nodes)" "$cpu" >>"$TSV"
    fi
done
echo
echo "Kalah(6,$SEEDS)"
echo "| rules | table seeds | value | nodes | search s | wall s | CPU s | peak GiB |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
