//! How much a unit costs a cold worker against what the recorded run's
//! warm workers paid: re-solves a sample of a work directory's recorded
//! tests (answered, not split, not filled) on a solver whose table is
//! emptied before each, and prints the two node sums and their ratio.
//! `kalah-lab simulate --fill` costs the units it solves this cold way, so
//! the ratio is the bias of filled costs against recorded ones, and the
//! factor `kalah-lab simulate --recorded-cost` puts on recorded units for
//! schedules on many workers.
//!
//! With `warm`, the table is kept from one sampled test to the next, as a
//! worker keeps it that gets one unit in EVERY of a run (in issue order,
//! from the OFFSET-th): the cost on many workers, each warm from fewer
//! related units than the recorded run's.
//!
//! ```text
//! cargo run --release -p kalah-lab --example cold_cost -- WORK TABLES_DIR [EVERY [warm [OFFSET]]]
//! ```
//! EVERY (default 20): one recorded test in EVERY, by issue order.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use kalah_cluster::unit::Verdict;
use kalah_cluster::worker::UnitSolver;

mod common;
mod records;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cold_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [work, tables_dir, rest @ ..] = args.as_slice() else {
        return Err("usage: cold_cost WORK TABLES_DIR [EVERY]".into());
    };
    let every: usize = match rest.first() {
        Some(t) => t
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or(format!("EVERY {t}: a positive whole number"))?,
        None => 20,
    };
    let warm_table = rest.get(1).is_some_and(|t| t == "warm");
    let offset: usize = match rest.get(2) {
        Some(t) => t
            .parse()
            .map_err(|_| format!("OFFSET {t}: a whole number"))?,
        None => 0,
    };
    let work = PathBuf::from(work);
    let (config, game, tables) = common::open_run(&work, tables_dir)?;
    let records = records::answered_tests(&work, &config)?;
    let solver = UnitSolver::new(game, Some(Arc::new(tables)), 256).map_err(|e| e.to_string())?;
    let (mut warm, mut cold, mut n) = (0u64, 0u64, 0usize);
    for r in records.iter().skip(offset).step_by(every) {
        let key = r.key().map_err(|e| e.to_string())?;
        if !warm_table {
            solver.forget();
        }
        let a = solver.solve(key, config.budget, || false);
        if a.verdict != Some(r.verdict) && a.verdict != Some(Verdict::Split) {
            return Err(format!(
                "unit {}: cold {:?}, recorded {:?}",
                r.seq, a.verdict, r.verdict
            ));
        }
        warm += r.nodes;
        cold += a.nodes;
        n += 1;
    }
    println!(
        "{n} tests (1 in {every} of {} from {offset}): recorded {warm} nodes, {} {cold} nodes, ratio {:.3}",
        records.len(),
        if warm_table { "warm" } else { "cold" },
        cold as f64 / warm.max(1) as f64
    );
    Ok(())
}
