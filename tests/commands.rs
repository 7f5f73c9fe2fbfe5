//! The solving commands end to end through the binary: `query` (single and
//! batch) against an independent negamax, `play` driven through its
//! input, `reproduce` with an injected wrong claim, and the SVG it draws.

mod common;

use std::collections::HashMap;
use std::process::{Command, Output};

use common::{is_answer, is_error, model_sow, path, run_with_input, temp_dir, Rng, MALFORMED};
use kalah::{Board, Rules};

fn kalah_with_input(args: &[&str], input: &str) -> Output {
    run_with_input(args, input.as_bytes())
}

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .output()
        .expect("run kalah")
}

/// The value of a board for the mover by plain memoized negamax over the
/// seed-by-seed model of the rules (standard end: a side empty ends the
/// game, each side sweeps its own).
fn negamax(
    m: usize,
    rules: Rules,
    own: &[u8],
    opp: &[u8],
    memo: &mut HashMap<Vec<u8>, i32>,
) -> i32 {
    let (a, b): (i32, i32) = (
        own.iter().map(|&x| x as i32).sum(),
        opp.iter().map(|&x| x as i32).sum(),
    );
    if a == 0 || b == 0 {
        return a - b;
    }
    let key: Vec<u8> = own.iter().chain(opp).copied().collect();
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let board = Board::from_sides(own, opp);
    let mut best = i32::MIN;
    for h in (0..m).filter(|&h| own[h] > 0) {
        let (o, p, gain, extra) = model_sow(m, rules, board, h);
        let v = if extra {
            gain as i32 + negamax(m, rules, &o, &p, memo)
        } else {
            gain as i32 - negamax(m, rules, &p, &o, memo)
        };
        best = best.max(v);
    }
    memo.insert(key, best);
    best
}

/// A field of a one-line JSON object, parsed (a string's text, or a
/// number's or an array's JSON).
fn field(json: &str, name: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("{e}: {json}"));
    match v.get(name) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => panic!("no {name} in {json}"),
    }
}

