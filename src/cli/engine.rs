//! Setting up the engine for a command: endgame tables (opened, or built
//! when missing) and a solver, from the flags every solving command shares.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread;

use clap::Args;
use kalah_solver::search::{SearchConfig, Solver};
use kalah_solver::table::{Check, Tables, MAX_TIER};
use kalah_solver::{Game, Probe, Rules};

use super::common::CliError;
use super::table_dir::{self, TableDir};
use super::tables::build_with_progress;
use crate::interrupt;
use kalah_solver::table::BuildConfig;

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
    /// the directory (up to about 4 GB of them), and at least as many as
    /// fit in about 600 MB (built if missing; 22 seeds for 6 houses);
    /// always fewer than the game's seeds. `query` uses the tiers that are
    /// there.
    #[arg(long, value_name = "K")]
    pub table_seeds: Option<u32>,
    /// Search without endgame tables.
    #[arg(long)]
    pub no_tables: bool,
}

impl TableArgs {
    /// The table directory these flags name (see [`table_dir`]).
    pub fn dir(&self) -> TableDir {
        table_dir::resolve(self.tables.as_deref())
    }
}

/// How the search runs; the switches exist to measure each enhancement.
#[derive(Args, Clone, Debug)]
pub struct SearchArgs {
    /// Search threads. They split each MTD(f) null-window test: a node
    /// expected to fail low whose first move did not cut off searches its
    /// other moves in parallel (young brothers wait), over one lock-free
    /// transposition table. At most 1024.
    #[arg(long, default_value_t = default_threads(), value_parser = parse_threads)]
    pub threads: usize,
    /// Transposition table size in MiB (default for `solve`: 64 when the
    /// game has at most 28 seeds more than the endgame tables and only the
    /// value and a perfect game are wanted; else 256 for games of up to 48
    /// seeds, 2048 for larger ones; 256 for `query`).
    /// A table larger than the search needs is slower: every first touch of
    /// its memory costs a page fault.
    #[arg(long, value_name = "MIB")]
    pub tt_mb: Option<usize>,
    /// Turn off move ordering (houses are tried left to right).
    #[arg(long)]
    pub no_ordering: bool,
    /// Turn off trying the transposition table's best move first.
    #[arg(long)]
    pub no_tt_move: bool,
    /// Turn on the enhanced transposition cut-off (looks up every child
    /// first: fewer nodes, but more time a node; off by default).
    #[arg(long)]
    pub etc: bool,
    /// Turn off futility cut-offs from the seed bounds.
    #[arg(long)]
    pub no_futility: bool,
}

fn default_threads() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
}

/// The most threads any command starts: far more than any machine has
/// cores, far fewer than would exhaust memory with their stacks.
pub const MAX_THREADS: usize = 1024;

/// Parses a thread count: `0..=MAX_THREADS` (for the flags where 0 means
/// "all cores").
///
/// # Errors
/// Not a number, or more than [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a thread count"))?;
    if n > MAX_THREADS {
        return Err(format!("{n} threads: at most {MAX_THREADS}"));
    }
    Ok(n)
}

/// Default transposition table size for positions of up to `total_seeds`
/// seeds searched over endgame tables of `table_seeds` seeds (0 without):
/// 64 MiB for a search at most 28 seeds above the tables, 256 MiB for games
/// of up to 48 seeds, 2 GiB above. A table larger than the search needs is
/// slower: every first touch of its memory costs a page fault, and its
/// random reads miss the TLB more. Kalah(6,4) with 20-seed tables, 2
/// threads, medians of 4-6 interleaved runs: 64 MiB against 256 MiB took EC
/// from 2.30 s to 1.88 s and STD from 5.32 s to 4.93 s (search), and the
/// whole `kalah solve` from 2.67 s to 2.15 s (EC) and 6.1 s to 5.6 s (STD).
/// A search of `every_turn` first turn exactly (`--all-moves`, `--pie`,
/// `reproduce`) does several times the work and gets at least 256 MiB:
/// with 64 MiB the reproduce run's Kalah(6,4) rows took 17-22 % more nodes.
pub fn default_tt_mb(total_seeds: u32, table_seeds: u32, every_turn: bool) -> usize {
    if short_search(total_seeds, table_seeds) && !every_turn {
        64
    } else if total_seeds <= 48 {
        256
    } else {
        2048
    }
}

/// Whether a game of `total_seeds` seeds over tables of `table_seeds` is a
/// short search (seconds, like Kalah(6,4) over 20- to 24-seed tables): at
/// most 28 seeds above the tables.
pub fn short_search(total_seeds: u32, table_seeds: u32) -> bool {
    total_seeds <= table_seeds + 28
}

