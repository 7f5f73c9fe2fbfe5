//! Writing to standard output without panicking.
//!
//! `println!` panics when stdout is closed (`kalah show ... | head -0`) or
//! full (`>/dev/full`). Every command prints through `outln!` (the macro of this module) instead,
//! which returns the write error as a [`CliError`]: a closed pipe ends the
//! command quietly with status 0 (the reader has what it wanted, as with
//! `grep | head`), any other write error is a failure (status 1) that says
//! what happened.

use std::io::{self, Write};

use super::common::CliError;
use crate::service::answer::write_json;
use serde::Serialize;

/// Like `println!`, to standard output, but `?`-able: evaluates to
/// `Result<(), CliError>`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cli::output::write_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_line(format_args!($($arg)*))
    };
}

/// Writes one line to standard output.
///
/// # Errors
/// [`CliError::Stdout`] when the write fails.
pub fn write_line(args: std::fmt::Arguments<'_>) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(CliError::Stdout)
}

/// Flushes standard output.
///
/// # Errors
/// [`CliError::Stdout`] when the flush fails.
pub fn flush() -> Result<(), CliError> {
    io::stdout().flush().map_err(CliError::Stdout)
}

/// `value` as one line of compact JSON.
pub fn json_line(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value);
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}
