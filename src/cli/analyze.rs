//! `kalah analyze`: a game reviewed move by move. For every sowing of a
//! move line, the value of the position before it (what the best move
//! keeps), the value of the move played, the best moves, and what the move
//! gave away; moves that gave something away are marked as mistakes, and
//! each side's mistakes are summed at the end.
//!
//! The answers are `kalah play`'s ([`Oracle`]): from the endgame tables inside them
//! (built first when missing, as `play` and `solve` build them), by search
//! with table probes outside them; the review itself is the service's
//! ([`crate::service::review`]).

use std::time::Instant;

use clap::Args;
use kalah_solver::{Rules, Side};

use super::common::{count, game_line, signed, CliError, LineArgs, ReadLine};
use super::play::Oracle;
use crate::flags::{BookUse, SearchArgs, TableArgs};
use crate::outln;
use crate::output::json_line;
use crate::service::review::{review, Review, ReviewError};
use crate::service::Answer;

/// Arguments of `kalah analyze`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  kalah analyze --pits 4 --seeds 3 1-2
  kalah analyze --idu --empty-capture --pits 6 --seeds 2 42-42-30-0-1-1-4-5
  kalah analyze --from \"1 0 2 0 0 1 20 0 3 0 1 0 2 18 S\" \"1 2\" --json")]
pub struct AnalyzeArgs {
    /// The game to review, as `play-line` reads it.
    #[command(flatten)]
    pub line: LineArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub book: BookUse,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Print one JSON object (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// `kalah analyze`.
pub fn analyze(args: &AnalyzeArgs) -> Result<(), CliError> {
    // Refused before any table is built or search started.
    let ReadLine {
        game, start, line, ..
    } = args.line.read()?;
    let rules = game.rules();
    let started = Instant::now();
    let oracle = Oracle::new(&game, &start, &args.tables, &args.book, &args.search)?;
    let reviewed = review(&game, start, &line, |p| oracle.answer(p)).map_err(|e| match e {
        ReviewError::Line(e) => CliError::Input(format!("line \"{}\": {e}", args.line.line)),
        ReviewError::Answer(e) => CliError::from(e),
    })?;
    // The end position's value: the score of a finished game, else what
    // perfect play from there gives.
    let end = oracle.answer(&reviewed.end)?;
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let j = reviewed.json(&game, &rules.slug(), Some(end.value), seconds);
        return outln!("{}", json_line(&j));
    }
    print_review(&reviewed, &end, rules, seconds)
}

fn print_review(r: &Review, end: &Answer, rules: Rules, seconds: f64) -> Result<(), CliError> {
    outln!("{}", game_line(&r.start, rules))?;
    outln!("start: {}", r.start)?;
    outln!(
        "line: {} ({}, {})",
        r.line,
        count(r.line.turns.len(), "turn"),
        count(r.moves.len(), "move")
    )?;
    outln!(
        "values for the side that moves: the position's (what a best move keeps), \
         the move played's, and what it gave away"
    )?;
    outln!(
        "{:>4} {:>6}  {:>4} {:>5} {:>6} {:>6}  best",
        "turn",
        "side",
        "move ",
        "value",
        "played",
        "loss"
    )?;
    for m in &r.moves {
        let best: Vec<String> = m.best.iter().map(|h| h.to_string()).collect();
        let mark = if !m.is_mistake() {
            String::new()
        } else if m.changes_result() {
            format!(
                "  mistake: {} to {}",
                outcome_word(m.value),
                outcome_word(m.played)
            )
        } else {
            "  mistake".to_string()
        };
        let turn = if m.sowing == 1 {
            m.turn.to_string()
        } else {
            String::new()
        };
        let row = format!(
            "{:>4} {:>6}  {:>4} {:>5} {:>6} {:>6}  {:<10}{mark}",
            turn,
            side_name(m.before.to_move()),
            format!("{}{}", m.house, if m.extra_turn { "+" } else { " " }),
            signed(m.value),
            signed(m.played),
            m.loss(),
            best.join(" "),
        );
        outln!("{}", row.trim_end())?;
    }
    outln!("(+: the move earned an extra turn)")?;
    let [south, north] = r.accounts();
    for (side, a) in [(Side::South, south), (Side::North, north)] {
        if a.mistakes == 0 {
            outln!("{}: no mistakes", side_name(side))?;
        } else {
            outln!(
                "{}: {}, {} given away in all",
                side_name(side),
                count(a.mistakes, "mistake"),
                a.loss
            )?;
        }
    }
    outln!("end: {}", r.end)?;
    match r.end.final_stores(rules) {
        Some([s, n]) => outln!(
            "game over: South {s}, North {n}; final score {} for South",
            signed(s as i32 - n as i32)
        )?,
        None => outln!(
            "game not over: value {} for {} under perfect play from here",
            signed(end.value),
            r.end.to_move()
        )?,
    }
    outln!("nodes: {}  time: {seconds:.2} s", r.nodes + end.nodes)
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

fn outcome_word(value: i32) -> &'static str {
    match value.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}
