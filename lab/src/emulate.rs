//! Emulating a run on many workers: every unit solved for real, on the
//! simulated worker it goes to, with that worker's own transposition table.
//!
//! A replay ([`crate::sim`]) gives each unit the cost it had in the
//! recorded run, whose few workers each solved many related units with
//! one table; on many workers a unit's cost is that of a worker which has
//! seen only the units the schedule gave it, and a schedule on many workers
//! asks for units the recording never answered. The emulation measures
//! both: the real coordinator hands units to `P` simulated workers, each
//! with a solver and a transposition table of its own, and each unit is
//! searched for real on its worker's solver. Time is simulated: a unit
//! takes its nodes at a fixed node rate plus a fixed dispatch latency,
//! whatever this machine's load, and its answer reaches the coordinator
//! at that simulated time, in order with the others. Nothing is guessed.
//!
//! A unit's search runs on a thread of its own and waits at a node limit
//! ([`NodeGate`]): before the clock moves to the next answer (or the
//! coordinator's next deadline), every unit that could end sooner searches
//! on to the nodes that take it there ([`EmuEngine::advance`]), and waits.
//! So a unit the coordinator stops has searched, and stored in its
//! worker's table, what a real worker would have by then (up to
//! [`MIN_SLICE`] nodes more). Units of one step search side by side on
//! [`EmuSettings::threads`] threads.
//!
//! By default every simulated worker has a table of its own. With
//! [`EmuSettings::rank_workers`] above 1 the workers of one simulated
//! machine search on one shared table, as the search threads of one
//! rank on a cluster node would: each sees what the others stored, at
//! the resolution of a step of the clock (a unit searched later in a
//! step may read what another stored earlier in the same step).
//!
//! With [`EmuSettings::share_work`], the machines hand each other the
//! table entries of much work (a subtree of `2^(share_work - 1)` nodes or
//! more, [`kalah_solver::search::share`]), as real ranks would through
//! MPI: an entry stored during a step of the clock reaches every other
//! machine's table at the end of that step (at least [`MIN_SLICE`] nodes
//! of every unit's search later).
//!
//! Assumptions (stated with every result):
//! * a unit's search on a simulated worker is the one a real worker with a
//!   table of [`EmuSettings::tt_mb`] MiB (or its machine's shared one)
//!   and the same earlier units makes;
//!   the node rate is the same for every unit and worker (unless
//!   [`EmuSettings::needed_speed`], a what-if, says otherwise);
//! * a test is split when its search passes the unit budget, as a real
//!   worker's is (within 1,024 nodes of it);
//! * the coordinator's own work (taking answers in, planning the top
//!   tree after each batch of them, handing units out) takes no
//!   simulated time, [`SimResult::coordinator_seconds`] says what it took
//!   here; or, with [`EmuSettings::charge_plans`], it takes on the clock
//!   the time it took here, outside the engine's calls (answers that
//!   come meanwhile wait for the next plan): the coordinator thread's CPU
//!   time, which depends on this machine's speed, not on the emulation's
//!   threads beside it (times [`EmuSettings::plan_cost`], a what-if);
//! * workers are identical and never fail.
//!
//! The two what-ifs ([`EmuSettings::needed_speed`],
//! [`EmuSettings::plan_cost`]) bound what a faster coordinator and
//! threads inside a unit could give; with both at 1 the figures are a
//! measurement.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use kalah::service::setup::{new_solver_on, StopBy};
use kalah_solver::search::{
    Interrupted, NodeHook, Published, Publisher, SearchConfig, Solver, TranspositionTable,
};
use kalah_solver::table::Tables;
use kalah_solver::Game;

use crate::meter::{coordinate_metered, LabEngine};
use crate::sim::{Needs, SimResult};
use kalah_cluster::coordinator::{Discard, Engine, Issue, Policy, Reply, Settings, Sink};
use kalah_cluster::gate::{GateStop, NodeGate};
use kalah_cluster::plan::{Solved, TopTree};
use kalah_cluster::unit::{Known, RunIdentity, UnitKey, UnitRecord, Verdict, EXACT};
use kalah_cluster::worker::{add_line, inside, known, search_unit, UnitSearch};
use kalah_cluster::ClusterError;

