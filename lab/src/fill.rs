//! Filling a recorded run for simulation: the units a simulated schedule
//! needs and the record lacks, solved for real in this process.
//!
//! A schedule on more workers than the recorded run takes other paths
//! through the top tree (more speculation, cut nodes decided by another
//! child first, other cancellations), so it asks for units the run never
//! answered. [`fill`] simulates every worker count asked, solves the units
//! their schedules issued without a record, stores them in the work
//! directory as ordinary records (marked [`UnitRecord::filled`]), and
//! simulates again, until no schedule issues an unrecorded unit: the
//! simulation is then made of measured units only.
//!
//! A filled unit is solved by the worker's own code ([`UnitSolver`]) with
//! the run's table depth, rules and unit budget, on a solver whose
//! transposition table is emptied before each unit; threads here stand
//! for workers. Each record is written as the coordinator writes one
//! (temp file, rename): a fill stopped at any point keeps every unit it
//! finished, and the next fill goes on from there.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kalah_solver::table::Tables;
use kalah_solver::Game;

use crate::sim::{simulate, Dispatch, Need, Needs, SimError, SimResult};
use kalah_cluster::plan::TopTree;
use kalah_cluster::store::WorkDir;
use kalah_cluster::unit::{RunIdentity, UnitKey, UnitRecord};

use kalah_cluster::worker::UnitSolver;

/// The fewest nodes a partial measurement runs: below it, a unit's
/// measurement costs less than the round that asks for more.
pub const PARTIAL_MIN: u64 = 20_000;

/// How units are solved.
#[derive(Clone, Copy, Debug)]
pub struct FillSettings {
    /// Threads, each with its own solver (a worker).
    pub threads: usize,
    /// Each solver's transposition table, MiB (a worker's `--tt-mb`).
    pub tt_mb: usize,
    /// At most this many units in all are solved; the fill then stops
    /// and says so.
    pub cap: usize,
    /// Progress lines on stderr every this many seconds (0: none).
    pub progress_every: f64,
}

/// One round of a fill: the units the schedules lacked, solved.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FillRound {
    /// `[workers, units]`: units whose cost a schedule guessed, by worker
    /// count (the counts already grounded are not simulated again).
    pub missing: Vec<(usize, usize)>,
    /// Units solved (once, whatever schedules lacked them), answered or
    /// split, and stopped unanswered after the nodes a schedule needed.
    pub units: usize,
    pub partial_units: usize,
    pub nodes: u64,
    pub seconds: f64,
}

/// What a fill did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FillReport {
    pub rounds: Vec<FillRound>,
    /// Units solved to their answer, and units stopped unanswered, in all
    /// rounds, and their nodes.
    pub units: usize,
    pub partial_units: usize,
    pub nodes: u64,
    /// Stopped by [`FillSettings::cap`] with units still missing.
    pub capped: bool,
}

/// What the simulations need besides the records.
pub struct Simulation<'a, 't> {
    /// One top tree a worker count (its speculation set to that count).
    pub trees: &'a [(usize, TopTree<'t>)],
    pub identity: &'a RunIdentity,
    pub dispatch: Dispatch,
    /// The run's unit budget.
    pub budget: u64,
}

impl Simulation<'_, '_> {
    /// Simulates every worker count over `records` (answered units) and
    /// `unanswered` (see [`simulate`]).
    ///
    /// # Errors
    /// As [`simulate`].
    pub fn run(
        &self,
        records: &[UnitRecord],
        unanswered: &[UnitRecord],
    ) -> Result<Vec<SimResult>, SimError> {
        (0..self.trees.len())
            .map(|i| self.one(i, records, unanswered))
            .collect()
    }

    fn one(
        &self,
        i: usize,
        records: &[UnitRecord],
        unanswered: &[UnitRecord],
    ) -> Result<SimResult, SimError> {
        let (p, tree) = &self.trees[i];
        simulate(
            tree,
            self.identity,
            records,
            unanswered,
            *p,
            self.dispatch,
            self.budget,
        )
    }
}

