//! The laboratory of the cluster solve (`kalah-cluster`): never shipped.
//!
//! It runs the product's coordinator ([`kalah_cluster::coordinator`]) on
//! simulated workers, to say what a run would take on other numbers of
//! workers and under other policies, and keeps the programs that measured
//! what the product's choices cost.
//!
//! * [`meter`]: the coordinator's own work timed (its thread's CPU time),
//!   and passed on a simulated clock.
//! * [`sim`]: a recorded run replayed, each unit at its recorded cost.
//! * [`emulate`]: a run on many simulated workers, every unit solved for
//!   real on its worker's own table.
//! * [`fill`]: the units a simulated schedule needs and the record lacks,
//!   solved for real.
//! * [`sim_report`]: the simulation's answer as text or JSON.

pub mod emulate;
pub mod fill;
pub mod meter;
pub mod sim;
pub mod sim_report;
