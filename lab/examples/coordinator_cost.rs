//! What the coordinator's own work costs on a schedule that does not
//! depend on it: an emulated run (`kalah-lab simulate --emulate`) with
//! the coordinator's work off the clock, every simulated worker with a
//! transposition table of its own, and no endgame tables
//! ([`EmuSettings::new`]), so that the same build makes the same
//! schedule, unit for unit, every time (the fingerprint line says so).
//! Two builds that should make the same decisions are compared by their
//! fingerprints (equal) and the coordinator's CPU time: plans, taking
//! answers in and handing units out. A run on a real game with
//! `--charge-plans` measures the same costs, but its schedule moves with
//! them, and its total time varies more from run to run than such a
//! change moves it.
//!
//! ```text
//! cargo run --release -p kalah-lab --example coordinator_cost -- [PITS SEEDS RULES FRONTIER BUDGET WORKERS [ROUNDS]]
//! ```
//! Defaults: Kalah(5,4) `std`, frontier 6, budget 5,000 nodes, 512
//! workers, 3 rounds; RULES is `std` or `ec` (empty capture). Each round
//! prints one line; the medians follow.

use std::process::ExitCode;

use kalah_cluster::plan::TopTree;
use kalah_cluster::unit::RunIdentity;
use kalah_lab::emulate::{emulate, EmuSettings};
use kalah_solver::{CaptureRule, EndRule, Game, Position, Rules};

mod arg;
mod stats;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coordinator_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pits: usize = arg::number(args.first(), 5, "PITS")?;
    let seeds: usize = arg::number(args.get(1), 4, "SEEDS")?;
    let capture = match args.get(2).map(String::as_str) {
        None | Some("std") => CaptureRule::Standard,
        Some("ec") => CaptureRule::Empty,
        Some(other) => return Err(format!("RULES {other}: std or ec")),
    };
    let frontier: u32 = arg::number(args.get(3), 6, "FRONTIER")?;
    let budget: u64 = arg::number(args.get(4), 5000, "BUDGET")?;
    let workers: usize = arg::number(args.get(5), 512, "WORKERS")?;
    let rounds: usize = arg::number(args.get(6), 3, "ROUNDS")?;
    if workers == 0 || rounds == 0 {
        return Err("WORKERS and ROUNDS: at least 1".into());
    }
    let rules = Rules {
        capture,
        end: EndRule::Sweep,
    };
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).map_err(|e| e.to_string())?;
    let identity = RunIdentity {
        pits,
        seeds,
        rules: rules.slug(),
        table_seeds: 0,
    };
    let settings = EmuSettings::new(1e6, 1e-4, 4, budget);
    println!(
        "Kalah({pits},{seeds}) {}, frontier {frontier}, budget {budget}, {workers} workers",
        rules.slug()
    );
    let mut fingerprint: Option<String> = None;
    let (mut plan, mut intake, mut handout) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=rounds {
        let tree = TopTree::new(&game, None, frontier, start, workers);
        let e = emulate(&tree, &identity, &game, None, workers, settings, None)
            .map_err(|e| e.to_string())?;
        let s = &e.sim;
        let issued = s.counts.units + s.counts.cancelled_units;
        let print = format!(
            "value {:+}, {:.6} simulated s, {} units answered, {} issued, {} nodes, {} plans",
            e.solved.value,
            s.seconds,
            s.counts.units,
            issued,
            s.counts.total_nodes(),
            s.plans
        );
        match &fingerprint {
            None => println!("schedule: {print}"),
            Some(f) if *f != print => {
                return Err(format!(
                    "round {round} made another schedule ({print}): not comparable"
                ))
            }
            Some(_) => {}
        }
        fingerprint = Some(print);
        println!(
            "round {round}: coordinator {:.3} s: plans {:.3} s ({:.1} us a plan), intake {:.3} s, hand-out {:.3} s ({:.2} us a unit issued)",
            s.coordinator_seconds,
            s.plan_seconds,
            1e6 * s.plan_seconds / s.plans.max(1) as f64,
            s.intake_seconds,
            s.handout_seconds,
            1e6 * s.handout_seconds / issued.max(1) as f64
        );
        plan.push(s.plan_seconds);
        intake.push(s.intake_seconds);
        handout.push(s.handout_seconds);
    }
    println!(
        "medians: plans {:.3} s, intake {:.3} s, hand-out {:.3} s",
        stats::median(plan),
        stats::median(intake),
        stats::median(handout)
    );
    Ok(())
}
