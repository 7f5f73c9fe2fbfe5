//! A board as certificates and a long solve's records write it: its packed
//! bits in 32 hex digits; with `#[serde(with = ...)]`, a [`Board`] field
//! in that form.

use kalah_solver::Board;
use serde::{de::Error, Deserialize, Deserializer, Serializer};

/// `board` in 32 hex digits.
pub fn text(board: Board) -> String {
    format!("{:032x}", board.packed())
}

/// The board [`text`] wrote.
///
/// # Errors
/// Text that is not a hex number of at most 32 digits, named.
pub fn parse(text: &str) -> Result<Board, String> {
    u128::from_str_radix(text, 16)
        .map(Board::from_packed)
        .map_err(|e| format!("board {text:?}: {e}"))
}

pub fn serialize<S: Serializer>(board: &Board, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&text(*board))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Board, D::Error> {
    parse(&String::deserialize(d)?).map_err(D::Error::custom)
}
