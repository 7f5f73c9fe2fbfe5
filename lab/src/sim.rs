//! Replaying a recorded run on any number of simulated workers.
//!
//! The simulation runs the real coordinator ([`coordinate`]) against an
//! engine whose workers take, for each unit, the time its recorded nodes
//! take at a fixed node rate, plus a fixed dispatch latency. So the order
//! of units, the waits of cut nodes on their first child, the MTD(f) tests
//! one after another, the speculation of idle workers and the
//! cancellations are those of the real coordinator with that many workers.
//!
//! A schedule on more workers than the recorded run asks for units that
//! run never answered; [`crate::fill`] solves those for real and adds them
//! to the work directory, until every unit a schedule issues has a record.
//!
//! Assumptions (stated with every result):
//! * a unit costs its recorded nodes, whichever worker runs it and
//!   whatever that worker ran before. A unit of the recorded run was solved
//!   by a worker whose transposition table kept the entries of its earlier
//!   units; a filled unit by a solver whose table was empty. The same unit
//!   may take fewer nodes on a warm worker, so filled costs lean high
//!   for few workers; on many, a worker sees few related units, and the
//!   recorded costs lean low ([`Dispatch::recorded_cost`] scales them);
//! * a unit's verdict is its record's: the exact answer to its test, or
//!   a split when its search ran past the unit budget;
//! * a cancelled unit costs the time it ran before the cancellation
//!   reached it. That is measured when the unit has a record, or when a
//!   worker (a cancelled unit of the run) or a fill (`partial.jsonl`) ran
//!   it at least that long unanswered: a schedule that cancels a unit
//!   early needs only its first nodes measured;
//! * a unit whose cost the schedule needs and nobody measured (an answer
//!   the record lacks, a cancellation past the nodes measured) is counted
//!   as `guessed`: it costs the unit budget (the most a test costs before
//!   it is split; the median recorded test without a budget; or
//!   [`Dispatch::guess_nodes`]) or its partial nodes, if more, and gets the verdict the recorded results
//!   imply, else the one the top tree expects. The simulation goes on to
//!   find every unit its schedule needs, but its times are then not
//!   measured ones; none is left once the record is filled;
//! * the coordinator's own work (planning the top tree on every answer)
//!   takes no simulated time; [`SimResult::plan_seconds`] says what it
//!   took here;
//! * workers are identical and never fail.

use std::collections::HashMap;

use serde::Serialize;

use kalah_cluster::coordinator::{
    Discard, Engine, Finished, Issue, Link, Policy, Reply, Settings, UnitCounts,
};
use kalah_cluster::facts::Facts;
use kalah_cluster::plan::TopTree;
use kalah_cluster::unit::{Known, RunIdentity, UnitKey, UnitRecord, Verdict, EXACT};
use kalah_cluster::ClusterError;

use crate::meter::{coordinate_metered, LabEngine, OwnSeconds};

/// A simulated run.
#[derive(Clone, Debug)]
pub struct SimResult {
    pub workers: usize,
    /// The top tree's [`TopTree::ahead`].
    pub ahead: usize,
    /// The top tree's [`TopTree::cut_early`].
    pub cut_early: u32,
    /// The top tree's [`TopTree::fail_soft`].
    pub fail_soft: bool,
    /// Simulated seconds from the first unit to the answer.
    pub seconds: f64,
    /// Worker-seconds spent on units (cancelled ones included).
    pub busy_seconds: f64,
    /// The longest single unit, in seconds.
    pub longest_unit: f64,
    /// When each step of the root search was decided.
    pub timeline: Vec<(f64, String)>,
    /// Units whose cost in this schedule was not measured (guessed), in
    /// the order first issued, and what a fill must measure of each.
    pub unrecorded: Vec<(UnitKey, Need)>,
    /// Issues answered from records a fill added.
    pub filled_issues: u64,
    /// What bounds the run: its critical chain.
    pub chain: Chain,
    /// Times the coordinator planned the top tree, and the seconds of its
    /// thread's CPU time that took here.
    pub plans: u64,
    pub plan_seconds: f64,
    /// Seconds of all of the coordinator's own work here (its thread's
    /// CPU time), plans included
    /// ([`OwnSeconds::coordinator`]), and of
    /// those, taking answers in and handing units out.
    pub coordinator_seconds: f64,
    pub intake_seconds: f64,
    pub handout_seconds: f64,
    /// The coordinator's account of units and nodes, by kind (every
    /// node run: [`UnitCounts::total_nodes`]).
    pub counts: UnitCounts,
}

