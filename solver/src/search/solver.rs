//! The solver: MTD(f) over null-window tests, each run by one thread or by
//! several splitting its nodes (young brothers wait, see
//! [`SearchConfig::split_seeds`]).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::config::SearchConfig;
use super::hook::NodeHook;
use super::mtdf::Bracket;
use super::negamax::{Shared, Worker};
use super::shallow;
use super::share::{Published, Publisher};
use super::tt::{TranspositionTable, TtEntry};
use crate::board::{Board, Game};
use crate::index::Index;
use crate::position::Position;
use crate::rules::EndRule;
use crate::Probe;

/// The search was stopped through [`Solver::stop_flag`] before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("search interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Why a solver cannot be built.
#[derive(Debug)]
pub enum SolverError {
    /// The search threads could not be started.
    ThreadPool(rayon::ThreadPoolBuildError),
    /// The transposition table could not be allocated.
    Table(std::io::Error),
}

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolverError::ThreadPool(e) => write!(f, "cannot start the search threads: {e}"),
            SolverError::Table(e) => write!(f, "cannot allocate the transposition table: {e}"),
        }
    }
}

impl std::error::Error for SolverError {}

/// Work counters, cumulative since the solver was built (or
/// [`Solver::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Search nodes, all threads together. It grows during a search, not
    /// only at its end: each search worker adds its count every 1024
    /// nodes, so a reading while a search runs is short by less than 1024
    /// for each worker still running (one a thread, more where a thread
    /// waits at a split point).
    pub nodes: u64,
    /// Boards answered by the endgame tables.
    pub probe_hits: u64,
    /// Null-window tests run by MTD(f).
    pub tests: u64,
    /// Time spent searching.
    pub elapsed: Duration,
}

impl SearchStats {
    /// Nodes a second (0 before any time has passed).
    pub fn nodes_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.nodes as f64 / s
        } else {
            0.0
        }
    }

    /// The work done between `earlier` and `self`.
    pub fn since(&self, earlier: &SearchStats) -> SearchStats {
        SearchStats {
            nodes: self.nodes - earlier.nodes,
            probe_hits: self.probe_hits - earlier.probe_hits,
            tests: self.tests - earlier.tests,
            elapsed: self.elapsed.saturating_sub(earlier.elapsed),
        }
    }
}

/// The flag that interrupts searches.
enum StopFlag {
    Owned(Arc<AtomicBool>),
    Static(&'static AtomicBool),
}

impl StopFlag {
    fn get(&self) -> &AtomicBool {
        match self {
            StopFlag::Owned(f) => f,
            StopFlag::Static(f) => f,
        }
    }
}

/// An exact solver for one board size and rule set.
///
/// Every method takes `&self`; the table and counters are shared atomics.
pub struct Solver {
    game: Game,
    index: Index,
    config: SearchConfig,
    /// Its own, or shared with other solvers ([`Solver::sharing`]).
    tt: Arc<TranspositionTable>,
    probe: Option<Arc<dyn Probe>>,
    pool: Option<rayon::ThreadPool>,
    stop: StopFlag,
    /// Called with the node count at each look at the stop flag
    /// ([`Solver::set_node_hook`]).
    hook: Option<Arc<dyn NodeHook>>,
    /// Where entries of much work go for other tables
    /// ([`Solver::set_publisher`]).
    publisher: Option<Arc<Publisher>>,
    nodes: AtomicU64,
    probe_hits: AtomicU64,
    tests: AtomicU64,
    nanos: AtomicU64,
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("game", &self.game)
            .field("config", &self.config)
            .field("probe", &self.probe.as_ref().map(|p| p.max_seeds()))
            .finish()
    }
}

