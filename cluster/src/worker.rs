//! A worker: one solver, its own transposition table (or one shared with
//! the other workers of its rank), the shared endgame tables, answering
//! one unit at a time.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah::service::setup::{new_solver_on, StopBy};
use kalah::service::Error;
use kalah_solver::search::ordering::Children;
use kalah_solver::search::tt::{NO_LOWER, NO_UPPER};
use kalah_solver::search::{
    Interrupted, NodeHook, Published, Publisher, SearchConfig, Solver, TranspositionTable,
};
use kalah_solver::table::Tables;
use kalah_solver::{Board, Game};

use crate::gate::{GateStop, NodeGate};
use crate::unit::{Known, UnitKey, Verdict, EXACT, KNOWN_PLIES};

/// A unit's answer as the worker saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// `None`: cancelled (the coordinator no longer needed it).
    pub verdict: Option<Verdict>,
    pub nodes: u64,
    pub seconds: f64,
    /// What the table held afterwards near the unit's board ([`known`]).
    pub known: Vec<Known>,
    /// For a test split at its budget: the house whose child the search
    /// was in when it stopped ([`inside`]).
    pub inside: Option<u8>,
}

/// The worker's engine. The transposition table is kept from unit to unit:
/// entries of one unit's search help the next one (never a wrong answer:
/// entries are bounds of exact values).
pub struct UnitSolver {
    solver: Solver,
    stop: Arc<AtomicBool>,
    /// Holds a test at its budget: the search waits there, within 1,024
    /// nodes past it, until it is stopped (so a split is at the same node
    /// count however fast the worker polls).
    gate: Arc<NodeGate>,
    /// The entries its searches collect for other machines, if any.
    publisher: Option<Arc<Publisher>>,
    /// Search threads of a unit. With more than one the gate stays open
    /// (a gate holds one search thread) and a test is split once the
    /// threads' nodes together pass its budget, seen by
    /// [`UnitRun::poll`]: within a poll's nap of it, not at an exact count.
    threads: usize,
}

impl UnitSolver {
    /// A single-threaded solver for `game` with a `tt_mb` MiB table over
    /// `tables`.
    ///
    /// # Errors
    /// Unusable tables or a table that cannot be allocated.
    pub fn new(game: Game, tables: Option<Arc<Tables>>, tt_mb: usize) -> Result<UnitSolver, Error> {
        UnitSolver::on(game, tables, tt_mb, None, 1)
    }

    /// A solver of `threads` search threads (at least one) on one `tt_mb`
    /// MiB table, for a worker that has the machine's cores to itself
    /// (`kalah-cluster solve --local --threads N`).
    ///
    /// # Errors
    /// Unusable tables, a table that cannot be allocated, threads that
    /// cannot be started.
    pub fn threaded(
        game: Game,
        tables: Option<Arc<Tables>>,
        tt_mb: usize,
        threads: usize,
    ) -> Result<UnitSolver, Error> {
        UnitSolver::on(game, tables, tt_mb, None, threads.max(1))
    }

    /// `n` single-threaded solvers for `game` over `tables` searching on
    /// one table of `n * tt_mb` MiB: the workers of one rank, each of
    /// which sees what the others' searches stored.
    ///
    /// # Errors
    /// Unusable tables or a table that cannot be allocated.
    pub fn sharing(
        game: Game,
        tables: Option<Arc<Tables>>,
        tt_mb: usize,
        n: usize,
    ) -> Result<Vec<UnitSolver>, Error> {
        if n <= 1 {
            return Ok(vec![UnitSolver::new(game, tables, tt_mb)?]);
        }
        let mb = tt_mb.saturating_mul(n);
        let tt = Arc::new(TranspositionTable::new(mb).map_err(|e| {
            Error::Failure(format!(
                "cannot allocate a {mb} MiB transposition table: {e}"
            ))
        })?);
        (0..n)
            .map(|_| {
                UnitSolver::on(
                    game.clone(),
                    tables.clone(),
                    tt_mb,
                    Some(Arc::clone(&tt)),
                    1,
                )
            })
            .collect()
    }

