//! `kalah serve` keeps what its searches found (issue 53): a position
//! asked twice is searched once, then answered at once from the values
//! kept, with the same answer.

mod serve_common;

use std::time::Duration;

use serve_common::http::encode;
use serve_common::Server;

fn query(server: &Server, position: &str) -> serde_json::Value {
    let mut conn = server.connect();
    let r = conn
        .get(&format!("/api/v1/query?position={}", encode(position)))
        .expect("query");
    assert_eq!(r.status, 200, "{}", r.text());
    serde_json::from_str(&r.text()).expect("JSON")
}

#[test]
fn a_position_asked_twice_is_answered_from_the_values_kept() {
    let dir = std::env::temp_dir().join(format!("kalah-serve-kept-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut server = Server::start(&dir, &["--time-limit", "60"]);
    let start = "3 3 3 3 0 3 3 3 3 0 S";
    let first = query(&server, start);
    assert_eq!(first["source"], "search", "{first}");
    let second = query(&server, start);
    assert_eq!(second["source"], "kept", "{second}");
    assert!(second["ms"].as_f64().unwrap() < 50.0, "{second}");
    for field in ["value", "moves", "best"] {
        assert_eq!(first[field], second[field], "{field}");
    }
    assert!(!second["pv"].as_str().unwrap().is_empty());
    // With --keep-answers 0 nothing is kept.
    server.terminate(Duration::from_secs(10));
    let server = Server::start(&dir, &["--time-limit", "60", "--keep-answers", "0"]);
    query(&server, start);
    assert_eq!(query(&server, start)["source"], "search");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
