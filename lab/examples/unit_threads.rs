//! How fast one unit's test runs on several search threads: the speed a
//! worker could give the units the search is waiting on by searching each
//! of them on more than one core (the `--needed-speed` what-if of
//! `kalah-lab simulate --emulate` assumes it). Re-solves a sample of a
//! work directory's recorded tests (answered, not split, not filled),
//! each from an empty transposition table, on every count of THREADS.
//! After one untimed pass over the sample (the tables' pages read in),
//! rounds run the counts one after another, so that a change in this
//! machine's speed falls on all of them. Each verdict must be the one
//! recorded.
//!
//! It prints, for each count, the median over rounds of the sample's
//! seconds and its nodes, the speedup and the node ratio against the
//! first count, and the median of the units' own speedups: of all of
//! them, and of the longer half (by the first count's time). Counts
//! above this machine's cores measure the threads' overhead, not their
//! speed.
//!
//! ```text
//! cargo run --release -p kalah-lab --example unit_threads -- WORK TABLES_DIR [EVERY [THREADS [ROUNDS [TT_MB]]]]
//! ```
//! EVERY (default 20): one recorded test in EVERY, by issue order.
//! THREADS (default `1,2`): thread counts, comma-separated. ROUNDS
//! (default 3). TT_MB (default 64): the table of each count's solver,
//! emptied before each unit.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use kalah::service::setup::{new_solver_on, StopBy};
use kalah_cluster::unit::{UnitKey, Verdict};
use kalah_solver::search::{SearchConfig, Solver};

mod arg;
mod common;
mod records;
mod stats;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("unit_threads: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The thread counts of `text` (`1,2,4`): each at least 1.
fn counts(text: &str) -> Result<Vec<usize>, String> {
    text.split(',')
        .map(|t| {
            t.parse().ok().filter(|&n| n > 0).ok_or(format!(
                "THREADS {text}: {t} is not a positive whole number"
            ))
        })
        .collect()
}

/// One test from an empty table: its verdict, nodes and seconds.
fn time_test(solver: &Solver, key: UnitKey) -> Result<(Verdict, u64, f64), String> {
    solver.clear_table();
    solver.reset_stats();
    let clock = Instant::now();
    let holds = solver
        .board_at_least(key.board, key.beta)
        .map_err(|_| "a test was interrupted".to_string())?;
    let seconds = clock.elapsed().as_secs_f64();
    let verdict = if holds {
        Verdict::AtLeast
    } else {
        Verdict::Below
    };
    Ok((verdict, solver.stats().nodes, seconds))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [work, tables_dir, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: unit_threads WORK TABLES_DIR [EVERY [THREADS [ROUNDS [TT_MB]]]]".into(),
        );
    };
    let every: usize = arg::number(rest.first(), 20, "EVERY")?;
    let threads = counts(rest.get(1).map_or("1,2", String::as_str))?;
    let rounds: usize = arg::number(rest.get(2), 3, "ROUNDS")?;
    let tt_mb: usize = arg::number(rest.get(3), 64, "TT_MB")?;
    if every == 0 || rounds == 0 || tt_mb == 0 {
        return Err("EVERY, ROUNDS and TT_MB: at least 1".into());
    }
    let work = PathBuf::from(work);
    let (config, game, tables) = common::open_run(&work, tables_dir)?;
    let records = records::answered_tests(&work, &config)?;
    let sample: Vec<_> = records.iter().step_by(every).collect();
    if sample.is_empty() {
        return Err(format!("{}: no answered tests recorded", work.display()));
    }
    let tables = Arc::new(tables);
    let solvers = threads
        .iter()
        .map(|&t| {
            let config = SearchConfig {
                tt_mb,
                threads: t,
                ..SearchConfig::default()
            };
            new_solver_on(
                game.clone(),
                config,
                Some(Arc::clone(&tables)),
                StopBy::OwnFlag,
                None,
            )
            .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "{} tests (1 in {every} of {}), {rounds} rounds, {tt_mb} MiB tables emptied before each",
        sample.len(),
        records.len()
    );
    // One pass untimed first: the endgame tables' pages come into memory
    // before any clock runs, not during the first count's first round.
    for r in &sample {
        time_test(&solvers[0], r.key().map_err(|e| e.to_string())?)?;
    }
    // By count: each round's seconds and nodes, and each unit's seconds
    // in each round.
    let mut seconds = vec![Vec::new(); threads.len()];
    let mut nodes = vec![Vec::new(); threads.len()];
    let mut unit_seconds = vec![vec![Vec::new(); sample.len()]; threads.len()];
    for round in 1..=rounds {
        for (c, solver) in solvers.iter().enumerate() {
            let (mut s, mut n) = (0.0, 0u64);
            for (u, r) in sample.iter().enumerate() {
                let key = r.key().map_err(|e| e.to_string())?;
                let (verdict, un, us) = time_test(solver, key)?;
                if verdict != r.verdict {
                    return Err(format!(
                        "unit {} on {} threads: {verdict:?}, recorded {:?}",
                        r.seq, threads[c], r.verdict
                    ));
                }
                s += us;
                n += un;
                unit_seconds[c][u].push(us);
            }
            println!(
                "round {round}: {:>2} threads {s:.3} s {n} nodes",
                threads[c]
            );
            seconds[c].push(s);
            nodes[c].push(n as f64);
        }
    }
    let base_s = stats::median(seconds[0].clone());
    let base_n = stats::median(nodes[0].clone());
    let base_units: Vec<f64> = unit_seconds[0]
        .iter()
        .map(|v| stats::median(v.clone()))
        .collect();
    // The longer half of the units by their first count's time: a split
    // leaves the long ones on the critical chain.
    let long = stats::median(base_units.clone());
    println!(
        "threads  seconds     nodes  speedup  nodes vs {}  a unit's speedup (median: all; the {} of {:.1} ms or more)",
        threads[0],
        base_units.iter().filter(|&&b| b >= long).count(),
        1e3 * long
    );
    for (c, &t) in threads.iter().enumerate() {
        let s = stats::median(seconds[c].clone());
        let n = stats::median(nodes[c].clone());
        let speedups: Vec<(f64, f64)> = unit_seconds[c]
            .iter()
            .zip(&base_units)
            .map(|(v, &b)| (b, b / stats::median(v.clone())))
            .collect();
        let all = stats::median(speedups.iter().map(|u| u.1).collect());
        let longer = stats::median(
            speedups
                .iter()
                .filter(|u| u.0 >= long)
                .map(|u| u.1)
                .collect(),
        );
        println!(
            "{t:>7}  {s:>7.3}  {n:>8.0}  {:>6.2}x  {:>10.3}x  {all:>6.2}x; {longer:.2}x",
            base_s / s,
            n / base_n
        );
    }
    Ok(())
}
