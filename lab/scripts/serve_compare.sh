#!/usr/bin/env bash
# Two builds of `kalah serve` under the same load, round after round: each
# round starts one server, runs examples/serve_load against it (64
# keep-alive connections, random in-table positions of up to 22 seeds,
# both rules, 5 s), stops it, then the other, the order alternating.
# Prints each run and the medians of queries a second and p99 for each
# build (lab/journal/service.md, "the client limits under load").
#
#   lab/scripts/serve_compare.sh OLD_KALAH NEW_KALAH TABLES [ROUNDS]
#
# TABLES holds 6-house tables up to 22 seeds of both rules (`kalah build
# --pits 6 --max-seeds 22 [--empty-capture] --tables TABLES`). The load
# generator is target/release/examples/serve_load (`cargo build
# --release --example serve_load`), or LOAD.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 3 ]] || { sed -n '2,16p' "$0"; exit 2; }
old=$1 new=$2 tables=$3 rounds=${4:-8}
load=${LOAD:-target/release/examples/serve_load}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # name, binary
    "$2" serve --bind 127.0.0.1:0 --tables "$tables" >"$out/banner" 2>/dev/null &
    local pid=$!
    until grep -q '^listening on' "$out/banner"; do
        kill -0 "$pid" 2>/dev/null || { echo "$1: the server did not start" >&2; exit 1; }
        sleep 0.01
    done
    local addr
    addr=$(sed -nE 's|^listening on http://([^/]+)/.*|\1|p' "$out/banner")
    sleep 0.5
    echo "$1 $("$load" --addr "$addr" --connections 64 --seconds 5 --pits 6 --max-seeds 22 --rules both 2>&1 | tr '\n' ' ')" | tee -a "$out/runs"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

for i in $(seq "$rounds"); do
    if ((i % 2)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for b in old new; do
    qps=$(grep "^$b " "$out/runs" | sed -E 's/.* ([0-9]+) queries\/s.*/\1/' | median)
    p99=$(grep "^$b " "$out/runs" | sed -E 's/.*p99 ([0-9.]+) ms.*/\1/' | median)
    echo "$b: median $qps queries/s, p99 $p99 ms ($rounds runs)"
done