    fn on(
        game: Game,
        tables: Option<Arc<Tables>>,
        tt_mb: usize,
        shared: Option<Arc<TranspositionTable>>,
        threads: usize,
    ) -> Result<UnitSolver, Error> {
        let config = SearchConfig {
            tt_mb,
            threads,
            ..SearchConfig::default()
        };
        let mut solver = new_solver_on(game, config, tables, StopBy::OwnFlag, shared)?;
        // Open but for a unit's test (UnitRun): any other search of this
        // solver runs free.
        let gate = Arc::new(NodeGate::new());
        gate.release();
        if threads == 1 {
            solver.set_node_hook(Arc::clone(&gate) as Arc<dyn NodeHook>);
        }
        let stop = solver.stop_flag().expect("a solver's own flag");
        Ok(UnitSolver {
            solver,
            stop,
            gate,
            publisher: None,
            threads,
        })
    }

    /// Empties the transposition table (for every worker sharing it): the
    /// next unit is solved as by a fresh worker.
    pub fn forget(&self) {
        self.solver.clear_table();
    }

    /// Makes this worker's searches collect their table entries of at
    /// least `work` work, for the other machines' tables
    /// ([`kalah_solver::search::share`]; [`UnitSolver::published`]). Each
    /// worker collects its own: workers of one rank never wait on each
    /// other to do it.
    pub fn publish(&mut self, work: u8) {
        let publisher = Arc::new(Publisher::new(work));
        self.solver.set_publisher(Arc::clone(&publisher));
        self.publisher = Some(publisher);
    }

    /// Whether this worker collects entries ([`UnitSolver::publish`]).
    pub fn publishes(&self) -> bool {
        self.publisher.is_some()
    }

    /// The entries this worker's searches collected since the last call
    /// (none without [`UnitSolver::publish`]).
    pub fn published(&self) -> Vec<Published> {
        self.publisher.as_ref().map_or_else(Vec::new, |p| p.take())
    }

    /// Stores entries another machine's workers published into this
    /// worker's table (its rank's, shared by the rank's workers).
    pub fn learn(&self, entries: &[Published]) {
        self.solver.learn(entries);
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
        std::thread::scope(|s| {
            let mut run = UnitRun::start(s, self, key, budget);
            let mut nap = Duration::from_micros(50);
            while !run.poll() {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
                if !self.stop.load(Relaxed) && cancelled() {
                    run.cancel();
                }
            }
            run.answer()
        })
    }
}

/// A unit searching on a thread of its own, for a caller that watches
/// several at once (a rank's workers): [`UnitRun::poll`] it until it says
/// the search returned, then take its [`UnitRun::answer`].
pub struct UnitRun<'scope, 'u> {
    unit: &'u UnitSolver,
    key: UnitKey,
    started: Instant,
    split: bool,
    /// The node budget [`UnitRun::poll`] splits at, for a solver of
    /// several threads (0: none, or the gate holds it).
    budget: u64,
    search: std::thread::ScopedJoinHandle<'scope, UnitSearch>,
}

impl<'scope, 'u: 'scope> UnitRun<'scope, 'u> {
    /// Starts `key` on `unit`'s solver, on a thread of `scope`: a test
    /// that searches more than `budget` nodes (0: no budget) waits there
    /// and is split when [`UnitRun::poll`] sees it; an exact unit has no
    /// budget.
    pub fn start(
        scope: &'scope std::thread::Scope<'scope, '_>,
        unit: &'u UnitSolver,
        key: UnitKey,
        budget: u64,
    ) -> UnitRun<'scope, 'u> {
        unit.stop.store(false, Relaxed);
        unit.solver.reset_stats();
        let budget = if key.beta == EXACT { 0 } else { budget };
        let gated = unit.threads == 1;
        if gated {
            unit.gate.rearm();
            unit.gate
                .open_to(if budget > 0 { budget + 1 } else { u64::MAX });
        }
        let gate = Arc::clone(&unit.gate);
        UnitRun {
            unit,
            key,
            started: Instant::now(),
            split: false,
            budget: if gated { 0 } else { budget },
            search: scope.spawn(move || {
                let result = search_unit(&unit.solver, key);
                gate.finish();
                result
            }),
        }
    }

    /// Whether the search has returned; a test held at its budget is
    /// stopped here, to be answered split.
    pub fn poll(&mut self) -> bool {
        if self.search.is_finished() {
            return true;
        }
        let over = self.budget > 0 && self.unit.solver.stats().nodes > self.budget;
        if over || matches!(self.unit.gate.peek(), Some(GateStop::Paused(_))) {
            if !self.unit.stop.load(Relaxed) {
                self.split = true;
            }
            self.cancel();
        }
        false
    }

    /// Stops the search (no longer needed): its answer has no verdict,
    /// unless it returned before the stop took effect.
    pub fn cancel(&self) {
        self.unit.stop.store(true, Relaxed);
        self.unit.gate.release();
    }

    /// Waits for the search to return and gives the unit's answer.
    pub fn answer(self) -> Answer {
        let result = self.search.join().expect("the unit search does not panic");
        self.unit.gate.release();
        let solver = &self.unit.solver;
        let mut found = known(solver, self.key.board);
        let verdict = match result {
            // A search that ended before the stop took effect is answered.
            Ok((v, line)) => {
                add_line(&mut found, line);
                Some(v)
            }
            Err(_) if self.split => Some(Verdict::Split),
            Err(_) => None,
        };
        Answer {
            inside: (verdict == Some(Verdict::Split))
                .then(|| inside(solver, self.key))
                .flatten(),
            verdict,
            nodes: solver.stats().nodes,
            seconds: self.started.elapsed().as_secs_f64(),
            known: found,
        }
    }
}

