//! Throughput of the two innermost operations on 6-house boards: sowing and
//! ranking; and of a machine taking in another's table entries
//! (`Solver::learn`, `--share-work`). Prints the median of several runs
//! (the machines are noisy).
//!
//! `cargo bench -p kalah-solver --bench core`

use std::hint::black_box;
use std::time::Instant;

use kalah_solver::sample::SplitMix64;
use kalah_solver::search::{Bound, Published, SearchConfig, Solver};
use kalah_solver::{Board, Game, Index, Rules};

/// Random boards with 1..=48 seeds, as a game of Kalah(6,4) has.
fn boards(count: usize) -> Vec<Board> {
    let mut rng = SplitMix64::new(1);
    (0..count)
        .map(|_| {
            let seeds = 1 + rng.below(48);
            let mut parts = [0u8; 12];
            for _ in 0..seeds {
                parts[rng.below(12) as usize] += 1;
            }
            Board::from_sides(&parts[..6], &parts[6..])
        })
        .collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn measure(name: &str, runs: usize, ops_per_run: u64, mut f: impl FnMut() -> u64) {
    let mut rates = Vec::with_capacity(runs);
    let mut sink = 0u64;
    for _ in 0..runs {
        let t = Instant::now();
        sink = sink.wrapping_add(f());
        rates.push(ops_per_run as f64 / t.elapsed().as_secs_f64());
    }
    black_box(sink);
    println!(
        "{name:<28} median {:>8.1} M/s   (min {:.1}, max {:.1}, {runs} runs)",
        median(rates.clone()) / 1e6,
        rates.iter().cloned().fold(f64::INFINITY, f64::min) / 1e6,
        rates.iter().cloned().fold(0.0, f64::max) / 1e6,
    );
}

fn main() {
    let bs = boards(1 << 20);
    let game = Game::new(6, Rules::STANDARD);
    let index = Index::new(6);
    let sowings: u64 = bs.iter().map(|b| game.moves(*b).count_ones() as u64).sum();

    measure("sowings (all moves)", 9, sowings, || {
        let mut acc = 0u64;
        for &b in &bs {
            let mut moves = game.moves(b);
            while moves != 0 {
                let h = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let s = game.sow(black_box(b), h);
                acc = acc.wrapping_add(s.board.packed() as u64 ^ s.gain as u64);
            }
        }
        acc
    });
    measure("ranks (tier rank)", 9, bs.len() as u64, || {
        bs.iter()
            .fold(0u64, |acc, &b| acc.wrapping_add(index.rank(black_box(b))))
    });
    measure("keys (dense u64 key)", 9, bs.len() as u64, || {
        bs.iter()
            .fold(0u64, |acc, &b| acc.wrapping_add(index.key(black_box(b))))
    });
    let ranked: Vec<(u32, u64)> = bs.iter().map(|&b| (b.seeds(), index.rank(b))).collect();
    measure("unranks", 5, ranked.len() as u64, || {
        ranked.iter().fold(0u64, |acc, &(k, r)| {
            acc.wrapping_add(index.unrank(k, black_box(r)).packed() as u64)
        })
    });
    let tier = index.tier_size(20) as u64;
    let n = tier.min(1 << 22);
    measure("tier 20 iteration (colex)", 5, n, || {
        index
            .tier_from(20, 0)
            .take(n as usize)
            .fold(0u64, |a, b| a ^ b.packed() as u64)
    });

    // Another machine's entries into a 2 GiB table, touched first (a
    // long run's is), in batches of 1,024 as a rank takes them in.
    let solver = Solver::new(
        game.clone(),
        SearchConfig {
            tt_mb: 2048,
            threads: 1,
            ..SearchConfig::default()
        },
        None,
    )
    .expect("a 2 GiB table");
    let keys = index.boards_up_to(index.key_seeds()).min(u64::MAX as u128) as u64;
    let mut rng = SplitMix64::new(2);
    let entries: Vec<Published> = (0..1u64 << 23)
        .map(|i| Published {
            key: rng.next_u64() % keys,
            value: (i % 41) as i32 - 20,
            bound: [Bound::Lower, Bound::Upper, Bound::Exact][(i % 3) as usize],
            best_move: Some((i % 6) as u8),
            work: 4 + (i % 8) as u8,
        })
        .collect();
    solver.learn(&entries);
    measure(
        "learn (2 GiB, 1,024 a batch)",
        5,
        entries.len() as u64,
        || {
            entries.chunks(1024).for_each(|batch| solver.learn(batch));
            0
        },
    );
}