impl Solver {
    /// A solver for `game` with a fresh table of `config.tt_mb` MiB, using
    /// `probe` (endgame tables) when given and `config.probes` is on.
    ///
    /// # Errors
    /// When `config.threads > 1` and the threads cannot be started, or the
    /// table cannot be allocated.
    pub fn new(
        game: Game,
        config: SearchConfig,
        probe: Option<Arc<dyn Probe>>,
    ) -> Result<Solver, SolverError> {
        let tt = TranspositionTable::new(config.tt_mb).map_err(SolverError::Table)?;
        Solver::sharing(game, config, probe, Arc::new(tt))
    }

    /// A solver like [`Solver::new`]'s whose transposition table is `tt`,
    /// which other solvers may use at the same time (`config.tt_mb` is not
    /// read): one table for several searches of one machine, each with its
    /// own counters, stop flag and node hook. Sharing never makes an answer
    /// wrong: every entry is a bound of an exact value, whichever search
    /// stored it. Each search's start begins a new table generation
    /// ([`TranspositionTable::new_generation`]), so the other searches'
    /// entries are replaced first under pressure.
    ///
    /// # Errors
    /// When `config.threads > 1` and the threads cannot be started.
    pub fn sharing(
        game: Game,
        config: SearchConfig,
        probe: Option<Arc<dyn Probe>>,
        tt: Arc<TranspositionTable>,
    ) -> Result<Solver, SolverError> {
        let pool = if config.threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(config.threads)
                    .thread_name(|i| format!("kalah-search-{i}"))
                    // Tasks stolen while waiting at a split point run on top
                    // of the waiting search: room for many nested searches.
                    .stack_size(64 << 20)
                    .build()
                    .map_err(SolverError::ThreadPool)?,
            )
        } else {
            None
        };
        Ok(Solver {
            index: Index::new(game.pits()),
            tt,
            game,
            config,
            probe,
            pool,
            stop: StopFlag::Owned(Arc::new(AtomicBool::new(false))),
            hook: None,
            publisher: None,
            nodes: AtomicU64::new(0),
            probe_hits: AtomicU64::new(0),
            tests: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        })
    }

    /// The game solved.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The most seeds of a board the endgame tables answer (0: no tables,
    /// or probes off): such a board is never searched.
    pub fn table_seeds(&self) -> u32 {
        match &self.probe {
            Some(p) if self.config.probes => p.max_seeds(),
            _ => 0,
        }
    }

    /// Set it to stop every search of this solver at its next check (within
    /// about a thousand nodes); the search then returns [`Interrupted`].
    /// Clear it before searching again. `None` once
    /// [`Solver::watch_flag`] replaced it.
    pub fn stop_flag(&self) -> Option<Arc<AtomicBool>> {
        match &self.stop {
            StopFlag::Owned(f) => Some(Arc::clone(f)),
            StopFlag::Static(_) => None,
        }
    }

    /// Makes `flag` (e.g. the CLI's Ctrl-C flag) the stop flag instead.
    pub fn watch_flag(&mut self, flag: &'static AtomicBool) {
        self.stop = StopFlag::Static(flag);
    }

    /// Makes every search of this solver call `hook` with its node count
    /// (counted as [`SearchStats::nodes`], so from the last
    /// [`Solver::reset_stats`]) at each look at its stop flag (see
    /// [`NodeHook`]).
    pub fn set_node_hook(&mut self, hook: Arc<dyn NodeHook>) {
        self.hook = Some(hook);
    }

    /// Makes every search of this solver copy the entries it stores with
    /// at least [`Publisher::min_work`] work into `publisher`, for other
    /// machines' tables ([`crate::search::share`]).
    pub fn set_publisher(&mut self, publisher: Arc<Publisher>) {
        self.publisher = Some(publisher);
    }

    /// Stores into the transposition table the entries another solver of
    /// the same game published ([`Publisher::take`]), each merged with
    /// what the table holds as the first table merged it. Every search
    /// stays exact: an entry is a true bound of its board's value
    /// whichever search stored it. The other solver's tables and rules
    /// must be this one's (its keys name the same boards and its bounds
    /// are of the same values), which holds for solvers of one game and
    /// key size; a key beyond this solver's keys is skipped.
    pub fn learn(&self, entries: &[Published]) {
        let keys = self.index.boards_up_to(self.index.key_seeds());
        // Each store is a read of a bucket far from the last: reading the
        // buckets some entries ahead keeps many reads in flight at once
        // (several times the stores a second of one read at a time).
        const AHEAD: usize = 16;
        for (i, e) in entries.iter().enumerate() {
            if let Some(next) = entries.get(i + AHEAD) {
                self.tt.prefetch(next.key);
            }
            if u128::from(e.key) < keys {
                self.tt.store(e.key, e.value, e.bound, e.best_move, e.work);
            }
        }
    }

    /// Counters since the solver was built or last reset.
    pub fn stats(&self) -> SearchStats {
        SearchStats {
            nodes: self.nodes.load(Relaxed),
            probe_hits: self.probe_hits.load(Relaxed),
            tests: self.tests.load(Relaxed),
            elapsed: Duration::from_nanos(self.nanos.load(Relaxed)),
        }
    }

    /// Zeroes the counters (the table keeps its contents).
    pub fn reset_stats(&self) {
        self.nodes.store(0, Relaxed);
        self.probe_hits.store(0, Relaxed);
        self.tests.store(0, Relaxed);
        self.nanos.store(0, Relaxed);
    }

    /// Its transposition table, to share with another solver
    /// ([`Solver::sharing`]).
    pub fn table(&self) -> Arc<TranspositionTable> {
        Arc::clone(&self.tt)
    }

    /// Empties the transposition table (for every solver sharing it).
    pub fn clear_table(&self) {
        self.tt.clear();
    }

    /// What the transposition table holds on `board`'s value (for the
    /// player to move, stores excluded): a true bound whatever search
    /// stored it (see [`crate::search::tt`]). `None` when the table holds
    /// no entry for it, or keeps no boards of its size.
    pub fn known(&self, board: Board) -> Option<TtEntry> {
        if board.seeds() > self.index.key_seeds() {
            return None;
        }
        self.tt.load(self.index.key(board))
    }

    /// The exact value of `board` for the player to move: the net number of
    /// seeds they will still gain, stores excluded.
    ///
    /// # Errors
    /// [`Interrupted`] when the stop flag was set.
    pub fn solve_board(&self, board: Board) -> Result<i32, Interrupted> {
        self.tt.new_generation();
        self.value(board, None)
    }

    /// The exact value of `position` for the player to move, stores counted:
    /// the final store difference (theirs minus the opponent's) under
    /// perfect play. A finished game is scored as it stands.
    ///
    /// # Errors
    /// [`Interrupted`] when the stop flag was set.
    ///
    /// # Panics
    /// If the position has a different number of houses than the game.
    pub fn solve(&self, position: &Position) -> Result<i32, Interrupted> {
        self.tt.new_generation();
        self.position_value(position, None)
    }

    /// [`Solver::solve`] with a first guess (of the same quantity), without
    /// a new table generation: for the analysis, which solves many related
    /// positions.
    pub(crate) fn position_value(
        &self,
        position: &Position,
        guess: Option<i32>,
    ) -> Result<i32, Interrupted> {
        assert_eq!(
            position.pits(),
            self.game.pits(),
            "position and game differ in houses"
        );
        if let Some(score) = position.final_score(self.game.rules()) {
            return Ok(match position.to_move() {
                crate::Side::South => score,
                crate::Side::North => -score,
            });
        }
        let offset = position.store_difference();
        Ok(offset + self.value(position.board(), guess.map(|g| g - offset))?)
    }

    fn shared(&self) -> Shared<'_> {
        let probe = self.probe.as_deref().filter(|_| self.config.probes);
        Shared {
            game: &self.game,
            index: &self.index,
            config: &self.config,
            tt: &self.tt,
            probe,
            probe_seeds: probe.map_or(0, |p| p.max_seeds()),
            key_seeds: self.index.key_seeds(),
            tt_min_seeds: probe.map_or(0, |p| p.max_seeds() + 1) + self.config.tt_skip,
            stop: self.stop.get(),
            hook: self.hook.as_deref(),
            nodes: &self.nodes,
            publish: self.publisher.as_deref(),
            split_seeds: if self.pool.is_some() {
                probe.map_or(0, |p| p.max_seeds()) + self.config.split_seeds
            } else {
                u32::MAX
            },
        }
    }

    /// Whether the parity of every board value is that of its seeds: true
    /// when all seeds end in some store.
    fn parity_known(&self) -> bool {
        self.config.parity && self.game.rules().end != EndRule::NoSweep
    }

    /// MTD(f): null-window tests from `first_guess` until the lower and
    /// upper bounds of the board's value meet.
    pub(crate) fn value(&self, board: Board, first_guess: Option<i32>) -> Result<i32, Interrupted> {
        if let Some(v) = self.game.terminal_value(board) {
            return Ok(v);
        }
        let started = Instant::now();
        let result = self.mtdf(board, first_guess);
        self.nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Relaxed);
        result
    }

    fn mtdf(&self, board: Board, first_guess: Option<i32>) -> Result<i32, Interrupted> {
        let s = board.seeds() as i32;
        let step = if self.parity_known() { 2 } else { 1 };
        let mut bracket = Bracket::new(s, step);
        if board.seeds() <= self.index.key_seeds() {
            if let Some(e) = self.tt.load(self.index.key(board)) {
                bracket.narrow(e.lower, e.upper);
            }
        }
        bracket.g = match first_guess {
            Some(g) => g,
            // The depth-limited minimax value: it lies in [-s, s], inside
            // the window.
            None if self.config.guess_depth > 0 => shallow::search(
                &self.game,
                None,
                board,
                self.config.guess_depth,
                -s - 1,
                s + 1,
            ),
            None => 0,
        };
        while !bracket.settled() {
            let beta = bracket.next_beta();
            // A test at or below the guess is expected to fail high.
            let r = self.test(board, beta, beta <= bracket.g)?;
            bracket.record(beta, r);
        }
        Ok(bracket.lower)
    }

    /// The best house (0-based) the table holds for `board`, if any.
    pub(crate) fn best_move_hint(&self, board: Board) -> Option<usize> {
        if board.seeds() > self.index.key_seeds() {
            return None;
        }
        let e = self.tt.load(self.index.key(board))?;
        e.best_move.map(usize::from)
    }

    /// Whether the value of `board` (unfinished) is at least `beta`.
    pub(crate) fn at_least(&self, board: Board, beta: i32) -> Result<bool, Interrupted> {
        if let Some(v) = self.game.terminal_value(board) {
            return Ok(v >= beta);
        }
        let started = Instant::now();
        let r = self.test(board, beta, true);
        self.nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Relaxed);
        Ok(r? >= beta)
    }

    /// One null-window search `(beta - 1, beta)` of `board`: a fail-soft
    /// result `r`, with `v >= r` when `r >= beta` and `v <= r` otherwise;
    /// `cut` when it is expected to fail high (see
    /// [`Worker::search`](super::negamax::Worker::search)). With several
    /// threads, they split its nodes.
    fn test(&self, board: Board, beta: i32, cut: bool) -> Result<i32, Interrupted> {
        self.tests.fetch_add(1, Relaxed);
        let search = || {
            let shared = self.shared();
            let mut w = Worker::new(&shared, None);
            let r = w.search(board, beta - 1, beta, cut);
            w.finish();
            self.probe_hits.fetch_add(w.probe_hits, Relaxed);
            (!w.aborted).then_some(r)
        };
        let result = match &self.pool {
            None => search(),
            Some(pool) => pool.install(search),
        };
        result.ok_or(Interrupted)
    }
}
