//! Emulating a run on many workers: every unit solved for real on its
//! simulated worker's own table. The values and perfect games are the
//! solver's on every worker count; one worker is never idle and its time
//! is its nodes at the rate, and without a budget its units and nodes
//! are those of one real worker; a stopped unit never counts more nodes than
//! were searched; more workers finish sooner.

use kalah_cluster::coordinator::{coordinate, Discard, Policy, Settings};
use kalah_cluster::local::LocalEngine;
use kalah_cluster::plan::{TopTree, CUT_EARLY};
use kalah_cluster::report::replay;
use kalah_cluster::store::{Busy, RunConfig, WorkDir};
use kalah_cluster::unit::RunIdentity;
use kalah_cluster::worker::UnitSolver;
use kalah_lab::emulate::{emulate, EmuSettings};
use kalah_solver::search::SearchConfig;
use kalah_solver::{CaptureRule, EndRule, Game, Position, Rules, Solver};

const SETTINGS: EmuSettings = EmuSettings::new(1e6, 1e-4, 4, 0);

#[test]
fn emulated_runs_give_the_solvers_values_on_every_worker_count() {
    for (pits, seeds, capture, end, frontier, budget) in [
        (4, 4, CaptureRule::Empty, EndRule::Sweep, 5, 3000),
        (4, 3, CaptureRule::Standard, EndRule::Sweep, 4, 0),
        (5, 3, CaptureRule::Standard, EndRule::NoSweep, 5, 2000),
    ] {
        let rules = Rules { capture, end };
        let game = Game::new(pits, rules);
        let start = Position::start(pits, seeds).unwrap();
        let identity = RunIdentity {
            pits,
            seeds,
            rules: rules.slug(),
            table_seeds: 0,
        };
        let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
        let value = solver.solve(&start).unwrap();
        let name = format!("Kalah({pits},{seeds}) {}", rules.slug());
        let mut seconds = Vec::new();
        // Then 32 workers on 4 machines, 8 sharing each table; and
        // machines that hand each other their entries of work 6 or more.
        for (workers, rank_workers, share_work) in [
            (1, 1, 0),
            (4, 1, 0),
            (32, 1, 0),
            (32, 8, 0),
            (4, 1, 6),
            (32, 8, 6),
        ] {
            let tree = TopTree::new(&game, None, frontier, start, workers);
            let settings = EmuSettings {
                budget,
                rank_workers,
                share_work,
                ..SETTINGS
            };
            let e = emulate(&tree, &identity, &game, None, workers, settings, None).unwrap();
            let at = format!(
                "{name} on {workers} workers, {rank_workers} a table, sharing work {share_work}"
            );
            assert_eq!(e.shared_entries > 0, share_work > 0, "{at}");
            assert_eq!(e.solved.value, value, "{at}");
            let houses: Vec<usize> = e.solved.pv.iter().map(|m| m.house).collect();
            assert_eq!(replay(&game, start, &houses).unwrap(), value, "{at}");
            assert!(
                e.sim.counts.units > 0 && e.sim.counts.total_nodes() > 0,
                "{at}"
            );
            assert!(e.workers_used <= workers, "{at}");
            // Once the perfect game is known every unit still out is
            // stopped, and a stop reaches its worker one latency later:
            // no unit searches on past it to hold up the run's end.
            let perfect = e
                .sim
                .timeline
                .iter()
                .find(|(_, step)| step == "perfect game")
                .map(|&(t, _)| t)
                .expect("a run ends with its perfect game");
            assert!(
                e.sim.seconds <= perfect + 2.0 * SETTINGS.latency + 1e-9,
                "{at}: perfect game at {perfect} s, the run ends at {} s",
                e.sim.seconds
            );
            // A stopped unit counts the nodes to its stop, never more
            // than its slices searched.
            assert!(
                e.sim.counts.total_nodes() <= e.searched_nodes,
                "{at}: {} nodes counted, {} searched",
                e.sim.counts.total_nodes(),
                e.searched_nodes
            );
            if workers == 1 && budget == 0 {
                // Held at its gate or not, a search is the same search:
                // one emulated worker searches what one real worker with
                // the same table does, node for node.
                let mut real =
                    LocalEngine::new(UnitSolver::new(game.clone(), None, SETTINGS.tt_mb).unwrap());
                let done = coordinate(
                    &tree,
                    &identity,
                    &[],
                    &mut real,
                    &mut Discard,
                    Settings {
                        budget,
                        policy: SETTINGS.policy,
                        progress_every: 0.0,
                        progress_json: false,
                        model_nodes: None,
                    },
                )
                .unwrap();
                assert_eq!(done.counts.units, e.sim.counts.units, "{at}");
                assert_eq!(
                    done.counts.total_nodes(),
                    e.sim.counts.total_nodes(),
                    "{at}"
                );
            }
            if workers == 1 {
                // One worker runs one unit after another, never idle: its
                // time is its nodes at the rate and a latency a unit.
                assert!(e.sim.idle() < 1e-9, "{at}: idle {}", e.sim.idle());
                let units = e.sim.counts.units + e.sim.counts.cancelled_units;
                let expected = e.sim.counts.total_nodes() as f64 / SETTINGS.rate
                    + units as f64 * SETTINGS.latency;
                assert!(
                    (e.sim.seconds - expected).abs() <= 1e-6 * expected + 1e-3,
                    "{at}: {} s, nodes at the rate {expected} s",
                    e.sim.seconds
                );
            }
            seconds.push(e.sim.seconds);
        }
        assert!(
            seconds[2] < seconds[0],
            "{name}: 32 workers {} s, one {} s",
            seconds[2],
            seconds[0]
        );
    }
}

