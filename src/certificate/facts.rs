//! The facts of a certificate by board: the tightest bounds each board
//! has, with the fact each came from (contradictions refused, naming both
//! units).

use std::collections::HashMap;

use kalah_solver::Board;

use super::{packed_hex, Fact};

/// The tightest bounds known on each board, with the fact each came from.
#[derive(Default)]
pub struct FactTable {
    bounds: HashMap<Board, Bounds>,
}

#[derive(Clone, Default)]
struct Bounds {
    lower: Option<(i32, usize)>,
    upper: Option<(i32, usize)>,
    facts: Vec<Fact>,
}

impl FactTable {
    /// Adds a fact.
    ///
    /// # Errors
    /// A fact no value of its board can meet, or one that contradicts an
    /// earlier fact of the same board (both units named).
    pub fn add(&mut self, f: &Fact) -> Result<(), String> {
        let s = f.board.seeds() as i32;
        let hex = packed_hex::text(f.board);
        if f.lower.is_some_and(|l| l > s) || f.upper.is_some_and(|u| u < -s) {
            return Err(format!(
                "unit {}: bounds {:?}..{:?} on board {hex} of {s} seeds",
                f.unit, f.lower, f.upper
            ));
        }
        let b = self.bounds.entry(f.board).or_default();
        let index = b.facts.len();
        b.facts.push(f.clone());
        if let Some(l) = f.lower {
            if b.lower.is_none_or(|(old, _)| l > old) {
                b.lower = Some((l, index));
            }
        }
        if let Some(u) = f.upper {
            if b.upper.is_none_or(|(old, _)| u < old) {
                b.upper = Some((u, index));
            }
        }
        if let (Some((l, li)), Some((u, ui))) = (b.lower, b.upper) {
            if l > u {
                return Err(format!(
                    "board {hex}: unit {} says value >= {l}, unit {} says value <= {u}",
                    b.facts[li].unit, b.facts[ui].unit
                ));
            }
        }
        Ok(())
    }

    /// The best lower bound on `board` and its fact.
    pub(super) fn lower(&self, board: Board) -> Option<(i32, &Fact)> {
        let b = self.bounds.get(&board)?;
        b.lower.map(|(v, i)| (v, &b.facts[i]))
    }

    /// The best upper bound on `board` and its fact.
    pub(super) fn upper(&self, board: Board) -> Option<(i32, &Fact)> {
        let b = self.bounds.get(&board)?;
        b.upper.map(|(v, i)| (v, &b.facts[i]))
    }

    /// Boards with facts.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// No facts.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }
}
