//! What every command shares: errors with exit codes, game size and
//! position arguments, move lines, counts in words. (The rule, table and
//! search flags, which other programs take too, are [`crate::flags`].)

use std::fmt;

use clap::Args;
use kalah_solver::{Game, GameSize, Line, Numbering, Position, Rules};

use crate::flags::RulesArgs;
use crate::output::StdoutError;

/// A command's failure. Input errors exit with status 2, failures with 1.
#[derive(Debug)]
pub enum CliError {
    /// Bad input from the user: a malformed position, an illegal line...
    Input(String),
    /// The work itself failed: I/O, a corrupt table, a mismatch...
    Failure(String),
    /// Standard output could not be written (see [`crate::output`]): a
    /// closed pipe ends quietly with status 0, anything else is a failure.
    Stdout(StdoutError),
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Failure(_) => 1,
            CliError::Stdout(e) if e.is_closed_pipe() => 0,
            CliError::Stdout(_) => 1,
        }
    }

    /// Whether the error is worth a message on stderr (a closed pipe is
    /// not: the reader stopped reading on purpose).
    pub fn is_quiet(&self) -> bool {
        matches!(self, CliError::Stdout(e) if e.is_closed_pipe())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failure(m) => f.write_str(m),
            CliError::Stdout(e) => write!(f, "{e}"),
        }
    }
}

impl From<crate::service::Error> for CliError {
    fn from(e: crate::service::Error) -> CliError {
        use crate::service::Error;
        match e {
            Error::Input(m) => CliError::Input(m),
            Error::Failure(m) => CliError::Failure(m),
            Error::Output(e) => CliError::Stdout(StdoutError(e)),
        }
    }
}

impl From<StdoutError> for CliError {
    fn from(e: StdoutError) -> CliError {
        CliError::Stdout(e)
    }
}

/// Houses a side a board can have: 1..=8 (the engine's board layout).
pub const PITS_RANGE: std::ops::RangeInclusive<u64> = 1..=kalah_solver::rules::MAX_PITS as u64;

/// Seeds a house at the start: 1..=127 (a start position holds 2mn <= 255
/// seeds, so 127 is the most even for one house a side; larger boards are
/// held to 2mn <= 255 when the position is made).
pub const SEEDS_RANGE: std::ops::RangeInclusive<u64> =
    1..=(kalah_solver::rules::MAX_SEEDS as u64 / 2);

/// Kalah(m,n): the board size and the seeds a house at the start, as
/// given; [`GameArgs::size`] checks them with the solver's one check of a
/// game's size ([`GameSize::parse`]), the check the HTTP API and the
/// cluster make, so that all refuse the same sizes with the same message.
#[derive(Args, Clone, Debug)]
pub struct GameArgs {
    /// Houses a side (m, 1..=8).
    #[arg(long, default_value = "6")]
    pits: String,
    /// Seeds in each house at the start (n, at least 1; 2mn at most 255).
    #[arg(long, default_value = "4")]
    seeds: String,
}

impl GameArgs {
    /// The checked size.
    ///
    /// # Errors
    /// [`CliError::Input`] (exit status 2) with [`kalah_solver::SizeError`]'s
    /// message: a count that is not a whole number, pits outside 1..=8,
    /// seeds 0, or a board of more than 255 seeds (counts of any size, with
    /// no arithmetic that wraps).
    pub fn size(&self) -> Result<GameSize, CliError> {
        GameSize::parse(&self.pits, &self.seeds).map_err(|e| CliError::Input(e.to_string()))
    }
}

/// Parses a position given as one argument or as several (the shell split
/// it): the words are joined with spaces first. A board of another size
/// than the usual 6 houses is said on stderr with how its counts were read
/// ([`size_note`]), so 12 counts meant as 6 houses without stores are not
/// taken for 5 houses with stores unseen.
pub fn parse_position(words: &[String]) -> Result<Position, CliError> {
    let pos = crate::service::parse_position(&words.join(" "))
        .map_err(|e| CliError::Input(e.to_string()))?;
    if let Some(n) = size_note(&pos) {
        crate::progress::note(&n);
    }
    Ok(pos)
}

/// Houses a side of the usual board, Kalah(6,n): every command's default.
pub const DEFAULT_PITS: usize = 6;

