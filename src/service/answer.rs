//! A position's answer and its JSON line: the one wire format of `query
//! --json` and of every line `query --batch` writes (docs/json.md).

use std::fmt::Display;

use kalah_solver::query::pv_line;
use kalah_solver::search::{MoveValue, PvMove};
use kalah_solver::Position;
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The endgame tables: one probe a move.
    Table,
    /// The opening book (with the tables under it): one lookup a move.
    Book,
    /// The values `kalah serve` kept from its earlier searches.
    Kept,
    /// A search (with table probes below it).
    Search,
    /// The game is over: the score after the end rule.
    Finished,
}

impl Source {
    /// The name the JSON line and the text output give it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Table => "table",
            Source::Book => "book",
            Source::Kept => "kept",
            Source::Search => "search",
            Source::Finished => "finished",
        }
    }
}

/// A value's outcome for the side it is for: the one vocabulary of every
/// command's `result` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    /// The outcome of a final store difference `value`.
    pub fn of(value: i32) -> Outcome {
        match value.signum() {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// `W`, `D` or `L`: the letters of the published outcome tables.
    pub fn letter(self) -> char {
        match self {
            Outcome::Win => 'W',
            Outcome::Draw => 'D',
            Outcome::Loss => 'L',
        }
    }
}

/// What an answer holds besides the position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detail {
    /// Every legal move's exact value and the best moves. Off (`query
    /// --value-only`), a search solves the position alone, not each move
    /// too: a fraction of the cost far from the tables.
    pub moves: bool,
    /// A perfect game to the end.
    pub pv: bool,
}

impl Detail {
    /// Every move's value and a perfect game: a single `query`.
    pub const FULL: Detail = Detail {
        moves: true,
        pv: true,
    };
}

/// One answered position.
#[derive(Clone, Debug)]
pub struct Answer {
    pub position: Position,
    /// The final store difference under perfect play, for the side to move.
    pub value: i32,
    /// Every legal move and its value for the side to move now (empty when
    /// `value_only`).
    pub moves: Vec<MoveValue>,
    /// The houses whose move has `value` (empty when `value_only`).
    pub best: Vec<usize>,
    /// The moves were not solved ([`Detail::moves`] off): `moves` and `best`
    /// are empty, and the JSON line leaves them out.
    pub value_only: bool,
    /// A perfect game to the end, when asked for (empty: the game is over).
    pub pv: Option<Vec<PvMove>>,
    pub source: Source,
    pub nodes: u64,
    pub ms: f64,
}

impl Answer {
    /// The answer's JSON line (no newline), with `rules` (the rules' slug)
    /// and the front end's `note`.
    pub fn line<'a>(&'a self, rules: &'a str, note: Option<&'a str>) -> AnswerLine<'a> {
        AnswerLine {
            position: PositionText::Position(&self.position),
            to_move: self.position.to_move().letter(),
            rules,
            value: self.value,
            result: Outcome::of(self.value),
            moves: (!self.value_only).then_some(Moves(&self.moves)),
            best: (!self.value_only).then_some(Best::Houses(&self.best)),
            pv: self.pv.as_deref().map(Pv),
            source: self.source,
            nodes: self.nodes,
            ms: Millis(self.ms),
            note,
        }
    }

    /// Appends the answer's JSON line (no newline) to `out`.
    pub fn write(&self, out: &mut Vec<u8>, rules: &str, note: Option<&str>) {
        write_json(out, &self.line(rules, note));
    }
}

/// Appends `value` as compact JSON to `out`. Serializing into memory fails
/// only for maps with keys that are not strings, which no type here has.
pub(crate) fn write_json(out: &mut Vec<u8>, value: &impl Serialize) {
    let _ = serde_json::to_writer(out, value);
}

/// What one JSON answer line says, borrowed: the batch writes its table
/// answers straight from fixed storage through this. The fields are
/// written in this order (docs/json.md).
#[derive(Serialize)]
pub struct AnswerLine<'a> {
    pub position: PositionText<'a>,
    #[serde(serialize_with = "as_str")]
    pub to_move: char,
    pub rules: &'a str,
    pub value: i32,
    pub result: Outcome,
    /// Left out of a value-only answer (`--value-only`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Moves<'a>>,
    /// Left out of a value-only answer, with `moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<Best<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pv: Option<Pv<'a>>,
    pub source: Source,
    pub nodes: u64,
    pub ms: Millis,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'a str>,
}

/// A batch line that gets no answer: its 1-based line number and why.
#[derive(Serialize)]
pub struct ErrorLine<'a> {
    pub line: u64,
    pub error: &'a str,
}

/// The position, in the docs/RULES.md text form.
pub enum PositionText<'a> {
    /// The input line, when it is exactly that form: ASCII digits, single
    /// spaces and the side letter (`Position::parse_common_form`'s usual
    /// form), which JSON takes as it is.
    Given(&'a [u8]),
    Position(&'a Position),
}

impl Serialize for PositionText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PositionText::Given(text) => s.collect_str(&String::from_utf8_lossy(text)),
            PositionText::Position(p) => s.collect_str(p),
        }
    }
}

fn as_str<S: Serializer>(c: &char, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_char(*c)
}

/// Every legal move: `{"house":H,"value":V,"extra_turn":B}`.
pub struct Moves<'a>(pub &'a [MoveValue]);

#[derive(Serialize)]
struct MoveLine {
    house: usize,
    value: i32,
    extra_turn: bool,
}

impl Serialize for Moves<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|m| MoveLine {
            house: m.house,
            value: m.value,
            extra_turn: m.extra_turn,
        }))
    }
}

/// The best moves' houses.
pub enum Best<'a> {
    Houses(&'a [usize]),
    /// The houses of these moves whose value is the position's.
    Of(&'a [MoveValue], i32),
}

impl Serialize for Best<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Best::Houses(h) => s.collect_seq(h.iter()),
            Best::Of(moves, value) => {
                let mut seq = s.serialize_seq(None)?;
                for m in moves.iter().filter(|m| m.value == *value) {
                    seq.serialize_element(&m.house)?;
                }
                seq.end()
            }
        }
    }
}

/// A perfect game in move notation (`""` for a finished game).
pub struct Pv<'a>(pub &'a [PvMove]);

impl Serialize for Pv<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_empty() {
            s.serialize_str("")
        } else {
            s.collect_str(&pv_line(self.0) as &dyn Display)
        }
    }
}

/// Milliseconds, written rounded to three decimals (a microsecond).
#[derive(Clone, Copy, Debug)]
pub struct Millis(pub f64);

impl Serialize for Millis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(round3(self.0))
    }
}

/// The JSON object of a game solved from its start (`kalah solve --json`,
/// docs/json.md). A front end that says more (a solve's first turns, a
/// distributed run's units) flattens it into its own object, first.
#[derive(Serialize, Debug)]
pub struct SolvedGame {
    pub pits: usize,
    pub seeds: usize,
    pub rules: String,
    /// The side the value is for: the first player, South.
    pub to_move: char,
    pub value: i32,
    pub result: Outcome,
    pub best_turn: Vec<usize>,
    pub pv: String,
    pub nodes: u64,
    pub nodes_per_second: u64,
    pub table_seeds: Option<u32>,
    pub build_seconds: f64,
    pub solve_seconds: f64,
    pub threads: usize,
}

/// `x` rounded to three decimals: times in seconds or milliseconds.
pub fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}