/// The bounds `solver`'s transposition table holds on `board` and the
/// boards up to [`KNOWN_PLIES`] sowings below it, each board once, level
/// by level in the engine's move order. A stopped search leaves in its
/// table the children it decided before the stop: reported, they need no
/// unit of their own. Finished boards, boards of the endgame tables (the
/// coordinator reads those itself) and boards the table holds nothing on
/// are left out.
pub fn known(solver: &Solver, board: Board) -> Vec<Known> {
    let game = solver.game();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut level = vec![board];
    for ply in 0..=KNOWN_PLIES {
        let mut next = Vec::new();
        for b in level {
            if !seen.insert(b) || game.terminal_value(b).is_some() {
                continue;
            }
            if let Some(e) = solver.known(b) {
                let lower = (e.lower != NO_LOWER).then_some(e.lower);
                let upper = (e.upper != NO_UPPER).then_some(e.upper);
                if lower.is_some() || upper.is_some() {
                    out.push(Known {
                        board: b,
                        lower,
                        upper,
                    });
                }
            }
            if ply < KNOWN_PLIES {
                let kids = Children::generate(game, b, None, false);
                next.extend(kids.as_slice().iter().map(|c| c.sown.board));
            }
        }
        level = next;
    }
    out
}

/// The child of a test's board that `solver`'s search of `key` was in
/// when it stopped, as its house: the first child, in the order the
/// search takes them (the table's best move first, then the engine's
/// order), that the table does not decide for `key.beta`. A search takes
/// a test's children one after another and stores each child's bound as
/// it returns, so the children before the one it was in are decided in
/// its table, and that one is not (read after the search, before the
/// table is used again). A stopped search's table holds that child's
/// subtree: the same worker resumes it at a fraction of a fresh search's
/// cost, which is why the coordinator hands that child back to it. `None`
/// when every child is decided or `key` is exact.
///
/// The order is the search's as far as its inputs are the table's best
/// move and the sowings; a cut the search made before ordering (a child
/// settled by the endgame tables) is a decided child here too.
pub fn inside(solver: &Solver, key: UnitKey) -> Option<u8> {
    if key.beta == EXACT {
        return None;
    }
    let game = solver.game();
    let best = solver.known(key.board).and_then(|e| e.best_move);
    let mut kids = Children::generate(game, key.board, best, solver.config().ordering);
    kids.sort();
    let table_seeds = solver.table_seeds();
    kids.as_slice()
        .iter()
        .find(|c| {
            let b = c.sown.board;
            if game.terminal_value(b).is_some() || b.seeds() <= table_seeds {
                return false;
            }
            let Some(e) = solver.known(b) else {
                return true;
            };
            // The parent holds through this child when the child's value
            // is at least `need` (extra turn: the same mover) or at most
            // `need` (the turn passes).
            let g = c.sown.gain as i32;
            let decided = if c.sown.extra_turn {
                let need = key.beta - g;
                e.lower >= need || e.upper < need
            } else {
                let need = g - key.beta;
                e.upper <= need || e.lower > need
            };
            !decided
        })
        .map(|c| c.house)
}

/// Most boards of a perfect game an exact unit reports ([`perfect_game`]).
pub const PERFECT_GAME_BOARDS: usize = 128;

