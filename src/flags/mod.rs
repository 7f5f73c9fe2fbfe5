//! The flag groups that several programs flatten into their own commands
//! (`kalah`'s, `kalah-cluster`'s, `kalah-lab`'s): the clap structs, the
//! parsers of their values, and their conversions to the service's types.
//! No program's commands are here: those are each program's own
//! ([`crate::cli`] for `kalah`).
//!
//! - [`rules`]: the rule set (`--empty-capture`, `--end`);
//! - [`tables`]: the endgame tables and the opening book (`--tables`,
//!   `--table-seeds`, `--no-tables`, `--no-book`), as a
//!   [`crate::service::setup::TablePolicy`];
//! - [`search`]: threads and transposition table (`--threads`, `--tt-mb`),
//!   as a [`crate::service::setup::SearchPolicy`];
//! - [`values`]: parsers of counts and thread counts.

pub mod rules;
pub mod search;
pub mod tables;
pub mod values;

pub use rules::{EndArg, RulesArgs};
pub use search::SearchArgs;
pub use tables::{BookUse, TableArgs};
