//! Rules by name and the engine's errors as Python exceptions, with the
//! command line's messages.

use kalah::service;
use kalah_solver::table::{TableError, ALL_RULES};
use kalah_solver::{GameSize, Rules};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use pyo3::PyErr;

/// Every rule set's slug (`std`, `ec`, `std-delayed`, ...), the names the
/// table files and `--json` use.
pub fn rule_slugs() -> Vec<String> {
    ALL_RULES.iter().map(|r| r.slug()).collect()
}

/// The rule set named `slug`.
///
/// # Errors
/// `ValueError` naming the slugs there are.
pub fn rules(slug: &str) -> Result<Rules, PyErr> {
    Rules::from_slug(slug).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown rules '{slug}': one of {}",
            rule_slugs().join(", ")
        ))
    })
}

/// A service error: bad input is a `ValueError`, a failure (unusable
/// tables, a solver that cannot start) a `RuntimeError`.
pub fn service(e: service::Error) -> PyErr {
    match e {
        service::Error::Input(m) => PyValueError::new_err(m),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A table error: missing files are `FileNotFoundError`, the rest
/// `OSError`, each naming its file.
pub fn table(e: TableError) -> PyErr {
    match e {
        TableError::Missing { .. } => PyFileNotFoundError::new_err(e.to_string()),
        e => PyOSError::new_err(e.to_string()),
    }
}

/// Kalah(pits, seeds) from two Python integers, checked as every front end
/// checks a game's size (the solver's `GameSize::parse` on their digits), so
/// that a negative count or one beyond 64 bits gets the command line's
/// message rather than Python's conversion error.
///
/// # Errors
/// `TypeError` when a count is not an `int` (a `bool` is not a count);
/// `ValueError` with the command line's message when the size is out of
/// range.
pub fn game_size(pits: &Bound<'_, PyAny>, seeds: &Bound<'_, PyAny>) -> PyResult<GameSize> {
    let digits = |name: &str, count: &Bound<'_, PyAny>| -> PyResult<String> {
        if count.is_instance_of::<PyBool>() || !count.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "{name} must be an int, not {}",
                count.get_type().name()?
            )));
        }
        Ok(count.str()?.to_string())
    };
    GameSize::parse(&digits("pits", pits)?, &digits("seeds", seeds)?)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
