//! The `kalah` command: a thin layer over the library.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kalah::cli::analyze::{self, AnalyzeArgs};
use kalah::cli::book::{self, BookArgs};
use kalah::cli::build::{self, BuildArgs};
use kalah::cli::certify::{self, CertifyArgs};
use kalah::cli::perft::{self, PerftArgs};
use kalah::cli::play::{self, PlayArgs};
use kalah::cli::play_line::{self, PlayLineArgs};
use kalah::cli::query::{self, QueryArgs};
use kalah::cli::reproduce::{self, ReproduceArgs};
use kalah::cli::serve::{self, ServeArgs};
use kalah::cli::show::{self, ShowArgs};
use kalah::cli::solve::{self, SolveArgs};
use kalah::cli::tables::{self, TablesArgs};
use kalah::cli::verify::{self, VerifyArgs};
use kalah::cli::CliError;

/// Exact solver, endgame tables and position lookup for Kalah(m,n).
///
/// Positions are written as in docs/RULES.md: the 2m+2 counts in sowing order
/// (South's houses 1..m, South's store, North's houses 1..m, North's store)
/// and the side to move, e.g. "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S". Values are
/// final store differences under perfect play. Exit status: 0 success,
/// 1 failure, 2 bad input.
const EXAMPLES: &str = "Examples:
  kalah solve --pits 6 --seeds 4 --empty-capture      value +10, best turn 3.6, a perfect game
  kalah query \"4 4 0 5 5 5 1 4 4 4 4 4 4 0 S\"         one position, every move's value
  kalah query --batch positions.txt > values.jsonl    one JSON line per position
  kalah play --pits 4 --seeds 3 --hints                play against perfect play
  kalah analyze --pits 4 --seeds 3 1-2                 a game reviewed move by move
  kalah build --pits 6 --max-seeds 22                  endgame tables to 22 seeds (see kalah tables)
  kalah reproduce                                      the published results, side by side
  kalah serve                                          a web page and JSON API on 127.0.0.1:8080
  kalah play-line --idu --empty-capture 25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3";

#[derive(Parser, Debug)]
#[command(name = "kalah", version, about, long_about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Draw a position and list its legal moves.
    Show(ShowArgs),
    /// Replay a move line from the start (or --from a position) and print
    /// the final score.
    PlayLine(PlayLineArgs),
    /// Count move sequences and distinct positions per depth (move
    /// generator check).
    Perft(PerftArgs),
    /// Solve Kalah(m,n) from the start: value, best first turn, a perfect
    /// game (builds the endgame tables it needs first).
    Solve(SolveArgs),
    /// The exact value of a position, of each of its moves, and a perfect
    /// game (from the endgame tables, or by search outside them).
    Query(QueryArgs),
    /// Play a game in the terminal against perfect play.
    Play(PlayArgs),
    /// Review a game move by move: each move's value, the best, what it
    /// gave away; mistakes marked and summed for each side.
    Analyze(AnalyzeArgs),
    /// Solve the published instances and print them beside the published
    /// values; replay IDU's perfect games. Exit status 1 on any disagreement.
    /// The sources are cited in full in docs/REFERENCES.md.
    Reproduce(ReproduceArgs),
    /// Build endgame tables: every board with up to K seeds on the board.
    Build(BuildArgs),
    /// Check endgame tables: checksums, re-derivation, independent search.
    Verify(VerifyArgs),
    /// Opening books: `build` solves every position within a depth of a
    /// game's start and keeps the values beside the tables.
    Book(BookArgs),
    /// Where the endgame tables are, what is there and how big; `clean`
    /// removes them.
    Tables(TablesArgs),
    /// Serve the tables over HTTP: a JSON API and a web page to explore
    /// any position (127.0.0.1:8080 unless told otherwise).
    Serve(ServeArgs),
    /// Check a long solve's certificate: its logic in full, its perfect
    /// game, and a sample of the facts it rests on searched again. Exit
    /// status 1 on any disagreement, naming the unit.
    Certify(CertifyArgs),
}

fn main() -> ExitCode {
    // Help, version and usage errors are printed here rather than by clap's
    // `exit`, so that a failed write (`kalah --help >/dev/full`) is a failure.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            return match e.print() {
                Ok(()) => ExitCode::from(code as u8),
                Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
                    ExitCode::from(code as u8)
                }
                Err(_) => ExitCode::FAILURE,
            };
        }
    };
    kalah::interrupt::install();
    let result: Result<(), CliError> = match &cli.command {
        Command::Show(a) => show::show(a),
        Command::PlayLine(a) => play_line::play_line(a),
        Command::Perft(a) => perft::perft_command(a),
        Command::Solve(a) => solve::solve(a),
        Command::Query(a) => query::query(a),
        Command::Play(a) => play::play(a),
        Command::Analyze(a) => analyze::analyze(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Build(a) => build::build_command(a),
        Command::Verify(a) => verify::verify_command(a),
        Command::Book(a) => book::book_command(a),
        Command::Tables(a) => tables::tables_command(a),
        Command::Serve(a) => serve::serve(a),
        Command::Certify(a) => certify::certify(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.is_quiet() {
                // Not `eprintln!`, which panics when stderr cannot be
                // written: the exit status still tells what happened.
                let _ = writeln!(std::io::stderr(), "kalah: error: {e}");
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
