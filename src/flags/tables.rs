//! The table flags (`--tables`, `--table-seeds`, `--no-tables`) and the
//! book flag (`--no-book`), and the service's table policy they give.

use std::path::PathBuf;

use clap::Args;

use crate::service::setup::TablePolicy;
use crate::service::table_dir::{self, TableDir};

/// Where the endgame tables are and how many seeds they cover.
#[derive(Args, Clone, Debug)]
pub struct TableArgs {
    /// Directory of the endgame tables (default: $KALAH_TABLES, else the
    /// source tree's tables/, else ~/.local/share/kalah/tables; `kalah
    /// tables` shows which).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Use tables of boards with up to K seeds. `solve`, `play` and
    /// `reproduce` build missing tiers first. Default: the tiers already in
    /// the directory (up to 12 G boards, about 5.5 GB: 30 seeds for 6
    /// houses), and at least the tiers of about 600 M boards (built if
    /// missing; 22 seeds, 250 MB, for 6 houses), but at most the game's
    /// seeds less 20, and none for games of at most 32 seeds, which search
    /// solves at once. `query` uses the tiers that are there.
    #[arg(long, value_name = "K")]
    pub table_seeds: Option<u32>,
    /// Search without endgame tables.
    #[arg(long, conflicts_with = "table_seeds")]
    pub no_tables: bool,
}

/// Whether the opening book is used, for the commands that answer
/// positions of a game's opening (`query`, `play`, `analyze`, `serve`).
#[derive(Args, Clone, Debug, Default)]
pub struct BookUse {
    /// Neither read nor build the opening book (the exact values of every
    /// position of a game's first sowings, kept beside the tables; see
    /// `kalah book build --help`): the opening is searched.
    #[arg(long)]
    pub no_book: bool,
}

impl TableArgs {
    /// The table directory these flags name (see [`crate::service::table_dir`]).
    pub fn dir(&self) -> TableDir {
        table_dir::resolve(self.tables.as_deref())
    }

    /// The tables these flags ask for, as the service takes them, without
    /// the opening book (the commands whose answers come from search or
    /// tables alone: `solve`, `reproduce`, `certify`, the cluster's).
    pub fn policy(&self) -> TablePolicy {
        self.policy_with(&BookUse { no_book: true })
    }

    /// [`TableArgs::policy`], with the opening book as `book` says.
    pub fn policy_with(&self, book: &BookUse) -> TablePolicy {
        TablePolicy {
            dir: self.dir(),
            table_seeds: self.table_seeds,
            no_tables: self.no_tables,
            no_book: book.no_book,
        }
    }
}
