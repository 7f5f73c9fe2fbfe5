//! The answer for one position: a finished game's score, else the endgame
//! tables when the board is inside them (one probe a move), else a search
//! with table probes, which stops at Ctrl-C or SIGTERM and, with a time
//! limit, gives up after that long: the answer is then an error naming the
//! limit, never a value from an unfinished search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use kalah_solver::book::Book;
use kalah_solver::query;
use kalah_solver::search::{AnalysisError, SearchConfig, Solver};
use kalah_solver::table::Tables;
use kalah_solver::{Game, Position, Probe};

use super::answer::{Answer, Detail, Source};
use super::setup::{new_solver, StopBy};
use super::{Error, Observer};
use crate::interrupt;

/// A search's budget: the solver's configuration and a time limit.
#[derive(Clone, Debug)]
pub struct Budget {
    pub config: SearchConfig,
    /// Give up a search after this long (answers from the tables are not
    /// limited).
    pub time_limit: Option<Duration>,
}

/// The answer for `pos` of `game` with `detail`, from `tables` when given:
/// a search (announced to `observer` first, its solver built for it) when
/// neither the end of the game nor the tables answer.
///
/// # Errors
/// A search interrupted, stopped by the time limit or refused, or a solver
/// that cannot be built.
pub fn answer_one(
    game: &Game,
    tables: Option<&Arc<Tables>>,
    book: Option<&Book>,
    pos: &Position,
    budget: &Budget,
    detail: Detail,
    observer: &dyn Observer,
) -> Result<Answer, Error> {
    answer_with(game, tables.map(|t| &**t), book, pos, detail, |p| {
        observer.note(&searching_note(p, tables.map(|t| &**t), budget.time_limit));
        let solver = query_solver(game.clone(), budget.config.clone(), tables.cloned())?;
        search_within(&solver, p, detail, budget.time_limit, "searching", observer).map_err(
            |stop| match stop {
                Stopped::Interrupted => Error::Failure("interrupted: no answer".to_string()),
                Stopped::TimeLimit => Error::Failure(over_limit(budget.time_limit)),
                Stopped::Failed(msg) => Error::Failure(msg),
            },
        )
    })
}

/// Answers from the tables alone, with `detail`; `Ok(None)` when the
/// position is outside them. The answer is checked against the tables' own
/// rule first (with or without the moves in the answer: they cost a probe
/// each): the position's value is the best of its moves' values, and so
/// is each move's position's (two levels), and a perfect game keeps the
/// value at every step.
///
/// # Errors
/// Tables that contradict themselves at `pos` (see [`inconsistent`]).
pub fn from_tables(
    tables: &Tables,
    game: &Game,
    pos: &Position,
    detail: Detail,
) -> Result<Option<Answer>, Error> {
    let t = Instant::now();
    let with_pv = detail.pv;
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
    Ok(Some(checked(a, pos, detail, pv, Source::Table, t)))
}

/// The failure for tables that contradict themselves at `pos`: a value that
/// is not the best of its moves' (or a perfect game that cannot keep it),
/// unless a tier fails its check, which is then the failure.
/// Their checksums passed, so the files were changed after they were
/// checked, in place (which the reader's contract forbids), or forged.
pub fn inconsistent(tables: &Tables, pos: &Position) -> Error {
    // A tier that fails its own check reads as missing values (a perfect
    // game that stops short): name that file rather than blame the rest.
    if let Err(e) = tables.open_all() {
        return Error::Failure(format!("endgame tables in {}: {e}", tables.dir().display()));
    }
    let k = pos.board().seeds();
    Error::Failure(format!(
        "endgame tables in {} contradict themselves at {pos} (tiers up to {k}, {}): a table file was changed in place after it was checked; run `kalah verify --pits {} --max-seeds {k}` and rebuild what it names",
        tables.dir().display(),
        tables.path(k).display(),
        pos.pits()
    ))
}

/// Values that contradict themselves at a position: its value is not the
/// best of its moves', or a child's is not the best of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contradiction;

