//! A bounded load test of `kalah serve` on loopback: CONNECTIONS keep-alive
//! connections, each a thread sending in-table queries one after another
//! for SECONDS (after a warm-up that is not counted), then the queries a
//! second and the latency quantiles. Every answer must be 200 from the
//! tables (or a finished game); anything else is counted as an error and
//! makes the exit status 1.
//!
//! ```text
//! cargo run --release --example serve_load -- --addr 127.0.0.1:8080 \
//!     [--connections 64] [--seconds 5] [--warmup 1] [--pits 6] \
//!     [--max-seeds 22] [--rules both|std|ec] [--seed 1] [--json]
//! ```
//! scripts/bench_serve.sh starts the server and runs this.

#[path = "../tests/serve_common/http.rs"]
#[allow(dead_code)]
mod http;
#[path = "../tests/serve_common/positions.rs"]
mod positions;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use kalah::sample::SplitMix64;

struct Options {
    addr: String,
    connections: usize,
    seconds: f64,
    warmup: f64,
    pits: usize,
    max_seeds: u32,
    rules: Vec<&'static str>,
    seed: u64,
    json: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        addr: "127.0.0.1:8080".into(),
        connections: 64,
        seconds: 5.0,
        warmup: 1.0,
        pits: 6,
        max_seeds: 22,
        rules: vec!["std", "ec"],
        seed: 1,
        json: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--json" {
            o.json = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("{flag} {v}: not a number"))
        };
        match flag.as_str() {
            "--addr" => o.addr = value,
            "--connections" => o.connections = num(&value)?.max(1.0) as usize,
            "--seconds" => o.seconds = num(&value)?.clamp(0.1, 600.0),
            "--warmup" => o.warmup = num(&value)?.min(60.0),
            "--pits" => o.pits = num(&value)?.clamp(1.0, 8.0) as usize,
            "--max-seeds" => o.max_seeds = num(&value)? as u32,
            "--seed" => o.seed = num(&value)? as u64,
            "--rules" => {
                o.rules = match value.as_str() {
                    "both" => vec!["std", "ec"],
                    "std" => vec!["std"],
                    "ec" => vec!["ec"],
                    v => return Err(format!("--rules {v}: std, ec or both")),
                }
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(o)
}

/// Request targets for random positions with up to `max_seeds` seeds on
/// the board (inside tables of that many seeds).
fn targets(o: &Options) -> Vec<String> {
    let mut rng = SplitMix64::new(o.seed);
    (0..4096)
        .map(|i| {
            let seeds = rng.below(u64::from(o.max_seeds) + 1) as u32;
            let pos = positions::random_position(&mut rng, o.pits, seeds, 20);
            format!(
                "/api/v1/query?position={}&rules={}",
                http::encode(&pos),
                o.rules[i % o.rules.len()]
            )
        })
        .collect()
}

/// What one connection measured: latencies in microseconds, errors.
struct Tally {
    micros: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

fn run_connection(
    o: &Options,
    targets: &[String],
    k: usize,
    counting: &AtomicBool,
    stop: &AtomicBool,
) -> Tally {
    let mut t = Tally {
        micros: Vec::with_capacity(1 << 16),
        errors: 0,
        first_error: None,
    };
    let mut conn = match http::Conn::connect(&o.addr) {
        Ok(c) => c,
        Err(e) => {
            t.errors += 1;
            t.first_error = Some(format!("connect: {e}"));
            return t;
        }
    };
    let mut i = k * 977;
    while !stop.load(Ordering::Relaxed) {
        let target = &targets[i % targets.len()];
        i += 1;
        let start = Instant::now();
        let r = conn.get(target);
        let micros = start.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
        let counted = counting.load(Ordering::Relaxed);
        match r {
            Ok(r)
                if r.status == 200
                    && (r.text().contains("\"source\":\"table\"")
                        || r.text().contains("\"source\":\"finished\"")) =>
            {
                if counted {
                    t.micros.push(micros);
                }
            }
            Ok(r) => {
                t.errors += 1;
                t.first_error
                    .get_or_insert_with(|| format!("{target}: {} {}", r.status, r.text()));
            }
            Err(e) => {
                t.errors += 1;
                t.first_error
                    .get_or_insert_with(|| format!("{target}: {e}"));
                return t;
            }
        }
    }
    t
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("serve_load: {e}");
            return ExitCode::from(2);
        }
    };
    let targets = targets(&o);
    let counting = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    let (tallies, seconds) = thread::scope(|s| {
        let handles: Vec<_> = (0..o.connections)
            .map(|k| {
                let (o, targets, counting, stop) = (&o, &targets, &counting, &stop);
                s.spawn(move || run_connection(o, targets, k, counting, stop))
            })
            .collect();
        thread::sleep(Duration::from_secs_f64(o.warmup));
        counting.store(true, Ordering::Relaxed);
        let start = Instant::now();
        thread::sleep(Duration::from_secs_f64(o.seconds));
        counting.store(false, Ordering::Relaxed);
        let seconds = start.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        let tallies: Vec<Tally> = handles
            .into_iter()
            .map(|h| h.join().expect("connection thread"))
            .collect();
        (tallies, seconds)
    });
    let mut micros: Vec<u32> = tallies
        .iter()
        .flat_map(|t| t.micros.iter().copied())
        .collect();
    micros.sort_unstable();
    let errors: u64 = tallies.iter().map(|t| t.errors).sum();
    let first_error = tallies.iter().find_map(|t| t.first_error.clone());
    if micros.is_empty() {
        eprintln!("serve_load: no answer counted ({errors} errors: {first_error:?})");
        return ExitCode::FAILURE;
    }
    let ms = |p: f64| f64::from(http::quantile(&micros, p)) / 1e3;
    let qps = micros.len() as f64 / seconds;
    if o.json {
        println!(
            "{{\"connections\":{},\"requests\":{},\"errors\":{errors},\"seconds\":{seconds:.3},\"queries_per_second\":{qps:.0},\"p50_ms\":{:.3},\"p99_ms\":{:.3},\"max_ms\":{:.3}}}",
            o.connections,
            micros.len(),
            ms(0.5),
            ms(0.99),
            ms(1.0)
        );
    } else {
        println!(
            "{} connections: {} in-table queries in {seconds:.2} s: {qps:.0} queries/s, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, {errors} errors",
            o.connections,
            micros.len(),
            ms(0.5),
            ms(0.99),
            ms(1.0)
        );
    }
    if let Some(e) = first_error {
        eprintln!("serve_load: first error: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
