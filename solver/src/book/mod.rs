//! Opening books: the exact values of every board within some plies of a
//! game's start, solved once and kept in a checksummed, memory-mapped file
//! beside the endgame tables, so that the opening of a game too large for
//! the tables is answered at once instead of searched.
//!
//! * [`tree`]: the boards of the opening and inner values from children's.
//! * [`mod@format`]: the file, byte by byte.
//! * `reader`: a checked book, and the book in front of the tables as one
//!   [`crate::Probe`].
//! * [`progress`]: the append-only record of a build under way, from which
//!   an interrupted build resumes.
//!
//! What a book of depth `D` holds: every board within `D` plies of the
//! start that the tables do not (inner ones valued from their children,
//! those at depth `D` by search); for each board at depth `D`, its
//! children (so every position within `D` plies is answered with every
//! move's value); and the boards along a perfect game from each of them,
//! so that a perfect game from any of them can be followed, board by board,
//! into the tables.

pub mod format;
pub mod progress;
pub(crate) mod reader;
pub mod tree;

mod error;

pub use error::BookError;
pub use reader::{Book, WithBook};
