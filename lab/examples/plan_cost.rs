//! What the coordinator's plans cost, replayed on a recorded run: reads
//! the records `kalah-lab simulate --records FILE` wrote (one JSON unit
//! record a line), takes the answers in the order they came, in batches
//! of the answers that came within `BATCH_MS` of each other (a
//! coordinator's cycle takes all answers in before it plans), and plans
//! the top tree after each batch, as the coordinator does, with
//! speculation for `WORKERS` workers. Prints the plans, their time on
//! this thread, and the boards the top tree expanded. Units running are
//! not known here, so no unit is hot: the plans' speculation below hot
//! units is left out.
//!
//! ```text
//! cargo run --release -p kalah-lab --example plan_cost -- WORK TABLES_DIR RECORDS [WORKERS [BATCH_MS]]
//! ```

use std::hash::{Hash, Hasher};
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use kalah_cluster::facts::Facts;
use kalah_cluster::plan::TopTree;
use kalah_cluster::unit::UnitRecord;
use kalah_solver::{Position, Probe};

mod arg;
mod common;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plan_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [work, tables_dir, records, rest @ ..] = args.as_slice() else {
        return Err("usage: plan_cost WORK TABLES_DIR RECORDS [WORKERS [BATCH_MS]]".into());
    };
    let workers: usize = arg::number(rest.first(), 512, "WORKERS")?;
    let batch: f64 = arg::number(rest.get(1), 2.0, "BATCH_MS")? / 1e3;
    let (config, game, tables) = common::open_run(Path::new(work), tables_dir)?;
    let file = std::fs::File::open(records).map_err(|e| format!("{records}: {e}"))?;
    let mut answers = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{records}: {e}"))?;
        let r: UnitRecord =
            serde_json::from_str(&line).map_err(|e| format!("{records}:{}: {e}", n + 1))?;
        if r.stopped.is_none() {
            answers.push(r);
        }
    }
    answers.sort_by(|a, b| a.answered_at.total_cmp(&b.answered_at));
    let start =
        Position::start(config.identity.pits, config.identity.seeds).map_err(|e| e.to_string())?;
    let tree = TopTree::new(
        &game,
        Some(&tables as &dyn Probe),
        config.frontier,
        start,
        workers,
    );
    let mut facts = Facts::default();
    let (mut plans, mut seconds, mut slowest) = (0u64, 0.0f64, 0.0f64);
    // A digest of every plan's units, to tell two builds' plans apart.
    let mut digest = std::hash::DefaultHasher::new();
    let mut at = 0;
    loop {
        let clock = Instant::now();
        let plan = tree.plan(&mut facts).map_err(|e| e.to_string())?;
        let took = clock.elapsed().as_secs_f64();
        plans += 1;
        seconds += took;
        slowest = slowest.max(took);
        plan.needed.hash(&mut digest);
        plan.required.hash(&mut digest);
        if plan.solved.is_some() || at == answers.len() {
            break;
        }
        let until = answers[at].answered_at + batch;
        while at < answers.len() && answers[at].answered_at <= until {
            let r = &answers[at];
            facts.add(r.key().map_err(|e| e.to_string())?, r.verdict);
            r.known.iter().for_each(|k| facts.add_known(k));
            at += 1;
        }
    }
    println!(
        "{plans} plans of {} answers: {:.3} s, {:.3} ms a plan, slowest {:.2} ms; {} boards expanded, {} met; units digest {:016x}",
        answers.len(),
        seconds,
        1e3 * seconds / plans as f64,
        1e3 * slowest,
        facts.expanded(),
        facts.len(),
        digest.finish()
    );
    Ok(())
}