impl SimResult {
    /// The account of a run of the coordinator over `tree` on `workers`
    /// simulated workers: what it found and spent (`done`), the workers'
    /// `(busy, longest unit)` seconds, the units it guessed and the issues
    /// answered from filled records.
    pub(crate) fn of(
        tree: &TopTree<'_>,
        workers: usize,
        (done, own): (Finished, OwnSeconds),
        (busy, longest): (f64, f64),
        guessed: Needs,
        filled_issues: u64,
    ) -> SimResult {
        SimResult {
            plans: done.plans,
            plan_seconds: own.plan,
            coordinator_seconds: own.coordinator,
            intake_seconds: own.intake,
            handout_seconds: own.handout,
            counts: done.counts,
            workers,
            ahead: tree.ahead,
            cut_early: tree.cut_early,
            fail_soft: tree.fail_soft,
            seconds: done.seconds,
            busy_seconds: busy,
            longest_unit: longest,
            chain: Chain::of(&done.chain, &done.timeline, &guessed),
            timeline: done.timeline,
            unrecorded: guessed.into_vec(),
            filled_issues,
        }
    }

    /// The fraction of worker time spent idle.
    pub fn idle(&self) -> f64 {
        1.0 - self.busy_seconds / (self.seconds * self.workers as f64)
    }
}

/// The critical chain of a simulated run ([`kalah_cluster::coordinator::Finished::chain`]),
/// summed: its seconds add up to the run's, up to the last plan.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Chain {
    /// Units on the chain.
    pub units: usize,
    /// Seconds they ran (dispatch latency included): no number of workers
    /// runs this schedule in less.
    pub unit_seconds: f64,
    /// Seconds they waited for a free worker after they were needed.
    pub wait_seconds: f64,
    /// Its longest unit, in seconds.
    pub longest_unit_seconds: f64,
    /// Of its units, those split at the unit budget (their whole run
    /// spent before their children could start), and their seconds.
    pub split_units: usize,
    pub split_seconds: f64,
    /// Of its units, those whose cost was guessed, and their seconds.
    pub guessed_units: usize,
    pub guessed_seconds: f64,
    /// By step of the root search (the guess, each MTD(f) test, the
    /// perfect game): the step, its chain units and their seconds.
    pub steps: Vec<ChainStep>,
}

/// The part of the critical chain in one step of the root search.
#[derive(Clone, Debug, Serialize)]
pub struct ChainStep {
    /// The step as the timeline names it (`guess +8`, `>=10`, `<14`,
    /// `perfect game`).
    pub step: String,
    /// When the step was decided.
    pub decided_at: f64,
    pub units: usize,
    /// Seconds the chain's units of this step ran, and waited for a worker.
    pub unit_seconds: f64,
    pub wait_seconds: f64,
}

impl Chain {
    /// Sums `links`, each to the first step of `timeline` decided at or
    /// after its answer; `guessed` says which units' costs were guessed.
    fn of(links: &[Link], timeline: &[(f64, String)], guessed: &Needs) -> Chain {
        let mut c = Chain {
            steps: timeline
                .iter()
                .map(|(t, s)| ChainStep {
                    step: s.clone(),
                    decided_at: *t,
                    units: 0,
                    unit_seconds: 0.0,
                    wait_seconds: 0.0,
                })
                .collect(),
            ..Chain::default()
        };
        for l in links {
            let run = l.answered_at - l.issued_at;
            let wait = l.issued_at - l.needed_at;
            c.units += 1;
            c.unit_seconds += run;
            c.wait_seconds += wait;
            c.longest_unit_seconds = c.longest_unit_seconds.max(run);
            if l.verdict == Verdict::Split {
                c.split_units += 1;
                c.split_seconds += run;
            }
            if guessed.contains(&l.key) {
                c.guessed_units += 1;
                c.guessed_seconds += run;
            }
            if let Some(s) = c.steps.iter_mut().find(|s| s.decided_at >= l.answered_at) {
                s.units += 1;
                s.unit_seconds += run;
                s.wait_seconds += wait;
            }
        }
        c
    }
}

/// What the simulation knows of a unit's cost.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cost {
    /// A record: its nodes and verdict.
    Measured(u64),
    /// Only that it runs past this many nodes unanswered (a cancelled
    /// unit of the run, a fill's partial one; 0: nothing known). It is
    /// measured if the schedule cancels it within these nodes; else it
    /// is answered after these nodes or the guess, whichever is more.
    Open(u64),
}

/// Units and what must be measured of each: in the order first noted,
/// each once, with the larger of its needs. A schedule notes the units
/// whose cost it guessed; a fill merges the notes of several schedules.
#[derive(Clone, Debug, Default)]
pub struct Needs {
    list: Vec<(UnitKey, Need)>,
    at: HashMap<UnitKey, usize>,
}

