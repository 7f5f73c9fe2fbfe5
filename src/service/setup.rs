//! Setting up the engine for a game: which endgame tables to open (or
//! build when missing), how large a transposition table the search gets,
//! and a solver over both.

use std::path::Path;
use std::sync::Arc;

use kalah_solver::search::{SearchConfig, Solver, TranspositionTable};
use kalah_solver::table::{BuildConfig, Check, TableError, Tables, MAX_TIER};
use kalah_solver::{Game, Probe, Rules};

use super::table_dir::TableDir;
use super::{Error, Observer};
use crate::interrupt;

/// Which endgame tables a front end asked for.
#[derive(Clone, Debug)]
pub struct TablePolicy {
    /// The table directory, and whether it was named (a flag, a
    /// variable: it must exist) or is a default one (created by the first
    /// build).
    pub dir: TableDir,
    /// Tables of boards with up to this many seeds; `None`: the default
    /// depth ([`prepare_tables`]) or the tiers present ([`open_present`]).
    pub table_seeds: Option<u32>,
    /// No tables: search alone.
    pub no_tables: bool,
    /// No opening book: neither read nor built.
    pub no_book: bool,
}

/// How a front end asked the search to run.
#[derive(Clone, Copy, Debug)]
pub struct SearchPolicy {
    /// Search threads (at least 1).
    pub threads: usize,
    /// Transposition table size in MiB; `None`: the default for the
    /// search ([`default_tt_mb`]).
    pub tt_mb: Option<usize>,
}

impl SearchPolicy {
    /// The search configuration, with a transposition table of
    /// `default_tt_mb` MiB unless the policy names a size.
    pub fn config(&self, default_tt_mb: usize) -> SearchConfig {
        SearchConfig {
            tt_mb: self.tt_mb.unwrap_or(default_tt_mb).max(1),
            threads: self.threads,
            ..SearchConfig::default()
        }
    }
}

/// Builds the tiers `0..=config.max_seeds` in a directory that exists (the
/// front end's, which checks the size and shows the build's progress).
pub type Builder<'a> = &'a dyn Fn(&Path, &BuildConfig) -> Result<(), Error>;

/// Default transposition table size for positions of up to `total_seeds`
/// seeds searched over endgame tables of `table_seeds` seeds (0 without):
/// 64 MiB for a search at most 28 seeds above the tables, 256 MiB for games
/// of up to 48 seeds, 2 GiB above. A table larger than the search needs is
/// slower: every first touch of its memory costs a page fault, and its
/// random reads miss the TLB more, so a short search gets the small table.
/// A search of `every_turn` first turn exactly (`--all-moves`, `--pie`,
/// `reproduce`) does several times the work and gets at least 256 MiB:
/// with less, entries it needs are overwritten and it searches more nodes.
/// The measurements are in lab/journal/search.md ("Transposition table size").
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

/// Default table size: the largest K whose tiers 0..=K hold at most about
/// 600 M boards (a build of seconds to a minute), and below the game's total seeds (a table
/// of the whole game would make the search trivial only by moving the work
/// into the build). For 6 houses that is 22 seeds (548 M boards): the
/// build stays a fraction of a minute, so Kalah(6,4) from an empty
/// directory is answered in well under a minute, and the larger tables
/// halve the search against 20 seeds (lab/journal/tables.md, "Default table
/// size"). Never more than the table format holds ([`MAX_TIER`]: a value
/// is one signed byte, and a board of `k` seeds has a value of at most `k`):
/// small boards reach it first (2 houses: 127 seeds are 350 k boards).
///
/// Smaller games get smaller tables, so that the build never dwarfs the
/// search: a game of at most [`SEARCH_ONLY_SEEDS`] seeds gets none (plain
/// search solves any of them in a fraction of a second, far less than
/// building tables for them would take), and the tables stop
/// [`TABLE_GAP`] seeds below the game's total (a small game's build would
/// otherwise cost more than its search saves).
pub fn default_table_seeds(pits: usize, total_seeds: u32) -> u32 {
    if total_seeds <= SEARCH_ONLY_SEEDS {
        return 0;
    }
    let cap = MAX_TIER.min(total_seeds - TABLE_GAP);
    let index = kalah_solver::Index::new(pits);
    let mut k = 0;
    while k < cap && index.boards_up_to(k + 1) <= 600_000_000 {
        k += 1;
    }
    k
}

