//! `kalah play`: a game in the terminal against perfect play. The program
//! never makes a mistake; the player sees the value of each move they make
//! (and, with `--hints`, of every option before choosing), and may undo.

use std::io::{self, BufRead, Write};

use crate::outln;

use clap::{Args, ValueEnum};
use kalah_solver::search::Solver;
use kalah_solver::{EndRule, Game, Line, Position, Rules, Side};

use super::common::{count, game_line, parse_position, signed, CliError, GameArgs};
use super::output;
use crate::flags::{BookUse, RulesArgs, SearchArgs, TableArgs};
use crate::progress::build::prepare_tables;
use crate::progress::{note, with_search_progress};
use crate::service::position::{answer_position, by_search};
use crate::service::setup::solver_for;
use crate::service::{Answer, Error};

/// The human's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// South, who moves first.
    #[value(name = "S", alias = "south")]
    S,
    /// North.
    #[value(name = "N", alias = "north")]
    N,
}

/// Arguments of `kalah play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Start from this position instead of the start of Kalah(m,n) (its
    /// counts give the board, so --pits and --seeds do not go with it);
    /// its side to move moves first.
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["pits", "seeds"])]
    pub from: Option<String>,
    /// The side you play: S or south (moves first), N or north; any case.
    #[arg(long, value_enum, ignore_case = true, default_value_t = SideArg::S)]
    pub side: SideArg,
    /// Show the value of every option before each of your moves (or type
    /// h during the game for the current position).
    #[arg(long)]
    pub hints: bool,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub book: BookUse,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Perfect-play answers: tables inside their range, search outside (one
/// solver for the whole game, its transposition table kept from one
/// position to the next). `play` and `analyze` answer through it.
pub(super) struct Oracle {
    game: Game,
    pub(super) tables: Option<std::sync::Arc<kalah_solver::table::Tables>>,
    book: Option<std::sync::Arc<kalah_solver::book::Book>>,
    solver: Solver,
}

impl Oracle {
    /// The oracle for the positions of `game` from `start`: the tables the
    /// flags ask for (missing tiers built first, with progress) and a
    /// solver sized as for every first turn of `start`.
    ///
    /// # Errors
    /// Tables that cannot be opened or built, a solver that cannot start.
    pub(super) fn new(
        game: &Game,
        start: &Position,
        tables: &TableArgs,
        book: &BookUse,
        search: &SearchArgs,
    ) -> Result<Oracle, CliError> {
        let total = start.total_seeds();
        let table_args = tables;
        let tables = prepare_tables(
            &table_args.policy(),
            start.pits(),
            game.rules(),
            total,
            true,
        )?;
        let book = super::book::for_game(table_args, book, search, game, total, tables.clone())?;
        let solver = solver_for(game.clone(), total, true, search.policy(), tables.clone())?;
        Ok(Oracle {
            game: game.clone(),
            tables,
            book,
            solver,
        })
    }

    /// The value of `pos` and of each of its moves, with a progress line on
    /// stderr (on a terminal) while a search takes long.
    pub(super) fn answer(&self, pos: &Position) -> Result<Answer, Error> {
        with_search_progress(
            "valuing every move",
            || self.solver.stats().nodes,
            || {
                answer_position(
                    &self.game,
                    self.tables.as_deref(),
                    self.book.as_deref(),
                    pos,
                    false,
                    |p| by_search(&self.solver, p),
                )
            },
        )
    }
}

/// What the player typed.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    House(usize),
    Hint,
    Undo,
    Quit,
    Help,
    Bad(String),
}

/// Reads one line the player typed (any bytes: a line that is not UTF-8
/// is read as text with its bad bytes replaced, and refused as a move).
fn read_input(text: &str, pits: usize) -> Input {
    let t = text.trim().to_ascii_lowercase();
    match t.as_str() {
        "u" | "undo" => Input::Undo,
        "q" | "quit" | "exit" => Input::Quit,
        "h" | "hint" | "hints" => Input::Hint,
        "?" | "help" => Input::Help,
        "" => Input::Bad("type a house number (or ? for help)".to_string()),
        _ => match t.parse::<i64>() {
            Ok(h) if (1..=pits as i64).contains(&h) => Input::House(h as usize),
            Ok(h) => Input::Bad(format!(
                "there is no house {h}: houses are numbered 1..{pits}"
            )),
            Err(_) => Input::Bad(format!(
                "'{}' is not a house number (? for help)",
                text.trim()
            )),
        },
    }
}

