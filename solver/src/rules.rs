//! The rule set: every rule that changes a solved value is a named option.
//!
//! The defaults are the standard modern game (`docs/RULES.md`): a last
//! seed in an empty own house captures only when the facing house holds
//! seeds, and the game ends as soon as either side is empty, each player
//! sweeping their own houses into their own store.

use std::fmt;
use std::str::FromStr;

/// Largest number of houses a side may have.
pub const MAX_PITS: usize = 8;

/// Largest number of seeds in a whole game (stores and houses together).
pub const MAX_SEEDS: usize = 255;

/// What a last seed sown into an empty own house does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CaptureRule {
    /// Capture only when the facing opponent house holds seeds (standard).
    #[default]
    Standard,
    /// Always capture: the last seed goes to the store even when the facing
    /// house is empty (Irving, Donkers & Uiterwijk 2000).
    Empty,
}

/// When the game ends and who gets the seeds left in the houses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EndRule {
    /// The game ends after any move that leaves a side empty; each player
    /// sweeps their own houses into their own store (standard).
    #[default]
    Sweep,
    /// The game ends only when the player to move has no seeds; the seeds
    /// left go to their owner.
    Delayed,
    /// The game ends after any move that leaves a side empty; the seeds
    /// left in houses count for nobody.
    NoSweep,
}

/// A complete rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    pub capture: CaptureRule,
    pub end: EndRule,
}

impl Rules {
    /// The standard rules.
    pub const STANDARD: Rules = Rules {
        capture: CaptureRule::Standard,
        end: EndRule::Sweep,
    };

    /// The rules of Irving, Donkers & Uiterwijk (2000): empty capture,
    /// otherwise standard.
    pub const EMPTY_CAPTURE: Rules = Rules {
        capture: CaptureRule::Empty,
        end: EndRule::Sweep,
    };

    /// A stable one-byte code, used in table headers and file names.
    /// Frozen: bits 0..1 capture rule, bits 2..3 end rule.
    pub const fn code(self) -> u8 {
        let c = match self.capture {
            CaptureRule::Standard => 0,
            CaptureRule::Empty => 1,
        };
        let e = match self.end {
            EndRule::Sweep => 0,
            EndRule::Delayed => 1,
            EndRule::NoSweep => 2,
        };
        c | (e << 2)
    }

    /// Inverse of [`Rules::code`]; `None` for a code no rule set has.
    pub const fn from_code(code: u8) -> Option<Rules> {
        let capture = match code & 3 {
            0 => CaptureRule::Standard,
            1 => CaptureRule::Empty,
            _ => return None,
        };
        let end = match code >> 2 {
            0 => EndRule::Sweep,
            1 => EndRule::Delayed,
            2 => EndRule::NoSweep,
            _ => return None,
        };
        Some(Rules { capture, end })
    }

    /// Short name used in file names and reports, e.g. `ec`, `std-delayed`.
    pub fn slug(self) -> String {
        let c = match self.capture {
            CaptureRule::Standard => "std",
            CaptureRule::Empty => "ec",
        };
        match self.end {
            EndRule::Sweep => c.to_string(),
            EndRule::Delayed => format!("{c}-delayed"),
            EndRule::NoSweep => format!("{c}-nosweep"),
        }
    }

    /// Inverse of [`Rules::slug`]; `None` for a name no rule set has.
    pub fn from_slug(slug: &str) -> Option<Rules> {
        (0..16u8)
            .filter_map(Rules::from_code)
            .find(|r| r.slug() == slug)
    }
}

impl fmt::Display for CaptureRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureRule::Standard => "standard capture",
            CaptureRule::Empty => "empty capture",
        })
    }
}

impl fmt::Display for EndRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndRule::Sweep => "sweep",
            EndRule::Delayed => "delayed",
            EndRule::NoSweep => "no-sweep",
        })
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, end: {}", self.capture, self.end)
    }
}

impl FromStr for EndRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sweep" | "standard" => Ok(EndRule::Sweep),
            "delayed" => Ok(EndRule::Delayed),
            "no-sweep" | "nosweep" => Ok(EndRule::NoSweep),
            _ => Err(format!(
                "unknown end rule '{s}': expected sweep, delayed or no-sweep"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            for end in [EndRule::Sweep, EndRule::Delayed, EndRule::NoSweep] {
                let r = Rules { capture, end };
                assert_eq!(Rules::from_code(r.code()), Some(r));
                assert_eq!(Rules::from_slug(&r.slug()), Some(r));
                assert!(seen.insert(r.code()));
                assert!(seen.len() <= 6);
            }
        }
        assert_eq!(Rules::from_code(3), None);
        assert_eq!(Rules::from_code(12), None);
        assert_eq!(Rules::default(), Rules::STANDARD);
    }
}