/// Adds to `found` the exact values of the boards of a perfect game from
/// `board`, whose exact value is `value`, found by `solver` right after
/// it solved `board` (its table holds the proof): at each board the first
/// sowing, the table's best first, that keeps the value, each by one
/// null-window test. The coordinator walks its perfect game below the
/// frontier on these facts instead of a unit for every move. Stops at the
/// end of the game, at a board of the endgame tables (the coordinator
/// reads those itself), after [`PERFECT_GAME_BOARDS`] boards, or when the
/// solver is stopped (what was walked is kept: each value is exact).
pub fn perfect_game(solver: &Solver, board: Board, value: i32) -> Vec<Known> {
    let game = solver.game();
    let mut found = Vec::new();
    let (mut b, mut v) = (board, value);
    let table_seeds = solver.table_seeds();
    for _ in 0..PERFECT_GAME_BOARDS {
        if game.terminal_value(b).is_some() || b.seeds() <= table_seeds {
            break;
        }
        let best = solver.known(b).and_then(|e| e.best_move);
        let mut kids = Children::generate(game, b, best, solver.config().ordering);
        kids.sort();
        let mut next = None;
        for c in kids.as_slice() {
            let g = c.sown.gain as i32;
            // The child's value if this sowing keeps the parent's.
            let cv = if c.sown.extra_turn { v - g } else { g - v };
            let keeps = if c.sown.extra_turn {
                solver.board_at_least(c.sown.board, cv)
            } else {
                solver.board_at_least(c.sown.board, cv + 1).map(|b| !b)
            };
            match keeps {
                Ok(true) => {
                    next = Some((c.sown.board, cv));
                    break;
                }
                Ok(false) => {}
                Err(_) => return found,
            }
        }
        // Some sowing keeps the value of a solved board.
        let Some((child, cv)) = next else {
            break;
        };
        found.push(Known {
            board: child,
            lower: Some(cv),
            upper: Some(cv),
        });
        (b, v) = (child, cv);
    }
    found
}

/// Adds a perfect game's exact values ([`perfect_game`]) to the bounds
/// [`known`] found, in place of any bound on the same board.
pub fn add_line(found: &mut Vec<Known>, line: Vec<Known>) {
    found.retain(|k| !line.iter().any(|l| l.board == k.board));
    found.extend(line);
}

/// What [`search_unit`] found: the verdict, and an exact unit's perfect
/// game.
pub type UnitSearch = Result<(Verdict, Vec<Known>), Interrupted>;