/// How the emulated workers run.
#[derive(Clone, Copy, Debug)]
pub struct EmuSettings {
    /// Nodes a second of one simulated worker.
    pub rate: f64,
    /// Seconds to hand out a unit and get its answer back.
    pub latency: f64,
    /// Each simulated worker's transposition table, MiB: its share of its
    /// machine's when [`EmuSettings::rank_workers`] share one.
    pub tt_mb: usize,
    /// Simulated workers a machine (1: each its own table): workers
    /// `h * rank_workers ..` of machine `h` search on one table of
    /// `rank_workers * tt_mb` MiB, as a rank's search threads on one node
    /// would ([`Solver::sharing`]).
    pub rank_workers: usize,
    /// The unit budget, nodes (0: none).
    pub budget: u64,
    /// Units searching at once in this process: each step of the clock
    /// lets its units search on this many at a time.
    pub threads: usize,
    /// The coordinator's [`Policy`].
    pub policy: Policy,
    /// Progress lines on stderr every this many wall-clock seconds (0:
    /// none).
    pub progress_every: f64,
    /// The coordinator's own work (plans, taking answers in, handing
    /// units out), timed here, passes on the simulated clock (workers'
    /// answers wait for it, as a real coordinator's do).
    pub charge_plans: bool,
    /// The least work of a table entry one machine hands the others
    /// (0: none, every machine keeps its table to itself).
    pub share_work: u8,
    /// A what-if, 1 for a measurement: a unit searches at this many
    /// times the rate while the search needs it (not as speculation),
    /// as if its machine gave it that many cores at no cost to the other
    /// units and with no loss to splitting. Bounds what threads inside
    /// a unit could give; predicts nothing.
    pub needed_speed: f64,
    /// With [`EmuSettings::charge_plans`]: the coordinator's own work
    /// passes on the clock at this many times the CPU time it took here
    /// (a what-if below 1: a faster coordinator; 1 for a measurement).
    pub plan_cost: f64,
}

impl EmuSettings {
    /// Workers at `rate` nodes a second, `latency` seconds a dispatch,
    /// each with a table of its own of `tt_mb` MiB, and the unit budget
    /// `budget` (0: none); the rest as `kalah-lab simulate --emulate`
    /// without its other flags: the coordinator's [`Policy::DEFAULT`],
    /// two threads here, no progress lines, no table entries handed
    /// between machines, the coordinator's work off the clock and both
    /// what-ifs at 1. A run so set makes the same schedule every time
    /// (one table a worker, the clock not moved by this machine's
    /// speed).
    pub const fn new(rate: f64, latency: f64, tt_mb: usize, budget: u64) -> EmuSettings {
        EmuSettings {
            rate,
            latency,
            tt_mb,
            rank_workers: 1,
            budget,
            threads: 2,
            policy: Policy::DEFAULT,
            progress_every: 0.0,
            charge_plans: false,
            share_work: 0,
            needed_speed: 1.0,
            plan_cost: 1.0,
        }
    }
}

/// An emulated run: the simulation's account of it, the answer, and what
/// the emulation itself cost.
#[derive(Clone, Debug)]
pub struct EmuResult {
    pub sim: SimResult,
    pub solved: Solved,
    /// Nodes this process searched: those of every unit, a stopped one's
    /// up to the step of the clock it was stopped in (its simulated cost
    /// counts only the time it ran).
    pub searched_nodes: u64,
    /// Simulated workers that were handed a unit (each a table).
    pub workers_used: usize,
    /// Wall-clock seconds of the emulation.
    pub wall_seconds: f64,
    /// Table entries the machines handed each other
    /// ([`EmuSettings::share_work`]), each counted once however many
    /// machines took it.
    pub shared_entries: u64,
    /// Wall-clock seconds this process took to store them into the other
    /// machines' tables (each entry once a machine that took it): what a
    /// rank's thread taking shares in would spend, all machines together.
    pub share_seconds: f64,
}