impl Needs {
    /// Notes that `key` needs `need` measured.
    pub fn add(&mut self, key: UnitKey, need: Need) {
        match self.at.get(&key) {
            Some(&i) => self.list[i].1 = self.list[i].1.max(need),
            None => {
                self.at.insert(key, self.list.len());
                self.list.push((key, need));
            }
        }
    }

    /// Whether `key` was noted.
    pub fn contains(&self, key: &UnitKey) -> bool {
        self.at.contains_key(key)
    }

    /// The units noted, first noted first.
    pub fn into_vec(self) -> Vec<(UnitKey, Need)> {
        self.list
    }
}

/// What a fill must measure of a unit a schedule issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The whole unit: its answer, or its split at the budget.
    Whole,
    /// Its first this many nodes (the schedule cancelled it then).
    Nodes(u64),
}

impl Need {
    /// The larger need of two.
    pub fn max(self, other: Need) -> Need {
        match (self, other) {
            (Need::Nodes(a), Need::Nodes(b)) => Need::Nodes(a.max(b)),
            _ => Need::Whole,
        }
    }
}

struct Running {
    issue: Issue,
    began: f64,
    end: f64,
    verdict: Option<Verdict>,
    nodes: u64,
    cost: Cost,
    /// The bounds its record says the worker's table held afterwards.
    known: Vec<Known>,
}

struct SimEngine<'a> {
    /// Waves (Slurm job arrays): the seconds a wave costs beyond its
    /// longest unit; `None`: units dispatched one by one (MPI).
    waves: Option<f64>,
    /// Replies of a finished wave not yet handed to the coordinator.
    delivered: std::collections::VecDeque<Reply>,
    /// The record answering each unit.
    answered: &'a HashMap<UnitKey, &'a UnitRecord>,
    /// Nodes units ran unanswered (the most of each).
    beyond: &'a HashMap<UnitKey, u64>,
    oracle: &'a Facts,
    /// Houses a side, to name a board.
    pits: usize,
    guess_nodes: u64,
    /// [`Dispatch::recorded_cost`].
    recorded_cost: f64,
    /// The unit budget (0: none).
    budget: u64,
    rate: f64,
    latency: f64,
    clock: f64,
    running: Vec<Option<Running>>,
    busy: f64,
    longest: f64,
    /// Units issued without enough measured, and what they need.
    unrecorded: Needs,
    filled: u64,
}

impl<'a> SimEngine<'a> {
    /// The verdict, cost and its kind of `issue` in this simulation, and
    /// the bounds its record says the worker's table held afterwards.
    ///
    /// # Errors
    /// An exact unit without a record whose value the records do not
    /// imply: no verdict can be guessed for it (a test's can), so the
    /// schedule stops there with the unit among those it guessed, for a
    /// fill to solve.
    fn outcome(&mut self, issue: &Issue) -> Result<(Verdict, Cost, &'a [Known]), ClusterError> {
        let key = &issue.key;
        if let Some(&r) = self.answered.get(key) {
            let (v, nodes, filled) = (r.verdict, r.nodes, r.filled);
            self.filled += u64::from(filled);
            if filled || self.recorded_cost == 1.0 || v == Verdict::Split {
                return Ok((v, Cost::Measured(nodes), &r.known));
            }
            let mut scaled = (nodes as f64 * self.recorded_cost) as u64;
            if key.beta != EXACT && self.budget > 0 {
                scaled = scaled.min(self.budget.max(nodes));
            }
            return Ok((v, Cost::Measured(scaled), &r.known));
        }
        let node = self.oracle.find(key.board);
        let v = if key.beta == EXACT {
            match node.and_then(|n| self.oracle.exact(n)) {
                Some(v) => Verdict::Exact(v),
                None => {
                    self.unrecorded.add(*key, Need::Whole);
                    return Err(ClusterError::Engine(format!(
                        "the exact unit of board {} has no record, and the records do not imply its value",
                        kalah_cluster::unit::houses_text(key.board, self.pits)
                    )));
                }
            }
        } else if node
            .and_then(|n| self.oracle.test(n, key.beta))
            .unwrap_or(issue.expect)
        {
            Verdict::AtLeast
        } else {
            Verdict::Below
        };
        Ok((
            v,
            Cost::Open(self.beyond.get(key).copied().unwrap_or(0)),
            &[],
        ))
    }

