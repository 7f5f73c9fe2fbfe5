//! Kalah(m,n): a game's size, checked once for every front end.
//!
//! The command line (`--pits`, `--seeds`), the HTTP API (`pits=`, `seeds=`)
//! and the cluster all turn the two counts a user gives into a
//! [`GameSize`] here, so that they refuse the same sizes with the same
//! message. A size is m houses a side (1..=8, the board's layout) and n
//! seeds a house at the start (at least 1), the whole board holding
//! 2·m·n seeds, at most 255 (a count is a byte). The product is computed
//! without overflow: a count too large for any arithmetic (or for 64 bits
//! at all) is an error naming it, never a wrapped small game or a panic.

use std::fmt;

use crate::position::Position;
use crate::rules::{MAX_PITS, MAX_SEEDS};

/// A checked Kalah(m,n): 1..=8 houses a side, at least one seed a house,
/// at most 255 seeds on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameSize {
    pits: u8,
    seeds: u8,
}

/// Why two counts are not a game's size. Counts are kept as the user wrote
/// them (digits), so that a count beyond 64 bits is named as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// `pits` or `seeds` is not a whole number (`name` is which).
    NotANumber { name: &'static str, text: String },
    /// Houses a side outside 1..=8.
    Pits { pits: String, seeds: String },
    /// No seeds in a house: an empty board is no game.
    NoSeeds { pits: String },
    /// 2·m·n above 255; `total` is `None` when the product does not even
    /// fit 64 bits.
    TooManySeeds {
        pits: String,
        seeds: String,
        total: Option<u64>,
    },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::NotANumber { name, text } => {
                let what = if *name == "pits" {
                    "houses a side"
                } else {
                    "seeds a house"
                };
                write!(f, "{name} '{text}' is not a whole number of {what}")
            }
            SizeError::Pits { pits, seeds } => write!(
                f,
                "Kalah({pits},{seeds}) is out of range: pits {pits} is not in 1..={MAX_PITS} (houses a side)"
            ),
            SizeError::NoSeeds { pits } => write!(
                f,
                "Kalah({pits},0) is out of range: seeds 0 is not at least 1 (seeds a house at the start)"
            ),
            SizeError::TooManySeeds {
                pits,
                seeds,
                total: Some(total),
            } => write!(
                f,
                "Kalah({pits},{seeds}) is out of range: 2 x {pits} x {seeds} = {total} seeds, more than the {MAX_SEEDS} a board holds"
            ),
            SizeError::TooManySeeds {
                pits,
                seeds,
                total: None,
            } => write!(
                f,
                "Kalah({pits},{seeds}) is out of range: 2 x {pits} x {seeds} seeds is far more than the {MAX_SEEDS} a board holds"
            ),
        }
    }
}

impl std::error::Error for SizeError {}

impl GameSize {
    /// Kalah(`pits`,`seeds`), checked.
    ///
    /// # Errors
    /// [`SizeError`] when `pits` is outside 1..=8, `seeds` is 0, or the
    /// board would hold more than 255 seeds (however large the counts:
    /// the product is checked, never wrapped).
    pub fn new(pits: u64, seeds: u64) -> Result<GameSize, SizeError> {
        Self::check(Count::Fits(pits), Count::Fits(seeds))
    }

    /// Kalah(m,n) from the two counts as text (surrounding spaces ignored):
    /// what a command-line flag or a query parameter holds. Digits beyond
    /// 64 bits are a count out of range, not a parse failure.
    ///
    /// # Errors
    /// [`SizeError::NotANumber`] for text that is not a whole number (the
    /// pits first), else as [`GameSize::new`].
    pub fn parse(pits: &str, seeds: &str) -> Result<GameSize, SizeError> {
        let pits = Count::parse("pits", pits)?;
        let seeds = Count::parse("seeds", seeds)?;
        Self::check(pits, seeds)
    }

    fn check(pits: Count, seeds: Count) -> Result<GameSize, SizeError> {
        let (m, n) = (pits.value(), seeds.value());
        if !(1..=MAX_PITS as u64).contains(&m.unwrap_or(u64::MAX)) {
            return Err(SizeError::Pits {
                pits: pits.to_string(),
                seeds: seeds.to_string(),
            });
        }
        if n == Some(0) {
            return Err(SizeError::NoSeeds {
                pits: pits.to_string(),
            });
        }
        let total = m
            .zip(n)
            .and_then(|(m, n)| m.checked_mul(n))
            .and_then(|mn| mn.checked_mul(2));
        match (m, n, total) {
            (Some(m), Some(n), Some(t)) if t <= MAX_SEEDS as u64 => Ok(GameSize {
                pits: m as u8,
                seeds: n as u8,
            }),
            _ => Err(SizeError::TooManySeeds {
                pits: pits.to_string(),
                seeds: seeds.to_string(),
                total,
            }),
        }
    }

    /// Houses a side (m).
    pub const fn pits(self) -> usize {
        self.pits as usize
    }

    /// Seeds a house at the start (n).
    pub const fn seeds(self) -> usize {
        self.seeds as usize
    }

    /// Seeds on the whole board: 2·m·n.
    pub const fn total_seeds(self) -> usize {
        2 * self.pits as usize * self.seeds as usize
    }

    /// The start position: n seeds in every house, empty stores, South to
    /// move.
    pub fn start(self) -> Position {
        Position::start_of(self)
    }
}

