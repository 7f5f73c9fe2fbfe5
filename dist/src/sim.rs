//! Replaying a recorded run on any number of simulated workers.
//!
//! The simulation runs the real coordinator ([`coordinate`]) against an
//! engine whose workers take, for each unit, the time its recorded nodes
//! take at a fixed node rate, plus a fixed dispatch latency. So the order
//! of units, the waits of cut nodes on their first child, the MTD(f) tests
//! one after another and the cancellations are those of the real
//! coordinator with that many workers.
//!
//! Assumptions (stated with every result):
//! * a unit's cost is its recorded node count; it does not depend on which
//!   worker runs it or what that worker ran before (the real workers keep
//!   their transposition tables, so this is an approximation);
//! * speculation is run only where the recorded run has its answer;
//! * a needed unit the recorded run never answered (another schedule can
//!   ask for one) costs its recorded partial cost when it was cancelled,
//!   else the median cost of the recorded tests; its verdict is what the
//!   recorded results imply about it, else (counted as `guessed`) what the
//!   top tree expected of it: the recorded run decided its node another
//!   way, and the expected verdict lets the simulation go on (it computes
//!   no value, only times);
//! * workers are identical and never fail.

use std::collections::HashMap;

use crate::coordinator::{coordinate, Discard, Engine, Issue, Reply, Settings};
use crate::facts::Facts;
use crate::plan::TopTree;
use crate::unit::{RunIdentity, UnitKey, UnitRecord, Verdict};

/// A simulated run.
#[derive(Clone, Debug)]
pub struct SimResult {
    pub workers: usize,
    /// Simulated seconds from the first unit to the answer.
    pub seconds: f64,
    /// Worker-seconds spent on units (cancelled ones included).
    pub busy_seconds: f64,
    pub units: u64,
    pub cancelled_units: u64,
    /// Nodes of every unit run.
    pub nodes: u64,
    /// The longest single unit, in seconds.
    pub longest_unit: f64,
    /// When each step of the root search was decided.
    pub timeline: Vec<(f64, String)>,
    /// Needed units neither recorded nor implied by the records (their
    /// verdict was the expected one).
    pub guessed: u64,
}

struct Running {
    issue: Issue,
    began: f64,
    end: f64,
    verdict: Option<Verdict>,
    nodes: u64,
}

struct SimEngine<'a> {
    /// Waves (Slurm job arrays): the seconds a wave costs beyond its
    /// longest unit; `None`: units dispatched one by one (MPI).
    waves: Option<f64>,
    /// Replies of a finished wave not yet handed to the coordinator.
    delivered: std::collections::VecDeque<Reply>,
    answered: &'a HashMap<UnitKey, (Verdict, u64)>,
    partial: &'a HashMap<UnitKey, u64>,
    oracle: &'a Facts,
    fallback_nodes: u64,
    rate: f64,
    latency: f64,
    clock: f64,
    running: Vec<Option<Running>>,
    busy: f64,
    longest: f64,
    guessed: u64,
}

impl SimEngine<'_> {
    /// The verdict and cost of `issue` in this simulation.
    fn outcome(&mut self, issue: &Issue) -> (Verdict, u64) {
        let key = &issue.key;
        if let Some(&a) = self.answered.get(key) {
            return a;
        }
        let holds = match self.oracle.test(key.board, key.beta) {
            Some(b) => b,
            None => {
                self.guessed += 1;
                issue.expect
            }
        };
        let v = if holds {
            Verdict::AtLeast
        } else {
            Verdict::Below
        };
        (
            v,
            self.partial
                .get(key)
                .copied()
                .unwrap_or(self.fallback_nodes),
        )
    }
}

