//! The search against every published claim (`kalah::published`, one source
//! with `reproduce`) small enough for every test run; Kalah(6,4) and larger
//! are checked by the ignored tests and scripts/bench_search.sh.

use kalah::published::{claims, Outcome};
use kalah::search::{SearchConfig, Solver};
use kalah::{Game, Position};

fn fast(pits: usize, seeds: usize) -> bool {
    pits <= 3 || (pits <= 5 && seeds <= 4) || (pits == 6 && seeds <= 3)
}

#[test]
fn search_matches_every_small_published_claim() {
    let mut checked = 0;
    for claim in claims().into_iter().filter(|c| fast(c.pits, c.seeds)) {
        let config = SearchConfig {
            tt_mb: 32,
            ..SearchConfig::default()
        };
        let solver = Solver::new(Game::new(claim.pits, claim.rules()), config, None).unwrap();
        let start = Position::start(claim.pits, claim.seeds).unwrap();
        let value = solver.solve(&start).unwrap();
        if let Some(want) = claim.value {
            assert_eq!(value, want, "{claim:?}");
        }
        let outcome: Option<Outcome> = claim.implied_outcome();
        assert_eq!(Some(Outcome::of(value)), outcome, "{claim:?}");
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} claims checked");
}
