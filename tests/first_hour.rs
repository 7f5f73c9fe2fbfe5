//! The first-hour defects of issue 53, each as a new user met it: a
//! `query` answer that does not say its rules or board, a 6-house position
//! typed without stores read silently as 5 houses, a move line pasted with
//! spaces between turns, the install line, the reference list.

mod common;

use std::process::Output;

use common::kalah_command;

fn kalah(args: &[&str]) -> Output {
    kalah_command().args(args).output().expect("run kalah")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The same position is +8 under one rule and +10 under the other: the
/// first line of every text answer names the board and the rules.
#[test]
fn query_names_board_and_rules_in_its_first_line() {
    // A position in the 6-house tables' range but answered by a short
    // search here (no tables), so the test needs no table directory.
    let pos = "1 0 2 0 0 1 20 0 3 0 1 0 2 18 S";
    for (flags, rules) in [
        (vec![], "standard capture, end: sweep"),
        (vec!["--empty-capture"], "empty capture, end: sweep"),
        (vec!["--end", "delayed"], "standard capture, end: delayed"),
    ] {
        let mut args = vec!["query", "--no-tables", pos];
        args.extend(flags.iter().copied());
        let out = kalah(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let first = stdout.lines().next().unwrap_or("");
        assert_eq!(
            first,
            format!("Kalah, 6 houses a side, 48 seeds in all; {rules}"),
            "{stdout}"
        );
    }
    // A finished game's answer too.
    let out = kalah(&["query", "--no-tables", "0 0 0 0 1 0 0 0 0 0 0 0 0 0 S"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("Kalah, 6 houses a side, 1 seed in all; standard capture"),
        "{stdout}"
    );
}

/// Twelve counts are 5 houses with stores, never 6 houses without: every
/// command that reads a position says so when the board is not 6 houses.
#[test]
fn a_board_of_another_size_says_how_it_was_read() {
    let twelve = "4 4 4 4 4 4 4 4 4 4 4 4 S";
    let said = "read as 5 houses a side: the 12 counts are S1..S5, South's store, N1..N5, North's store (a board of 6 houses takes 14 counts";
    for args in [
        vec!["show", twelve],
        vec!["query", "--no-tables", "--value-only", twelve],
        vec!["play-line", "--from", twelve, "1"],
    ] {
        let out = kalah(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let stderr = text(&out.stderr);
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    let out = kalah(&["query", "--no-tables", "--value-only", twelve]);
    assert!(text(&out.stdout).starts_with("Kalah, 5 houses a side, 48 seeds in all;"));
    // The usual board is not remarked on.
    let out = kalah(&["show", "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"]);
    assert!(
        !text(&out.stderr).contains("read as"),
        "{}",
        text(&out.stderr)
    );
}

/// `play-line "3.6 2.1 4 4"` failed with "there is no house 62": spaces
/// separate turns in a line without dashes, and every dashed form reads as
/// before.
#[test]
fn play_line_takes_spaces_between_turns() {
    let spaced = kalah(&["play-line", "--json", "3.6 2.1 4 4"]);
    assert_eq!(spaced.status.code(), Some(0), "{}", text(&spaced.stderr));
    for same in [
        "3.6-2.1-4-4",
        "36-21-4-4",
        "36 - 21 - 4 - 4",
        " 36\t21 4  4 ",
    ] {
        let out = kalah(&["play-line", "--json", same]);
        assert_eq!(out.status.code(), Some(0), "{same}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), text(&spaced.stdout), "{same}");
    }
    // One turn's moves written apart: the message says what the notation
    // wants.
    let out = kalah(&["play-line", "3 6 2 1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("turn 1 ends after house 3, which earned an extra turn")
            && stderr.contains("the moves of one turn go together, as 36 or 3.6"),
        "{stderr}"
    );
    // IDU lines with spaces too.
    let dashed = kalah(&["play-line", "--idu", "--json", "25-10-3"]);
    let spaced = kalah(&["play-line", "--idu", "--json", "25 10 3"]);
    assert_eq!(dashed.status.code(), Some(0), "{}", text(&dashed.stderr));
    assert_eq!(text(&dashed.stdout), text(&spaced.stdout));
}

fn repo_file(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `reproduce` names its sources by short names ("Rawlings 2015",
/// "mancala-solver"): each is cited in full in docs/REFERENCES.md, which
/// README, `reproduce --help` and `reproduce`'s own output point to.
#[test]
fn every_source_reproduce_names_is_cited() {
    let refs = repo_file("docs/REFERENCES.md");
    let mut sources: Vec<&str> = kalah::published::claims()
        .iter()
        .map(|c| c.source)
        .collect();
    sources.sort_unstable();
    sources.dedup();
    assert!(sources.len() >= 4, "{sources:?}");
    for s in sources.iter().chain(&["claims file"]) {
        assert!(
            refs.contains(&format!("| `{s}` |")),
            "docs/REFERENCES.md has no row for `{s}`"
        );
    }
    for full in [
        "Geoffrey Irving, Jeroen Donkers and Jos Uiterwijk",
        "*ICGA Journal* 23(3), 2000, pp. 139-147",
        "Mark Rawlings",
        "https://github.com/cneisler/mancala-solver",
    ] {
        assert!(refs.contains(full), "docs/REFERENCES.md lacks {full}");
    }
    assert!(repo_file("README.md").contains("(docs/REFERENCES.md)"));
    let help = kalah(&["reproduce", "--help"]);
    assert!(text(&help.stdout).contains("docs/REFERENCES.md"));
    let out = kalah(&[
        "reproduce",
        "--max-pits",
        "1",
        "--max-seeds",
        "1",
        "--no-tables",
        "--no-pie",
        "--empty-capture",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("full citations in docs/REFERENCES.md"),
        "{}",
        text(&out.stdout)
    );
}

/// README: the install line builds the versions of Cargo.lock, a table of
/// contents links every section, and it says how long `cargo test` takes.
#[test]
fn readme_installs_locked_and_has_contents() {
    let readme = repo_file("README.md");
    assert!(readme.contains("\ncargo install --locked --path ."));
    assert!(!readme.contains("cargo install --path"));
    let contents = readme
        .lines()
        .find(|l| l.starts_with("Contents:"))
        .map(|_| {
            let from = readme.find("Contents:").unwrap();
            readme[from..].split("\n\n").next().unwrap().to_string()
        })
        .expect("a Contents: paragraph");
    for heading in readme.lines().filter_map(|l| l.strip_prefix("## ")) {
        // GitHub's anchor: lower case, spaces to dashes, punctuation dropped.
        let anchor: String = heading
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        assert!(
            contents.contains(&format!("[{heading}](#{anchor})")),
            "the contents lack [{heading}](#{anchor})"
        );
    }
    let tests = readme
        .split("\n## Tests\n")
        .nth(1)
        .expect("a Tests section");
    assert!(
        tests.contains("`cargo test --workspace`") && tests.contains("minutes"),
        "the Tests section says how long cargo test takes"
    );
}
