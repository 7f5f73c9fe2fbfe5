#!/usr/bin/env bash
# The search's cost against table depth, and what it predicts for
# Kalah(6,6) (README, "Toward Kalah(6,6)").
#
#   scripts/cost_model.sh measure > rows.tsv     # solves, one row each
#   scripts/cost_model.sh fit rows.tsv [MORE..]  # the model and its predictions
#
# `measure` solves, each over tables of several depths K, with one search
# thread (node counts then do not vary from run to run):
#   * Kalah(6,3) and Kalah(6,4) from the start (`kalah solve`);
#   * COUNT_6 balanced Kalah(6,6) positions with at most B seeds in the
#     houses, for each B of BOARD_6 (`solver/examples/late_positions.rs`:
#     random games from the start, stores within 2 of each other), by
#     `kalah query --value-only`.
# Each row: game, position, rules, seeds on the board N, table seeds K,
# N-K, value, nodes, CPU seconds (user and system). `scripts/bench_65.sh`
# with TSV=FILE appends Kalah(6,5) rows in the same form.
#
# `fit` fits, for each rule set, ln(nodes) = a + b(N-K) + cN by least
# squares over the whole games from the start of at least 10^5 nodes
# (smaller searches are mostly start-up), and prints the factor per seed
# of table depth (e^b), per seed of the game at a fixed distance to the
# tables (e^c), each game beside the model, how fast the other positions'
# nodes fall with the depth (the slope check on (6,6)-sized boards), the
# node rate (nodes over CPU seconds, median of the searches above 10^7
# nodes) and the predicted nodes and CPU hours of Kalah(6,6) from the
# start over tables of 30, 32 and 34 seeds.
#
# Settings (environment): KALAH_TABLES (tables to max(K) for both rules
# present), RULES ("ec std"), DEPTHS_3 ("12 14 16 18 20"), DEPTHS_4
# ("18 20 22 24 26 28 30"), DEPTHS_6 ("26 28 30"), BOARD_6 ("52 56"),
# COUNT_6 (3), TT_MB (1024).
set -euo pipefail
cd "$(dirname "$0")/.."

measure() {
    local rules_list=${RULES:-ec std}
    local d3=${DEPTHS_3-12 14 16 18 20} d4=${DEPTHS_4-18 20 22 24 26 28 30}
    local d6=${DEPTHS_6-26 28 30} boards=${BOARD_6-52 56} count=${COUNT_6:-3}
    local tt=${TT_MB:-1024} dir=${KALAH_TABLES:-tables}
    cargo build --release -q
    cargo build --release -q -p kalah-solver --example late_positions
    local bin=target/release/kalah log
    log=$(mktemp)
    trap 'rm -f "$log"' RETURN
    printf 'game\tposition\trules\tN\tK\tN-K\tvalue\tnodes\tcpu_s\n'
    # One row from a JSON answer and the time log.
    row() {
        local game=$1 pos=$2 rules=$3 n=$4 k=$5 json=$6
        local value nodes cpu
        value=$(sed -E 's/.*"value":(-?[0-9]+).*/\1/' <<<"$json")
        nodes=$(sed -E 's/.*"nodes":([0-9]+).*/\1/' <<<"$json")
        cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {printf "%.2f", s}' "$log")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$game" "$pos" "$rules" "$n" "$k" $((n - k)) "$value" "$nodes" "$cpu"
    }
    for rules in $rules_list; do
        local flag=()
        if [[ $rules == ec ]]; then flag=(--empty-capture); fi
        for n in 3 4; do
            local depths=$d3
            if [[ $n == 4 ]]; then depths=$d4; fi
            for k in $depths; do
                local json
                json=$(/usr/bin/time -v -o "$log" "$bin" solve --pits 6 --seeds "$n" "${flag[@]}" \
                    --tables "$dir" --table-seeds "$k" --threads 1 --tt-mb "$tt" --json 2>/dev/null)
                row "6,$n" start "$rules" $((12 * n)) "$k" "$json"
            done
        done
        for b in $boards; do
            while read -r pos; do
                local on_board
                on_board=$(awk '{s = 0; for (i = 1; i <= 13; i++) if (i != 7) s += $i; print s}' <<<"$pos")
                for k in $d6; do
                    local json
                    json=$(/usr/bin/time -v -o "$log" "$bin" query --value-only "${flag[@]}" \
                        --tables "$dir" --table-seeds "$k" --threads 1 --tt-mb "$tt" --json "$pos" 2>/dev/null)
                    row "6,6" "$pos" "$rules" "$on_board" "$k" "$json"
                done
            done < <(target/release/examples/late_positions 6 6 "$rules" "$b" "$count")
        done
    done
}