/// What `?` prints: every command of the game.
fn help_text(pits: usize) -> String {
    format!(
        "commands:\n  \
         1..{pits}      play that house (numbered from your left)\n  \
         h, hint   the value of every move you have now\n  \
         u, undo   take back your last move\n  \
         q, quit   abandon the game (end of input does too)\n  \
         ?, help   this list"
    )
}

/// The values of every option, for the player to move in `answer`.
fn hint_text(answer: &Answer) -> String {
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
    format!(
        "hints (house:value for you, + = extra turn): {}",
        opts.join("  ")
    )
}

/// Writes `text` with no newline and flushes, for a prompt.
fn prompt(text: &str) -> Result<(), CliError> {
    io::stdout()
        .write_all(text.as_bytes())
        .map_err(crate::output::StdoutError)?;
    output::flush()
}

/// Plays a game on standard input and output.
///
/// # Errors
/// Tables that cannot be opened or built, an interruption, or standard
/// output that cannot be written. The end of standard input abandons the
/// game (status 0).
pub fn play(args: &PlayArgs) -> Result<(), CliError> {
    let rules = args.rules.rules();
    // The game as `kalah analyze` is told it: where it starts, and the rules.
    let mut review_args = String::new();
    let (start, title) = match &args.from {
        Some(text) => {
            let start = parse_position(std::slice::from_ref(text))?;
            review_args.push_str(&format!(" --from \"{start}\""));
            (start, game_line(&start, rules))
        }
        None => {
            let size = args.game.size()?;
            review_args.push_str(&format!(" --pits {} --seeds {}", size.pits(), size.seeds()));
            (size.start(), format!("{size}, {rules}"))
        }
    };
    review_args.push_str(&rule_flags(rules));
    let pits = start.pits();
    let game = Game::new(pits, rules);
    let human = match args.side {
        SideArg::S => Side::South,
        SideArg::N => Side::North,
    };
    outln!(
        "{title}. You play {human}; the program plays perfectly.\n\
         Type a house number (1..{pits}), h for the value of every move, u to undo \
         your last move, q to quit, ? for help."
    )?;
    output::flush()?;
    // The oracle values every legal move of each position.
    let oracle = Oracle::new(&game, &start, &args.tables, &args.book, &args.search)?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut pos = start;
    // Every sowing so far, by whom, for the game's line at the end.
    let mut played: Vec<(Side, usize)> = Vec::new();
    // Positions where it was the player's turn (and the sowings played
    // before it), for undo.
    let mut history: Vec<(Position, usize)> = Vec::new();
    let end_line = |played: &[(Side, usize)]| -> Result<(), CliError> {
        let line = line_of(played);
        if line.turns.is_empty() {
            return Ok(());
        }
        outln!("the game's line: {line}")?;
        outln!("review it: kalah analyze{review_args} \"{line}\"")
    };
    let mut first = true;
    loop {
        outln!("\n{}", pos.diagram().trim_end())?;
        if let Some([s, n]) = pos.final_stores(rules) {
            let mine = if human == Side::South { s } else { n } as i32;
            let theirs = if human == Side::South { n } else { s } as i32;
            let verdict = match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => "you win",
                std::cmp::Ordering::Equal => "a draw",
                std::cmp::Ordering::Less => "you lose",
            };
            outln!(
                "game over: South {s}, North {n}: {verdict} ({})",
                signed(mine - theirs)
            )?;
            return end_line(&played);
        }
        if first {
            // The start is the longest search of the game: say so before
            // it, so a silent wait is not taken for a hang.
            output::flush()?;
            note(&format!(
                "valuing every move from the start ({}; later moves come faster) ...",
                match &oracle.tables {
                    Some(t) => format!(
                        "over endgame tables of up to {}",
                        count(kalah_solver::Probe::max_seeds(&**t) as usize, "seed")
                    ),
                    None => "without endgame tables".to_string(),
                }
            ));
            first = false;
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
            played.push((mover, house));
            outln!(
                "{mover} plays {house} (value {} for {mover})",
                signed(answer.value)
            )?;
            continue;
        }
        if args.hints {
            outln!("{}", hint_text(&answer))?;
        }
        loop {
            let mut bytes = Vec::new();
            // The prompt is written with Ctrl-C's default action already in
            // place: a Ctrl-C that comes as soon as the prompt shows must
            // end the game, not set the stop flag before the read begins
            // (the read would then wait on, and a first Ctrl-C be lost).
            let n = crate::interrupt::with_default_action(|| {
                prompt(&format!("{human}, your move: "))?;
                input
                    .read_until(b'\n', &mut bytes)
                    .map_err(|e| CliError::Failure(format!("reading standard input: {e}")))
            })?;
            if n == 0 {
                outln!("\nend of input: game abandoned")?;
                return end_line(&played);
            }
            match read_input(&String::from_utf8_lossy(&bytes), pits) {
                Input::Quit => {
                    outln!("game abandoned")?;
                    return end_line(&played);
                }
                Input::Help => outln!("{}", help_text(pits))?,
                Input::Hint => outln!("{}", hint_text(&answer))?,
                Input::Bad(msg) => outln!("{msg}")?,
                Input::Undo => match history.pop() {
                    Some((p, sowings)) => {
                        pos = p;
                        played.truncate(sowings);
                        outln!("undone")?;
                        break;
                    }
                    None => outln!("nothing to undo")?,
                },
                Input::House(h) => {
                    let Some(m) = answer.moves.iter().find(|m| m.house == h) else {
                        outln!("house {h} is empty: choose another")?;
                        continue;
                    };
                    history.push((pos, played.len()));
                    pos.play(&game, h)
                        .map_err(|e| CliError::Failure(format!("move {h}: {e}")))?;
                    played.push((mover, h));
                    let lost = answer.value - m.value;
                    let note = if lost == 0 {
                        "a best move".to_string()
                    } else {
                        format!(
                            "the best was {}: this gives up {lost}",
                            signed(answer.value)
                        )
                    };
                    outln!("you play {h}: value {} for you ({note})", signed(m.value))?;
                    break;
                }
            }
        }
    }
}

