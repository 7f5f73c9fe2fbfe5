//! The rules, checked by hand-worked examples (docs/RULES.md and more) and by
//! properties over random play.

mod common;

use common::{model_sow, random_board, Rng};
use kalah::{CaptureRule, EndRule, Game, Index, MoveError, Position, Rules, Side};

fn pos(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Plays `house` and returns the position and what happened.
fn after(text: &str, rules: Rules, house: usize) -> (Position, kalah::Played) {
    let mut p = pos(text);
    let game = Game::new(p.pits(), rules);
    let played = p.play(&game, house).unwrap();
    (p, played)
}

const DELAYED: Rules = Rules {
    capture: CaptureRule::Standard,
    end: EndRule::Delayed,
};
const NO_SWEEP: Rules = Rules {
    capture: CaptureRule::Standard,
    end: EndRule::NoSweep,
};

#[test]
fn rules_md_opening_move_gives_extra_turn() {
    let (p, played) = after("4 4 4 4 4 4 0 4 4 4 4 4 4 0 S", Rules::STANDARD, 3);
    assert_eq!(p, pos("4 4 0 5 5 5 1 4 4 4 4 4 4 0 S"));
    assert!(played.extra_turn);
    assert_eq!(played.captured, 0);
}

#[test]
fn rules_md_finished_game_sweeps_to_south() {
    let p = pos("0 0 0 0 1 0 0 0 0 0 0 0 0 0 S");
    assert!(p.is_over(Rules::STANDARD));
    assert_eq!(p.final_score(Rules::STANDARD), Some(1));
    assert!(p.legal_moves(Rules::STANDARD).is_empty());
}

#[test]
fn lap_of_thirteen_lands_in_emptied_origin_and_captures() {
    // 13 seeds = one full lap of 2m+1 pits: every pit (origin included) gets
    // one; the last lands in the emptied S1, facing N6 (now 5).
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let (p, played) = after("13 0 0 0 0 0 0 4 4 4 4 4 4 0 S", rules, 1);
        assert_eq!(p, pos("0 1 1 1 1 1 7 5 5 5 5 5 0 0 N"));
        assert_eq!(played.captured, 6);
        assert!(!played.extra_turn);
    }
}

#[test]
fn lap_of_fourteen_passes_the_origin_without_skipping_it() {
    let (p, played) = after("14 0 0 0 0 0 0 4 4 4 4 4 4 0 S", Rules::STANDARD, 1);
    // The lap gives every pit one (S1 included), then S2 gets the 14th.
    assert_eq!(p, pos("1 2 1 1 1 1 1 5 5 5 5 5 5 0 N"));
    assert_eq!(played.captured, 0);
}

#[test]
fn lap_from_north_skips_south_store() {
    // North sows 13 from N1: N2..N6, North store, S1..S6, then N1 (origin).
    let (p, played) = after("1 1 1 1 1 1 0 13 0 0 0 0 0 0 N", Rules::STANDARD, 1);
    // Last seed in emptied N1, facing S6 (2): captures 1 + 2.
    assert_eq!(p, pos("2 2 2 2 2 0 0 0 1 1 1 1 1 4 S"));
    assert_eq!(played.captured, 3);
}

#[test]
fn twenty_seven_seeds_lap_twice() {
    // 27 = 2 * 13 + 1 in Kalah(6): every pit gets 2, then S2 one more.
    let (p, _) = after("27 0 0 0 0 0 0 1 0 0 0 0 0 0 S", Rules::STANDARD, 1);
    assert_eq!(p, pos("2 3 2 2 2 2 2 3 2 2 2 2 2 0 N"));
}

#[test]
fn capture_needs_a_facing_seed_under_the_standard_rule() {
    // S2 (1 seed) -> S3, empty; S3 faces N4, which is empty.
    let start = "0 1 0 0 0 0 0 1 1 1 0 1 1 0 S";
    let (p, played) = after(start, Rules::STANDARD, 2);
    assert_eq!(p, pos("0 0 1 0 0 0 0 1 1 1 0 1 1 0 N"));
    assert_eq!(played.captured, 0);
    assert!(!played.game_over);
}

#[test]
fn empty_capture_takes_the_lone_seed_and_can_end_the_game() {
    let start = "0 1 0 0 0 0 0 1 1 1 0 1 1 0 S";
    let (p, played) = after(start, Rules::EMPTY_CAPTURE, 2);
    assert_eq!(p, pos("0 0 0 0 0 0 1 1 1 1 0 1 1 0 N"));
    assert_eq!(played.captured, 1);
    assert!(played.game_over, "South's side is empty");
    // North sweeps its 5 seeds: 1 - 5.
    assert_eq!(p.final_score(Rules::EMPTY_CAPTURE), Some(-4));
}

