//! The shallow search: a depth-limited alpha-beta over store gains, the
//! cheap estimate beside the exact search.
//!
//! A board's shallow value is the minimax value of the tree of its first
//! `depth` sowings, each sowing worth its store gain, with exact values
//! from finished games and (when given) endgame-table probes, and 0 (an
//! even future) at the horizon. It is the first guess of MTD(f)
//! ([`Solver`](super::Solver)'s, with no probe) and, in the cluster
//! crate, the first guess of the top tree and its children's order.
//!
//! Values are board values, as everywhere in [`crate::search`]: the
//! mover's net future store gain, stores excluded. Every shallow value of
//! a board of `s` seeds lies in `[-s, s]` (a horizon's 0 does, and a
//! sowing's gain leaves the board that many seeds fewer), far inside
//! `[-MAX, MAX]`.
//!
//! Nothing here keeps state: no table, no clock; the same board, depth,
//! window and probe give the same value and the same count of boards
//! visited.

use super::ordering::{Child, Children};
use crate::board::{Board, Game};
use crate::Probe;

/// Beyond every value (a board holds at most 255 seeds): `(-MAX, MAX)` is
/// the full window.
pub const MAX: i32 = 1 << 10;

/// The deepest search of [`deepening`]. A tiny game's searches end in
/// finished games long before and visit few boards a depth; this bounds
/// their loop (it is not a setting).
pub const MAX_DEEPENING: u32 = 512;

/// A depth-limited fail-hard alpha-beta in `[alpha, beta]`: exact values
/// from finished games and tables, 0 (an even future) at the horizon.
/// With the full window its value is the depth-limited minimax value,
/// whatever order the children are tried in.
///
/// Fail-hard: the result `r` lies in `[alpha, beta]`, and with `v` the
/// depth-limited minimax value, `r == alpha` when `v <= alpha`,
/// `r == beta` when `v >= beta`, and `r == v` otherwise; so any window
/// with `alpha < v < beta` (such as `(-s - 1, s + 1)` for a board of `s`
/// seeds, or `(-MAX, MAX)`) gives `v` itself.
///
/// The children are tried in the engine's move order ([`ordered`]),
/// except one sowing above the horizon, where they are taken in house
/// order, the first house first (their values cost no search).
pub fn search(
    game: &Game,
    probe: Option<&dyn Probe>,
    board: Board,
    depth: u32,
    alpha: i32,
    beta: i32,
) -> i32 {
    search_counted(game, probe, board, depth, alpha, beta, &mut 0)
}

/// The value of the last of [`search`]es of `board` one sowing deeper
/// each, from one, once they have visited `budget` boards together (or
/// reached [`MAX_DEEPENING`]). Each is full-window: its value is the
/// depth-limited minimax value. It depends on the game, the board, the
/// probe and the budget only (no clock).
pub fn deepening(game: &Game, probe: Option<&dyn Probe>, board: Board, budget: u64) -> i32 {
    let mut visited = 0;
    let mut depth = 1;
    loop {
        let v = search_counted(game, probe, board, depth, -MAX, MAX, &mut visited);
        if visited >= budget || depth >= MAX_DEEPENING {
            return v;
        }
        depth += 1;
    }
}

/// [`search`], adding the boards it visits to `visited`: one for every
/// call, the horizon's children (searched in place, one sowing above it)
/// not counted.
pub fn search_counted(
    game: &Game,
    probe: Option<&dyn Probe>,
    board: Board,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    visited: &mut u64,
) -> i32 {
    *visited += 1;
    if let Some(v) = exact(game, probe, board) {
        return v;
    }
    if depth == 0 {
        return 0;
    }
    if depth == 1 {
        // The children are at the horizon: their values cost no search, so
        // they are not ordered (most of the nodes of a shallow search are
        // here).
        let mut moves = game.moves(board);
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let sown = game.sow(board, house);
            let g = sown.gain as i32;
            let leaf = exact(game, probe, sown.board).unwrap_or(0);
            let v = if sown.extra_turn { g + leaf } else { g - leaf };
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        return alpha;
    }
    for c in ordered(game, board).as_slice() {
        let g = c.sown.gain as i32;
        let v = if c.sown.extra_turn {
            g + search_counted(
                game,
                probe,
                c.sown.board,
                depth - 1,
                alpha - g,
                beta - g,
                visited,
            )
        } else {
            g - search_counted(
                game,
                probe,
                c.sown.board,
                depth - 1,
                g - beta,
                g - alpha,
                visited,
            )
        };
        if v > alpha {
            alpha = v;
            if alpha >= beta {
                break;
            }
        }
    }
    alpha
}

