//! The prover: negamax over the expanded boards from a certificate's start,
//! facts at the leaves, finished games scored by the end rule; it proves
//! bounds, finds the tightest the facts give, and extracts the facts and
//! boards a proof needs. Nothing of the solver's search is used.

use std::collections::{HashMap, HashSet};

use kalah_solver::{Board, EndRule, Game};

use super::{Fact, FactTable};

/// What decides a bound without a board's children.
enum Direct<'a> {
    /// The end of the game or the seeds on the board decide it so.
    Decided(bool),
    /// This fact proves it.
    Fact(&'a Fact),
    /// The oracle's exact value decides it so.
    Oracle(i32, bool),
    /// Only the children can.
    Children,
}

/// A proof found by [`Prover::extract`]: the facts it rests on and the
/// boards it expands.
#[derive(Default)]
pub struct Proof {
    pub facts: Vec<Fact>,
    pub expanded: Vec<Board>,
}

/// Proves bounds on board values from a [`FactTable`] by negamax over the
/// boards `expand` allows (given the board and its depth in sowings from
/// the root), memoized by board and bound. Sound whatever `expand` says:
/// a board not expanded is bounded only by its facts (and the seeds on
/// it).
pub struct Prover<'a, E> {
    game: &'a Game,
    facts: &'a FactTable,
    expand: E,
    /// Exact values of boards outside the facts (the endgame tables of
    /// the run that writes a certificate; none when checking one): each
    /// one a proof uses becomes a fact of unit `tables`.
    oracle: Option<&'a dyn Fn(Board) -> Option<i32>>,
    parity: bool,
    /// `(board, at_least, bound)` -> proved.
    memo: HashMap<(Board, bool, i32), bool>,
    /// Boards being evaluated (a repeated board proves nothing).
    open: HashSet<Board>,
}

