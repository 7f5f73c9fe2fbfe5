//! One exact Kalah solve spread over many machines.
//!
//! A coordinator holds the top of the tree ([`plan`]); workers answer
//! units, each a null-window test of one board ([`unit`](mod@unit)), with their own
//! transposition table over the shared read-only endgame tables
//! ([`worker`]). The coordinator's whole state is the work directory
//! ([`store`]): it resumes after being killed by replaying the top tree
//! against the stored answers. The engine that carries units to workers is
//! MPI (`mpi_engine`, the `mpi` feature), or the coordinator's own
//! process ([`local`]). The laboratory (`kalah-lab`, never shipped)
//! replays recorded runs on simulated workers over the same coordinator
//! ([`coordinator::coordinate_watched`]).
//!
//! * [`unit`](mod@unit): the unit, its verdict and its stored record.
//! * [`store`]: the work directory, byte by byte.
//! * [`facts`]: bounds on board values known so far.
//! * [`plan`]: the top-tree search that says which units are needed.
//! * [`coordinator`]: the loop over an engine; the [`coordinator::Engine`]
//!   trait.
//! * [`worker`]: a unit's search, its budget and its cancellation.
//! * [`gate`]: the node limit a unit's search waits at (the solver's
//!   node hook).
//! * [`local`], `mpi_engine`: engines.
//! * [`certify`]: the run's certificate from its records.
//! * [`turns`]: the first turns, each solved over the root's records.
//! * [`error`]: the one error of a run, [`ClusterError`].
//! * [`report`]: the answer as text or JSON.

pub mod certify;
pub mod coordinator;
pub mod error;
pub mod facts;
pub mod gate;
pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi_engine;
pub mod plan;
pub mod report;
pub mod store;
pub mod turns;
pub mod unit;
pub mod worker;

pub use error::ClusterError;
