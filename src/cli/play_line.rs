//! `kalah play-line`: a move line replayed to its final score.

use crate::outln;

use clap::Args;
use kalah_solver::Side;

use super::common::{count, signed, CliError, LineArgs, ReadLine};
use super::show::PositionJson;
use crate::output::json_line;
use serde::Serialize;

/// Arguments of `kalah play-line`.
#[derive(Args, Debug)]
pub struct PlayLineArgs {
    #[command(flatten)]
    pub line: LineArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Replays a move line and prints where it ends.
pub fn play_line(args: &PlayLineArgs) -> Result<(), CliError> {
    let ReadLine {
        game, line, end, ..
    } = args.line.read()?;
    let rules = game.rules();
    if args.json {
        #[derive(Serialize)]
        struct Replayed<'a> {
            #[serde(flatten)]
            end: PositionJson<'a>,
            line: String,
            turns: usize,
        }
        let j = Replayed {
            end: PositionJson::new(&end, rules),
            line: line.to_string(),
            turns: line.turns.len(),
        };
        outln!("{}", json_line(&j))?;
        return Ok(());
    }
    outln!("line: {line} ({})", count(line.turns.len(), "turn"))?;
    outln!("{}", end.diagram().trim_end())?;
    outln!("position: {end}")?;
    match end.final_stores(rules) {
        Some([s, n]) => outln!(
            "game over: South {s}, North {n}; final score {} for South",
            signed(s as i32 - n as i32)
        )?,
        None => outln!(
            "game not over: stores South {}, North {}; {} to move",
            end.store(Side::South),
            end.store(Side::North),
            end.to_move()
        )?,
    }
    Ok(())
}
