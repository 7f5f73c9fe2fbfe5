//! The flags of each command: documented values, none a lab switch (the
//! laboratory's `kalah-lab simulate` has those).

use std::path::PathBuf;

use clap::Args;
use kalah::flags::{RulesArgs, TableArgs};

use kalah_cluster::coordinator::Policy;
use kalah_cluster::plan::AHEAD_TESTS;

#[derive(Args, Debug)]
pub(crate) struct GameSpec {
    /// Houses a side.
    #[arg(short = 'm', long, default_value_t = 6)]
    pub(crate) pits: usize,
    /// Seeds a house at the start.
    #[arg(short = 'n', long)]
    pub(crate) seeds: usize,
    #[command(flatten)]
    pub(crate) rules: RulesArgs,
    #[command(flatten)]
    pub(crate) tables: TableArgs,
}

#[derive(Args, Debug)]
pub(crate) struct SolveArgs {
    #[command(flatten)]
    pub(crate) game: GameSpec,
    /// The work directory: the coordinator's whole state (created when
    /// new; must be the same command's to resume).
    #[arg(long, value_name = "DIR")]
    pub(crate) work: PathBuf,
    /// Boards this many sowings below the start are units (default: 6,
    /// 8 from 50 seeds on).
    #[arg(long, value_name = "PLIES")]
    pub(crate) frontier: Option<u32>,
    /// A test expected to hold (a cut node) up to this many sowings above the
    /// frontier is a unit too: its worker tries the board's children in
    /// its own order, where the top tree would take them one at a time,
    /// an answer and a plan each (0: units only at the frontier). Default:
    /// 2 with a --unit-budget (a unit that runs long is split), 0 without
    /// (such a unit would hold up the run whole). Part of the run, as the
    /// frontier is.
    #[arg(long, value_name = "PLIES")]
    pub(crate) cut_early: Option<u32>,
    /// A test that searches more nodes than this is stopped and its board's
    /// children become units instead (0: never).
    #[arg(long, value_name = "NODES", default_value_t = 0)]
    pub(crate) unit_budget: u64,
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
    /// Root MTD(f) tests planned ahead of the pending one, for idle
    /// workers: the next test whichever way the pending one goes, and so
    /// on this many tests deep; the perfect game's moves after one that
    /// waits (0: neither).
    #[arg(long, value_name = "TESTS", default_value_t = AHEAD_TESTS)]
    pub(crate) ahead: usize,
    /// Each worker's transposition table, MiB (default: `kalah solve`'s
    /// for the same game and tables, 2048 for Kalah(6,5) over 24 seeds);
    /// with --rank-workers N, each worker's share of its rank's table of
    /// N times this.
    #[arg(long, value_name = "MB")]
    pub(crate) tt_mb: Option<usize>,
    /// Workers a worker rank runs (MPI): N units searched at once, on one
    /// transposition table shared by the N, as one rank a cluster node
    /// with N cores (`mpirun -n NODES+1 --map-by node`, or Slurm's
    /// `--ntasks-per-node 1 --cpus-per-task N`). Every worker sees what the
    /// others of its rank stored. The same on every rank; the work
    /// directory does not depend on it.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = at_least_one)]
    pub(crate) rank_workers: usize,
    /// Worker ranks send each other the table entries of at least this
    /// much work (log2 of a subtree's nodes, plus one) that their
    /// searches store, and store the others' in their own tables (MPI,
    /// two worker ranks or more): a subtree one rank searched is not
    /// searched again on another. 0: each rank's table is its own. The
    /// same on every rank; the work directory does not depend on it.
    #[arg(long, value_name = "WORK", default_value_t = 0)]
    pub(crate) share_work: u8,
    /// Without MPI: answer the units in this process, one at a time.
    #[arg(long)]
    pub(crate) local: bool,
    /// Search threads of the --local worker (0: all cores). Each unit is
    /// searched by this many threads on one table.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "local")]
    pub(crate) threads: usize,
    /// When another process runs on the work directory, wait for it to
    /// end instead of refusing at once.
    #[arg(long)]
    pub(crate) wait: bool,
    /// When the run ends or is stopped (Ctrl-C, SIGTERM), pack its loose
    /// records into the work directory's next sealed segment (as
    /// `kalah-cluster pack`): the files a long run commits at each stop.
    #[arg(long)]
    pub(crate) pack: bool,
    /// Print one JSON object: `kalah solve --json`'s fields and the units'.
    #[arg(long)]
    pub(crate) json: bool,
    /// Progress lines on stderr every this many seconds (0: none).
    #[arg(long, default_value_t = 5.0)]
    pub(crate) progress: f64,
}