/// The fewest nodes a unit searches on each step of the clock (see
/// [`EmuEngine::advance`]): fewer hand-offs between this process's threads,
/// at the price of a unit stopped up to this many nodes past the moment
/// its stop came.
const MIN_SLICE: u64 = 8192;

/// A simulated worker: its solver, whose searches wait at its gate.
struct EmuWorker {
    solver: Arc<Solver>,
    gate: Arc<NodeGate>,
    stop: Arc<AtomicBool>,
}

/// A unit on its simulated worker.
struct Running {
    issue: Issue,
    began: f64,
    /// Its search, while it runs (waiting at the gate between steps).
    search: Option<JoinHandle<UnitSearch>>,
    /// Nodes searched so far (where it waits).
    at: u64,
    /// `None` until answered or stopped; then its simulated end, verdict
    /// (`None`: stopped) and nodes.
    end: Option<f64>,
    verdict: Option<Verdict>,
    nodes: u64,
    /// What its worker's table held afterwards ([`kalah_cluster::worker::known`]),
    /// read when its search ended.
    known: Vec<Known>,
    /// The child a stopped search was in ([`kalah_cluster::worker::inside`]).
    inside: Option<u8>,
    /// Since simulated time `mark.0`, when it had searched `mark.1`
    /// nodes, it searches at `speed` times the rate
    /// ([`EmuSettings::needed_speed`]); it starts at `(began + latency,
    /// 0)` and speed 1.
    mark: (f64, u64),
    speed: f64,
}

impl Running {
    /// The earliest it can end: after the nodes already searched.
    fn earliest(&self, rate: f64) -> f64 {
        self.end.unwrap_or(self.ends_after(self.at, rate))
    }

    /// When it ends after `nodes` nodes (at least [`Running::mark`]'s),
    /// the dispatch latency included.
    fn ends_after(&self, nodes: u64, rate: f64) -> f64 {
        self.mark.0 + (nodes as f64 - self.mark.1 as f64) / (rate * self.speed)
    }

    /// The nodes it has searched by simulated time `t`: those of its mark
    /// before the mark.
    fn nodes_at(&self, t: f64, rate: f64) -> f64 {
        self.mark.1 as f64 + (t - self.mark.0).max(0.0) * rate * self.speed
    }

    /// Searches at `speed` times the rate from `clock` on (from its mark,
    /// if that is later); an ended unit keeps its end.
    fn set_speed(&mut self, clock: f64, rate: f64, speed: f64) {
        if self.end.is_some() || speed == self.speed {
            return;
        }
        let t = clock.max(self.mark.0);
        self.mark = (t, self.nodes_at(t, rate).floor() as u64);
        self.speed = speed;
    }

    /// The nodes past which a test is split (`None`: an exact unit, or no
    /// budget).
    fn split_budget(&self) -> Option<u64> {
        (self.issue.budget > 0 && self.issue.key.beta != EXACT).then_some(self.issue.budget)
    }

    /// The nodes its search may run to on the way to `nodes`: no further
    /// than one past its split budget, where it is split.
    fn gate_limit(&self, nodes: u64) -> u64 {
        self.split_budget()
            .map_or(nodes, |budget| nodes.min(budget + 1))
    }

    /// Answered (`Some` verdict, or split) after `nodes` nodes.
    fn settle(&mut self, verdict: Option<Verdict>, nodes: u64, rate: f64) {
        self.verdict = verdict;
        self.nodes = nodes;
        self.end = Some(self.ends_after(nodes, rate));
    }
}