/// How the counts of `pos` were read, when its board is not the usual 6
/// houses a side (docs/RULES.md, "Writing positions"); `None` for 6 houses.
pub fn size_note(pos: &Position) -> Option<String> {
    let m = pos.pits();
    if m == DEFAULT_PITS {
        return None;
    }
    let houses = |side: char| {
        if m == 1 {
            format!("{side}1")
        } else {
            format!("{side}1..{side}{m}")
        }
    };
    Some(format!(
        "read as {} a side: the {} counts are {}, South's store, {}, North's store \
         (a board of {DEFAULT_PITS} houses takes {} counts, stores included)",
        count(m, "house"),
        2 * m + 2,
        houses('S'),
        houses('N'),
        2 * DEFAULT_PITS + 2
    ))
}

/// The first line of an answer about `pos`: the board size, the seeds in
/// all and the rules, so that an answer is never read under other rules
/// or on another board than it was given for.
pub fn game_line(pos: &Position, rules: Rules) -> String {
    format!(
        "Kalah, {} a side, {} in all; {rules}",
        count(pos.pits(), "house"),
        count(pos.total_seeds() as usize, "seed")
    )
}

/// `Kalah(m,n)` start position from `--pits` and `--seeds`.
pub fn start_position(pits: usize, seeds: usize) -> Result<Position, CliError> {
    Position::start(pits, seeds).map_err(|e| CliError::Input(e.to_string()))
}

pub use crate::report::signed;

/// "1 turn", "2 turns": `n` and the noun, plural unless `n` is 1.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` and the noun for it: `one` when `n` is 1, else `many` (for nouns
/// whose plural is not theirs with an `s`: "1 entry", "2 entries").
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A move line as `play-line` and `analyze` read it: from `--from` or the
/// start of the game the size flags give, in the house numbering `--idu`
/// chooses, replayed once so that an illegal move is refused before any
/// work starts.
pub struct ReadLine {
    pub game: Game,
    pub start: Position,
    pub line: Line,
    /// Where the line ends.
    pub end: Position,
}

/// The flags of a command that reads a move line (`play-line`,
/// `analyze`): the game, its rules, the numbering, where the line starts,
/// and the line.
#[derive(Args, Debug)]
pub struct LineArgs {
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
    /// It may stop before the end of the game.
    #[arg(allow_hyphen_values = true)]
    pub line: String,
}

impl LineArgs {
    /// Reads and replays the line (see [`ReadLine`]).
    ///
    /// # Errors
    /// A bad `--from` position or size, a malformed line, or a move that is
    /// not legal where it is played (input errors naming the line).
    pub fn read(&self) -> Result<ReadLine, CliError> {
        let start = match &self.from {
            Some(from) => parse_position(std::slice::from_ref(from))?,
            None => self.game.size()?.start(),
        };
        let game = Game::new(start.pits(), self.rules.rules());
        let numbering = if self.idu {
            Numbering::FromZero
        } else {
            Numbering::FromOne
        };
        let text = &self.line;
        let line = Line::parse(text, numbering)
            .map_err(|e| CliError::Input(format!("invalid line \"{text}\": {e}")))?;
        let end = line
            .replay(&game, start)
            .map_err(|e| CliError::Input(format!("line \"{text}\": {e}")))?;
        Ok(ReadLine {
            game,
            start,
            line,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_only_for_one() {
        assert_eq!(count(0, "turn"), "0 turns");
        assert_eq!(count(1, "house"), "1 house");
        assert_eq!(count(2, "disagreement"), "2 disagreements");
    }

    #[test]
    fn only_boards_of_other_sizes_are_said() {
        let six: Position = "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S".parse().unwrap();
        assert_eq!(size_note(&six), None);
        let five: Position = "4 4 4 4 4 4 4 4 4 4 4 4 S".parse().unwrap();
        let note = size_note(&five).unwrap();
        assert!(note.contains("read as 5 houses a side"), "{note}");
        assert!(
            note.contains("the 12 counts are S1..S5, South's store, N1..N5, North's store"),
            "{note}"
        );
        let one: Position = "1 0 1 0 S".parse().unwrap();
        assert!(size_note(&one).unwrap().contains(
            "read as 1 house a side: the 4 counts are S1, South's store, N1, North's store"
        ));
    }
}
