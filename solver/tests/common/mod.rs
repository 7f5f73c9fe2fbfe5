//! Helpers shared by the engine's integration tests.

use std::collections::HashMap;

use kalah_solver::{Board, Game};

/// Plain negamax with a memo of exact values, written from the rules alone:
/// independent of the solver and the table builder, so both are checked
/// against it.
pub fn memo_value(game: &Game, board: Board, memo: &mut HashMap<Board, i32>) -> i32 {
    if let Some(v) = game.terminal_value(board) {
        return v;
    }
    if let Some(&v) = memo.get(&board) {
        return v;
    }
    let mut best = i32::MIN;
    for house in 0..game.pits() {
        if board.own_house(house) == 0 {
            continue;
        }
        let s = game.sow(board, house);
        let c = memo_value(game, s.board, memo);
        best = best.max(s.gain as i32 + if s.extra_turn { c } else { -c });
    }
    memo.insert(board, best);
    best
}