#[test]
fn capture_with_facing_seeds_is_the_same_under_both_rules() {
    let start = "0 1 0 0 0 0 0 1 1 1 2 1 1 0 S";
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let (p, played) = after(start, rules, 2);
        assert_eq!(p, pos("0 0 0 0 0 0 3 1 1 1 0 1 1 0 N"));
        assert_eq!(played.captured, 3);
        assert_eq!(p.final_score(rules), Some(3 - 5));
    }
}

#[test]
fn no_capture_from_a_last_seed_on_the_opponent_side() {
    // S6 (3) -> store, N1, N2: N2 was empty but it is North's house.
    let (p, played) = after("0 0 0 0 0 3 0 1 0 5 0 0 0 0 S", Rules::EMPTY_CAPTURE, 6);
    assert_eq!(p, pos("0 0 0 0 0 0 1 2 1 5 0 0 0 0 N"));
    assert_eq!(played.captured, 0);
}

#[test]
fn extra_turn_that_empties_the_movers_side_ends_the_game() {
    let start = "0 0 0 0 0 1 0 4 4 4 4 4 4 0 S";
    for (rules, score) in [(Rules::STANDARD, 1 - 24), (DELAYED, 1 - 24), (NO_SWEEP, 1)] {
        let (p, played) = after(start, rules, 6);
        assert!(played.extra_turn);
        assert!(played.game_over, "{rules}");
        assert_eq!(p.to_move(), Side::South);
        assert_eq!(p.final_score(rules), Some(score), "{rules}");
    }
}

#[test]
fn delayed_end_lets_the_opponent_play_on() {
    // South's last seeds leave South empty with North to move.
    let start = "0 0 0 0 0 2 0 0 0 0 0 6 0 0 S";
    let (p, played) = after(start, Rules::STANDARD, 6);
    assert!(played.game_over);
    assert_eq!(p.final_score(Rules::STANDARD), Some(1 - 7));

    let (mut p, played) = after(start, DELAYED, 6);
    assert!(!played.game_over, "North still has seeds and is to move");
    assert_eq!(p.legal_moves(DELAYED), vec![1, 5]);
    // North sows 6 from N5: N6, North store, S1..S4; South has seeds again.
    let game = Game::new(6, DELAYED);
    let played = p.play(&game, 5).unwrap();
    assert!(!played.game_over);
    assert_eq!(p, pos("1 1 1 1 0 0 1 1 0 0 0 0 1 1 S"));

    // The same move is refused under the standard end: the game is over.
    let (mut q, _) = after(start, Rules::STANDARD, 6);
    assert_eq!(
        q.play(&Game::new(6, Rules::STANDARD), 5),
        Err(MoveError::GameOver)
    );
}

#[test]
fn delayed_end_ends_when_the_mover_is_empty() {
    // North is empty but South is to move: not over yet under delayed end.
    let p = pos("0 0 0 0 0 2 0 0 0 0 0 0 0 5 S");
    assert!(p.is_over(Rules::STANDARD));
    assert!(!p.is_over(DELAYED));
    let q = pos("0 0 0 0 0 0 0 0 0 0 0 3 0 5 S");
    assert!(q.is_over(DELAYED));
    assert_eq!(q.final_score(DELAYED), Some(-8));
    assert_eq!(q.final_score(NO_SWEEP), Some(-5));
}

#[test]
fn illegal_moves_are_refused() {
    let mut p = pos("0 1 0 0 0 0 0 1 1 1 0 1 1 0 S");
    let game = Game::new(6, Rules::STANDARD);
    assert_eq!(p.play(&game, 1), Err(MoveError::EmptyHouse { house: 1 }));
    assert_eq!(
        p.play(&game, 0),
        Err(MoveError::NoSuchHouse { house: 0, pits: 6 })
    );
    assert_eq!(
        p.play(&game, 7),
        Err(MoveError::NoSuchHouse { house: 7, pits: 6 })
    );
}

#[test]
fn display_round_trips() {
    for text in [
        "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S",
        "0 1 0 0 0 0 0 1 1 1 0 1 1 0 N",
        "1 0 5 3 N",
        "9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 N",
    ] {
        let p = pos(text);
        assert_eq!(p.to_string(), text);
        assert_eq!(pos(&p.to_string()), p);
    }
    let p = pos("3,3,3,0,3,3,3,0,N");
    assert_eq!(p.to_string(), "3 3 3 0 3 3 3 0 N");
}

