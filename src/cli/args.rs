//! The flags every solving command shares (tables, search), turned into
//! the service's setup ([`crate::service::setup`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::thread;

use clap::Args;
use kalah_solver::search::{SearchConfig, Solver};
use kalah_solver::table::Tables;
use kalah_solver::{Game, Rules};

use super::common::{parse_threads, usize_in, CliError, MAX_THREADS};
use crate::service::setup::{self, SearchPolicy, TablePolicy};
use crate::service::table_dir::{self, TableDir};

/// Where the endgame tables are and how many seeds they cover.
#[derive(Args, Clone, Debug)]
pub struct TableArgs {
    /// Directory of the endgame tables (default: $KALAH_TABLES, else the
    /// source tree's tables/, else ~/.local/share/kalah/tables; `kalah
    /// tables` shows which).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Use tables of boards with up to K seeds. `solve`, `play` and
    /// `reproduce` build missing tiers first. Default: the tiers already in
    /// the directory (up to 12 G boards, about 5.5 GB: 30 seeds for 6
    /// houses), and at least the tiers of about 600 M boards (built if
    /// missing; 22 seeds, 250 MB, for 6 houses), but at most the game's
    /// seeds less 20, and none for games of at most 32 seeds, which search
    /// solves at once. `query` uses the tiers that are there.
    #[arg(long, value_name = "K")]
    pub table_seeds: Option<u32>,
    /// Search without endgame tables.
    #[arg(long, conflicts_with = "table_seeds")]
    pub no_tables: bool,
}

/// Whether the opening book is used, for the commands that answer
/// positions of a game's opening (`query`, `play`, `analyze`, `serve`).
#[derive(Args, Clone, Debug, Default)]
pub struct BookUse {
    /// Neither read nor build the opening book (the exact values of every
    /// position of a game's first sowings, kept beside the tables; see
    /// `kalah book build --help`): the opening is searched.
    #[arg(long)]
    pub no_book: bool,
}

impl TableArgs {
    /// The table directory these flags name (see [`table_dir`]).
    pub fn dir(&self) -> TableDir {
        table_dir::resolve(self.tables.as_deref())
    }
}

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

impl TableArgs {
    /// The tables these flags ask for, as the service takes them, without
    /// the opening book (the commands whose answers come from search or
    /// tables alone: `solve`, `reproduce`, `certify`, the cluster's).
    pub fn policy(&self) -> TablePolicy {
        self.policy_with(&BookUse { no_book: true })
    }

    /// [`TableArgs::policy`], with the opening book as `book` says.
    pub fn policy_with(&self, book: &BookUse) -> TablePolicy {
        TablePolicy {
            dir: self.dir(),
            table_seeds: self.table_seeds,
            no_tables: self.no_tables,
            no_book: book.no_book,
        }
    }
}

/// The tables for `pits` and `rules` by the flags' policy, building the
/// missing tiers first with progress bars when `build` is set
/// ([`crate::progress::build::prepare_tables`]).
///
/// # Errors
/// As [`setup::prepare_tables`].
pub fn prepare_tables(
    args: &TableArgs,
    pits: usize,
    rules: Rules,
    total_seeds: u32,
    build: bool,
) -> Result<Option<Arc<Tables>>, CliError> {
    Ok(crate::progress::build::prepare_tables(
        &args.policy(),
        pits,
        rules,
        total_seeds,
        build,
    )?)
}

/// A solver for `game` by the flags ([`setup::solver_for`]).
///
/// # Errors
/// As [`setup::solver_for`].
pub fn make_solver_for(
    game: Game,
    total_seeds: u32,
    every_turn: bool,
    search: &SearchArgs,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, CliError> {
    Ok(setup::solver_for(
        game,
        total_seeds,
        every_turn,
        search.policy(),
        tables,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_bounded() {
        assert_eq!(parse_threads("0"), Ok(0));
        assert_eq!(parse_threads("1024"), Ok(1024));
        assert!(parse_threads("1025").unwrap_err().contains("at most 1024"));
        assert!(parse_threads("100000").is_err());
        assert!(parse_threads("-1").is_err());
        assert!(parse_threads("lots").is_err());
    }
}