/// How the coordinator hands out and stops units ([`Policy`]); its other
/// fields keep their defaults (the laboratory's `kalah-lab simulate` sets
/// them, to measure what each saves).
#[derive(Args, Debug)]
pub(crate) struct PolicyArgs {
    /// A test still unanswered after this fraction of the time its unit
    /// budget takes is likely to be split: its board's children are
    /// handed to idle workers beside it; such a child turns hot after
    /// half the fraction (0: never; no effect without a unit budget).
    #[arg(long, value_name = "FRACTION", default_value_t = Policy::DEFAULT.presplit, value_parser = fraction)]
    pub(crate) presplit: f64,
    /// Never stop a speculative unit to free its worker for a unit the
    /// search needs (by default the one issued last is stopped).
    #[arg(long)]
    pub(crate) no_preempt: bool,
    /// Hand units to idle workers in the search's order only (by default
    /// an idle worker takes a needed unit at or just below the boards of
    /// the units it had, whose subtrees its transposition table holds).
    #[arg(long)]
    pub(crate) no_affinity: bool,
}

impl PolicyArgs {
    pub(crate) fn policy(&self) -> Policy {
        Policy {
            presplit: self.presplit,
            preempt: !self.no_preempt,
            affinity: !self.no_affinity,
            ..Policy::DEFAULT
        }
    }
}

#[derive(Args, Debug)]
pub(crate) struct StatusArgs {
    /// The work directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) work: PathBuf,
    /// Directory of the endgame tables the top tree reads small boards
    /// from (default: as `kalah`'s); none built: the replay goes without.
    #[arg(long, value_name = "DIR")]
    pub(crate) tables: Option<PathBuf>,
    /// Also the bounds the records prove on each first turn's value (a
    /// failing root test is done when every turn is below it; a holding
    /// one when a turn is at or above it). Seconds: each turn's proof is
    /// derived from the records, as `certificate --first-turns` does.
    #[arg(long)]
    pub(crate) first_turns: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
pub(crate) struct CertificateArgs {
    /// The work directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) work: PathBuf,
    /// Where to write it (default: certificate.jsonl.gz in the work
    /// directory).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Directory of the endgame tables the run read small boards from
    /// (default: as `kalah`'s).
    #[arg(long, value_name = "DIR")]
    pub(crate) tables: Option<PathBuf>,
    /// One certificate for each first turn (as `kalah-cluster turns`
    /// writes them), from the position after the turn: into --out, a
    /// directory (default: WORK/turns), as TURN.certificate.jsonl.gz.
    #[arg(long)]
    pub(crate) first_turns: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
pub(crate) struct PackArgs {
    /// The work directory (no run may be running on it).
    #[arg(long, value_name = "DIR")]
    pub(crate) work: PathBuf,
}

#[derive(Args, Debug)]
pub(crate) struct PingArgs {
    /// Empty units to send.
    #[arg(long, default_value_t = 20000)]
    pub(crate) units: u64,
}

/// A fraction in `[0, 1]` (clap's parser of `--presplit`).
pub(crate) fn fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        Ok(f) => Err(format!("{f} is not a fraction in [0, 1]")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}

/// A count of at least 1 (clap's parser for counts).
pub(crate) fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(n) => Err(format!("{n} is not a count of at least 1")),
        Err(e) => Err(format!("{s:?} is not a count: {e}")),
    }
}
