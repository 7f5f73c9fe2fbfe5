//! The distributed solve without MPI: the top tree over the in-process
//! engine gives the solver's values and a perfect game that replays to
//! them; a run stopped part way resumes from its records and asks only for
//! units it has no answer to; records that are not this run's are refused.

use std::collections::HashSet;
use std::path::PathBuf;

use kalah_cluster::coordinator::{coordinate, Discard, Policy, Settings, Sink};
use kalah_cluster::local::LocalEngine;
use kalah_cluster::plan::TopTree;
use kalah_cluster::report::replay;
use kalah_cluster::store::{Busy, RunConfig, StoreError, WorkDir};
use kalah_cluster::unit::{RunIdentity, UnitKey, UnitRecord};
use kalah_cluster::worker::UnitSolver;
use kalah_cluster::ClusterError;
use kalah_solver::search::SearchConfig;
use kalah_solver::{Board, CaptureRule, EndRule, Game, Position, Rules, Solver};

fn identity(pits: usize, seeds: usize, rules: Rules) -> RunIdentity {
    RunIdentity {
        pits,
        seeds,
        rules: rules.slug(),
        table_seeds: 0,
    }
}

fn reference(game: &Game, start: &Position) -> i32 {
    let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
    solver.solve(start).unwrap()
}

/// A sink keeping the records in memory, failing (as a killed coordinator
/// would stop) after `limit` answers.
struct Memory {
    records: Vec<UnitRecord>,
    limit: usize,
}

impl Sink for Memory {
    fn answered(&mut self, _: &UnitKey, r: &UnitRecord) -> Result<(), ClusterError> {
        if self.records.len() == self.limit {
            return Err(ClusterError::Store(StoreError::Io {
                path: "memory".into(),
                error: std::io::Error::other("killed"),
            }));
        }
        self.records.push(r.clone());
        Ok(())
    }

    fn cancelled(&mut self, _: &UnitRecord) -> Result<(), ClusterError> {
        Ok(())
    }
}

fn local(game: &Game) -> LocalEngine {
    LocalEngine::new(UnitSolver::new(game.clone(), None, 16).unwrap())
}

const SETTINGS: Settings = Settings {
    budget: 0,
    policy: Policy::DEFAULT,
    progress_every: 0.0,
    progress_json: false,
    model_nodes: None,
};

#[test]
fn values_and_perfect_games_match_the_solver() {
    for (pits, seeds, capture, end, frontier) in [
        (4, 3, CaptureRule::Standard, EndRule::Sweep, 4),
        (4, 3, CaptureRule::Empty, EndRule::Sweep, 3),
        (5, 2, CaptureRule::Standard, EndRule::NoSweep, 5),
        (3, 4, CaptureRule::Empty, EndRule::Delayed, 6),
        (6, 2, CaptureRule::Standard, EndRule::Sweep, 4),
    ] {
        let rules = Rules { capture, end };
        let game = Game::new(pits, rules);
        let start = Position::start(pits, seeds).unwrap();
        // Fail-hard too (the laboratory's `--fail-hard`): it must not change a value.
        let fail_soft = pits != 4;
        let mut tree = TopTree::new(&game, None, frontier, start, 0);
        tree.fail_soft = fail_soft;
        let done = coordinate(
            &tree,
            &identity(pits, seeds, rules),
            &[],
            &mut local(&game),
            &mut Discard,
            SETTINGS,
        )
        .unwrap();
        let name = format!(
            "Kalah({pits},{seeds}) {}{}",
            rules.slug(),
            if fail_soft { "" } else { " fail-hard" }
        );
        assert_eq!(done.solved.value, reference(&game, &start), "{name}");
        let houses: Vec<usize> = done.solved.pv.iter().map(|m| m.house).collect();
        assert_eq!(
            replay(&game, start, &houses).unwrap(),
            done.solved.value,
            "{name}: the perfect game"
        );
        assert!(
            done.counts.units > 0,
            "{name}: the frontier is below the start"
        );
    }
}

/// The boards exactly `depth` sowings below `start` (finished games
/// left out), for each depth up to `deepest`.
fn levels(game: &Game, start: &Position, deepest: u32) -> Vec<HashSet<Board>> {
    let mut levels = vec![HashSet::from([start.board()])];
    for _ in 0..deepest {
        let mut next = HashSet::new();
        for &b in levels.last().unwrap() {
            let mut moves = game.moves(b);
            while moves != 0 {
                let house = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let child = game.sow(b, house).board;
                if game.terminal_value(child).is_none() {
                    next.insert(child);
                }
            }
        }
        levels.push(next);
    }
    levels
}

