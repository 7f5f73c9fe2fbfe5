//! A work unit and its result record.
//!
//! A unit asks one question of one board: is its value (for the player to
//! move, stores excluded, as [`kalah_solver::Solver::solve_board`]) at
//! least `beta`? That is one null-window test, the step MTD(f) is made of.
//! A unit with [`EXACT`] as its bound asks for the value itself (the first
//! guess of the top tree). A worker answers with a [`Verdict`]; the
//! coordinator stores it as a [`UnitRecord`], one JSON file a unit
//! ([`crate::store`]).

use kalah::certificate::packed_hex;
use kalah_solver::Board;
use serde::{Deserialize, Serialize};

use crate::error::ClusterError;

/// The bound of a unit asking for the exact value instead of a test.
pub const EXACT: i32 = i32::MIN;

/// What a unit asks: `value(board) >= beta`, or the value when `beta` is
/// [`EXACT`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct UnitKey {
    pub board: Board,
    pub beta: i32,
}

impl UnitKey {
    /// The file stem of its record: the packed board in 32 hex digits, the
    /// bound (`x` for an exact unit).
    pub fn stem(&self) -> String {
        let board = board_text(self.board);
        if self.beta == EXACT {
            format!("{board}_x")
        } else {
            format!("{board}_{}", self.beta)
        }
    }
}

/// A worker's answer to a unit.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Verdict {
    /// `value >= beta`.
    AtLeast,
    /// `value < beta`.
    Below,
    /// The exact value (a unit with [`EXACT`] as its bound).
    Exact(i32),
    /// The unit ran past its node budget and was stopped: the coordinator
    /// searches this board's children as units instead.
    Split,
}

/// Sowings below a unit's board whose bounds its worker reports after
/// the unit ([`Known`]): the board, its children and grandchildren. A
/// split unit's children are the coordinator's next units, and their
/// children the units after a second split.
pub const KNOWN_PLIES: u32 = 2;

/// What a worker's transposition table held on one board's value after a
/// unit: `lower <= value <= upper` (`None`: that side unknown), the value
/// for the player to move, stores excluded. A table holds only facts of
/// the game, whatever searches put them there, so these are as true as a
/// verdict: a split or stopped unit's worker reports the children it did
/// decide, and an answered test the bound its search found, which may be
/// tighter than the test asked.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Known {
    /// The board, packed, 32 hex digits (as [`UnitRecord::board`]).
    #[serde(with = "packed_hex")]
    pub board: Board,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<i32>,
}

impl Known {
    /// Whether some value lies in the bounds: `lower <= upper`, and both
    /// within what the mover can still gain or lose (the seeds on the
    /// board).
    pub fn possible(&self) -> bool {
        let s = self.board.seeds() as i32;
        let lower = self.lower.unwrap_or(-s);
        let upper = self.upper.unwrap_or(s);
        -s <= lower && lower <= upper && upper <= s
    }
}

/// The first of `known` that no value of its board can have (a bound
/// with no value between its sides, [`Known::possible`]), described:
/// `None` when every one is possible.
pub fn impossible_known(known: &[Known]) -> Option<String> {
    known.iter().find(|k| !k.possible()).map(|k| {
        format!(
            "known bounds {:?}..{:?} of board {}: no value of a board of {} seeds lies there",
            k.lower,
            k.upper,
            board_text(k.board),
            k.board.seeds()
        )
    })
}

/// A board as its records write it: its packed bits in 32 hex digits.
fn board_text(board: Board) -> String {
    packed_hex::text(board)
}

/// A board read back from [`board_text`].
fn board_from_text(text: &str) -> Result<Board, String> {
    packed_hex::parse(text)
}

/// Why the coordinator stopped a unit before its answer (a record of
/// `cancelled.jsonl`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The search no longer needed it: the node it was for was decided
    /// without it (a speculative unit whose node's first child held, an
    /// all node's child after a sibling decided the node, a root test
    /// planned ahead that the pending one made unnecessary).
    Unneeded,
    /// Still wanted, but speculative: its worker went to a unit the
    /// search needed ([`crate::coordinator::Policy::preempt`]).
    Preempted,
    /// The solve had its answer and perfect game.
    Solved,
    /// The run was stopped (Ctrl-C, SIGTERM): the unit is asked again
    /// when the run resumes.
    Interrupted,
}

