//! `kalah.query`, `kalah.Searcher` and `kalah.solve`: the service layer's
//! answers as Python dicts with docs/json.md's fields (serde's JSON, read
//! by Python's `json` module, so the fields come in the documented order
//! and with the same values as `kalah query --json` and `kalah solve
//! --json`).

use std::ops::Deref;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use kalah::service::answer::{round3, Detail, Outcome, SolvedGame};
use kalah::service::position::{over_limit, query_solver, search_until, without_search, Stopped};
use kalah::service::setup::{new_solver, StopBy};
use kalah::service::Silent;
use kalah_solver::search::{SearchConfig, Solver};
use kalah_solver::table::Tables;
use kalah_solver::{Game, Probe, Rules, Side};
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde::Serialize;

use crate::errors;
use crate::position::PyPosition;
use crate::tables::PyTables;
use crate::wait::interruptible;

/// The position of a `query` or `solve` argument: a `kalah.Position`, or
/// text read under `rules` (standard when not given). Rules given beside
/// a position must be its own.
fn position_arg(position: &Bound<'_, PyAny>, rules: Option<&str>) -> PyResult<PyPosition> {
    if let Ok(p) = position.downcast::<PyPosition>() {
        let p = *p.get();
        if let Some(slug) = rules {
            if errors::rules(slug)? != p.rules {
                return Err(PyValueError::new_err(format!(
                    "rules='{slug}' given for a position under rules '{}'",
                    p.rules.slug()
                )));
            }
        }
        return Ok(p);
    }
    let text: String = position.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("position: a kalah.Position or its text")
    })?;
    let rules = errors::rules(rules.unwrap_or("std"))?;
    let position = kalah::service::parse_position(&text).map_err(errors::service)?;
    Ok(PyPosition { position, rules })
}

/// A search's configuration: `tt_mb` MiB of transposition table, `threads`
/// search threads (None: one a core, as the command line).
fn config(tt_mb: usize, threads: Option<usize>) -> PyResult<SearchConfig> {
    if tt_mb == 0 || tt_mb > 1 << 20 {
        return Err(PyValueError::new_err(format!(
            "tt_mb={tt_mb}: a transposition table of 1 to 1048576 MiB"
        )));
    }
    let threads = match threads {
        Some(0) | None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(n) if n <= 1024 => n,
        Some(n) => return Err(PyValueError::new_err(format!("threads={n}: at most 1024"))),
    };
    Ok(SearchConfig {
        tt_mb,
        threads,
        ..SearchConfig::default()
    })
}

/// `value` as a Python object through its JSON text (Python's `json`
/// keeps the fields' order).
fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?
        .call_method1("loads", (PyString::new(py, &text),))
}

/// The exact value of `position` (a `kalah.Position`, or its text read
/// under `rules`), every legal move's value and a perfect game: a dict
/// with the fields of `kalah query --json` (docs/json.md): `position`,
/// `to_move`, `rules`, `value`, `result`, `moves`, `best`, `pv`,
/// `source`, `nodes`, `ms`.
///
/// The answer comes from the finished game's score, else from `tables`
/// (a `kalah.Tables`) when the position is inside them, else from a
/// search probing them (or without tables when None). With `value_only`,
/// a search solves the position alone: no `moves`, `best` (nor `pv`
/// unless `pv=True`). A search runs without the GIL; it gives up after
/// `time_limit` seconds (TimeoutError) and stops at Ctrl-C
/// (KeyboardInterrupt) within a fraction of a second.
///
/// Raises ValueError for a bad position or rules, or tables of another
/// board size or rules; RuntimeError for tables that contradict
/// themselves or a solver that cannot start.
#[pyfunction]
#[pyo3(signature = (position, *, tables = None, rules = None, value_only = false, pv = false, time_limit = None, tt_mb = 256, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn query<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    tables: Option<&PyTables>,
    rules: Option<&str>,
    value_only: bool,
    pv: bool,
    time_limit: Option<f64>,
    tt_mb: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = position_arg(position, rules)?;
    if let Some(t) = tables {
        t.check(&p)?;
    }
    let limit = limit(time_limit)?;
    let config = config(tt_mb, threads)?;
    let tables: Option<Arc<Tables>> = tables.map(|t| Arc::clone(&t.tables));
    let game = p.game();
    answer(
        py,
        &p,
        tables.as_deref(),
        detail(value_only, pv),
        limit,
        || {
            py.allow_threads(|| query_solver(game.clone(), config, tables.clone()))
                .map(Box::new)
                .map_err(errors::service)
        },
    )
}