/// 1000 random 6-house positions with up to 12 seeds on the board and
/// random stores, answered by `query --batch` with 8-seed tables: boards of
/// up to 8 seeds from the tables, the others by search with table probes;
/// every value equals the independent negamax plus the store difference.
#[test]
fn query_values_equal_independent_negamax_in_and_outside_the_tables() {
    for (rules, flag) in [
        (Rules::STANDARD, None),
        (Rules::EMPTY_CAPTURE, Some("--empty-capture")),
    ] {
        let dir = temp_dir("query");
        let mut build = vec![
            "build",
            "--pits",
            "6",
            "--max-seeds",
            "8",
            "--tables",
            path(&dir),
        ];
        build.extend(flag);
        assert_eq!(kalah(&build).status.code(), Some(0));

        let mut rng = Rng::new(99);
        let mut lines = String::new();
        let mut expected = Vec::new();
        let mut memo = HashMap::new();
        for _ in 0..1000 {
            let seeds = rng.below(13) as usize;
            let mut houses = [0u8; 12];
            for _ in 0..seeds {
                houses[rng.below(12) as usize] += 1;
            }
            let stores = [rng.below(40) as i32, rng.below(40) as i32];
            let south_to_move = rng.below(2) == 0;
            let text = format!(
                "{} {} {} {} {}",
                houses[..6]
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
                stores[0],
                houses[6..]
                    .iter()
                    .map(u8::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
                stores[1],
                if south_to_move { "S" } else { "N" }
            );
            let (own, opp, mine, theirs) = if south_to_move {
                (&houses[..6], &houses[6..], stores[0], stores[1])
            } else {
                (&houses[6..], &houses[..6], stores[1], stores[0])
            };
            expected.push((
                mine - theirs + negamax(6, rules, own, opp, &mut memo),
                seeds,
            ));
            lines.push_str(&text);
            lines.push('\n');
        }
        let file = dir.join("positions.txt");
        std::fs::write(&file, &lines).expect("write batch");
        let mut args = vec![
            "query",
            "--batch",
            path(&file),
            "--tables",
            path(&dir),
            "--tt-mb",
            "16",
            "--threads",
            "1",
        ];
        args.extend(flag);
        let out = kalah(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let answers: Vec<&str> = stdout.lines().collect();
        assert_eq!(answers.len(), expected.len());
        let mut sources = HashMap::new();
        for (line, (want, seeds)) in answers.iter().zip(&expected) {
            let got: i32 = field(line, "value").parse().expect("value");
            assert_eq!(got, *want, "{rules}: {line}");
            let source = field(line, "source").to_string();
            let expected_source = match *seeds {
                0 => "finished",
                1..=8 => "table",
                _ => "search",
            };
            // A board with one side empty is a finished game at any size.
            if source != "finished" {
                assert_eq!(source, expected_source, "{line}");
            }
            *sources.entry(source).or_insert(0) += 1;
        }
        assert!(
            sources["table"] > 100 && sources["search"] > 100,
            "{sources:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn single_query_reports_moves_best_and_a_pv_that_replays_to_the_value() {
    let dir = temp_dir("single");
    assert_eq!(
        kalah(&[
            "build",
            "--pits",
            "4",
            "--max-seeds",
            "10",
            "--tables",
            path(&dir)
        ])
        .status
        .code(),
        Some(0)
    );
    // 10 seeds on the board: from the tables.
    let pos = "1 2 0 3 5 0 2 1 1 2";
    let out = kalah(&[
        "query",
        &format!("{pos} S"),
        "--tables",
        path(&dir),
        "--json",
    ]);
    let json = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(field(&json, "source"), "table");
    let value: i32 = field(&json, "value").parse().expect("value");
    // The PV replays from the position to a final score equal to the value.
    let pv = field(&json, "pv").to_string();
    let replay = kalah(&["play-line", "--from", &format!("{pos} S"), &pv, "--json"]);
    let r = String::from_utf8_lossy(&replay.stdout).to_string();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert_eq!(
        field(&r, "final_score").parse::<i32>().expect("score"),
        value,
        "{pv}"
    );
    // Every best move's value is the position's value.
    let parsed: serde_json::Value = serde_json::from_str(json.trim()).expect("JSON");
    let best = parsed["best"].as_array().expect("best");
    assert!(!best.is_empty(), "{json}");
    for house in best {
        let m = parsed["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|m| m["house"] == *house)
            .unwrap_or_else(|| panic!("{json}"));
        assert_eq!(m["value"].as_i64(), Some(value as i64), "{json}");
    }
    // One vocabulary (docs/json.md): the rules, and the result for the side
    // to move.
    assert_eq!(field(&json, "rules"), "std");
    assert_eq!(field(&json, "to_move"), "S");
    let want = ["loss", "draw", "win"][(value.signum() + 1) as usize];
    assert_eq!(field(&json, "result"), want);
    // The text form says the same.
    let text = kalah(&["query", &format!("{pos} S"), "--tables", path(&dir)]);
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(
        t.contains("[table]") && t.contains("principal variation:"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn thirty_malformed_positions_to_query_each_get_a_specific_error_and_status_2() {
    assert!(MALFORMED.len() >= 30);
    for (text, phrase) in MALFORMED {
        let out = kalah(&["query", text, "--no-tables"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(
            stderr.contains(phrase),
            "{text:?}: expected '{phrase}' in: {stderr}"
        );
        assert!(!stderr.contains("panicked"));
    }
}

/// A JSON answer line without what changes from run to run or differs by
/// design between a single query and a batch: the time, the node count,
/// the principal variation (a batch gives it only with `--pv`) and the note
/// (a batch prints it once, on standard error).
fn comparable(line: &str) -> String {
    let mut out = line.to_string();
    for key in ["\"ms\":", "\"nodes\":", "\"pv\":", "\"note\":"] {
        let Some(start) = out.find(key) else { continue };
        let rest = &out[start + key.len()..];
        let len = if let Some(quoted) = rest.strip_prefix('"') {
            quoted.find('"').expect("closing quote") + 2
        } else {
            rest.find([',', '}']).unwrap_or(rest.len())
        };
        if key == "\"pv\":" || key == "\"note\":" {
            out.replace_range(start - 1..start + key.len() + len, "");
        } else {
            out.replace_range(start + key.len()..start + key.len() + len, "_");
        }
    }
    out
}

/// Every way of writing a position (commas, spacing, tabs, leading zeros,
/// side words, CR LF endings) gets the same batch answer, and it is the
/// single query's: inside the tables, finished, by search, other board
/// sizes; bad lines keep their numbers.
#[test]
fn batch_answers_every_written_form_as_a_single_query() {
    let dir = temp_dir("forms");
    let build = [
        "build",
        "--pits",
        "6",
        "--max-seeds",
        "6",
        "--tables",
        path(&dir),
    ];
    assert_eq!(kalah(&build).status.code(), Some(0));
    let positions = [
        "0 2 0 0 1 0 14 0 1 0 1 0 0 15 N",
        "2 1 0 0 0 0 14 2 1 0 1 0 0 8 S",
        "0 0 0 0 0 0 14 0 1 0 1 0 0 15 S",
        "3 0 1 0 0 2 0 1 0 0 2 1 0 4 N",
        "1 2 0 0 0 1 0 0 0 3 0 0 1 0 S",
        "2 1 0 3 1 1 1 0 1 2 S",
    ];
    let forms = |p: &str| -> Vec<String> {
        let tokens: Vec<&str> = p.split(' ').collect();
        let (counts, side) = tokens.split_at(tokens.len() - 1);
        let word = if side[0] == "S" { "south" } else { "North" };
        vec![
            p.to_string(),
            format!("{},{}", counts.join(","), side[0]),
            format!("  {} , {}\t", counts.join(", "), side[0].to_lowercase()),
            format!("{}\t{word}", counts.join("\t")),
            format!("0{} {}", counts.join(" 00"), side[0]),
            format!("{p}\r"),
        ]
    };
    let mut input = String::new();
    let mut expected = Vec::new();
    for p in positions {
        for f in forms(p) {
            input.push_str(&f);
            input.push('\n');
            expected.push(Some(p));
        }
        input.push_str("4 4 x S\n");
        expected.push(None);
    }
    let batch = kalah_with_input(
        &[
            "query",
            "--batch",
            "-",
            "--tables",
            path(&dir),
            "--tt-mb",
            "8",
        ],
        &input,
    );
    let stdout = String::from_utf8_lossy(&batch.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{stdout}");
    assert_eq!(batch.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&batch.stderr).contains("no endgame tables for 4 houses"));
    for (n, (line, want)) in lines.iter().zip(&expected).enumerate() {
        let Some(p) = want else {
            assert_eq!(
                *line,
                format!(
                    "{{\"line\":{},\"error\":\"line {}: token 3 'x' is not a seed count (a whole number 0..255)\"}}",
                    n + 1,
                    n + 1
                )
            );
            continue;
        };
        let single = kalah(&["query", p, "--tables", path(&dir), "--tt-mb", "8", "--json"]);
        assert_eq!(single.status.code(), Some(0));
        let single = String::from_utf8_lossy(&single.stdout);
        assert_eq!(comparable(line), comparable(single.trim_end()), "{p}");
        assert!(
            line.starts_with(&format!("{{\"position\":\"{p}\"")),
            "{line}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batch_reports_bad_lines_by_number_and_goes_on() {
    let input = "1 1 1 0 1 1 1 0 S\nnot a position\n1 1 1 0 1 1 1 0 N\n1 1 0 S\n";
    let out = kalah_with_input(
        &["query", "--batch", "-", "--no-tables", "--tt-mb", "8"],
        input,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(is_answer(lines[0]), "{}", lines[0]);
    assert!(is_error(lines[1], 2, "not a side"), "{}", lines[1]);
    assert!(is_answer(lines[2]), "{}", lines[2]);
    assert!(is_error(lines[3], 4, "3 counts is odd"), "{}", lines[3]);
    assert!(stderr.contains("line 2:"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn play_reprompts_on_bad_input_undoes_and_finishes_a_game() {
    // Kalah(3,1): letters, house 0, house 4, then an empty house after a
    // move; undo; then play the lowest legal house until the end.
    let mut input = String::from("x\n0\n4\n\n1\n1\nu\n");
    for _ in 0..20 {
        input.push_str("1\n2\n3\n");
    }
    let out = kalah_with_input(
        &[
            "play",
            "--pits",
            "3",
            "--seeds",
            "1",
            "--hints",
            "--no-tables",
            "--tt-mb",
            "8",
        ],
        &input,
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert!(s.contains("'x' is not a house number"), "{s}");
    assert!(s.contains("there is no house 0: houses are numbered 1..3"));
    assert!(s.contains("there is no house 4: houses are numbered 1..3"));
    assert!(s.contains("type a house number"));
    assert!(s.contains("house 1 is empty: choose another"), "{s}");
    assert!(s.contains("undone"));
    assert!(s.contains("hints (house:value for you"));
    assert!(s.contains("game over: South"), "{s}");
    assert!(!s.contains("panicked"));
}

#[test]
fn play_as_north_lets_the_program_open() {
    let out = kalah_with_input(
        &[
            "play",
            "--pits",
            "2",
            "--seeds",
            "1",
            "--side",
            "n",
            "--no-tables",
            "--tt-mb",
            "8",
        ],
        "q\n",
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("South plays"), "{s}");
    assert!(
        s.contains("game abandoned") || s.contains("game over"),
        "{s}"
    );
}

/// A minimal well-formedness check of XML: every tag closed in order,
/// attributes quoted, one root.
fn check_xml(text: &str) -> Result<String, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut root = None;
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        let close = rest[i..].find('>').ok_or("unclosed tag")? + i;
        let tag = &rest[i + 1..close];
        rest = &rest[close + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("stray </{name}>"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .ok_or("empty tag")?
            .trim_end_matches('/');
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        if root.is_none() {
            root = Some(name.to_string());
        } else if stack.is_empty() {
            return Err("two roots".into());
        }
        if !tag.ends_with('/') {
            stack.push(name.to_string());
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    root.ok_or("no root".into())
}

#[test]
fn reproduce_matches_small_instances_and_flags_an_injected_wrong_claim() {
    let dir = temp_dir("reproduce");
    let svg = dir.join("values.svg");
    let base = [
        "reproduce",
        "--max-pits",
        "3",
        "--max-seeds",
        "3",
        "--tables",
        path(&dir),
        "--tt-mb",
        "8",
    ];
    let mut args = base.to_vec();
    let out_dir = dir.join("out");
    args.extend(["--svg", path(&svg), "--markdown", "--out", path(&out_dir)]);
    let out = kalah(&args);
    let md = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{md}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // IDU Table 10 gives W/L/D for m <= 3; all 9 must match, and all 16
    // perfect games replay.
    assert_eq!(md.matches("| ok |").count(), 9 + 16, "{md}");
    assert!(!md.contains("MISMATCH"));
    let svg_text = std::fs::read_to_string(&svg).expect("svg written");
    assert_eq!(check_xml(&svg_text), Ok("svg".to_string()));
    assert!(svg_text.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(svg_text.matches("<rect").count(), 1 + 2 * 9);
    // --out writes the same report as files.
    let written = std::fs::read_to_string(out_dir.join("reproduce.md")).expect("md written");
    assert_eq!(written, md);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("reproduce.svg")).expect("svg written"),
        svg_text
    );
    let json = std::fs::read_to_string(out_dir.join("reproduce.json")).expect("json written");
    let report: serde_json::Value = serde_json::from_str(&json).expect("a JSON report");
    assert_eq!(report["mismatches"], 0, "{json}");
    assert!(report["rows"].is_array(), "{json}");

    // Kalah(2,2) is a loss for the first player under empty capture; claim
    // a win and the run must say so and fail.
    let claims = dir.join("claims.txt");
    std::fs::write(&claims, "# a wrong claim\n2 2 ec W\n").expect("claims");
    let mut args = base.to_vec();
    args.extend(["--published", path(&claims), "--no-pie"]);
    let out = kalah(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("MISMATCH"), "{text}");
    assert!(text.contains("1 disagreement;"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kalah solve --json` of Kalah(3,2) without tables, with `extra` flags:
/// the parsed object and its text.
fn solve_3_2_json(extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "solve",
        "--pits",
        "3",
        "--seeds",
        "2",
        "--no-tables",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = kalah(&args);
    assert_eq!(out.status.code(), Some(0));
    let json = String::from_utf8_lossy(&out.stdout).to_string();
    let v = serde_json::from_str(json.trim()).expect("JSON");
    (v, json)
}

/// One vocabulary for results (docs/json.md): `solve --json` gives the first
/// player's `result` as `win`, `draw` or `loss` with `to_move` "S", as
/// `query` does for the side to move (it said "first player wins"), and
/// rounds its times to milliseconds. Parsed with serde_json.
#[test]
fn solve_json_speaks_the_query_vocabulary() {
    let (v, json) = solve_3_2_json(&[]);
    let value = v["value"].as_i64().expect("value");
    let want = ["loss", "draw", "win"][(value.signum() + 1) as usize];
    assert_eq!(v["result"], want, "{json}");
    assert_eq!(v["to_move"], "S", "{json}");
    assert_eq!(v["rules"], "std", "{json}");
    let secs = v["solve_seconds"].as_f64().expect("seconds");
    assert_eq!((secs * 1e3).round() / 1e3, secs, "{json}");
    assert!(v["nodes_per_second"].is_u64(), "{json}");
}

/// `--threads 0` means one search thread a core, as for `build`: the
/// search once ran on one thread for it and reported `"threads":0`.
#[test]
fn search_threads_zero_means_one_a_core() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (v, json) = solve_3_2_json(&["--threads", "0"]);
    assert_eq!(
        v["threads"].as_u64(),
        Some(cores.min(1024) as u64),
        "{json}"
    );
}
