//! The command-line interface: one module per command, named after it,
//! and the pieces they share: argument types and parsers ([`common`]; the
//! flag groups other programs flatten too are [`crate::flags`]), the
//! commands' `outln!` ([`output`], over [`crate::output`]). Commands
//! parse, call the service or the engine, and print (progress on stderr
//! through [`crate::progress`]); no game logic here.

pub mod analyze;
pub mod book;
pub mod build;
pub mod certify;
pub mod common;
pub mod output;
pub mod perft;
pub mod play;
pub mod play_line;
pub mod query;
pub mod reproduce;
pub mod serve;
pub mod show;
pub mod solve;
pub mod tables;
pub mod verify;

pub use common::CliError;
