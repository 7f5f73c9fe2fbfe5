//! A game's size from every front end of this crate (issue 54, item 2):
//! the command line's `--pits`/`--seeds` and the HTTP API's
//! `/api/v1/solve?pits=&seeds=` take the same counts, extreme ones
//! included (0, 2^62 + 4 and 3074457345618258603, which wrapped
//! `2 * pits * seeds` to a small game or panicked the HTTP worker, 64-bit
//! maxima, digits beyond 64 bits), refuse the same ones with exit status 2
//! or HTTP 400 and the same message, and never panic or wrap. The
//! expected outcome is an oracle in 128-bit arithmetic, independent of the
//! solver's check; the expected message is the solver's.

mod common;
mod serve_common;

use kalah::sample::SplitMix64;
use kalah::{GameSize, Rules};
use serde_json::Value;
use serve_common::{tables, Server};

/// Counts that broke unchecked arithmetic, and their neighbours.
const EXTREMES: [&str; 14] = [
    "0",
    "1",
    "2",
    "16",
    "127",
    "128",
    "255",
    "3074457345618258603",
    "4611686018427387904",
    "4611686018427387908",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
];

/// Whether Kalah(m,n) is a game, in arithmetic that cannot overflow (none
/// of the counts here has more than 38 digits): `None` for text that is
/// not a whole number.
fn is_game(m: &str, n: &str) -> Option<bool> {
    let m: u128 = m.parse().ok()?;
    let n: u128 = n.parse().ok()?;
    Some((1..=8).contains(&m) && n >= 1 && m.checked_mul(n).is_some_and(|mn| 2 * mn <= 255))
}

/// The (pits, seeds) pairs tried: every extreme against every extreme, and
/// random counts of every magnitude.
fn cases(random: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in EXTREMES.iter().chain(&["6", "8", "9"]) {
        for n in EXTREMES {
            out.push((m.to_string(), n.to_string()));
        }
    }
    let mut rng = SplitMix64::new(54);
    let count = |rng: &mut SplitMix64, small: u64| match rng.below(3) {
        0 => rng.below(small),
        1 => rng.next_u64() >> rng.below(64),
        _ => rng.next_u64(),
    };
    for _ in 0..random {
        let m = count(&mut rng, 10);
        let n = count(&mut rng, 140);
        out.push((m.to_string(), n.to_string()));
    }
    out
}

/// `kalah args`, its output captured.
fn kalah(args: &[&str]) -> std::process::Output {
    common::kalah_command()
        .args(args)
        .output()
        .expect("run kalah")
}

#[test]
fn the_command_line_refuses_every_size_out_of_range_with_the_solvers_message() {
    let mut refused = 0;
    for (m, n) in cases(40) {
        // perft to depth 1: a valid size costs next to nothing.
        let out = kalah(&[
            "perft", "--depth", "1", "--json", "--pits", &m, "--seeds", &n,
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let game = is_game(&m, &n).expect("numbers");
        if game {
            assert_eq!(out.status.code(), Some(0), "Kalah({m},{n}): {stderr}");
            let v: Value = serde_json::from_slice(&out.stdout).expect("perft JSON");
            assert_eq!(v["pits"].to_string(), m);
            assert_eq!(v["seeds"].to_string(), n);
        } else {
            refused += 1;
            let msg = GameSize::parse(&m, &n)
                .expect_err("out of range")
                .to_string();
            assert_eq!(out.status.code(), Some(2), "Kalah({m},{n}): {stderr}");
            assert_eq!(stderr.trim_end(), format!("kalah: error: {msg}"));
        }
    }
    assert!(refused > 150, "{refused} refused");
    // Text that is no number at all, the same way.
    for (m, n) in [("four", "4"), ("6", "1e3"), ("6", "")] {
        let out = kalah(&["perft", "--pits", m, "--seeds", n]);
        let msg = GameSize::parse(m, n).expect_err("not a number").to_string();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            format!("kalah: error: {msg}")
        );
    }
}

#[test]
fn the_api_answers_400_with_the_same_message_and_never_panics() {
    let dir = tables("size", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &["--time-limit", "30"]);
    // One keep-alive connection for all: a worker that panicked would
    // close it (no reply), failing the next request.
    let mut conn = server.connect();
    let mut answered = 0;
    for (m, n) in cases(400) {
        let game = is_game(&m, &n).expect("numbers");
        let board = |t: &str| t.parse::<u128>().unwrap_or(u128::MAX);
        if game && 2 * board(&m) * board(&n) > 12 {
            continue; // a real solve of a larger game: not this test's work
        }
        let r = conn
            .get(&format!("/api/v1/solve?pits={m}&seeds={n}"))
            .unwrap_or_else(|e| panic!("Kalah({m},{n}): no answer: {e}"));
        if game {
            assert_eq!(r.status, 200, "Kalah({m},{n}): {}", r.text());
            answered += 1;
        } else {
            assert_eq!(r.status, 400, "Kalah({m},{n}): {}", r.text());
            let v: Value = serde_json::from_str(&r.text()).expect("JSON error");
            let msg = GameSize::parse(&m, &n)
                .expect_err("out of range")
                .to_string();
            assert_eq!(v["error"].as_str(), Some(msg.as_str()));
        }
    }
    assert!(answered >= 3, "{answered} valid sizes answered");
    for (m, n) in [("four", "4"), ("6", "1e3"), ("6", ""), ("6", "-1")] {
        let r = conn
            .get(&format!("/api/v1/solve?pits={m}&seeds={n}"))
            .expect("answer");
        assert_eq!(r.status, 400);
        let msg = GameSize::parse(m, n).expect_err("not a number").to_string();
        let v: Value = serde_json::from_str(&r.text()).expect("JSON error");
        assert_eq!(v["error"].as_str(), Some(msg.as_str()));
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