impl SearchArgs {
    /// The search configuration these flags give, with a transposition
    /// table of `default_tt_mb` MiB unless `--tt-mb` says otherwise.
    pub fn config(&self, default_tt_mb: usize) -> SearchConfig {
        SearchConfig {
            tt_mb: self.tt_mb.unwrap_or(default_tt_mb).max(1),
            threads: self.threads.max(1),
            tt_move: !self.no_tt_move,
            ordering: !self.no_ordering,
            etc: self.etc,
            futility: !self.no_futility,
            ..SearchConfig::default()
        }
    }
}

/// Default table size: the largest K whose tiers 0..=K hold at most about
/// 600 M boards (one byte each), and below the game's total seeds (a table
/// of the whole game would make the search trivial only by moving the work
/// into the build). For 6 houses that is 22 seeds (548 M boards), which
/// this machine builds in 15-20 s: Kalah(6,4) from an empty directory stays
/// well under 30 s, and with the tables present STD takes about 2.5 s
/// instead of 5.5 s with 20 seeds (the default before the builder got 2x
/// faster). Never more than the table format holds ([`MAX_TIER`]: an entry
/// is one signed byte, and a board of `k` seeds has a value of at most `k`):
/// small boards reach it first (2 houses: 127 seeds are 350 k boards).
///
/// A game of at most [`SEARCH_ONLY_SEEDS`] seeds gets no tables at all:
/// plain search solves any of them in a fraction of a second, while the
/// tables would cost far more (8 houses: 445 M boards to 15 seeds, to
/// solve Kalah(8,1), which search does in 0.1 s).
pub fn default_table_seeds(pits: usize, total_seeds: u32) -> u32 {
    if total_seeds <= SEARCH_ONLY_SEEDS {
        return 0;
    }
    let index = kalah_solver::Index::new(pits);
    let mut k = 0;
    while k < MAX_TIER && k + 1 < total_seeds && index.boards_up_to(k + 1) <= 600_000_000 {
        k += 1;
    }
    k
}

/// Games with at most this many seeds are solved by search alone unless
/// tables are already there or asked for: from the start, the largest of
/// them take 0.05-0.25 s without tables (Kalah(8,2), Kalah(5,3),
/// Kalah(4,4), release build).
pub const SEARCH_ONLY_SEEDS: u32 = 32;

/// Tiers already built are used by default up to this many boards (bytes).
const PRESENT_TABLES_MAX_BOARDS: u128 = 4_000_000_000;

/// Opens the tables for `pits` and `rules`, building the missing tiers
/// first (with progress bars) when `build` is set. Every tier is opened
/// and its checksum checked before this returns (once per file: see
/// [`Check::Remembered`]). A tier that is there but damaged is, when
/// `build` is set, built again with the tiers above it, saying so on
/// standard error and naming the file; otherwise it is an error naming the
/// file. `None` with `--no-tables` or a table size of 0.
///
/// # Errors
/// A `--table-seeds` beyond the format, a build that fails, is too large
/// or is interrupted, or (without `build`) missing or unusable tables.
pub fn prepare_tables(
    args: &TableArgs,
    pits: usize,
    rules: Rules,
    total_seeds: u32,
    build: bool,
) -> Result<Option<Arc<Tables>>, CliError> {
    if args.no_tables {
        return Ok(None);
    }
    let dir = args.dir();
    if let Some(k) = args.table_seeds.filter(|&k| k > MAX_TIER) {
        return Err(CliError::Input(format!(
            "--table-seeds {k}: table entries are one byte, at most {MAX_TIER} seeds"
        )));
    }
    let k = args.table_seeds.unwrap_or_else(|| {
        // Which files are there (none is read here).
        let present = Tables::open_with(
            &dir.path,
            pits,
            rules,
            Some(total_seeds.saturating_sub(1)),
            Check::Remembered,
        )
        .map(|t| t.max_seeds())
        .unwrap_or(0);
        let index = kalah_solver::Index::new(pits);
        let usable = (0..=present)
            .rev()
            .find(|&k| index.boards_up_to(k) <= PRESENT_TABLES_MAX_BOARDS)
            .unwrap_or(0);
        usable.max(default_table_seeds(pits, total_seeds))
    });
    if k == 0 {
        return Ok(None);
    }
    // Copies in huge-page memory make a probe cheaper than the mapped files
    // (the search took 2.3-2.7 s against 2.6-3.0 s for Kalah(6,4) STD over
    // 22-seed tables), but filling 548 MB of fresh memory took 1.3-2.0 s on
    // this machine: only a long search earns it back (the whole solve: 4.2-
    // 4.5 s copied, 2.8-2.9 s mapped).
    let resident = !short_search(total_seeds, k);
    let open = || -> Result<Tables, kalah_solver::table::TableError> {
        let t = Tables::open_with(&dir.path, pits, rules, Some(k), Check::Remembered)?;
        let t = if resident { t.resident() } else { t };
        if t.max_seeds() == k {
            t.open_all()?;
        }
        Ok(t)
    };
    let mut tables = open();
    let complete = matches!(&tables, Ok(t) if t.max_seeds() == k);
    if build && !complete {
        // The builder says which file it does not keep, and why.
        drop(tables);
        let config = BuildConfig {
            pits,
            rules,
            max_seeds: k,
            threads: 0,
        };
        dir.ensure(false)?;
        build_with_progress(&dir.path, &config, false)?;
        tables = open();
    }
    let tables = tables.map_err(|e| {
        CliError::Failure(format!(
            "endgame tables in {}: {e} (build them with `kalah build --pits {pits} --max-seeds {k}`)",
            dir.path.display()
        ))
    })?;
    if tables.max_seeds() < k {
        // Without `build`, or a file gone since the build.
        return Err(CliError::Failure(format!(
            "endgame tables in {}: {}: no such table file (build them with `kalah build --pits {pits} --max-seeds {k}`)",
            dir.path.display(),
            tables.path(tables.max_seeds() + 1).display()
        )));
    }
    Ok(Some(Arc::new(tables)))
}

