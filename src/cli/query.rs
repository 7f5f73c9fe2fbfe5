//! `kalah query`: the exact value of any position, its moves and a perfect
//! game: from the endgame tables when the board is inside them (one probe a
//! move, no loading wait: the tables are memory-mapped), by search with
//! table probes otherwise. `--batch` answers a file of positions, one JSON
//! line each (see [`batch`]).
//!
//! A search is announced on stderr before it starts (with a progress line
//! on a terminal), stops at Ctrl-C or SIGTERM, and, with `--time-limit`,
//! gives up after that long: the answer is then an error naming the limit,
//! never a value from an unfinished search.

mod answer;
mod batch;
mod lines;

pub(crate) use answer::{Answer, Source};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use clap::Args;
use kalah_solver::query::{self, pv_line};
use kalah_solver::search::{AnalysisError, Solver};
use kalah_solver::table::{Check, TableError, Tables};
use kalah_solver::{Game, Position, Probe, Rules};

use super::common::{parse_position, signed, CliError, RulesArgs};
use super::engine::{new_solver, SearchArgs, StopBy, TableArgs};
use super::progress::{self, with_search_progress};
use crate::interrupt;
use crate::outln;

/// Arguments of `kalah query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The position: 2m+2 counts in sowing order (S1..Sm, South store,
    /// N1..Nm, North store) and the side to move, e.g.
    /// "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S".
    #[arg(num_args = 1.., allow_negative_numbers = true, required_unless_present = "batch")]
    pub position: Vec<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Answer every line of FILE ('-' for standard input), one JSON line
    /// each, in order, written as they are answered (a client that sends a
    /// line and waits gets its answer). Blank lines and lines starting with '#' are skipped. Bad
    /// lines (not a position, not UTF-8, over 4096 bytes) get an error
    /// object naming the line and do not stop the batch.
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    pub batch: Option<String>,
    /// In batch mode, also give each answer's principal variation.
    #[arg(long)]
    pub pv: bool,
    /// Give up a search after SECS seconds (decimals allowed): a position
    /// far outside the tables can take hours. The answer is then an error
    /// naming the limit, never a guess (in a batch, that line's error; the
    /// batch goes on). Answers from the tables are not limited.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The tables for these rules, if present, every tier opened and checked
/// now (the checksum of each file once per file, remembered by a stamp):
/// a tier file deleted or replaced later, while a batch runs, is not seen,
/// and a damaged one fails the query at once. The reason tables are not
/// used is returned otherwise, for the output to say so.
///
/// # Errors
/// A table directory named by `--tables` or `$KALAH_TABLES` that does not
/// exist (input), a tier that fails its check (failure, naming the file).
pub(crate) fn open_tables(
    args: &QueryArgs,
    pits: usize,
    rules: Rules,
) -> Result<(Option<Arc<Tables>>, Option<String>), CliError> {
    if args.tables.no_tables {
        return Ok((None, None));
    }
    let dir = args.tables.dir();
    if !dir.source.is_default() && !dir.path.is_dir() {
        return Err(CliError::Input(format!(
            "table directory {} ({}) does not exist",
            dir.path.display(),
            dir.source.describe()
        )));
    }
    Ok(
        match Tables::open_with(
            &dir.path,
            pits,
            rules,
            args.tables.table_seeds,
            Check::Remembered,
        ) {
            Ok(t) => {
                t.open_all().map_err(|e| {
                    CliError::Failure(format!("endgame tables in {}: {e}", dir.path.display()))
                })?;
                (Some(Arc::new(t)), None)
            }
            Err(TableError::Missing { .. }) => (
                None,
                Some(format!(
                    "no endgame tables for {} and these rules in {}: searching without them",
                    super::common::count(pits, "house"),
                    dir.path.display()
                )),
            ),
            Err(e) => (None, Some(format!("endgame tables not used: {e}"))),
        },
    )
}

/// Answers from the tables alone; `None` when the position is outside them
/// (or its tier file is unusable: then the search answers).
pub(crate) fn from_tables(
    tables: &Tables,
    game: &Game,
    pos: &Position,
    with_pv: bool,
) -> Result<Option<Answer>, CliError> {
    let t = Instant::now();
    let Some(a) = query::answer(tables, game, pos) else {
        return Ok(None);
    };
    let pv = if with_pv {
        query::principal_variation(tables, game, pos)
    } else {
        None
    };
    if !a.consistent()
        || !query::children_consistent(tables, game, pos)
        || (with_pv && pv.is_none())
    {
        return Err(inconsistent(tables, pos));
    }
    Ok(Some(Answer {
        position: *pos,
        value: a.value,
        moves: a.moves,
        best: a.best,
        pv,
        source: Source::Table,
        nodes: 0,
        ms: t.elapsed().as_secs_f64() * 1e3,
    }))
}

