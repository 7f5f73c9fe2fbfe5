//! `show`, `play-line` and `perft`: commands over the rules alone.

use crate::outln;
use std::time::Instant;

use clap::Args;
use kalah_solver::perft::perft;
use kalah_solver::{Game, Line, Numbering, Position, Rules, Side};

use super::common::{count, parse_position, signed, CliError, GameArgs, RulesArgs};
use crate::service::answer::{round3, write_json};
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

/// `value` as one line of compact JSON.
pub fn json_line(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value);
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

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
    let start = match &args.from {
        Some(text) => parse_position(std::slice::from_ref(text))?,
        None => args.game.size()?.start(),
    };
    let rules = args.rules.rules();
    let game = Game::new(start.pits(), rules);
    let numbering = if args.idu {
        Numbering::FromZero
    } else {
        Numbering::FromOne
    };
    let line = Line::parse(&args.line, numbering)
        .map_err(|e| CliError::Input(format!("invalid line \"{}\": {e}", args.line)))?;
    let end = line
        .replay(&game, start)
        .map_err(|e| CliError::Input(format!("line \"{}\": {e}", args.line)))?;
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