/// A solver for positions of `game` of any size (queries): a 256 MiB
/// transposition table unless `--tt-mb` says otherwise.
///
/// # Errors
/// When the search threads cannot be started.
pub fn make_solver(
    game: Game,
    search: &SearchArgs,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, CliError> {
    new_solver(game, search.config(256), tables, StopBy::Interrupt)
}

/// A solver for `game` whose positions hold up to `total_seeds` seeds, to
/// solve every first turn exactly when `every_turn` (both size the default
/// transposition table), probing `tables` when given, stopped by Ctrl-C.
///
/// # Errors
/// When the search threads cannot be started.
pub fn make_solver_for(
    game: Game,
    total_seeds: u32,
    every_turn: bool,
    search: &SearchArgs,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, CliError> {
    let table_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    let config = search.config(default_tt_mb(total_seeds, table_seeds, every_turn));
    new_solver(game, config, tables, StopBy::Interrupt)
}

/// A solver with `config`, probing `tables` when given, stopped as `stop` says.
/// Every tier of `tables` is opened and checked first: a probe of an
/// unusable tier would give no value, and the search would go on without
/// it; an unusable tier is an error naming its file instead.
pub fn new_solver(
    game: Game,
    config: SearchConfig,
    tables: Option<Arc<Tables>>,
    stop: StopBy,
) -> Result<Solver, CliError> {
    if let Some(t) = &tables {
        t.open_all().map_err(|e| {
            CliError::Failure(format!("endgame tables in {}: {e}", t.dir().display()))
        })?;
    }
    let probe = tables.map(|t| t as Arc<dyn Probe>);
    let mut solver = Solver::new(game, config, probe)
        .map_err(|e| CliError::Failure(format!("cannot start the solver: {e}")))?;
    if stop == StopBy::Interrupt {
        solver.watch_flag(interrupt::flag());
    }
    Ok(solver)
}

/// What stops a solver's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopBy {
    /// Ctrl-C or SIGTERM, directly.
    Interrupt,
    /// Its own flag ([`Solver::stop_flag`]), raised by a watchdog that may
    /// also stop it for a time limit.
    OwnFlag,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12, defect 5: the default depth never exceeds what the table
    /// format holds, however many seeds a small board has.
    #[test]
    fn default_table_seeds_stay_within_the_format() {
        assert_eq!(default_table_seeds(2, 160), MAX_TIER);
        assert_eq!(default_table_seeds(1, 255), MAX_TIER);
        assert_eq!(default_table_seeds(1, 40), 39);
        assert_eq!(default_table_seeds(6, 48), 22);
        assert_eq!(default_table_seeds(6, 36), 22);
        assert_eq!(default_table_seeds(8, 48), 15);
        for pits in 1..=8 {
            for seeds in [1, 2, 10, 100, 300] {
                let k = default_table_seeds(pits, seeds);
                assert!(
                    k <= MAX_TIER && (k < seeds || k == 0),
                    "{pits} {seeds}: {k}"
                );
            }
        }
    }

    /// Small games are searched, not tabled: Kalah(8,1) built 445 M boards
    /// to solve a game search finishes in 0.1 s.
    #[test]
    fn small_games_get_no_tables() {
        for (pits, seeds) in [(8, 1), (8, 2), (5, 3), (4, 4), (1, 16), (2, 8)] {
            assert_eq!(
                default_table_seeds(pits, 2 * pits as u32 * seeds),
                0,
                "Kalah({pits},{seeds})"
            );
        }
        assert!(default_table_seeds(3, 34) > 0);
    }

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
