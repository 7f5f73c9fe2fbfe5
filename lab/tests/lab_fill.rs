//! Grounding a simulation: a run recorded with one worker, simulated on
//! more, asks for units the record lacks; `fill` solves them for real
//! until no simulated schedule guesses a unit, and every filled record is
//! what a worker would have answered (the verdict of a fresh solve of the
//! board's value against the bound, or a split past the unit budget).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use kalah_cluster::coordinator::{coordinate, Policy, Settings};
use kalah_cluster::local::LocalEngine;
use kalah_cluster::plan::{TopTree, CUT_EARLY};
use kalah_cluster::store::{RunConfig, WorkDir};
use kalah_cluster::unit::{RunIdentity, UnitRecord, Verdict, EXACT};
use kalah_cluster::worker::UnitSolver;
use kalah_lab::fill::{fill, FillSettings, Simulation};
use kalah_lab::sim::Dispatch;
use kalah_solver::search::SearchConfig;
use kalah_solver::table::{build_tables, BuildConfig, Tables};
use kalah_solver::{Game, Position, Probe, Rules, Solver};

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("kalah-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

const PITS: usize = 4;
const SEEDS: usize = 4;
const TABLE_SEEDS: u32 = 8;
const FRONTIER: u32 = 5;
/// Small enough that some units split (their children become units).
const BUDGET: u64 = 3000;

#[test]
fn a_filled_record_grounds_every_simulated_schedule() {
    let rules = Rules::EMPTY_CAPTURE;
    let tables_dir = temp("fill-tables");
    let work = temp("fill-work");
    build_tables(
        &tables_dir,
        &BuildConfig {
            pits: PITS,
            rules,
            max_seeds: TABLE_SEEDS,
            threads: 2,
        },
        &(),
        &AtomicBool::new(false),
    )
    .unwrap();
    let tables = Arc::new(Tables::open(&tables_dir, PITS, rules).unwrap());
    let probe: &dyn Probe = &*tables;
    let game = Game::new(PITS, rules);
    let start = Position::start(PITS, SEEDS).unwrap();
    let identity = RunIdentity {
        pits: PITS,
        seeds: SEEDS,
        rules: rules.slug(),
        table_seeds: TABLE_SEEDS,
    };
    let config = RunConfig {
        format: kalah_cluster::store::FORMAT,
        identity: identity.clone(),
        frontier: FRONTIER,
        budget: BUDGET,
        cut_early: CUT_EARLY,
    };

    // The recorded run: one worker, in this process, into the work directory.
    let mut dir = WorkDir::open(&work, &config, kalah_cluster::store::Busy::Refuse).unwrap();
    let solver = UnitSolver::new(game.clone(), Some(tables.clone()), 16).unwrap();
    // Cut nodes above the frontier are units, as a run with a budget
    // takes them by default.
    let tree = |speculate| {
        let mut tree = TopTree::new(&game, Some(probe), FRONTIER, start, speculate);
        tree.cut_early = CUT_EARLY;
        tree
    };
    let recorded = coordinate(
        &tree(0),
        &identity,
        &[],
        &mut LocalEngine::new(solver),
        &mut dir,
        Settings {
            budget: BUDGET,
            policy: Policy::DEFAULT,
            progress_every: 0.0,
            progress_json: false,
            model_nodes: None,
        },
    )
    .unwrap();
    let loaded = dir.load().unwrap();
    assert_eq!(loaded.records.len() as u64, recorded.counts.units);
    assert!(
        recorded.counts.split_units > 0,
        "the budget splits some units"
    );

    let workers = [1, 4, 16, 64];
    let trees: Vec<(usize, TopTree<'_>)> = workers.iter().map(|&p| (p, tree(p))).collect();
    let sim = Simulation {
        trees: &trees,
        identity: &identity,
        dispatch: Dispatch {
            rate: 1e6,
            latency: 1e-4,
            waves: None,
            guess_nodes: None,
            recorded_cost: 1.0,
            policy: Policy::DEFAULT,
        },
        budget: BUDGET,
    };
    let mut records = loaded.records.clone();
    let mut unanswered = loaded.cancelled.clone();
    // An exact unit without a record, whose value no record implies (the
    // guess's, with no records at all), stops the schedule, named among
    // the units it guessed for a fill to solve: a test's verdict can be
    // guessed, an exact value cannot.
    let e = sim.run(&[], &[]).unwrap_err();
    assert!(
        e.guessed.iter().any(|(k, _)| k.beta == EXACT),
        "{}",
        e.message
    );
    // Before the fill a schedule may stop: a verdict it guessed can
    // contradict the tables. Only a guessed one may.
    let guessed: usize = match sim.run(&records, &unanswered) {
        Ok(rows) => rows.iter().map(|r| r.unrecorded.len()).sum(),
        Err(e) => {
            assert!(!e.guessed.is_empty(), "{}", e.message);
            e.guessed.len()
        }
    };
    assert!(
        guessed > 0,
        "more workers take other paths than the recorded run"
    );

    let settings = FillSettings {
        threads: 2,
        tt_mb: 16,
        cap: 100_000,
        progress_every: 0.0,
    };
    let (rows, report) = fill(
        &sim,
        &mut records,
        &mut unanswered,
        &game,
        Some(&tables),
        &dir,
        settings,
    )
    .unwrap();
    assert!(!report.capped);
    assert!(report.units > 0);
    assert_eq!(rows.len(), workers.len());
    for r in &rows {
        assert!(
            r.unrecorded.is_empty(),
            "{} workers: {} units guessed after the fill",
            r.workers,
            r.unrecorded.len()
        );
        assert!(r.seconds > 0.0 && r.chain.units > 0);
    }
    // More workers never take longer here than one.
    assert!(rows.iter().all(|r| r.seconds <= rows[0].seconds * 1.0001));
    // Recorded units at twice their cost: one worker takes longer.
    let dearer = Simulation {
        dispatch: Dispatch {
            recorded_cost: 2.0,
            ..sim.dispatch
        },
        ..sim
    };
    let dear = dearer.run(&records, &unanswered).unwrap();
    assert!(
        dear[0].seconds > rows[0].seconds * 1.01,
        "{} s against {} s",
        dear[0].seconds,
        rows[0].seconds
    );

    // The filled records are on disk, as a worker's would be.
    let reread = dir.load().unwrap();
    assert!(reread.refused.is_empty(), "{:?}", reread.refused);
    let filled: Vec<&UnitRecord> = reread.records.iter().filter(|r| r.filled).collect();
    assert_eq!(filled.len(), report.units);
    assert_eq!(reread.partial.len(), report.partial_units);
    let fresh = Solver::new(
        game.clone(),
        SearchConfig {
            tt_mb: 16,
            threads: 1,
            ..SearchConfig::default()
        },
        Some(tables.clone()),
    )
    .unwrap();
    for r in &filled {
        let key = r.key().unwrap();
        let value = fresh.solve_board(key.board).unwrap();
        // A schedule's perfect game may ask exact units the recorded
        // run's did not.
        assert_eq!(
            key.beta == EXACT,
            matches!(r.verdict, Verdict::Exact(_)),
            "{}: an exact unit answers with a value, a test with a verdict",
            r.houses
        );
        match r.verdict {
            Verdict::AtLeast => assert!(value >= key.beta, "{}: {value} < {}", r.houses, key.beta),
            Verdict::Below => assert!(value < key.beta, "{}: {value} >= {}", r.houses, key.beta),
            Verdict::Split => assert!(r.nodes > BUDGET, "{}: split at {} nodes", r.houses, r.nodes),
            Verdict::Exact(v) => assert_eq!(v, value, "{}", r.houses),
        }
    }
    for r in &reread.partial {
        assert!(r.filled && r.verdict == Verdict::Split && r.nodes > 0);
    }

    // Idempotent: a second fill finds nothing to solve, and the
    // simulations come out the same.
    let (again, second) = fill(
        &sim,
        &mut reread.records.clone(),
        &mut unanswered.clone(),
        &game,
        Some(&tables),
        &dir,
        settings,
    )
    .unwrap();
    assert_eq!(second.units + second.partial_units, 0);
    for (a, b) in again.iter().zip(&rows) {
        assert_eq!(a.seconds, b.seconds, "{} workers", a.workers);
    }
    std::fs::remove_dir_all(&work).unwrap();
    std::fs::remove_dir_all(&tables_dir).unwrap();
}
