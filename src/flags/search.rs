//! The search flags (`--threads`, `--tt-mb`) and the service's search
//! policy they give.

use std::thread;

use clap::Args;
use kalah_solver::search::SearchConfig;

use super::values::{parse_threads, usize_in, MAX_THREADS};
use crate::service::setup::SearchPolicy;

/// How the search runs: threads and table size. (The switches that turn
/// each enhancement off, to measure it, are the benchmark's:
/// `solver/examples/bench_search.rs`.)
#[derive(Args, Clone, Debug)]
pub struct SearchArgs {
    /// Search threads. They split each MTD(f) null-window test: a node
    /// expected to fail low whose first move did not cut off searches its
    /// other moves in parallel (young brothers wait), over one lock-free
    /// transposition table. 0: one a core. At most 1024.
    #[arg(long, default_value_t = default_threads(), value_parser = parse_threads)]
    pub threads: usize,
    /// Transposition table size in MiB (default for `solve`: 64 when the
    /// game has at most 28 seeds more than the endgame tables and only the
    /// value and a perfect game are wanted; else 256 for games of up to 48
    /// seeds, 2048 for larger ones; 256 for `query`).
    /// A table larger than the search needs is slower: every first touch of
    /// its memory costs a page fault. At most 1048576 (1 TiB).
    #[arg(long, value_name = "MIB", value_parser = usize_in(1..=1 << 20))]
    pub tt_mb: Option<usize>,
}

fn default_threads() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
}

impl SearchArgs {
    /// The number of search threads: `--threads`, 0 meaning one a core.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => default_threads(),
            n => n,
        }
    }

    /// The search these flags ask for, as the service takes it.
    pub fn policy(&self) -> SearchPolicy {
        SearchPolicy {
            threads: self.threads(),
            tt_mb: self.tt_mb,
        }
    }

    /// The search configuration these flags give, with a transposition
    /// table of `default_tt_mb` MiB unless `--tt-mb` says otherwise.
    pub fn config(&self, default_tt_mb: usize) -> SearchConfig {
        self.policy().config(default_tt_mb)
    }
}
