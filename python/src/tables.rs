//! `kalah.Tables`: endgame tables opened from a directory and probed,
//! never searched (python-chess's `chess.syzygy` in shape); and
//! `kalah.build_tables`, the engine's table builder.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use kalah_solver::table::{build_tables as build, BuildConfig, Check, TableError, Tables};
use kalah_solver::{Game, Probe};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::errors;
use crate::position::PyPosition;
use crate::wait::interruptible;

/// A batch of at least this many positions is probed on every core.
const PARALLEL_BATCH: usize = 1 << 16;

/// Endgame tables of one board size and rule set: the exact value of
/// every board with up to `max_seeds` seeds in its houses.
#[pyclass(name = "Tables", module = "kalah", frozen)]
pub struct PyTables {
    pub tables: Arc<Tables>,
    pub game: Game,
}

impl PyTables {
    /// Refuses a position of another board size or rule set than the
    /// tables'.
    pub fn check(&self, p: &PyPosition) -> PyResult<()> {
        if p.position.pits() != self.tables.pits() || p.rules != self.tables.rules() {
            return Err(PyValueError::new_err(format!(
                "the tables in {} are for {} houses a side under rules '{}'; the position {} has {} houses under rules '{}'",
                self.tables.dir().display(),
                self.tables.pits(),
                self.tables.rules().slug(),
                p.position,
                p.position.pits(),
                p.rules.slug()
            )));
        }
        Ok(())
    }

    /// The value of `p` for the side to move from the tables alone: the
    /// stores' difference plus the value of the houses; a finished game's
    /// score without a probe; `None` for houses beyond the tables.
    fn value(&self, p: &PyPosition) -> Result<Option<i32>, TableError> {
        let board = p.position.board();
        let houses = match self.game.terminal_value(board) {
            Some(v) => Some(v),
            None => self.tables.try_probe(board)?,
        };
        Ok(houses.map(|v| p.position.store_difference() + v))
    }
}

#[pymethods]
impl PyTables {
    /// Opens the tables of `pits` houses a side under `rules` in the
    /// directory `path` (the files `kalah build` or `kalah.build_tables`
    /// wrote): tiers 0..K, K the largest with every file there. Files are
    /// mapped and their checksums checked when first read.
    ///
    /// Raises FileNotFoundError when the directory holds no tables of that
    /// size and rules, ValueError for unknown rules or a board size out of
    /// range.
    #[staticmethod]
    #[pyo3(signature = (path, pits = 6, *, rules = "std"))]
    fn open(path: PathBuf, pits: usize, rules: &str) -> PyResult<Self> {
        let rules = errors::rules(rules)?;
        if !(1..=kalah_solver::rules::MAX_PITS).contains(&pits) {
            return Err(PyValueError::new_err(format!(
                "{pits} houses a side: 1 to {} are supported",
                kalah_solver::rules::MAX_PITS
            )));
        }
        let tables = Tables::open_with(&path, pits, rules, None, Check::Remembered)
            .map_err(errors::table)?;
        Ok(PyTables {
            tables: Arc::new(tables),
            game: Game::new(pits, rules),
        })
    }

    /// Houses a side.
    #[getter]
    fn pits(&self) -> usize {
        self.tables.pits()
    }

    /// The rules' slug.
    #[getter]
    fn rules(&self) -> String {
        self.tables.rules().slug()
    }

    /// Boards with up to this many seeds in their houses are in the tables.
    #[getter]
    fn max_seeds(&self) -> u32 {
        self.tables.max_seeds()
    }

    /// The directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.tables.dir().to_path_buf()
    }

    /// The exact value of `position` for the side to move (its final store
    /// difference under perfect play), from the tables alone: None when its
    /// houses hold more seeds than the tables cover. Never searches. A
    /// finished game gives its score.
    ///
    /// Raises ValueError for a position of another board size or rules,
    /// OSError for a table file that fails its check.
    fn probe(&self, position: &PyPosition) -> PyResult<Option<i32>> {
        self.check(position)?;
        self.value(position).map_err(errors::table)
    }

    /// `probe` of every position of a sequence, in order: a list of int or
    /// None. The probes run without the GIL (on every core for a large
    /// batch).
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut batch = Vec::with_capacity(positions.len().unwrap_or(0));
        let mut take = |item: &Bound<'py, PyAny>| -> PyResult<()> {
            let p = item.downcast::<PyPosition>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "probe_many takes kalah.Position objects, not {}",
                    item.get_type()
                ))
            })?;
            let p = *p.get();
            self.check(&p)?;
            batch.push(p);
            Ok(())
        };
        if let Ok(list) = positions.downcast::<PyList>() {
            for item in list.iter() {
                take(&item)?;
            }
        } else {
            for item in positions.try_iter()? {
                take(&item?)?;
            }
        }
        let values = py.allow_threads(|| -> Result<Vec<Option<i32>>, TableError> {
            if batch.len() >= PARALLEL_BATCH {
                batch.par_iter().map(|p| self.value(p)).collect()
            } else {
                batch.iter().map(|p| self.value(p)).collect()
            }
        });
        PyList::new(py, values.map_err(errors::table)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Tables('{}', pits={}, rules='{}', max_seeds={})",
            self.tables.dir().display(),
            self.tables.pits(),
            self.tables.rules().slug(),
            self.tables.max_seeds()
        )
    }
}

/// Builds (or completes) the endgame tables of `pits` houses a side under
/// `rules` in the directory `path`: every board with up to `max_seeds`
/// seeds, tiers already there kept (as `kalah build`). Runs without the
/// GIL on `threads` threads (0: every core); Ctrl-C stops it after the
/// tier being built is abandoned (no partial file), raising
/// KeyboardInterrupt. Returns a dict: `pits`, `rules`, `max_seeds`,
/// `built_boards`, `bytes`, `seconds`.
#[pyfunction]
#[pyo3(signature = (path, max_seeds, pits = 6, *, rules = "std", threads = 0))]
pub fn build_tables<'py>(
    py: Python<'py>,
    path: PathBuf,
    max_seeds: u32,
    pits: usize,
    rules: &str,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let rules = errors::rules(rules)?;
    let config = BuildConfig {
        pits,
        rules,
        max_seeds,
        threads,
    };
    let stop = AtomicBool::new(false);
    let report = interruptible(py, &stop, || build(&path, &config, &(), &stop))?;
    let report = report.map_err(errors::table)?;
    let out = PyDict::new(py);
    out.set_item("pits", pits)?;
    out.set_item("rules", rules.slug())?;
    out.set_item("max_seeds", max_seeds)?;
    out.set_item("built_boards", report.built_boards)?;
    out.set_item("bytes", report.bytes)?;
    out.set_item("seconds", kalah::service::answer::round3(report.seconds))?;
    Ok(out)
}
