#!/usr/bin/env bash
# Two builds of `kalah` answer alike: `kalah solve` (6 games from Kalah(4,3)
# to Kalah(5,4), 4 rule sets, text, --json and --all-moves) and `kalah
# query` (150 random positions of 4-6 houses, both capture rules, text and
# --json), one search thread so that node counts repeat, 12-seed tables;
# outputs compared byte for byte once the timings are taken out (time:,
# M nodes/s, "s to open or build", and the JSON's ms, nodes_per_second,
# *_seconds). Prints each difference and the counts.
#
#   lab/scripts/output_compare.sh OLD_KALAH NEW_KALAH [TABLES]
#
# SKIP_SOLVE=1 compares the queries only.
set -u
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0"; exit 2; }
OLD=$1 NEW=$2 T=${3:-$(mktemp -d)}
mkdir -p "$T"
strip() { sed -E -e '/^time:/d' -e 's/  time: [0-9.]+ ms//' -e 's/\([0-9.]+ s to open or build\)//' -e 's/\([0-9.]+ M nodes\/s, /(/' -e 's/"(nodes_per_second|solve_seconds|build_seconds|ms)":[0-9.e+-]+,?//g'; }
same=0; diff=0
cmp() { # label, args...
  local label=$1; shift
  a=$($OLD "$@" 2>&1 | strip); b=$($NEW "$@" 2>&1 | strip)
  if [[ "$a" == "$b" ]]; then same=$((same+1)); else diff=$((diff+1)); echo "DIFF $label: $*"; diff <(echo "$a") <(echo "$b") | head -6; fi
}
[[ -n ${SKIP_SOLVE:-} ]] || for g in "4 3" "4 4" "5 3" "4 5" "6 3" "5 4"; do
  set -- $g
  for r in "" "--empty-capture" "--end delayed" "--end no-sweep"; do
    for fmt in "" "--json" "--all-moves"; do
      cmp solve solve --pits $1 --seeds $2 $r --tables "$T" --table-seeds 12 --threads 1 $fmt
    done
  done
done
echo "solve: $same identical, $diff different"
s0=$same; d0=$diff
# 150 random positions (seeded), queried in text and JSON under both capture rules.
python3 - <<'PY' > "$T/positions.txt"
import random
r = random.Random(52)
for _ in range(150):
    pits = r.choice([4,5,6]); seeds = r.randint(4, 26)
    b = [0]*(2*pits)
    for _ in range(seeds): b[r.randrange(2*pits)] += 1
    s = r.randint(0,10); n = r.randint(0,10)
    print(" ".join(map(str, b[:pits] + [s] + b[pits:] + [n])) + " " + r.choice("SN"))
PY
while read -r p; do
  for r in "" "--empty-capture"; do
    cmp query query "$p" $r --tables "$T" --table-seeds 12 --threads 1
    cmp query-json query "$p" $r --tables "$T" --table-seeds 12 --threads 1 --json
  done
done < "$T/positions.txt"
echo "query: $((same-s0)) identical, $((diff-d0)) different"
[[ $diff == 0 ]]