/// A cut node (a test expected to hold) `cut_early` sowings above the
/// frontier is a unit: the same value and a perfect game that replays,
/// with units above the frontier only when `cut_early` asks for them
/// (no budget here, so no unit is split and every other unit is a
/// frontier board).
#[test]
fn cut_nodes_above_the_frontier_are_units() {
    let rules = Rules::STANDARD;
    let (pits, seeds, frontier) = (4, 3, 4);
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).unwrap();
    let levels = levels(&game, &start, frontier);
    let id = identity(pits, seeds, rules);
    let value = reference(&game, &start);
    for cut_early in [0, 1, 2] {
        let mut tree = TopTree::new(&game, None, frontier, start, 0);
        tree.cut_early = cut_early;
        let mut sink = Memory {
            records: Vec::new(),
            limit: usize::MAX,
        };
        let done = coordinate(&tree, &id, &[], &mut local(&game), &mut sink, SETTINGS).unwrap();
        assert_eq!(done.solved.value, value, "cut_early {cut_early}");
        let houses: Vec<usize> = done.solved.pv.iter().map(|m| m.house).collect();
        assert_eq!(replay(&game, start, &houses).unwrap(), value);
        // The sowings above the frontier a unit's board is (boards met
        // at several depths counted at the deepest).
        let depth = frontier as usize;
        let above = |board: &Board| (0..=2).find(|k| levels[depth - k].contains(board));
        let mut count = [0usize; 3];
        for r in &sink.records {
            if let Some(k) = above(&r.key().unwrap().board) {
                count[k] += 1;
            }
        }
        assert!(count[0] > 0, "cut_early {cut_early}: units at the frontier");
        for (k, &units) in count.iter().enumerate().skip(1) {
            if k <= cut_early as usize {
                assert!(units > 0, "cut_early {cut_early}: no unit {k} above");
            } else {
                assert_eq!(units, 0, "cut_early {cut_early}: units {k} above");
            }
        }
    }
}

