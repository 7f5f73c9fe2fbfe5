//! A game reviewed move by move: for each sowing of a move line, the value
//! of the position before it, the value of the move played, the best moves
//! and what the move gave away, all for the side that moved. The one review
//! of every front end (`kalah analyze`, the page's review through the HTTP
//! API): the front end says how a position is answered (tables, search, a
//! budget), this module walks the line and keeps the account.
//!
//! Values are final store differences under perfect play (docs/RULES.md),
//! so a move's loss is exact: the best value minus the value of the move
//! played, 0 for a best move. A move with a loss is a mistake; it changes
//! the result when the mover's win/draw/loss before and after differ.

use kalah_solver::{Game, Line, LineError, Position, Side};
use serde::Serialize;

use super::answer::{round3, Outcome, Source};
use super::{Answer, Error};

/// One sowing of the line, reviewed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReview {
    /// The turn (1-based), and the sowing within it (1-based: 2 and more
    /// are extra moves).
    pub turn: usize,
    pub sowing: usize,
    /// The position before the sowing; its side to move sowed.
    pub before: Position,
    pub house: usize,
    /// The position's value for the mover: what the best move keeps.
    pub value: i32,
    /// The value of the move played, for the mover.
    pub played: i32,
    /// The houses whose move keeps `value`.
    pub best: Vec<usize>,
    /// The sowing earned another move.
    pub extra_turn: bool,
    /// Where the values came from.
    pub source: Source,
}

impl MoveReview {
    /// What the move gave away: `value - played`, 0 for a best move.
    pub fn loss(&self) -> i32 {
        self.value - self.played
    }

    /// Whether the move was not among the best.
    pub fn is_mistake(&self) -> bool {
        self.loss() > 0
    }

    /// Whether the move turned the mover's result (win, draw, loss) into a
    /// worse one.
    pub fn changes_result(&self) -> bool {
        Outcome::of(self.value) != Outcome::of(self.played)
    }
}

/// A line reviewed from its start.
#[derive(Clone, Debug)]
pub struct Review {
    pub start: Position,
    pub line: Line,
    pub moves: Vec<MoveReview>,
    /// The position the line reaches.
    pub end: Position,
    /// Nodes searched for the whole review (0 when every answer came from
    /// the tables).
    pub nodes: u64,
}

/// A side's account over the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Account {
    /// Moves that were not among the best.
    pub mistakes: usize,
    /// The sum of their losses.
    pub loss: i32,
}

impl Review {
    /// South's and North's accounts.
    pub fn accounts(&self) -> [Account; 2] {
        let mut out = [Account::default(); 2];
        for m in self.moves.iter().filter(|m| m.is_mistake()) {
            let a = &mut out[side_index(m.before.to_move())];
            a.mistakes += 1;
            a.loss += m.loss();
        }
        out
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::South => 0,
        Side::North => 1,
    }
}

/// Why a line gives no review.
#[derive(Debug)]
pub enum ReviewError {
    /// The line cannot be replayed from the start (naming the turn and
    /// move).
    Line(LineError),
    /// A position of the line got no answer.
    Answer(Error),
}

/// Reviews `line` of `game` from `start`: the line is replayed first (an
/// illegal move is refused before any answer is asked for), then every
/// position before a sowing is answered by `answer`, which must give every
/// legal move's value (a full [`Answer`], not a value-only one).
///
/// # Errors
/// A line that cannot be replayed, an answer that fails, or one without
/// the move played (a front end's answer that left the moves out).
pub fn review(
    game: &Game,
    start: Position,
    line: &Line,
    mut answer: impl FnMut(&Position) -> Result<Answer, Error>,
) -> Result<Review, ReviewError> {
    let end = line.replay(game, start).map_err(ReviewError::Line)?;
    let mut pos = start;
    let mut moves = Vec::new();
    let mut nodes = 0;
    for (t, turn) in line.turns.iter().enumerate() {
        for (i, &house) in turn.iter().enumerate() {
            let a = answer(&pos).map_err(ReviewError::Answer)?;
            nodes += a.nodes;
            let Some(played) = a.moves.iter().find(|m| m.house == house) else {
                return Err(ReviewError::Answer(Error::Failure(format!(
                    "the answer for {pos} has no value for house {house}"
                ))));
            };
            moves.push(MoveReview {
                turn: t + 1,
                sowing: i + 1,
                before: pos,
                house,
                value: a.value,
                played: played.value,
                best: a.best.clone(),
                extra_turn: played.extra_turn,
                source: a.source,
            });
            // Replayed above: every move of the line is legal here.
            pos.play(game, house).map_err(|e| {
                ReviewError::Answer(Error::Failure(format!("house {house} in {pos}: {e}")))
            })?;
        }
    }
    Ok(Review {
        start,
        line: line.clone(),
        moves,
        end,
        nodes,
    })
}

