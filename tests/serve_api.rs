//! `kalah serve`'s API against `kalah query --json`, on a real server on
//! loopback: 500 random positions under both capture rules (inside the
//! tables, outside them, on boards without tables, finished games) give
//! the same object (the time masked; the moves best first), bad positions
//! the same message with 400, and the limits hold.

mod common;
mod serve_common;

use std::process::Command;

use kalah::sample::SplitMix64;
use kalah::Rules;
use serde_json::Value;
use serve_common::http::encode;
use serve_common::positions::random_position;
use serve_common::{tables, Server};

/// The search settings of both sides, so that searches agree node for node.
const SEARCH: [&str; 4] = ["--threads", "1", "--tt-mb", "16"];

/// `kalah query --json` for `pos` under `rules` (`std` or `ec`) and `end`.
fn cli_query(dir: &std::path::Path, pos: &str, rules: &str, end: &str) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kalah"));
    cmd.args(["query", "--json", "--tables"])
        .arg(dir)
        .args(SEARCH)
        .args(["--end", end]);
    if rules == "ec" {
        cmd.arg("--empty-capture");
    }
    cmd.args(["--", pos]);
    cmd.output().expect("run kalah query")
}

/// The object with its time (`ms`) masked.
fn masked(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    v["ms"] = Value::Null;
    v
}

/// `moves` sorted best first (by value, ties in house order).
fn best_first(v: &mut Value) {
    if let Some(Value::Array(moves)) = v.get_mut("moves") {
        moves.sort_by_key(|m| -m["value"].as_i64().expect("a move's value"));
    }
}

