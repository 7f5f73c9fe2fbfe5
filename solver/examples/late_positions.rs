//! Positions of Kalah(M,N) late enough in a game to solve: the inputs of
//! the cost model in README, "Toward Kalah(6,6)".
//!
//! ```text
//! cargo run --release --example late_positions -- M N RULES BOARD COUNT [SEED]
//! ```
//! RULES is a rule set's slug (`ec`, `std`, `std-delayed`, ...). Plays
//! games from the start by uniformly random legal moves (one
//! `SplitMix64` stream per game, from SEED, default 1) and keeps the first
//! position of a game with at most BOARD seeds left in the houses, when the
//! stores then differ by at most 2 (a balanced game, as a strong line keeps
//! it) and the game is not over; prints COUNT such positions, one a line,
//! in the text form `kalah query` reads.

use std::process::ExitCode;

use kalah_solver::sample::SplitMix64;
use kalah_solver::table::ALL_RULES;
use kalah_solver::{Game, Position, Rules};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: late_positions M N RULES BOARD COUNT [SEED]";
    if !(5..=6).contains(&args.len()) {
        eprintln!("{usage}");
        return ExitCode::from(2);
    }
    let number = |i: usize| -> Option<u64> { args.get(i)?.parse().ok() };
    let (Some(m), Some(n), Some(board), Some(count)) = (number(0), number(1), number(3), number(4))
    else {
        eprintln!("{usage}: M, N, BOARD and COUNT are whole numbers");
        return ExitCode::from(2);
    };
    let seed = if args.len() == 6 {
        match number(5) {
            Some(s) => s,
            None => {
                eprintln!("{usage}: SEED is a whole number");
                return ExitCode::from(2);
            }
        }
    } else {
        1
    };
    let Some(rules) = Rules::from_slug(&args[2]) else {
        let slugs: Vec<String> = ALL_RULES.iter().map(|r| r.slug()).collect();
        eprintln!("unknown rules '{}': one of {}", args[2], slugs.join(", "));
        return ExitCode::from(2);
    };
    let start = match Position::start(m as usize, n as usize) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let game = Game::new(m as usize, rules);
    let mut found = 0u64;
    // Enough games for any sensible request; a request that cannot be met
    // (BOARD below what games reach unfinished) ends with an error.
    for g in 0..1_000_000u64 {
        let mut rng = SplitMix64::new(seed.wrapping_mul(1_000_003).wrapping_add(g));
        let mut pos = start;
        while !pos.is_over(rules) && u64::from(pos.seeds_on_board()) > board {
            let moves = pos.legal_moves(rules);
            let house = moves[rng.below(moves.len() as u64) as usize];
            if pos.play(&game, house).is_err() {
                eprintln!("internal error: a legal move was refused");
                return ExitCode::from(1);
            }
        }
        if !pos.is_over(rules) && pos.store_difference().abs() <= 2 {
            println!("{pos}");
            found += 1;
            if found == count {
                return ExitCode::SUCCESS;
            }
        }
    }
    eprintln!("only {found} of {count} positions found");
    ExitCode::from(1)
}
