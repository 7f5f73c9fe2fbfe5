//! A worker: one solver, its own transposition table, the shared endgame
//! tables, answering one unit at a time.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah::service::setup::{new_solver, StopBy};
use kalah::service::Error;
use kalah_solver::search::{Interrupted, SearchConfig, Solver};
use kalah_solver::table::Tables;
use kalah_solver::Game;

use crate::unit::{UnitKey, Verdict, EXACT};

/// A unit's answer as the worker saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Answer {
    /// `None`: cancelled (the coordinator no longer needed it).
    pub verdict: Option<Verdict>,
    pub nodes: u64,
    pub seconds: f64,
}

/// The worker's engine. The transposition table is kept from unit to unit:
/// entries of one unit's search help the next one (never a wrong answer:
/// entries are bounds of exact values).
pub struct UnitSolver {
    solver: Solver,
    stop: Arc<AtomicBool>,
}

impl UnitSolver {
    /// A single-threaded solver for `game` with a `tt_mb` MiB table over
    /// `tables`.
    ///
    /// # Errors
    /// Unusable tables or a table that cannot be allocated.
    pub fn new(game: Game, tables: Option<Arc<Tables>>, tt_mb: usize) -> Result<UnitSolver, Error> {
        let config = SearchConfig {
            tt_mb,
            threads: 1,
            ..SearchConfig::default()
        };
        let solver = new_solver(game, config, tables, StopBy::OwnFlag)?;
        let stop = solver.stop_flag().expect("a solver's own flag");
        Ok(UnitSolver { solver, stop })
    }

    /// Empties the transposition table: the next unit is solved as by a
    /// fresh worker.
    pub fn forget(&self) {
        self.solver.clear_table();
    }

    /// Nodes searched by the unit running (or the last one).
    pub fn nodes(&self) -> u64 {
        self.solver.stats().nodes
    }

    /// Answers `key`. `cancelled` is asked every few milliseconds while
    /// the search runs (a worker reads its messages there); when it says
    /// yes the search stops and the answer has no verdict. A test that
    /// searches more than `budget` nodes (0: no budget) is stopped and
    /// answered [`Verdict::Split`]. An exact unit has no budget.
    pub fn solve(&self, key: UnitKey, budget: u64, mut cancelled: impl FnMut() -> bool) -> Answer {
        self.stop.store(false, Relaxed);
        self.solver.reset_stats();
        let budget = if key.beta == EXACT { 0 } else { budget };
        let started = Instant::now();
        let (result, split) = std::thread::scope(|s| {
            let search = s.spawn(|| search_unit(&self.solver, key));
            let mut split = false;
            let mut nap = Duration::from_micros(50);
            while !search.is_finished() {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
                if self.stop.load(Relaxed) {
                    continue;
                }
                if cancelled() {
                    self.stop.store(true, Relaxed);
                } else if budget > 0 && self.solver.stats().nodes > budget {
                    split = true;
                    self.stop.store(true, Relaxed);
                }
            }
            (
                search.join().expect("the unit search does not panic"),
                split,
            )
        });
        let verdict = match result {
            // A search that ended before the stop took effect is answered.
            Ok(v) => Some(v),
            Err(_) if split => Some(Verdict::Split),
            Err(_) => None,
        };
        Answer {
            verdict,
            nodes: self.solver.stats().nodes,
            seconds: started.elapsed().as_secs_f64(),
        }
    }
}

/// The search a unit asks of `solver`: the exact value of an exact unit,
/// or whether a test holds. Stopped through the solver's flag, it returns
/// [`Interrupted`].
pub fn search_unit(solver: &Solver, key: UnitKey) -> Result<Verdict, Interrupted> {
    if key.beta == EXACT {
        solver.solve_board(key.board).map(Verdict::Exact)
    } else {
        solver.board_at_least(key.board, key.beta).map(|holds| {
            if holds {
                Verdict::AtLeast
            } else {
                Verdict::Below
            }
        })
    }
}