/// The search a unit asks of `solver`: the exact value of an exact unit,
/// with a perfect game below its board ([`perfect_game`]), or whether a
/// test holds (and no line). Stopped through the solver's flag, it
/// returns [`Interrupted`].
pub fn search_unit(solver: &Solver, key: UnitKey) -> UnitSearch {
    if key.beta == EXACT {
        let v = solver.solve_board(key.board)?;
        Ok((Verdict::Exact(v), perfect_game(solver, key.board, v)))
    } else {
        solver.board_at_least(key.board, key.beta).map(|holds| {
            let v = if holds {
                Verdict::AtLeast
            } else {
                Verdict::Below
            };
            (v, Vec::new())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_solver::{CaptureRule, EndRule, Position, Rules};

    /// Every bound a worker reports after a unit, split at its budget or
    /// answered, holds the value a fresh solver finds for that board, and
    /// boards below the unit's own are among them.
    #[test]
    fn known_bounds_hold_the_exact_values() {
        for (pits, seeds, capture) in [(4, 3, CaptureRule::Empty), (5, 3, CaptureRule::Standard)] {
            let game = Game::new(
                pits,
                Rules {
                    capture,
                    end: EndRule::Sweep,
                },
            );
            let start = Position::start(pits, seeds).unwrap().board();
            let exact = UnitSolver::new(game.clone(), None, 16).unwrap();
            let value = exact.solver.solve_board(start).unwrap();
            let (mut below, mut splits) = (0, 0);
            for (beta, budget) in [
                (value, 0),
                (value + 1, 0),
                (value, 12_000),
                (value + 1, 20_000),
                (value - 3, 500),
            ] {
                let worker = UnitSolver::new(game.clone(), None, 16).unwrap();
                let a = worker.solve(UnitKey { board: start, beta }, budget, || false);
                assert!(a.verdict.is_some(), "{pits},{seeds} beta {beta}");
                for k in &a.known {
                    let v = exact.solver.solve_board(k.board).unwrap();
                    assert!(k.possible(), "{k:?}");
                    assert!(k.lower.is_none_or(|l| l <= v), "{k:?}: value {v}");
                    assert!(k.upper.is_none_or(|u| v <= u), "{k:?}: value {v}");
                    below += usize::from(k.board != start);
                }
                splits += usize::from(a.verdict == Some(Verdict::Split));
            }
            assert!(below > 0, "{pits},{seeds}");
            assert!(splits > 0 || pits == 4, "{pits},{seeds}");
        }
    }

    /// A test split at its budget names the child its search was in, and
    /// that child's test costs the same worker less than a fresh one: its
    /// table holds the part of the subtree searched before the stop.
    #[test]
    fn a_split_names_the_child_its_table_holds() {
        let game = Game::new(
            5,
            Rules {
                capture: CaptureRule::Standard,
                end: EndRule::Sweep,
            },
        );
        let start = Position::start(5, 3).unwrap().board();
        let exact = UnitSolver::new(game.clone(), None, 16).unwrap();
        let value = exact.solver.solve_board(start).unwrap();
        let mut resumed = 0;
        for (beta, budget) in [(value + 1, 20_000), (value, 8_000), (value + 1, 30_000)] {
            let worker = UnitSolver::new(game.clone(), None, 16).unwrap();
            let key = UnitKey { board: start, beta };
            let a = worker.solve(key, budget, || false);
            if a.verdict != Some(Verdict::Split) {
                continue;
            }
            // Held at its budget, whenever the worker looks: past it by
            // less than two of the search's 1,024-node checks.
            assert!(
                a.nodes > budget && a.nodes <= budget + 2048,
                "beta {beta}: split after {} nodes at a budget of {budget}",
                a.nodes
            );
            let house = a.inside.expect("a split search is inside a child");
            let sown = game.sow(start, usize::from(house));
            let g = sown.gain as i32;
            let child = UnitKey {
                board: sown.board,
                beta: if sown.extra_turn {
                    beta - g
                } else {
                    g - beta + 1
                },
            };
            let again = worker.solve(child, 0, || false);
            let fresh = UnitSolver::new(game.clone(), None, 16)
                .unwrap()
                .solve(child, 0, || false);
            assert_eq!(again.verdict, fresh.verdict);
            assert!(
                again.nodes < fresh.nodes,
                "beta {beta}: resumed {} nodes, fresh {}",
                again.nodes,
                fresh.nodes
            );
            resumed += 1;
        }
        assert!(resumed >= 2, "{resumed} splits");
    }

    /// An exact unit reports a perfect game below its board: each board's
    /// exact value, as a fresh solver finds it, one sowing after another
    /// to the end of the game.
    #[test]
    fn an_exact_unit_reports_a_perfect_game() {
        let game = Game::new(
            5,
            Rules {
                capture: CaptureRule::Standard,
                end: EndRule::Sweep,
            },
        );
        let start = Position::start(5, 3).unwrap().board();
        let worker = UnitSolver::new(game.clone(), None, 16).unwrap();
        let a = worker.solve(
            UnitKey {
                board: start,
                beta: EXACT,
            },
            0,
            || false,
        );
        let Some(Verdict::Exact(value)) = a.verdict else {
            panic!("{:?}", a.verdict);
        };
        let exact = UnitSolver::new(game.clone(), None, 16).unwrap();
        let line = perfect_game(&worker.solver, start, value);
        let (mut b, mut v) = (start, value);
        for k in &line {
            assert_eq!(k.lower, k.upper, "{k:?}");
            let cv = k.lower.unwrap();
            assert_eq!(exact.solver.solve_board(k.board).unwrap(), cv);
            // Each board is a child of the one before that keeps its value.
            let kept = (0..5).filter(|&h| game.moves(b) >> h & 1 == 1).any(|h| {
                let s = game.sow(b, h);
                let g = s.gain as i32;
                s.board == k.board && cv == if s.extra_turn { v - g } else { g - v }
            });
            assert!(kept, "{k:?} after {v}");
            (b, v) = (k.board, cv);
            assert!(a.known.contains(k), "reported: {k:?}");
        }
        assert!(game.terminal_value(b).is_some(), "the line ends the game");
        assert!(line.len() > 10, "{} boards", line.len());
    }
}
