//! `kalah`: the command-line front end and the public face of the engine.
//!
//! The engine (rules, index, tables, search) lives in the `kalah-solver`
//! crate and is re-exported here whole, so `kalah::Position` is the same
//! type as `kalah_solver::Position`. [`service`] answers positions, one or
//! a stream, for any front end; [`cli`] parses `kalah`'s arguments and
//! renders; [`flags`] holds the flag groups several programs share;
//! [`output`] prints to standard output without panicking, and
//! [`progress`] shows a person watching what goes on, on standard error,
//! for every terminal front end.
//!
//! No unsafe code: the platform calls are the engine's
//! (`kalah_solver::platform`), the signal handlers `signal-hook`'s.

#![forbid(unsafe_code)]

pub use kalah_solver::*;

pub mod certificate;
pub mod cli;
pub mod flags;
pub mod interrupt;
pub mod output;
pub mod progress;
pub mod published;
pub mod report;
pub mod serve;
pub mod service;
