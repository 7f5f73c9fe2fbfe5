//! A run's certificate (kalah-cluster's `certify` module, checked by
//! `kalah::certificate`): written from a small solve's records, it checks;
//! any one fact of it changed is caught, by the logic check where the
//! change breaks the proof, by searching that fact again where it does not.

use kalah::certificate::{Certificate, Fact};
use kalah_cluster::coordinator::{coordinate, Policy, Settings};
use kalah_cluster::local::LocalEngine;
use kalah_cluster::plan::TopTree;
use kalah_cluster::store::{Busy, RunConfig, WorkDir, FORMAT};
use kalah_cluster::unit::RunIdentity;
use kalah_cluster::worker::UnitSolver;
use kalah_solver::search::SearchConfig;
use kalah_solver::{Game, Position, Rules, Solver};

const FRONTIER: u32 = 5;
const BUDGET: u64 = 20_000;

/// Solves Kalah(5,4) under `rules` in a work directory (units split at a
/// small budget, cut nodes above the frontier), and writes its
/// certificate.
fn certified(rules: Rules) -> (Certificate, Solver, i32) {
    let (pits, seeds) = (5, 4);
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).unwrap();
    let dir = std::env::temp_dir().join(format!(
        "kalah-cluster-certify-{}-{}",
        rules.slug(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let identity = RunIdentity {
        pits,
        seeds,
        rules: rules.slug(),
        table_seeds: 0,
    };
    let config = RunConfig {
        format: FORMAT,
        identity: identity.clone(),
        frontier: FRONTIER,
        budget: BUDGET,
        cut_early: 2,
    };
    let mut work = WorkDir::open(&dir, &config, Busy::Refuse).unwrap();
    let mut tree = TopTree::new(&game, None, FRONTIER, start, 0);
    tree.cut_early = 2;
    let settings = Settings {
        budget: BUDGET,
        policy: Policy::DEFAULT,
        progress_every: 0.0,
        progress_json: false,
        model_nodes: None,
    };
    let mut engine = LocalEngine::new(UnitSolver::new(game.clone(), None, 16).unwrap());
    let done = coordinate(&tree, &identity, &[], &mut engine, &mut work, settings).unwrap();
    let records = work.load().unwrap().records;
    assert!(records.len() > 20, "{} records", records.len());
    let plan = {
        let mut facts = kalah_cluster::facts::Facts::default();
        for r in &records {
            facts.add(r.key().unwrap(), r.verdict);
            r.known.iter().for_each(|k| facts.add_known(k));
        }
        tree.plan(&mut facts).unwrap()
    };
    let cert = kalah_cluster::certify::certificate(
        &game,
        start,
        seeds,
        FRONTIER,
        &records,
        None,
        (&plan.root, plan.solved.as_ref()),
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let solver = Solver::new(game, SearchConfig::default(), None).unwrap();
    (cert, solver, done.solved.value)
}

/// Whether the search agrees with `f`.
fn holds(solver: &Solver, f: &Fact) -> bool {
    f.lower
        .is_none_or(|l| solver.board_at_least(f.board, l).unwrap())
        && f.upper
            .is_none_or(|u| !solver.board_at_least(f.board, u + 1).unwrap())
}

#[test]
fn a_certificate_checks_and_every_changed_fact_is_caught() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let (cert, solver, value) = certified(rules);
        let name = rules.slug();
        assert_eq!(
            (cert.header.lower, cert.header.upper),
            (value, value),
            "{name}"
        );
        assert!(!cert.header.perfect_game.is_empty(), "{name}");
        cert.check_logic().unwrap();
        for f in &cert.facts {
            assert!(holds(&solver, f), "{name}: {f:?}");
        }
        // Each fact turned into its opposite: value >= l becomes value <=
        // l - 1 and the other way round.
        let (mut by_logic, mut by_search) = (0, 0);
        for i in 0..cert.facts.len() {
            let mut changed = cert.clone();
            let f = &mut changed.facts[i];
            let (lower, upper) = match (f.lower, f.upper) {
                (Some(l), _) => (None, Some(l - 1)),
                (None, Some(u)) => (Some(u + 1), None),
                (None, None) => unreachable!("a fact bounds its board"),
            };
            f.lower = lower;
            f.upper = upper;
            if changed.check_logic().is_err() {
                by_logic += 1;
            } else {
                assert!(
                    !holds(&solver, &changed.facts[i]),
                    "{name}: fact {i} changed, the logic still holds and the search agrees"
                );
                by_search += 1;
            }
        }
        assert_eq!(by_logic + by_search, cert.facts.len());
        assert!(by_logic > 0, "{name}: no change broke the logic");
        // Another value claimed: the logic fails.
        for v in [value - 2, value + 2] {
            let mut wrong = cert.clone();
            wrong.header.lower = v;
            wrong.header.upper = v;
            assert!(wrong.check_logic().is_err(), "{name}: claimed {v}");
        }
        // Written, cut short: refused when read.
        let path = std::env::temp_dir().join(format!(
            "kalah-cluster-certify-{name}-{}.jsonl.gz",
            std::process::id()
        ));
        cert.write(&path).unwrap();
        assert_eq!(Certificate::read(&path).unwrap(), cert);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(
            Certificate::read(&path).is_err(),
            "{name}: a truncated file"
        );
        std::fs::remove_file(&path).unwrap();
        eprintln!(
            "{name}: value {value:+}, {} facts, {} expanded; changed facts caught: {by_logic} by the logic, {by_search} by the search",
            cert.facts.len(),
            cert.expanded.len()
        );
    }
}
