//! `kalah.Position`: a position and the rules it is played under.

use kalah::service::parse_position;
use kalah_solver::{Game, Position, Rules, Side};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors;

/// A Kalah position: 2m+2 counts in sowing order (S1..Sm, South's store,
/// N1..Nm, North's store), the side to move, and the rules it is played
/// under. Immutable and hashable: `play` returns a new position.
#[pyclass(name = "Position", module = "kalah", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyPosition {
    pub position: Position,
    pub rules: Rules,
}

impl PyPosition {
    /// The game (board size and rules) the position is played in.
    pub fn game(&self) -> Game {
        Game::new(self.position.pits(), self.rules)
    }
}

/// `S` or `N`.
fn side_letter(side: Side) -> String {
    side.letter().to_string()
}

#[pymethods]
impl PyPosition {
    /// Reads a position in the command line's notation (docs/RULES.md),
    /// e.g. `"4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"`; counts may be separated by
    /// commas. `rules` is a rule set's slug (`kalah.RULES`).
    ///
    /// Raises ValueError with the command line's message for text that is
    /// not a position, or for unknown rules.
    #[new]
    #[pyo3(signature = (text, *, rules = "std"))]
    fn new(text: &str, rules: &str) -> PyResult<Self> {
        let rules = errors::rules(rules)?;
        let position = parse_position(text).map_err(errors::service)?;
        Ok(PyPosition { position, rules })
    }

    /// The start of Kalah(pits, seeds): `seeds` in every house, South to
    /// move.
    #[staticmethod]
    #[pyo3(signature = (pits = None, seeds = None, *, rules = "std"))]
    fn start(
        py: Python<'_>,
        pits: Option<&Bound<'_, PyAny>>,
        seeds: Option<&Bound<'_, PyAny>>,
        rules: &str,
    ) -> PyResult<Self> {
        let rules = errors::rules(rules)?;
        // Kalah(6,4) unless told otherwise.
        let (six, four) = (6u8.into_pyobject(py)?, 4u8.into_pyobject(py)?);
        let position =
            errors::game_size(pits.unwrap_or(six.as_any()), seeds.unwrap_or(four.as_any()))?
                .start();
        Ok(PyPosition { position, rules })
    }

    /// Houses a side.
    #[getter]
    fn pits(&self) -> usize {
        self.position.pits()
    }

    /// The rules' slug.
    #[getter]
    fn rules(&self) -> String {
        self.rules.slug()
    }

    /// `"S"` or `"N"`: the side to move.
    #[getter(to_move)]
    fn side_to_move(&self) -> String {
        side_letter(self.position.to_move())
    }

    /// South's houses, S1..Sm.
    #[getter]
    fn south(&self) -> Vec<u32> {
        self.position
            .houses(Side::South)
            .iter()
            .map(|&x| u32::from(x))
            .collect()
    }

    /// North's houses, N1..Nm.
    #[getter]
    fn north(&self) -> Vec<u32> {
        self.position
            .houses(Side::North)
            .iter()
            .map(|&x| u32::from(x))
            .collect()
    }

    /// The stores: (South's, North's).
    #[getter]
    fn stores(&self) -> (u8, u8) {
        (
            self.position.store(Side::South),
            self.position.store(Side::North),
        )
    }

    /// Seeds in houses (the tier a table probe reads).
    #[getter]
    fn seeds_on_board(&self) -> u32 {
        self.position.seeds_on_board()
    }

    /// The legal moves: house numbers 1..m of the side to move, none once
    /// the game is over.
    fn moves(&self) -> Vec<usize> {
        self.position.legal_moves(self.rules)
    }

    /// The position after the side to move sows `house` (1..m). The same
    /// side moves again after a last seed in its own store (compare
    /// `to_move`).
    ///
    /// Raises ValueError for a house that does not exist, an empty house,
    /// or a finished game.
    fn play(&self, house: usize) -> PyResult<Self> {
        let mut next = self.position;
        next.play(&self.game(), house).map_err(|e| {
            PyValueError::new_err(format!("cannot play {house} in {}: {e}", self.position))
        })?;
        Ok(PyPosition {
            position: next,
            rules: self.rules,
        })
    }

    /// Whether the game is over under the position's rules.
    fn is_over(&self) -> bool {
        self.position.is_over(self.rules)
    }

    /// South's final store minus North's once the game is over (the end
    /// rule's sweep applied), else None.
    fn final_score(&self) -> Option<i32> {
        self.position.final_score(self.rules)
    }

    /// A drawing of the board, North on top (as `kalah show`).
    fn diagram(&self) -> String {
        self.position.diagram()
    }

    fn __str__(&self) -> String {
        self.position.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position('{}', rules='{}')",
            self.position,
            self.rules.slug()
        )
    }
}
