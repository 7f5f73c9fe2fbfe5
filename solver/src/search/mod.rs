//! Exact search: MTD(f) over a fail-soft alpha-beta on boards, with a
//! shared lock-free transposition table, threads splitting nodes (young
//! brothers wait), endgame-table probes and whole-position analysis.
//!
//! # Values
//!
//! The search works on [`Board`](crate::Board)s: houses only, seen from the
//! player to move. A board's value is the net number of seeds the mover
//! will still put into their store minus the opponent's (the same quantity
//! as [`Game::reference_value`](crate::Game::reference_value) and
//! [`Probe::probe`](crate::Probe::probe)). A position's value is its store
//! difference plus its board's value, so stores are only an offset and a
//! table entry serves every position with the same houses.
//!
//! # Files
//!
//! * `config`: [`SearchConfig`], a switch for every enhancement.
//! * [`tt`]: [`TranspositionTable`], typed bounds under full keys.
//! * [`ordering`]: the children of a node, sown once and sorted.
//! * `negamax`: the fail-soft alpha-beta worker (bound semantics on
//!   its `search`).
//! * [`shallow`]: the depth-limited alpha-beta on store gains that
//!   gives MTD(f) its first guess (and the cluster's top tree its guess
//!   and move order).
//! * [`mtdf`]: MTD(f)'s bounds on the lattice of values: the solver's
//!   fail-soft bracket, and the driver over boolean tests (the cluster's
//!   root).
//! * `solver`: [`Solver`], the MTD(f) driver.
//! * [`share`]: [`Publisher`], the entries of much work a search hands to
//!   other machines' tables.
//! * [`analysis`]: move values, first turns, the pie rule, the principal
//!   variation.

pub mod analysis;
pub(crate) mod config;
pub(crate) mod hook;
pub mod mtdf;
mod negamax;
pub mod ordering;
pub mod shallow;
pub mod share;
pub(crate) mod solver;
pub mod tt;

pub use analysis::{
    Analysis, AnalysisError, MoveValue, PieAnalysis, PvMove, Solution, TurnAnalysis, TurnValue,
};
pub use config::SearchConfig;
pub use hook::NodeHook;
pub use share::{Published, Publisher};
pub use solver::{Interrupted, SearchStats, Solver, SolverError};
pub use tt::{Bound, TranspositionTable, TtEntry};
