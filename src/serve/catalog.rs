//! The endgame tables the server answers from: for every board size (1 to
//! 8 houses) and every rule set, the tiers present in the table directory,
//! opened once at start, each file mapped and its checksum checked then
//! (remembered by a stamp, so a restart costs no reading), so that no
//! request ever waits for a file to be opened or checked, and a damaged
//! file stops the server at start, named, rather than failing requests.
//! The opening books present beside them are opened and checked at start
//! the same way.

use std::sync::Arc;

use kalah_solver::rules::MAX_PITS;
use kalah_solver::table::{Tables, ALL_RULES};
use kalah_solver::{Probe, Rules};

use crate::service::book::Books;
use crate::service::setup::{open_present, TablePolicy};
use crate::service::Error;

/// The tables of one board size and rule set.
pub struct Entry {
    /// `None`: no tables (a search answers every position not finished).
    pub tables: Option<Arc<Tables>>,
    /// Why there are none, as `kalah query` says it in its `note`.
    pub note: Option<String>,
    /// [`Rules::slug`], written on every answer.
    pub slug: String,
    /// The opening books of this board size and rule set (one a game).
    pub books: Books,
}

/// Every board size's and rule set's tables.
pub struct Catalog {
    /// `MAX_PITS` board sizes a rule set, in [`ALL_RULES`] order.
    entries: Vec<Entry>,
}

impl Catalog {
    /// Opens the tables `policy` names for every board size and rule set,
    /// as `kalah query` opens them ([`open_present`]), all tiers at once.
    ///
    /// # Errors
    /// A named table directory that does not exist, or a tier file that
    /// fails its check (naming it).
    pub fn open(policy: &TablePolicy) -> Result<Catalog, Error> {
        let mut entries = Vec::with_capacity(ALL_RULES.len() * MAX_PITS);
        for rules in ALL_RULES {
            for pits in 1..=MAX_PITS {
                let (tables, note) = open_present(policy, pits, rules, true)?;
                let books = Books::open_all(policy, pits, rules)?;
                entries.push(Entry {
                    tables,
                    note,
                    slug: rules.slug(),
                    books,
                });
            }
        }
        Ok(Catalog { entries })
    }

    /// The tables for `pits` houses (1..=8) and `rules`.
    ///
    /// # Panics
    /// If `pits` is not 1..=8 (a [`kalah_solver::Position`] never is).
    pub fn get(&self, pits: usize, rules: Rules) -> &Entry {
        assert!((1..=MAX_PITS).contains(&pits), "{pits} houses");
        let r = ALL_RULES
            .iter()
            .position(|&r| r == rules)
            .expect("ALL_RULES holds every rule set");
        &self.entries[r * MAX_PITS + pits - 1]
    }

    /// The books present: (houses, rules, seeds a house, boards, turns).
    pub fn books(&self) -> Vec<(usize, Rules, usize, usize, u32)> {
        let mut out = Vec::new();
        for e in &self.entries {
            for b in e.books.list() {
                out.push((b.pits(), b.rules(), b.seeds(), b.len(), b.turns()));
            }
        }
        out
    }

    /// The tables present: (houses, rules, tiers up to this many seeds).
    pub fn present(&self) -> Vec<(usize, Rules, u32)> {
        let mut out = Vec::new();
        for (r, rules) in ALL_RULES.iter().enumerate() {
            for pits in 1..=MAX_PITS {
                if let Some(t) = &self.entries[r * MAX_PITS + pits - 1].tables {
                    out.push((pits, *rules, t.max_seeds()));
                }
            }
        }
        out
    }
}
