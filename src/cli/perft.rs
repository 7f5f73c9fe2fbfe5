//! `kalah perft`: move sequences and distinct positions per depth.

use crate::outln;
use std::time::Instant;

use clap::Args;
use kalah_solver::perft::perft;
use kalah_solver::Game;

use super::common::{CliError, GameArgs};
use crate::flags::RulesArgs;
use crate::output::json_line;
use crate::service::answer::round3;
use serde::Serialize;

/// Arguments of `kalah perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Deepest ply to count (each sowing is a ply, extra turns included).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=12))]
    pub depth: u32,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Counts move sequences and distinct positions per depth.
pub fn perft_command(args: &PerftArgs) -> Result<(), CliError> {
    let size = args.game.size()?;
    let start = size.start();
    let rules = args.rules.rules();
    let game = Game::new(start.pits(), rules);
    let t = Instant::now();
    let counts = perft(&game, start, args.depth as usize);
    let secs = t.elapsed().as_secs_f64();
    if args.json {
        #[derive(Serialize)]
        struct Depth {
            depth: usize,
            sequences: u64,
            distinct: u64,
        }
        #[derive(Serialize)]
        struct Perft {
            pits: usize,
            seeds: usize,
            rules: String,
            depths: Vec<Depth>,
            seconds: f64,
        }
        let depths = counts.iter().map(|c| Depth {
            depth: c.depth,
            sequences: c.sequences,
            distinct: c.distinct,
        });
        let j = Perft {
            pits: size.pits(),
            seeds: size.seeds(),
            rules: rules.slug(),
            depths: depths.collect(),
            seconds: round3(secs),
        };
        outln!("{}", json_line(&j))?;
        return Ok(());
    }
    outln!("perft {size}, {rules}")?;
    outln!("{:>5} {:>14} {:>14}", "depth", "sequences", "distinct")?;
    for c in &counts {
        outln!("{:>5} {:>14} {:>14}", c.depth, c.sequences, c.distinct)?;
    }
    outln!("({secs:.2} s)")?;
    Ok(())
}