/// The line of the sowings `played`: a side's consecutive sowings are one
/// turn (it moved again only after an extra turn).
fn line_of(played: &[(Side, usize)]) -> Line {
    let mut turns: Vec<Vec<usize>> = Vec::new();
    let mut last = None;
    for &(side, house) in played {
        match turns.last_mut() {
            Some(turn) if last == Some(side) => turn.push(house),
            _ => turns.push(vec![house]),
        }
        last = Some(side);
    }
    Line { turns }
}

/// The rule flags that give `rules` (empty for the standard game).
fn rule_flags(rules: Rules) -> String {
    let mut flags = String::new();
    if rules.capture == kalah_solver::CaptureRule::Empty {
        flags.push_str(" --empty-capture");
    }
    match rules.end {
        EndRule::Sweep => {}
        EndRule::Delayed => flags.push_str(" --end delayed"),
        EndRule::NoSweep => flags.push_str(" --end no-sweep"),
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_words_are_read_as_commands() {
        assert_eq!(read_input(" 3 \n", 6), Input::House(3));
        assert_eq!(read_input("H", 6), Input::Hint);
        assert_eq!(read_input("hint", 6), Input::Hint);
        assert_eq!(read_input("?", 6), Input::Help);
        assert_eq!(read_input("Undo", 6), Input::Undo);
        assert_eq!(read_input("q", 6), Input::Quit);
        for bad in [
            "",
            "0",
            "7",
            "-1",
            "99999999999999999999999",
            "3.5",
            "\u{fffd}",
        ] {
            assert!(matches!(read_input(bad, 6), Input::Bad(_)), "{bad:?}");
        }
    }

    #[test]
    fn sowings_of_one_side_in_a_row_are_one_turn() {
        use Side::{North as N, South as S};
        let line = line_of(&[(S, 3), (S, 6), (N, 2), (S, 1), (N, 4), (N, 1)]);
        assert_eq!(line.to_string(), "3.6-2-1-4.1");
        assert!(line_of(&[]).turns.is_empty());
        assert_eq!(rule_flags(Rules::STANDARD), "");
        assert_eq!(rule_flags(Rules::EMPTY_CAPTURE), " --empty-capture");
    }

    #[test]
    fn help_lists_every_command() {
        let help = help_text(6);
        for word in ["1..6", "hint", "undo", "quit", "help"] {
            assert!(help.contains(word), "{word} missing from {help}");
        }
    }
}
