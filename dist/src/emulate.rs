//! Emulating a run on many workers: every unit solved for real, on the
//! simulated worker it goes to, with that worker's own transposition table.
//!
//! A replay ([`crate::sim`]) gives each unit the cost it had in the
//! recorded run, whose few workers each solved many related units with
//! one table; on many workers a unit's cost is that of a worker which has
//! seen only the units the schedule gave it, and a schedule on many workers
//! asks for units the recording never answered. The emulation measures
//! both: the real coordinator hands units to `P` simulated workers, each a
//! [`UnitSolver`] of its own, and a unit handed out is solved then, on its
//! worker's solver, so that its nodes are the ones that worker's table
//! gives it. Time is simulated: a unit takes its nodes at a fixed node rate
//! plus a fixed dispatch latency, whatever this machine's load; its
//! answer reaches the coordinator at that simulated time, in order with
//! the others. Nothing is guessed.
//!
//! Units handed out at the same simulated moment are independent (each on
//! its own worker's table), so they are solved side by side on
//! [`EmuSettings::threads`] threads; a unit is solved only when the clock
//! is about to move past its start, so one stopped at its start is never
//! searched.
//!
//! Assumptions (stated with every result):
//! * a unit's search on a simulated worker is the search a real worker
//!   with a table of [`EmuSettings::tt_mb`] MiB and the same earlier units
//!   makes; the node rate is the same for every unit and worker;
//! * a unit stopped after it started (no longer needed, or preempted)
//!   costs the simulated time it ran, but its search was solved to the
//!   end here: its worker's table keeps entries a real worker would not
//!   have written (a little optimistic for that worker's later units);
//! * workers are identical and never fail.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use kalah_solver::table::Tables;
use kalah_solver::Game;

use crate::coordinator::{coordinate, Discard, Engine, Issue, Reply, Settings};
use crate::plan::Solved;
use crate::plan::TopTree;
use crate::sim::{Chain, Needs, SimResult};
use crate::unit::{RunIdentity, Verdict};
use crate::worker::UnitSolver;

/// How the emulated workers run.
#[derive(Clone, Copy, Debug)]
pub struct EmuSettings {
    /// Nodes a second of one simulated worker.
    pub rate: f64,
    /// Seconds to hand out a unit and get its answer back.
    pub latency: f64,
    /// Each simulated worker's transposition table, MiB.
    pub tt_mb: usize,
    /// Threads of this process solving units handed out at the same
    /// simulated moment.
    pub threads: usize,
    /// The coordinator's [`Settings::presplit`], [`Settings::preempt`] and
    /// [`Settings::affinity`].
    pub presplit: f64,
    pub preempt: bool,
    pub affinity: bool,
}

/// An emulated run: the simulation's account of it, the answer, and what
/// the emulation itself cost.
#[derive(Clone, Debug)]
pub struct EmuResult {
    pub sim: SimResult,
    pub solved: Solved,
    /// Nodes this process searched: those of every unit, stopped ones to
    /// their end (their simulated cost counts only what they ran).
    pub searched_nodes: u64,
    /// Simulated workers that were handed a unit (each a table).
    pub workers_used: usize,
    /// Wall-clock seconds of the emulation.
    pub wall_seconds: f64,
}

/// A unit on its simulated worker.
struct Running {
    issue: Issue,
    began: f64,
    /// `None` until solved; then its simulated end, verdict and nodes.
    end: Option<f64>,
    verdict: Option<Verdict>,
    nodes: u64,
}

struct EmuEngine<'g> {
    game: &'g Game,
    tables: Option<&'g Arc<Tables>>,
    settings: EmuSettings,
    /// Each simulated worker's solver, made when it gets its first unit.
    solvers: Vec<Option<UnitSolver>>,
    running: Vec<Option<Running>>,
    clock: f64,
    busy: f64,
    longest: f64,
    searched: u64,
}

