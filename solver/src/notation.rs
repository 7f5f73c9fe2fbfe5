//! Move lines: sequences of turns, each of one or more sowings.
//!
//! docs/RULES.md form: houses 1..m, the moves of one turn (extra turns) run
//! together (`36`) or joined by `.` (`3.6`), a dash between the players'
//! turns: `3.6-2-...`. IDU form (Irving, Donkers & Uiterwijk 2000): the same
//! with houses numbered 0..m-1.

use std::fmt;

use crate::board::Game;
use crate::position::{MoveError, Position};

/// How houses are numbered in a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Numbering {
    /// 1..m from the mover's left (docs/RULES.md).
    #[default]
    FromOne,
    /// 0..m-1 from the mover's left (IDU 2000).
    FromZero,
}

/// A parsed line: turns of 1-based house numbers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Line {
    pub turns: Vec<Vec<usize>>,
}

/// Why a line cannot be read or replayed. Turns and moves count from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// A turn with no moves (`3--2`, a leading or trailing dash).
    EmptyTurn { turn: usize },
    /// Something that is not a house number.
    BadMove { turn: usize, text: String },
    /// A house number below the first house (0 in the 1-based form).
    HouseZero { turn: usize },
    /// A move the position does not allow.
    Illegal {
        turn: usize,
        mv: usize,
        house: usize,
        error: MoveError,
    },
    /// The turn goes on after a move that did not earn an extra turn.
    NoExtraTurn {
        turn: usize,
        mv: usize,
        house: usize,
    },
    /// The turn stops although its last move earned an extra turn.
    TurnNotFinished { turn: usize, house: usize },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LineError::*;
        match self {
            EmptyTurn { turn } => write!(f, "turn {turn} is empty"),
            BadMove { turn, text } => write!(f, "turn {turn}: '{text}' is not a house number"),
            HouseZero { turn } => write!(f, "turn {turn}: house 0 does not exist (houses count from 1; use --idu for 0-based lines)"),
            Illegal { turn, mv, house, error } => {
                write!(f, "turn {turn}, move {mv} (house {house}): {error}")
            }
            NoExtraTurn { turn, mv, house } => write!(
                f,
                "turn {turn}, move {mv} (house {house}): the turn goes on, but the previous move earned no extra turn"
            ),
            TurnNotFinished { turn, house } => write!(
                f,
                "turn {turn} ends after house {house}, which earned an extra turn: the same player must move again (the moves of one turn go together, as 36 or 3.6; turns are separated by '-', or by spaces in a line without dashes)"
            ),
        }
    }
}

impl std::error::Error for LineError {}

impl Line {
    /// Parses a line.
    ///
    /// # Errors
    /// An empty turn, or a move that is not a house number.
    ///
    /// Turns are separated by `-`; in a line without any `-`, spaces
    /// separate them instead (`3.6 2.1 4`, as lines are often pasted). In a
    /// line with dashes, spaces are ignored (`36 - 2`, and `3 6-2` reads as
    /// `36-2`, as it always has).
    pub fn parse(text: &str, numbering: Numbering) -> Result<Line, LineError> {
        let turn_texts: Vec<String> = if text.contains('-') {
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            compact.split('-').map(str::to_string).collect()
        } else {
            text.split_whitespace().map(str::to_string).collect()
        };
        let mut turns = Vec::new();
        if turn_texts.is_empty() {
            return Ok(Line { turns });
        }
        for (t, turn_text) in turn_texts.iter().enumerate() {
            let turn = t + 1;
            if turn_text.is_empty() {
                return Err(LineError::EmptyTurn { turn });
            }
            let pieces: Vec<String> = if turn_text.contains('.') {
                turn_text.split('.').map(str::to_string).collect()
            } else {
                turn_text.chars().map(|c| c.to_string()).collect()
            };
            let mut moves = Vec::with_capacity(pieces.len());
            for p in pieces {
                let n: usize = p.parse().map_err(|_| LineError::BadMove {
                    turn,
                    text: p.clone(),
                })?;
                let house = match numbering {
                    Numbering::FromOne if n == 0 => return Err(LineError::HouseZero { turn }),
                    Numbering::FromOne => n,
                    // usize::MAX has no 1-based form: not a house (an
                    // unchecked add wrapped it round to house 0).
                    Numbering::FromZero => n.checked_add(1).ok_or_else(|| LineError::BadMove {
                        turn,
                        text: p.clone(),
                    })?,
                };
                moves.push(house);
            }
            turns.push(moves);
        }
        Ok(Line { turns })
    }