/// Kalah(4,4) under empty capture, its start and a run's identity
/// without tables.
fn kalah_4_4_ec() -> (Game, Position, RunIdentity) {
    let rules = Rules {
        capture: CaptureRule::Empty,
        end: EndRule::Sweep,
    };
    let identity = RunIdentity {
        pits: 4,
        seeds: 4,
        rules: rules.slug(),
        table_seeds: 0,
    };
    (
        Game::new(4, rules),
        Position::start(4, 4).unwrap(),
        identity,
    )
}

/// Lazy plans ([`Policy::lazy`]): answers only of units the last plan
/// had as speculation make no new plan, so a run on many workers plans
/// less, with the same value and a perfect game that replays to it.
#[test]
fn lazy_plans_plan_less_for_the_same_value() {
    let (game, start, identity) = kalah_4_4_ec();
    let value = Solver::new(game.clone(), SearchConfig::default(), None)
        .unwrap()
        .solve(&start)
        .unwrap();
    let tree = TopTree::new(&game, None, 5, start, 32);
    let plans: Vec<u64> = [false, true]
        .into_iter()
        .map(|lazy| {
            let settings = EmuSettings {
                budget: 3000,
                policy: Policy {
                    lazy,
                    ..SETTINGS.policy
                },
                ..SETTINGS
            };
            let e = emulate(&tree, &identity, &game, None, 32, settings, None).unwrap();
            assert_eq!(e.solved.value, value, "lazy {lazy}");
            let houses: Vec<usize> = e.solved.pv.iter().map(|m| m.house).collect();
            assert_eq!(replay(&game, start, &houses).unwrap(), value, "lazy {lazy}");
            e.sim.plans
        })
        .collect();
    assert!(
        plans[1] < plans[0],
        "plans: eager {}, lazy {}",
        plans[0],
        plans[1]
    );
}