/// A `time_limit` argument.
fn limit(time_limit: Option<f64>) -> PyResult<Option<Duration>> {
    match time_limit {
        None => Ok(None),
        Some(s) if s > 0.0 && s <= 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(PyValueError::new_err(format!(
            "time_limit={s}: more than 0 and at most 1e9 seconds"
        ))),
    }
}

/// What a query's answer holds, as `kalah query` with `--value-only` and
/// `--pv`.
fn detail(value_only: bool, pv: bool) -> Detail {
    Detail {
        moves: !value_only,
        pv: !value_only || pv,
    }
}

/// The answer for `p` as a dict: the finished game's score or the tables'
/// answer when either gives one, else a search by the solver `solver`
/// gives (made only then), interruptible.
fn answer<'py, S: Deref<Target = Solver>>(
    py: Python<'py>,
    p: &PyPosition,
    tables: Option<&Tables>,
    detail: Detail,
    limit: Option<Duration>,
    solver: impl FnOnce() -> PyResult<S>,
) -> PyResult<Bound<'py, PyAny>> {
    let game = p.game();
    let known = py
        .allow_threads(|| without_search(&game, tables, None, &p.position, detail))
        .map_err(errors::service)?;
    let answer = match known {
        Some(a) => a,
        None => {
            let solver = solver()?;
            let solver: &Solver = &solver;
            let cancel = AtomicBool::new(false);
            let found = interruptible(py, &cancel, || {
                search_until(
                    solver,
                    &p.position,
                    detail,
                    limit,
                    &cancel,
                    "searching",
                    &Silent,
                )
            })?;
            found.map_err(|stop| match stop {
                Stopped::TimeLimit => PyTimeoutError::new_err(over_limit(limit)),
                Stopped::Interrupted => PyRuntimeError::new_err("interrupted: no answer"),
                Stopped::Failed(m) => PyRuntimeError::new_err(m),
            })?
        }
    };
    to_python(py, &answer.line(&p.rules.slug(), None))
}

/// A search engine kept between queries: its transposition table keeps
/// what earlier searches found, so the positions of one game (each a
/// child of the one before) are answered far faster than by `kalah.query`,
/// which starts afresh each time. One search at a time (a second caller
/// waits).
#[pyclass(name = "Searcher", module = "kalah", frozen)]
pub struct PySearcher {
    solver: Mutex<Solver>,
    tables: Option<Arc<Tables>>,
    game: Game,
}

impl PySearcher {
    /// The solver, once no other caller searches with it (waiting without
    /// the GIL). A search that panicked left nothing half written that
    /// matters: an aborted search stores nothing.
    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, Solver> {
        loop {
            match self.solver.try_lock() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.allow_threads(|| std::thread::sleep(Duration::from_millis(5)))
                }
            }
        }
    }
}

#[pymethods]
impl PySearcher {
    /// A searcher for positions of `pits` houses a side under `rules`,
    /// probing `tables` (a `kalah.Tables` of that game) when given, with
    /// a transposition table of `tt_mb` MiB and `threads` search threads
    /// (None: one a core).
    #[new]
    #[pyo3(signature = (tables = None, *, pits = None, rules = None, tt_mb = 256, threads = None))]
    fn new(
        py: Python<'_>,
        tables: Option<&PyTables>,
        pits: Option<usize>,
        rules: Option<&str>,
        tt_mb: usize,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let rules = match (rules, tables) {
            (Some(slug), _) => errors::rules(slug)?,
            (None, Some(t)) => t.tables.rules(),
            (None, None) => Rules::STANDARD,
        };
        let pits = pits.or(tables.map(|t| t.tables.pits())).unwrap_or(6);
        if !(1..=kalah_solver::rules::MAX_PITS).contains(&pits) {
            return Err(PyValueError::new_err(format!(
                "{pits} houses a side: 1 to {} are supported",
                kalah_solver::rules::MAX_PITS
            )));
        }
        let game = Game::new(pits, rules);
        if let Some(t) = tables {
            t.check(&PyPosition {
                position: kalah_solver::GameSize::new(pits as u64, 1)
                    .map(kalah_solver::GameSize::start)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
                rules,
            })?;
        }
        let config = config(tt_mb, threads)?;
        let tables: Option<Arc<Tables>> = tables.map(|t| Arc::clone(&t.tables));
        let solver = py
            .allow_threads(|| query_solver(game.clone(), config, tables.clone()))
            .map_err(errors::service)?;
        Ok(PySearcher {
            solver: Mutex::new(solver),
            tables,
            game,
        })
    }