impl<'a, E: FnMut(Board, u32) -> bool> Prover<'a, E> {
    pub fn new(game: &'a Game, facts: &'a FactTable, expand: E) -> Prover<'a, E> {
        Prover {
            game,
            facts,
            expand,
            oracle: None,
            parity: game.rules().end != EndRule::NoSweep,
            memo: HashMap::new(),
            open: HashSet::new(),
        }
    }

    /// Takes exact values from `oracle` (the endgame tables) where the
    /// facts have none.
    pub fn with_oracle(mut self, oracle: &'a dyn Fn(Board) -> Option<i32>) -> Self {
        self.oracle = Some(oracle);
        self
    }

    /// The weakest bound that implies `value >= t` on `board` (by parity).
    fn lower_needed(&self, board: Board, t: i32) -> i32 {
        if self.parity && (t - board.seeds() as i32).rem_euclid(2) == 0 {
            t - 1
        } else {
            t
        }
    }

    /// The weakest bound that implies `value <= t` on `board` (by parity).
    fn upper_needed(&self, board: Board, t: i32) -> i32 {
        if self.parity && (t - board.seeds() as i32).rem_euclid(2) == 0 {
            t + 1
        } else {
            t
        }
    }

    /// Whether the facts prove `value(board) >= t`.
    pub fn at_least(&mut self, board: Board, t: i32, depth: u32) -> bool {
        self.prove(board, true, t, depth)
    }

    /// Whether the facts prove `value(board) <= t`.
    pub fn at_most(&mut self, board: Board, t: i32, depth: u32) -> bool {
        self.prove(board, false, t, depth)
    }

    /// What decides `value(board) >= t` (`lower`) or `<= t` without its
    /// children: the end of the game, the seeds on the board, a fact.
    fn direct(&self, board: Board, lower: bool, t: i32) -> Direct<'a> {
        if let Some(v) = self.game.terminal_value(board) {
            return Direct::Decided(if lower { v >= t } else { v <= t });
        }
        if let Some(v) = self.oracle.and_then(|o| o(board)) {
            return Direct::Oracle(v, if lower { v >= t } else { v <= t });
        }
        let s = board.seeds() as i32;
        if lower {
            let need = self.lower_needed(board, t);
            if need <= -s {
                return Direct::Decided(true);
            }
            if let Some((l, f)) = self.facts.lower(board) {
                if l >= need {
                    return Direct::Fact(f);
                }
            }
            if self.facts.upper(board).is_some_and(|(u, _)| u < t) || t > s {
                return Direct::Decided(false);
            }
        } else {
            let need = self.upper_needed(board, t);
            if need >= s {
                return Direct::Decided(true);
            }
            if let Some((u, f)) = self.facts.upper(board) {
                if u <= need {
                    return Direct::Fact(f);
                }
            }
            if self.facts.lower(board).is_some_and(|(l, _)| l > t) || t < -s {
                return Direct::Decided(false);
            }
        }
        Direct::Children
    }

    fn prove(&mut self, board: Board, lower: bool, t: i32, depth: u32) -> bool {
        match self.direct(board, lower, t) {
            Direct::Decided(b) | Direct::Oracle(_, b) => return b,
            Direct::Fact(_) => return true,
            Direct::Children => {}
        }
        if let Some(&p) = self.memo.get(&(board, lower, t)) {
            return p;
        }
        if !(self.expand)(board, depth) || !self.open.insert(board) {
            return false;
        }
        let mut moves = self.game.moves(board);
        // value >= t: some child reaches it; value <= t: every child.
        let mut proved = !lower;
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let sown = self.game.sow(board, house);
            let gain = i32::from(sown.gain);
            let child = sown.board;
            // The parent's value through this child: gain + v (extra
            // turn) or gain - v.
            let holds = match (sown.extra_turn, lower) {
                (true, true) => self.prove(child, true, t - gain, depth + 1),
                (true, false) => self.prove(child, false, t - gain, depth + 1),
                (false, true) => self.prove(child, false, gain - t, depth + 1),
                (false, false) => self.prove(child, true, gain - t, depth + 1),
            };
            if lower && holds {
                proved = true;
                break;
            }
            if !lower && !holds {
                proved = false;
                break;
            }
        }
        self.open.remove(&board);
        self.memo.insert((board, lower, t), proved);
        proved
    }

    /// Boards (with the bound and threshold asked of each) evaluated so
    /// far.
    pub fn boards_evaluated(&self) -> usize {
        self.memo.len()
    }

    /// The tightest bounds the facts prove on `root`'s value: the largest
    /// `l` with `value >= l` proved and the smallest `u` with `value <= u`
    /// proved (by bisection over the seeds on the board).
    pub fn tightest(&mut self, root: Board) -> (i32, i32) {
        let s = root.seeds() as i32;
        // Largest l in [-s, s] with at_least(l): at_least is monotone.
        let (mut lo, mut hi) = (-s, s);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if self.at_least(root, mid, 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let lower = lo;
        let (mut lo, mut hi) = (-s, s);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.at_most(root, mid, 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        (lower, lo)
    }

    /// The facts and expanded boards of a proof of `lower <= value(root)
    /// <= upper`, which [`Prover::at_least`] and [`Prover::at_most`] must
    /// have found.
    pub fn extract(&mut self, root: Board, lower: i32, upper: i32) -> Proof {
        let mut proof = Proof::default();
        let mut facts_seen = HashSet::new();
        let mut expanded_seen = HashSet::new();
        let mut stack = vec![(root, true, lower, 0u32), (root, false, upper, 0u32)];
        let mut done = HashSet::new();
        while let Some((board, lower, t, depth)) = stack.pop() {
            if !done.insert((board, lower, t)) {
                continue;
            }
            match self.direct(board, lower, t) {
                Direct::Decided(_) => continue,
                Direct::Oracle(v, _) => {
                    let f = Fact {
                        board,
                        lower: Some(v),
                        upper: Some(v),
                        unit: "tables".into(),
                    };
                    if facts_seen.insert((f.board, f.lower, f.upper, f.unit.clone())) {
                        proof.facts.push(f);
                    }
                    continue;
                }
                Direct::Fact(f) => {
                    if facts_seen.insert((f.board, f.lower, f.upper, f.unit.clone())) {
                        proof.facts.push(f.clone());
                    }
                    continue;
                }
                Direct::Children => {}
            }
            if expanded_seen.insert(board) {
                proof.expanded.push(board);
            }
            let mut moves = self.game.moves(board);
            while moves != 0 {
                let house = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let sown = self.game.sow(board, house);
                let gain = i32::from(sown.gain);
                let (child_lower, child_t) = match (sown.extra_turn, lower) {
                    (true, l) => (l, t - gain),
                    (false, l) => (!l, gain - t),
                };
                let holds = self.prove(sown.board, child_lower, child_t, depth + 1);
                if lower && holds {
                    stack.push((sown.board, child_lower, child_t, depth + 1));
                    break;
                }
                if !lower {
                    stack.push((sown.board, child_lower, child_t, depth + 1));
                }
            }
        }
        proof
    }
}