/// The game a unit belongs to: houses, seeds a house at the start, rules,
/// and the endgame tables its worker probed. A record is valid for the
/// same houses, seeds and rules ([`RunIdentity::same_game`]); the table
/// depth changes no value, only the cost, so a run may go on over deeper
/// tables than its first records were computed with (each record names
/// its own).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RunIdentity {
    /// Houses a side.
    pub pits: usize,
    /// Seeds a house at the start of the game the run solves.
    pub seeds: usize,
    /// The rule set's slug (`Rules::slug`).
    pub rules: String,
    /// The endgame tables the workers probe: boards of up to this many seeds.
    pub table_seeds: u32,
}

impl RunIdentity {
    /// How `other` differs from this game (houses, seeds and rules; the
    /// table depth aside), both sides named: `None` when it is the same
    /// game.
    pub fn game_differs(&self, other: &RunIdentity) -> Option<String> {
        if self.pits == other.pits && self.seeds == other.seeds && self.rules == other.rules {
            return None;
        }
        Some(format!(
            "recorded for Kalah({},{}), rules {}; this run is Kalah({},{}), rules {}",
            self.pits, self.seeds, self.rules, other.pits, other.seeds, other.rules
        ))
    }
}

/// One unit's result, as stored in `units/<stem>.json`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct UnitRecord {
    #[serde(flatten)]
    pub identity: RunIdentity,
    /// The board, packed (see `kalah_solver::board`), 32 hex digits.
    pub board: String,
    /// The houses, the mover's then the opponent's, for people.
    pub houses: String,
    /// The bound tested; `null` for an exact unit.
    pub beta: Option<i32>,
    pub verdict: Verdict,
    /// Search nodes the worker spent on it.
    pub nodes: u64,
    /// Seconds the worker spent on it.
    pub seconds: f64,
    /// The worker (MPI rank) that solved it.
    pub worker: usize,
    /// Issue order over the run (and its resumptions).
    pub seq: u64,
    /// The number of results the coordinator had when it issued the unit.
    pub issued_after: u64,
    /// What it waited on: the `seq` of the unit whose answer made the top
    /// tree need this one (it was needed since that answer came); `None`
    /// when it was needed from the start of the run, or in records written
    /// before this field existed.
    #[serde(default)]
    pub waited_on: Option<u64>,
    /// Seconds since the coordinator started when it was issued and when
    /// its answer came.
    pub issued_at: f64,
    pub answered_at: f64,
    /// Solved by `kalah-lab simulate --fill` (a fresh solver in the
    /// simulating process, for a schedule the recorded run never took),
    /// not by a worker of the run: `worker`, `seq`, `issued_after`, the
    /// times and `waited_on` are then 0 or `null`. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filled: bool,
    /// Why it was stopped unanswered (records of `cancelled.jsonl` written
    /// since this field exists; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    /// Handed out as speculation: the search did not need it when it was
    /// issued. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub speculative: bool,
    /// Bounds its worker's table held afterwards on boards at most
    /// [`KNOWN_PLIES`] sowings below it, this unit's own board included
    /// (absent when none, and in records written before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<Known>,
    /// The record's checksum ([`UnitRecord::seal`]): XXH64 of the record
    /// written as compact JSON with this field empty, 16 hex digits. A
    /// record whose bytes changed after it was written (a torn write, a
    /// flipped bit, an edit) fails it and is refused.
    #[serde(default)]
    pub check: String,
}

/// The houses of `board` with `pits` a side: mover's houses 1..m, then the
/// opponent's, space separated, a `|` between the sides.
pub fn houses_text(board: Board, pits: usize) -> String {
    use std::fmt::Write;
    // Written in place: the coordinator makes one for every answer.
    let mut out = String::with_capacity(8 * pits + 2);
    for i in 0..pits {
        let gap = if i == 0 { "" } else { " " };
        write!(out, "{gap}{}", board.own_house(i)).expect("a String takes any text");
    }
    out.push_str(" |");
    for i in 0..pits {
        write!(out, " {}", board.opp_house(i)).expect("a String takes any text");
    }
    out
}

