//! A proof of a game's value that others can check: the facts a solve rests
//! on, the top of the tree that combines them, and the checker.
//!
//! A long solve (`kalah-cluster solve`) ends in facts about boards, each the
//! verdict of one unit of work: `value(board) >= b` or `value(board) <= b`
//! (values for the player to move, stores excluded, as
//! [`kalah_solver::Solver::solve_board`]). A certificate lists the facts
//! the result needs and the boards above them whose children combine them
//! (the *expanded* boards), and claims bounds `lower <= value <= upper` on
//! its start (equal bounds: the value): the game's start, or any position
//! of the game (the header's `start`, e.g. the position after one first
//! turn). Checking it has two parts:
//!
//! 1. **Logic** ([`Certificate::check_logic`]): from the start, negamax over
//!    the expanded boards (each child sown by the rules, an extra turn
//!    keeping the mover), with the facts at the leaves and finished games
//!    scored by the end rule, must prove both claimed bounds. Nothing of
//!    the solver's search is used: only the rules, sowing and the facts.
//!    Facts that contradict each other (a board's lower bound above its
//!    upper) fail the check, naming both units.
//! 2. **Facts** (`kalah certify --sample N`, `--all`): each fact checked is
//!    searched again from nothing, by a fresh solver in the checking
//!    process, and must agree; a disagreement names the unit.
//!
//! Where the value has the parity of the seeds on the board (every seed
//! ends in a store: the sweep and delayed end rules), a bound is rounded
//! to that parity, as the solve's MTD(f) steps by 2.
//!
//! # File format
//!
//! Gzip of JSON lines. The first is the [`Header`]:
//! `{"kalah_certificate":V,"pits":M,"seeds":N,"rules":SLUG,"start":POS,
//! "lower":L,"upper":U,"perfect_game":[H,...],"facts":F,"expanded":E}`,
//! fields in that order; `start` and `perfect_game` may be absent. `L` and
//! `U` bound the final store difference for the first player (South,
//! stores and the end rule's sweep counted) from the start.
//!
//! * `V` = 1 ([`FORMAT`]): the claim is about the game's start; no
//!   `start`. Every certificate written before format 2 existed; still
//!   written, byte for byte as before, for a solve from the start.
//! * `V` = 2 ([`FORMAT_FROM`]): `start` is the position the claim is about,
//!   in the text form of docs/RULES.md (`2m+2` counts in sowing order, then
//!   `S` or `N`; seeds in the stores, either side to move), a position of
//!   `M` houses and `2MN` seeds in all (e.g. the position after one first
//!   turn). A reader of format 1 alone refuses it by its version rather
//!   than check the game's start against facts about another position.
//!
//! When North moves at the start, the board's value for the mover is the
//! negation of South's less North's store lead: `-U - (n - s) <= board <=
//! -L - (n - s)` for stores `s` (South) and `n` (North) ([`board_bounds`]).
//! Each line after the header is
//! either a fact `{"board":HEX,"lower":L,"upper":U,"unit":NAME}` (`lower`
//! or `upper` may be absent; HEX is the packed board, 32 hex digits, as
//! the work directory's records write it; NAME the unit record it comes
//! from) or an expanded board `{"expand":HEX}`. The header counts both,
//! so a truncated file is refused.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use kalah_solver::{Board, Game, Position, Rules, Side};
use serde::{Deserialize, Serialize};

mod facts;
pub mod packed_hex;
mod prover;
#[cfg(test)]
mod tests;

pub use facts::FactTable;
pub use prover::{Proof, Prover};

/// The format of a certificate about the game's start (no `start` field):
/// every certificate before [`FORMAT_FROM`], and those this program
/// writes for a solve from the start.
pub const FORMAT: u32 = 1;

/// The format of a certificate about another position (its header's
/// `start`); this program reads both.
pub const FORMAT_FROM: u32 = 2;

/// What a certificate claims, about which game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT`], or [`FORMAT_FROM`] with a `start`.
    pub kalah_certificate: u32,
    /// Houses a side.
    pub pits: usize,
    /// Seeds a house at the start.
    pub seeds: usize,
    /// The rule set's slug (`Rules::slug`).
    pub rules: String,
    /// The position the claim is about, in the text form (docs/RULES.md);
    /// `None`: the game's start (certificates written before this field
    /// existed have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The claim: `lower <= value <= upper` for the first player (South):
    /// the final store difference from [`Header::start`], the seeds already
    /// in the stores counted.
    pub lower: i32,
    pub upper: i32,
    /// A perfect game (houses 1-based, one a sowing) that ends at the
    /// value, when the claim is exact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perfect_game: Vec<usize>,
    /// Facts and expanded boards that follow.
    pub facts: usize,
    pub expanded: usize,
}