/// The what-ifs. One worker runs only units the search needs: at
/// [`EmuSettings::needed_speed`] `k` each takes its nodes at `k` times the
/// rate, and its search is the same, node for node. The coordinator's work
/// charged at [`EmuSettings::plan_cost`] 0 is a run with it off the clock,
/// to the unit.
#[test]
fn what_ifs_speed_needed_units_and_scale_the_coordinators_work() {
    let (game, start, identity) = kalah_4_4_ec();
    let run = |workers: usize, settings: EmuSettings| {
        let tree = TopTree::new(&game, None, 5, start, workers);
        emulate(&tree, &identity, &game, None, workers, settings, None).unwrap()
    };
    let one = run(1, SETTINGS);
    let fast = run(
        1,
        EmuSettings {
            needed_speed: 4.0,
            ..SETTINGS
        },
    );
    assert_eq!(fast.solved.value, one.solved.value);
    assert_eq!(fast.sim.counts.total_nodes(), one.sim.counts.total_nodes());
    assert_eq!(fast.sim.counts.speculative_units, 0);
    let units = (fast.sim.counts.units + fast.sim.counts.cancelled_units) as f64;
    let expected =
        fast.sim.counts.total_nodes() as f64 / (4.0 * SETTINGS.rate) + units * SETTINGS.latency;
    assert!(
        (fast.sim.seconds - expected).abs() <= 1e-6 * expected + 1e-3,
        "{} s at 4 times the rate, expected {expected} s ({} s at the rate)",
        fast.sim.seconds,
        one.sim.seconds
    );

    let budget = EmuSettings {
        budget: 3000,
        ..SETTINGS
    };
    let off = run(32, budget);
    let free = run(
        32,
        EmuSettings {
            charge_plans: true,
            plan_cost: 0.0,
            ..budget
        },
    );
    assert_eq!(free.solved.value, off.solved.value);
    assert_eq!(free.sim.seconds, off.sim.seconds);
    assert_eq!(free.sim.counts.units, off.sim.counts.units);
    assert_eq!(free.sim.counts.total_nodes(), off.sim.counts.total_nodes());
}

