//! The one error of a cluster run: each names the file, the unit or the
//! worker it is about.

use std::fmt;

use crate::plan::PlanError;
use crate::store::StoreError;

/// What stops a cluster run or refuses its input.
#[derive(Debug)]
pub enum ClusterError {
    /// The work directory: a file that cannot be read, written or
    /// parsed, a directory of another run, or one another process holds.
    Store(StoreError),
    /// A unit's record the run cannot take: the unit (its file stem) and
    /// why.
    Record { unit: String, problem: String },
    /// What a worker sent that cannot be: a reply for a unit it was not
    /// running, bounds no value has (a fault in its solver or tables).
    Worker { worker: usize, problem: String },
    /// The top tree's facts contradict each other.
    Plan(PlanError),
    /// The records make no certificate: two that contradict each other
    /// (both units named), or a claim of the coordinator's replay they do
    /// not prove.
    Proof(String),
    /// The engine that carries units to workers (MPI, a worker's solver)
    /// failed.
    Engine(String),
    /// No worker to hand units to.
    NoWorkers,
    /// Stopped by a signal after `units` units (`units_this_run` of them
    /// this run); every answered unit is recorded.
    Interrupted { units: u64, units_this_run: u64 },
}

impl ClusterError {
    /// An engine failure described by `message`.
    pub fn engine(message: impl Into<String>) -> ClusterError {
        ClusterError::Engine(message.into())
    }
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Store(e) => write!(f, "{e}"),
            ClusterError::Record { unit, problem } => write!(f, "unit {unit}: {problem}"),
            ClusterError::Worker { worker, problem } => write!(f, "worker {worker} {problem}"),
            ClusterError::Plan(e) => write!(f, "{e}"),
            ClusterError::Proof(message) => write!(f, "{message}"),
            ClusterError::Engine(message) => write!(f, "{message}"),
            ClusterError::NoWorkers => write!(
                f,
                "no workers: start at least two ranks (one coordinator, one worker)"
            ),
            ClusterError::Interrupted {
                units,
                units_this_run,
            } => write!(
                f,
                "stopped by a signal after {units} units ({units_this_run} this run); every answered unit is recorded: run the same command again to resume"
            ),
        }
    }
}

impl std::error::Error for ClusterError {}

impl From<StoreError> for ClusterError {
    fn from(e: StoreError) -> ClusterError {
        ClusterError::Store(e)
    }
}

impl From<PlanError> for ClusterError {
    fn from(e: PlanError) -> ClusterError {
        ClusterError::Plan(e)
    }
}
