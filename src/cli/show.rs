//! `kalah show`: a position drawn, with its legal moves.

use crate::outln;

use clap::Args;
use kalah_solver::{Position, Rules, Side};

use super::common::{count, parse_position, signed, CliError};
use crate::flags::RulesArgs;
use crate::output::json_line;
use serde::Serialize;

/// Arguments of `kalah show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The position: 2m+2 counts in sowing order (S1..Sm, South store,
    /// N1..Nm, North store), then the side to move, e.g.
    /// "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S". Commas may replace spaces.
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub position: Vec<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Print one JSON object instead of the drawing.
    #[arg(long)]
    pub json: bool,
}

/// Draws a position.
pub fn show(args: &ShowArgs) -> Result<(), CliError> {
    let pos = parse_position(&args.position)?;
    let rules = args.rules.rules();
    if args.json {
        outln!("{}", json_line(&PositionJson::new(&pos, rules)))?;
        return Ok(());
    }
    outln!("{}", pos.diagram().trim_end())?;
    outln!("position: {pos}")?;
    outln!(
        "{} a side, {} in houses, {} in all",
        count(pos.pits(), "house"),
        count(pos.seeds_on_board() as usize, "seed"),
        pos.total_seeds()
    )?;
    match pos.final_stores(rules) {
        Some([s, n]) => outln!(
            "game over ({rules}): South {s}, North {n}; final score {} for South",
            signed(s as i32 - n as i32)
        )?,
        None => {
            let moves: Vec<String> = pos
                .legal_moves(rules)
                .iter()
                .map(|h| h.to_string())
                .collect();
            outln!("legal moves for {}: {}", pos.to_move(), moves.join(" "))?;
        }
    }
    Ok(())
}

/// The JSON form of a position, shared by the commands that print one
/// (docs/json.md).
#[derive(Serialize)]
pub struct PositionJson<'a> {
    pub position: String,
    pub pits: usize,
    pub south: &'a [u8],
    pub north: &'a [u8],
    pub stores: [u8; 2],
    pub to_move: char,
    pub rules: String,
    pub seeds_on_board: u32,
    pub game_over: bool,
    /// South's final store difference, once the game is over.
    pub final_score: Option<i32>,
    pub legal_moves: Vec<usize>,
}

impl<'a> PositionJson<'a> {
    pub fn new(pos: &'a Position, rules: Rules) -> PositionJson<'a> {
        PositionJson {
            position: pos.to_string(),
            pits: pos.pits(),
            south: pos.houses(Side::South),
            north: pos.houses(Side::North),
            stores: [pos.store(Side::South), pos.store(Side::North)],
            to_move: pos.to_move().letter(),
            rules: rules.slug(),
            seeds_on_board: pos.seeds_on_board(),
            game_over: pos.is_over(rules),
            final_score: pos.final_score(rules),
            legal_moves: pos.legal_moves(rules),
        }
    }
}
