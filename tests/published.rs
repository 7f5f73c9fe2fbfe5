//! Published facts (../shared/reference/PUBLISHED.md) checked through the
//! library: IDU's perfect games and the perft counts.

use kalah::perft::perft;
use kalah::published::{IDU_GAMES, PERFT_EC_6_4};
use kalah::{Game, Line, Numbering, Position, Rules};

#[test]
fn idu_perfect_games_replay_to_published_values() {
    for g in IDU_GAMES {
        let (m, n, value, text) = (g.pits, g.seeds, g.value, g.line);
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
    assert_eq!(got, PERFT_EC_6_4);
}