/// The JSON object of a review (`kalah analyze --json`, docs/json.md).
#[derive(Serialize)]
pub struct ReviewJson {
    pub start: String,
    pub rules: String,
    pub line: String,
    pub moves: Vec<MoveJson>,
    pub south: Account,
    pub north: Account,
    pub end: String,
    pub game_over: bool,
    /// South's final store difference once the game is over.
    pub final_score: Option<i32>,
    /// The end position's value for its side to move, when it was asked
    /// for (the front end answers it; a finished game's is its score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_value: Option<i32>,
    pub nodes: u64,
    pub seconds: f64,
    /// A review cut short (the HTTP API, when a position got no answer
    /// within its budget): why, and from which move. The moves before it
    /// are reviewed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// One sowing in a review's JSON object.
#[derive(Serialize)]
pub struct MoveJson {
    pub turn: usize,
    pub sowing: usize,
    pub position: String,
    #[serde(serialize_with = "as_str")]
    pub to_move: char,
    pub house: usize,
    pub value: i32,
    pub result: Outcome,
    pub played: i32,
    pub played_result: Outcome,
    pub best: Vec<usize>,
    pub loss: i32,
    pub mistake: bool,
    pub extra_turn: bool,
    pub source: Source,
}

fn as_str<S: serde::Serializer>(c: &char, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_char(*c)
}

impl Review {
    /// The review as its JSON object, under `rules` (the rules' slug), with
    /// the end position's value when the front end has it, and the time
    /// the review took.
    pub fn json(
        &self,
        game: &Game,
        rules: &str,
        end_value: Option<i32>,
        seconds: f64,
    ) -> ReviewJson {
        let [south, north] = self.accounts();
        ReviewJson {
            start: self.start.to_string(),
            rules: rules.to_string(),
            line: self.line.to_string(),
            moves: self
                .moves
                .iter()
                .map(|m| MoveJson {
                    turn: m.turn,
                    sowing: m.sowing,
                    position: m.before.to_string(),
                    to_move: m.before.to_move().letter(),
                    house: m.house,
                    value: m.value,
                    result: Outcome::of(m.value),
                    played: m.played,
                    played_result: Outcome::of(m.played),
                    best: m.best.clone(),
                    loss: m.loss(),
                    mistake: m.is_mistake(),
                    extra_turn: m.extra_turn,
                    source: m.source,
                })
                .collect(),
            south,
            north,
            end: self.end.to_string(),
            game_over: self.end.is_over(game.rules()),
            final_score: self.end.final_score(game.rules()),
            end_value,
            nodes: self.nodes,
            seconds: round3(seconds),
            stopped: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::position::{answer_position, by_search};
    use kalah_solver::search::{SearchConfig, Solver};
    use kalah_solver::{Numbering, Rules};

    fn solver(game: &Game) -> Solver {
        Solver::new(
            game.clone(),
            SearchConfig {
                tt_mb: 8,
                threads: 1,
                ..SearchConfig::default()
            },
            None,
        )
        .unwrap()
    }

    fn reviewed(game: &Game, solver: &Solver, start: Position, line: &Line) -> Review {
        review(game, start, line, |p| {
            answer_position(game, None, None, p, false, |p| by_search(solver, p))
        })
        .unwrap()
    }

    #[test]
    fn a_perfect_game_loses_nothing_and_a_worse_move_its_difference() {
        let game = Game::new(4, Rules::STANDARD);
        let start = Position::start(4, 2).unwrap();
        let solver = solver(&game);
        let analysis = solver.analyse(&start).unwrap();
        let perfect = reviewed(&game, &solver, start, &analysis.pv_line());
        assert!(!perfect.moves.is_empty());
        assert!(perfect
            .moves
            .iter()
            .all(|m| m.loss() == 0 && !m.is_mistake()));
        assert_eq!(perfect.accounts(), [Account::default(); 2]);
        assert_eq!(perfect.moves[0].value, analysis.value);
        assert!(perfect.end.is_over(game.rules()));
        // The worst first move (a single sowing that passes the turn, so
        // that the line may stop there).
        let worst = analysis
            .moves
            .iter()
            .filter(|m| !m.extra_turn)
            .min_by_key(|m| m.value)
            .unwrap();
        let line = Line {
            turns: vec![vec![worst.house]],
        };
        let r = reviewed(&game, &solver, start, &line);
        let m = &r.moves[0];
        assert_eq!((m.value, m.played), (analysis.value, worst.value));
        assert_eq!(m.loss(), analysis.value - worst.value);
        assert_eq!(m.is_mistake(), worst.value < analysis.value);
        assert_eq!(r.accounts()[0].loss, m.loss());
        assert_eq!(r.accounts()[1], Account::default());
    }

    #[test]
    fn an_illegal_line_is_refused_before_any_answer() {
        let game = Game::new(3, Rules::STANDARD);
        let start = Position::start(3, 2).unwrap();
        let line = Line::parse("4", Numbering::FromOne).unwrap();
        let err = review(&game, start, &line, |_| panic!("asked for an answer")).unwrap_err();
        assert!(matches!(
            err,
            ReviewError::Line(LineError::Illegal { turn: 1, .. })
        ));
    }
}
