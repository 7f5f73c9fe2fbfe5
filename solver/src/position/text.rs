//! The text form of a position, read: one scanner for every reader.
//!
//! Text is read by one parser ([`Position::parse_form`], which
//! [`Position::from_str`] and [`Setup::from_str`] share), in one pass and
//! without allocating; a [`Setup`] (rows of any length) becomes a
//! [`Position`] only through [`Setup::validate`]. A [`PositionError`] names
//! the offending token and why. The text form (docs/RULES.md) is the `2m+2` counts
//! in sowing order, then the side to move; commas may replace spaces; `m`
//! is inferred from the count of numbers.

use std::fmt;
use std::str::FromStr;

use super::{Position, Side};
use crate::rules::{MAX_PITS, MAX_SEEDS};
use crate::size::SizeError;
/// Why a text or a setup is not a position. Token numbers count from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Nothing but separators.
    Empty,
    /// Two separators in a row (`4,,4`): a count is missing.
    EmptyToken { token: usize },
    /// A count that is not a whole number.
    NotANumber { token: usize, text: String },
    /// A count below zero.
    Negative { token: usize, text: String },
    /// A count above 255 (no game holds more seeds).
    CountTooLarge { token: usize, text: String },
    /// The last token is a number: the side to move is missing.
    MissingSide,
    /// The last token is neither `S` nor `N`.
    UnknownSide { token: usize, text: String },
    /// A side letter before the end: the side must come last.
    SideNotLast { token: usize, text: String },
    /// The counts cannot be split into two rows of houses and two stores.
    OddCount { count: usize },
    /// Fewer than four counts: at least one house a side and two stores.
    TooFewCounts { count: usize },
    /// More than 8 houses a side.
    TooManyPits { pits: usize },
    /// More than 255 seeds in all.
    TooManySeeds { total: usize },
    /// A setup whose two rows differ in length.
    RowMismatch { south: usize, north: usize },
    /// `pits` or `seeds` out of range when building a start position.
    BadStart(SizeError),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PositionError::*;
        match self {
            Empty => write!(f, "empty position: expected 2m+2 counts and a side (S or N)"),
            EmptyToken { token } => write!(f, "token {token} is empty: two separators in a row"),
            NotANumber { token, text } => {
                write!(f, "token {token} '{text}' is not a seed count (a whole number 0..255)")
            }
            Negative { token, text } => write!(f, "token {token} '{text}' is negative: seed counts are 0 or more"),
            CountTooLarge { token, text } => {
                write!(f, "token {token} '{text}' is too large: a game holds at most 255 seeds")
            }
            MissingSide => write!(f, "the side to move is missing: end the position with S or N"),
            UnknownSide { token, text } => {
                write!(f, "token {token} '{text}' is not a side: the last token must be S or N")
            }
            SideNotLast { token, text } => {
                write!(f, "token {token} '{text}' is a side, but the side to move must be the last token")
            }
            OddCount { count } => write!(
                f,
                "{count} counts is odd: a position has 2m+2 counts (m houses and a store a side)"
            ),
            TooFewCounts { count } => write!(
                f,
                "{count} counts is too few: a position has at least 4 (one house and a store a side)"
            ),
            TooManyPits { pits } => write!(f, "{pits} houses a side: at most {MAX_PITS} are supported"),
            TooManySeeds { total } => write!(f, "{total} seeds in all: at most {MAX_SEEDS} are supported"),
            RowMismatch { south, north } => {
                write!(f, "South has {south} houses but North has {north}")
            }
            BadStart(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PositionError {}

/// A position as written, not yet checked for size limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// South's houses from South's house 1.
    pub south: Vec<u32>,
    /// North's houses from North's house 1.
    pub north: Vec<u32>,
    /// Stores: South's, North's.
    pub stores: [u32; 2],
    pub to_move: Side,
}

/// A side word: `S`, `South`, `N`, `North`, in any case.
fn parse_side(text: &str) -> Option<Side> {
    if text.eq_ignore_ascii_case("s") || text.eq_ignore_ascii_case("south") {
        Some(Side::South)
    } else if text.eq_ignore_ascii_case("n") || text.eq_ignore_ascii_case("north") {
        Some(Side::North)
    } else {
        None
    }
}

/// What [`scan`] read.
struct Scanned {
    to_move: Side,
    /// Counts read (all passed to the callback).
    counts: usize,
    /// Whether the text is exactly [`Position`]'s display form: counts
    /// without leading zeros or signs, one space after each, `S` or `N`.
    canonical: bool,
}

/// A token other than a plain count, read.
enum Token {
    Count(u32),
    Side(Side),
}

/// Whether `b` separates tokens: ASCII white space or a comma.
#[inline]
fn separates(b: u8) -> bool {
    b == b',' || b.is_ascii_whitespace()
}

/// Up to three ASCII digits of `text` from `start`: where they end, and
/// their value.
#[inline]
fn short_number(text: &[u8], start: usize) -> (usize, u32) {
    let (mut i, mut v) = (start, 0);
    while i < text.len() && i - start < 3 {
        let d = text[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = 10 * v + u32::from(d);
        i += 1;
    }
    (i, v)
}

/// A count as the display form writes it, at `start`: one to three ASCII
/// digits without a leading zero, at most 255, then one space. Where the
/// space is, and the count; `None` for anything else (which the general
/// loop of [`scan`] then reads).
#[inline(always)]
fn display_count(text: &[u8], start: usize) -> Option<(usize, u32)> {
    let digit = |i: usize| match text.get(i) {
        Some(&b) if b.is_ascii_digit() => Some(u32::from(b - b'0')),
        _ => None,
    };
    let mut v = digit(start)?;
    let mut i = start + 1;
    // The leading zero is looked for only behind a second digit: a test
    // of every count for zero would be a branch that goes either way
    // (most houses of a position near its end are empty).
    if let Some(d) = digit(i) {
        if v == 0 {
            return None;
        }
        (v, i) = (10 * v + d, i + 1);
        if let Some(d) = digit(i) {
            (v, i) = (10 * v + d, i + 1);
        }
    }
    (text.get(i) == Some(&b' ') && v <= MAX_SEEDS as u32).then_some((i, v))
}

/// The one parser of the text form (docs/RULES.md), in one pass without
/// allocating on valid text: tokens are separated by ASCII white space
/// and/or single commas (`4, 4` and `4,4` are fine, `4,,4` misses a
/// count); every token but the last is a count, passed to `count` in
/// order; the last is the side to move. Syntax errors only: the sizes are
/// the callers' to check. Errors, when several apply, in this order: two
/// separators in a row; the last token (missing or not a side); the first
/// token that is not a count. (`count` may also see a last token that is
/// a count: the text is then an error.)
fn scan(text: &[u8], mut count: impl FnMut(u32)) -> Result<Scanned, PositionError> {
    let len = text.len();
    let mut i = 0;
    let mut tokens = 0;
    // The latest token, and its side if it is one.
    let (mut last, mut side) = ((0, 0), None);
    // The usual text, the display form, read without the general
    // bookkeeping: counts each followed by one space, then `S` or `N`
    // ending the text. Anything else is read by the general loop from the
    // token where the display form stops (nothing is pending there, no
    // error found, the latest token is a count).
    while let Some((end, v)) = display_count(text, i) {
        count(v);
        tokens += 1;
        last = (i, end);
        i = end + 1;
    }
    if let [letter @ (b'S' | b'N')] = text[i..] {
        let to_move = if letter == b'S' {
            Side::South
        } else {
            Side::North
        };
        return counted(tokens + 1, to_move, true);
    }
    // Back to the space before this token, if any: the general loop reads
    // it as the separator it is.
    i -= usize::from(tokens > 0);
    let mut canonical = true;
    // The latest token if it is not a count: an error once another follows.
    let mut pending: Option<(usize, usize)> = None;
    let mut first_error: Option<PositionError> = None;
    loop {
        let run = i;
        let mut after_comma = false;
        while i < len && separates(text[i]) {
            if text[i] == b',' {
                if after_comma {
                    return Err(PositionError::EmptyToken { token: tokens + 1 });
                }
                after_comma = true;
            } else {
                after_comma = false;
            }
            i += 1;
        }
        // The display form: one space between tokens, none around them.
        let expected = usize::from(run != 0 && i != len);
        if i - run != expected || (expected == 1 && text[run] != b' ') {
            canonical = false;
        }
        if i == len {
            break;
        }
        // Tokens up to the next separator other than one space.
        loop {
            tokens += 1;
            if let Some((a, b)) = pending.take() {
                if first_error.is_none() {
                    first_error = Some(not_a_count(&text[a..b], tokens - 1));
                }
            }
            let start = i;
            // The usual count: one to three digits, read directly.
            let v;
            (i, v) = short_number(text, start);
            if i > start && (i == len || separates(text[i])) && v <= MAX_SEEDS as u32 {
                canonical &= text[start] != b'0' || i - start == 1;
                count(v);
                (last, side) = ((start, i), None);
            } else {
                while i < len && !separates(text[i]) {
                    i += 1;
                }
                last = (start, i);
                let token = match text[start..i] {
                    [b'S'] => Ok(Token::Side(Side::South)),
                    [b'N'] => Ok(Token::Side(Side::North)),
                    _ => {
                        canonical = false;
                        slow_token(&text[start..i])
                    }
                };
                side = None;
                match token {
                    Ok(Token::Count(v)) => count(v),
                    Ok(Token::Side(s)) => {
                        side = Some(s);
                        pending = Some(last);
                    }
                    Err(()) => pending = Some(last),
                }
            }
            // One space and another token, as the display form writes
            // them: no need for the general separator loop.
            if i + 1 < len && text[i] == b' ' && !separates(text[i + 1]) {
                i += 1;
            } else {
                break;
            }
        }
    }
    if tokens == 0 {
        return Err(PositionError::Empty);
    }
    let Some(to_move) = side else {
        let t = token_text(&text[last.0..last.1]);
        return Err(if t.parse::<i64>().is_ok() {
            PositionError::MissingSide
        } else {
            PositionError::UnknownSide {
                token: tokens,
                text: t,
            }
        });
    };
    if let Some(e) = first_error {
        return Err(e);
    }
    counted(tokens, to_move, canonical)
}

/// What [`scan`] read from `tokens` tokens, the last the side to move, if
/// they are a position's number of counts.
#[inline(always)]
fn counted(tokens: usize, to_move: Side, canonical: bool) -> Result<Scanned, PositionError> {
    let counts = tokens - 1;
    if counts % 2 == 1 {
        return Err(PositionError::OddCount { count: counts });
    }
    if counts < 4 {
        return Err(PositionError::TooFewCounts { count: counts });
    }
    Ok(Scanned {
        to_move,
        counts,
        canonical,
    })
}

/// Why `t`, token number `token`, is not a count, where a count is due.
#[cold]
fn not_a_count(t: &[u8], token: usize) -> PositionError {
    match std::str::from_utf8(t).ok().and_then(parse_side) {
        Some(_) => PositionError::SideNotLast {
            token,
            text: token_text(t),
        },
        None => count_error(t, token),
    }
}

/// A token's text for an error message.
fn token_text(t: &[u8]) -> String {
    String::from_utf8_lossy(t).into_owned()
}

/// A token other than one to three digits or `S` or `N`: a count (as Rust
/// reads an `i64`: a sign, then digits) or a side word; `Err` for
/// anything else (see [`count_error`]).
#[cold]
fn slow_token(t: &[u8]) -> Result<Token, ()> {
    let t = std::str::from_utf8(t).map_err(|_| ())?;
    match t.parse::<i64>() {
        Ok(n) if (0..=MAX_SEEDS as i64).contains(&n) => Ok(Token::Count(n as u32)),
        Ok(_) => Err(()),
        Err(_) => parse_side(t).map(Token::Side).ok_or(()),
    }
}

/// Why `t`, token number `token`, is not a count, where a count is due.
#[cold]
fn count_error(t: &[u8], token: usize) -> PositionError {
    let text = token_text(t);
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<i64>() {
        Ok(n) if n < 0 => PositionError::Negative { token, text },
        Ok(_) => PositionError::CountTooLarge { token, text },
        // Beyond i64: a sign and digits, or digits.
        Err(_) if text.starts_with('-') && digits(&text[1..]) => {
            PositionError::Negative { token, text }
        }
        Err(_) if !text.is_empty() && digits(&text) => PositionError::CountTooLarge { token, text },
        Err(_) => PositionError::NotANumber { token, text },
    }
}

impl FromStr for Setup {
    type Err = PositionError;

    /// Parses the docs/RULES.md text form. Syntax errors only; sizes are checked
    /// by [`Setup::validate`].
    fn from_str(text: &str) -> Result<Setup, PositionError> {
        let mut numbers = Vec::with_capacity(2 * MAX_PITS + 2);
        let scanned = scan(text.as_bytes(), |v| numbers.push(v))?;
        let m = scanned.counts / 2 - 1;
        Ok(Setup {
            south: numbers[..m].to_vec(),
            north: numbers[m + 1..2 * m + 1].to_vec(),
            stores: [numbers[m], numbers[2 * m + 1]],
            to_move: scanned.to_move,
        })
    }
}

impl Setup {
    /// Checks sizes and builds the position.
    ///
    /// # Errors
    /// Rows of different lengths, no houses, more than 8 houses a side, or
    /// more than 255 seeds in all.
    pub fn validate(&self) -> Result<Position, PositionError> {
        let m = self.south.len();
        if self.north.len() != m {
            return Err(PositionError::RowMismatch {
                south: m,
                north: self.north.len(),
            });
        }
        if m == 0 {
            return Err(PositionError::TooFewCounts { count: 2 });
        }
        if m > MAX_PITS {
            return Err(PositionError::TooManyPits { pits: m });
        }
        let total: usize = self
            .south
            .iter()
            .chain(&self.north)
            .chain(&self.stores)
            .map(|&x| x as usize)
            .sum();
        if total > MAX_SEEDS {
            return Err(PositionError::TooManySeeds { total });
        }
        let mut houses = [[0u8; MAX_PITS]; 2];
        for (row, counts) in houses.iter_mut().zip([&self.south, &self.north]) {
            for (cell, &x) in row.iter_mut().zip(counts.iter()) {
                *cell = x as u8;
            }
        }
        Ok(Position {
            pits: m as u8,
            houses,
            stores: [self.stores[0] as u8, self.stores[1] as u8],
            to_move: self.to_move,
        })
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses the docs/RULES.md text form and checks its sizes: the errors
    /// of [`Setup::from_str`], then those of [`Setup::validate`].
    fn from_str(text: &str) -> Result<Position, PositionError> {
        Position::parse_form(text.as_bytes()).map(|(p, _)| p)
    }
}

impl Position {
    /// [`Position::from_str`] on bytes, without allocating on valid text,
    /// also saying whether `text` is exactly the position's
    /// [`Display`](fmt::Display) form (single spaces, no leading zeros, `S`
    /// or `N`), which then need not be written again.
    ///
    /// # Errors
    /// As [`Position::from_str`]; a token that is not UTF-8 is not a
    /// number or a side (its text in the error is shown lossily).
    pub fn parse_form(text: &[u8]) -> Result<(Position, bool), PositionError> {
        let mut counts = [0u8; 2 * MAX_PITS + 2];
        let (mut n, mut total) = (0, 0usize);
        let scanned = scan(text, |v| {
            // Every count is at most 255 (scan checks).
            if let Some(c) = counts.get_mut(n) {
                *c = v as u8;
            }
            n += 1;
            total += v as usize;
        })?;
        let m = scanned.counts / 2 - 1;
        if m > MAX_PITS {
            return Err(PositionError::TooManyPits { pits: m });
        }
        if total > MAX_SEEDS {
            return Err(PositionError::TooManySeeds { total });
        }
        let mut houses = [[0u8; MAX_PITS]; 2];
        houses[0][..m].copy_from_slice(&counts[..m]);
        houses[1][..m].copy_from_slice(&counts[m + 1..2 * m + 1]);
        let position = Position {
            pits: m as u8,
            houses,
            stores: [counts[m], counts[2 * m + 1]],
            to_move: scanned.to_move,
        };
        Ok((position, scanned.canonical))
    }

    /// The position of `text`, if it is one ([`Position::parse_form`]
    /// without the error).
    pub fn parse_common(text: &[u8]) -> Option<Position> {
        Position::parse_form(text).ok().map(|(p, _)| p)
    }

    /// [`Position::parse_form`] without the error.
    pub fn parse_common_form(text: &[u8]) -> Option<(Position, bool)> {
        Position::parse_form(text).ok()
    }
}
