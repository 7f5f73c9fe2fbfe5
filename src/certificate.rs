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
//! Each of the others is
//! there, the board's value for the mover is the negation of South's less
//! North's store lead: `-U - (n - s) <= board <= -L - (n - s)` for stores
//! `s` (South) and `n` (North). Each of the others is
//! either a fact `{"board":HEX,"lower":L,"upper":U,"unit":NAME}` (`lower`
//! or `upper` may be absent; HEX is the packed board, 32 hex digits, as
//! the work directory's records write it; NAME the unit record it comes
//! from) or an expanded board `{"expand":HEX}`. The header counts both,
//! so a truncated file is refused.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use kalah_solver::{Board, EndRule, Game, Position, Rules, Side};
use serde::{Deserialize, Serialize};

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
            boards: prover.memo.len(),
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

/// The tightest bounds known on each board, with the fact each came from.
#[derive(Default)]
pub struct FactTable {
    bounds: HashMap<Board, Bounds>,
}

#[derive(Clone, Default)]
struct Bounds {
    lower: Option<(i32, usize)>,
    upper: Option<(i32, usize)>,
    facts: Vec<Fact>,
}

impl FactTable {
    /// Adds a fact.
    ///
    /// # Errors
    /// A fact no value of its board can meet, or one that contradicts an
    /// earlier fact of the same board (both units named).
    pub fn add(&mut self, f: &Fact) -> Result<(), String> {
        let s = f.board.seeds() as i32;
        let hex = packed_hex::text(f.board);
        if f.lower.is_some_and(|l| l > s) || f.upper.is_some_and(|u| u < -s) {
            return Err(format!(
                "unit {}: bounds {:?}..{:?} on board {hex} of {s} seeds",
                f.unit, f.lower, f.upper
            ));
        }
        let b = self.bounds.entry(f.board).or_default();
        let index = b.facts.len();
        b.facts.push(f.clone());
        if let Some(l) = f.lower {
            if b.lower.is_none_or(|(old, _)| l > old) {
                b.lower = Some((l, index));
            }
        }
        if let Some(u) = f.upper {
            if b.upper.is_none_or(|(old, _)| u < old) {
                b.upper = Some((u, index));
            }
        }
        if let (Some((l, li)), Some((u, ui))) = (b.lower, b.upper) {
            if l > u {
                return Err(format!(
                    "board {hex}: unit {} says value >= {l}, unit {} says value <= {u}",
                    b.facts[li].unit, b.facts[ui].unit
                ));
            }
        }
        Ok(())
    }

    /// The best lower bound on `board` and its fact.
    fn lower(&self, board: Board) -> Option<(i32, &Fact)> {
        let b = self.bounds.get(&board)?;
        b.lower.map(|(v, i)| (v, &b.facts[i]))
    }

    /// The best upper bound on `board` and its fact.
    fn upper(&self, board: Board) -> Option<(i32, &Fact)> {
        let b = self.bounds.get(&board)?;
        b.upper.map(|(v, i)| (v, &b.facts[i]))
    }

    /// Boards with facts.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// No facts.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }
}

/// What decides a bound without a board's children.
enum Direct<'a> {
    /// The end of the game or the seeds on the board decide it so.
    Decided(bool),
    /// This fact proves it.
    Fact(&'a Fact),
    /// The oracle's exact value decides it so.
    Oracle(i32, bool),
    /// Only the children can.
    Children,
}

/// A proof found by [`Prover::extract`]: the facts it rests on and the
/// boards it expands.
#[derive(Default)]
pub struct Proof {
    pub facts: Vec<Fact>,
    pub expanded: Vec<Board>,
}

