//! Kalah(m,n): rules, positions, the perfect board index, endgame tables and
//! exact search.
//!
//! Layers, each using only those above it:
//!
//! * [`rules`]: the rule set (capture and end variants).
//! * [`board`]: mover-relative bitpacked boards and sowing (no I/O, no heap).
//! * [`size`], [`position`], [`notation`]: a game's checked size,
//!   user-facing positions and move lines with typed errors.
//! * [`index`]: the frozen rank/unrank contract between boards and table slots.
//! * [`perft`]: move-path counts.
//! * [`search`]: exact search (MTD(f), transposition table, threads) and
//!   position analysis.
//! * [`table`]: endgame tables (build, read, probe, verify).
//! * [`book`]: opening books: the values of a game's first sowings, in a
//!   checksummed, mapped file beside the tables (format, reader, the
//!   progress record of a build, the opening tree).
//! * [`sample`]: the deterministic random source of verification samples,
//!   tests and benches.
//! * [`platform`]: every unsafe call into the system or the processor
//!   (anonymous and file maps, prefetch, `statvfs`, `poll`); its
//!   `map_read_only` is an `unsafe fn` whose contract the table reader
//!   keeps.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod board;
pub mod book;
pub mod index;
pub mod notation;
pub mod perft;
pub mod platform;
pub mod position;
pub mod query;
pub mod rules;
pub mod sample;
pub mod search;
pub mod size;
pub mod table;
mod window;

pub use board::{Board, Game, Sown};
pub use index::Index;
pub use notation::{Line, LineError, Numbering};
pub use position::{MoveError, Played, Position, PositionError, Setup, Side};
pub use rules::{CaptureRule, EndRule, Rules};
pub use search::{Analysis, SearchConfig, SearchStats, Solver};
pub use size::{GameSize, SizeError};

/// Exact values of every board up to some number of seeds: what the endgame
/// tables give the search and the query.
pub trait Probe: Send + Sync {
    /// Every board with at most this many seeds is answered.
    fn max_seeds(&self) -> u32;

    /// The value of `board` for the player to move (net future store gain,
    /// stores excluded, as [`Game::reference_value`]), or `None` when the
    /// board holds more than [`Probe::max_seeds`] seeds.
    fn probe(&self, board: Board) -> Option<i32>;

    /// A hint that `board` will be probed soon: start loading its entry.
    /// Never changes a result; the default does nothing.
    fn prefetch(&self, _board: Board) {}
}
