//! Move-path counting ("perft"), the standard check of a move generator.
//!
//! At depth d: the number of sequences of exactly d single sowings from the
//! start (an extra turn is its own ply; a line that ends the game stops
//! there and is not extended), and the number of distinct positions (houses,
//! stores and side to move) those sequences reach.

use std::collections::HashSet;

use crate::board::Game;
use crate::position::Position;

/// Counts at one depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PerftCounts {
    pub depth: usize,
    pub sequences: u64,
    pub distinct: u64,
}

/// Counts for depths 1..=`depth`.
pub fn perft(game: &Game, start: Position, depth: usize) -> Vec<PerftCounts> {
    let mut sequences = vec![0u64; depth + 1];
    let mut seen: Vec<HashSet<Position>> = vec![HashSet::new(); depth + 1];
    walk(game, start, 0, depth, &mut sequences, &mut seen);
    (1..=depth)
        .map(|d| PerftCounts {
            depth: d,
            sequences: sequences[d],
            distinct: seen[d].len() as u64,
        })
        .collect()
}

fn walk(
    game: &Game,
    pos: Position,
    ply: usize,
    depth: usize,
    sequences: &mut [u64],
    seen: &mut [HashSet<Position>],
) {
    if ply == depth {
        return;
    }
    for house in pos.legal_moves(game.rules()) {
        let mut next = pos;
        if next.play(game, house).is_ok() {
            sequences[ply + 1] += 1;
            seen[ply + 1].insert(next);
            walk(game, next, ply + 1, depth, sequences, seen);
        }
    }
}