/// The answer for `pos` from `probe`, a prober that holds some boards
/// above the tables (a book, the answers a server kept, with the tables
/// under them), reported as from `source`: `Ok(None)` when it does not
/// hold the position and each of its moves (and, with [`Detail::pv`], a
/// perfect game it can follow to the end). Checked as a table answer is.
///
/// # Errors
/// [`Contradiction`]: values that contradict themselves at `pos`.
pub fn from_probe(
    probe: &dyn Probe,
    game: &Game,
    pos: &Position,
    detail: Detail,
    source: Source,
) -> Result<Option<Answer>, Contradiction> {
    let t = Instant::now();
    let Some(a) = query::answer(probe, game, pos) else {
        return Ok(None);
    };
    let pv = if detail.pv {
        match query::principal_variation(probe, game, pos) {
            Some(pv) => Some(pv),
            None => return Ok(None),
        }
    } else {
        None
    };
    if !a.consistent() || !query::children_consistent(probe, game, pos) {
        return Err(Contradiction);
    }
    Ok(Some(checked(a, pos, detail, pv, source, t)))
}

/// The answer for `pos` from `a`, values already checked, read by a
/// prober (the tables, a book, kept answers) since `t`: without the moves
/// unless `detail` asks for them.
fn checked(
    mut a: query::TableAnswer,
    pos: &Position,
    detail: Detail,
    pv: Option<Vec<kalah_solver::search::PvMove>>,
    source: Source,
    t: Instant,
) -> Answer {
    if !detail.moves {
        a.moves.clear();
        a.best.clear();
    }
    Answer {
        position: *pos,
        value: a.value,
        moves: a.moves,
        best: a.best,
        value_only: !detail.moves,
        pv,
        source,
        nodes: 0,
        ms: t.elapsed().as_secs_f64() * 1e3,
    }
}

pub fn finished(game: &Game, pos: &Position) -> Option<Answer> {
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
        value_only: false,
        pv: Some(Vec::new()),
        source: Source::Finished,
        nodes: 0,
        ms: 0.0,
    })
}

/// The answer for `pos` with every move's value (and a perfect game when
/// `with_pv`): the final score of a finished game, else from the tables
/// when the board is inside them, else `search` (the solver is only built
/// when needed).
pub fn answer_position(
    game: &Game,
    tables: Option<&Tables>,
    book: Option<&Book>,
    pos: &Position,
    with_pv: bool,
    search: impl FnOnce(&Position) -> Result<Answer, Error>,
) -> Result<Answer, Error> {
    let detail = Detail {
        moves: true,
        pv: with_pv,
    };
    answer_with(game, tables, book, pos, detail, search)
}

/// [`answer_position`] with `detail`: what `search` is then asked for too.
fn answer_with(
    game: &Game,
    tables: Option<&Tables>,
    book: Option<&Book>,
    pos: &Position,
    detail: Detail,
    search: impl FnOnce(&Position) -> Result<Answer, Error>,
) -> Result<Answer, Error> {
    match without_search(game, tables, book, pos, detail)? {
        Some(a) => Ok(a),
        None => search(pos),
    }
}

/// The answer that needs no search: a finished game's score, else the
/// tables' when the board is inside them (checked as [`from_tables`]
/// checks it), else the opening book's (with the tables under it) when it
/// holds the position and its moves; `None` when only a search can
/// answer. The first steps of [`answer_position`], for a front end that
/// runs searches elsewhere.
///
/// # Errors
/// As [`from_tables`]: tables (or a book) that contradict themselves or
/// fail to read.
pub fn without_search(
    game: &Game,
    tables: Option<&Tables>,
    book: Option<&Book>,
    pos: &Position,
    detail: Detail,
) -> Result<Option<Answer>, Error> {
    if let Some(a) = finished(game, pos) {
        return Ok(Some(a));
    }
    if let Some(a) = tables
        .map(|t| from_tables(t, game, pos, detail))
        .transpose()?
        .flatten()
    {
        return Ok(Some(a));
    }
    match book {
        Some(b) => super::book::answer(b, tables, game, pos, detail),
        None => Ok(None),
    }
}

/// The answer of a search of `pos` by `solver` (watching its own stop
/// flag: for `play`, the Ctrl-C flag), every move solved.
///
/// # Errors
/// A failure saying the search was interrupted.
pub fn by_search(solver: &Solver, pos: &Position) -> Result<Answer, Error> {
    analyse(solver, pos, Detail::FULL).map_err(|e| Error::Failure(e.to_string()))
}