impl fmt::Display for GameSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kalah({},{})", self.pits, self.seeds)
    }
}

/// A count as given: a 64-bit number, or digits beyond 64 bits.
enum Count {
    Fits(u64),
    Huge(String),
}

impl Count {
    fn parse(name: &'static str, text: &str) -> Result<Count, SizeError> {
        let digits = text.trim();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SizeError::NotANumber {
                name,
                text: text.to_string(),
            });
        }
        Ok(match digits.parse() {
            Ok(n) => Count::Fits(n),
            Err(_) => Count::Huge(digits.to_string()),
        })
    }

    fn value(&self) -> Option<u64> {
        match self {
            Count::Fits(n) => Some(*n),
            Count::Huge(_) => None,
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Fits(n) => write!(f, "{n}"),
            Count::Huge(digits) => f.write_str(digits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SplitMix64 as Rng;

    /// The sizes the attacks used and their neighbours: 2·m·n
    /// wraps to a small game for 4611686018427387908 (m = 2) and to a
    /// panic for 3074457345618258603 (m = 6) in unchecked arithmetic.
    const EXTREMES: [u64; 12] = [
        0,
        1,
        2,
        127,
        128,
        255,
        256,
        3074457345618258603,
        4611686018427387904,
        4611686018427387908,
        u64::MAX / 2,
        u64::MAX,
    ];

    /// The oracle: the same rule in arithmetic that cannot overflow.
    fn is_game(m: u64, n: u64) -> bool {
        (1..=8).contains(&m) && n >= 1 && 2 * m as u128 * n as u128 <= 255
    }

    fn check_one(m: u64, n: u64) {
        match GameSize::new(m, n) {
            Ok(size) => {
                assert!(is_game(m, n), "Kalah({m},{n}) accepted");
                assert_eq!((size.pits() as u64, size.seeds() as u64), (m, n));
                let start = size.start();
                assert_eq!(start.total_seeds() as usize, size.total_seeds());
                assert_eq!(start.pits(), size.pits());
            }
            Err(e) => {
                assert!(!is_game(m, n), "Kalah({m},{n}) refused: {e}");
                assert!(e
                    .to_string()
                    .starts_with(&format!("Kalah({m},{n}) is out of range: ")));
            }
        }
        // The text form gives the same answer and message.
        assert_eq!(
            GameSize::parse(&m.to_string(), &n.to_string()),
            GameSize::new(m, n)
        );
    }

    #[test]
    fn extreme_and_random_counts_are_checked_never_wrapped() {
        for m in EXTREMES.into_iter().chain(3..=9) {
            for n in EXTREMES.into_iter().chain(15..=17) {
                check_one(m, n);
            }
        }
        let mut rng = Rng::new(54);
        for _ in 0..20_000 {
            let m = match rng.below(3) {
                0 => rng.below(10),
                1 => rng.next_u64() >> rng.below(64),
                _ => rng.next_u64(),
            };
            let n = match rng.below(3) {
                0 => rng.below(140),
                1 => rng.next_u64() >> rng.below(64),
                _ => rng.next_u64(),
            };
            check_one(m, n);
        }
    }

    #[test]
    fn messages_name_the_count_and_why() {
        let msg = |m: &str, n: &str| GameSize::parse(m, n).unwrap_err().to_string();
        assert_eq!(
            msg("6", "3074457345618258603"),
            "Kalah(6,3074457345618258603) is out of range: 2 x 6 x 3074457345618258603 seeds is far more than the 255 a board holds"
        );
        assert_eq!(
            msg("2", "4611686018427387908"),
            "Kalah(2,4611686018427387908) is out of range: 2 x 2 x 4611686018427387908 seeds is far more than the 255 a board holds"
        );
        assert_eq!(
            msg("8", "16"),
            "Kalah(8,16) is out of range: 2 x 8 x 16 = 256 seeds, more than the 255 a board holds"
        );
        assert_eq!(
            msg("6", "0"),
            "Kalah(6,0) is out of range: seeds 0 is not at least 1 (seeds a house at the start)"
        );
        assert_eq!(
            msg("9", "0"),
            "Kalah(9,0) is out of range: pits 9 is not in 1..=8 (houses a side)"
        );
        assert_eq!(
            msg("99999999999999999999", "4"),
            "Kalah(99999999999999999999,4) is out of range: pits 99999999999999999999 is not in 1..=8 (houses a side)"
        );
        assert_eq!(
            msg("1", "99999999999999999999"),
            "Kalah(1,99999999999999999999) is out of range: 2 x 1 x 99999999999999999999 seeds is far more than the 255 a board holds"
        );
        assert_eq!(
            msg("four", "4"),
            "pits 'four' is not a whole number of houses a side"
        );
        assert_eq!(
            msg("4", "-1"),
            "seeds '-1' is not a whole number of seeds a house"
        );
        assert_eq!(
            msg("4", ""),
            "seeds '' is not a whole number of seeds a house"
        );
        assert_eq!(
            msg("4", "+3"),
            "seeds '+3' is not a whole number of seeds a house"
        );
        assert_eq!(
            GameSize::parse(" 6", "4 ").map(|s| s.to_string()),
            Ok("Kalah(6,4)".into())
        );
        assert_eq!(GameSize::new(1, 127).map(|s| s.total_seeds()), Ok(254));
        assert_eq!(GameSize::new(8, 15).map(|s| s.total_seeds()), Ok(240));
    }
}