impl EmuEngine<'_> {
    /// Solves every unit handed out since the clock last moved, side by
    /// side on the settings' threads, each on its own worker's solver.
    fn solve_pending(&mut self) -> Result<(), String> {
        let pending: Vec<usize> = (0..self.running.len())
            .filter(|&w| self.running[w].as_ref().is_some_and(|r| r.end.is_none()))
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        for &w in &pending {
            if self.solvers[w].is_none() {
                let solver =
                    UnitSolver::new(self.game.clone(), self.tables.cloned(), self.settings.tt_mb)
                        .map_err(|e| format!("simulated worker {w}: {e}"))?;
                self.solvers[w] = Some(solver);
            }
        }
        let jobs: Vec<(&UnitSolver, Issue)> = pending
            .iter()
            .map(|&w| {
                let r = self.running[w].as_ref().expect("pending above");
                (self.solvers[w].as_ref().expect("made above"), r.issue)
            })
            .collect();
        let next = AtomicUsize::new(0);
        let threads = self.settings.threads.clamp(1, jobs.len());
        let mut answers = vec![None; jobs.len()];
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Relaxed);
                            let Some((solver, issue)) = jobs.get(i) else {
                                return out;
                            };
                            out.push((i, solver.solve(issue.key, issue.budget, || false)));
                        }
                    })
                })
                .collect();
            for t in workers {
                for (i, a) in t.join().expect("a unit search does not panic") {
                    answers[i] = Some(a);
                }
            }
        });
        for (&w, answer) in pending.iter().zip(answers) {
            let a = answer.expect("every job answered");
            let r = self.running[w].as_mut().expect("pending above");
            if a.verdict.is_none() {
                return Err(format!("unit {} stopped without a cause", r.issue.seq));
            }
            self.searched += a.nodes;
            r.verdict = a.verdict;
            r.nodes = a.nodes;
            r.end = Some(r.began + self.settings.latency + a.nodes as f64 / self.settings.rate);
        }
        Ok(())
    }
}

impl Engine for EmuEngine<'_> {
    fn workers(&self) -> usize {
        self.running.len()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), String> {
        self.running[worker] = Some(Running {
            issue: *issue,
            began: self.clock,
            end: None,
            verdict: None,
            nodes: 0,
        });
        Ok(())
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), String> {
        let (clock, rate, latency) = (self.clock, self.settings.rate, self.settings.latency);
        if let Some(r) = self.running[worker].as_mut().filter(|r| r.issue.seq == seq) {
            match r.end {
                // Handed out at this very moment: stopped before it ran.
                None => {
                    r.end = Some(clock + latency);
                    r.verdict = None;
                    r.nodes = 0;
                }
                Some(end) if end > clock + latency => {
                    r.end = Some(clock + latency);
                    r.verdict = None;
                    r.nodes = ((clock - r.began).max(0.0) * rate) as u64;
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, String> {
        self.solve_pending()?;
        let (w, end) = self
            .running
            .iter()
            .enumerate()
            .filter_map(|(w, r)| r.as_ref().and_then(|r| r.end).map(|e| (w, e)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or("no emulated unit is running")?;
        if let Some(t) = until.filter(|&t| t < end) {
            self.clock = self.clock.max(t);
            return Ok(None);
        }
        let r = self.running[w].take().expect("found above");
        self.clock = self.clock.max(end);
        let seconds = end - r.began;
        self.busy += seconds;
        self.longest = self.longest.max(seconds);
        Ok(Some(Reply {
            worker: w,
            seq: r.issue.seq,
            verdict: r.verdict,
            nodes: r.nodes,
            seconds,
        }))
    }

    fn now(&self) -> f64 {
        self.clock
    }

    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Emulates the solve of `tree` on `workers` simulated workers, each unit
/// solved for real ([`UnitSolver`]) with `budget` (0: none), over
/// `tables`.
///
/// # Errors
/// A table that cannot be allocated, or a coordinator that cannot go on.
pub fn emulate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    game: &Game,
    tables: Option<&Arc<Tables>>,
    workers: usize,
    budget: u64,
    settings: EmuSettings,
) -> Result<EmuResult, String> {
    let wall = Instant::now();
    let mut engine = EmuEngine {
        game,
        tables,
        settings,
        solvers: (0..workers).map(|_| None).collect(),
        running: (0..workers).map(|_| None).collect(),
        clock: 0.0,
        busy: 0.0,
        longest: 0.0,
        searched: 0,
    };
    let done = coordinate(
        tree,
        identity,
        &[],
        &mut engine,
        &mut Discard,
        Settings {
            budget,
            presplit: settings.presplit,
            preempt: settings.preempt,
            affinity: settings.affinity,
            progress_every: 0.0,
        },
    )?;
    let none = Needs::default();
    Ok(EmuResult {
        sim: SimResult {
            workers,
            ahead: tree.ahead,
            seconds: done.seconds,
            busy_seconds: engine.busy,
            units: done.counts.units,
            cancelled_units: done.counts.cancelled_units,
            nodes: done.counts.total_nodes(),
            longest_unit: engine.longest,
            chain: Chain::of(&done.chain, &done.timeline, &none),
            timeline: done.timeline,
            unrecorded: Vec::new(),
            filled_issues: 0,
        },
        solved: done.solved,
        searched_nodes: engine.searched,
        workers_used: engine.solvers.iter().flatten().count(),
        wall_seconds: wall.elapsed().as_secs_f64(),
    })
}