struct EmuEngine<'g> {
    game: &'g Game,
    tables: Option<&'g Arc<Tables>>,
    settings: EmuSettings,
    /// Each simulated worker, made when it gets its first unit.
    workers: Vec<Option<EmuWorker>>,
    /// Each simulated machine's table, made with its first worker.
    hosts: Vec<Option<Arc<TranspositionTable>>>,
    /// Each simulated machine's entries for the others, with
    /// [`EmuSettings::share_work`].
    publishers: Vec<Option<Arc<Publisher>>>,
    shared_entries: u64,
    share_seconds: f64,
    running: Vec<Option<Running>>,
    clock: f64,
    busy: f64,
    longest: f64,
    searched: u64,
    /// Progress lines on stderr every this many wall-clock seconds (0:
    /// none), the last one when.
    progress_every: f64,
    noted: Instant,
}

impl EmuEngine<'_> {
    /// Stops worker `w`'s search (it waits at its gate or has returned)
    /// and returns what it found and its nodes.
    fn stop_search(&mut self, w: usize) -> (Result<Verdict, Interrupted>, u64) {
        let worker = self.workers[w].as_ref().expect("a running unit's worker");
        let r = self.running[w].as_mut().expect("a running unit");
        let search = r.search.take().expect("a live search");
        worker.stop.store(true, Relaxed);
        worker.gate.release();
        let result = search.join().expect("a unit search does not panic");
        let nodes = worker.solver.stats().nodes;
        self.searched += nodes;
        r.known = known(&worker.solver, r.issue.key.board);
        let result = match result {
            Ok((v, line)) => {
                add_line(&mut r.known, line);
                Ok(v)
            }
            Err(e) => {
                r.inside = inside(&worker.solver, r.issue.key);
                Err(e)
            }
        };
        (result, nodes)
    }

    /// Hands the entries each machine published since the last call to
    /// every other machine's table ([`EmuSettings::share_work`]).
    fn share(&mut self) {
        let rw = self.settings.rank_workers.max(1);
        let news: Vec<(usize, Vec<Published>)> = self
            .publishers
            .iter()
            .enumerate()
            .filter_map(|(h, p)| Some((h, p.as_ref()?.take())))
            .filter(|(_, entries)| !entries.is_empty())
            .collect();
        if news.is_empty() {
            return;
        }
        self.shared_entries += news.iter().map(|(_, e)| e.len() as u64).sum::<u64>();
        let started = Instant::now();
        for host in 0..self.publishers.len() {
            // One solver of the machine: its workers share its table.
            let Some(solver) = (host * rw..((host + 1) * rw).min(self.workers.len()))
                .find_map(|w| self.workers[w].as_ref())
                .map(|w| &w.solver)
            else {
                continue;
            };
            for (from, entries) in &news {
                if *from != host {
                    solver.learn(entries);
                }
            }
        }
        self.share_seconds += started.elapsed().as_secs_f64();
    }

    /// Lets every unanswered unit that could end before `horizon`
    /// (simulated seconds; infinite: no answer known and no deadline, see
    /// below) search on to it: each to the nodes that take it there at the
    /// rate (at least [`MIN_SLICE`] more), where it waits, or to its
    /// answer. Units go side by side, the settings' threads at a time. A
    /// test that passes its split budget is stopped there and split.
    ///
    /// Returns whether any unit searched.
    fn advance(&mut self, horizon: f64) -> bool {
        let rate = self.settings.rate;
        let open: Vec<f64> = self
            .running
            .iter()
            .flatten()
            .filter(|r| r.end.is_none())
            .map(|r| r.earliest(rate))
            .collect();
        // No answer known and no deadline: the first unit to end is the
        // next event, so all search on in steps of a quarter of the
        // simulated time since the clock (at least MIN_SLICE nodes), never
        // more than that past the first answer; one unit alone runs to its
        // end.
        let horizon = if horizon.is_infinite() && open.len() > 1 {
            let first = open.iter().copied().fold(f64::INFINITY, f64::min);
            first + (0.25 * (first - self.clock)).max(MIN_SLICE as f64 / rate)
        } else {
            horizon
        };
        let behind: Vec<(usize, u64)> = (0..self.running.len())
            .filter_map(|w| {
                let r = self.running[w].as_ref()?;
                if r.end.is_some() || r.earliest(rate) >= horizon {
                    return None;
                }
                let limit = if horizon.is_finite() {
                    (r.nodes_at(horizon, rate).ceil() as u64).max(r.at + MIN_SLICE)
                } else {
                    u64::MAX
                };
                Some((w, r.gate_limit(limit)))
            })
            .collect();
        for batch in behind.chunks(self.settings.threads.max(1)) {
            for &(w, limit) in batch {
                self.workers[w]
                    .as_ref()
                    .expect("started")
                    .gate
                    .open_to(limit);
            }
            for &(w, _) in batch {
                self.take_in(w);
            }
        }
        self.share();
        if self.progress_every > 0.0 && self.noted.elapsed().as_secs_f64() >= self.progress_every {
            self.noted = Instant::now();
            eprintln!(
                "kalah-cluster: emulating {} workers: {:.2} simulated s, {:.3e} nodes searched here",
                self.running.len(),
                self.clock,
                self.searched as f64
            );
        }
        !behind.is_empty()
    }

    /// Takes in where worker `w`'s search waits, once its gate was opened:
    /// paused past its budget, it is split; finished, it is answered.
    fn take_in(&mut self, w: usize) {
        let rate = self.settings.rate;
        let stop = self.workers[w].as_ref().expect("started").gate.stopped();
        let r = self.running[w].as_mut().expect("a running unit");
        match stop {
            GateStop::Paused(n) => {
                r.at = n;
                if r.split_budget().is_some_and(|budget| n > budget) {
                    let (_, nodes) = self.stop_search(w);
                    let r = self.running[w].as_mut().expect("a running unit");
                    r.settle(Some(Verdict::Split), nodes, rate);
                }
            }
            GateStop::Finished => {
                let (result, nodes) = self.stop_search(w);
                let r = self.running[w].as_mut().expect("a running unit");
                // A search that was never stopped returns its answer.
                r.settle(result.ok(), nodes, rate);
            }
        }
    }
}

