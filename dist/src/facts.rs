//! What the coordinator knows about board values: bounds from unit results
//! and from the top-tree nodes they decided.

use foldhash::HashMap as FoldMap;

use kalah_solver::Board;

use crate::unit::{Known, UnitKey, Verdict, EXACT};

/// Bounds on one board's value: `lower <= value <= upper`; `split` when a
/// unit of this board ran past its budget (its children are searched as
/// units instead); `solved` when an exact unit of it was answered (its
/// worker reported a perfect game below it).
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: i32,
    upper: i32,
    split: bool,
    solved: bool,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            lower: i32::MIN,
            upper: i32::MAX,
            split: false,
            solved: false,
        }
    }
}

/// Every bound known, by board. Values are exact facts of the game, so a
/// bound never has to be taken back: facts only accumulate.
#[derive(Default)]
pub struct Facts {
    map: FoldMap<Board, Bounds>,
}

impl Facts {
    /// Takes in a unit's verdict.
    pub fn add(&mut self, key: UnitKey, verdict: Verdict) {
        match verdict {
            Verdict::AtLeast => self.learn(key.board, key.beta, true),
            Verdict::Below => self.learn(key.board, key.beta, false),
            Verdict::Exact(v) => {
                debug_assert_eq!(key.beta, EXACT);
                self.learn(key.board, v, true);
                self.learn(key.board, v + 1, false);
                self.map.entry(key.board).or_default().solved = true;
            }
            Verdict::Split => self.map.entry(key.board).or_default().split = true,
        }
    }

    /// Takes in the bounds a worker's table held ([`Known`]).
    pub fn add_known(&mut self, k: &Known) {
        if let Some(lower) = k.lower {
            self.learn(k.board, lower, true);
        }
        if let Some(upper) = k.upper {
            self.learn(k.board, upper + 1, false);
        }
    }

    /// Takes in `value(board) >= beta` (`holds`) or its negation.
    pub fn learn(&mut self, board: Board, beta: i32, holds: bool) {
        let b = self.map.entry(board).or_default();
        if holds {
            b.lower = b.lower.max(beta);
        } else {
            b.upper = b.upper.min(beta - 1);
        }
    }

    /// Whether `value(board) >= beta`, when the bounds decide it.
    pub fn test(&self, board: Board, beta: i32) -> Option<bool> {
        let b = self.map.get(&board)?;
        if b.lower >= beta {
            Some(true)
        } else if b.upper < beta {
            Some(false)
        } else {
            None
        }
    }

    /// The value of `board`, when its bounds meet.
    pub fn exact(&self, board: Board) -> Option<i32> {
        let b = self.map.get(&board)?;
        (b.lower == b.upper).then_some(b.lower)
    }

    /// Whether an exact unit of `board` was answered.
    pub fn solved(&self, board: Board) -> bool {
        self.map.get(&board).is_some_and(|b| b.solved)
    }

    /// Whether a unit of `board` was split.
    pub fn split(&self, board: Board) -> bool {
        self.map.get(&board).is_some_and(|b| b.split)
    }
}