fit() {
    awk -F'\t' '
    FNR == 1 { next }
    # Whole games from the start: the model.
    $2 == "start" && $8 >= 1e5 {
        r = $3; x = $6; z = $4; y = log($8)
        n[r]++; sx[r] += x; sz[r] += z; sy[r] += y
        sxx[r] += x * x; szz[r] += z * z; sxz[r] += x * z
        sxy[r] += x * y; szy[r] += z * y
        rows[r, n[r]] = x " " z " " y " " $1 " " $5
    }
    # Other positions: how their nodes fall with the depth, position by
    # position (a check of the model slope on boards of other sizes).
    $2 != "start" && $8 >= 1e5 {
        key = $3 SUBSEP $2
        if (!(key in pn)) { order[$3, ++npos[$3]] = $2 }
        pn[key]++; px[key] += $5; py[key] += log($8)
        pxx[key] += $5 * $5; pxy[key] += $5 * log($8)
    }
    $8 >= 1e7 && $9 > 0 { rate[$3, ++nr[$3]] = $8 / $9 }
    function det3(a, b, c, d, e, f, g, h, i) {
        return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    }
    function median(list, m,   i, j, t) {
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
        return m == 0 ? 0 : (m % 2 ? list[(m + 1) / 2] : (list[m / 2] + list[m / 2 + 1]) / 2)
    }
    END {
        for (r in n) {
            if (n[r] < 4) { printf "%s: %d whole-game rows, too few to fit\n", r, n[r]; continue }
            # Normal equations of y = a + b x + c z.
            D = det3(n[r], sx[r], sz[r], sx[r], sxx[r], sxz[r], sz[r], sxz[r], szz[r])
            if (D == 0) { printf "%s: the rows do not separate N-K from N\n", r; continue }
            a = det3(sy[r], sx[r], sz[r], sxy[r], sxx[r], sxz[r], szy[r], sxz[r], szz[r]) / D
            b = det3(n[r], sy[r], sz[r], sx[r], sxy[r], sxz[r], sz[r], szy[r], szz[r]) / D
            c = det3(n[r], sx[r], sy[r], sx[r], sxx[r], sxy[r], sz[r], sxz[r], szy[r]) / D
            printf "%s: %d whole games from the start; ln(nodes) = %.3f + %.4f (N-K) + %.4f N\n", r, n[r], a, b, c
            printf "  x%.3f nodes per seed of table depth removed, x%.3f per seed of the game at the same distance\n", exp(b), exp(c)
            ss = 0
            for (i = 1; i <= n[r]; i++) {
                split(rows[r, i], p, " ")
                e = p[3] - (a + b * p[1] + c * p[2]); ss += e * e
                printf "    Kalah(%s) over %2d: %.3g nodes, model %.3g (x%.2f)\n", p[4], p[5], exp(p[3]), exp(p[3] - e), exp(e)
            }
            printf "  rms error x%.2f\n", exp(sqrt(ss / n[r]))
            m = 0
            for (i = 1; i <= npos[r]; i++) {
                key = r SUBSEP order[r, i]
                if (pn[key] < 2) continue
                slope = (pn[key] * pxy[key] - px[key] * py[key]) / (pn[key] * pxx[key] - px[key] * px[key])
                sl[++m] = exp(-slope)
            }
            if (m > 0) printf "  other positions (%d): x%.3f nodes per seed of table depth (median)\n", m, median(sl, m)
            for (i = 1; i <= nr[r]; i++) rr[i] = rate[r, i]
            nps = median(rr, nr[r])
            printf "  node rate %.2f M a CPU-second (median of %d searches of 10^7 nodes or more)\n", nps / 1e6, nr[r]
            for (k = 30; k <= 34; k += 2) {
                nodes = exp(a + b * (72 - k) + c * 72)
                printf "  Kalah(6,6) over %d-seed tables: %.2g nodes, %.3g CPU-hours at that rate\n", k, nodes, (nps > 0 ? nodes / nps / 3600 : 0)
            }
        }
    }' "$@"
}

case "${1:-}" in
    measure) measure ;;
    fit)
        shift
        if [[ $# -eq 0 ]]; then
            echo "usage: scripts/cost_model.sh fit ROWS.tsv [MORE.tsv..]" >&2
            exit 2
        fi
        fit "$@"
        ;;
    *)
        sed -n '2,31p' "$0" >&2
        exit 2
        ;;
esac
