//! The search against independent values: a memoized negamax written here,
//! `Game::reference_value`, and the published start values
//! (../shared/reference/PUBLISHED.md).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

mod common;

use common::memo_value;
use kalah_solver::sample::{random_board, SplitMix64 as Rng};
use kalah_solver::search::{SearchConfig, Solver};
use kalah_solver::{Board, CaptureRule, EndRule, Game, Index, Position, Probe, Rules, Side};

const ALL_RULES: [Rules; 6] = [
    Rules::STANDARD,
    Rules::EMPTY_CAPTURE,
    Rules {
        capture: CaptureRule::Standard,
        end: EndRule::Delayed,
    },
    Rules {
        capture: CaptureRule::Empty,
        end: EndRule::Delayed,
    },
    Rules {
        capture: CaptureRule::Standard,
        end: EndRule::NoSweep,
    },
    Rules {
        capture: CaptureRule::Empty,
        end: EndRule::NoSweep,
    },
];

fn small_config() -> SearchConfig {
    SearchConfig {
        tt_mb: 4,
        ..SearchConfig::default()
    }
}

fn solver(pits: usize, rules: Rules, config: SearchConfig) -> Solver {
    Solver::new(Game::new(pits, rules), config, None).unwrap()
}

/// Solves `count` random boards with seeds in `seeds` and compares each
/// with the memoized negamax.
fn check_random_boards(
    solver: &Solver,
    memo: &mut HashMap<Board, i32>,
    rng: &mut Rng,
    count: usize,
    seeds: std::ops::Range<u32>,
) {
    let game = solver.game();
    let pits = game.pits();
    for _ in 0..count {
        let k = seeds.start + rng.below(u64::from(seeds.end - seeds.start)) as u32;
        let board = random_board(rng, pits, k);
        let want = memo_value(game, board, memo);
        assert_eq!(
            solver.solve_board(board),
            Ok(want),
            "{} m={pits} threads={} {board:?}",
            game.rules(),
            solver.config().threads
        );
    }
}

#[test]
fn random_boards_match_memoized_negamax_under_every_rule_set() {
    let mut rng = Rng::new(1);
    for rules in ALL_RULES {
        for pits in 3..=6 {
            let solver = solver(pits, rules, small_config());
            let mut memo = HashMap::new();
            check_random_boards(&solver, &mut memo, &mut rng, 20, 1..16);
        }
    }
}

/// Solvers sharing one table see each other's entries, and searches of
/// two solvers on one table at the same time stay exact.
#[test]
fn solvers_sharing_a_table_stay_exact_and_see_each_others_entries() {
    let mut rng = Rng::new(7);
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let game = Game::new(5, rules);
        let first = solver(5, rules, small_config());
        let second = Solver::sharing(game.clone(), small_config(), None, first.table()).unwrap();
        let board = random_board(&mut rng, 5, 14);
        assert!(second.known(board).is_none(), "{rules}: a fresh table");
        let v = first.solve_board(board).unwrap();
        let e = second.known(board).expect("the first solver's entry");
        assert!(e.lower <= v && v <= e.upper, "{rules}: {e:?} against {v}");
        assert_eq!(
            second.stats().nodes,
            0,
            "{rules}: counters are each solver's"
        );
        let mut memo = HashMap::new();
        let boards: Vec<Board> = (0..24)
            .map(|i| random_board(&mut rng, 5, 6 + i % 10))
            .collect();
        let want: Vec<i32> = boards
            .iter()
            .map(|&b| memo_value(&game, b, &mut memo))
            .collect();
        let (a, b) = boards.split_at(12);
        std::thread::scope(|s| {
            let one = s.spawn(|| {
                a.iter()
                    .map(|&x| first.solve_board(x).unwrap())
                    .collect::<Vec<_>>()
            });
            let two = s.spawn(|| {
                b.iter()
                    .map(|&x| second.solve_board(x).unwrap())
                    .collect::<Vec<_>>()
            });
            let mut got = one.join().unwrap();
            got.extend(two.join().unwrap());
            assert_eq!(got, want, "{rules}");
        });
    }
}

