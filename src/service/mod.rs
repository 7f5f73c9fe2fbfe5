//! The engine as a service: what every front end asks of it, in one place.
//!
//! A front end (the `kalah` command, its HTTP server, `kalah-cluster`,
//! `kalah-lab`, the Python module) parses its requests and renders the
//! answers; everything between lives here, and none of it knows a front
//! end (no front end's error or flags):
//! - [`table_dir`]: where the endgame tables live (the directory a request
//!   names, else the environment's, else a default one);
//! - [`setup`]: which endgame tables to open (or build) for a game, and how
//!   large a transposition table its search gets;
//! - [`table_build`]: a table build, refused when it would not fit;
//! - [`position`]: the answer for one position (a finished game's score,
//!   else the tables, else a search bounded by a stop flag and a time
//!   limit);
//! - [`batch`]: a stream of positions answered in order, one JSON line each,
//!   bad lines answered by error lines;
//! - [`book`]: a game's opening book: opened, answered from, built;
//! - [`answer`]: the answer and its JSON line (docs/json.md);
//! - [`review`]: a move line reviewed move by move (each move's value,
//!   the best, what it gave away);
//! - [`ticker`]: a clock beside a long piece of work, for progress lines.
//!
//! The service never prints: what a person watching should be told (a
//! missing table, a long search starting, its progress) goes to the
//! front end's [`Observer`].

pub mod answer;
pub mod batch;
pub mod book;
pub mod cost;
mod fast_line;
pub mod position;
pub mod review;
pub mod setup;
pub mod table_build;
pub mod table_dir;
pub mod ticker;

use kalah_solver::Position;
use std::fmt;
use std::io;

pub use answer::{Answer, Source};

/// Reads a position in the project's notation as every front end reads it,
/// with the one message a person sees for a malformed one (the command
/// line and the HTTP API give the same text).
pub fn parse_position(text: &str) -> Result<Position, Error> {
    text.parse::<Position>()
        .map_err(|e| Error::Input(format!("invalid position \"{text}\": {e}")))
}

/// Why the service gave no answer.
#[derive(Debug)]
pub enum Error {
    /// The request is bad: a malformed position, a table depth beyond the
    /// format, a batch file that cannot be read.
    Input(String),
    /// The work failed: unusable tables, a solver that cannot start, a
    /// search interrupted or refused.
    Failure(String),
    /// The answers could not be written out (a closed pipe, a full disk).
    Output(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Failure(m) => f.write_str(m),
            Error::Output(e) => write!(f, "cannot write the answers: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// What the service tells the person watching, through the front end.
pub trait Observer: Sync {
    /// A message: why the tables are not used, a bad batch line, a search
    /// about to start.
    fn note(&self, text: &str);

    /// Runs `search` while showing its progress under `label`; `nodes()`
    /// gives the nodes searched so far.
    fn search(&self, label: &str, nodes: &(dyn Fn() -> u64 + Sync), search: &mut dyn FnMut());
}

/// An observer that shows nothing (tests, a server without a console).
pub struct Silent;

impl Observer for Silent {
    fn note(&self, _: &str) {}

    fn search(&self, _: &str, _: &(dyn Fn() -> u64 + Sync), search: &mut dyn FnMut()) {
        search();
    }
}
