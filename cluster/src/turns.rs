//! The first turns of a game, each solved exactly over the root solve's
//! work directory (`kalah-cluster turns`).
//!
//! A unit's record is a fact about a board, whatever start the search came
//! from, so the position after each first turn is solved by the same
//! coordinator and top tree as the start, over the same records. A turn of
//! `k` sowings is solved with the frontier `F - k` (at least 1) for the
//! root's frontier `F`: its units are then the boards `F` sowings below the
//! game's start, the root solve's own units, and each one the root solve
//! answered is a fact the turn's search finds, not a unit it asks again.
//!
//! # The ledger
//!
//! `WORK/turns/LABEL.json` (LABEL: the turn's houses joined by `.`, as
//! `1.2`), one a turn, written atomically: [`TurnLedger`]. It is written
//! when the turn's solve first starts, with the issue number (`seq`) its
//! first unit gets: the units of the work directory with a number at or
//! above it are the turn's own (turns are solved one after another, each to
//! its end, in one process holding the directory's lock), the others were
//! there before it (the root solve's, or an earlier turn's). When the turn
//! is solved, its result is added ([`TurnResult`]) and its certificate is
//! written beside it (`LABEL.certificate.jsonl.gz`). A run stopped in the
//! middle of a turn resumes it from the records; a finished turn is read
//! back, not solved again.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use kalah::certificate::Certificate;
use kalah_solver::search::analysis::turns_of;
use kalah_solver::{Game, Position};

use crate::error::ClusterError;
use crate::store::{io_err, write_atomic, StoreError};
use crate::unit::UnitRecord;

/// One first turn: its houses (1-based, one a sowing, extra turns
/// included), the position after it, and the frontier its solve uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstTurn {
    pub houses: Vec<usize>,
    pub position: Position,
    pub frontier: u32,
}

impl FirstTurn {
    /// The turn's name: its houses joined by `.` (`1.2`, `3`), the
    /// notation of docs/RULES.md.
    pub fn label(&self) -> String {
        self.houses
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// Every first turn from `start` (the rules' turns, in house order), each
/// with the frontier that makes its units the boards `frontier` sowings
/// below `start`: `frontier` less the turn's sowings, at least 1.
pub fn first_turns(game: &Game, start: Position, frontier: u32) -> Vec<FirstTurn> {
    turns_of(game, &start)
        .into_iter()
        .map(|(houses, position)| FirstTurn {
            frontier: frontier.saturating_sub(houses.len() as u32).max(1),
            houses,
            position,
        })
        .collect()
}

/// A turn's file in the work directory (see the module's doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnLedger {
    /// [`FirstTurn::label`].
    pub turn: String,
    pub houses: Vec<usize>,
    /// The position after the turn, in the text form of docs/RULES.md.
    pub position: String,
    pub frontier: u32,
    /// The issue number of the turn's first unit: units numbered from it
    /// on are the turn's own.
    pub first_seq: u64,
    /// Once solved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TurnResult>,
}

/// A solved turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnResult {
    /// The final store difference for the first player (South) after the
    /// turn, with perfect play by both.
    pub value: i32,
    /// A perfect game from the game's start, the turn first (the notation
    /// of `kalah play-line`).
    pub line: String,
    /// Units the turn's solve searched (answered, split ones included),
    /// their nodes and seconds of search.
    pub units_new: u64,
    pub nodes_new: u64,
    pub seconds_new: f64,
    /// Units it stopped unanswered, and their nodes (in `nodes_new` too).
    pub cancelled_new: u64,
    /// Units whose facts the turn's certificate rests on: all, and those
    /// answered before the turn's solve started (by the root solve or an
    /// earlier turn), with the nodes they had cost.
    pub proof_units: u64,
    pub units_reused: u64,
    pub nodes_reused: u64,
    /// The certificate's file name, beside the ledger.
    pub certificate: String,
}

/// The directory of the ledgers and certificates of the turns.
pub fn turns_dir(work: &Path) -> PathBuf {
    work.join("turns")
}

fn ledger_path(work: &Path, label: &str) -> PathBuf {
    turns_dir(work).join(format!("{label}.json"))
}

/// The certificate of turn `label` in `work`.
pub fn certificate_path(work: &Path, label: &str) -> PathBuf {
    turns_dir(work).join(format!("{label}.certificate.jsonl.gz"))
}

/// The ledger of turn `label`, if its solve ever started.
///
/// # Errors
/// A file that cannot be read or parsed (named).
pub fn read_ledger(work: &Path, label: &str) -> Result<Option<TurnLedger>, ClusterError> {
    let path = ledger_path(work, label);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            ClusterError::Store(StoreError::Parse {
                path,
                error: e.to_string(),
            })
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ClusterError::Store(io_err(&path)(e))),
    }
}

/// Writes a turn's ledger (temporary name, sync, rename).
///
/// # Errors
/// The file cannot be written.
pub fn write_ledger(work: &Path, ledger: &TurnLedger) -> Result<(), ClusterError> {
    let dir = turns_dir(work);
    std::fs::create_dir_all(&dir).map_err(|e| ClusterError::Store(io_err(&dir)(e)))?;
    let text = serde_json::to_string_pretty(ledger).expect("plain struct");
    write_atomic(&ledger_path(work, &ledger.turn), text.as_bytes())?;
    Ok(())
}

/// The issue number the coordinator gives its next unit over `records`
/// (one above the highest recorded, as it numbers them when it resumes).
pub fn next_seq(records: &[UnitRecord]) -> u64 {
    records.iter().map(|r| r.seq + 1).max().unwrap_or(0)
}

/// What the units numbered from `first_seq` on cost: answered units (split
/// ones included), their nodes and seconds, and units stopped unanswered
/// (whose nodes count in the nodes).
pub fn spent_since(
    records: &[UnitRecord],
    cancelled: &[UnitRecord],
    first_seq: u64,
) -> (u64, u64, f64, u64) {
    let mut out = (0, 0, 0.0, 0);
    for r in records.iter().filter(|r| r.seq >= first_seq && !r.filled) {
        out.0 += 1;
        out.1 += r.nodes;
        out.2 += r.seconds;
    }
    for r in cancelled.iter().filter(|r| r.seq >= first_seq) {
        out.1 += r.nodes;
        out.2 += r.seconds;
        out.3 += 1;
    }
    out
}

/// The units `cert`'s facts name (a fact of a worker's known bounds names
/// its unit too), and of those the ones answered before `first_seq` with
/// their nodes: `(proof units, reused units, reused nodes)`.
pub fn reused(cert: &Certificate, records: &[UnitRecord], first_seq: u64) -> (u64, u64, u64) {
    let by_stem: HashMap<String, &UnitRecord> = records
        .iter()
        .filter_map(|r| r.key().ok().map(|k| (k.stem(), r)))
        .collect();
    let units: HashSet<&str> = cert
        .facts
        .iter()
        .map(|f| f.unit.trim_end_matches(" (known)"))
        .filter(|u| by_stem.contains_key(*u))
        .collect();
    let (mut n, mut nodes) = (0, 0);
    for u in &units {
        let r = by_stem[*u];
        if r.seq < first_seq || r.filled {
            n += 1;
            nodes += r.nodes;
        }
    }
    (units.len() as u64, n, nodes)
}