    /// As `kalah.query`, on this searcher's tables and transposition table.
    ///
    /// Raises ValueError for a position of another board size or rules.
    #[pyo3(signature = (position, *, value_only = false, pv = false, time_limit = None))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        value_only: bool,
        pv: bool,
        time_limit: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = position_arg(position, None)?;
        let p = if position.downcast::<PyPosition>().is_ok() {
            p
        } else {
            PyPosition {
                rules: self.game.rules(),
                ..p
            }
        };
        if p.position.pits() != self.game.pits() || p.rules != self.game.rules() {
            return Err(PyValueError::new_err(format!(
                "this searcher is for {} houses a side under rules '{}'; the position {} has {} houses under rules '{}'",
                self.game.pits(),
                self.game.rules().slug(),
                p.position,
                p.position.pits(),
                p.rules.slug()
            )));
        }
        let limit = limit(time_limit)?;
        answer(
            py,
            &p,
            self.tables.as_deref(),
            detail(value_only, pv),
            limit,
            || Ok(self.lock(py)),
        )
    }
}

/// Solves Kalah(pits, seeds) from the start under `rules`: a dict with the
/// fields of `kalah solve --json` (docs/json.md): `pits`, `seeds`,
/// `rules`, `to_move`, `value` (South's), `result`, `best_turn`, `pv`,
/// `nodes`, `nodes_per_second`, `table_seeds`, `build_seconds`,
/// `solve_seconds`, `threads`. Searches over `tables` (a `kalah.Tables`
/// of the same board size and rules) when given; nothing is built here
/// (`kalah.build_tables` builds). Runs without the GIL; Ctrl-C stops it
/// within a fraction of a second (KeyboardInterrupt).
///
/// Raises ValueError for a size out of range (the command line's
/// message), unknown rules or tables of another game.
#[pyfunction]
#[pyo3(signature = (pits, seeds, *, rules = "std", tables = None, tt_mb = 256, threads = None))]
pub fn solve<'py>(
    py: Python<'py>,
    pits: &Bound<'py, PyAny>,
    seeds: &Bound<'py, PyAny>,
    rules: &str,
    tables: Option<&PyTables>,
    tt_mb: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let size = errors::game_size(pits, seeds)?;
    let start = PyPosition {
        position: size.start(),
        rules: errors::rules(rules)?,
    };
    if let Some(t) = tables {
        t.check(&start)?;
    }
    let config = config(tt_mb, threads)?;
    let threads = config.threads;
    let tables: Option<Arc<Tables>> = tables.map(|t| Arc::clone(&t.tables));
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
    let game = start.game();
    let solver = py
        .allow_threads(|| new_solver(game, config, tables, StopBy::OwnFlag))
        .map_err(errors::service)?;
    let stop = solver
        .stop_flag()
        .ok_or_else(|| PyRuntimeError::new_err("the solver has no stop flag of its own"))?;
    let t = Instant::now();
    let solution = interruptible(py, &stop, || solver.solve_line(&start.position))?
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let seconds = t.elapsed().as_secs_f64();
    let stats = solver.stats();
    let line = solution.pv_line();
    let value = solution.value;
    let game = SolvedGame {
        pits: size.pits(),
        seeds: size.seeds(),
        rules: start.rules.slug(),
        to_move: Side::South.letter(),
        value,
        result: Outcome::of(value),
        best_turn: line.turns.first().cloned().unwrap_or_default(),
        pv: line.to_string(),
        nodes: stats.nodes,
        nodes_per_second: stats.nodes_per_second().round() as u64,
        table_seeds,
        build_seconds: 0.0,
        solve_seconds: round3(seconds),
        threads,
    };
    to_python(py, &game)
}
