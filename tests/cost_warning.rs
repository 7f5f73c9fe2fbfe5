//! A solve far beyond its tables starts with a warning of its likely cost
//! (issue 53): Kalah(6,6) without tables says, before it searches, what
//! the cost model predicts.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::kalah_command;

#[test]
fn a_far_solve_says_what_it_is_likely_to_cost() {
    let mut child = kalah_command()
        .args(["solve", "--pits", "6", "--seeds", "6", "--no-tables"])
        .args(["--threads", "1", "--tt-mb", "16"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let stderr = child.stderr.take().expect("stderr");
    let mut warning = None;
    for line in BufReader::new(stderr).lines().take(20) {
        let line = line.expect("stderr line");
        if line.contains("warning:") {
            warning = Some(line);
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let w = warning.expect("a warning before the search");
    assert!(
        w.contains("Kalah(6,6) is 72 seeds beyond the endgame tables"),
        "{w}"
    );
    assert!(
        w.contains("the cost model (docs/performance.md) predicts about"),
        "{w}"
    );
    assert!(w.contains("nodes"), "{w}");
}
