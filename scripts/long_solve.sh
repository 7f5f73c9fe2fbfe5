#!/usr/bin/env bash
# A long solve carried across stretches of work (README, "Kalah(6,6)").
#
#   scripts/long_solve.sh start  [ec|std]   # tables, then the run in the background
#   scripts/long_solve.sh stop   [ec|std]   # SIGTERM, wait; its records packed
#   scripts/long_solve.sh status [ec|std]   # where it stands (kalah-cluster status --first-turns)
#   scripts/long_solve.sh wait   [ec|std]   # wait for the run to end
#   scripts/long_solve.sh finish [ec|std]   # after the last stretch: the result and its certificate
#   scripts/long_solve.sh turns  [ec|std]   # every first turn, over the same work directory, in the background
#   scripts/long_solve.sh finish-turns [ec|std]  # the first-turn table, its JSON and a certificate a turn
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
# `turns` runs `kalah-cluster turns` (the same flags as the solve) the
# same way: niced, in the background, stopped by `stop` (SIGTERM, the
# records packed), resumed by `turns` again; its log is DIR/turns.log,
# its stretches go to DIR/turns-stretches.tsv. It reuses every unit the
# solve from the start answered (docs/long-solve.md, "The first turns").
# `finish-turns`, once a turns stretch has ended with every turn, writes
# results/kalah-M-N-first-turns-RULES.json (each turn's value, perfect
# game, units and nodes new and reused, CPU time; the stretches' CPU
# hours), the RULES section of results/kalah-M-N-first-turns.md, and the
# certificate of each turn, derived again from the records
# (kalah-cluster certificate --first-turns), under
# results/first-turns-M-N-RULES/TURN.certificate.jsonl.gz.
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
start | turns)
    if pid=$(stretch_pid); then
        echo "long_solve.sh: a stretch already runs on $work (pid $pid)" >&2
        exit 1
    fi
    cargo build --release -q -p kalah -p kalah-cluster
    mkdir -p "$work"
    "$bin/kalah" build --pits "$pits" --max-seeds "$k" "${flag[@]}" --tables "$tables"
    if [[ $cmd == start ]]; then
        sub=solve out=stretch tsv=stretches.tsv
    else
        sub=turns out=turns tsv=turns-stretches.tsv
    fi
    began=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    (
        set +e
        /usr/bin/time -f '%e %U %S %M' -o "$work/$out.time" \
            nice -n "${NICE:-10}" "$bin/kalah-cluster" "$sub" --local --pack --json \
            --pits "$pits" --seeds "$seeds" "${flag[@]}" --tables "$tables" --table-seeds "$k" \
            --threads "${THREADS:-2}" --tt-mb "${TT_MB:-8192}" --unit-budget "${BUDGET:-20000000}" \
            --frontier "${FRONTIER:-8}" --progress 60 --work "$work" \
            > "$work/$out.out" 2> "$work/$out.log"
        status=$?
        read -r wall user sys rss < <(tail -1 "$work/$out.time") || true
        [[ -f $work/$tsv ]] ||
            printf 'start\tend\twall_s\tuser_s\tsys_s\tpeak_rss_kib\ttable_seeds\texit\n' > "$work/$tsv"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$began" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
            "$wall" "$user" "$sys" "$rss" "$k" "$status" >> "$work/$tsv"
        rm -f "$work/stretch.pid"
    ) &
    echo $! > "$work/stretch.pid"
    echo "long_solve.sh: $sub stretch started on $work (log: $work/$out.log)"
    ;;
stop)
    if ! pid=$(stretch_pid); then
        echo "long_solve.sh: no stretch runs on $work"
        exit 0
    fi
    # The solver itself (its command line starts with its own path), not
    # the /usr/bin/time that waits for it and writes the stretch's times.
    pkill -TERM -f "^[^ ]*kalah-cluster (solve|turns) .*--work $work" || true
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    for log in stretch turns; do
        [[ -f $work/$log.log ]] && tail -3 "$work/$log.log"
    done
    [[ -f $work/stretches.tsv ]] && tail -1 "$work/stretches.tsv"
    [[ -f $work/turns-stretches.tsv ]] && tail -1 "$work/turns-stretches.tsv"
    true
    ;;