impl Engine for EmuEngine<'_> {
    fn workers(&self) -> usize {
        self.running.len()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError> {
        if self.workers[worker].is_none() {
            let config = SearchConfig {
                tt_mb: self.settings.tt_mb,
                threads: 1,
                ..SearchConfig::default()
            };
            let host = worker / self.settings.rank_workers.max(1);
            let shared = if self.settings.rank_workers > 1 {
                let mb = self.settings.tt_mb * self.settings.rank_workers;
                if self.hosts[host].is_none() {
                    let tt = TranspositionTable::new(mb).map_err(|e| {
                        ClusterError::Engine(format!(
                            "simulated machine {host}: a table of {mb} MiB: {e}"
                        ))
                    })?;
                    self.hosts[host] = Some(Arc::new(tt));
                }
                self.hosts[host].clone()
            } else {
                None
            };
            let mut solver = new_solver_on(
                self.game.clone(),
                config,
                self.tables.cloned(),
                StopBy::OwnFlag,
                shared,
            )
            .map_err(|e| ClusterError::Engine(format!("simulated worker {worker}: {e}")))?;
            let gate = Arc::new(NodeGate::new());
            solver.set_node_hook(Arc::clone(&gate) as Arc<dyn NodeHook>);
            if self.settings.share_work > 0 {
                let work = self.settings.share_work;
                let p = self.publishers[host].get_or_insert_with(|| Arc::new(Publisher::new(work)));
                solver.set_publisher(Arc::clone(p));
            }
            let stop = solver.stop_flag().expect("a solver's own flag");
            self.workers[worker] = Some(EmuWorker {
                solver: Arc::new(solver),
                gate,
                stop,
            });
        }
        let w = self.workers[worker].as_ref().expect("made above");
        w.gate.rearm();
        w.stop.store(false, Relaxed);
        w.solver.reset_stats();
        let (solver, gate, key) = (Arc::clone(&w.solver), Arc::clone(&w.gate), issue.key);
        let search = std::thread::Builder::new()
            .name(format!("emulated-worker-{worker}"))
            .spawn(move || {
                let result = search_unit(&solver, key);
                gate.finish();
                result
            })
            .map_err(|e| {
                ClusterError::Engine(format!(
                    "simulated worker {worker}: cannot start its search: {e}"
                ))
            })?;
        self.running[worker] = Some(Running {
            issue: *issue,
            began: self.clock,
            search: Some(search),
            at: 0,
            end: None,
            verdict: None,
            nodes: 0,
            known: Vec::new(),
            inside: None,
            mark: (self.clock + self.settings.latency, 0),
            speed: 1.0,
        });
        Ok(())
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError> {
        let (clock, rate, latency) = (self.clock, self.settings.rate, self.settings.latency);
        let Some(r) = self.running[worker].as_mut().filter(|r| r.issue.seq == seq) else {
            return Ok(());
        };
        if r.end.is_none() && r.search.is_some() && r.earliest(rate) <= clock + latency {
            // Still searching, and it may end before the stop reaches it:
            // it searches on to the nodes that take it there, or only to
            // its budget's split if that comes first.
            let limit = r.gate_limit(r.nodes_at(clock + latency, rate).floor() as u64);
            if limit > r.at {
                self.workers[worker]
                    .as_ref()
                    .expect("a running unit's worker")
                    .gate
                    .open_to(limit);
                self.take_in(worker);
            }
        }
        let r = self.running[worker].as_mut().expect("found above");
        if r.end.is_some_and(|end| end <= clock + latency) {
            // It answers before the stop reaches it.
            return Ok(());
        }
        let nodes = r.nodes_at(clock + latency, rate) as u64;
        if r.search.is_some() {
            let _ = self.stop_search(worker);
        }
        let r = self.running[worker].as_mut().expect("found above");
        r.end = Some(clock + latency);
        r.verdict = None;
        r.nodes = nodes;
        Ok(())
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        loop {
            let answered = self
                .running
                .iter()
                .enumerate()
                .filter_map(|(w, r)| r.as_ref().and_then(|r| r.end).map(|e| (w, e)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let horizon = answered
                .map_or(f64::INFINITY, |a| a.1)
                .min(until.unwrap_or(f64::INFINITY));
            if self.advance(horizon) {
                continue;
            }
            let Some((w, end)) = answered else {
                if let Some(t) = until {
                    self.clock = self.clock.max(t);
                    return Ok(None);
                }
                return Err(ClusterError::engine("no emulated unit is running"));
            };
            if let Some(t) = until.filter(|&t| t < end) {
                self.clock = self.clock.max(t);
                return Ok(None);
            }
            let r = self.running[w].take().expect("found above");
            self.clock = self.clock.max(end);
            let seconds = end - r.began;
            self.busy += seconds;
            self.longest = self.longest.max(seconds);
            return Ok(Some(Reply {
                worker: w,
                seq: r.issue.seq,
                verdict: r.verdict,
                nodes: r.nodes,
                seconds,
                known: r.known,
                inside: r.inside.filter(|_| r.verdict == Some(Verdict::Split)),
            }));
        }
    }

    fn now(&self) -> f64 {
        self.clock
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }

    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        self.wait(Some(self.clock))
    }
}

impl LabEngine for EmuEngine<'_> {
    fn spend(&mut self, seconds: f64) {
        if self.settings.charge_plans {
            self.clock += seconds * self.settings.plan_cost;
        }
    }

    fn needed(&mut self, worker: usize, seq: u64, needed: bool) {
        let speed = if needed {
            self.settings.needed_speed
        } else {
            1.0
        };
        let (clock, rate) = (self.clock, self.settings.rate);
        if let Some(r) = self.running[worker].as_mut().filter(|r| r.issue.seq == seq) {
            r.set_speed(clock, rate, speed);
        }
    }
}

impl Drop for EmuEngine<'_> {
    /// Stops the searches still waiting (a run that failed part way).
    fn drop(&mut self) {
        for w in 0..self.running.len() {
            if self.running[w].as_ref().is_some_and(|r| r.search.is_some()) {
                let _ = self.stop_search(w);
            }
        }
    }
}

