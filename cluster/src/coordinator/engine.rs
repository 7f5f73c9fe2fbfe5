//! What the coordinator and its engines say to each other: a unit handed
//! out ([`Issue`]), its answer ([`Reply`]), the [`Engine`] that carries
//! them, and the [`Watched`] engine of the laboratory that also hears
//! where the coordinator's own work ends.

use crate::error::ClusterError;
use crate::unit::{Known, UnitKey, Verdict};

/// A unit handed to a worker.
#[derive(Clone, Copy, Debug)]
pub struct Issue {
    pub key: UnitKey,
    /// Issue order, unique over the run and its resumptions.
    pub seq: u64,
    /// Nodes after which a test is split (0: never).
    pub budget: u64,
    /// Whether the top tree expects the test to hold.
    pub expect: bool,
}

/// A worker's reply to an [`Issue`].
#[derive(Clone, Debug)]
pub struct Reply {
    pub worker: usize,
    pub seq: u64,
    /// `None`: cancelled.
    pub verdict: Option<Verdict>,
    pub nodes: u64,
    pub seconds: f64,
    /// Bounds the worker's table held afterwards near the unit's board
    /// ([`crate::worker::known`]), whatever the verdict.
    pub known: Vec<Known>,
    /// A split test's child its search was in ([`crate::worker::inside`]):
    /// its house.
    pub inside: Option<u8>,
}

/// Workers the coordinator hands units to.
pub trait Engine {
    /// Workers, numbered `0..workers()`.
    fn workers(&self) -> usize;
    /// Hands `issue` to the idle `worker`.
    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError>;
    /// Asks `worker` to stop unit `seq` (it replies either way).
    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError>;
    /// The next reply (blocks); `None` once [`Engine::now`] passes
    /// `until` without one. An engine may wait past `until` (one that
    /// runs its unit in the caller's thread does).
    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError>;
    /// Seconds since the engine started (simulated time for a simulation).
    fn now(&self) -> f64;
    /// Tells every worker the run is over (all are idle).
    fn finish(&mut self) -> Result<(), ClusterError>;
    /// A reply already in, without waiting for one.
    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        Ok(None)
    }
}

/// A stretch of the coordinator's own work, between its engine's calls
/// ([`Watched::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnWork {
    /// Before a plan: which running units are hot.
    Setup,
    /// A plan of the top tree.
    Plan,
    /// Handing units out: what each unit of a new plan waits on, stopping
    /// the units no longer needed, assigning units to idle workers,
    /// preemption.
    HandOut,
    /// Taking answers in: storing each, taking in its facts.
    Intake,
}

/// An engine that also hears where the coordinator's own work ends and
/// which running units the search needs: the laboratory's (`kalah-lab`),
/// whose simulated clock passes the coordinator's work on and whose
/// what-ifs search the needed units faster. [`coordinate`](super::coordinate) runs a plain
/// [`Engine`] as one that ignores both.
pub trait Watched: Engine {
    /// A stretch of the coordinator's own work of kind `work` ends here;
    /// it began at the last mark, or at the run's start (the time inside
    /// this engine's calls meanwhile is not the coordinator's).
    fn mark(&mut self, work: OwnWork);
    /// Unit `seq` on `worker` is one the search needs now (`needed`), or
    /// speculation; told of every running unit after each hand-out.
    fn needed(&mut self, worker: usize, seq: u64, needed: bool);
}

/// A plain engine, deaf to the marks of [`Watched`].
pub(super) struct Unwatched<'e>(pub(super) &'e mut dyn Engine);

impl Engine for Unwatched<'_> {
    fn workers(&self) -> usize {
        self.0.workers()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError> {
        self.0.start(worker, issue)
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError> {
        self.0.cancel(worker, seq)
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        self.0.wait(until)
    }

    fn now(&self) -> f64 {
        self.0.now()
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        self.0.finish()
    }

    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        self.0.ready()
    }
}

impl Watched for Unwatched<'_> {
    fn mark(&mut self, _: OwnWork) {}

    fn needed(&mut self, _: usize, _: u64, _: bool) {}
}
