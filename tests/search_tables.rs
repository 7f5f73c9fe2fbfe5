//! Search and tables agree: 2000 random boards inside the table range,
//! solved by search with the tables disabled, have the value the tables
//! store; under both capture rules, and with probes on the search agrees too.

mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use common::{random_board, Rng};
use kalah::search::{SearchConfig, Solver};
use kalah::table::{build_tables, BuildConfig, Tables};
use kalah::{Game, Index, Probe, Rules};

#[test]
fn search_without_tables_agrees_with_table_probes_on_2000_boards() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let dir = std::env::temp_dir().join(format!(
            "kalah-search-tables-{}-{}",
            std::process::id(),
            rules.slug()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let config = BuildConfig {
            pits: 6,
            rules,
            max_seeds: 12,
            threads: 2,
        };
        build_tables(&dir, &config, &(), &AtomicBool::new(false)).expect("build");
        let tables = Arc::new(Tables::open(&dir, 6, rules).expect("open"));
        let game = Game::new(6, rules);
        let plain = SearchConfig {
            tt_mb: 32,
            threads: 1,
            probes: false,
            ..SearchConfig::default()
        };
        let search = Solver::new(game.clone(), plain, None).expect("solver");
        // Probes on, but only up to 6 seeds: the search must bridge 7..12.
        let small = Arc::new(
            Tables::open_with(&dir, 6, rules, Some(6), kalah::table::Check::Full).expect("open"),
        );
        // Two and three threads with table probes, splitting all-nodes
        // from 1 seed above the tables.
        let probing = |threads| {
            Solver::new(
                game.clone(),
                SearchConfig {
                    tt_mb: 32,
                    threads,
                    split_seeds: 1,
                    ..SearchConfig::default()
                },
                Some(Arc::clone(&small) as Arc<dyn Probe>),
            )
            .expect("solver")
        };
        let (two, three) = (probing(2), probing(3));
        let index = Index::new(6);
        let mut rng = Rng::new(4242);
        for i in 0..2000 {
            let k = 1 + rng.below(12) as u32;
            let b = random_board(&mut rng, &index, k);
            let want = tables.probe(b).expect("inside the tables");
            assert_eq!(
                search.solve_board(b).expect("solve"),
                want,
                "{rules} board {b:?}"
            );
            let parallel = match i % 4 {
                0 => &two,
                2 => &three,
                _ => continue,
            };
            assert_eq!(
                parallel.solve_board(b).expect("solve"),
                want,
                "{rules} board {b:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
