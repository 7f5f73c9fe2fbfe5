//! What a terminal front end (`kalah`, `kalah-cluster`) shows the person
//! watching, on standard error: notes ([`note`]), a long search's progress
//! line ([`search`]), a table build's progress bars ([`build`]); [`Stderr`]
//! is the service's [`Observer`] that shows them. Results go to standard
//! output ([`crate::output`]), never here.

pub mod build;
pub mod search;

use std::io::Write;

use crate::service::Observer;

pub use search::{clock, with_search_estimate, with_search_progress};

/// Says on stderr what the command is doing, as `kalah: text`, whatever
/// stderr is (scripts see it too, as they see the build's tier lines). A
/// failed write is ignored: stderr is only for the person watching, and a
/// command must not fail, nor panic as `eprintln!` would, for want of it.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "kalah: {text}");
}

/// The service's observer for a terminal front end: notes and search
/// progress on standard error.
pub struct Stderr;

impl Observer for Stderr {
    fn note(&self, text: &str) {
        note(text);
    }

    fn search(&self, label: &str, nodes: &(dyn Fn() -> u64 + Sync), search: &mut dyn FnMut()) {
        with_search_progress(label, nodes, search);
    }
}
