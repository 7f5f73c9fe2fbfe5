//! One exact Kalah solve spread over many machines.
//!
//! A coordinator holds the top of the tree ([`plan`]); workers answer
//! units, each a null-window test of one board ([`unit`](mod@unit)), with their own
//! transposition table over the shared read-only endgame tables
//! ([`worker`]). The coordinator's whole state is the work directory
//! ([`store`]): it resumes after being killed by replaying the top tree
//! against the stored answers. The engine that carries units to workers is
//! MPI (`mpi_engine`, the `mpi` feature), or the coordinator's own
//! process ([`local`]); [`sim`] replays a recorded run on any number of
//! simulated workers, [`fill`] completes the record for those schedules.
//!
//! * [`unit`](mod@unit): the unit, its verdict and its stored record.
//! * [`store`]: the work directory, byte by byte.
//! * [`facts`]: bounds on board values known so far.
//! * [`plan`]: the top-tree search that says which units are needed.
//! * [`coordinator`]: the loop over an engine; the [`coordinator::Engine`]
//!   trait.
//! * [`worker`]: a unit's search, its budget and its cancellation.
//! * [`local`], `mpi_engine`: engines.
//! * [`sim`]: the simulation.
//! * [`emulate`]: a run on many simulated workers, every unit solved for
//!   real on its worker's own table.
//! * [`fill`]: the units a simulated schedule needs and the record lacks,
//!   solved for real.
//! * [`certify`]: the run's certificate from its records.
//! * [`report`]: the answer as text or JSON.
//! * [`sim_report`]: the simulation's answer as text or JSON.

pub mod certify;
pub mod coordinator;
pub mod emulate;
pub mod facts;
pub mod fill;
pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi_engine;
pub mod plan;
pub mod report;
pub mod sim;
pub mod sim_report;
pub mod store;
pub mod unit;
pub mod worker;