/// A search's answer for `pos`. With [`Detail::moves`], every move is
/// solved (and a perfect game found); without, the position alone, and a
/// perfect game only with [`Detail::pv`] (one null-window test per sowing
/// tried along it).
fn analyse(solver: &Solver, pos: &Position, detail: Detail) -> Result<Answer, AnalysisError> {
    let t = Instant::now();
    let (value, moves, best, pv, stats) = if detail.moves {
        let a = solver.analyse(pos)?;
        (a.value, a.moves, a.best, Some(a.pv), a.stats)
    } else if detail.pv {
        let s = solver.solve_line(pos)?;
        (s.value, Vec::new(), Vec::new(), Some(s.pv), s.stats)
    } else {
        let before = solver.stats();
        let value = solver.solve(pos)?;
        (
            value,
            Vec::new(),
            Vec::new(),
            None,
            solver.stats().since(&before),
        )
    };
    Ok(Answer {
        position: *pos,
        value,
        moves,
        best,
        value_only: !detail.moves,
        pv,
        source: Source::Search,
        nodes: stats.nodes,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

/// Why a search of [`search_within`] gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
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
pub(crate) const WATCH_TICK: Duration = Duration::from_millis(20);

/// A solver for `query`'s searches with a stop flag of its own (not the
/// Ctrl-C flag): [`search_within`] raises it at a signal or at the time
/// limit, and lowers it again for the next search. Every tier of `tables`
/// is checked first.
///
/// # Errors
/// A damaged tier (naming its file), or a solver that cannot be built
/// (threads, table memory).
pub fn query_solver(
    game: Game,
    config: SearchConfig,
    tables: Option<Arc<Tables>>,
) -> Result<Solver, Error> {
    new_solver(game, config, tables, StopBy::OwnFlag)
}

/// The answer of a search of `pos` with `detail`, unless Ctrl-C or
/// SIGTERM comes first or `limit` passes: a watchdog thread then raises
/// the solver's stop flag and the unfinished search's values are dropped
/// (an aborted search stores nothing in the transposition table, so later
/// searches by the same solver stay exact). Shows progress on a terminal.
pub fn search_within(
    solver: &Solver,
    pos: &Position,
    detail: Detail,
    limit: Option<Duration>,
    label: &str,
    observer: &dyn Observer,
) -> Result<Answer, Stopped> {
    search_until(
        solver,
        pos,
        detail,
        limit,
        &AtomicBool::new(false),
        label,
        observer,
    )
}

/// [`search_within`], also stopped (as [`Stopped::Interrupted`]) within a
/// watchdog tick of `cancel` rising: the server's search of a client that
/// has gone ([`crate::serve::searches`]).
pub fn search_until(
    solver: &Solver,
    pos: &Position,
    detail: Detail,
    limit: Option<Duration>,
    cancel: &AtomicBool,
    label: &str,
    observer: &dyn Observer,
) -> Result<Answer, Stopped> {
    let Some(stop) = solver.stop_flag() else {
        // A solver watching the Ctrl-C flag itself: no time limit.
        return analyse(solver, pos, detail).map_err(|e| match e {
            AnalysisError::Interrupted => Stopped::Interrupted,
            e => Stopped::Failed(e.to_string()),
        });
    };
    if interrupt::requested() || cancel.load(Ordering::SeqCst) {
        return Err(Stopped::Interrupted);
    }
    stop.store(false, Ordering::SeqCst);
    let timed_out = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let result = thread::scope(|scope| {
        let watchdog = scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if interrupt::requested() || cancel.load(Ordering::SeqCst) {
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
        let mut result = None;
        observer.search(label, &|| solver.stats().nodes, &mut || {
            result = Some(analyse(solver, pos, detail));
        });
        // An observer that did not run the search stopped it.
        let result = result.unwrap_or(Err(AnalysisError::Interrupted));
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

/// The limit as the user wrote it, near enough: `2`, `0.2`, `1.5`.
pub fn seconds(limit: Duration) -> String {
    format!("{}", limit.as_secs_f64())
}

/// The error for a search stopped by `--time-limit`.
pub fn over_limit(limit: Option<Duration>) -> String {
    format!(
        "no answer within the time limit (--time-limit {} s): the search was stopped unfinished",
        seconds(limit.unwrap_or_default())
    )
}

/// What a search is about to do, said before it starts: a search outside
/// the tables can take from milliseconds to hours.
pub fn searching_note(pos: &Position, tables: Option<&Tables>, limit: Option<Duration>) -> String {
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