/// `kalah-lab simulate --emulate` over a run's work directory: the JSON
/// names every worker count's value (the run's), speedup and emulation,
/// with nothing guessed; the replay's options that mean nothing to an
/// emulation are refused.
#[test]
fn simulate_emulate_reports_each_worker_count() {
    let bin = env!("CARGO_BIN_EXE_kalah-lab");
    let work = std::env::temp_dir().join(format!("kalah-lab-emulate-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    // The run, as `kalah-cluster solve --pits 4 --seeds 3 --no-tables
    // --local --unit-budget 2000` records it: one worker, in this process,
    // into the work directory.
    let (pits, seeds, budget) = (4, 3, 2000);
    let game = Game::new(pits, Rules::STANDARD);
    let start = Position::start(pits, seeds).unwrap();
    let identity = RunIdentity {
        pits,
        seeds,
        rules: Rules::STANDARD.slug(),
        table_seeds: 0,
    };
    let config = RunConfig {
        format: kalah_cluster::store::FORMAT,
        identity: identity.clone(),
        frontier: 6,
        budget,
        cut_early: CUT_EARLY,
    };
    let mut dir = WorkDir::open(&work, &config, Busy::Refuse).unwrap();
    let mut tree = TopTree::new(&game, None, config.frontier, start, 0);
    tree.cut_early = CUT_EARLY;
    let recorded = coordinate(
        &tree,
        &identity,
        &[],
        &mut LocalEngine::new(UnitSolver::new(game.clone(), None, 16).unwrap()),
        &mut dir,
        Settings {
            budget,
            policy: Policy::DEFAULT,
            progress_every: 0.0,
            progress_json: false,
            model_nodes: None,
        },
    )
    .unwrap();
    drop(dir);
    let solved = serde_json::json!({ "value": recorded.solved.value });
    let emulate = |extra: &[&str]| {
        std::process::Command::new(bin)
            .args([
                "simulate",
                "--emulate",
                "--workers",
                "1,4",
                "--tt-mb",
                "4",
                "--json",
            ])
            .args(extra)
            .arg("--work")
            .arg(&work)
            .output()
            .unwrap()
    };
    let out = emulate(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The coordinator's policy, field by field at the top level
    // (docs/json.md), as `solve` has it without flags.
    for (field, value) in [
        ("presplit", serde_json::json!(0.25)),
        ("preempt", true.into()),
        ("affinity", true.into()),
        ("known", true.into()),
        ("resume", true.into()),
        ("recent_first", true.into()),
        ("lazy", false.into()),
    ] {
        assert_eq!(report[field], value, "{field}");
    }
    let runs = report["emulation"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["value"], solved["value"], "{r}");
        assert!(r["searched_nodes"].as_u64().unwrap() > 0, "{r}");
    }
    for r in report["runs"].as_array().unwrap() {
        assert_eq!(r["guessed_units"], 0, "{r}");
        assert!(r["speedup"].as_f64().unwrap() > 0.0, "{r}");
    }
    assert_eq!(report["runs"][0]["speedup"], 1.0);
    // A measurement, not a what-if.
    assert_eq!(report["emulation"]["needed_speed"], 1.0);
    assert_eq!(report["emulation"]["plan_cost"], 1.0);
    for what_if in [
        &["--plan-cost", "0.5"][..],
        &["--charge-plans", "--plan-cost", "-1"],
        &["--needed-speed", "0"],
    ] {
        let refused = emulate(what_if);
        assert!(!refused.status.success(), "{what_if:?}");
    }
    let refused = emulate(&["--fill"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--fill"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // --records: every unit of each worker count's run, one record a
    // line, adding up to the run's counts; with --charge-plans the
    // coordinator's planning is on the clock and the value the same.
    let file = work.join("units.jsonl");
    let out = emulate(&["--charge-plans", "--records", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, p) in [1, 4].into_iter().enumerate() {
        let run = &report["runs"][i];
        assert_eq!(report["emulation"]["runs"][i]["value"], solved["value"]);
        let counts = &run["counts"];
        let text = std::fs::read_to_string(format!("{}.{p}", file.display())).unwrap();
        let records: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let stopped = records.iter().filter(|r| r.get("stopped").is_some());
        let answered = records.iter().filter(|r| r.get("stopped").is_none());
        assert_eq!(
            answered.clone().count() as u64,
            counts["units"].as_u64().unwrap()
        );
        assert_eq!(
            stopped.count() as u64,
            counts["cancelled_units"].as_u64().unwrap()
        );
        let nodes: u64 = records.iter().map(|r| r["nodes"].as_u64().unwrap()).sum();
        assert_eq!(nodes, run["nodes"].as_u64().unwrap(), "{p} workers");
        let speculative = answered.filter(|r| r["speculative"] == true).count() as u64;
        assert_eq!(speculative, counts["speculative_units"].as_u64().unwrap());
        if p == 1 {
            // One worker: nothing speculative, every repeat on it.
            assert_eq!(speculative, 0);
            assert_eq!(counts["repeat_issues"], counts["repeat_same_worker"]);
        }
        let (plans, own) = (
            run["plan_seconds"].as_f64().unwrap(),
            run["coordinator_seconds"].as_f64().unwrap(),
        );
        assert!(
            plans > 0.0 && own >= plans,
            "{p} workers: {plans} s of {own}"
        );
    }
    // One worker is busy for its nodes at the rate (2e6) and a latency
    // (1e-4 s) a unit; the plans charged come on top.
    let one = &report["runs"][0];
    let units = one["units"].as_f64().unwrap() + one["cancelled_units"].as_f64().unwrap();
    let busy = one["nodes"].as_f64().unwrap() / 2e6 + units * 1e-4;
    assert!(
        one["seconds"].as_f64().unwrap() > busy + 1e-6,
        "one worker, plans charged: {one}"
    );
    std::fs::remove_dir_all(&work).unwrap();
}