/// Emulates the solve of `tree` on `workers` simulated workers, each unit
/// searched for real on its worker's own solver, with the settings' unit
/// budget, over `tables`; with `records`, every unit answered or stopped
/// is written there, one JSON record a line.
///
/// # Errors
/// A table that cannot be allocated, a records file that cannot be
/// written (named), or a coordinator that cannot go on.
pub fn emulate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    game: &Game,
    tables: Option<&Arc<Tables>>,
    workers: usize,
    settings: EmuSettings,
    records: Option<&Path>,
) -> Result<EmuResult, ClusterError> {
    let wall = Instant::now();
    let mut engine = EmuEngine {
        game,
        tables,
        settings,
        workers: (0..workers).map(|_| None).collect(),
        hosts: (0..workers.div_ceil(settings.rank_workers.max(1)))
            .map(|_| None)
            .collect(),
        publishers: (0..workers.div_ceil(settings.rank_workers.max(1)))
            .map(|_| None)
            .collect(),
        shared_entries: 0,
        share_seconds: 0.0,
        running: (0..workers).map(|_| None).collect(),
        clock: 0.0,
        busy: 0.0,
        longest: 0.0,
        searched: 0,
        progress_every: settings.progress_every,
        noted: Instant::now(),
    };
    let mut file = match records {
        Some(path) => Some(RecordFile::create(path)?),
        None => None,
    };
    let sink: &mut dyn Sink = match file.as_mut() {
        Some(f) => f,
        None => &mut Discard,
    };
    let done = coordinate_metered(
        tree,
        identity,
        &mut engine,
        sink,
        Settings {
            budget: settings.budget,
            policy: settings.policy,
            progress_every: settings.progress_every,
            progress_json: false,
            model_nodes: None,
        },
    )?;
    if let Some(f) = file {
        f.close()?;
    }
    let solved = done.0.solved.clone();
    let sim = SimResult::of(
        tree,
        workers,
        done,
        (engine.busy, engine.longest),
        Needs::default(),
        0,
    );
    Ok(EmuResult {
        sim,
        solved,
        searched_nodes: engine.searched,
        workers_used: engine.workers.iter().flatten().count(),
        shared_entries: engine.shared_entries,
        share_seconds: engine.share_seconds,
        wall_seconds: wall.elapsed().as_secs_f64(),
    })
}

/// `simulate --emulate --records FILE`: every unit of the run, answered or
/// stopped, one JSON record a line.
struct RecordFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl RecordFile {
    fn create(path: &Path) -> Result<RecordFile, ClusterError> {
        let file = File::create(path)
            .map_err(|e| ClusterError::Engine(format!("{}: {e}", path.display())))?;
        Ok(RecordFile {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    fn line(&mut self, record: &UnitRecord) -> Result<(), ClusterError> {
        let text = serde_json::to_string(record).expect("a record is plain data");
        writeln!(self.out, "{text}")
            .map_err(|e| ClusterError::Engine(format!("{}: {e}", self.path.display())))
    }

    fn close(mut self) -> Result<(), ClusterError> {
        self.out
            .flush()
            .map_err(|e| ClusterError::Engine(format!("{}: {e}", self.path.display())))
    }
}

impl Sink for RecordFile {
    fn answered(&mut self, _: &UnitKey, record: &UnitRecord) -> Result<(), ClusterError> {
        self.line(record)
    }

    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), ClusterError> {
        self.line(record)
    }
}
