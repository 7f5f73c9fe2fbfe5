#!/usr/bin/env bash
# The heavy checks kept out of CI (`#[ignore]`d tests), in release mode:
# Kalah(6,4) values and best first turn by search, every entry of 16-seed
# tables re-derived under both rules. About 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --workspace -- --ignored "$@"
