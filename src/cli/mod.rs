//! The command-line interface: argument types and one module per command
//! group. Commands parse, call the engine, and print; no game logic here.

pub mod analyze;
pub mod book;
pub mod certify;
pub mod common;
pub mod core_cmds;
pub mod engine;
pub mod output;
pub mod play;
pub mod progress;
pub mod query;
pub mod reproduce;
pub mod serve;
pub mod solve;
pub mod table_dir;
pub mod tables;

pub use common::{CliError, RulesArgs};
