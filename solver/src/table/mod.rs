//! Endgame tables: the exact value of every board with at most `K` seeds.
//!
//! A board (houses only, seen from the player to move; stores never matter)
//! with `k` seeds has the value
//!
//! ```text
//! V(b) = terminal_value(b)                                  if b is finished
//! V(b) = max over non-empty own houses h of
//!          gain + (extra turn ? V(child) : -V(child))       otherwise
//! ```
//!
//! Children hold at most `k` seeds. A child with exactly `k` seeds comes only
//! from a move that gains nothing, i.e. one whose seeds all stay in the
//! mover's houses; the potential `sum(seeds x distance to the owner's store)`
//! strictly drops on such a move and does not change when the board is turned
//! over, so every tier is acyclic and is solved from the tiers below it and
//! its own already solved boards.
//!
//! * [`mod@format`]: the on-disk format of one tier file (documented whole there);
//!   `compact`: the value encoding inside it (about 3.5 bits a board, O(1) probes).
//! * `builder`: [`build_tables`], tier by tier, each tier in parallel;
//!   deterministic bytes, resumable, interruptible; one build at a time
//!   per directory, board size and rule set (a lock file).
//! * `reader`: [`TierTable`] over any byte source and [`Tables`], a lazily
//!   opened directory of tiers that implements [`crate::Probe`].
//! * [`stamp`]: the record beside a file that its checksum passed, so
//!   that a file is read in full once, not on every open.
//! * `verify`: [`verify_tables`]: checksums, the one-step recurrence and an
//!   independent search.
//!
//! Every failure is a [`TableError`] naming the file and the reason. No
//! value is ever read from a file whose whole checksum has not passed.
//! Files are memory-mapped: nobody may truncate or write into a table file
//! in place (see `reader`); this program only replaces them by rename.
//!
//! ```
//! use kalah_solver::table::{build_tables, BuildConfig, Tables};
//! use kalah_solver::{Board, Game, Probe, Rules};
//! use std::sync::atomic::AtomicBool;
//!
//! let dir = std::env::temp_dir().join(format!("kalah-table-doc-{}", std::process::id()));
//! let config = BuildConfig { pits: 4, rules: Rules::STANDARD, max_seeds: 6, threads: 1 };
//! let stop = AtomicBool::new(false); // set it (e.g. on Ctrl-C) to stop cleanly
//! let report = build_tables(&dir, &config, &(), &stop)?;
//! assert_eq!(report.tiers.len(), 7);
//!
//! let tables = Tables::open(&dir, 4, Rules::STANDARD)?; // cheap: files are mapped on first use
//! assert_eq!(tables.max_seeds(), 6);
//! // The mover sows their last seed into the store, moves again with no
//! // seeds left, and the opponent sweeps their seed: 1 - 1 = 0.
//! let board = Board::from_sides(&[0, 0, 0, 1], &[1, 0, 0, 0]);
//! assert_eq!(tables.probe(board), Some(0));
//! assert_eq!(tables.probe(board), Some(Game::new(4, Rules::STANDARD).reference_value(board)));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), kalah_solver::table::TableError>(())
//! ```

pub(crate) mod builder;
pub(crate) mod compact;
pub mod format;
pub(crate) mod names;
pub(crate) mod reader;
pub mod stamp;
pub(crate) mod verify;

mod error;
mod ranker;

pub use builder::{
    build_memory_bytes, build_tables, lock_path, near_tiers, tables_bytes, try_lock_build,
    BuildConfig, BuildReport, Progress, TierStats,
};
pub use error::TableError;
pub use format::{file_name, Check};
pub use names::{TableFile, ALL_RULES};
pub use ranker::Ranker;
pub use reader::{Tables, TierTable};
pub use verify::{verify_tables, VerifyConfig, VerifyReport};

/// Largest tier an `i8` entry can hold (`|V| <= k`).
pub const MAX_TIER: u32 = 127;
