//! Answers for single positions straight from the endgame tables: the value
//! of the position and of every legal sowing, and a perfect game, each one
//! probe, no search. Positions outside the tables go to
//! [`Solver::analyse`](crate::search::Solver::analyse).
//!
//! Every child of a board holds at most as many seeds as the board, so a
//! position inside the tables has all its continuations inside them too.

use crate::board::Game;
use crate::position::Position;
use crate::rules::MAX_PITS;
use crate::search::{MoveValue, PvMove};
use crate::Probe;

/// A position answered from the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableAnswer {
    /// Final store difference for the side to move under perfect play.
    pub value: i32,
    /// Every legal sowing, in house order, valued for the side to move.
    pub moves: Vec<MoveValue>,
    /// The houses (1-based) whose value equals `value`.
    pub best: Vec<usize>,
    /// Probes made.
    pub probes: u64,
}

/// The value for the side to move of `position` (stores counted), from the
/// tables; `None` when its board is outside them. A finished game is scored
/// as it stands.
pub fn position_value(probe: &dyn Probe, game: &Game, position: &Position) -> Option<i32> {
    let board = position.board();
    let v = match game.terminal_value(board) {
        Some(v) => v,
        None => probe.probe(board)?,
    };
    Some(position.store_difference() + v)
}

/// The value of `position` and of each legal sowing from it, from the
/// tables; `None` when the position is outside them. Works on the board
/// alone (one sowing and one probe a move).
///
/// # Panics
/// If `game` and `position` differ in pits.
pub fn answer(probe: &dyn Probe, game: &Game, position: &Position) -> Option<TableAnswer> {
    let a = answer_fixed(probe, game, position)?;
    Some(TableAnswer {
        value: a.value,
        moves: a.moves().to_vec(),
        best: a.best().collect(),
        probes: a.probes,
    })
}

impl TableAnswer {
    /// Whether the tables agree with themselves here: a position's value is
    /// the best of its moves' values (see [`FixedAnswer::consistent`]).
    pub fn consistent(&self) -> bool {
        consistent(self.value, &self.moves)
    }
}

/// Whether `value` is the best of `moves` (any value for a finished game,
/// which has no moves).
fn consistent(value: i32, moves: &[MoveValue]) -> bool {
    moves
        .iter()
        .map(|m| m.value)
        .max()
        .is_none_or(|best| best == value)
}

/// [`answer`] in fixed storage: no allocation. The batch query's inner
/// loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedAnswer {
    /// Final store difference for the side to move under perfect play.
    pub value: i32,
    moves: [MoveValue; MAX_PITS],
    len: usize,
    /// Probes made.
    pub probes: u64,
    /// The game is over (no moves; the value is the final score, no probe
    /// made).
    pub over: bool,
}

impl FixedAnswer {
    /// Whether the tables agree with themselves here: the position's value
    /// is the best of its moves' values, as it must be for any table the
    /// builder wrote. A checksum proves the bytes are those written; this
    /// is the check that they are also a game's values, for the entries an
    /// answer reads: a table changed behind the checksum's back (a forged
    /// checksum, or bytes written in place through a memory map after the
    /// file was checked) fails it wherever an entry no longer fits its
    /// children. Callers refuse an inconsistent answer.
    pub fn consistent(&self) -> bool {
        consistent(self.value, self.moves())
    }

    /// Every legal sowing, in house order, valued for the side to move.
    pub fn moves(&self) -> &[MoveValue] {
        &self.moves[..self.len]
    }

    /// The houses (1-based) whose value equals the position's, in order.
    pub fn best(&self) -> impl Iterator<Item = usize> + '_ {
        self.moves()
            .iter()
            .filter(|m| m.value == self.value)
            .map(|m| m.house)
    }
}