wait)
    while pid=$(stretch_pid); do sleep 10; done
    ;;
status)
    "$bin/kalah-cluster" status --first-turns --work "$work" --tables "$tables"
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
finish-turns)
    if [[ ! -s $work/turns.out ]]; then
        echo "long_solve.sh: $work/turns.out holds no answer: the turns run has not ended with every turn" >&2
        exit 1
    fi
    certs=results/first-turns-$pits-$seeds-$rules
    mkdir -p "$certs"
    "$bin/kalah-cluster" certificate --first-turns --work "$work" --tables "$tables" --out "$certs"
    json=results/kalah-$pits-$seeds-first-turns-$rules.json
    md=results/kalah-$pits-$seeds-first-turns.md
    python3 - "$work/turns.out" "$work/turns-stretches.tsv" "$json" "$md" "$rules" "$certs" <<'PY'
import json, re, sys
out, tsv, json_path, md_path, rules, certs = sys.argv[1:]
answer = json.loads(open(out).read())
rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
cpu = sum(float(r[3]) + float(r[4]) for r in rows if r[3] not in ("", "-"))
wall = sum(float(r[2]) for r in rows if r[2] not in ("", "-"))
answer.update(stretches=len(rows), cpu_hours=round(cpu / 3600, 3), wall_hours=round(wall / 3600, 3),
              certificates=certs)
open(json_path, "w").write(json.dumps(answer, indent=1) + "\n")
name = {"ec": "empty capture", "std": "standard rule"}[rules]
lines = [f"## Kalah({answer['pits']},{answer['seeds']}), {name}", "",
         "Values for the first player (South), perfect play after the turn. "
         "Nodes and CPU time: the units this turn searched; reused: units of its proof "
         "answered before (by the solve from the start or an earlier turn).", "",
         "| turn | value | nodes new | units new | units reused | nodes reused | CPU time (h) | certificate |",
         "|---|---:|---:|---:|---:|---:|---:|---|"]
for t in answer["turns"]:
    lines.append(f"| {t['turn']} | {t['value']:+d} | {t['nodes_new']} | {t['units_new']} | "
                 f"{t['units_reused']} of {t['proof_units']} | {t['nodes_reused']} | "
                 f"{t['seconds_new'] / 3600:.2f} | {certs}/{t['turn']}.certificate.jsonl.gz |")
lines += ["", f"{len(rows)} stretches, {cpu / 3600:.2f} CPU-hours, {wall / 3600:.2f} wall hours. "
          f"Check a turn: `kalah certify {certs}/TURN.certificate.jsonl.gz`.", ""]
section = "\n".join(lines)
try:
    text = open(md_path).read()
except FileNotFoundError:
    text = (f"# The first turns of Kalah({answer['pits']},{answer['seeds']})\n\n"
            "Each turn solved exactly by `scripts/long_solve.sh turns`, over the records of the solve from the start.\n\n")
head = f"## Kalah({answer['pits']},{answer['seeds']}), {name}"
pattern = re.compile(re.escape(head) + r"\n.*?(?=\n## |\Z)", re.S)
text = pattern.sub(lambda _: section.rstrip("\n"), text) if head in text else text.rstrip("\n") + "\n\n" + section
open(md_path, "w").write(text.rstrip("\n") + "\n")
PY
    echo "long_solve.sh: $json, $md and $certs/ written; check a turn: kalah certify $certs/TURN.certificate.jsonl.gz"
    ;;
*)
    echo "long_solve.sh: unknown command '$cmd' (start, turns, stop, status, wait, finish, finish-turns)" >&2
    exit 2
    ;;
esac
