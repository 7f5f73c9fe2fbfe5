//! Writing to standard output without panicking, for every front end that
//! prints its answers there (`kalah`, `kalah-cluster`).
//!
//! `println!` panics when stdout is closed (`kalah show ... | head -0`) or
//! full (`>/dev/full`). Front ends print through [`write_line`] instead
//! (the `kalah` commands through their `outln!` macro), which returns the
//! write error as a [`StdoutError`]; each front end decides what it means
//! for its exit status (for `kalah`, a closed pipe ends the command quietly
//! with status 0, as with `grep | head`, and any other write error is a
//! failure that says what happened).

use std::fmt;
use std::io::{self, Write};

use crate::service::{self, answer::write_json};
use serde::Serialize;

/// Standard output could not be written.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl StdoutError {
    /// Whether the reader closed the pipe: it stopped reading on purpose
    /// (`| head`), which is nothing to complain about.
    pub fn is_closed_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// A front end's lines that could not be written, where the service waits
/// on them (a server saying where it listens), are the answers that could
/// not be written out.
impl From<StdoutError> for service::Error {
    fn from(e: StdoutError) -> service::Error {
        service::Error::Output(e.0)
    }
}

/// Writes one line to standard output.
///
/// # Errors
/// [`StdoutError`] when the write fails.
pub fn write_line(args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(StdoutError)
}

/// Flushes standard output.
///
/// # Errors
/// [`StdoutError`] when the flush fails.
pub fn flush() -> Result<(), StdoutError> {
    io::stdout().flush().map_err(StdoutError)
}

/// `value` as one line of compact JSON.
pub fn json_line(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value);
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}
