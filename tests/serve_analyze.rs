//! `GET /api/v1/analyze` (the page's game review) against `kalah analyze
//! --json`, on a real server on loopback: a game with a blunder inside the
//! tables and a game answered by the search workers give the same moves,
//! values and accounts; bad requests are 400 naming the problem; a first
//! position over the search budget is 503.

mod common;
mod serve_common;

use std::process::Command;

use kalah::Rules;
use serde_json::Value;
use serve_common::http::encode;
use serve_common::{tables, Server};

/// Inside 12-seed tables (12 seeds on the board), South to move.
const POSITION: &str = "2 1 0 3 1 2 20 0 1 1 1 0 0 10 S";

fn kalah_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .arg("--json")
        .output()
        .expect("run kalah");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The review with what varies from run to run (time, nodes, where each
/// answer came from) masked.
fn masked(mut v: Value) -> Value {
    v["seconds"] = Value::Null;
    v["nodes"] = Value::Null;
    if let Some(Value::Array(moves)) = v.get_mut("moves") {
        for m in moves {
            m["source"] = Value::Null;
        }
    }
    v
}

fn get(server: &Server, target: &str) -> (u16, Value) {
    let r = server.connect().get(target).expect("GET");
    let body = r.text();
    let v = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (r.status, v)
}

#[test]
fn the_api_reviews_a_game_as_the_command_line_does() {
    let dir = tables("analyze", 6, 12, &[Rules::STANDARD]);
    let dir_arg = dir.to_str().expect("utf-8 temp dir");
    let server = Server::start(&dir, &["--search-workers", "2", "--time-limit", "60"]);

    // A blunder, then perfect play to the end, inside the tables.
    let start = kalah_json(&["query", "--tables", dir_arg, POSITION]);
    let worst = start["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter(|m| m["extra_turn"] == false)
        .min_by_key(|m| m["value"].as_i64())
        .expect("a move that passes the turn")
        .clone();
    assert!(worst["value"].as_i64() < start["value"].as_i64(), "{start}");
    let after = kalah_json(&["play-line", "--from", POSITION, &worst["house"].to_string()]);
    let pv = kalah_json(&[
        "query",
        "--tables",
        dir_arg,
        after["position"].as_str().expect("position"),
    ])["pv"]
        .as_str()
        .expect("pv")
        .to_string();
    let line = format!("{}-{pv}", worst["house"]);
    let (status, api) = get(
        &server,
        &format!(
            "/api/v1/analyze?position={}&line={}",
            encode(POSITION),
            encode(&line)
        ),
    );
    assert_eq!(status, 200, "{api}");
    let cli = kalah_json(&[
        "analyze",
        "--tables",
        dir_arg,
        "--table-seeds",
        "12",
        "--from",
        POSITION,
        &line,
    ]);
    assert_eq!(masked(api.clone()), masked(cli), "{line}");
    let first = &api["moves"][0];
    assert_eq!(first["mistake"], true, "{api}");
    assert_eq!(
        first["loss"].as_i64(),
        Some(start["value"].as_i64().unwrap() - worst["value"].as_i64().unwrap())
    );
    assert_eq!(api["north"]["mistakes"], 0);
    assert_eq!(api["game_over"], true);
    assert!(api.get("stopped").is_none());

    // Kalah(3,3), which has no tables here: every position searched on the
    // workers; IDU numbering and spaces between turns.
    let (status, api) = get(
        &server,
        &format!(
            "/api/v1/analyze?position={}&line={}&idu=1&rules=ec",
            encode("3 3 3 0 3 3 3 0 S"),
            encode("0.1 1 0 2 1 0 2")
        ),
    );
    assert_eq!(status, 200, "{api}");
    let cli = kalah_json(&[
        "analyze",
        "--no-tables",
        "--empty-capture",
        "--idu",
        "--pits",
        "3",
        "--seeds",
        "3",
        "0.1-1-0-2-1-0-2",
    ]);
    // The server values the end position only from the tables (or a
    // finished game's score): outside them it leaves end_value out.
    assert!(api.get("end_value").is_none(), "{api}");
    let mut cli = masked(cli);
    cli.as_object_mut().expect("an object").remove("end_value");
    assert_eq!(masked(api.clone()), cli);
    // Searched, or answered from the values kept from the searches before
    // (a position whose moves an earlier search valued: issue 53).
    let moves = api["moves"].as_array().unwrap();
    assert_eq!(moves[0]["source"], "search", "{api}");
    assert!(moves
        .iter()
        .all(|m| m["source"] == "search" || m["source"] == "kept"));

    // Bad requests, named.
    for (query, phrase) in [
        (
            format!("position={}", encode(POSITION)),
            "missing parameter 'line'",
        ),
        (
            format!("position={}&line=7", encode(POSITION)),
            "turn 1, move 1 (house 7)",
        ),
        (
            format!("position={}&line=1&idu=2", encode(POSITION)),
            "idu '2': expected 0 or 1",
        ),
        ("line=1".to_string(), "missing parameter 'position'"),
        (
            format!("position={}&line=1&house=2", encode(POSITION)),
            "unknown parameter 'house'",
        ),
    ] {
        let (status, v) = get(&server, &format!("/api/v1/analyze?{query}"));
        assert_eq!(status, 400, "{query}: {v}");
        let e = v["error"].as_str().unwrap_or("");
        assert!(e.contains(phrase), "{query}: '{phrase}' in {e}");
    }
    drop(server);

    // The first position beyond the budget: the refusal itself.
    let server = Server::start(&dir, &["--time-limit", "0.05"]);
    let (status, v) = get(
        &server,
        &format!(
            "/api/v1/analyze?position={}&line=1",
            encode("6 6 6 6 6 6 0 6 6 6 6 6 6 0 S")
        ),
    );
    assert_eq!(status, 503, "{v}");
    assert!(
        v["error"].as_str().unwrap_or("").contains("time limit"),
        "{v}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
