//! A query's answer and its JSON line: the one wire format of `query
//! --json` and of every line `query --batch` writes.
//!
//! An answer line is one JSON object on one line, its fields in this order:
//! - `position`: the position as given (the usual form) or in that form;
//! - `to_move`: `"S"` or `"N"`;
//! - `value`: the final store difference under perfect play, for the side
//!   to move; `result`: `"win"`, `"draw"` or `"loss"` for that side;
//! - `moves`: every legal move, `{"house":H,"value":V,"extra_turn":B}`,
//!   `V` for the side to move now; `best`: the houses whose value is
//!   `value`;
//! - `pv` (single query, and a batch with `--pv`): a perfect game to the
//!   end in move notation, `""` for a finished game;
//! - `source`: `"table"`, `"search"` or `"finished"`; `nodes` searched and
//!   `ms` taken;
//! - `note` (single query only): why the tables were not used.
//!
//! A batch line that gets no answer is `{"line":N,"error":"line N: ..."}`,
//! `N` its 1-based line number in the input (blank and comment lines
//! counted): a bad line, or a search stopped by `--time-limit`.

use kalah_solver::query::pv_line;
use kalah_solver::search::{MoveValue, PvMove};
use kalah_solver::{Position, Side};

use crate::json::{write_escaped, write_int, write_millis, Sink};

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Table,
    Search,
    Finished,
}

impl Source {
    pub(super) fn name(self) -> &'static str {
        match self {
            Source::Table => "table",
            Source::Search => "search",
            Source::Finished => "finished",
        }
    }
}

/// One answered position.
pub(crate) struct Answer {
    pub(crate) position: Position,
    pub(crate) value: i32,
    pub(crate) moves: Vec<MoveValue>,
    pub(crate) best: Vec<usize>,
    pub(crate) pv: Option<Vec<PvMove>>,
    pub(crate) source: Source,
    pub(crate) nodes: u64,
    pub(crate) ms: f64,
}

/// The start of a move's JSON object, by house.
const HOUSE_KEYS: [&str; 9] = [
    "{\"house\":0,\"value\":",
    "{\"house\":1,\"value\":",
    "{\"house\":2,\"value\":",
    "{\"house\":3,\"value\":",
    "{\"house\":4,\"value\":",
    "{\"house\":5,\"value\":",
    "{\"house\":6,\"value\":",
    "{\"house\":7,\"value\":",
    "{\"house\":8,\"value\":",
];

/// What one JSON answer line says, borrowed: the batch query writes its
/// table answers straight from fixed storage through this.
pub(super) struct AnswerView<'a> {
    pub(super) position: &'a Position,
    /// The position's display form, when the input line is exactly that.
    pub(super) text: Option<&'a [u8]>,
    pub(super) value: i32,
    pub(super) moves: &'a [MoveValue],
    /// `None`: the houses of `moves` whose value is `value`.
    pub(super) best: Option<&'a [usize]>,
    pub(super) pv: Option<&'a [PvMove]>,
    pub(super) source: Source,
    pub(super) nodes: u64,
    pub(super) ms: f64,
}

impl AnswerView<'_> {
    /// Appends the answer as one line of JSON (no newline). Written
    /// directly rather than through a [`Json`] tree: the batch query
    /// prints a million of these a second.
    pub(super) fn write(&self, o: &mut impl Sink, note: Option<&str>) {
        o.put(b"{\"position\":\"");
        let pos = self.position;
        let letter = pos.to_move().letter() as u8;
        if let Some(text) = self.text {
            o.put(text);
        } else {
            for side in [Side::South, Side::North] {
                for &x in pos.houses(side) {
                    write_int(o, x as i64);
                    o.byte(b' ');
                }
                write_int(o, pos.store(side) as i64);
                o.byte(b' ');
            }
            o.byte(letter);
        }
        o.put(b"\",\"to_move\":\"");
        o.byte(letter);
        o.put(b"\",\"value\":");
        write_int(o, self.value as i64);
        // Fixed-length pieces are copied inline.
        o.put(match self.value.signum() {
            1 => b",\"result\":\"win\",\"moves\":[",
            0 => b",\"result\":\"draw\",\"moves\":[",
            _ => b",\"result\":\"loss\",\"moves\":[",
        });
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                o.byte(b',');
            }
            match HOUSE_KEYS.get(m.house) {
                Some(key) => o.put(key.as_bytes()),
                None => {
                    o.put(b"{\"house\":");
                    write_int(o, m.house as i64);
                    o.put(b",\"value\":");
                }
            }
            write_int(o, m.value as i64);
            o.put(if m.extra_turn {
                b",\"extra_turn\":true}"
            } else {
                b",\"extra_turn\":false}"
            });
        }
        o.put(b"],\"best\":[");
        let mut first = true;
        let mut best = |h: usize| {
            if !first {
                o.byte(b',');
            }
            first = false;
            write_int(o, h as i64);
        };
        match self.best {
            Some(b) => b.iter().for_each(|&h| best(h)),
            None => self
                .moves
                .iter()
                .filter(|m| m.value == self.value)
                .for_each(|m| best(m.house)),
        }
        o.byte(b']');
        if let Some(pv) = self.pv {
            o.put(b",\"pv\":");
            if pv.is_empty() {
                o.put(b"\"\"");
            } else {
                write_escaped(o, &pv_line(pv).to_string());
            }
        }
        o.put(match self.source {
            Source::Table => b",\"source\":\"table\",\"nodes\":",
            Source::Search => b",\"source\":\"search\",\"nodes\":",
            Source::Finished => b",\"source\":\"finished\",\"nodes\":",
        });
        write_int(o, self.nodes as i64);
        o.put(b",\"ms\":");
        write_millis(o, self.ms);
        if let Some(n) = note {
            o.put(b",\"note\":");
            write_escaped(o, n);
        }
        o.byte(b'}');
    }
}

impl Answer {
    fn view(&self) -> AnswerView<'_> {
        AnswerView {
            position: &self.position,
            text: None,
            value: self.value,
            moves: &self.moves,
            best: Some(&self.best),
            pv: self.pv.as_deref(),
            source: self.source,
            nodes: self.nodes,
            ms: self.ms,
        }
    }

    /// Appends the answer as one line of JSON (no newline).
    pub(super) fn write(&self, o: &mut Vec<u8>, note: Option<&str>) {
        self.view().write(o, note);
    }

    /// The answer as one line of JSON.
    pub(super) fn render(&self, note: Option<&str>) -> String {
        let mut o = Vec::with_capacity(320);
        self.write(&mut o, note);
        // Only ASCII and the note's (UTF-8) text were written.
        String::from_utf8(o).expect("JSON text is UTF-8")
    }
}
