//! Move ordering: the children of a node, sown once, scored and sorted.
//!
//! Order (each part switchable in [`SearchConfig`](super::SearchConfig)):
//! the table's best house; then by the seeds the sowing puts into the
//! mover's store (sown and captured), an extra turn counting as
//! [`EXTRA_TURN_SEEDS`] more; ties right to left (sowing a house near the
//! store disturbs fewer of the other houses).
//!
//! Captures are not tried before other store gains: under the
//! empty-capture rule a "capture" of the lone sowing seed gains no more
//! than passing the store, and trying it early misleads. The orders tried
//! and their node counts are in lab/journal/search.md, "Move ordering".

use crate::board::{Board, Game, Sown};
use crate::rules::MAX_PITS;

/// One child of a node: the house sown and what sowing it did.
#[derive(Clone, Copy, Debug)]
pub struct Child {
    /// House sown, 0-based.
    pub house: u8,
    /// The board afterwards and the gain.
    pub sown: Sown,
    /// Larger is tried first.
    pub score: i32,
    /// The child's exact value (its own mover's view), when already known
    /// from the end of the game or an endgame table.
    pub known: Option<i32>,
}

/// The children of one node in search order.
pub struct Children {
    kids: [Child; MAX_PITS],
    len: usize,
}

const TT_MOVE: i32 = 1 << 20;
/// What an extra turn is worth in the order, in seeds.
pub const EXTRA_TURN_SEEDS: i32 = 5;

impl Children {
    /// Sows every legal house of `board` (which must not be finished) and
    /// scores the result; call [`Children::sort`] once the scores are final.
    #[inline]
    pub fn generate(game: &Game, board: Board, tt_move: Option<u8>, ordering: bool) -> Children {
        let empty = Child {
            house: 0,
            sown: Sown {
                board: Board::EMPTY,
                gain: 0,
                extra_turn: false,
                captured: 0,
            },
            score: 0,
            known: None,
        };
        let mut kids = [empty; MAX_PITS];
        let mut len = 0;
        let mut moves = game.moves(board);
        let pits = game.pits() as i32;
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let sown = game.sow(board, house);
            let h = house as i32;
            let mut score = if !ordering {
                pits - h
            } else {
                let extra = if sown.extra_turn { EXTRA_TURN_SEEDS } else { 0 };
                (sown.gain as i32 + extra) * 16 + h
            };
            if tt_move == Some(house as u8) {
                score += TT_MOVE;
            }
            kids[len] = Child {
                house: house as u8,
                sown,
                score,
                known: None,
            };
            len += 1;
        }
        Children { kids, len }
    }

    /// Sorts by score, highest first (stable: ties keep house order).
    #[inline]
    pub fn sort(&mut self) {
        let kids = &mut self.kids[..self.len];
        for i in 1..kids.len() {
            let k = kids[i];
            let mut j = i;
            while j > 0 && kids[j - 1].score < k.score {
                kids[j] = kids[j - 1];
                j -= 1;
            }
            kids[j] = k;
        }
    }

    /// The children in order.
    #[inline]
    pub fn as_slice(&self) -> &[Child] {
        &self.kids[..self.len]
    }

    /// The children in order, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Child] {
        &mut self.kids[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn store_gain_with_extra_turns_worth_five_then_right_to_left() {
        let game = Game::new(4, Rules::STANDARD);
        // House 4 (1 seed) and house 1 (4 seeds) reach the store: 1 + 5
        // each; house 2 (1 seed) lands in empty house 3 facing 5 seeds: a
        // capture of 6.
        let board = Board::from_sides(&[4, 1, 0, 1], &[2, 5, 3, 1]);
        let mut kids = Children::generate(&game, board, None, true);
        kids.sort();
        let order: Vec<u8> = kids.as_slice().iter().map(|c| c.house).collect();
        assert_eq!(order, vec![3, 1, 0]);
        let mut kids = Children::generate(&game, board, Some(1), true);
        kids.sort();
        let order: Vec<u8> = kids.as_slice().iter().map(|c| c.house).collect();
        assert_eq!(order, vec![1, 3, 0]);
        let mut kids = Children::generate(&game, board, None, false);
        kids.sort();
        let order: Vec<u8> = kids.as_slice().iter().map(|c| c.house).collect();
        assert_eq!(order, vec![0, 1, 3]);
    }
}
