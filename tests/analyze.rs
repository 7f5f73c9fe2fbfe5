//! `kalah analyze` through the binary: every value it gives equals `kalah
//! query`'s for the same position; a perfect game (the one `kalah solve`
//! prints, and IDU's published games) loses nothing on any move; a known
//! blunder is named with its cost; bad lines are refused naming the turn.
//! And `kalah play`: its game's line printed at the end, `--from`.

mod common;

use std::process::Output;

use common::{kalah_command, run_with_input};
use kalah::published::IDU_GAMES;
use serde_json::Value;

fn kalah(args: &[&str]) -> Output {
    kalah_command().args(args).output().expect("run kalah")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `kalah args --json`'s object (the command must succeed).
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = kalah(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    serde_json::from_str(text(&out.stdout).trim())
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", text(&out.stdout)))
}

/// Every move of `review` against `kalah query --json` of its position
/// under `rules` (flags): the position's value, the value of the house
/// played, the best houses; the loss is their difference.
fn agrees_with_query(review: &Value, rules: &[&str]) {
    let moves = review["moves"].as_array().expect("moves");
    assert!(!moves.is_empty());
    for m in moves {
        let pos = m["position"].as_str().expect("position");
        let mut args = vec!["query", "--no-tables", pos];
        args.extend_from_slice(rules);
        let q = json(&args);
        assert_eq!(m["value"], q["value"], "{pos}: {m}");
        assert_eq!(m["to_move"], q["to_move"], "{pos}");
        assert_eq!(m["best"], q["best"], "{pos}");
        let house = m["house"].as_u64().expect("house");
        let played = q["moves"]
            .as_array()
            .expect("query's moves")
            .iter()
            .find(|q| q["house"].as_u64() == Some(house))
            .unwrap_or_else(|| panic!("{pos}: house {house} not in {q}"));
        assert_eq!(m["played"], played["value"], "{pos} house {house}");
        assert_eq!(m["extra_turn"], played["extra_turn"], "{pos} house {house}");
        let loss = q["value"].as_i64().unwrap() - played["value"].as_i64().unwrap();
        assert_eq!(m["loss"].as_i64(), Some(loss), "{pos} house {house}");
        assert_eq!(m["mistake"].as_bool(), Some(loss > 0));
    }
}

fn losses(review: &Value) -> Vec<i64> {
    review["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["loss"].as_i64().expect("loss"))
        .collect()
}

/// The perfect game `kalah solve --pits 6 --seeds 3` prints: 0 lost on
/// every move, the game ends at the solved value, and each value is
/// `query`'s.
#[test]
fn the_perfect_game_of_a_solve_loses_nothing() {
    for (pits, seeds) in [("6", "3"), ("4", "3")] {
        let solved = json(&["solve", "--no-tables", "--pits", pits, "--seeds", seeds]);
        let pv = solved["pv"].as_str().expect("pv");
        let review = json(&[
            "analyze",
            "--no-tables",
            "--pits",
            pits,
            "--seeds",
            seeds,
            pv,
        ]);
        assert!(losses(&review).iter().all(|&l| l == 0), "{review}");
        for side in ["south", "north"] {
            assert_eq!(review[side]["mistakes"], 0, "{review}");
            assert_eq!(review[side]["loss"], 0, "{review}");
        }
        assert_eq!(review["moves"][0]["value"], solved["value"]);
        assert_eq!(review["game_over"], true);
        assert_eq!(review["final_score"], solved["value"]);
        assert_eq!(review["line"], pv);
        if pits == "4" {
            // Kalah(6,3)'s 50-odd positions each by query too would take
            // a minute; Kalah(4,3)'s are checked one by one.
            agrees_with_query(&review, &[]);
        }
    }
}

/// IDU's published perfect games (empty capture, 0-based houses) of up to
/// 40 seeds, searched without tables (a few seconds): no move gives
/// anything away, and each game ends at its published value. (The larger
/// ones, 5(5), 5(6), 6(4) and 6(5), need endgame tables and minutes.)
#[test]
fn the_published_perfect_games_lose_nothing() {
    for g in IDU_GAMES.iter().filter(|g| g.pits * g.seeds <= 20) {
        let (pits, seeds) = (g.pits.to_string(), g.seeds.to_string());
        let review = json(&[
            "analyze",
            "--no-tables",
            "--idu",
            "--empty-capture",
            "--pits",
            &pits,
            "--seeds",
            &seeds,
            g.line,
        ]);
        assert!(
            losses(&review).iter().all(|&l| l == 0),
            "{}({}): {review}",
            g.pits,
            g.seeds
        );
        assert_eq!(
            review["final_score"].as_i64(),
            Some(g.value as i64),
            "{review}"
        );
        assert_eq!(review["rules"], "ec");
    }
}

/// Kalah(4,3): South's first move 1 turns the win of +6 into a loss of -6
/// (12 given away); North's reply 2 is best. Named with its cost in the
/// text, in the JSON, and equal to `query`'s values.
#[test]
fn a_known_blunder_is_named_with_its_cost() {
    let out = kalah(&[
        "analyze",
        "--no-tables",
        "--pits",
        "4",
        "--seeds",
        "3",
        "1-2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("Kalah, 4 houses a side, 24 seeds in all; standard capture, end: sweep"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|l| l.contains("South") && l.contains("mistake"))
        .unwrap_or_else(|| panic!("no mistake marked: {stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells[..7],
        ["1", "South", "1", "+6", "-6", "12", "2"],
        "{row}"
    );
    assert!(row.ends_with("mistake: win to loss"), "{row}");
    assert!(
        stdout.contains("South: 1 mistake, 12 given away in all"),
        "{stdout}"
    );
    assert!(stdout.contains("North: no mistakes"), "{stdout}");
    assert!(
        stdout.contains("game not over: value +6 for North under perfect play from here"),
        "{stdout}"
    );

    let review = json(&[
        "analyze",
        "--no-tables",
        "--pits",
        "4",
        "--seeds",
        "3",
        "1-2",
    ]);
    let first = &review["moves"][0];
    assert_eq!(first["turn"], 1);
    assert_eq!(first["to_move"], "S");
    assert_eq!(first["house"], 1);
    assert_eq!(first["value"], 6);
    assert_eq!(first["played"], -6);
    assert_eq!(first["loss"], 12);
    assert_eq!(first["mistake"], true);
    assert_eq!(first["result"], "win");
    assert_eq!(first["played_result"], "loss");
    assert_eq!(
        review["south"],
        serde_json::json!({"mistakes": 1, "loss": 12})
    );
    assert_eq!(
        review["north"],
        serde_json::json!({"mistakes": 0, "loss": 0})
    );
    assert_eq!(review["end_value"], 6);
    agrees_with_query(&review, &[]);
}

/// A game with mistakes on both sides, under both capture rules and from a
/// position (`--from`): every value is `query`'s.
#[test]
fn every_value_equals_query() {
    for rules in [vec![], vec!["--empty-capture"]] {
        let mut args = vec![
            "analyze",
            "--no-tables",
            "--pits",
            "3",
            "--seeds",
            "3",
            "1.2-2-1-3-2-1-3",
        ];
        args.extend_from_slice(&rules);
        let review = json(&args);
        agrees_with_query(&review, &rules);
        assert!(review["south"]["mistakes"].as_u64() > Some(0), "{review}");
        assert!(review["north"]["mistakes"].as_u64() > Some(0), "{review}");
        let mut args = vec![
            "analyze",
            "--no-tables",
            "--from",
            "2 0 1 3 4 1 0 2 1 3 0 5 S",
            "1 2 2 4 2",
        ];
        args.extend_from_slice(&rules);
        let review = json(&args);
        assert_eq!(review["start"], "2 0 1 3 4 1 0 2 1 3 0 5 S");
        agrees_with_query(&review, &rules);
    }
}

/// Lines that cannot be replayed are refused (status 2) naming the turn,
/// before any table or search; a position with --pits is refused.
#[test]
fn bad_lines_are_refused_naming_the_turn() {
    for (args, phrase) in [
        (
            vec!["analyze", "--pits", "4", "--seeds", "3", "1-5"],
            "turn 2, move 1 (house 5)",
        ),
        (
            vec!["analyze", "--pits", "4", "--seeds", "3", "2-1"],
            "turn 1 ends after house 2",
        ),
        (
            vec!["analyze", "--pits", "4", "--seeds", "3", "1x"],
            "'x' is not a house number",
        ),
        (
            vec!["analyze", "--from", "1 0 1 0 S", "--pits", "5", "1"],
            "cannot be used with",
        ),
        (
            vec!["analyze", "--from", "1 0 x 0 S", "1"],
            "invalid position",
        ),
        (
            vec!["analyze", "--pits", "0", "1"],
            "pits 0 is not in 1..=8",
        ),
    ] {
        let out = kalah(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(phrase), "{args:?}: '{phrase}' in {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// `kalah play` prints its game's line at the end (after the game, a quit
/// or the end of input; undone moves left out), with the `kalah analyze`
/// command that reviews it; `--from` starts from a position.
#[test]
fn play_prints_its_line_for_analyze() {
    // Kalah(3,2), South: the input's moves, each tried in turn (a move not
    // legal then is refused and the next line read).
    let input = "1\n3\n2\n1\n3\n2\n1\n3\n2\n1\n3\n2\n";
    let out = run_with_input(
        &["play", "--pits", "3", "--seeds", "2", "--no-tables"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let over = stdout
        .lines()
        .find(|l| l.starts_with("game over: "))
        .unwrap_or_else(|| panic!("the game did not end: {stdout}"));
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("the game's line: "))
        .unwrap_or_else(|| panic!("no line: {stdout}"));
    assert!(
        stdout.contains(&format!(
            "review it: kalah analyze --pits 3 --seeds 2 \"{line}\""
        )),
        "{stdout}"
    );
    let review = json(&[
        "analyze",
        "--no-tables",
        "--pits",
        "3",
        "--seeds",
        "2",
        line,
    ]);
    assert_eq!(review["game_over"], true);
    // The line ends where the game did.
    let score = review["final_score"].as_i64().expect("a final score");
    let said = if score > 0 {
        format!("(+{score})")
    } else {
        format!("({score})")
    };
    // The person played South: play's score in brackets is South's.
    assert!(over.ends_with(&said), "{over}: final score {score}");
    // The program's moves are all best.
    for m in review["moves"].as_array().unwrap() {
        if m["to_move"] == "N" {
            assert_eq!(m["loss"], 0, "{m}");
        }
    }

    // From a position, with a move undone and played again, then quit.
    let from = "2 0 1 3 4 1 0 2 1 3 0 5 S";
    let out = run_with_input(
        &["play", "--from", from, "--no-tables", "--empty-capture"],
        b"1\nu\n1\nq\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(
            "Kalah, 5 houses a side, 22 seeds in all; empty capture, end: sweep. You play South"
        ),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("the game's line: "))
        .unwrap_or_else(|| panic!("no line: {stdout}"));
    assert!(line.starts_with("1-"), "{line}");
    assert_eq!(line.matches('-').count(), 1, "one turn each: {line}");
    assert!(stdout.contains(&format!(
        "review it: kalah analyze --from \"{from}\" --empty-capture \"{line}\""
    )));
    let review = json(&[
        "analyze",
        "--no-tables",
        "--empty-capture",
        "--from",
        from,
        line,
    ]);
    assert_eq!(review["start"], from);
}
