//! The answers the server keeps: every value its searches found (the
//! position asked, each of its moves' positions, the positions along the
//! perfect game), as the board values they are, so that a position asked
//! again, or one a move of it leads to, is answered at once from them
//! (with the tables and the opening book under them), as a book answers.
//!
//! Memory is bounded: at most `capacity` boards are kept (a concurrent
//! cache, `quick_cache`, which evicts the boards least used, CLOCK-Pro);
//! each costs about 40 bytes, so the default million is about 40 MB. A
//! board whose value was evicted is searched again, never guessed: an
//! answer is given from the kept values only when the position and every
//! move are known (and a perfect game can be followed to the end), and
//! checked as a table answer is.

use kalah_solver::book::Book;
use kalah_solver::table::Tables;
use kalah_solver::{Board, Game, Position, Probe};
use quick_cache::sync::Cache;

use crate::service::answer::{Answer, Detail, Source};
use crate::service::position::from_probe;

/// A board of one board size and rule set.
type Key = (u8, u8, u128);

/// The board values the server's searches found.
pub struct Kept {
    values: Option<Cache<Key, i8>>,
}

impl Kept {
    /// Keeps up to `capacity` boards (none with 0).
    pub fn new(capacity: usize) -> Kept {
        Kept {
            values: (capacity > 0).then(|| Cache::new(capacity)),
        }
    }

    /// Keeps what the answer `a` of a search under `game` found: the value
    /// of its position, of each move's position, and of each position along
    /// its perfect game.
    pub fn learn(&self, game: &Game, a: &Answer) {
        let Some(values) = &self.values else { return };
        let rules = game.rules().code();
        let pits = game.pits() as u8;
        let keep = |p: &Position, value_for_mover: i32| {
            if p.is_over(game.rules()) {
                return;
            }
            if let Ok(v) = i8::try_from(value_for_mover - p.store_difference()) {
                values.insert((pits, rules, p.board().packed()), v);
            }
        };
        let pos = a.position;
        keep(&pos, a.value);
        for m in &a.moves {
            let mut next = pos;
            if next.play(game, m.house).is_ok() {
                keep(&next, if m.extra_turn { m.value } else { -m.value });
            }
        }
        for step in a.pv.iter().flatten() {
            let v = if step.position.to_move() == pos.to_move() {
                a.value
            } else {
                -a.value
            };
            keep(&step.position, v);
        }
    }

    /// The answer for `pos` from the values kept (the tables and `book`
    /// under them), every move's value and a perfect game, when they hold
    /// it all; values that contradict themselves give none.
    pub fn answer(
        &self,
        game: &Game,
        tables: Option<&Tables>,
        book: Option<&Book>,
        pos: &Position,
    ) -> Option<Answer> {
        let values = self.values.as_ref()?;
        let probe = KeptProbe {
            values,
            pits: game.pits() as u8,
            rules: game.rules().code(),
            tables,
            book,
        };
        from_probe(&probe, game, pos, Detail::FULL, Source::Kept)
            .ok()
            .flatten()
    }

    /// Boards kept now.
    pub fn len(&self) -> usize {
        self.values.as_ref().map_or(0, |v| v.len())
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The kept values over the tables and the book, as one prober.
struct KeptProbe<'a> {
    values: &'a Cache<Key, i8>,
    pits: u8,
    rules: u8,
    tables: Option<&'a Tables>,
    book: Option<&'a Book>,
}

impl Probe for KeptProbe<'_> {
    fn max_seeds(&self) -> u32 {
        self.tables.map_or(0, |t| t.max_seeds())
    }

    fn probe(&self, board: Board) -> Option<i32> {
        if let Some(t) = self.tables.filter(|t| board.seeds() <= t.max_seeds()) {
            return t.probe(board);
        }
        if let Some(v) = self.book.and_then(|b| b.get(board)) {
            return Some(v);
        }
        self.values
            .get(&(self.pits, self.rules, board.packed()))
            .map(i32::from)
    }
}