/// One fact: bounds on a board's value, from one unit of work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    #[serde(with = "packed_hex")]
    pub board: Board,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<i32>,
    /// The unit record it comes from (a work directory's record name, or
    /// `tables` for a board of the endgame tables).
    pub unit: String,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Expand {
        #[serde(with = "packed_hex")]
        expand: Board,
    },
    Fact(Fact),
}

/// A proof: what it claims, its facts, the boards that combine them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    pub header: Header,
    pub facts: Vec<Fact>,
    pub expanded: Vec<Board>,
}

/// Why a certificate was refused.
#[derive(Debug)]
pub enum CertificateError {
    /// The file cannot be read or written.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file is not a certificate of this format, or is cut short.
    Format { path: PathBuf, error: String },
    /// The logic does not hold (what, naming units where it can).
    Logic(String),
}

impl std::fmt::Display for CertificateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CertificateError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            CertificateError::Format { path, error } => write!(f, "{}: {error}", path.display()),
            CertificateError::Logic(e) => write!(f, "the certificate's logic fails: {e}"),
        }
    }
}

impl std::error::Error for CertificateError {}

/// What the logic check established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogicReport {
    /// Boards the check evaluated.
    pub boards: usize,
    /// Facts it used (a check may prove the claim from fewer facts than
    /// the certificate lists).
    pub facts_used: usize,
}

impl Certificate {
    /// The game, rules and start position the certificate is about: the
    /// header's `start`, or the game's start when it has none.
    ///
    /// # Errors
    /// Unknown rules, a size no game has, a `start` that is not a position
    /// of this game (not a position, other houses, other seeds in all).
    pub fn game(&self) -> Result<(Game, Position), String> {
        let h = &self.header;
        let rules =
            Rules::from_slug(&h.rules).ok_or_else(|| format!("unknown rules {:?}", h.rules))?;
        let initial = Position::start(h.pits, h.seeds)
            .map_err(|e| format!("Kalah({},{}): {e}", h.pits, h.seeds))?;
        let start = match &h.start {
            None => initial,
            Some(text) => {
                let pos: Position = text
                    .parse()
                    .map_err(|e| format!("start {text:?} is not a position: {e}"))?;
                if pos.pits() != h.pits || pos.total_seeds() != initial.total_seeds() {
                    return Err(format!(
                        "start {text:?} is not a position of Kalah({},{}): {} houses a side, {} seeds in all",
                        h.pits,
                        h.seeds,
                        pos.pits(),
                        pos.total_seeds()
                    ));
                }
                pos
            }
        };
        Ok((Game::new(h.pits, rules), start))
    }

