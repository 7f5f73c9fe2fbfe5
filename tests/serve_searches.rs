//! `kalah serve` under searches: eight searches far outside the tables,
//! running at once on eight workers, leave look-ups in the tables fast
//! (p99 under 50 ms: a look-up takes microseconds, so a look-up that waited
//! behind a search would take seconds); a ninth search finds every worker
//! busy and is refused at once; and the searches end at their budget with
//! 503 and the reason. In a file of its own: its timing must not share the
//! cores with other tests of the same binary.

mod serve_common;

use std::thread;
use std::time::{Duration, Instant};

use kalah::sample::SplitMix64;
use kalah::Rules;
use serve_common::http::{encode, quantile};
use serve_common::positions::random_position;
use serve_common::{tables, Server};

/// Kalah(6,4) from the start and after each first move of South (after
/// the extra turn of house 3, house 6 too): hours of search over 12-seed
/// tables, so each runs to the budget.
const LONG: [&str; 8] = [
    "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S",
    "0 5 5 5 5 4 0 4 4 4 4 4 4 0 N",
    "4 0 5 5 5 5 0 4 4 4 4 4 4 0 N",
    "4 4 0 5 5 5 1 4 4 4 4 4 4 0 S",
    "4 4 4 0 5 5 1 5 4 4 4 4 4 0 N",
    "4 4 4 4 0 5 1 5 5 4 4 4 4 0 N",
    "4 4 4 4 4 0 1 5 5 5 4 4 4 0 N",
    "4 4 0 5 5 0 2 5 5 5 5 4 4 0 N",
];

#[test]
fn eight_searches_leave_table_lookups_fast() {
    let dir = tables("searches", 6, 12, &[Rules::STANDARD]);
    let budget = 4.0;
    let server = Server::start(
        &dir,
        &[
            "--search-workers",
            "8",
            "--time-limit",
            &budget.to_string(),
            "--tt-mb",
            "16",
        ],
    );
    let addr = server.addr.clone();
    let searches: Vec<_> = LONG
        .iter()
        .map(|pos| {
            let target = format!("/api/v1/query?position={}", encode(pos));
            let addr = addr.clone();
            thread::spawn(move || {
                let start = Instant::now();
                let r = serve_common::http::Conn::connect(&addr)
                    .and_then(|mut c| c.get(&target))
                    .expect("search request");
                (r.status, r.text(), start.elapsed())
            })
        })
        .collect();
    // Let every search start before measuring.
    thread::sleep(Duration::from_millis(500));
    let mut busy = server.connect();
    let refused = busy
        .get(&format!("/api/v1/query?position={}", encode(LONG[0])))
        .expect("ninth search");
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(
        refused.text().contains("all 8 search workers are busy"),
        "{}",
        refused.text()
    );
    assert_eq!(refused.header("retry-after"), Some("1"));

    // Look-ups on four connections for two seconds, the searches running.
    let lookups: Vec<_> = (0..4)
        .map(|k| {
            let addr = addr.clone();
            thread::spawn(move || {
                let mut rng = SplitMix64::new(k);
                let mut conn = serve_common::http::Conn::connect(&addr).expect("connect");
                let mut micros = Vec::new();
                let start = Instant::now();
                while start.elapsed() < Duration::from_secs(2) {
                    let seeds = rng.below(13) as u32;
                    let pos = random_position(&mut rng, 6, seeds, 20);
                    let t = Instant::now();
                    let r = conn
                        .get(&format!("/api/v1/query?position={}", encode(&pos)))
                        .expect("look-up");
                    micros.push(t.elapsed().as_micros() as u64);
                    let body = r.text();
                    assert_eq!(r.status, 200, "{pos}: {body}");
                    assert!(
                        body.contains("\"source\":\"table\"")
                            || body.contains("\"source\":\"finished\""),
                        "{pos}: {body}"
                    );
                }
                micros
            })
        })
        .collect();
    let mut micros: Vec<u64> = lookups
        .into_iter()
        .flat_map(|h| h.join().expect("look-ups"))
        .collect();
    micros.sort_unstable();
    let p99 = quantile(&micros, 0.99) as f64 / 1e3;
    eprintln!(
        "{} look-ups beside 8 searches: p50 {:.3} ms, p99 {p99:.3} ms, max {:.3} ms",
        micros.len(),
        quantile(&micros, 0.5) as f64 / 1e3,
        quantile(&micros, 1.0) as f64 / 1e3
    );
    assert!(micros.len() > 100, "only {} look-ups", micros.len());
    assert!(p99 < 50.0, "p99 {p99} ms beside 8 searches");

    for s in searches {
        let (status, body, took) = s.join().expect("search thread");
        assert_eq!(status, 503, "{body}");
        assert!(
            body.contains("no answer within the time limit (--time-limit 4 s)"),
            "{body}"
        );
        // Stopped at the budget, not long after (the watchdog looks every
        // 20 ms; the machine may be busy).
        assert!(took < Duration::from_secs_f64(budget + 5.0), "{took:?}");
        assert!(took >= Duration::from_secs_f64(budget), "{took:?}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