/// [`answer`] without allocating, for any prober (a concrete one is
/// called directly, not through a vtable).
///
/// # Panics
/// If `game` and `position` differ in pits.
pub fn answer_fixed<P: Probe + ?Sized>(
    probe: &P,
    game: &Game,
    position: &Position,
) -> Option<FixedAnswer> {
    let offset = position.store_difference();
    let board = position.board();
    let mut a = FixedAnswer {
        value: 0,
        moves: [MoveValue {
            house: 0,
            value: 0,
            extra_turn: false,
        }; MAX_PITS],
        len: 0,
        probes: 1,
        over: false,
    };
    if let Some(v) = game.terminal_value(board) {
        a.value = offset + v;
        a.over = true;
        return Some(a);
    }
    // Sow every house first and start the table reads of the board and
    // all its children, so that their cache misses overlap instead of
    // coming one by one.
    probe.prefetch(board);
    let mut children = [None; MAX_PITS];
    let mut legal = game.moves(board);
    while legal != 0 {
        let house = legal.trailing_zeros() as usize;
        legal &= legal - 1;
        let sown = game.sow(board, house);
        probe.prefetch(sown.board);
        children[house] = Some(sown);
    }
    a.value = offset + probe.probe(board)?;
    for (house, sown) in children.iter().enumerate() {
        let Some(sown) = *sown else { continue };
        let child = match game.terminal_value(sown.board) {
            Some(v) => v,
            None => {
                a.probes += 1;
                probe.probe(sown.board)?
            }
        };
        let after = sown.gain as i32 + if sown.extra_turn { child } else { -child };
        a.moves[a.len] = MoveValue {
            house: house + 1,
            value: offset + after,
            extra_turn: sown.extra_turn,
        };
        a.len += 1;
    }
    Some(a)
}

/// Whether the entries one level further down also agree with themselves:
/// for every legal sowing of `position` whose position the tables hold,
/// its value is the best of its own moves' (see
/// [`FixedAnswer::consistent`]). With the position's own check, every value
/// an answer prints (the position's and each move's) is then one its
/// children confirm. `m` answers of `m + 1` probes each: for single
/// answers, not the batch's inner loop.
pub fn children_consistent(probe: &dyn Probe, game: &Game, position: &Position) -> bool {
    position.legal_moves(game.rules()).into_iter().all(|house| {
        let mut next = *position;
        if next.play(game, house).is_err() {
            return false;
        }
        answer_fixed(probe, game, &next).is_none_or(|a| a.consistent())
    })
}

/// A perfect game from `position` to its end, from the tables: at each step
/// the lowest house that keeps the value. `None` when the position is
/// outside the tables.
///
/// A prober that holds only some boards above the tables (a book in front
/// of them, answers kept from searches) may know a move that keeps the
/// value and nothing below it: the game then goes back and tries the next
/// such move (depth first, at most [`PV_STEPS`] positions tried in all),
/// and is `None` when no known line reaches the end. Over the tables alone
/// the first move tried always goes on, so the game is the same.
pub fn principal_variation(
    probe: &dyn Probe,
    game: &Game,
    position: &Position,
) -> Option<Vec<PvMove>> {
    let value = position_value(probe, game, position)?;
    let mut pv = Vec::new();
    let mut budget = PV_STEPS;
    follow(probe, game, *position, value, &mut pv, &mut budget).then_some(pv)
}

/// Positions a perfect game from a prober that holds some boards only
/// may try before it gives up.
pub const PV_STEPS: usize = 100_000;

/// Extends `pv` from `pos`, worth `value` for its player to move, to the
/// end of the game; `false` (with `pv` as it was) when no known line does.
fn follow(
    probe: &dyn Probe,
    game: &Game,
    pos: Position,
    value: i32,
    pv: &mut Vec<PvMove>,
    budget: &mut usize,
) -> bool {
    if pos.is_over(game.rules()) {
        return true;
    }
    let side = pos.to_move();
    for house in pos.legal_moves(game.rules()) {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut next = pos;
        let Ok(played) = next.play(game, house) else {
            continue;
        };
        let Some(v) = position_value(probe, game, &next) else {
            continue;
        };
        let mine = if next.to_move() == side { v } else { -v };
        if mine != value {
            continue;
        }
        pv.push(PvMove {
            side,
            house,
            extra_turn: played.extra_turn,
            position: next,
        });
        if follow(probe, game, next, v, pv, budget) {
            return true;
        }
        pv.pop();
    }
    false
}

/// A principal variation as a move line: turns split where the player
/// changes, 1-based houses.
pub fn pv_line(pv: &[PvMove]) -> crate::Line {
    let mut turns: Vec<Vec<usize>> = Vec::new();
    let mut open = false;
    for m in pv {
        if !open {
            turns.push(Vec::new());
        }
        if let Some(t) = turns.last_mut() {
            t.push(m.house);
        }
        open = m.extra_turn;
    }
    crate::Line { turns }
}
