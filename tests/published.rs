//! Published facts (../shared/reference/PUBLISHED.md) checked through the
//! library: IDU's perfect games and the perft counts.

use kalah::perft::perft;
use kalah::{Game, Line, Numbering, Position, Rules};

/// IDU Table 9: (m, n, value, perfect game in IDU's 0-based notation).
/// 4(6) is left out: its printed line is illegal (a misprint in the paper).
pub const IDU_GAMES: &[(usize, usize, i32, &str)] = &[
    (4, 1, 2, "32-32-1"),
    (4, 2, 6, "3-3-230-231-1323"),
    (4, 3, 8, "13-1-032-2-3-0-1320-3-0-2"),
    (4, 4, 2, "02-2-3-0-2-21-303231-0-32-1-0"),
    (
        4,
        5,
        2,
        "0-2-1-3-0-2-1-0-32-3-021-2-0-02-2-1-3-3-313032-13031-1-2-2-3",
    ),
    (5, 1, 0, "43-43-2-2"),
    (5, 2, 0, "31-32-24-0-0-31-3"),
    (5, 3, 8, "24-3-3-03-41-1-04342-3-3-2-2-4-414342-3"),
    (5, 4, 12, "12-04-03-2-20-41-1-42-32-3-2-40-0-1"),
    (5, 5, 2, "03-2-2-1-1-23-24-2-0-34414340-4240-2-14342"),
    (
        5,
        6,
        2,
        "2-0-0-3-3-0-2-1-440-4-42-2-121-12-3-1-4-20-0-34-24-324-1-3-3-1-41-43-2-2-3",
    ),
    (6, 1, 2, "54-54-3-3-2"),
    (6, 2, 10, "42-42-30-0-1-1-4-5"),
    (6, 3, 2, "4-5-35-250-2-154-451535452-53-3-54-2"),
    (
        6,
        4,
        10,
        "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3",
    ),
    (
        6,
        5,
        12,
        "12-02-05-2-4-51-53-3-45-20-3-2-2-345-5-4-351-0-54-1-52-354-4-254-3-3",
    ),
];

#[test]
fn idu_perfect_games_replay_to_published_values() {
    for &(m, n, value, text) in IDU_GAMES {
        let game = Game::new(m, Rules::EMPTY_CAPTURE);
        let line = Line::parse(text, Numbering::FromZero).unwrap();
        let end = line
            .replay(&game, Position::start(m, n).unwrap())
            .unwrap_or_else(|e| panic!("Kalah({m},{n}): {e}"));
        assert_eq!(
            end.final_score(game.rules()),
            Some(value),
            "Kalah({m},{n}) line {text} ends at {end}"
        );
    }
}

#[test]
fn perft_empty_capture_6_4_matches_published() {
    let game = Game::new(6, Rules::EMPTY_CAPTURE);
    let got: Vec<(u64, u64)> = perft(&game, Position::start(6, 4).unwrap(), 7)
        .iter()
        .map(|c| (c.sequences, c.distinct))
        .collect();
    let want = [
        (6, 6),
        (35, 35),
        (185, 185),
        (942, 942),
        (4_685, 4_673),
        (23_169, 23_050),
        (113_959, 112_597),
    ];
    assert_eq!(got, want);
}