#[test]
fn small_boards_match_the_reference_negamax() {
    let mut rng = Rng::new(2);
    for rules in ALL_RULES {
        for pits in 3..=6 {
            let game = Game::new(pits, rules);
            let solver = solver(pits, rules, small_config());
            for _ in 0..10 {
                let board = {
                    let k = 1 + rng.below(8) as u32;
                    random_board(&mut rng, pits, k)
                };
                let want = game.reference_value(board);
                assert_eq!(
                    solver.solve_board(board),
                    Ok(want),
                    "{rules} m={pits} {board:?}"
                );
            }
        }
    }
}

#[test]
fn positions_add_the_store_difference() {
    let mut rng = Rng::new(3);
    let game = Game::new(4, Rules::STANDARD);
    let solver = solver(4, Rules::STANDARD, small_config());
    let mut memo = HashMap::new();
    for _ in 0..40 {
        let board = {
            let k = 1 + rng.below(14) as u32;
            random_board(&mut rng, 4, k)
        };
        let (s, n) = (rng.below(10) as u32, rng.below(10) as u32);
        let south: Vec<u32> = (0..4).map(|i| board.own_house(i) as u32).collect();
        let north: Vec<u32> = (0..4).map(|i| board.opp_house(i) as u32).collect();
        let text = format!(
            "{} {s} {} {n} S",
            south
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            north
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let pos: Position = text.parse().unwrap();
        let want = s as i32 - n as i32 + memo_value(&game, board, &mut memo);
        assert_eq!(solver.solve(&pos), Ok(want), "{pos}");
    }
}

/// Every single switch flipped from the default, everything off, and two
/// threads: the values never change.
fn variant_configs() -> Vec<(&'static str, SearchConfig)> {
    let d = small_config();
    vec![
        ("default", d.clone()),
        (
            "plain",
            SearchConfig {
                tt_mb: 4,
                ..SearchConfig::plain()
            },
        ),
        (
            "no tt move",
            SearchConfig {
                tt_move: false,
                ..d.clone()
            },
        ),
        (
            "no ordering",
            SearchConfig {
                ordering: false,
                ..d.clone()
            },
        ),
        (
            "no futility",
            SearchConfig {
                futility: false,
                ..d.clone()
            },
        ),
        (
            "16 threads",
            SearchConfig {
                threads: 16,
                ..d.clone()
            },
        ),
        (
            "2 threads splitting at every node",
            SearchConfig {
                split_seeds: 0,
                threads: 2,
                ..d.clone()
            },
        ),
        (
            "3 threads splitting at every node",
            SearchConfig {
                split_seeds: 0,
                threads: 3,
                ..d.clone()
            },
        ),
        (
            "no probe cuts",
            SearchConfig {
                probe_cuts: false,
                ..d.clone()
            },
        ),
        (
            "no table below 7 seeds",
            SearchConfig {
                tt_skip: 6,
                ..d.clone()
            },
        ),
        (
            "no parity",
            SearchConfig {
                parity: false,
                ..d.clone()
            },
        ),
        (
            "guess 0",
            SearchConfig {
                guess_depth: 0,
                ..d.clone()
            },
        ),
        (
            "tiny table",
            SearchConfig {
                tt_mb: 0,
                ..d.clone()
            },
        ),
        (
            "2 threads",
            SearchConfig {
                threads: 2,
                ..d.clone()
            },
        ),
        ("3 threads", SearchConfig { threads: 3, ..d }),
    ]
}

/// Young brothers wait at every all-node, 2 and 3 threads: many cut-offs
/// at split points cancel sibling searches, whose partial results must
/// never count.
#[test]
fn splitting_search_matches_memoized_negamax() {
    let mut rng = Rng::new(77);
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        for pits in [4, 5] {
            let mut memo = HashMap::new();
            for threads in [2, 3] {
                let solver = solver(
                    pits,
                    rules,
                    SearchConfig {
                        threads,
                        split_seeds: 0,
                        ..small_config()
                    },
                );
                check_random_boards(&solver, &mut memo, &mut rng, 40, 8..18);
            }
        }
    }
}