    /// The running unit that ends first, and when.
    fn first_end(&self) -> Option<(usize, f64)> {
        self.running
            .iter()
            .enumerate()
            .filter_map(|(w, r)| r.as_ref().map(|r| (w, r.end)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The clock moved to `r`'s end, and its reply.
    fn finish_at(&mut self, w: usize, r: Running) -> Result<Reply, ClusterError> {
        self.clock = self.clock.max(r.end);
        Ok(self.reply(w, r))
    }

    /// A unit's reply, at its end: its time counted, and what a fill
    /// must measure when its cost was not.
    fn reply(&mut self, worker: usize, r: Running) -> Reply {
        let seconds = r.end - r.began;
        self.busy += seconds;
        self.longest = self.longest.max(seconds);
        match (r.verdict, r.cost) {
            (_, Cost::Measured(_)) => {}
            (Some(_), Cost::Open(_)) => self.unrecorded.add(r.issue.key, Need::Whole),
            (None, Cost::Open(known)) => {
                if r.nodes > known {
                    self.unrecorded.add(r.issue.key, Need::Nodes(r.nodes));
                }
            }
        }
        Reply {
            worker,
            seq: r.issue.seq,
            verdict: r.verdict,
            nodes: r.nodes,
            seconds,
            known: r.known,
            // A record does not say where a split search was.
            inside: None,
        }
    }
}

impl Engine for SimEngine<'_> {
    fn workers(&self) -> usize {
        self.running.len()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError> {
        let (verdict, cost, known) = self.outcome(issue)?;
        let nodes = match cost {
            Cost::Measured(n) => n,
            Cost::Open(n) => n.max(self.guess_nodes),
        };
        self.running[worker] = Some(Running {
            issue: *issue,
            began: self.clock,
            end: self.clock + self.latency + nodes as f64 / self.rate,
            verdict: Some(verdict),
            nodes,
            cost,
            known: known.to_vec(),
        });
        Ok(())
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError> {
        if self.waves.is_some() {
            // An array task runs to its end.
            return Ok(());
        }
        let clock = self.clock;
        let (rate, latency) = (self.rate, self.latency);
        if let Some(r) = self.running[worker].as_mut().filter(|r| r.issue.seq == seq) {
            if r.end > clock + latency {
                r.end = clock + latency;
                r.verdict = None;
                r.nodes = ((clock - r.began).max(0.0) * rate) as u64;
                r.known.clear();
            }
        }
        Ok(())
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        if let Some(overhead) = self.waves {
            if let Some(r) = self.delivered.pop_front() {
                return Ok(Some(r));
            }
            // The wave: every unit started since the last one; all its
            // answers come when its last unit ends (a wave is not
            // interrupted: `until` is not kept).
            let end = self
                .running
                .iter()
                .flatten()
                .map(|r| r.end)
                .fold(f64::NAN, f64::max)
                + overhead;
            if end.is_nan() {
                return Err(ClusterError::engine("no simulated unit is running"));
            }
            for w in 0..self.running.len() {
                if let Some(r) = self.running[w].take() {
                    let reply = self.reply(w, r);
                    self.delivered.push_back(reply);
                }
            }
            self.clock = self.clock.max(end);
            return self
                .delivered
                .pop_front()
                .map(Some)
                .ok_or_else(|| ClusterError::engine("empty wave"));
        }
        let (w, end) = self
            .first_end()
            .ok_or_else(|| ClusterError::engine("no simulated unit is running"))?;
        if let Some(t) = until.filter(|&t| t < end) {
            self.clock = self.clock.max(t);
            return Ok(None);
        }
        let r = self.running[w].take().expect("found above");
        self.finish_at(w, r).map(Some)
    }

    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        if self.waves.is_some() {
            return Ok(self.delivered.pop_front());
        }
        match self.first_end() {
            Some((w, end)) if end <= self.clock => {
                let r = self.running[w].take().expect("found above");
                self.finish_at(w, r).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn now(&self) -> f64 {
        self.clock
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }
}

/// Passes the coordinator's own work on no clock: a replay's coordinator
/// takes no simulated time ([`SimResult::plan_seconds`] says what it took).
impl LabEngine for SimEngine<'_> {}

/// How simulated units reach the workers.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch {
    /// Nodes a second of one worker.
    pub rate: f64,
    /// Seconds to hand out a unit and get its answer back.
    pub latency: f64,
    /// `Some(s)`: in waves (Slurm job arrays), each costing `s` seconds
    /// more than its longest unit, no unit stopped; `None`: one by one
    /// with cancellation (MPI).
    pub waves: Option<f64>,
    /// Nodes of a unit whose cost nobody measured (a guessed one); `None`:
    /// the unit budget, or the median recorded test without a budget.
    pub guess_nodes: Option<u64>,
    /// Each answered unit of the recorded run costs this many times its
    /// recorded nodes (filled units, measured on a solver with an empty
    /// table, and split ones, stopped at the budget, are as measured; a
    /// scaled test is capped at the unit budget or its recorded nodes, if
    /// more, its verdict kept). The run's workers had tables warm from
    /// related units; one among many workers sees fewer of them (`cargo
    /// run --example cold_cost` measures the ratio). 1: as recorded.
    pub recorded_cost: f64,
    /// The coordinator's [`Policy`].
    pub policy: Policy,
}

/// Why a simulation stopped.
#[derive(Clone, Debug)]
pub struct SimError {
    pub message: String,
    /// Units whose cost and verdict the schedule had guessed when it
    /// stopped. Not empty: the stop may come from a guessed verdict (the
    /// one the top tree expects can be wrong, and facts built on it can
    /// contradict the tables), so measuring these is the way on.
    pub guessed: Vec<(UnitKey, Need)>,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.guessed.is_empty() {
            write!(
                f,
                " ({} units of this schedule had guessed verdicts: `--fill` measures them)",
                self.guessed.len()
            )?;
        }
        Ok(())
    }
}

impl From<ClusterError> for SimError {
    fn from(e: ClusterError) -> SimError {
        SimError::from(e.to_string())
    }
}

impl From<String> for SimError {
    fn from(message: String) -> SimError {
        SimError {
            message,
            guessed: Vec::new(),
        }
    }
}

impl From<SimError> for String {
    fn from(e: SimError) -> String {
        e.to_string()
    }
}

/// Replays the run recorded in `records` (answered units) on `workers`
/// simulated workers, dispatched as `dispatch` says. `unanswered` are
/// units stopped unanswered (the run's cancelled ones, a fill's partial
/// ones): a schedule that cancels one before its nodes needs no more.
///
/// # Errors
/// A simulation that cannot proceed: records of another run, facts that
/// contradict each other (with the units whose verdicts it guessed, see
/// [`SimError::guessed`]).
pub fn simulate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    records: &[UnitRecord],
    unanswered: &[UnitRecord],
    workers: usize,
    dispatch: Dispatch,
    budget: u64,
) -> Result<SimResult, SimError> {
    let mut answered = HashMap::new();
    let mut oracle = Facts::default();
    let mut costs = Vec::new();
    for r in records {
        let key = r.check(identity)?;
        answered.insert(key, r);
        oracle.add(key, r.verdict);
        r.known.iter().for_each(|k| oracle.add_known(k));
        if matches!(r.verdict, Verdict::AtLeast | Verdict::Below) {
            costs.push(r.nodes);
        }
    }
    // Derived facts of the whole record: what it proved above the
    // frontier decides units another schedule may ask for (only to guess
    // the verdicts of units without a record).
    tree.plan(&mut oracle).map_err(|e| e.to_string())?;
    costs.sort_unstable();
    // A unit nobody measured takes the unit budget (the most a test can
    // take before it is split; the median test without a budget): a
    // schedule that does not need it cancels it before it answers, and
    // then only its first nodes need measuring.
    let guess_nodes = dispatch.guess_nodes.unwrap_or(if budget > 0 {
        budget
    } else {
        costs.get(costs.len() / 2).copied().unwrap_or(0)
    });
    let mut beyond = HashMap::new();
    for r in unanswered {
        let e = beyond.entry(r.check(identity)?).or_insert(0);
        *e = r.nodes.max(*e);
    }
    let mut engine = SimEngine {
        waves: dispatch.waves,
        delivered: Default::default(),
        answered: &answered,
        beyond: &beyond,
        oracle: &oracle,
        pits: identity.pits,
        guess_nodes,
        recorded_cost: dispatch.recorded_cost,
        budget,
        rate: dispatch.rate,
        latency: dispatch.latency,
        clock: 0.0,
        running: (0..workers).map(|_| None).collect(),
        busy: 0.0,
        longest: 0.0,
        unrecorded: Needs::default(),
        filled: 0,
    };
    let done = coordinate_metered(
        tree,
        identity,
        &mut engine,
        &mut Discard,
        Settings {
            budget,
            policy: dispatch.policy,
            progress_every: 0.0,
            progress_json: false,
            model_nodes: None,
        },
    )
    .map_err(|e| SimError {
        message: e.to_string(),
        guessed: std::mem::take(&mut engine.unrecorded).into_vec(),
    })?;
    Ok(SimResult::of(
        tree,
        workers,
        done,
        (engine.busy, engine.longest),
        engine.unrecorded,
        engine.filled,
    ))
}
