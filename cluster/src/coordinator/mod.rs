//! The coordinator's loop: replay the top tree, hand the units it needs to
//! idle workers, stop the ones it no longer needs, store each answer.
//!
//! The loop is the same for every engine ([`Engine`]): MPI ranks, the
//! coordinator's own process, or the simulated workers of the laboratory
//! (`kalah-lab`), which also hear where the coordinator's own work ends
//! ([`Watched`]).

mod accounts;
mod dispatch;
mod engine;
mod flight;
mod policy;
mod progress;
mod run;
mod sink;
mod wanted;

pub use accounts::{Finished, Link, UnitCounts};
pub use dispatch::NEAR_PLIES;
pub use engine::{Engine, Issue, OwnWork, Reply, Watched};
pub use flight::BELOW_HOT_SOONER;
pub use policy::{Policy, Settings};
pub use sink::{Discard, Sink};

use crate::error::ClusterError;
use crate::plan::TopTree;
use crate::unit::{RunIdentity, UnitRecord};

use engine::Unwatched;
use run::Run;

/// Runs the solve to its end: `earlier` are the records of the runs it
/// resumes (their units are not issued again).
///
/// # Errors
/// An engine failure, a sink that cannot store, contradicting results.
pub fn coordinate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    earlier: &[UnitRecord],
    engine: &mut dyn Engine,
    sink: &mut dyn Sink,
    settings: Settings,
) -> Result<Finished, ClusterError> {
    let mut engine = Unwatched(engine);
    coordinate_watched(tree, identity, earlier, &mut engine, sink, settings)
}

/// [`coordinate`] over an engine that hears where the coordinator's own
/// work ends and which running units the search needs ([`Watched`]).
///
/// # Errors
/// As [`coordinate`].
pub fn coordinate_watched(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    earlier: &[UnitRecord],
    engine: &mut dyn Watched,
    sink: &mut dyn Sink,
    settings: Settings,
) -> Result<Finished, ClusterError> {
    Run::new(tree, identity, earlier, engine, sink, settings)?.run_to_end()
}
