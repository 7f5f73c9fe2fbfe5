//! `kalah play-line`: a move line replayed to its final score.

use crate::outln;

use clap::Args;
use kalah_solver::Side;

use super::common::{count, read_line, signed, CliError, GameArgs, ReadLine};
use super::show::PositionJson;
use crate::flags::RulesArgs;
use crate::output::json_line;
use serde::Serialize;

/// Arguments of `kalah play-line`.
#[derive(Args, Debug)]
pub struct PlayLineArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Houses in the line are numbered 0..m-1, as in Irving, Donkers &
    /// Uiterwijk (2000); by default they are 1..m (docs/RULES.md).
    #[arg(long)]
    pub idu: bool,
    /// Start from this position instead of the start of Kalah(m,n) (its
    /// counts give the board, so --pits and --seeds do not go with it).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["pits", "seeds"])]
    pub from: Option<String>,
    /// The move line: turns separated by '-' (or by spaces in a line
    /// without dashes), the moves of one turn run together ("36") or
    /// joined by '.' ("3.6"), e.g. "36-2-5" or "3.6 2 5" (docs/RULES.md).
    #[arg(allow_hyphen_values = true)]
    pub line: String,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Replays a move line and prints where it ends.
pub fn play_line(args: &PlayLineArgs) -> Result<(), CliError> {
    let ReadLine {
        game, line, end, ..
    } = read_line(
        args.from.as_ref(),
        &args.game,
        args.rules.rules(),
        args.idu,
        &args.line,
    )?;
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