/// Simulates, solves what the schedules lack, stores it in `dir` and
/// adds it to `records` (answered units) or `unanswered` (units stopped
/// after the nodes a schedule needed), again until no schedule lacks a
/// unit or `settings.cap` units were solved. A worker count whose
/// schedule lacks nothing is not simulated again: more records change
/// no unit it issues. Returns the last simulation of each count (with no
/// guessed unit unless the report says `capped`).
///
/// # Errors
/// A simulation that cannot proceed, a solver that cannot be made, a
/// record that cannot be stored.
pub fn fill(
    sim: &Simulation<'_, '_>,
    records: &mut Vec<UnitRecord>,
    unanswered: &mut Vec<UnitRecord>,
    game: &Game,
    tables: Option<&Arc<Tables>>,
    dir: &WorkDir,
    settings: FillSettings,
) -> Result<(Vec<SimResult>, FillReport), String> {
    let mut report = FillReport::default();
    // Each count's last simulation: finished, or stopped with guessed
    // verdicts (a contradiction a guess may have caused: measured, the
    // next round goes on past it).
    let mut rows: Vec<Option<Result<SimResult, SimError>>> = vec![None; sim.trees.len()];
    let guessed = |row: &Result<SimResult, SimError>| match row {
        Ok(r) => r.unrecorded.len(),
        Err(e) => e.guessed.len(),
    };
    loop {
        for (i, row) in rows.iter_mut().enumerate() {
            if row.as_ref().is_none_or(|r| guessed(r) > 0) {
                let r = sim.one(i, records, unanswered);
                match &r {
                    Err(e) if e.guessed.is_empty() => return Err(e.to_string()),
                    Err(e) if settings.progress_every > 0.0 => eprintln!(
                        "kalah-cluster fill: {} workers: stopped ({}), {} units guessed",
                        sim.trees[i].0,
                        e.message,
                        e.guessed.len()
                    ),
                    Ok(r) if settings.progress_every > 0.0 => eprintln!(
                        "kalah-cluster fill: {} workers: {:.2} s simulated, {} units guessed",
                        r.workers,
                        r.seconds,
                        r.unrecorded.len()
                    ),
                    _ => {}
                }
                *row = Some(r);
            }
        }
        let mut merged = Needs::default();
        let mut missing = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let list = match row.as_ref().expect("every count simulated above") {
                Ok(r) => &r.unrecorded,
                Err(e) => &e.guessed,
            };
            if !list.is_empty() {
                missing.push((sim.trees[i].0, list.len()));
            }
            for &(k, n) in list {
                merged.add(k, n);
            }
        }
        let needs = merged.into_vec();
        let finished = |rows: Vec<Option<Result<SimResult, SimError>>>| {
            rows.into_iter()
                .flatten()
                .collect::<Result<Vec<_>, _>>()
                .map_err(String::from)
        };
        if needs.is_empty() {
            return Ok((finished(rows)?, report));
        }
        let room = settings
            .cap
            .saturating_sub(report.units + report.partial_units);
        if room == 0 {
            report.capped = true;
            return Ok((finished(rows)?, report));
        }
        let batch = &needs[..needs.len().min(room)];
        let whole = batch.iter().filter(|(_, n)| *n == Need::Whole).count();
        if settings.progress_every > 0.0 {
            eprintln!(
                "kalah-cluster fill: round {}: {} units to measure ({} whole, {} their first nodes) on {} threads, about {:.2e} nodes (a whole unit as the mean recorded test)",
                report.rounds.len() + 1,
                batch.len(),
                whole,
                batch.len() - whole,
                settings.threads,
                estimate(records, batch, sim.budget),
            );
        }
        let t0 = Instant::now();
        let (answered, stopped) =
            solve_units(game, tables, sim.identity, batch, sim.budget, dir, settings)?;
        let nodes = answered.iter().chain(&stopped).map(|r| r.nodes).sum();
        report.rounds.push(FillRound {
            missing,
            units: answered.len(),
            partial_units: stopped.len(),
            nodes,
            seconds: t0.elapsed().as_secs_f64(),
        });
        report.units += answered.len();
        report.partial_units += stopped.len();
        report.nodes += nodes;
        records.extend(answered);
        unanswered.extend(stopped);
    }
}