/// Games with at most this many seeds are solved by search alone unless
/// tables are already there or asked for: from the start, the largest of
/// them (Kalah(8,2), Kalah(5,3), Kalah(4,4)) are solved in a fraction of a
/// second without tables.
pub const SEARCH_ONLY_SEEDS: u32 = 32;

/// Default tables stop this many seeds below the game's total (see
/// [`default_table_seeds`]).
pub const TABLE_GAP: u32 = 20;

/// Tiers already built are used by default up to this many boards: about
/// 5.5 GB of files (format version 2, under half a byte a board), which a
/// long search copies into memory. For 6 houses that is every tier up to
/// 30 seeds (11.05 G boards): 28-seed tables built with `kalah build
/// --max-seeds 28` are used by `solve` for Kalah(6,5) as they are; ask for
/// a smaller depth with `--table-seeds K`.
const PRESENT_TABLES_MAX_BOARDS: u128 = 12_000_000_000;

/// Opens the tables for `pits` and `rules`, building the missing tiers
/// first (through `build`) when given, in the policy's directory, made
/// sure of first ([`TableDir::ensure`]: a default one is created, telling
/// `observer`). Every tier is opened
/// and its checksum checked before this returns (once per file: see
/// [`Check::Remembered`]). A tier that is there but damaged is, with
/// `build`, built again with the tiers above it, saying so on
/// standard error and naming the file; otherwise it is an error naming the
/// file. `None` with `--no-tables` or a table size of 0.
///
/// # Errors
/// A `--table-seeds` beyond the format, a named directory that is missing
/// when tables are to be built there, a build that fails, is too large or
/// is interrupted, or (without `build`) missing or unusable tables.
pub fn prepare_tables(
    args: &TablePolicy,
    pits: usize,
    rules: Rules,
    total_seeds: u32,
    build: Option<Builder<'_>>,
    observer: &dyn Observer,
) -> Result<Option<Arc<Tables>>, Error> {
    if args.no_tables {
        return Ok(None);
    }
    let dir = &args.dir.path;
    if let Some(k) = args.table_seeds.filter(|&k| k > MAX_TIER) {
        return Err(Error::Input(format!(
            "--table-seeds {k}: table values are one signed byte, at most {MAX_TIER} seeds"
        )));
    }
    let k = args.table_seeds.unwrap_or_else(|| {
        // Which files are there (none is read here).
        let present = Tables::open_with(
            dir,
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
    // Copies in huge-page memory make a probe cheaper than the mapped files,
    // but filling that much fresh memory costs more than a short search
    // saves: only a long search earns it back (lab/journal/tables.md,
    // "Resident or mapped tables").
    let resident = !short_search(total_seeds, k);
    let open = || -> Result<Tables, kalah_solver::table::TableError> {
        let t = Tables::open_with(dir, pits, rules, Some(k), Check::Remembered)?;
        let t = if resident { t.resident() } else { t };
        if t.max_seeds() == k {
            t.open_all()?;
        }
        Ok(t)
    };
    let mut tables = open();
    let complete = matches!(&tables, Ok(t) if t.max_seeds() == k);
    if let (Some(build), false) = (build, complete) {
        // The builder says which file it does not keep, and why.
        drop(tables);
        let config = BuildConfig {
            pits,
            rules,
            max_seeds: k,
            threads: 0,
        };
        args.dir.ensure(false, observer)?;
        build(dir, &config)?;
        tables = open();
    }
    let tables = tables.map_err(|e| {
        Error::Failure(format!(
            "endgame tables in {}: {e} (build them with `kalah build --pits {pits} --max-seeds {k}`)",
            dir.display()
        ))
    })?;
    if tables.max_seeds() < k {
        // Without `build`, or a file gone since the build.
        return Err(Error::Failure(format!(
            "endgame tables in {}: {}: no such table file (build them with `kalah build --pits {pits} --max-seeds {k}`)",
            dir.display(),
            tables.path(tables.max_seeds() + 1).display()
        )));
    }
    Ok(Some(Arc::new(tables)))
}

/// The tables present for `pits` houses and `rules` (up to
/// `policy.table_seeds` when given), opened without building anything: a
/// query answers from what is there. Each tier is opened and checked
/// (the checksum of its file once per file, remembered by a stamp) when
/// first used, or at once with `eager`: a long-running batch opens them
/// all up front, so that a tier file deleted or replaced later is not
/// seen and a damaged one fails at once; a single query opens only the
/// tiers it reads. The reason tables are not used is returned otherwise,
/// for the front end to say.
///
/// # Errors
/// A named table directory that does not exist (input), with `eager` a
/// tier that fails its check (failure, naming the file).
pub fn open_present(
    policy: &TablePolicy,
    pits: usize,
    rules: Rules,
    eager: bool,
) -> Result<(Option<Arc<Tables>>, Option<String>), Error> {
    if policy.no_tables {
        return Ok((None, None));
    }
    let dir = &policy.dir.path;
    if !policy.dir.source.is_default() && !dir.is_dir() {
        return Err(Error::Input(format!(
            "table directory {} does not exist",
            dir.display()
        )));
    }
    Ok(
        match Tables::open_with(dir, pits, rules, policy.table_seeds, Check::Remembered) {
            Ok(t) if eager => {
                t.open_all().map_err(|e| {
                    Error::Failure(format!("endgame tables in {}: {e}", dir.display()))
                })?;
                (Some(Arc::new(t)), None)
            }
            Ok(t) => (Some(Arc::new(t)), None),
            Err(TableError::Missing { .. }) => (
                None,
                Some(format!(
                    "no endgame tables for {} and these rules in {}: searching without them",
                    if pits == 1 {
                        "1 house".to_string()
                    } else {
                        format!("{pits} houses")
                    },
                    dir.display()
                )),
            ),
            Err(e) => (None, Some(format!("endgame tables not used: {e}"))),
        },
    )
}

/// A solver for `game` whose positions hold up to `total_seeds` seeds, to
/// solve every first turn exactly when `every_turn` (both size the default
/// transposition table, [`default_tt_mb`]), with the threads and table
/// size `search` asks for, probing `tables` when given, stopped by Ctrl-C.
///
/// # Errors
/// An unusable tier, or search threads that cannot be started.
pub fn solver_for(
    game: Game,
    total_seeds: u32,
    every_turn: bool,
    search: SearchPolicy,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, Error> {
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
) -> Result<Solver, Error> {
    new_solver_on(game, config, tables, stop, None)
}

/// [`new_solver`] on the transposition table `shared` when given (one
/// table for the solvers of one machine, see [`Solver::sharing`]), else
/// on a table of its own of `config.tt_mb` MiB.
pub fn new_solver_on(
    game: Game,
    config: SearchConfig,
    tables: Option<Arc<Tables>>,
    stop: StopBy,
    shared: Option<Arc<TranspositionTable>>,
) -> Result<Solver, Error> {
    if let Some(t) = &tables {
        t.open_all()
            .map_err(|e| Error::Failure(format!("endgame tables in {}: {e}", t.dir().display())))?;
    }
    let probe = tables.map(|t| t as Arc<dyn Probe>);
    let solver = match shared {
        Some(tt) => Solver::sharing(game, config, probe, tt),
        None => Solver::new(game, config, probe),
    };
    let mut solver = solver.map_err(|e| Error::Failure(format!("cannot start the solver: {e}")))?;
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
        assert_eq!(default_table_seeds(1, 40), 20);
        assert_eq!(default_table_seeds(6, 48), 22);
        assert_eq!(default_table_seeds(6, 60), 22);
        assert_eq!(default_table_seeds(6, 36), 16);
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
    /// to solve a game that search alone finishes at once.
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
}
