#!/usr/bin/env bash
# A long solve carried across stretches of work (README, "Kalah(6,6)").
#
#   scripts/long_solve.sh start  [ec|std]   # tables, then the run in the background
#   scripts/long_solve.sh stop   [ec|std]   # SIGTERM, wait; its records packed
#   scripts/long_solve.sh status [ec|std]   # where it stands (kalah-cluster status)
#   scripts/long_solve.sh wait   [ec|std]   # wait for the run to end
#   scripts/long_solve.sh finish [ec|std]   # after the last stretch: the result and its certificate
#
# The work directory is results/runs/M-N-RULES (committed: run.json,
# segments/*.jsonl.gz, stretches.tsv). `start` builds the release
# binaries, builds the endgame tables when missing (`kalah build`, which
# resumes), then runs
#
#   nice kalah-cluster solve --local --threads T --pack --work DIR ...
#
# under /usr/bin/time, in the background; its log is DIR/stretch.log.
# `stop` sends SIGTERM: the unit in flight is abandoned, every answered
# unit is already on disk, and --pack packs them into the next segment.
# Each stretch appends a line to DIR/stretches.tsv: start and end (UTC),
# wall seconds, user and system CPU seconds, peak RSS (KiB), table seeds,
# exit status. `finish`, once a stretch has ended with the value, writes
# results/certificate-M-N-RULES.jsonl.gz (kalah-cluster certificate) and
# results/solve-M-N-RULES.json: the run's answer (value, perfect game,
# nodes, units) with the stretches' CPU-hours, wall hours, count, table
# depth and peak memory.
#
# Settings (environment): PITS (6), SEEDS (6), TABLE_SEEDS (32), TT_MB
# (8192), THREADS (2), BUDGET (unit budget, 20000000 nodes), FRONTIER (8),
# NICE (10), KALAH_TABLES (the tables' directory; default ../tables, beside
# the checkout, so that a fresh clone in the same place finds them).
set -euo pipefail
cd "$(dirname "$0")/.."

cmd=${1:-status}
rules=${2:-ec}
pits=${PITS:-6} seeds=${SEEDS:-6} k=${TABLE_SEEDS:-32}
case $rules in
ec) flag=(--empty-capture) ;;
std) flag=() ;;
*) echo "long_solve.sh: rules '$rules': ec or std" >&2; exit 2 ;;
esac
work=results/runs/$pits-$seeds-$rules
tables=${KALAH_TABLES:-$(cd .. && pwd)/tables}
bin=target/release

stretch_pid() {
    [[ -f $work/stretch.pid ]] && kill -0 "$(cat "$work/stretch.pid")" 2>/dev/null && cat "$work/stretch.pid"
}

case $cmd in
start)
    if pid=$(stretch_pid); then
        echo "long_solve.sh: a stretch already runs on $work (pid $pid)" >&2
        exit 1
    fi
    cargo build --release -q -p kalah -p kalah-cluster
    mkdir -p "$work"
    "$bin/kalah" build --pits "$pits" --max-seeds "$k" "${flag[@]}" --tables "$tables"
    began=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    (
        set +e
        /usr/bin/time -f '%e %U %S %M' -o "$work/stretch.time" \
            nice -n "${NICE:-10}" "$bin/kalah-cluster" solve --local --pack --json \
            --pits "$pits" --seeds "$seeds" "${flag[@]}" --tables "$tables" --table-seeds "$k" \
            --threads "${THREADS:-2}" --tt-mb "${TT_MB:-8192}" --unit-budget "${BUDGET:-20000000}" \
            --frontier "${FRONTIER:-8}" --progress 60 --work "$work" \
            > "$work/stretch.out" 2> "$work/stretch.log"
        status=$?
        read -r wall user sys rss < <(tail -1 "$work/stretch.time") || true
        [[ -f $work/stretches.tsv ]] ||
            printf 'start\tend\twall_s\tuser_s\tsys_s\tpeak_rss_kib\ttable_seeds\texit\n' > "$work/stretches.tsv"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$began" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
            "$wall" "$user" "$sys" "$rss" "$k" "$status" >> "$work/stretches.tsv"
        rm -f "$work/stretch.pid"
    ) &
    echo $! > "$work/stretch.pid"
    echo "long_solve.sh: stretch started on $work (log: $work/stretch.log)"
    ;;
stop)
    if ! pid=$(stretch_pid); then
        echo "long_solve.sh: no stretch runs on $work"
        exit 0
    fi
    # The solver itself (its command line starts with its own path), not
    # the /usr/bin/time that waits for it and writes the stretch's times.
    pkill -TERM -f "^[^ ]*kalah-cluster solve .*--work $work" || true
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    tail -3 "$work/stretch.log"
    tail -1 "$work/stretches.tsv"
    ;;
wait)
    while pid=$(stretch_pid); do sleep 10; done
    ;;
status)
    "$bin/kalah-cluster" status --work "$work" --tables "$tables"
    ;;
finish)
    if [[ ! -s $work/stretch.out ]]; then
        echo "long_solve.sh: $work/stretch.out holds no answer: the run has not ended with its value" >&2
        exit 1
    fi
    cert=results/certificate-$pits-$seeds-$rules.jsonl.gz
    "$bin/kalah-cluster" certificate --work "$work" --tables "$tables" --out "$cert"
    awk -F'\t' -v answer="$(cat "$work/stretch.out")" '
        NR == 1 { next }
        { n++; wall += $3; if ($4 != "-") { cpu += $4 + $5; timed++ } if ($6 != "-" && $6 > rss) rss = $6; k = $7 }
        END {
            sub(/}[[:space:]]*$/, "", answer)
            printf "%s,\"stretches\":%d,\"stretches_timed\":%d,\"cpu_hours\":%.2f,\"wall_hours\":%.2f,\"peak_rss_gib\":%.2f,\"last_table_seeds\":%d}\n", answer, n, timed, cpu / 3600, wall / 3600, rss / 1048576, k
        }' "$work/stretches.tsv" > "results/solve-$pits-$seeds-$rules.json"
    echo "long_solve.sh: results/solve-$pits-$seeds-$rules.json and $cert written; check: kalah certify $cert"
    ;;
*)
    echo "long_solve.sh: unknown command '$cmd' (start, stop, status, wait, finish)" >&2
    exit 2
    ;;
esac