    /// Writes the certificate to `path` (gzip, through a temporary name
    /// renamed into place).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), CertificateError> {
        let io = |error| CertificateError::Io {
            path: path.to_path_buf(),
            error,
        };
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut line = |text: String| {
            gz.write_all(text.as_bytes())
                .and_then(|()| gz.write_all(b"\n"))
        };
        line(serde_json::to_string(&self.header).expect("plain struct")).map_err(io)?;
        for f in &self.facts {
            line(serde_json::to_string(&Line::Fact(f.clone())).expect("plain struct"))
                .map_err(io)?;
        }
        for &b in &self.expanded {
            line(serde_json::to_string(&Line::Expand { expand: b }).expect("plain struct"))
                .map_err(io)?;
        }
        let bytes = gz.finish().map_err(io)?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        File::create(&tmp)
            .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(io)
    }

    /// Reads a certificate.
    ///
    /// # Errors
    /// A file that cannot be read, is not gzip of this format, or holds
    /// fewer or more lines than its header counts.
    pub fn read(path: &Path) -> Result<Certificate, CertificateError> {
        let format = |error: String| CertificateError::Format {
            path: path.to_path_buf(),
            error,
        };
        let file = File::open(path).map_err(|error| CertificateError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let mut lines = BufReader::new(MultiGzDecoder::new(file)).lines();
        let first = lines
            .next()
            .ok_or_else(|| format("empty: no header".into()))?
            .map_err(|e| format(e.to_string()))?;
        let header: Header = serde_json::from_str(&first)
            .map_err(|e| format(format!("line 1 is not a certificate header: {e}")))?;
        match (header.kalah_certificate, &header.start) {
            (FORMAT, None) | (FORMAT_FROM, Some(_)) => {}
            (FORMAT, Some(_)) => {
                return Err(format(format!(
                    "a certificate of format {FORMAT} with a start (format {FORMAT_FROM} has one)"
                )))
            }
            (FORMAT_FROM, None) => {
                return Err(format(format!(
                    "a certificate of format {FORMAT_FROM} without its start"
                )))
            }
            (v, _) => {
                return Err(format(format!(
                    "certificate format {v} (this program reads {FORMAT} and {FORMAT_FROM})"
                )))
            }
        }
        let mut facts = Vec::with_capacity(header.facts);
        let mut expanded = Vec::with_capacity(header.expanded);
        for (i, line) in lines.enumerate() {
            let line = line.map_err(|e| format(format!("after line {}: {e}", i + 1)))?;
            match serde_json::from_str::<Line>(&line)
                .map_err(|e| format(format!("line {}: {e}", i + 2)))?
            {
                Line::Fact(f) => facts.push(f),
                Line::Expand { expand } => expanded.push(expand),
            }
        }
        if facts.len() != header.facts || expanded.len() != header.expanded {
            return Err(format(format!(
                "the header counts {} facts and {} expanded boards; the file holds {} and {} (cut short or added to)",
                header.facts,
                header.expanded,
                facts.len(),
                expanded.len()
            )));
        }
        Ok(Certificate {
            header,
            facts,
            expanded,
        })
    }

    /// Checks the logic: the expanded boards and the facts prove the
    /// claimed bounds on the start, and no two facts contradict each
    /// other.
    ///
    /// # Errors
    /// What does not hold, naming the units where a contradiction is
    /// theirs.
    pub fn check_logic(&self) -> Result<LogicReport, CertificateError> {
        let (game, start) = self.game().map_err(CertificateError::Logic)?;
        let mut table = FactTable::default();
        for f in &self.facts {
            table.add(f).map_err(CertificateError::Logic)?;
        }
        let expanded: HashSet<Board> = self.expanded.iter().copied().collect();
        let mut prover = Prover::new(&game, &table, |b, _| expanded.contains(&b));
        let root = start.board();
        // The claim is South's; the prover's values are the board's, for
        // the side to move there, stores excluded.
        let (claim_lower, claim_upper) = (self.header.lower, self.header.upper);
        if claim_lower > claim_upper {
            return Err(CertificateError::Logic(format!(
                "it claims {claim_lower} <= value <= {claim_upper}"
            )));
        }
        let (lower, upper) = board_bounds(&start, claim_lower, claim_upper);
        if !prover.at_least(root, lower, 0) {
            return Err(CertificateError::Logic(format!(
                "its facts do not prove value >= {claim_lower} for the start"
            )));
        }
        if !prover.at_most(root, upper, 0) {
            return Err(CertificateError::Logic(format!(
                "its facts do not prove value <= {claim_upper} for the start"
            )));
        }
        let proof = prover.extract(root, lower, upper);
        Ok(LogicReport {
            boards: prover.boards_evaluated(),
            facts_used: proof.facts.len(),
        })
    }
}

/// Bounds `(lower, upper)` on the first player's (South's) final store
/// difference from `start` as bounds on its board's value for the side to
/// move there, stores excluded (the prover's values).
pub fn board_bounds(start: &Position, lower: i32, upper: i32) -> (i32, i32) {
    let lead = start.store_difference();
    if start.to_move() == Side::South {
        (lower - lead, upper - lead)
    } else {
        (-upper - lead, -lower - lead)
    }
}

/// The inverse of [`board_bounds`]: bounds on `start`'s board value for
/// the side to move as bounds on South's final store difference.
pub fn south_bounds(start: &Position, lower: i32, upper: i32) -> (i32, i32) {
    let lead = start.store_difference();
    if start.to_move() == Side::South {
        (lower + lead, upper + lead)
    } else {
        (-(upper + lead), -(lower + lead))
    }
}