#[test]
fn every_switch_gives_the_same_values() {
    let mut rng = Rng::new(4);
    for rules in [
        Rules::STANDARD,
        Rules::EMPTY_CAPTURE,
        ALL_RULES[2],
        ALL_RULES[4],
    ] {
        for pits in [4, 5] {
            let game = Game::new(pits, rules);
            let mut memo = HashMap::new();
            let boards: Vec<Board> = (0..15)
                .map(|_| {
                    let seeds = 4 + rng.below(14) as u32;
                    random_board(&mut rng, pits, seeds)
                })
                .collect();
            let want: Vec<i32> = boards
                .iter()
                .map(|&b| memo_value(&game, b, &mut memo))
                .collect();
            for (name, config) in variant_configs() {
                let solver = solver(pits, rules, config);
                for (b, w) in boards.iter().zip(&want) {
                    assert_eq!(
                        solver.solve_board(*b),
                        Ok(*w),
                        "{name}: {rules} m={pits} {b:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_switch_solves_a_start_position() {
    // Kalah(4,3) under both capture rules (published: EC +8, STD +6).
    for (rules, want) in [(Rules::EMPTY_CAPTURE, 8), (Rules::STANDARD, 6)] {
        for (name, config) in variant_configs() {
            let solver = solver(4, rules, config);
            let start = Position::start(4, 3).unwrap();
            assert_eq!(solver.solve(&start), Ok(want), "{name}: {rules}");
        }
    }
}

/// Exact values of every board with at most `max_seeds` seeds, from the
/// memoized negamax: a stand-in for the endgame tables.
struct MemoProbe {
    index: Index,
    max_seeds: u32,
    values: Vec<i8>,
}

impl MemoProbe {
    fn new(game: &Game, max_seeds: u32) -> MemoProbe {
        let index = Index::new(game.pits());
        let n = index.boards_up_to(max_seeds) as u64;
        let mut memo = HashMap::new();
        let values = (0..n)
            .map(|k| {
                let b = index.unkey(k);
                memo_value(game, b, &mut memo) as i8
            })
            .collect();
        MemoProbe {
            index,
            max_seeds,
            values,
        }
    }
}

impl Probe for MemoProbe {
    fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    fn probe(&self, board: Board) -> Option<i32> {
        (board.seeds() <= self.max_seeds)
            .then(|| self.values[self.index.key(board) as usize] as i32)
    }
}

#[test]
fn probes_give_the_same_values_with_fewer_nodes() {
    for (rules, n, want) in [(Rules::EMPTY_CAPTURE, 3, 8), (Rules::STANDARD, 4, 2)] {
        let game = Game::new(4, rules);
        let probe: Arc<dyn Probe> = Arc::new(MemoProbe::new(&game, 10));
        let start = Position::start(4, n).unwrap();
        let without = solver(4, rules, small_config());
        let with = Solver::new(game.clone(), small_config(), Some(Arc::clone(&probe))).unwrap();
        let off = Solver::new(
            game.clone(),
            SearchConfig {
                probes: false,
                ..small_config()
            },
            Some(probe),
        )
        .unwrap();
        assert_eq!(without.solve(&start), Ok(want));
        assert_eq!(with.solve(&start), Ok(want));
        assert_eq!(off.solve(&start), Ok(want));
        let (a, b) = (without.stats(), with.stats());
        assert!(b.probe_hits > 0, "{rules}: no probe answered");
        assert_eq!(
            off.stats().probe_hits,
            0,
            "{rules}: probes switched off but used"
        );
        assert_eq!(
            off.stats().nodes,
            a.nodes,
            "{rules}: switched-off probes change the search"
        );
        assert!(
            b.nodes < a.nodes,
            "{rules}: {} nodes with probes, {} without",
            b.nodes,
            a.nodes
        );
        // Random boards beyond the probe's reach.
        let mut rng = Rng::new(5);
        let mut memo = HashMap::new();
        let solver = Solver::new(
            game.clone(),
            small_config(),
            Some(Arc::new(MemoProbe::new(&game, 6))),
        )
        .unwrap();
        for _ in 0..30 {
            let board = {
                let k = 1 + rng.below(18) as u32;
                random_board(&mut rng, 4, k)
            };
            assert_eq!(
                solver.solve_board(board),
                Ok(memo_value(&game, board, &mut memo))
            );
        }
    }
}

/// Published start values (PUBLISHED.md: IDU Table 9 for EC, the
/// mancala-solver list for STD) small enough for every test run.
#[test]
fn published_start_values() {
    let ec = [
        (4, 1, 2),
        (4, 2, 6),
        (4, 3, 8),
        (4, 4, 2),
        (5, 1, 0),
        (5, 2, 0),
        (5, 3, 8),
        (5, 4, 12),
        (6, 1, 2),
        (6, 2, 10),
        (6, 3, 2),
    ];
    let std = [
        (4, 3, 6),
        (4, 4, 2),
        (5, 2, 2),
        (5, 3, 6),
        (5, 4, 10),
        (6, 2, 6),
        (6, 3, 2),
    ];
    for (rules, list) in [(Rules::EMPTY_CAPTURE, &ec[..]), (Rules::STANDARD, &std[..])] {
        for &(m, n, want) in list {
            let solver = solver(
                m,
                rules,
                SearchConfig {
                    tt_mb: 32,
                    ..SearchConfig::default()
                },
            );
            let got = solver.solve(&Position::start(m, n).unwrap());
            assert_eq!(got, Ok(want), "Kalah({m},{n}) {rules}");
        }
    }
}

#[test]
fn analysis_is_consistent_and_its_line_replays_to_the_value() {
    for (rules, m, n) in [
        (Rules::EMPTY_CAPTURE, 4, 3),
        (Rules::STANDARD, 5, 2),
        (ALL_RULES[2], 4, 2),
    ] {
        let game = Game::new(m, rules);
        let solver = solver(m, rules, small_config());
        let start = Position::start(m, n).unwrap();
        let a = solver.analyse(&start).unwrap();
        let mut memo = HashMap::new();
        assert_eq!(a.value, memo_value(&game, start.board(), &mut memo));
        assert_eq!(a.moves.len(), m);
        for mv in &a.moves {
            // Each sowing's value, independently.
            let mut next = start;
            let played = next.play(&game, mv.house).unwrap();
            assert_eq!(played.extra_turn, mv.extra_turn);
            let v = next.store_difference() + memo_value(&game, next.board(), &mut memo);
            let v = if next.to_move() == Side::South { v } else { -v };
            assert_eq!(mv.value, v, "{rules} house {}", mv.house);
        }
        let best = a.moves.iter().map(|m| m.value).max().unwrap();
        assert_eq!(best, a.value);
        assert!(a.best.contains(&a.pv[0].house));
        // The line is legal and ends the game at the value.
        let end = a.pv_line().replay(&game, start).unwrap();
        assert_eq!(end, a.pv.last().unwrap().position);
        assert_eq!(
            end.final_score(rules),
            Some(a.value),
            "{rules}: {}",
            a.pv_line()
        );
        assert!(a.stats.nodes > 0);
    }
}

#[test]
fn turn_analysis_and_pie_rule_match_independent_values() {
    for (rules, m, n) in [(Rules::EMPTY_CAPTURE, 4, 2), (Rules::STANDARD, 4, 3)] {
        let game = Game::new(m, rules);
        let solver = solver(m, rules, small_config());
        let start = Position::start(m, n).unwrap();
        let t = solver.analyse_turns(&start).unwrap();
        let mut memo = HashMap::new();
        // Enumerate turns independently.
        let mut want: Vec<(Vec<usize>, i32)> = Vec::new();
        let mut stack = vec![(start, Vec::new())];
        while let Some((pos, prefix)) = stack.pop() {
            for house in pos.legal_moves(rules) {
                let mut next = pos;
                let played = next.play(&game, house).unwrap();
                let mut line = prefix.clone();
                line.push(house);
                if played.extra_turn && !played.game_over {
                    stack.push((next, line));
                } else {
                    let v = match next.final_score(rules) {
                        Some(s) => s,
                        None => {
                            let v = next.store_difference()
                                + memo_value(&game, next.board(), &mut memo);
                            if next.to_move() == Side::South {
                                v
                            } else {
                                -v
                            }
                        }
                    };
                    want.push((line, v));
                }
            }
        }
        assert_eq!(t.turns.len(), want.len());
        for (line, v) in &want {
            let got = t.turns.iter().find(|x| &x.houses == line).unwrap();
            assert_eq!(got.value, *v, "{rules} turn {line:?}");
        }
        let top = want.iter().map(|w| w.1).max().unwrap();
        assert_eq!(t.value, top);
        assert!(t.best.iter().all(|b| want.contains(&(b.clone(), top))));
        let fair = want.iter().map(|w| w.1.abs()).min().unwrap();
        assert_eq!(t.pie.value, -fair);
        assert_eq!(
            t.pie.fairest.len(),
            want.iter().filter(|w| w.1.abs() == fair).count()
        );
    }
}

#[test]
fn the_stop_flag_interrupts_and_can_be_cleared() {
    let solver = solver(6, Rules::EMPTY_CAPTURE, small_config());
    let flag = solver.stop_flag().unwrap();
    flag.store(true, Ordering::Relaxed);
    let start = Position::start(6, 3).unwrap();
    assert!(solver.solve(&start).is_err());
    flag.store(false, Ordering::Relaxed);
    assert_eq!(solver.solve(&start), Ok(2));
}

/// Exact values up to 3 seeds (by the reference search) that sets the
/// solver's stop flag at its `trigger`-th probe: an interruption at a chosen
/// point deep inside a search.
struct TrippingProbe {
    game: Game,
    calls: std::sync::atomic::AtomicU64,
    trigger: u64,
    flag: std::sync::OnceLock<Arc<std::sync::atomic::AtomicBool>>,
}

impl Probe for TrippingProbe {
    fn max_seeds(&self) -> u32 {
        3
    }

    fn probe(&self, board: Board) -> Option<i32> {
        if self.calls.fetch_add(1, Ordering::Relaxed) + 1 == self.trigger {
            if let Some(f) = self.flag.get() {
                f.store(true, Ordering::Relaxed);
            }
        }
        (board.seeds() <= 3).then(|| self.game.reference_value(board))
    }
}

/// Interrupted at many points of a splitting search, the solver reports the
/// interruption (never a value), and its table keeps no partial result: the
/// same solver then finds the right value.
#[test]
fn interrupting_a_splitting_search_leaves_no_partial_results() {
    let start = Position::start(5, 3).unwrap();
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let want = solver(5, rules, small_config()).solve(&start).unwrap();
        let mut interrupted = 0;
        for trigger in [1, 10, 100, 300, 700, 1000, 1300, 2000, 2600] {
            for threads in [2, 3] {
                let probe = Arc::new(TrippingProbe {
                    game: Game::new(5, rules),
                    calls: Default::default(),
                    trigger,
                    flag: Default::default(),
                });
                let config = SearchConfig {
                    threads,
                    split_seeds: 0,
                    ..small_config()
                };
                let solver = Solver::new(
                    Game::new(5, rules),
                    config,
                    Some(probe.clone() as Arc<dyn Probe>),
                )
                .unwrap();
                let flag = solver.stop_flag().unwrap();
                probe.flag.set(Arc::clone(&flag)).unwrap();
                match solver.solve(&start) {
                    Ok(v) => assert_eq!(v, want, "{rules} trigger {trigger}"),
                    Err(_) => interrupted += 1,
                }
                flag.store(false, Ordering::Relaxed);
                assert_eq!(solver.solve(&start), Ok(want), "{rules} trigger {trigger}");
            }
        }
        assert!(interrupted > 0, "no search was interrupted");
    }
}

#[test]
fn finished_positions_are_scored_as_they_stand() {
    let solver = solver(6, Rules::STANDARD, small_config());
    let pos: Position = "0 0 0 0 1 0 0 0 0 0 0 0 0 0 S".parse().unwrap();
    assert_eq!(solver.solve(&pos), Ok(1));
    let pos: Position = "0 0 0 0 1 0 3 0 0 0 0 0 0 5 N".parse().unwrap();
    assert_eq!(solver.solve(&pos), Ok(5 - 3 - 1));
    let a = solver.analyse(&pos).unwrap();
    assert!(a.moves.is_empty() && a.pv.is_empty());
}

/// Kalah(6,4): EC +10 (IDU), STD +8 (Rawlings). Slow without tables: run by
/// scripts/bench_search.sh or `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn kalah_6_4_published_values() {
    for (rules, want) in [(Rules::EMPTY_CAPTURE, 10), (Rules::STANDARD, 8)] {
        let solver = solver(
            6,
            rules,
            SearchConfig {
                tt_mb: 1024,
                ..SearchConfig::default()
            },
        );
        assert_eq!(
            solver.solve(&Position::start(6, 4).unwrap()),
            Ok(want),
            "{rules}"
        );
    }
}

/// IDU: the best first turn of Kalah(6,4) EC starts 3 then 6 (1-based).
#[test]
#[ignore]
fn kalah_6_4_best_first_turn_starts_3_6() {
    let solver = solver(
        6,
        Rules::EMPTY_CAPTURE,
        SearchConfig {
            tt_mb: 1024,
            ..SearchConfig::default()
        },
    );
    let t = solver
        .analyse_turns(&Position::start(6, 4).unwrap())
        .unwrap();
    assert_eq!(t.value, 10);
    assert!(
        t.best.iter().all(|b| b.starts_with(&[3, 6])),
        "{:?}",
        t.best
    );
}

/// A probe that, at its `trigger`-th call, reads the counters of the solver
/// that calls it (what a progress line would show at that moment), then
/// stops it.
struct WatchingProbe {
    game: Game,
    calls: std::sync::atomic::AtomicU64,
    trigger: u64,
    solver: std::sync::OnceLock<std::sync::Weak<Solver>>,
    seen: std::sync::Mutex<Option<kalah_solver::search::SearchStats>>,
}

impl Probe for WatchingProbe {
    fn max_seeds(&self) -> u32 {
        3
    }

    fn probe(&self, board: Board) -> Option<i32> {
        if self.calls.fetch_add(1, Ordering::Relaxed) + 1 == self.trigger {
            if let Some(solver) = self.solver.get().and_then(std::sync::Weak::upgrade) {
                *self.seen.lock().unwrap() = Some(solver.stats());
                if let Some(flag) = solver.stop_flag() {
                    flag.store(true, Ordering::Relaxed);
                }
            }
        }
        (board.seeds() <= 3).then(|| self.game.reference_value(board))
    }
}

/// The node count grows during a null-window test, not only when it ends:
/// progress lines (and a node limit) see live counts. Read in the middle of
/// the first test of Kalah(5,4), after thousands of probes, the count holds
/// at least the nodes of the workers' first looks at the stop flags.
#[test]
fn nodes_are_counted_while_a_test_runs() {
    let start = Position::start(5, 4).unwrap();
    for threads in [1, 2] {
        let probe = Arc::new(WatchingProbe {
            game: Game::new(5, Rules::STANDARD),
            calls: Default::default(),
            trigger: 2_000,
            solver: Default::default(),
            seen: Default::default(),
        });
        let config = SearchConfig {
            threads,
            ..small_config()
        };
        let solver = Arc::new(
            Solver::new(
                Game::new(5, Rules::STANDARD),
                config,
                Some(probe.clone() as Arc<dyn Probe>),
            )
            .unwrap(),
        );
        probe.solver.set(Arc::downgrade(&solver)).unwrap();
        assert!(solver.solve(&start).is_err(), "stopped by the probe");
        let seen = probe.seen.lock().unwrap().expect("probed 2000 times");
        assert_eq!(seen.tests, 1, "{threads} threads: still in the first test");
        assert!(
            seen.nodes >= 1024,
            "{threads} threads: {} nodes counted after 2000 probes",
            seen.nodes
        );
    }
}
