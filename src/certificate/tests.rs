//! The prover and the certificate's bounds on small games.

use super::*;
use kalah_solver::search::SearchConfig;
use kalah_solver::Solver;

/// Every board of the top `depth` sowings of Kalah(pits,seeds) gets a
/// fact from an exact solve at depth `depth`: the prover derives the
/// start's value from them alone, and a certificate of it checks.
#[test]
fn exact_facts_at_a_frontier_prove_the_value() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let game = Game::new(4, rules);
        let start = Position::start(4, 3).unwrap();
        let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
        let value = solver.solve(&start).unwrap();
        let mut table = FactTable::default();
        let mut frontier = vec![start.board()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for b in frontier {
                if game.terminal_value(b).is_some() {
                    continue;
                }
                let mut moves = game.moves(b);
                while moves != 0 {
                    let h = moves.trailing_zeros() as usize;
                    moves &= moves - 1;
                    next.push(game.sow(b, h).board);
                }
            }
            frontier = next;
        }
        for b in &frontier {
            let v = solver.solve_board(*b).unwrap();
            table
                .add(&Fact {
                    board: *b,
                    lower: Some(v),
                    upper: Some(v),
                    unit: format!("{:x}", b.packed()),
                })
                .unwrap();
        }
        let mut prover = Prover::new(&game, &table, |_, d| d < 3);
        let root = start.board();
        assert!(prover.at_least(root, value, 0), "{rules:?}");
        assert!(prover.at_most(root, value, 0), "{rules:?}");
        assert!(!prover.at_least(root, value + 1, 0), "{rules:?}");
        assert!(!prover.at_most(root, value - 1, 0), "{rules:?}");
        let proof = prover.extract(root, value, value);
        let cert = Certificate {
            header: Header {
                kalah_certificate: FORMAT,
                pits: 4,
                seeds: 3,
                rules: rules.slug(),
                start: None,
                lower: value,
                upper: value,
                perfect_game: Vec::new(),
                facts: proof.facts.len(),
                expanded: proof.expanded.len(),
            },
            facts: proof.facts,
            expanded: proof.expanded,
        };
        cert.check_logic().unwrap();
        // One bound off: refused.
        for (l, u) in [(value + 1, value + 1), (value - 1, value - 1)] {
            let wrong = Certificate {
                header: Header {
                    lower: l,
                    upper: u,
                    ..cert.header.clone()
                },
                ..cert.clone()
            };
            assert!(wrong.check_logic().is_err(), "{rules:?} {l}");
        }
        // Written and read back the same.
        let path = std::env::temp_dir().join(format!(
            "kalah-cert-{}-{}.gz",
            rules.slug(),
            std::process::id()
        ));
        cert.write(&path).unwrap();
        assert_eq!(Certificate::read(&path).unwrap(), cert);
        // The same header with a start: only format 2 has one.
        let mut from = cert.clone();
        from.header.start = Some(start.to_string());
        from.write(&path).unwrap();
        assert!(Certificate::read(&path).is_err(), "format 1 with a start");
        from.header.kalah_certificate = FORMAT_FROM;
        from.write(&path).unwrap();
        assert_eq!(Certificate::read(&path).unwrap(), from);
        from.header.start = None;
        from.write(&path).unwrap();
        assert!(Certificate::read(&path).is_err(), "format 2 without one");
        std::fs::remove_file(&path).unwrap();
    }
}

/// South's bounds and the board's are each other's inverse, whoever
/// moves and whatever the stores hold; from the start they are equal.
#[test]
fn south_and_board_bounds_convert_both_ways() {
    let game = Game::new(4, Rules::STANDARD);
    let start = Position::start(4, 3).unwrap();
    assert_eq!(board_bounds(&start, -3, 5), (-3, 5));
    let mut pos = start;
    pos.play(&game, 3).unwrap();
    assert_eq!(pos.to_move(), Side::North);
    assert_eq!(pos.store_difference(), -1);
    // South's value v is North's -v; the board's for North is that
    // less North's store lead (-1).
    assert_eq!(board_bounds(&pos, -3, 5), (-4, 4));
    for (l, u) in [(-3, 5), (0, 0), (-12, -2)] {
        let (bl, bu) = board_bounds(&pos, l, u);
        assert_eq!(south_bounds(&pos, bl, bu), (l, u));
    }
}
