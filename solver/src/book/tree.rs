//! The opening tree a book covers: every board met within a game's first
//! turns, each once, the boards where the next turn starts, and the values
//! of the inner boards from their children's.
//!
//! Boards, not positions: a board's value (the net future store gain of
//! the player to move, stores excluded) does not depend on the stores or
//! on the path that reached it, so two move orders that reach one board
//! share one entry, and the book holds one value a board.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::board::{Board, Game};

/// The opening a book of `turns` turns covers: the boards met within the
/// first `turns` turns of a game from `start` (a turn is a player's
/// sowings until the move passes, extra turns included), and the boards
/// one sowing beyond them, where the next turn starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opening {
    /// Boards a player moves on within the first `turns` turns, each once,
    /// in order of the fewest turns that reach it (the start first). Every
    /// position within those turns is answered with every move's value
    /// from these boards' children.
    pub inner: Vec<Board>,
    /// Children of inner boards that are not inner themselves: where turn
    /// `turns + 1` starts (or, one sowing later, where its first sowing
    /// could also have ended a turn). Valued by search; each once, in the
    /// order found. Finished boards are in neither list.
    pub frontier: Vec<Board>,
}

/// The [`Opening`] of `turns` turns from `start`: a breadth-first walk in
/// which a sowing that gives an extra turn stays within the turn (0-1
/// breadth-first search), so that each board gets the fewest turns any
/// line reaches it in. A board met both as an inner board and one sowing
/// beyond the turns is inner.
pub fn opening_turns(game: &Game, start: Board, turns: u32) -> Opening {
    let mut turn_of: HashMap<u128, u32> = HashMap::new();
    let mut out = Opening::default();
    if game.terminal_value(start).is_some() {
        return out;
    }
    if turns == 0 {
        out.frontier.push(start);
        return out;
    }
    let mut queue = VecDeque::from([(start, 0u32)]);
    turn_of.insert(start.packed(), 0);
    while let Some((board, t)) = queue.pop_front() {
        if turn_of[&board.packed()] != t {
            continue; // reached again in fewer turns, handled there
        }
        out.inner.push(board);
        let mut legal = game.moves(board);
        while legal != 0 {
            let house = legal.trailing_zeros() as usize;
            legal &= legal - 1;
            let sown = game.sow(board, house);
            if game.terminal_value(sown.board).is_some() {
                continue;
            }
            let next = if sown.extra_turn { t } else { t + 1 };
            let key = sown.board.packed();
            if turn_of.get(&key).is_some_and(|&seen| seen <= next) {
                continue;
            }
            turn_of.insert(key, next);
            if next < turns {
                if sown.extra_turn {
                    queue.push_front((sown.board, next));
                } else {
                    queue.push_back((sown.board, next));
                }
            }
        }
    }
    let inner: HashSet<u128> = out.inner.iter().map(|b| b.packed()).collect();
    let mut listed = HashSet::new();
    for &board in &out.inner {
        for_each_child(game, board, |child| {
            let key = child.packed();
            if game.terminal_value(child).is_none() && !inner.contains(&key) && listed.insert(key) {
                out.frontier.push(child);
            }
        });
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

    /// The boards of the first `turns` turns, found independently: every
    /// line of sowings followed position by position (the side to move
    /// tells whether a sowing gave an extra turn), no board merged.
    fn boards_within(game: &Game, pos: Position, turn: u32, turns: u32, out: &mut HashSet<u128>) {
        if turn >= turns || game.terminal_value(pos.board()).is_some() {
            return;
        }
        out.insert(pos.board().packed());
        for h in pos.legal_moves(game.rules()) {
            let mut next = pos;
            next.play(game, h).unwrap();
            let t = if next.to_move() == pos.to_move() {
                turn
            } else {
                turn + 1
            };
            boards_within(game, next, t, turns, out);
        }
    }

    /// The inner boards are exactly those met within the turns, each once;
    /// the frontier is every other unfinished child of them, each once.
    /// The start's value from its children's is the reference search's.
    #[test]
    fn the_opening_of_small_games() {
        for (pits, seeds) in [(3, 2), (4, 3), (6, 2)] {
            for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
                let game = Game::new(pits, rules);
                let start = Position::start(pits, seeds).unwrap();
                for turns in 0..=3 {
                    let o = opening_turns(&game, start.board(), turns);
                    let mut expect = HashSet::new();
                    boards_within(&game, start, 0, turns, &mut expect);
                    let inner: HashSet<u128> = o.inner.iter().map(|b| b.packed()).collect();
                    assert_eq!(inner.len(), o.inner.len(), "an inner board twice");
                    assert_eq!(inner, expect, "Kalah({pits},{seeds}) {turns} turns");
                    let frontier: HashSet<u128> = o.frontier.iter().map(|b| b.packed()).collect();
                    assert_eq!(frontier.len(), o.frontier.len(), "a frontier board twice");
                    assert!(frontier.is_disjoint(&inner));
                    let mut children = HashSet::new();
                    for &b in &o.inner {
                        for_each_child(&game, b, |c| {
                            if game.terminal_value(c).is_none() && !inner.contains(&c.packed()) {
                                children.insert(c.packed());
                            }
                        });
                    }
                    if turns == 0 {
                        children.insert(start.board().packed());
                    }
                    assert_eq!(frontier, children);
                    if turns > 0 {
                        assert_eq!(o.inner[0], start.board());
                    }
                }
            }
        }
        let game = Game::new(3, Rules::STANDARD);
        let start = Position::start(3, 2).unwrap().board();
        let v = from_children(&game, start, |c| Some(game.reference_value(c)));
        assert_eq!(v, Some(game.reference_value(start)));
    }

    /// Boards of a book of 1..=3 turns for the default games (the counts
    /// that size a book and its build).
    #[test]
    #[ignore]
    fn count_opening_turns() {
        for seeds in [3, 4, 5] {
            for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
                let game = Game::new(6, rules);
                let start = Position::start(6, seeds).unwrap().board();
                for turns in 1..=3 {
                    let o = opening_turns(&game, start, turns);
                    println!(
                        "6,{seeds} {rules:?} turns {turns}: {} inner, {} frontier",
                        o.inner.len(),
                        o.frontier.len()
                    );
                }
            }
        }
    }
}
