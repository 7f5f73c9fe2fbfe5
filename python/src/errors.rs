//! Rules by name and the engine's errors as Python exceptions, with the
//! command line's messages.

use kalah::service;
use kalah_solver::table::{TableError, ALL_RULES};
use kalah_solver::Rules;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
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
