//! Whole-position answers built on the solver: the value of every first
//! sowing and of every first turn, a principal variation to the end of the
//! game, and the pie rule.
//!
//! All values here count the stores: they are final store differences
//! under perfect play, for the side named.

use super::solver::{Interrupted, SearchStats, Solver};
use crate::board::Game;
use crate::notation::Line;
use crate::position::{Position, Side};
use std::fmt;

/// Why an analysis gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalysisError {
    /// The search was stopped through [`Solver::stop_flag`].
    Interrupted,
    /// No sowing of `position` reaches its value `value`, which the search
    /// found: the values the search was given contradict each other. The
    /// search itself is exact, so only endgame tables holding wrong values
    /// can cause it (a table whose checksum passed is as it was built);
    /// the answer is refused rather than printed.
    Inconsistent { position: Position, value: i32 },
}

impl From<Interrupted> for AnalysisError {
    fn from(_: Interrupted) -> Self {
        AnalysisError::Interrupted
    }
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::Interrupted => f.write_str("search interrupted"),
            AnalysisError::Inconsistent { position, value } => write!(
                f,
                "inconsistent values: no sowing of {position} keeps its value {value} \
                 (the endgame tables hold wrong values: check them with `kalah verify`)"
            ),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// The exact value of one sowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// House sown, 1-based.
    pub house: usize,
    /// Final store difference for the player who sows, after this sowing
    /// and perfect play.
    pub value: i32,
    /// The sowing earns another move.
    pub extra_turn: bool,
}

/// One sowing of a principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvMove {
    /// Who sowed.
    pub side: Side,
    /// House sown, 1-based.
    pub house: usize,
    /// The sowing earned another move.
    pub extra_turn: bool,
    /// The position after the sowing.
    pub position: Position,
}

/// A position solved move by move.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The position analysed.
    pub position: Position,
    /// Final store difference for the side to move under perfect play.
    pub value: i32,
    /// Every legal sowing, in house order.
    pub moves: Vec<MoveValue>,
    /// The houses (1-based) whose value equals [`Analysis::value`].
    pub best: Vec<usize>,
    /// A perfect game from the position to its end.
    pub pv: Vec<PvMove>,
    /// The work this analysis took.
    pub stats: SearchStats,
}

impl Analysis {
    /// The principal variation as a move line (turns split at the changes
    /// of player), 1-based houses.
    pub fn pv_line(&self) -> Line {
        crate::query::pv_line(&self.pv)
    }
}

/// A position's value and one perfect game from it: what a solve from the
/// start reports, without the values of the other moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The position solved.
    pub position: Position,
    /// Final store difference for the side to move under perfect play.
    pub value: i32,
    /// A perfect game from the position to its end; its first turn is a
    /// best first turn.
    pub pv: Vec<PvMove>,
    /// The work it took.
    pub stats: SearchStats,
}

impl Solution {
    /// The principal variation as a move line, 1-based houses.
    pub fn pv_line(&self) -> Line {
        crate::query::pv_line(&self.pv)
    }
}

/// The exact value of one whole turn (sowings until the turn passes or the
/// game ends).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnValue {
    /// Houses sown, 1-based, in order.
    pub houses: Vec<usize>,
    /// Final store difference for the player of the turn, after it and
    /// perfect play.
    pub value: i32,
    /// The position after the turn.
    pub position: Position,
}

/// The pie rule: after the first player's first turn, the second player
/// may play on or swap sides, and takes whichever is better for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieAnalysis {
    /// Value for the first player with the pie rule: the best over first
    /// turns `t` of `-|value(t)|`.
    pub value: i32,
    /// The first turns that reach it: those with the smallest `|value|`.
    pub fairest: Vec<Vec<usize>>,
}

/// Every first turn of a position, solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnAnalysis {
    /// The position analysed.
    pub position: Position,
    /// Final store difference for the side to move under perfect play.
    pub value: i32,
    /// Every distinct turn, best first (ties in house order).
    pub turns: Vec<TurnValue>,
    /// The turns whose value equals [`TurnAnalysis::value`].
    pub best: Vec<Vec<usize>>,
    /// The pie-rule value and the fairest turns.
    pub pie: PieAnalysis,
    /// The work this analysis took.
    pub stats: SearchStats,
}

/// `value`, for `to_move`, seen by `side`.
fn for_side(value: i32, to_move: Side, side: Side) -> i32 {
    if to_move == side {
        value
    } else {
        -value
    }
}

/// Every turn the side to move can play: sowings joined while they earn
/// extra turns and the game goes on. Empty for a finished game.
pub fn turns(solver: &Solver, position: &Position) -> Vec<(Vec<usize>, Position)> {
    turns_of(solver.game(), position)
}