#[test]
fn a_stopped_run_resumes_from_its_records() {
    let rules = Rules::STANDARD;
    let (pits, seeds) = (4, 3);
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).unwrap();
    let tree = TopTree::new(&game, None, 4, start, 0);
    let id = identity(pits, seeds, rules);
    let whole = coordinate(&tree, &id, &[], &mut local(&game), &mut Discard, SETTINGS).unwrap();
    assert!(whole.counts.units > 10);
    let mut first = Memory {
        records: Vec::new(),
        limit: whole.counts.units as usize / 2,
    };
    let e = coordinate(&tree, &id, &[], &mut local(&game), &mut first, SETTINGS);
    assert_eq!(e.unwrap_err().to_string(), "memory: killed");
    let mut second = Memory {
        records: Vec::new(),
        limit: usize::MAX,
    };
    let resumed = coordinate(
        &tree,
        &id,
        &first.records,
        &mut local(&game),
        &mut second,
        SETTINGS,
    )
    .unwrap();
    assert_eq!(resumed.solved, whole.solved);
    assert_eq!(resumed.counts.units, whole.counts.units);
    assert_eq!(
        resumed.counts.units_this_run,
        whole.counts.units - first.records.len() as u64,
        "only the units never answered are asked again"
    );
    let before: std::collections::HashSet<_> =
        first.records.iter().map(|r| r.key().unwrap()).collect();
    assert!(second
        .records
        .iter()
        .all(|r| !before.contains(&r.key().unwrap())));
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("kalah-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn records_of_another_run_are_refused() {
    let rules = Rules::STANDARD;
    let dir = temp("refuse");
    let config = RunConfig {
        format: kalah_cluster::store::FORMAT,
        identity: identity(4, 3, rules),
        frontier: 4,
        budget: 0,
        cut_early: 0,
    };
    let mut work = WorkDir::open(&dir, &config, Busy::Refuse).unwrap();
    let game = Game::new(4, rules);
    let start = Position::start(4, 3).unwrap();
    let tree = TopTree::new(&game, None, 4, start, 0);
    coordinate(
        &tree,
        &config.identity,
        &[],
        &mut local(&game),
        &mut work,
        SETTINGS,
    )
    .unwrap();
    let loaded = work.load().unwrap();
    assert!(loaded.refused.is_empty());
    let n = loaded.records.len();
    assert!(n > 2);
    // One record's verdict edited (its checksum not), one torn, one
    // holding another key, one of another game with a right checksum.
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("units"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let flipped = if text.contains("\"at_least\"") {
        text.replace("\"at_least\"", "\"below\"")
    } else {
        text.replace("\"below\"", "\"at_least\"")
    };
    assert_ne!(flipped, text, "{text}");
    std::fs::write(&files[0], flipped).unwrap();
    std::fs::write(&files[1], "{\"pits\": 4").unwrap();
    std::fs::copy(&files[2], dir.join("units").join("0_7.json")).unwrap();
    let mut foreign: UnitRecord =
        serde_json::from_str(&std::fs::read_to_string(&files[3]).unwrap()).unwrap();
    foreign.identity.seeds = 4;
    let foreign = foreign.seal();
    std::fs::write(&files[3], serde_json::to_string(&foreign).unwrap()).unwrap();
    let loaded = work.load().unwrap();
    assert_eq!(loaded.records.len(), n - 3, "{:?}", loaded.refused);
    assert_eq!(loaded.refused.len(), 4, "{:?}", loaded.refused);
    let said = |what: &str| loaded.refused.iter().any(|r| r.contains(what));
    assert!(said("checksum"), "{:?}", loaded.refused);
    assert!(said("recorded for Kalah(4,4)"), "{:?}", loaded.refused);
    assert!(said("holds the result of"), "{:?}", loaded.refused);
    // A second process on the directory is refused, naming it.
    match WorkDir::open(&dir, &config, Busy::Refuse) {
        Err(e @ StoreError::Busy { .. }) => {
            let e = e.to_string();
            assert!(
                e.contains(&dir.display().to_string()) && e.contains("busy"),
                "{e}"
            );
        }
        other => panic!("a second open: {:?}", other.err()),
    }
    drop(work);
    // A work directory of another game is refused as a whole.
    let other = RunConfig {
        identity: identity(4, 4, rules),
        ..config.clone()
    };
    let e = WorkDir::open(&dir, &other, Busy::Refuse)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("run.json") && e.contains("Kalah(4,3)"), "{e}");
    // Packed into a segment, the usable records read back the same; the
    // refused loose files stay where they were, still refused.
    let work = WorkDir::open(&dir, &config, Busy::Refuse).unwrap();
    let before = work.load().unwrap();
    let (segment, packed) = work.pack().unwrap().unwrap();
    assert!(
        segment.ends_with("segments/000001.jsonl.gz"),
        "{}",
        segment.display()
    );
    assert_eq!(packed, before.records.len() + before.cancelled.len());
    let after = work.load().unwrap();
    assert_eq!(after.segments, 1);
    let keys = |l: &kalah_cluster::store::Loaded| {
        let mut k: Vec<_> = l.records.iter().map(|r| r.key().unwrap()).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&after), keys(&before));
    assert_eq!(after.refused.len(), 4, "{:?}", after.refused);
    assert!(work.pack().unwrap().is_none(), "nothing left to pack");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A hot unit (one running long, likely to be split at its budget) keeps
