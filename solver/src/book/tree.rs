//! The opening tree a book covers: every board reachable from a game's
//! start within a number of plies (sowings), each once, and the values of
//! its inner boards from their children's.
//!
//! Boards, not positions: a board's value (the net future store gain of
//! the player to move, stores excluded) does not depend on the stores or
//! on the path that reached it, so two move orders that reach one board
//! share one entry, and the book holds one value a board.

use std::collections::HashMap;

use crate::board::{Board, Game};

/// The boards within `depth` plies of `start` that are not finished: each
/// with the fewest plies that reach it, in order of that depth (the start
/// first), boards of one depth in the order they were found.
pub fn opening(game: &Game, start: Board, depth: u32) -> Vec<(Board, u32)> {
    let mut seen: HashMap<u128, ()> = HashMap::new();
    let mut out = Vec::new();
    if game.terminal_value(start).is_some() {
        return out;
    }
    seen.insert(start.packed(), ());
    out.push((start, 0));
    let mut level = vec![start];
    for d in 1..=depth {
        let mut next = Vec::new();
        for &board in &level {
            for_each_child(game, board, |child| {
                if game.terminal_value(child).is_none() && seen.insert(child.packed(), ()).is_none()
                {
                    next.push(child);
                    out.push((child, d));
                }
            });
        }
        level = next;
    }
    out
}

/// Calls `f` with the board after each legal sowing of `board` (seen by
/// the player who moves next).
pub fn for_each_child(game: &Game, board: Board, mut f: impl FnMut(Board)) {
    let mut legal = game.moves(board);
    while legal != 0 {
        let house = legal.trailing_zeros() as usize;
        legal &= legal - 1;
        f(game.sow(board, house).board);
    }
}

/// The value of `board` for the player to move from its children's:
/// the best over its sowings of the seeds the sowing stores plus the
/// child's value (for the same player after an extra turn, negated
/// otherwise). `value` gives a child's value; `None` when one is unknown.
pub fn from_children(
    game: &Game,
    board: Board,
    mut value: impl FnMut(Board) -> Option<i32>,
) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let mut best = i32::MIN;
    let mut legal = game.moves(board);
    while legal != 0 {
        let house = legal.trailing_zeros() as usize;
        legal &= legal - 1;
        let sown = game.sow(board, house);
        let child = match game.terminal_value(sown.board) {
            Some(v) => v,
            None => value(sown.board)?,
        };
        let v = sown.gain as i32 + if sown.extra_turn { child } else { -child };
        best = best.max(v);
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::rules::Rules;

    /// Every board listed once, each reached in the number of plies given,
    /// and every non-finished child of a board short of the depth listed.
    #[test]
    fn the_tree_of_kalah_3_2() {
        let game = Game::new(3, Rules::STANDARD);
        let start = Position::start(3, 2).unwrap().board();
        let tree = opening(&game, start, 4);
        let depth: HashMap<u128, u32> = tree.iter().map(|(b, d)| (b.packed(), *d)).collect();
        assert_eq!(depth.len(), tree.len());
        assert_eq!(tree[0], (start, 0));
        for &(b, d) in &tree {
            if d < 4 {
                for_each_child(&game, b, |c| {
                    if game.terminal_value(c).is_none() {
                        assert!(depth[&c.packed()] <= d + 1);
                    }
                });
            }
        }
        let v = from_children(&game, start, |c| Some(game.reference_value(c)));
        assert_eq!(v, Some(game.reference_value(start)));
    }

    /// Boards a depth of the default games (the counts that size a book).
    #[test]
    #[ignore]
    fn count_opening_boards() {
        for seeds in [3, 4, 5] {
            for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
                let game = Game::new(6, rules);
                let start = Position::start(6, seeds).unwrap().board();
                let tree = opening(&game, start, 10);
                let mut per = [0usize; 11];
                for (_, d) in &tree {
                    per[*d as usize] += 1;
                }
                println!("6,{seeds} {rules:?}: {per:?}");
            }
        }
    }
}