    /// Plays the line from `start` and returns the position it reaches.
    ///
    /// Every turn but the last must end with a move that earned no extra
    /// turn, or with the end of the game; the last may stop anywhere.
    ///
    /// # Errors
    /// An illegal move, or a turn that breaks the extra-turn rule.
    pub fn replay(&self, game: &Game, start: Position) -> Result<Position, LineError> {
        let mut pos = start;
        let last_turn = self.turns.len();
        for (t, moves) in self.turns.iter().enumerate() {
            let turn = t + 1;
            let mut extra = true;
            for (i, &house) in moves.iter().enumerate() {
                let mv = i + 1;
                if !extra {
                    return Err(LineError::NoExtraTurn { turn, mv, house });
                }
                let played = pos.play(game, house).map_err(|error| LineError::Illegal {
                    turn,
                    mv,
                    house,
                    error,
                })?;
                extra = played.extra_turn && !played.game_over;
            }
            if extra && turn != last_turn {
                return Err(LineError::TurnNotFinished {
                    turn,
                    house: *moves.last().unwrap_or(&0),
                });
            }
        }
        Ok(pos)
    }
}

impl fmt::Display for Line {
    /// docs/RULES.md form with `.` inside turns, so it reads for any m.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (t, moves) in self.turns.iter().enumerate() {
            if t > 0 {
                f.write_str("-")?;
            }
            for (i, h) in moves.iter().enumerate() {
                if i > 0 {
                    f.write_str(".")?;
                }
                write!(f, "{h}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(text: &str) -> Result<Vec<Vec<usize>>, LineError> {
        Line::parse(text, Numbering::FromOne).map(|l| l.turns)
    }

    #[test]
    fn spaces_separate_turns_in_a_line_without_dashes() {
        let want = vec![vec![3, 6], vec![2, 1], vec![4], vec![4]];
        assert_eq!(turns("3.6 2.1 4 4"), Ok(want.clone()));
        assert_eq!(turns("  36\t21  4 4 "), Ok(want.clone()));
        assert_eq!(turns("3.6-2.1-4-4"), Ok(want.clone()));
        assert_eq!(turns("36-21-4-4"), Ok(want));
        // One turn of two moves written apart is two turns now: replaying
        // it says the first turn is not finished.
        assert_eq!(turns("3 6"), Ok(vec![vec![3], vec![6]]));
    }

    #[test]
    fn lines_with_dashes_read_as_before() {
        assert_eq!(turns("36 - 2 - 5"), Ok(vec![vec![3, 6], vec![2], vec![5]]));
        assert_eq!(turns("3 6-2"), Ok(vec![vec![3, 6], vec![2]]));
        assert_eq!(turns(""), Ok(vec![]));
        assert_eq!(turns("   "), Ok(vec![]));
        assert_eq!(turns("3--2"), Err(LineError::EmptyTurn { turn: 2 }));
        assert_eq!(turns("-"), Err(LineError::EmptyTurn { turn: 1 }));
        assert_eq!(
            Line::parse("2 5", Numbering::FromZero).map(|l| l.turns),
            Ok(vec![vec![3], vec![6]])
        );
    }

    #[test]
    fn a_turn_split_by_a_space_is_named_on_replay() {
        let game = Game::new(6, crate::Rules::STANDARD);
        let start = Position::start(6, 4).unwrap();
        let err = Line::parse("3 6 2 1", Numbering::FromOne)
            .unwrap()
            .replay(&game, start)
            .unwrap_err();
        assert_eq!(err, LineError::TurnNotFinished { turn: 1, house: 3 });
        assert!(err
            .to_string()
            .contains("the moves of one turn go together"));
    }
}