impl Engine for SimEngine<'_> {
    fn workers(&self) -> usize {
        self.running.len()
    }

    fn can_run(&self, key: &UnitKey, speculative: bool) -> bool {
        !speculative
            || self.answered.contains_key(key)
            || self.oracle.test(key.board, key.beta).is_some()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), String> {
        let (verdict, nodes) = self.outcome(issue);
        let seconds = nodes as f64 / self.rate;
        self.longest = self.longest.max(seconds);
        self.running[worker] = Some(Running {
            issue: *issue,
            began: self.clock,
            end: self.clock + self.latency + seconds,
            verdict: Some(verdict),
            nodes,
        });
        Ok(())
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), String> {
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
            }
        }
        Ok(())
    }

    fn wait(&mut self) -> Result<Reply, String> {
        if let Some(overhead) = self.waves {
            if let Some(r) = self.delivered.pop_front() {
                return Ok(r);
            }
            // The wave: every unit started since the last one; all its
            // answers come when its last unit ends.
            let end = self
                .running
                .iter()
                .flatten()
                .map(|r| r.end)
                .fold(f64::NAN, f64::max)
                + overhead;
            if end.is_nan() {
                return Err("no simulated unit is running".into());
            }
            for (w, slot) in self.running.iter_mut().enumerate() {
                if let Some(r) = slot.take() {
                    self.busy += r.end - r.began;
                    self.delivered.push_back(Reply {
                        worker: w,
                        seq: r.issue.seq,
                        verdict: r.verdict,
                        nodes: r.nodes,
                        seconds: r.end - r.began,
                    });
                }
            }
            self.clock = self.clock.max(end);
            return self
                .delivered
                .pop_front()
                .ok_or_else(|| "empty wave".into());
        }
        let (w, _) = self
            .running
            .iter()
            .enumerate()
            .filter_map(|(w, r)| r.as_ref().map(|r| (w, r.end)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or("no simulated unit is running")?;
        let r = self.running[w].take().expect("found above");
        self.clock = self.clock.max(r.end);
        self.busy += r.end - r.began;
        Ok(Reply {
            worker: w,
            seq: r.issue.seq,
            verdict: r.verdict,
            nodes: r.nodes,
            seconds: r.end - r.began,
        })
    }

    fn now(&self) -> f64 {
        self.clock
    }

    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

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
}

/// Replays the run recorded in `records` (answered units) and `cancelled`
/// on `workers` simulated workers, dispatched as `dispatch` says.
///
/// # Errors
/// A simulation that cannot proceed (see the module's assumptions).
pub fn simulate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    records: &[UnitRecord],
    cancelled: &[UnitRecord],
    workers: usize,
    dispatch: Dispatch,
    budget: u64,
) -> Result<SimResult, String> {
    let mut answered = HashMap::new();
    let mut oracle = Facts::default();
    let mut costs = Vec::new();
    for r in records {
        let key = r.check(identity)?;
        answered.insert(key, (r.verdict, r.nodes));
        oracle.add(key, r.verdict);
        if matches!(r.verdict, Verdict::AtLeast | Verdict::Below) {
            costs.push(r.nodes);
        }
    }
    // Derived facts of the whole recorded run: what it proved above the
    // frontier answers units another schedule may ask for.
    tree.plan(&mut oracle).map_err(|e| e.to_string())?;
    costs.sort_unstable();
    let fallback_nodes = costs.get(costs.len() / 2).copied().unwrap_or(0);
    let mut partial = HashMap::new();
    for r in cancelled {
        let key = r.check(identity)?;
        let e = partial.entry(key).or_insert(0);
        *e = r.nodes.max(*e);
    }
    let mut engine = SimEngine {
        waves: dispatch.waves,
        delivered: Default::default(),
        answered: &answered,
        partial: &partial,
        oracle: &oracle,
        fallback_nodes,
        rate: dispatch.rate,
        latency: dispatch.latency,
        clock: 0.0,
        running: (0..workers).map(|_| None).collect(),
        busy: 0.0,
        longest: 0.0,
        guessed: 0,
    };
    let done = coordinate(
        tree,
        identity,
        &[],
        &mut engine,
        &mut Discard,
        Settings {
            budget,
            progress_every: 0.0,
        },
    )?;
    Ok(SimResult {
        workers,
        seconds: done.seconds,
        busy_seconds: engine.busy,
        units: done.counts.units,
        cancelled_units: done.counts.cancelled_units,
        nodes: done.counts.total_nodes(),
        longest_unit: engine.longest,
        timeline: done.timeline,
        guessed: engine.guessed,
    })
}
