//! The names of the files in a table directory, read back: which board
//! size and rule set each belongs to, and what it is. The one reader of
//! the names the table code writes ([`file_name`], [`stamp::SUFFIX`],
//! temporary names, [`lock_path`]): the builder uses it to find a dead
//! build's temporary files, `kalah tables` to list and clean a directory.

use super::builder::lock_path;
use super::format::file_name;
use super::stamp;
use crate::rules::{CaptureRule, EndRule, Rules};
use std::path::Path;

/// Every rule set, in a fixed order (standard capture first, then by end
/// rule).
pub const ALL_RULES: [Rules; 6] = {
    let captures = [CaptureRule::Standard, CaptureRule::Empty];
    let ends = [EndRule::Sweep, EndRule::Delayed, EndRule::NoSweep];
    let mut out = [Rules::STANDARD; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = Rules {
            capture: captures[i / 3],
            end: ends[i % 3],
        };
        i += 1;
    }
    out
};

/// What a file of a table directory is, with the set (houses, rule set)
/// it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFile {
    /// A tier file (`kalah-m6-ec-k20.tbl`): houses, rule set, tier.
    Tier(usize, Rules, u32),
    /// The stamp that a tier's checksum was checked (`<tier file>.checked`).
    Stamp(usize, Rules, u32),
    /// A file being written, or left by a build that was killed: a tier
    /// file's or a stamp's name followed by `.tmp` or `.tmp.<anything>`.
    Temp(usize, Rules),
    /// The build lock of the set (`kalah-m6-ec.lock`); it stays.
    Lock(usize, Rules),
}

impl TableFile {
    /// Reads a file name written by the table code; `None` for anything
    /// else (a name the table code would not write is never taken for one
    /// of its files: `kalah-m6-ec-k03.tbl`, `notes.txt`).
    pub fn parse(name: &str) -> Option<TableFile> {
        let rest = name.strip_prefix("kalah-m")?;
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let pits: usize = rest[..digits].parse().ok()?;
        let rest = rest[digits..].strip_prefix('-')?;
        for rules in ALL_RULES {
            let Some(after) = rest.strip_prefix(&rules.slug()) else {
                continue;
            };
            // "ec" is a prefix of "ec-delayed": the slug must end here.
            if let Some(tier) = after.strip_prefix("-k") {
                let end = tier
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(tier.len());
                let Ok(k) = tier[..end].parse::<u32>() else {
                    continue;
                };
                let Some(tail) = name.strip_prefix(&file_name(pits, rules, k)) else {
                    continue;
                };
                let unstamped = tail.strip_prefix(stamp::SUFFIX);
                let temp = |t: &str| t == ".tmp" || t.starts_with(".tmp.");
                return match (tail, unstamped) {
                    ("", _) => Some(TableFile::Tier(pits, rules, k)),
                    (_, Some("")) => Some(TableFile::Stamp(pits, rules, k)),
                    (_, Some(t)) | (t, None) if temp(t) => Some(TableFile::Temp(pits, rules)),
                    _ => None,
                };
            } else if after == ".lock" && lock_path(Path::new(""), pits, rules) == Path::new(name) {
                return Some(TableFile::Lock(pits, rules));
            }
        }
        None
    }

    /// The board size and rule set.
    pub fn set(self) -> (usize, Rules) {
        match self {
            TableFile::Tier(p, r, _)
            | TableFile::Stamp(p, r, _)
            | TableFile::Temp(p, r)
            | TableFile::Lock(p, r) => (p, r),
        }
    }

    /// The tier a tier file or a stamp is of.
    pub fn tier(self) -> Option<u32> {
        match self {
            TableFile::Tier(_, _, k) | TableFile::Stamp(_, _, k) => Some(k),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_read_back_exactly() {
        let mut codes: Vec<u8> = ALL_RULES.iter().map(|r| r.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), 6);
        for rules in ALL_RULES {
            for pits in [1, 6, 8] {
                for k in [0, 7, 22, 127] {
                    let name = file_name(pits, rules, k);
                    assert_eq!(
                        TableFile::parse(&name),
                        Some(TableFile::Tier(pits, rules, k))
                    );
                    let tmp = format!("{name}.tmp.123.4");
                    assert_eq!(TableFile::parse(&tmp), Some(TableFile::Temp(pits, rules)));
                    let old_tmp = format!("{name}.tmp");
                    assert_eq!(
                        TableFile::parse(&old_tmp),
                        Some(TableFile::Temp(pits, rules))
                    );
                    let st = format!("{name}{}", stamp::SUFFIX);
                    assert_eq!(
                        TableFile::parse(&st),
                        Some(TableFile::Stamp(pits, rules, k))
                    );
                    let st_tmp = format!("{st}.tmp.9.1");
                    assert_eq!(
                        TableFile::parse(&st_tmp),
                        Some(TableFile::Temp(pits, rules))
                    );
                }
            }
            let lock = lock_path(Path::new(""), 6, rules);
            let lock = lock.to_str().unwrap();
            assert_eq!(TableFile::parse(lock), Some(TableFile::Lock(6, rules)));
        }
        // Nothing else is taken for a table file: a clean never touches it.
        for other in [
            "README.md",
            "kalah-m6-xx-k3.tbl",
            "kalah-m6-ec-k3.tbl.bak",
            "kalah-m6-ec-k3.tbl.tmpx",
            "kalah-m-ec-k3.tbl",
            "kalah-m6-ec-k03.tbl",
            "my-kalah-m6-ec-k3.tbl",
            "kalah-m6-ec.lock2",
        ] {
            assert_eq!(TableFile::parse(other), None, "{other}");
        }
    }
}
