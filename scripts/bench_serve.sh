#!/usr/bin/env bash
# `kalah serve` on loopback (release): how long it takes to start with the
# 22-seed tables of 6 houses (both capture rules) present, and a bounded
# load test of in-table queries: CONNECTIONS keep-alive connections for
# DURATION seconds (examples/serve_load.rs), printing queries a second, p50 and p99.
# The load generator runs on the same cores as the server.
#
#   scripts/bench_serve.sh                      # tables in $KALAH_TABLES (or kalah's default)
#   CONNECTIONS=64 DURATION=5 REPEAT=5 scripts/bench_serve.sh
#
# Missing tables are built first (`kalah build --pits 6 --max-seeds 22`,
# with and without --empty-capture: about a minute each on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-5}
REPEAT=${REPEAT:-5}
cargo build --release -q --bin kalah --example serve_load
BIN="${CARGO_TARGET_DIR:-target}/release"
out=$(mktemp -d)
for rules in "" --empty-capture; do
    # shellcheck disable=SC2086
    "$BIN/kalah" build --pits 6 --max-seeds 22 $rules >"$out/build" 2>&1 || { cat "$out/build" >&2; exit 1; }
done
pid=
stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi; }
trap 'stop; rm -rf "$out"' EXIT

# Starts the server on a free port; sets $pid and $addr, prints the
# seconds from launch to its first line (where it listens: tables open).
start() {
    : >"$out/banner"
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN/kalah" serve --bind 127.0.0.1:0 "$@" >"$out/banner" 2>"$out/stderr" &
    pid=$!
    until grep -q '^listening on' "$out/banner"; do
        kill -0 "$pid" 2>/dev/null || { cat "$out/stderr" >&2; exit 1; }
        sleep 0.002
    done
    t1=$(date +%s.%N)
    addr=$(sed -nE 's|^listening on http://([^/]+)/.*|\1|p' "$out/banner")
    echo "$t1 - $t0" | bc -l
}

for i in $(seq "$REPEAT"); do
    start >>"$out/startup"
    stop
done
sort -g "$out/startup" | awk '{t[NR]=$1} END {m=int((NR+1)/2);
    printf "startup to listening, 6-house 22-seed tables (std and ec): median %.3f s (min %.3f, max %.3f, %d runs)\n", t[m], t[1], t[NR], NR}'
# The load generator is one client address: past kalah serve's 128
# connections a client (--max-connections-per-client), its own
# connections would close one another.
start --max-connections-per-client "$(( CONNECTIONS > 128 ? CONNECTIONS : 128 ))" >/dev/null
grep '^endgame tables' "$out/banner"
"$BIN/examples/serve_load" --addr "$addr" --connections "$CONNECTIONS" \
    --seconds "$DURATION" --pits 6 --max-seeds 22 --rules both