/// [`turns`] by the rules of `game` alone (no solver): each turn's houses
/// (1-based, one a sowing) and the position after it, in house order.
pub fn turns_of(game: &Game, position: &Position) -> Vec<(Vec<usize>, Position)> {
    fn walk(
        game: &Game,
        pos: &Position,
        prefix: &mut Vec<usize>,
        out: &mut Vec<(Vec<usize>, Position)>,
    ) {
        for house in pos.legal_moves(game.rules()) {
            let mut next = *pos;
            let Ok(played) = next.play(game, house) else {
                continue;
            };
            prefix.push(house);
            if played.extra_turn && !played.game_over {
                walk(game, &next, prefix, out);
            } else {
                out.push((prefix.clone(), next));
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(game, position, &mut Vec::new(), &mut out);
    out
}

impl Solver {
    /// Solves `position` and finds a principal variation to the end of the
    /// game (one null-window test per sowing tried along it): the value and
    /// a best turn, at a fraction of the cost of [`Solver::analyse`].
    ///
    /// # Errors
    /// [`AnalysisError::Interrupted`] when the stop flag was set,
    /// [`AnalysisError::Inconsistent`] when the tables contradict
    /// themselves.
    ///
    /// # Panics
    /// If the position has a different number of houses than the game.
    pub fn solve_line(&self, position: &Position) -> Result<Solution, AnalysisError> {
        let before = self.stats();
        let value = self.solve(position)?;
        let pv = self.principal_variation(position, value)?;
        Ok(Solution {
            position: *position,
            value,
            pv,
            stats: self.stats().since(&before),
        })
    }

    /// Solves `position` and every legal sowing from it, and finds a
    /// principal variation to the end of the game.
    ///
    /// # Errors
    /// As [`Solver::solve_line`].
    ///
    /// # Panics
    /// If the position has a different number of houses than the game.
    pub fn analyse(&self, position: &Position) -> Result<Analysis, AnalysisError> {
        let before = self.stats();
        let value = self.solve(position)?;
        let me = position.to_move();
        let mut moves = Vec::new();
        for house in position.legal_moves(self.game().rules()) {
            let mut next = *position;
            let Ok(played) = next.play(self.game(), house) else {
                continue;
            };
            let guess = for_side(value, me, next.to_move());
            let v = self.position_value(&next, Some(guess))?;
            moves.push(MoveValue {
                house,
                value: for_side(v, next.to_move(), me),
                extra_turn: played.extra_turn,
            });
        }
        let best = moves
            .iter()
            .filter(|m| m.value == value)
            .map(|m| m.house)
            .collect();
        let pv = self.principal_variation(position, value)?;
        Ok(Analysis {
            position: *position,
            value,
            moves,
            best,
            pv,
            stats: self.stats().since(&before),
        })
    }

    /// A perfect game from `position`, whose value for the side to move is
    /// `value`, to the end: at each step the first sowing (the table's best
    /// first) that keeps the value, found by one null-window test each.
    fn principal_variation(
        &self,
        position: &Position,
        value: i32,
    ) -> Result<Vec<PvMove>, AnalysisError> {
        let rules = self.game().rules();
        let mut pv = Vec::new();
        let mut pos = *position;
        let mut v = value;
        while !pos.is_over(rules) {
            let board = pos.board();
            let board_value = v - pos.store_difference();
            let mut houses = pos.legal_moves(rules);
            if let Some(h) = self.best_move_hint(board) {
                if let Some(i) = houses.iter().position(|&x| x == h + 1) {
                    houses[..=i].rotate_right(1);
                }
            }
            let mut chosen = None;
            for house in houses {
                let sown = self.game().sow(board, house - 1);
                let gain = sown.gain as i32;
                // The sowing keeps the value iff it reaches board_value.
                let keeps = if sown.extra_turn {
                    self.at_least(sown.board, board_value - gain)?
                } else {
                    !self.at_least(sown.board, gain - board_value + 1)?
                };
                if keeps {
                    chosen = Some(house);
                    break;
                }
            }
            // Some sowing always keeps the value of a solved position,
            // unless the values probed contradict each other.
            let Some(house) = chosen else {
                return Err(AnalysisError::Inconsistent {
                    position: pos,
                    value: v,
                });
            };
            let side = pos.to_move();
            let Ok(played) = pos.play(self.game(), house) else {
                unreachable!("house {house} is legal in the position before it");
            };
            v = for_side(v, side, pos.to_move());
            pv.push(PvMove {
                side,
                house,
                extra_turn: played.extra_turn,
                position: pos,
            });
        }
        Ok(pv)
    }

    /// Solves every first turn of `position` (the side to move's sowings
    /// until the turn passes), and the pie rule.
    ///
    /// # Errors
    /// As [`Solver::solve_line`].
    ///
    /// # Panics
    /// If the position has a different number of houses than the game.
    pub fn analyse_turns(&self, position: &Position) -> Result<TurnAnalysis, AnalysisError> {
        let before = self.stats();
        let value = self.solve(position)?;
        let me = position.to_move();
        let mut out = Vec::new();
        for (houses, next) in turns(self, position) {
            let guess = for_side(value, me, next.to_move());
            let v = self.position_value(&next, Some(guess))?;
            out.push(TurnValue {
                houses,
                value: for_side(v, next.to_move(), me),
                position: next,
            });
        }
        out.sort_by(|a, b| b.value.cmp(&a.value).then_with(|| a.houses.cmp(&b.houses)));
        let best = out
            .iter()
            .filter(|t| t.value == value)
            .map(|t| t.houses.clone())
            .collect();
        let fairness = out
            .iter()
            .map(|t| t.value.abs())
            .min()
            .unwrap_or(value.abs());
        let pie = PieAnalysis {
            value: -fairness,
            fairest: out
                .iter()
                .filter(|t| t.value.abs() == fairness)
                .map(|t| t.houses.clone())
                .collect(),
        };
        Ok(TurnAnalysis {
            position: *position,
            value,
            turns: out,
            best,
            pie,
            stats: self.stats().since(&before),
        })
    }
}
