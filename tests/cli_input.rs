//! The binary's handling of bad input: specific messages, exit status 2,
//! never a panic.

use std::process::{Command, Output};

mod common;
use common::MALFORMED;

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .output()
        .expect("run kalah")
}

#[test]
fn twenty_malformed_positions_each_get_a_specific_error_and_status_2() {
    assert!(MALFORMED.len() >= 20);
    for (text, phrase) in MALFORMED {
        let out = kalah(&["show", text]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(
            stderr.contains(phrase),
            "{text:?}: expected '{phrase}' in: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{text:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn valid_positions_are_shown() {
    let out = kalah(&["show", "4,4,4,4,4,4,0,4,4,4,4,4,4,0,S"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("position: 4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"));
    assert!(text.contains("legal moves for South: 1 2 3 4 5 6"));
    // Words split by the shell are joined back.
    let out = kalah(&[
        "show", "0", "0", "0", "0", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "S",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("final score +1 for South"));
}

#[test]
fn bad_lines_and_arguments_exit_2() {
    for (args, phrase) in [
        (vec!["play-line", "36-7"], "no house 7"),
        (vec!["play-line", "36-0"], "house 0 does not exist"),
        (vec!["play-line", "3--2"], "turn 2 is empty"),
        (vec!["play-line", "3x"], "'x' is not a house number"),
        (vec!["play-line", "4"], ""),
        (vec!["play-line", "3-2"], "earned an extra turn"),
        (vec!["play-line", "1.2"], "earned no extra turn"),
        (vec!["play-line", "--pits", "9", "1"], "9 is not in 1..=8"),
        (vec!["perft", "--depth", "0"], "0 is not in 1..=12"),
        (vec!["perft", "--end", "later"], "invalid value 'later'"),
        (vec!["frobnicate"], "unrecognized subcommand"),
    ] {
        let out = kalah(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if phrase.is_empty() {
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(phrase),
            "{args:?}: expected '{phrase}' in: {stderr}"
        );
    }
}

#[test]
fn perft_prints_published_counts_with_empty_capture() {
    let out = kalah(&[
        "perft",
        "--pits",
        "6",
        "--seeds",
        "4",
        "--depth",
        "7",
        "--empty-capture",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"{"depth":7,"sequences":113959,"distinct":112597}"#),
        "{text}"
    );
}

#[test]
fn play_line_scores_an_idu_game() {
    let out = kalah(&[
        "play-line",
        "--empty-capture",
        "--idu",
        "--pits",
        "6",
        "--seeds",
        "2",
        "42-42-30-0-1-1-4-5",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("final score +10 for South"));
}