impl UnitRecord {
    /// The record of `key` answered `verdict` (`None`: split at the budget
    /// or stopped, stored as [`Verdict::Split`]) after `nodes` and
    /// `seconds`; the issue fields (`worker`, `seq`, `issued_after`,
    /// `waited_on`, the times) zero and `filled` false, for the caller to
    /// set. [`UnitRecord::key`] reads the key back.
    pub fn answer(
        identity: &RunIdentity,
        key: &UnitKey,
        verdict: Option<Verdict>,
        nodes: u64,
        seconds: f64,
    ) -> UnitRecord {
        UnitRecord {
            identity: identity.clone(),
            board: board_text(key.board),
            houses: houses_text(key.board, identity.pits),
            beta: (key.beta != EXACT).then_some(key.beta),
            verdict: verdict.unwrap_or(Verdict::Split),
            nodes,
            seconds,
            worker: 0,
            seq: 0,
            issued_after: 0,
            waited_on: None,
            issued_at: 0.0,
            answered_at: 0.0,
            filled: false,
            stopped: None,
            speculative: false,
            known: Vec::new(),
            check: String::new(),
        }
    }

    /// The checksum of this record: XXH64 (seed 0) of its compact JSON
    /// with `check` empty, as 16 lowercase hex digits. Every field is in
    /// it, the game's identity among them, so a record moved to another
    /// run's directory still fails that run's identity check, and one
    /// edited by hand fails this.
    pub fn checksum(&self) -> String {
        let bare = UnitRecord {
            check: String::new(),
            ..self.clone()
        };
        let text = serde_json::to_string(&bare).expect("plain struct");
        format!(
            "{:016x}",
            kalah_solver::table::format::xxh64(text.as_bytes())
        )
    }

    /// [`UnitRecord::check`] of a record read back from storage, after its
    /// checksum: one whose bytes changed after [`UnitRecord::seal`] (or that
    /// was never sealed) is refused.
    ///
    /// # Errors
    /// No checksum, a checksum that does not match, or what
    /// [`UnitRecord::check`] refuses.
    pub fn verify(&self, identity: &RunIdentity) -> Result<UnitKey, ClusterError> {
        if self.check.is_empty() {
            return Err(self.refused("no checksum".into()));
        }
        let sum = self.checksum();
        if self.check != sum {
            return Err(self.refused(format!(
                "checksum {} does not match its contents ({sum}): changed after it was written",
                self.check
            )));
        }
        self.check(identity)
    }

    /// The unit this record names (its file stem, from its text fields as
    /// they are).
    fn unit_name(&self) -> String {
        match self.beta {
            Some(beta) => format!("{}_{beta}", self.board),
            None => format!("{}_x", self.board),
        }
    }

    /// The record refused for `problem`, naming its unit.
    fn refused(&self, problem: String) -> ClusterError {
        ClusterError::Record {
            unit: self.unit_name(),
            problem,
        }
    }

    /// The record with its checksum set: what the work directory stores.
    pub fn seal(mut self) -> UnitRecord {
        self.check = self.checksum();
        self
    }

    /// The question this record answers, read back from its text fields.
    ///
    /// # Errors
    /// A board that is not 32 hex digits.
    pub fn key(&self) -> Result<UnitKey, ClusterError> {
        Ok(UnitKey {
            board: board_from_text(&self.board).map_err(|e| self.refused(e))?,
            beta: self.beta.unwrap_or(EXACT),
        })
    }