/// The exact value of `board` from a finished game or the tables (probed
/// only for boards they can hold).
pub fn exact(game: &Game, probe: Option<&dyn Probe>, board: Board) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let p = probe?;
    if board.seeds() <= p.max_seeds() {
        p.probe(board)
    } else {
        None
    }
}

/// The value of sowing `c` for the mover, by a full-window [`search`]
/// of `depth` sowings below it: its gain plus the child's value
/// when the mover sows again, minus it when the turn passes.
pub fn score(game: &Game, probe: Option<&dyn Probe>, c: &Child, depth: u32) -> i32 {
    let g = c.sown.gain as i32;
    let v = search(game, probe, c.sown.board, depth, -MAX, MAX);
    if c.sown.extra_turn {
        g + v
    } else {
        g - v
    }
}

/// The children of `board` (unfinished) in the engine's move order
/// (store gain, extra turns, right to left: [`Children::generate`] with
/// ordering on and no table move, sorted).
pub fn ordered(game: &Game, board: Board) -> Children {
    let mut kids = Children::generate(game, board, None, true);
    kids.sort();
    kids
}

#[cfg(test)]
mod tests {
    use super::{search, MAX};
    use crate::board::{Board, Game};
    use crate::rules::{CaptureRule, EndRule, Rules};
    use crate::sample::{random_board, SplitMix64};

    /// The solver's first guess before it came from [`search`], kept as
    /// the reference: a fail-soft alpha-beta on store gains, children right
    /// to left, no probes.
    fn reference_guess(game: &Game, board: Board, depth: u32, alpha: i32, beta: i32) -> i32 {
        if let Some(v) = game.terminal_value(board) {
            return v;
        }
        if depth == 0 {
            return 0;
        }
        let mut alpha = alpha;
        let mut best = i32::MIN;
        let mut moves = game.moves(board);
        while moves != 0 {
            let house = 31 - moves.leading_zeros() as usize;
            moves &= !(1 << house);
            let s = game.sow(board, house);
            let g = s.gain as i32;
            let v = if s.extra_turn {
                g + reference_guess(game, s.board, depth - 1, alpha - g, beta - g)
            } else {
                g - reference_guess(game, s.board, depth - 1, g - beta, g - alpha)
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The solver's first guess, `search` with no probe in the window
    /// `(-s - 1, s + 1)` it is called with, equals the reference guess
    /// exactly on 4,800 random boards of every rule set, one to eight
    /// houses a side with up to 12 seeds a house, at depths 0 to 8 (the
    /// solver's default guess depth is 8); so does the full window:
    /// every shallow value of a board of `s` seeds lies in `[-s, s]`.
    #[test]
    fn the_solvers_guess_is_the_reference_guess() {
        let mut rng = SplitMix64::new(52);
        let mut compared = 0;
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            for end in [EndRule::Sweep, EndRule::Delayed, EndRule::NoSweep] {
                for pits in 1..=8 {
                    let game = Game::new(pits, Rules { capture, end });
                    for _ in 0..100 {
                        let seeds = rng.below(12 * pits as u64 + 1) as u32;
                        let board = random_board(&mut rng, pits, seeds);
                        let s = seeds as i32;
                        for depth in 0..=8 {
                            let want = reference_guess(&game, board, depth, -s - 1, s + 1);
                            assert!((-s..=s).contains(&want), "{want} outside [-{s}, {s}]");
                            let got = search(&game, None, board, depth, -s - 1, s + 1);
                            assert_eq!(got, want, "{board:?} {capture:?} {end:?} depth {depth}");
                            let full = search(&game, None, board, depth, -MAX, MAX);
                            assert_eq!(full, want, "full window");
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(compared, 2 * 3 * 8 * 100 * 9);
    }
}