/// Seeds are conserved by every move, no count wraps, and the side to move
/// changes exactly when no extra turn was earned; over random games of every
/// size and rule set.
#[test]
fn random_play_conserves_seeds() {
    let mut rng = Rng::new(7);
    for m in 1..=8 {
        for rules in all_rules() {
            let game = Game::new(m, rules);
            for _ in 0..300 {
                let n = 1 + rng.below((255 / (2 * m)).min(12) as u64) as usize;
                let mut p = Position::start(m, n).unwrap();
                let total = p.total_seeds();
                while !p.is_over(rules) {
                    let moves = p.legal_moves(rules);
                    let h = moves[rng.below(moves.len() as u64) as usize];
                    let before = p;
                    let played = p.play(&game, h).unwrap();
                    assert_eq!(p.total_seeds(), total, "{before} plays {h}: {p}");
                    let mover = before.to_move();
                    assert!(p.store(mover) >= before.store(mover));
                    assert_eq!(p.store(mover.other()), before.store(mover.other()));
                    let expected_next = if played.extra_turn {
                        mover
                    } else {
                        mover.other()
                    };
                    assert_eq!(p.to_move(), expected_next);
                }
                let [s, nn] = p.final_stores(rules).unwrap();
                if rules.end != EndRule::NoSweep {
                    assert_eq!(s + nn, total);
                }
            }
        }
    }
}

/// The board engine agrees with a seed-by-seed sowing written here from the
/// rule text, on random boards of every size.
#[test]
fn sowing_matches_a_seed_by_seed_model() {
    let mut rng = Rng::new(11);
    for m in 1..=8 {
        let index = Index::new(m);
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            let game = Game::new(m, rules);
            for _ in 0..3000 {
                let seeds = rng.below(60) as u32;
                let b = random_board(&mut rng, &index, seeds);
                for h in 0..m {
                    if b.own_house(h) == 0 {
                        continue;
                    }
                    let got = game.sow(b, h);
                    let (own, opp, gain, extra) = model_sow(m, rules, b, h);
                    let want = if extra {
                        kalah::Board::from_sides(&own, &opp)
                    } else {
                        kalah::Board::from_sides(&opp, &own)
                    };
                    assert_eq!(
                        (got.board, got.gain as u32, got.extra_turn),
                        (want, gain, extra)
                    );
                }
            }
        }
    }
}

fn all_rules() -> Vec<Rules> {
    let mut v = Vec::new();
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for end in [EndRule::Sweep, EndRule::Delayed, EndRule::NoSweep] {
            v.push(Rules { capture, end });
        }
    }
    v
}

/// Perft from a naive model (seed-by-seed sowing above, positions as plain
/// vectors) agrees with the engine's perft, under both capture rules.
#[test]
fn perft_matches_the_naive_model() {
    use std::collections::HashSet;
    type Naive = (Vec<u8>, Vec<u8>, u32, u32, bool); // south, north, stores, south to move
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let m = 6;
        let mut level: Vec<Naive> = vec![(vec![4; m], vec![4; m], 0, 0, true)];
        let engine = kalah::perft::perft(&Game::new(m, rules), Position::start(m, 4).unwrap(), 6);
        for counts in engine {
            let mut next = Vec::new();
            for (south, north, ss, ns, south_moves) in &level {
                let (own, opp) = if *south_moves {
                    (south, north)
                } else {
                    (north, south)
                };
                if own.iter().all(|&x| x == 0) || opp.iter().all(|&x| x == 0) {
                    continue;
                }
                for h in (0..m).filter(|&h| own[h] > 0) {
                    let b = kalah::Board::from_sides(own, opp);
                    let (o, p, gain, extra) = model_sow(m, rules, b, h);
                    let (mut s2, mut n2) = (*ss, *ns);
                    if *south_moves {
                        s2 += gain;
                    } else {
                        n2 += gain;
                    }
                    let (s, n) = if *south_moves { (o, p) } else { (p, o) };
                    next.push((s, n, s2, n2, *south_moves == extra));
                }
            }
            let distinct: HashSet<&Naive> = next.iter().collect();
            assert_eq!(
                (counts.sequences, counts.distinct),
                (next.len() as u64, distinct.len() as u64),
                "{rules} depth {}",
                counts.depth
            );
            level = next;
        }
    }
}
