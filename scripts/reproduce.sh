#!/usr/bin/env bash
# Reproduce the published Kalah results (default range: m <= 6, n <= 4, both
# rules, with the pie-rule column) and write, in the output directory,
#   reproduce.md    the table beside the published values
#   reproduce.json  the same, for scripts
#   reproduce.svg   the values as a heat map (m by n, one per rule)
#
# Usage: scripts/reproduce.sh [--out DIR | --update-results] [kalah reproduce flags...]
#   --out DIR          write there (default: target/reproduce, untracked)
#   --update-results   write to results/, the committed reference copy; only
#                      for a deliberate update, to be reviewed and committed
# Other arguments go to `kalah reproduce` (e.g. --full, --max-pits 5).
# Prints the table as it goes, then wall time and peak memory, then whether
# the values equal those in the committed results/reproduce.md.
# Exit status 1 if any value or perfect game disagrees with the literature,
# or a value differs from the committed reference.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/reproduce
case "${1:-}" in
  --out)
    [ $# -ge 2 ] || { echo "reproduce.sh: --out needs a directory" >&2; exit 2; }
    out=$2
    shift 2
    ;;
  --update-results)
    out=results
    shift
    ;;
esac
# KALAH=path runs that binary instead of building the release one (the
# test of this script does so).
if [ -z "${KALAH:-}" ]; then
  cargo build --release --quiet
  KALAH=target/release/kalah
fi
mkdir -p "$out"
status=0
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "wall %e s, peak memory %M KiB" \
    "$KALAH" reproduce --out "$out" "$@" || status=$?
else
  "$KALAH" reproduce --out "$out" "$@" || status=$?
fi
echo "wrote $out/reproduce.md, $out/reproduce.json, $out/reproduce.svg"
# Values against the committed reference, row by row (m, n, rule: ours,
# published, check); seconds, node counts and which of equal best turns was
# found may differ from run to run and are not compared.
if [ "$out" != results ] && [ -f results/reproduce.md ]; then
  awk -F'|' '
    function key() { return $2 "|" $3 "|" $4 }
    function vals() { return $5 "|" $6 "|" $8 }
    $2 ~ /^ [0-9]+ $/ && FNR == NR { ref[key()] = vals(); next }
    $2 ~ /^ [0-9]+ $/ {
      n++
      if (!(key() in ref)) { extra++; next }
      if (ref[key()] != vals()) { bad++; print "  differs: m n rule =" key() ": now" vals() ", committed" ref[key()] }
    }
    END {
      printf "against results/reproduce.md: %d rows compared, %d differ, %d not in it\n", n - extra, bad, extra
      exit bad > 0
    }' results/reproduce.md "$out/reproduce.md" || status=1
fi
exit "$status"
