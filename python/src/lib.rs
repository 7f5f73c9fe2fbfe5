//! `kalah._kalah`: the engine as a Python extension module, re-exported
//! whole by the `kalah` package (python/kalah/__init__.py).
//!
//! The API follows python-chess's `chess.syzygy`, which researchers know:
//! a [`position::PyPosition`] parsed from the project's notation, tables
//! opened from a directory and probed (`None` where they have no value),
//! exceptions for everything else. Answers are the service layer's
//! ([`kalah::service`]) with docs/json.md's fields, so Python and `kalah
//! query --json` cannot drift apart.
//!
//! Every call that may take long (a search, a table build, a batch probe)
//! runs without the GIL, and a search or a build stops within a fraction
//! of a second of Ctrl-C: see [`wait`].
//!
//! No unsafe code here: PyO3's macros hold it.

#![forbid(unsafe_code)]

mod answer;
mod errors;
mod position;
mod tables;
mod wait;

use pyo3::prelude::*;

/// The module `kalah._kalah`.
#[pymodule]
fn _kalah(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<position::PyPosition>()?;
    m.add_class::<tables::PyTables>()?;
    m.add_class::<answer::PySearcher>()?;
    m.add_function(wrap_pyfunction!(answer::query, m)?)?;
    m.add_function(wrap_pyfunction!(answer::solve, m)?)?;
    m.add_function(wrap_pyfunction!(tables::build_tables, m)?)?;
    m.add("RULES", errors::rule_slugs())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