/// The failure for tables that contradict themselves at `pos`: a value that
/// is not the best of its moves' (or a perfect game that cannot keep it).
/// Their checksums passed, so the files were changed after they were
/// checked, in place (which the reader's contract forbids), or forged.
fn inconsistent(tables: &Tables, pos: &Position) -> CliError {
    let k = pos.board().seeds();
    CliError::Failure(format!(
        "endgame tables in {} contradict themselves at {pos} (tiers up to {}, {}): a table file was changed in place after it was checked; run `kalah verify --pits {} --max-seeds {k}` and rebuild what it names",
        tables.dir().display(),
        k,
        tables.path(k).display(),
        pos.pits()
    ))
}

pub(crate) fn finished(game: &Game, pos: &Position) -> Option<Answer> {
    let rules = game.rules();
    let score = pos.final_score(rules)?;
    let value = if pos.to_move() == kalah_solver::Side::South {
        score
    } else {
        -score
    };
    Some(Answer {
        position: *pos,
        value,
        moves: Vec::new(),
        best: Vec::new(),
        pv: Some(Vec::new()),
        source: Source::Finished,
        nodes: 0,
        ms: 0.0,
    })
}

/// The answer for `pos`: the final score of a finished game, else from the
/// tables when the board is inside them, else `search` (the solver is only
/// built when needed).
pub(crate) fn answer_position(
    game: &Game,
    tables: Option<&Tables>,
    pos: &Position,
    with_pv: bool,
    search: impl FnOnce(&Position) -> Result<Answer, CliError>,
) -> Result<Answer, CliError> {
    if let Some(a) = finished(game, pos) {
        return Ok(a);
    }
    if let Some(t) = tables {
        if let Some(a) = from_tables(t, game, pos, with_pv)? {
            return Ok(a);
        }
    }
    search(pos)
}

/// The answer of a search of `pos` by `solver` (watching its own stop
/// flag: for `play`, the Ctrl-C flag).
///
/// # Errors
/// A failure saying the search was interrupted.
pub(crate) fn by_search(solver: &Solver, pos: &Position) -> Result<Answer, CliError> {
    analyse(solver, pos).map_err(|e| CliError::Failure(e.to_string()))
}