#[test]
fn five_hundred_random_positions_answer_as_the_command_line_does() {
    let dir = tables("api", 6, 12, &[Rules::STANDARD, Rules::EMPTY_CAPTURE]);
    let dir_arg = dir.to_str().expect("utf-8 temp dir");
    let server = Server::start(
        &dir,
        &[
            "--search-workers",
            "2",
            "--time-limit",
            "120",
            "--tt-mb",
            "16",
        ],
    );
    assert!(
        server
            .banner
            .iter()
            .any(|l| l.contains("6 houses, ec, up to 12 seeds")),
        "{:?}",
        server.banner
    );
    let mut conn = server.connect();
    let mut rng = SplitMix64::new(15);
    let mut sources = std::collections::BTreeMap::new();
    for i in 0..500 {
        let rules = if i % 2 == 0 { "std" } else { "ec" };
        // Mostly 6 houses in and just above the tables; some boards
        // without tables; some other end rules (no tables either).
        let (pits, seeds) = match i % 10 {
            0 => (4, rng.below(14) as u32),
            1 => (6, 13 + rng.below(6) as u32),
            _ => (6, rng.below(13) as u32),
        };
        let end = if i % 25 == 7 {
            "delayed"
        } else if i % 25 == 9 {
            "no-sweep"
        } else {
            "sweep"
        };
        let seeds = if end == "sweep" { seeds } else { seeds.min(12) };
        let pos = random_position(&mut rng, pits, seeds, 10);
        let target = format!(
            "/api/v1/query?position={}&rules={rules}&end={end}",
            encode(&pos)
        );
        let r = conn.get(&target).expect("query");
        let cli = cli_query(&dir, &pos, rules, end);
        assert!(
            cli.status.success(),
            "{pos}: {}",
            String::from_utf8_lossy(&cli.stderr)
        );
        assert_eq!(r.status, 200, "{pos} {rules} {end}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"));
        let served = masked(&r.text());
        let mut expected = masked(String::from_utf8_lossy(&cli.stdout).trim());
        best_first(&mut expected);
        assert_eq!(
            served, expected,
            "{pos} {rules} {end} (tables in {dir_arg})"
        );
        let values: Vec<i64> = served["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["value"].as_i64().expect("value"))
            .collect();
        assert!(
            values.windows(2).all(|w| w[0] >= w[1]),
            "best first: {values:?}"
        );
        *sources
            .entry(served["source"].as_str().expect("source").to_string())
            .or_insert(0) += 1;
    }
    // Every path of the answer was taken.
    for s in ["table", "search", "finished"] {
        assert!(sources.get(s).copied().unwrap_or(0) >= 5, "{sources:?}");
    }
    eprintln!("sources: {sources:?}");

    // /solve is the query of the start position.
    let solved = conn
        .get("/api/v1/solve?pits=3&seeds=3&rules=ec")
        .expect("solve");
    assert_eq!(solved.status, 200, "{}", solved.text());
    let start = conn
        .get(&format!(
            "/api/v1/query?position={}&rules=ec",
            encode("3 3 3 0 3 3 3 0 S")
        ))
        .expect("query");
    // The same answer; the second from the values the first search kept
    // (issue 53), at once.
    let (mut solved, mut start) = (masked(&solved.text()), masked(&start.text()));
    assert_eq!(start["source"], "kept", "{start}");
    assert_eq!(start["nodes"], 0, "{start}");
    for v in [&mut solved, &mut start] {
        v["source"] = Value::Null;
        v["nodes"] = Value::Null;
    }
    assert_eq!(solved, start);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_gets_400_with_the_command_line_message() {
    let dir = tables("bad", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &[]);
    let mut conn = server.connect();
    for (text, phrase) in common::MALFORMED {
        let r = conn
            .get(&format!("/api/v1/query?position={}", encode(text)))
            .expect("query");
        assert_eq!(r.status, 400, "{text:?}: {}", r.text());
        let served: Value = serde_json::from_str(&r.text()).expect("JSON error");
        let served = served["error"].as_str().expect("error field").to_string();
        assert!(served.contains(phrase), "{text:?}: {served}");
        let cli = cli_query(&dir, text, "std", "sweep");
        assert_eq!(cli.status.code(), Some(2), "{text:?}");
        let stderr = String::from_utf8_lossy(&cli.stderr);
        assert_eq!(
            stderr.trim_end().strip_prefix("kalah: error: "),
            Some(served.as_str()),
            "{text:?}"
        );
    }
    for (target, phrase) in [
        ("/api/v1/query", "missing parameter 'position'"),
        ("/api/v1/query?position=1+0+1+0+S&rules=x", "rules 'x'"),
        ("/api/v1/query?position=1+0+1+0+S&end=later", "end 'later'"),
        (
            "/api/v1/query?position=1+0+1+0+S&pits=3",
            "unknown parameter 'pits'",
        ),
        (
            "/api/v1/query?position=1+0+1+0+S&position=1+0+1+0+N",
            "given twice",
        ),
        ("/api/v1/solve?pits=9&seeds=1", "9"),
        ("/api/v1/solve?pits=two&seeds=1", "pits 'two'"),
        ("/api/v1/solve?pits=2", "missing parameter 'seeds'"),
        ("/api/v1/play?position=1+0+1+0+S&house=2", "no house 2"),
        (
            "/api/v1/play?position=0+1+0+1+1+0+S&house=1",
            "house 1 is empty",
        ),
    ] {
        let r = conn.get(target).expect("request");
        assert_eq!(r.status, 400, "{target}: {}", r.text());
        assert!(r.text().contains(phrase), "{target}: {}", r.text());
    }
}

#[test]
fn the_server_serves_get_and_head_only_and_no_files() {
    let dir = tables("limits", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &[]);
    let mut conn = server.connect();
    let page = conn.get("/").expect("page");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<svg") || page.text().contains("app.js"));
    assert!(page
        .header("content-security-policy")
        .is_some_and(|p| p.contains("default-src 'none'")));
    for asset in ["/app.js", "/style.css"] {
        assert_eq!(conn.get(asset).expect("asset").status, 200, "{asset}");
    }
    let head = conn
        .request("HEAD", "/api/v1/query?position=1+1+1+0+S")
        .expect("HEAD");
    assert_eq!(head.status, 200);
    // Any other method: 405, the connection still usable.
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        let r = conn
            .request(method, "/api/v1/query?position=1+1+1+0+S")
            .expect(method);
        assert_eq!(r.status, 405, "{method}");
    }
    // No path reaches the file system.
    for target in [
        "/etc/passwd",
        "/../Cargo.toml",
        "/web/app.js",
        "/%2e%2e/Cargo.toml",
        "/api/v1/",
    ] {
        let r = conn.get(target).expect("get");
        assert_eq!(r.status, 404, "{target}");
    }
    // A play: the engine's move, the next side.
    let played = conn
        .get("/api/v1/play?position=1+1+0+1+1+0+S&house=2")
        .expect("play");
    assert_eq!(played.status, 200, "{}", played.text());
    let v: Value = serde_json::from_str(&played.text()).expect("JSON");
    // The one seed of S2 lands in South's store: South moves again.
    assert_eq!(v["position"], "1 0 1 1 1 0 S");
    assert_eq!(v["extra_turn"], true);
    // A request head over the limit: 431.
    let huge = format!("/api/v1/query?position={}", "1+".repeat(20_000));
    let r = server.connect().get(&huge).expect("huge request");
    assert_eq!(r.status, 431);
    // A request with a body: 413.
    use std::io::{Read, Write};
    let mut raw = std::net::TcpStream::connect(&server.addr).expect("connect");
    raw.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        .expect("send");
    let mut buf = [0u8; 12];
    raw.read_exact(&mut buf).expect("read");
    assert_eq!(&buf, b"HTTP/1.1 413");
}

#[test]
fn sigterm_stops_the_server_even_during_a_search() {
    let dir = tables("stop", 6, 8, &[Rules::STANDARD]);
    let mut server = Server::start(&dir, &["--time-limit", "600"]);
    // A search of hours, stopped by the signal (a board no game reaches,
    // so no opening book holds it).
    let addr = server.addr.clone();
    let search = std::thread::spawn(move || {
        serve_common::http::Conn::connect(&addr)
            .and_then(|mut c| {
                c.get(&format!(
                    "/api/v1/query?position={}",
                    encode("5 4 4 4 4 4 0 4 4 4 4 4 3 0 S")
                ))
            })
            .map(|r| (r.status, r.text()))
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = server
        .terminate(std::time::Duration::from_secs(10))
        .expect("kalah serve exits within 10 s of SIGTERM");
    assert!(status.success(), "{status:?}");
    // The search's client is answered before the server goes: 503.
    let (code, body) = search.join().expect("client").expect("an answer");
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("the server is stopping"), "{body}");
    let _ = std::fs::remove_dir_all(&dir);
}