    /// Whether the record is of `identity`'s game and fits its own key (an
    /// exact verdict only for an exact unit, a test verdict only for a
    /// test). [`UnitRecord::verify`] checks a stored record's checksum too.
    ///
    /// # Errors
    /// What does not match.
    pub fn check(&self, identity: &RunIdentity) -> Result<UnitKey, ClusterError> {
        if let Some(problem) = self.identity.game_differs(identity) {
            return Err(self.refused(problem));
        }
        let key = self.key()?;
        if let Some(problem) = impossible_known(&self.known) {
            return Err(self.refused(problem));
        }
        let exact = key.beta == EXACT;
        match (self.verdict, exact) {
            (Verdict::Exact(_), false) => Err(self.refused("an exact verdict for a test".into())),
            (Verdict::AtLeast | Verdict::Below, true) => {
                Err(self.refused("a test verdict for an exact unit".into()))
            }
            _ => Ok(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of a unit from the emulation: its board's packed hex
    /// and its houses, the mover's then the opponent's.
    #[test]
    fn houses_read_as_the_board() {
        let board = board_from_text("00000108090000000000000000080201").unwrap();
        assert_eq!(houses_text(board, 6), "1 2 8 0 0 0 | 0 0 0 9 8 1");
        assert_eq!(board_text(board), "00000108090000000000000000080201");
    }

    /// Kalah(6,4) empty capture's identity, and a test of its start.
    fn start_test() -> (RunIdentity, UnitKey) {
        let identity = RunIdentity {
            pits: 6,
            seeds: 4,
            rules: "ec".into(),
            table_seeds: 20,
        };
        let key = UnitKey {
            board: Board::from_packed(0x0404_0404_0404_0000_0404_0404_0404),
            beta: 2,
        };
        (identity, key)
    }

    #[test]
    fn a_stopped_record_says_why_and_an_older_one_reads_without() {
        let (identity, key) = start_test();
        let record = UnitRecord {
            stopped: Some(Stop::Preempted),
            ..UnitRecord::answer(&identity, &key, None, 1000, 0.5)
        };
        let line = serde_json::to_string(&record).unwrap();
        assert!(line.contains(r#""stopped":"preempted""#), "{line}");
        let back: UnitRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);
        let older = line.replace(r#","stopped":"preempted""#, "");
        let back: UnitRecord = serde_json::from_str(&older).unwrap();
        assert_eq!(back.stopped, None);
        assert_eq!(back.key().unwrap(), key);
    }

    #[test]
    fn known_bounds_read_back_and_impossible_ones_are_refused() {
        let (identity, key) = start_test();
        let child = Board::from_packed(0x0404_0404_0505_0000_0404_0404_0401);
        let mut record = UnitRecord {
            known: vec![
                Known {
                    board: key.board,
                    lower: Some(3),
                    upper: None,
                },
                Known {
                    board: child,
                    lower: Some(-4),
                    upper: Some(-2),
                },
            ],
            ..UnitRecord::answer(&identity, &key, Some(Verdict::AtLeast), 1000, 0.5)
        }
        .seal();
        let line = serde_json::to_string(&record).unwrap();
        let back: UnitRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.verify(&identity).unwrap(), key);
        // 47 seeds on the child: no value lies above 47, none below -47.
        assert_eq!(child.seeds(), 47);
        for (lower, upper) in [(Some(-1), Some(-2)), (Some(48), None), (None, Some(-48))] {
            record.known[1].lower = lower;
            record.known[1].upper = upper;
            record = record.seal();
            let e = record.verify(&identity).unwrap_err().to_string();
            assert!(e.contains("known bounds"), "{lower:?}..{upper:?}: {e}");
        }
    }

    /// A record refuses any change to its text that its checksum does not
    /// follow: a verdict, a bound, a board, the game; and one of another
    /// game is refused even when its checksum is right.
    #[test]
    fn the_checksum_catches_edits_and_the_identity_other_games() {
        let (identity, key) = start_test();
        let record = UnitRecord::answer(&identity, &key, Some(Verdict::AtLeast), 1000, 0.5).seal();
        assert_eq!(record.verify(&identity).unwrap(), key);
        let line = serde_json::to_string(&record).unwrap();
        for (from, to) in [
            (r#""kind":"at_least""#, r#""kind":"below""#),
            (r#""beta":2"#, r#""beta":4"#),
            (r#""seeds":4"#, r#""seeds":5"#),
            (r#""nodes":1000"#, r#""nodes":1001"#),
        ] {
            assert!(line.contains(from), "{line}");
            let edited: UnitRecord = serde_json::from_str(&line.replace(from, to)).unwrap();
            let e = edited.verify(&identity).unwrap_err().to_string();
            assert!(e.contains("checksum"), "{from} -> {to}: {e}");
        }
        let unsealed = UnitRecord::answer(&identity, &key, Some(Verdict::AtLeast), 1000, 0.5);
        assert!(unsealed
            .verify(&identity)
            .unwrap_err()
            .to_string()
            .ends_with(": no checksum"));
        let other = RunIdentity {
            seeds: 5,
            ..identity.clone()
        };
        let foreign = UnitRecord::answer(&other, &key, Some(Verdict::AtLeast), 1000, 0.5).seal();
        let e = foreign.verify(&identity).unwrap_err().to_string();
        assert!(e.contains("Kalah(6,5)") && e.contains("Kalah(6,4)"), "{e}");
        // Deeper tables change no value: a record of the same game over
        // other tables is used.
        let deeper = RunIdentity {
            table_seeds: 30,
            ..identity.clone()
        };
        let r = UnitRecord::answer(&deeper, &key, Some(Verdict::Below), 10, 0.1).seal();
        assert_eq!(r.verify(&identity).unwrap(), key);
    }
}
