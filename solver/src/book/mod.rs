//! Opening books: the exact values of the boards of a game's first turns,
//! solved once and kept in a checksummed, memory-mapped file beside the
//! endgame tables, so that the opening of a game too large for the tables
//! is answered at once instead of searched.
//!
//! * [`tree`]: the boards of the opening and inner values from children's.
//! * [`mod@format`]: the file, byte by byte.
//! * `reader`: a checked book, and the book in front of the tables as one
//!   [`crate::Probe`].
//! * [`progress`]: the append-only record of a build under way, from which
//!   an interrupted build resumes.
//!
//! What a book of `T` turns holds: every board met within the first `T`
//! turns of the game (a turn: one player's sowings until the move passes)
//! that the tables do not, valued from their children's; every other child
//! of them, where turn `T + 1` starts, valued by search (so every position
//! within the turns is answered with every move's value); and the boards
//! along a perfect game from each of those, so that a perfect game from
//! any position of the book can be followed, board by board, into the
//! tables.

pub mod format;
pub mod progress;
pub(crate) mod reader;
pub mod tree;

mod error;

pub use error::BookError;
pub use reader::{Book, WithBook};
