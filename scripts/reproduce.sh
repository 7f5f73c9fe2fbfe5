#!/usr/bin/env bash
# Reproduce the published Kalah results (default range: m <= 6, n <= 4, both
# rules, with the pie-rule column) and write
#   results/reproduce.md    the table beside the published values
#   results/reproduce.json  the same, for scripts
#   results/reproduce.svg   the values as a heat map (m by n, one per rule)
# Extra arguments go to `kalah reproduce` (e.g. --full, --max-pits 5).
# Prints the table as it goes, then wall time and peak memory.
# Exit status 1 if any value or perfect game disagrees with the literature.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
status=0
/usr/bin/time -f "wall %e s, peak memory %M KiB" \
  target/release/kalah reproduce --out results "$@" || status=$?
echo "wrote results/reproduce.md, results/reproduce.json, results/reproduce.svg"
exit "$status"
