//! `kalah play`: a game in the terminal against perfect play. The program
//! never makes a mistake; the player sees the value of each move they make
//! (and, with `--hints`, of every option before choosing), and may undo.

use std::io::{self, BufRead, Write};

use clap::{Args, ValueEnum};
use kalah_solver::search::Solver;
use kalah_solver::{Game, Position, Side};

use super::common::{signed, start_position, CliError, GameArgs, RulesArgs};
use super::engine::{make_solver_for, prepare_tables, SearchArgs, TableArgs};
use super::query::{answer_position, by_search, Answer};

/// The human's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// South, who moves first.
    S,
    /// North.
    N,
}

/// Arguments of `kalah play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The side you play: S (moves first) or N.
    #[arg(long, value_enum, default_value_t = SideArg::S)]
    pub side: SideArg,
    /// Show the value of every option before each of your moves.
    #[arg(long)]
    pub hints: bool,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Perfect-play answers: tables inside their range, search outside.
struct Oracle {
    game: Game,
    tables: Option<std::sync::Arc<kalah_solver::table::Tables>>,
    solver: Solver,
}

impl Oracle {
    fn answer(&self, pos: &Position) -> Result<Answer, CliError> {
        answer_position(&self.game, self.tables.as_deref(), pos, false, |p| {
            by_search(&self.solver, p)
        })
    }
}

/// What the player typed.
enum Input {
    House(usize),
    Undo,
    Quit,
    Help,
    Bad(String),
}

fn read_input(text: &str, pits: usize) -> Input {
    let t = text.trim().to_ascii_lowercase();
    match t.as_str() {
        "u" | "undo" => Input::Undo,
        "q" | "quit" | "exit" => Input::Quit,
        "h" | "help" | "?" => Input::Help,
        "" => Input::Bad("type a house number".to_string()),
        _ => match t.parse::<i64>() {
            Ok(h) if (1..=pits as i64).contains(&h) => Input::House(h as usize),
            Ok(h) => Input::Bad(format!(
                "there is no house {h}: houses are numbered 1..{pits}"
            )),
            Err(_) => Input::Bad(format!("'{}' is not a house number", text.trim())),
        },
    }
}

/// Plays a game on standard input and output.
pub fn play(args: &PlayArgs) -> Result<(), CliError> {
    let start = start_position(args.game.pits, args.game.seeds)?;
    let rules = args.rules.rules();
    let game = Game::new(args.game.pits, rules);
    let tables = prepare_tables(
        &args.tables,
        args.game.pits,
        rules,
        start.total_seeds(),
        true,
    )?;
    // The oracle values every legal move of each position: sized as for
    // every first turn.
    let solver = make_solver_for(
        game.clone(),
        start.total_seeds(),
        true,
        &args.search,
        tables.clone(),
    )?;
    let oracle = Oracle {
        game: game.clone(),
        tables,
        solver,
    };
    let human = match args.side {
        SideArg::S => Side::South,
        SideArg::N => Side::North,
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout();
    let say = |out: &mut io::Stdout, text: &str| -> Result<(), CliError> {
        writeln!(out, "{text}").map_err(|e| CliError::Failure(format!("writing: {e}")))
    };
    say(
        &mut out,
        &format!(
            "Kalah({},{}), {rules}. You play {human}; the program plays perfectly.\n\
             Type a house number (1..{}), u to undo your last move, q to quit.",
            args.game.pits, args.game.seeds, args.game.pits
        ),
    )?;
    let mut pos = start;
    // Positions where it was the player's turn, for undo.
    let mut history: Vec<Position> = Vec::new();
    loop {
        say(&mut out, &format!("\n{}", pos.diagram().trim_end()))?;
        if let Some([s, n]) = pos.final_stores(rules) {
            let mine = if human == Side::South { s } else { n } as i32;
            let theirs = if human == Side::South { n } else { s } as i32;
            let verdict = match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => "you win",
                std::cmp::Ordering::Equal => "a draw",
                std::cmp::Ordering::Less => "you lose",
            };
            say(
                &mut out,
                &format!(
                    "game over: South {s}, North {n}: {verdict} ({})",
                    signed(mine - theirs)
                ),
            )?;
            return Ok(());
        }
        let answer = oracle.answer(&pos)?;
        let mover = pos.to_move();
        if mover != human {
            let house = *answer
                .best
                .first()
                .ok_or_else(|| CliError::Failure(format!("no best move found in {pos}")))?;
            pos.play(&game, house)
                .map_err(|e| CliError::Failure(format!("program move {house}: {e}")))?;
            say(
                &mut out,
                &format!(
                    "{mover} plays {house} (value {} for {mover})",
                    signed(answer.value)
                ),
            )?;
            continue;
        }
        if args.hints {
            let opts: Vec<String> = answer
                .moves
                .iter()
                .map(|m| {
                    format!(
                        "{}:{}{}",
                        m.house,
                        signed(m.value),
                        if m.extra_turn { "+" } else { "" }
                    )
                })
                .collect();
            say(
                &mut out,
                &format!("hints (value for you, + = extra turn): {}", opts.join("  ")),
            )?;
        }
        loop {
            write!(out, "{human}, your move: ")
                .and_then(|_| out.flush())
                .map_err(|e| CliError::Failure(format!("writing: {e}")))?;
            let mut line = String::new();
            let n = input
                .read_line(&mut line)
                .map_err(|e| CliError::Failure(format!("reading: {e}")))?;
            if n == 0 {
                say(&mut out, "\nend of input: game abandoned")?;
                return Ok(());
            }
            match read_input(&line, args.game.pits) {
                Input::Quit => {
                    say(&mut out, "game abandoned")?;
                    return Ok(());
                }
                Input::Help => say(
                    &mut out,
                    &format!(
                        "houses are numbered 1..{} from your left; u undoes your last move; q quits",
                        args.game.pits
                    ),
                )?,
                Input::Bad(msg) => say(&mut out, &msg)?,
                Input::Undo => match history.pop() {
                    Some(p) => {
                        pos = p;
                        say(&mut out, "undone")?;
                        break;
                    }
                    None => say(&mut out, "nothing to undo")?,
                },
                Input::House(h) => {
                    let Some(m) = answer.moves.iter().find(|m| m.house == h) else {
                        say(&mut out, &format!("house {h} is empty: choose another"))?;
                        continue;
                    };
                    history.push(pos);
                    pos.play(&game, h)
                        .map_err(|e| CliError::Failure(format!("move {h}: {e}")))?;
                    let lost = answer.value - m.value;
                    let note = if lost == 0 {
                        "a best move".to_string()
                    } else {
                        format!("the best was {}: this gives up {lost}", signed(answer.value))
                    };
                    say(
                        &mut out,
                        &format!("you play {h}: value {} for you ({note})", signed(m.value)),
                    )?;
                    break;
                }
            }
        }
    }
}