/// its place among the required units, and the tests its split would
/// need are planned after them: the same units a split record makes
/// required. Once the unit is answered, none of them is needed.
#[test]
fn a_hot_unit_has_its_childrens_tests_planned_beside_it() {
    use kalah_cluster::facts::Facts;
    use kalah_cluster::unit::{Verdict, EXACT};

    let rules = Rules::STANDARD;
    let (pits, seeds) = (4, 3);
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).unwrap();
    let tree = TopTree::new(&game, None, 3, start, 64);
    let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
    let facts_of = |known: &[(UnitKey, Verdict)]| {
        let mut f = Facts::default();
        for &(k, v) in known {
            f.add(k, v);
        }
        f
    };
    // The first root test needs units from the first plan on (the first
    // guess costs none).
    let mut known = Vec::new();
    let plain = tree.plan(&mut facts_of(&known)).unwrap();
    assert_eq!(plain.hot, 0);
    let required = &plain.needed[..plain.required];
    let hot = *required
        .iter()
        .find(|k| k.beta != EXACT)
        .expect("a root test needs units");

    let heated = tree
        .plan_hot(&mut facts_of(&known), &[hot].into_iter().collect())
        .unwrap();
    assert_eq!(&heated.needed[..heated.required], required);
    assert!(heated.hot > 0, "the hot unit's children are planned");
    let below: &[UnitKey] = &heated.needed[heated.required..heated.required + heated.hot];
    let mut split = known.clone();
    split.push((hot, Verdict::Split));
    let after_split = tree.plan(&mut facts_of(&split)).unwrap();
    for k in below {
        assert!(
            after_split.needed.contains(k),
            "{k:?} is not a test the split of {hot:?} needs"
        );
        assert!(k.board.seeds() <= hot.board.seeds());
    }

    let value = solver.solve_board(hot.board).unwrap();
    let verdict = if value >= hot.beta {
        Verdict::AtLeast
    } else {
        Verdict::Below
    };
    known.push((hot, verdict));
    let answered = tree
        .plan_hot(&mut facts_of(&known), &[hot].into_iter().collect())
        .unwrap();
    assert_eq!(answered.hot, 0);
    assert!(!answered.needed.contains(&hot));
}

/// While a root test is pending, the units of the next one are planned
/// ahead as speculation: once the pending test is decided, the units the
/// next test needs first were among them; from the first plan on, the
/// first test's units are required and the tests after it planned so.
/// While the perfect game waits on a move, the tests of the moves after
/// it are planned ahead too.
#[test]
fn the_next_root_tests_are_planned_ahead() {
    use kalah_cluster::facts::Facts;
    use kalah_cluster::unit::{Verdict, EXACT};

    let rules = Rules::STANDARD;
    let (pits, seeds) = (4, 3);
    let game = Game::new(pits, rules);
    let start = Position::start(pits, seeds).unwrap();
    let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
    let answer = |k: &UnitKey| {
        let value = solver.solve_board(k.board).unwrap();
        if k.beta == EXACT {
            Verdict::Exact(value)
        } else if value >= k.beta {
            Verdict::AtLeast
        } else {
            Verdict::Below
        }
    };
    let tree = TopTree::new(&game, None, 3, start, 64);
    let mut facts = Facts::default();
    let first = tree.plan(&mut facts).unwrap();
    assert!(first.required > 0);
    assert!(first.needed[..first.required]
        .iter()
        .all(|k| k.beta != EXACT));
    assert_eq!(first.root.guess, Some(tree.first_guess()));
    assert!(first.ahead > 0, "tests planned from the first plan");

    let mut none = TopTree::new(&game, None, 3, start, 64);
    none.ahead = 0;
    assert_eq!(none.plan(&mut Facts::default()).unwrap().ahead, 0);

    // Answer required units only, plan by plan: each time a root test is
    // decided, the next one's first units were planned ahead before.
    let mut ahead: Vec<UnitKey> = Vec::new();
    let mut tests = 0;
    let mut checked = 0;
    // Plans of the perfect game that wait on units, and those of them
    // with later moves' tests planned ahead.
    let (mut pv_waits, mut pv_ahead) = (0, 0);
    let mut plan = first;
    while plan.solved.is_none() {
        if plan.root.guess.is_some() && plan.root.beta.is_none() {
            pv_waits += 1;
            pv_ahead += usize::from(plan.ahead > 0);
        }
        if plan.root.tests.len() > tests && plan.root.beta.is_some() {
            tests = plan.root.tests.len();
            let next = &plan.needed[..plan.required];
            assert!(
                next.iter().any(|k| ahead.contains(k)),
                "root test {tests}: none of {next:?} was planned ahead"
            );
            checked += 1;
        }
        let from = plan.required + plan.hot;
        ahead = plan.needed[from..from + plan.ahead].to_vec();
        for k in &plan.needed[..plan.required] {
            facts.add(*k, answer(k));
        }
        plan = tree.plan(&mut facts).unwrap();
    }
    assert!(checked > 0, "the solve ran more than one root test");
    assert!(
        pv_waits > 0 && pv_ahead > 0,
        "the perfect game waited on units {pv_waits} times, never with later moves planned"
    );
    assert_eq!(plan.solved.unwrap().value, reference(&game, &start));
}