fn analyse(solver: &Solver, pos: &Position) -> Result<Answer, AnalysisError> {
    let t = Instant::now();
    let a = solver.analyse(pos)?;
    Ok(Answer {
        position: *pos,
        value: a.value,
        moves: a.moves,
        best: a.best,
        pv: Some(a.pv),
        source: Source::Search,
        nodes: a.stats.nodes,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

/// Why a search of [`search_within`] gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// `--time-limit` passed.
    TimeLimit,
    /// The search refused its result (tables that contradict themselves).
    Failed(String),
}

/// How often the watchdog of [`search_within`] looks at the signal flag
/// and the clock: a stop is seen within this, and the search stops within
/// about a thousand nodes of it.
const WATCH_TICK: Duration = Duration::from_millis(20);

/// A solver for `query`'s searches with a stop flag of its own (not the
/// Ctrl-C flag): [`search_within`] raises it at a signal or at the time
/// limit, and lowers it again for the next search. Every tier of `tables`
/// is checked first.
///
/// # Errors
/// A damaged tier (naming its file), or a solver that cannot be built
/// (threads, table memory).
fn query_solver(
    game: Game,
    search: &SearchArgs,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, CliError> {
    new_solver(game, search.config(256), tables, StopBy::OwnFlag)
}

/// The answer of a search of `pos`, unless Ctrl-C or SIGTERM comes first
/// or `limit` passes: a watchdog thread then raises the solver's stop flag
/// and the unfinished search's values are dropped (an aborted search
/// stores nothing in the transposition table, so later searches by the
/// same solver stay exact). Shows progress on a terminal.
fn search_within(
    solver: &Solver,
    pos: &Position,
    limit: Option<Duration>,
    label: &str,
) -> Result<Answer, Stopped> {
    let Some(stop) = solver.stop_flag() else {
        // A solver watching the Ctrl-C flag itself: no time limit.
        return analyse(solver, pos).map_err(|e| match e {
            AnalysisError::Interrupted => Stopped::Interrupted,
            e => Stopped::Failed(e.to_string()),
        });
    };
    if interrupt::requested() {
        return Err(Stopped::Interrupted);
    }
    stop.store(false, Ordering::SeqCst);
    let timed_out = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let result = thread::scope(|scope| {
        let watchdog = scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if interrupt::requested() {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                let mut tick = WATCH_TICK;
                if let Some(limit) = limit {
                    let Some(left) = limit.checked_sub(started.elapsed()) else {
                        timed_out.store(true, Ordering::SeqCst);
                        stop.store(true, Ordering::SeqCst);
                        return;
                    };
                    tick = tick.min(left);
                }
                thread::park_timeout(tick);
            }
        });
        let result = with_search_progress(label, || solver.stats().nodes, || analyse(solver, pos));
        done.store(true, Ordering::SeqCst);
        watchdog.thread().unpark();
        result
    });
    stop.store(false, Ordering::SeqCst);
    // A search that finished is exact even when the limit passed as it
    // ended; only an aborted one is dropped.
    result.map_err(|e| match e {
        AnalysisError::Interrupted if timed_out.load(Ordering::SeqCst) => Stopped::TimeLimit,
        AnalysisError::Interrupted => Stopped::Interrupted,
        e => Stopped::Failed(e.to_string()),
    })
}

/// `--time-limit`'s value: a positive, finite number of seconds.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 1e9) {
        return Err(format!(
            "'{text}': the time limit must be more than 0 and at most 1e9 seconds"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The limit as the user wrote it, near enough: `2`, `0.2`, `1.5`.
fn seconds(limit: Duration) -> String {
    format!("{}", limit.as_secs_f64())
}

/// The error for a search stopped by `--time-limit`.
fn over_limit(limit: Option<Duration>) -> String {
    format!(
        "no answer within the time limit (--time-limit {} s): the search was stopped unfinished",
        seconds(limit.unwrap_or_default())
    )
}

/// What a search is about to do, said before it starts: a search outside
/// the tables can take from milliseconds to hours.
fn searching_note(pos: &Position, tables: Option<&Tables>, limit: Option<Duration>) -> String {
    let seeds = pos.board().seeds();
    let what = match tables {
        Some(t) => format!(
            "searching: {seeds} seeds on the board, beyond the endgame tables (up to {} seeds)",
            t.max_seeds()
        ),
        None => format!("searching without endgame tables: {seeds} seeds on the board"),
    };
    match limit {
        Some(l) => format!("{what}; giving up after {} s (--time-limit)", seconds(l)),
        None => format!(
            "{what}; this can take long far from the tables (Ctrl-C stops it, --time-limit bounds it)"
        ),
    }
}

/// `kalah query`.
pub fn query(args: &QueryArgs) -> Result<(), CliError> {
    if let Some(file) = &args.batch {
        return batch::batch(args, file);
    }
    let pos = parse_position(&args.position)?;
    let rules = args.rules.rules();
    let game = Game::new(pos.pits(), rules);
    let (tables, note) = open_tables(args, pos.pits(), rules)?;
    // Said at once: a search without the tables may be long.
    if let Some(n) = &note {
        progress::note(n);
    }
    let answer = answer_position(&game, tables.as_deref(), &pos, true, |p| {
        progress::note(&searching_note(p, tables.as_deref(), args.time_limit));
        let solver = query_solver(game.clone(), &args.search, tables.clone())?;
        search_within(&solver, p, args.time_limit, "searching").map_err(|stop| match stop {
            Stopped::Interrupted => CliError::Failure("interrupted: no answer".to_string()),
            Stopped::TimeLimit => CliError::Failure(over_limit(args.time_limit)),
            Stopped::Failed(msg) => CliError::Failure(msg),
        })
    })?;
    if args.json {
        return outln!("{}", answer.render(note.as_deref()));
    }
    print_answer(&answer, rules)
}

fn print_answer(a: &Answer, rules: Rules) -> Result<(), CliError> {
    let pos = &a.position;
    outln!("{}", pos.diagram().trim_end_matches('\n'))?;
    outln!("position: {pos}")?;
    let side = pos.to_move();
    outln!(
        "value: {} for {side} ({}), final store difference under perfect play [{}]",
        signed(a.value),
        match a.value.signum() {
            1 => format!("{side} wins"),
            0 => "draw".to_string(),
            _ => format!("{side} loses"),
        },
        a.source.name()
    )?;
    if a.source == Source::Finished {
        if let Some([s, n]) = pos.final_stores(rules) {
            let how = match rules.end {
                kalah_solver::EndRule::Sweep => "after the sweep",
                kalah_solver::EndRule::Delayed => "each owner taking the seeds left on their side",
                kalah_solver::EndRule::NoSweep => "the seeds left in houses counting for nobody",
            };
            outln!("the game is over: South {s}, North {n}, {how}")?;
        }
        return Ok(());
    }
    outln!("moves ({side}):")?;
    for m in &a.moves {
        outln!(
            "  house {:>2}: {:>4}{}{}",
            m.house,
            signed(m.value),
            if m.extra_turn { "  extra turn" } else { "" },
            if m.value == a.value { "  best" } else { "" }
        )?;
    }
    let best: Vec<String> = a.best.iter().map(|h| h.to_string()).collect();
    outln!("best: {}", best.join(" "))?;
    if let Some(pv) = &a.pv {
        outln!("principal variation: {}", pv_line(pv))?;
    }
    outln!("nodes: {}  time: {:.2} ms", a.nodes, a.ms)
}