/// Proves bounds on board values from a [`FactTable`] by negamax over the
/// boards `expand` allows (given the board and its depth in sowings from
/// the root), memoized by board and bound. Sound whatever `expand` says:
/// a board not expanded is bounded only by its facts (and the seeds on
/// it).
pub struct Prover<'a, E> {
    game: &'a Game,
    facts: &'a FactTable,
    expand: E,
    /// Exact values of boards outside the facts (the endgame tables of
    /// the run that writes a certificate; none when checking one): each
    /// one a proof uses becomes a fact of unit `tables`.
    oracle: Option<&'a dyn Fn(Board) -> Option<i32>>,
    parity: bool,
    /// `(board, at_least, bound)` -> proved.
    memo: HashMap<(Board, bool, i32), bool>,
    /// Boards being evaluated (a repeated board proves nothing).
    open: HashSet<Board>,
}

impl<'a, E: FnMut(Board, u32) -> bool> Prover<'a, E> {
    pub fn new(game: &'a Game, facts: &'a FactTable, expand: E) -> Prover<'a, E> {
        Prover {
            game,
            facts,
            expand,
            oracle: None,
            parity: game.rules().end != EndRule::NoSweep,
            memo: HashMap::new(),
            open: HashSet::new(),
        }
    }

    /// Takes exact values from `oracle` (the endgame tables) where the
    /// facts have none.
    pub fn with_oracle(mut self, oracle: &'a dyn Fn(Board) -> Option<i32>) -> Self {
        self.oracle = Some(oracle);
        self
    }

    /// The weakest bound that implies `value >= t` on `board` (by parity).
    fn lower_needed(&self, board: Board, t: i32) -> i32 {
        if self.parity && (t - board.seeds() as i32).rem_euclid(2) == 0 {
            t - 1
        } else {
            t
        }
    }

    /// The weakest bound that implies `value <= t` on `board` (by parity).
    fn upper_needed(&self, board: Board, t: i32) -> i32 {
        if self.parity && (t - board.seeds() as i32).rem_euclid(2) == 0 {
            t + 1
        } else {
            t
        }
    }

    /// Whether the facts prove `value(board) >= t`.
    pub fn at_least(&mut self, board: Board, t: i32, depth: u32) -> bool {
        self.prove(board, true, t, depth)
    }

    /// Whether the facts prove `value(board) <= t`.
    pub fn at_most(&mut self, board: Board, t: i32, depth: u32) -> bool {
        self.prove(board, false, t, depth)
    }

    /// What decides `value(board) >= t` (`lower`) or `<= t` without its
    /// children: the end of the game, the seeds on the board, a fact.
    fn direct(&self, board: Board, lower: bool, t: i32) -> Direct<'a> {
        if let Some(v) = self.game.terminal_value(board) {
            return Direct::Decided(if lower { v >= t } else { v <= t });
        }
        if let Some(v) = self.oracle.and_then(|o| o(board)) {
            return Direct::Oracle(v, if lower { v >= t } else { v <= t });
        }
        let s = board.seeds() as i32;
        if lower {
            let need = self.lower_needed(board, t);
            if need <= -s {
                return Direct::Decided(true);
            }
            if let Some((l, f)) = self.facts.lower(board) {
                if l >= need {
                    return Direct::Fact(f);
                }
            }
            if self.facts.upper(board).is_some_and(|(u, _)| u < t) || t > s {
                return Direct::Decided(false);
            }
        } else {
            let need = self.upper_needed(board, t);
            if need >= s {
                return Direct::Decided(true);
            }
            if let Some((u, f)) = self.facts.upper(board) {
                if u <= need {
                    return Direct::Fact(f);
                }
            }
            if self.facts.lower(board).is_some_and(|(l, _)| l > t) || t < -s {
                return Direct::Decided(false);
            }
        }
        Direct::Children
    }

    fn prove(&mut self, board: Board, lower: bool, t: i32, depth: u32) -> bool {
        match self.direct(board, lower, t) {
            Direct::Decided(b) | Direct::Oracle(_, b) => return b,
            Direct::Fact(_) => return true,
            Direct::Children => {}
        }
        if let Some(&p) = self.memo.get(&(board, lower, t)) {
            return p;
        }
        if !(self.expand)(board, depth) || !self.open.insert(board) {
            return false;
        }
        let mut moves = self.game.moves(board);
        // value >= t: some child reaches it; value <= t: every child.
        let mut proved = !lower;
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let sown = self.game.sow(board, house);
            let gain = i32::from(sown.gain);
            let child = sown.board;
            // The parent's value through this child: gain + v (extra
            // turn) or gain - v.
            let holds = match (sown.extra_turn, lower) {
                (true, true) => self.prove(child, true, t - gain, depth + 1),
                (true, false) => self.prove(child, false, t - gain, depth + 1),
                (false, true) => self.prove(child, false, gain - t, depth + 1),
                (false, false) => self.prove(child, true, gain - t, depth + 1),
            };
            if lower && holds {
                proved = true;
                break;
            }
            if !lower && !holds {
                proved = false;
                break;
            }
        }
        self.open.remove(&board);
        self.memo.insert((board, lower, t), proved);
        proved
    }

    /// The tightest bounds the facts prove on `root`'s value: the largest
    /// `l` with `value >= l` proved and the smallest `u` with `value <= u`
    /// proved (by bisection over the seeds on the board).
    pub fn tightest(&mut self, root: Board) -> (i32, i32) {
        let s = root.seeds() as i32;
        // Largest l in [-s, s] with at_least(l): at_least is monotone.
        let (mut lo, mut hi) = (-s, s);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if self.at_least(root, mid, 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let lower = lo;
        let (mut lo, mut hi) = (-s, s);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.at_most(root, mid, 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        (lower, lo)
    }

    /// The facts and expanded boards of a proof of `lower <= value(root)
    /// <= upper`, which [`Prover::at_least`] and [`Prover::at_most`] must
    /// have found.
    pub fn extract(&mut self, root: Board, lower: i32, upper: i32) -> Proof {
        let mut proof = Proof::default();
        let mut facts_seen = HashSet::new();
        let mut expanded_seen = HashSet::new();
        let mut stack = vec![(root, true, lower, 0u32), (root, false, upper, 0u32)];
        let mut done = HashSet::new();
        while let Some((board, lower, t, depth)) = stack.pop() {
            if !done.insert((board, lower, t)) {
                continue;
            }
            match self.direct(board, lower, t) {
                Direct::Decided(_) => continue,
                Direct::Oracle(v, _) => {
                    let f = Fact {
                        board,
                        lower: Some(v),
                        upper: Some(v),
                        unit: "tables".into(),
                    };
                    if facts_seen.insert((f.board, f.lower, f.upper, f.unit.clone())) {
                        proof.facts.push(f);
                    }
                    continue;
                }
                Direct::Fact(f) => {
                    if facts_seen.insert((f.board, f.lower, f.upper, f.unit.clone())) {
                        proof.facts.push(f.clone());
                    }
                    continue;
                }
                Direct::Children => {}
            }
            if expanded_seen.insert(board) {
                proof.expanded.push(board);
            }
            let mut moves = self.game.moves(board);
            while moves != 0 {
                let house = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let sown = self.game.sow(board, house);
                let gain = i32::from(sown.gain);
                let (child_lower, child_t) = match (sown.extra_turn, lower) {
                    (true, l) => (l, t - gain),
                    (false, l) => (!l, gain - t),
                };
                let holds = self.prove(sown.board, child_lower, child_t, depth + 1);
                if lower && holds {
                    stack.push((sown.board, child_lower, child_t, depth + 1));
                    break;
                }
                if !lower {
                    stack.push((sown.board, child_lower, child_t, depth + 1));
                }
            }
        }
        proof
    }
}

/// A board as certificates and a long solve's records write it: its packed
/// bits in 32 hex digits; with `#[serde(with = ...)]`, a [`Board`] field
/// in that form.
pub mod packed_hex {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_solver::search::SearchConfig;
    use kalah_solver::Solver;

    /// Every board of the top `depth` sowings of Kalah(pits,seeds) gets a
    /// fact from an exact solve at depth `depth`: the prover derives the
    /// start's value from them alone, and a certificate of it checks.
    #[test]
    fn exact_facts_at_a_frontier_prove_the_value() {
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            let game = Game::new(4, rules);
            let start = Position::start(4, 3).unwrap();
            let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
            let value = solver.solve(&start).unwrap();
            let mut table = FactTable::default();
            let mut frontier = vec![start.board()];
            for _ in 0..3 {
                let mut next = Vec::new();
                for b in frontier {
                    if game.terminal_value(b).is_some() {
                        continue;
                    }
                    let mut moves = game.moves(b);
                    while moves != 0 {
                        let h = moves.trailing_zeros() as usize;
                        moves &= moves - 1;
                        next.push(game.sow(b, h).board);
                    }
                }
                frontier = next;
            }
            for b in &frontier {
                let v = solver.solve_board(*b).unwrap();
                table
                    .add(&Fact {
                        board: *b,
                        lower: Some(v),
                        upper: Some(v),
                        unit: format!("{:x}", b.packed()),
                    })
                    .unwrap();
            }
            let mut prover = Prover::new(&game, &table, |_, d| d < 3);
            let root = start.board();
            assert!(prover.at_least(root, value, 0), "{rules:?}");
            assert!(prover.at_most(root, value, 0), "{rules:?}");
            assert!(!prover.at_least(root, value + 1, 0), "{rules:?}");
            assert!(!prover.at_most(root, value - 1, 0), "{rules:?}");
            let proof = prover.extract(root, value, value);
            let cert = Certificate {
                header: Header {
                    kalah_certificate: FORMAT,
                    pits: 4,
                    seeds: 3,
                    rules: rules.slug(),
                    start: None,
                    lower: value,
                    upper: value,
                    perfect_game: Vec::new(),
                    facts: proof.facts.len(),
                    expanded: proof.expanded.len(),
                },
                facts: proof.facts,
                expanded: proof.expanded,
            };
            cert.check_logic().unwrap();
            // One bound off: refused.
            for (l, u) in [(value + 1, value + 1), (value - 1, value - 1)] {
                let wrong = Certificate {
                    header: Header {
                        lower: l,
                        upper: u,
                        ..cert.header.clone()
                    },
                    ..cert.clone()
                };
                assert!(wrong.check_logic().is_err(), "{rules:?} {l}");
            }
            // Written and read back the same.
            let path = std::env::temp_dir().join(format!(
                "kalah-cert-{}-{}.gz",
                rules.slug(),
                std::process::id()
            ));
            cert.write(&path).unwrap();
            assert_eq!(Certificate::read(&path).unwrap(), cert);
            // The same header with a start: only format 2 has one.
            let mut from = cert.clone();
            from.header.start = Some(start.to_string());
            from.write(&path).unwrap();
            assert!(Certificate::read(&path).is_err(), "format 1 with a start");
            from.header.kalah_certificate = FORMAT_FROM;
            from.write(&path).unwrap();
            assert_eq!(Certificate::read(&path).unwrap(), from);
            from.header.start = None;
            from.write(&path).unwrap();
            assert!(Certificate::read(&path).is_err(), "format 2 without one");
            std::fs::remove_file(&path).unwrap();
        }
    }

    /// South's bounds and the board's are each other's inverse, whoever
    /// moves and whatever the stores hold; from the start they are equal.
    #[test]
    fn south_and_board_bounds_convert_both_ways() {
        let game = Game::new(4, Rules::STANDARD);
        let start = Position::start(4, 3).unwrap();
        assert_eq!(board_bounds(&start, -3, 5), (-3, 5));
        let mut pos = start;
        pos.play(&game, 3).unwrap();
        assert_eq!(pos.to_move(), Side::North);
        assert_eq!(pos.store_difference(), -1);
        // South's value v is North's -v; the board's for North is that
        // less North's store lead (-1).
        assert_eq!(board_bounds(&pos, -3, 5), (-4, 4));
        for (l, u) in [(-3, 5), (0, 0), (-12, -2)] {
            let (bl, bu) = board_bounds(&pos, l, u);
            assert_eq!(south_bounds(&pos, bl, bu), (l, u));
        }
    }
}