/// The nodes a fill of `batch` may take: a whole unit as the mean
/// recorded test (splits included), a partial one as its cap (at most
/// the budget, where it splits).
fn estimate(records: &[UnitRecord], batch: &[(UnitKey, Need)], budget: u64) -> f64 {
    let tests: Vec<u64> = records
        .iter()
        .filter(|r| r.beta.is_some())
        .map(|r| r.nodes)
        .collect();
    let mean = tests.iter().sum::<u64>() as f64 / tests.len().max(1) as f64;
    batch
        .iter()
        .map(|&(_, n)| match n {
            Need::Whole => mean,
            Need::Nodes(n) => {
                let cap = partial_cap(n) as f64;
                if budget > 0 {
                    cap.min(budget as f64)
                } else {
                    cap
                }
            }
        })
        .sum()
}

/// The nodes after which a unit of which the first `n` nodes are needed
/// is stopped.
fn partial_cap(n: u64) -> u64 {
    n.saturating_mul(4).max(PARTIAL_MIN)
}

/// Solves `keys` on `settings.threads` threads, each a solver emptied
/// before every unit, a test stopped and answered split past `budget`
/// nodes, as a worker does. A unit of which only the first `n` nodes are
/// needed ([`Need::Nodes`]) is stopped unanswered past `4 n` nodes (at
/// least [`PARTIAL_MIN`]; the next schedule may cancel it later): a
/// partial record. Stores each as soon as it comes (`units/`,
/// `partial.jsonl`). Returns the answered records and the partial ones,
/// in no particular order.
///
/// # Errors
/// A solver that cannot be made (the table's memory), a record that
/// cannot be stored: the other threads stop after their unit.
pub fn solve_units(
    game: &Game,
    tables: Option<&Arc<Tables>>,
    identity: &RunIdentity,
    keys: &[(UnitKey, Need)],
    budget: u64,
    dir: &WorkDir,
    settings: FillSettings,
) -> Result<(Vec<UnitRecord>, Vec<UnitRecord>), String> {
    let next = AtomicUsize::new(0);
    let nodes = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let out = Mutex::new((Vec::with_capacity(keys.len()), Vec::new()));
    let errors = Mutex::new(Vec::new());
    let last_note = Mutex::new(Instant::now());
    let t0 = Instant::now();
    // Hand-written rather than a rayon pool: each thread owns one solver
    // and its table for the whole fill, and takes the next unit when it
    // is free, longest first not being known in advance.
    std::thread::scope(|s| {
        for _ in 0..settings.threads.max(1) {
            s.spawn(|| {
                let solver = match UnitSolver::new(game.clone(), tables.cloned(), settings.tt_mb) {
                    Ok(solver) => solver,
                    Err(e) => {
                        failed.store(true, Relaxed);
                        errors.lock().expect("no panic").push(e.to_string());
                        return;
                    }
                };
                while !failed.load(Relaxed) {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(&(key, need)) = keys.get(i) else { break };
                    let cap = match need {
                        Need::Whole => u64::MAX,
                        Need::Nodes(n) => partial_cap(n),
                    };
                    solver.forget();
                    let a = solver.solve(key, budget, || solver.nodes() > cap);
                    let record = UnitRecord {
                        filled: true,
                        ..UnitRecord::answer(identity, &key, a.verdict, a.nodes, a.seconds)
                    };
                    let stored = match a.verdict {
                        Some(_) => dir.write(&key, &record),
                        None => dir.append_partial(&record),
                    };
                    if let Err(e) = stored {
                        failed.store(true, Relaxed);
                        errors.lock().expect("no panic").push(e.to_string());
                        return;
                    }
                    let total = nodes.fetch_add(a.nodes, Relaxed) + a.nodes;
                    let done = {
                        let mut o = out.lock().expect("no panic");
                        match a.verdict {
                            Some(_) => o.0.push(record),
                            None => o.1.push(record),
                        }
                        o.0.len() + o.1.len()
                    };
                    if settings.progress_every > 0.0 {
                        let mut last = last_note.lock().expect("no panic");
                        if last.elapsed().as_secs_f64() >= settings.progress_every
                            || done == keys.len()
                        {
                            *last = Instant::now();
                            let secs = t0.elapsed().as_secs_f64();
                            eprintln!(
                                "kalah-cluster fill: {done}/{} units, {:.3e} nodes, {secs:.0} s, {:.3e} nodes/s",
                                keys.len(),
                                total as f64,
                                total as f64 / secs.max(1e-9)
                            );
                        }
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().expect("no panic");
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    Ok(out.into_inner().expect("no panic"))
}
