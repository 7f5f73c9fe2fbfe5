//! Times the solver on one start position.
//!
//! ```text
//! cargo run --release --example bench_search -- M N RULES [THREADS] [TT_MB] [SWITCH..]
//! ```
//! RULES is `ec` or `std`; each SWITCH turns one enhancement off:
//! `no-tt-move no-ordering no-futility no-probe-cuts no-parity
//! guess0`, or `plain`; `split=K` splits all-nodes from K seeds above the
//! tables (several threads); `tt-skip=K` sets [`SearchConfig::tt_skip`]; `guess=D` sets the depth of
//! the first-guess search; `tables=DIR` probes the endgame tables in DIR
//! (copied into anonymous memory), `table-seeds=K` at most K seeds of them,
//! `mapped` probes the mapped files instead; either way every tier is
//! loaded before the clock starts; `after=H.H.H` solves the position after
//! those sowings (1-based houses, in turn order) from the start instead
//! (the proxies of lab/journal/search.md, "Search above the tables").
//! Prints one line: value, seconds, nodes, nodes/s, MTD(f) tests.

use std::process::ExitCode;
use std::sync::Arc;

use kalah_solver::search::{SearchConfig, Solver};
use kalah_solver::table::{Check, Tables};
use kalah_solver::{Game, Position, Probe, Rules};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: bench_search M N ec|std [THREADS] [TT_MB] [SWITCH..]");
        return ExitCode::from(2);
    }
    let (Ok(m), Ok(n)) = (args[0].parse::<usize>(), args[1].parse::<usize>()) else {
        eprintln!("M and N must be numbers");
        return ExitCode::from(2);
    };
    let rules = match args[2].as_str() {
        "ec" => Rules::EMPTY_CAPTURE,
        "std" => Rules::STANDARD,
        other => {
            eprintln!("unknown rules '{other}': ec or std");
            return ExitCode::from(2);
        }
    };
    let mut config = SearchConfig::default();
    let mut tables: Option<String> = None;
    let mut mapped = false;
    let mut table_seeds: Option<u32> = None;
    let mut after: Vec<usize> = Vec::new();
    config.threads = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(1);
    config.tt_mb = args.get(4).and_then(|t| t.parse().ok()).unwrap_or(1024);
    for switch in args.iter().skip(5) {
        match switch.as_str() {
            "plain" => {
                config = SearchConfig {
                    threads: config.threads,
                    tt_mb: config.tt_mb,
                    ..SearchConfig::plain()
                }
            }
            "no-tt-move" => config.tt_move = false,
            "no-ordering" => config.ordering = false,
            "no-futility" => config.futility = false,
            "no-probe-cuts" => config.probe_cuts = false,
            "no-parity" => config.parity = false,
            "guess0" => config.guess_depth = 0,
            "mapped" => mapped = true,
            s if s.starts_with("tables=") => tables = Some(s["tables=".len()..].to_string()),
            s if s.starts_with("after=") => {
                let Ok(houses) = s["after=".len()..]
                    .split('.')
                    .map(str::parse)
                    .collect::<Result<Vec<usize>, _>>()
                else {
                    eprintln!("after=H.H.H needs 1-based houses");
                    return ExitCode::from(2);
                };
                after = houses;
            }
            s if s.contains('=') => {
                // `key=number` switches: the number, or the usage error.
                let (key, text) = s.split_once('=').unwrap_or_default();
                let Ok(k) = text.parse::<u32>() else {
                    eprintln!("{key}=K needs a number");
                    return ExitCode::from(2);
                };
                match key {
                    "tt-skip" => config.tt_skip = k,
                    "table-seeds" => table_seeds = Some(k),
                    "split" => config.split_seeds = k,
                    "guess" => config.guess_depth = k,
                    _ => {
                        eprintln!("unknown switch '{s}'");
                        return ExitCode::from(2);
                    }
                }
            }
            other => {
                eprintln!("unknown switch '{other}'");
                return ExitCode::from(2);
            }
        }
    }
    let mut start = match Position::start(m, n) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    for &house in &after {
        if let Err(e) = start.play(&Game::new(m, rules), house) {
            eprintln!("after=: house {house}: {e}");
            return ExitCode::from(2);
        }
    }
    let probe: Option<Arc<dyn Probe>> = match tables {
        None => None,
        // A full check reads every byte: a mapped file's pages are then mapped.
        Some(dir) => match Tables::open_with(
            &dir,
            m,
            rules,
            table_seeds,
            if mapped {
                Check::Full
            } else {
                Check::Remembered
            },
        ) {
            Ok(t) => {
                // Load every tier before the clock starts: the search time
                // should not depend on whether the files are in the page cache.
                let t = if mapped { t } else { t.resident() };
                let load = std::time::Instant::now();
                for k in 0..=t.max_seeds() {
                    if let Some(Err(e)) = t.tier(k) {
                        eprintln!("{e}");
                        return ExitCode::from(2);
                    }
                }
                eprintln!("tables loaded in {:.2}s", load.elapsed().as_secs_f64());
                Some(Arc::new(t))
            }
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        },
    };
    let solver = match Solver::new(Game::new(m, rules), config.clone(), probe) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let Ok(value) = solver.solve(&start) else {
        eprintln!("interrupted");
        return ExitCode::from(1);
    };
    let st = solver.stats();
    println!(
        "Kalah({m},{n}) {}{} threads={} tt={}MB switches={:?}: value {value:+} time {:.3}s nodes {} nodes/s {:.0} tests {}",
        rules.slug(),
        if after.is_empty() {
            String::new()
        } else {
            format!(" after {start}")
        },
        config.threads,
        config.tt_mb,
        &args[5.min(args.len())..],
        st.elapsed.as_secs_f64(),
        st.nodes,
        st.nodes_per_second(),
        st.tests
    );
    ExitCode::SUCCESS
}
