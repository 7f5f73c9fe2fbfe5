//! `kalah book build`: the opening book of a game, and the book `play` and
//! `analyze` open (or build on first need for Kalah(6,3)) beside
//! their tables.

use std::sync::Arc;

use clap::{Args, Subcommand};
use kalah_solver::book::Book;
use kalah_solver::table::Tables;
use kalah_solver::{Game, Probe};
use serde::Serialize;

use super::common::{CliError, GameArgs};
use crate::flags::{BookUse, RulesArgs, SearchArgs, TableArgs};
use crate::outln;
use crate::output::json_line;
use crate::progress::build::prepare_tables;
use crate::progress::{note, Stderr};
use crate::service::answer::round3;
use crate::service::book::{self, BuildRequest, Built, DEFAULT_TURNS};
use crate::service::setup;

/// What `kalah book --help` ends with.
const ABOUT_BOOK: &str = "An opening book holds the exact value of every board of a game's first
--turns turns (each player's first turn by default), solved once, in a
checksummed file beside the endgame tables (kalah-m6-ec-n4.book: 6 houses, empty capture, 4 seeds).
`query`, `play`, `analyze`, `serve` and `query --batch` answer those
positions from it at once (\"source\": \"book\"); `play` and `analyze` build
the book of Kalah(6,3) on first need (minutes) and name the command for
Kalah(6,4) and (6,5). Sizes, build times and the file format: docs/book.md.

Example:
  kalah book build --pits 6 --seeds 4 --empty-capture
  kalah query --empty-capture 4 4 4 4 4 4 0 4 4 4 4 4 4 0 S   # from: book";

/// Arguments of `kalah book`.
#[derive(Args, Debug)]
#[command(after_help = ABOUT_BOOK)]
pub struct BookArgs {
    #[command(subcommand)]
    pub action: BookAction,
}

/// What `kalah book` does.
#[derive(Subcommand, Debug)]
pub enum BookAction {
    /// Solve every position of the first --turns turns and write the
    /// book. Ctrl-C stops it; the boards solved are kept (in
    /// `<book>.partial`) and the same command goes on from them.
    Build(BuildBookArgs),
    /// Check a book (the table directory's, else the one shipped in
    /// books/): every position of its turns held with the value of its
    /// best move, and --sample entries solved again by a search that does
    /// not read it. A disagreement exits 1, naming the board.
    Verify(VerifyBookArgs),
}

/// The game a book is of, and the tables and search it is built or
/// checked with (both subcommands).
#[derive(Args, Debug)]
pub struct BookGame {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

impl BookGame {
    /// Houses, seeds a house, rules and seeds in all, the game's size
    /// refused before any table is built for it.
    fn resolve(&self) -> Result<(usize, usize, kalah_solver::Rules, u32), CliError> {
        let size = self.game.size()?;
        let (pits, seeds) = (size.pits(), size.seeds());
        book::check_size(pits, seeds)?;
        Ok((pits, seeds, self.rules.rules(), (2 * pits * seeds) as u32))
    }
}

/// Arguments of `kalah book build`.
#[derive(Args, Debug)]
pub struct BuildBookArgs {
    #[command(flatten)]
    pub book: BookGame,
    /// Turns from the start (a turn: one player's sowings until the move
    /// passes): every position within them is answered with every move's
    /// value, and those where the next turn starts are solved by search.
    /// The searches grow about tenfold a turn (6 houses, 4 seeds: 10, 116,
    /// 1,022 for 1 to 3 turns).
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TURNS,
          value_parser = clap::value_parser!(u32).range(0..=20))]
    pub turns: u32,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `kalah book verify`.
#[derive(Args, Debug)]
pub struct VerifyBookArgs {
    #[command(flatten)]
    pub book: BookGame,
    /// Entries to solve again by search, spread evenly over the book.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub sample: usize,
    /// Solve every entry again (hours for the books of Kalah(6,5)).
    #[arg(long, conflicts_with = "sample")]
    pub all: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What `kalah book verify --json` prints.
#[derive(Serialize)]
struct CheckedJson {
    file: String,
    pits: usize,
    seeds: usize,
    rules: String,
    turns: u32,
    entries: usize,
    inner: usize,
    frontier: usize,
    searched: usize,
    nodes: u64,
    table_seeds: Option<u32>,
    seconds: f64,
}

/// What `kalah book build --json` prints.
#[derive(Serialize)]
struct BuiltJson {
    file: String,
    pits: usize,
    seeds: usize,
    rules: String,
    turns: u32,
    boards: usize,
    bytes: u64,
    searched: usize,
    to_search: usize,
    nodes: u64,
    table_seeds: Option<u32>,
    seconds: f64,
}

/// `kalah book`.
pub fn book_command(args: &BookArgs) -> Result<(), CliError> {
    match &args.action {
        BookAction::Build(a) => build(a),
        BookAction::Verify(a) => verify(a),
    }
}

fn verify(args: &VerifyBookArgs) -> Result<(), CliError> {
    let (pits, seeds, rules, total) = args.book.resolve()?;
    let dir = args.book.tables.dir().path;
    let Some(found) = book::open(&dir, pits, rules, total)? else {
        return Err(CliError::Input(format!(
            "no opening book of Kalah({pits},{seeds}) {} in {} (or shipped in books/): `kalah book build` writes one",
            rules.slug(),
            dir.display()
        )));
    };
    let tables = prepare_tables(&args.book.tables.policy(), pits, rules, total, true)?;
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
    let config =
        args.book
            .search
            .config(setup::default_tt_mb(total, table_seeds.unwrap_or(0), true));
    let sample = (!args.all).then_some(args.sample);
    let checked = book::verify(&found, tables, config, sample, &Stderr)?;
    if args.json {
        return outln!(
            "{}",
            json_line(&CheckedJson {
                file: found.path().display().to_string(),
                pits,
                seeds,
                rules: rules.slug(),
                turns: found.turns(),
                entries: checked.entries,
                inner: checked.inner,
                frontier: checked.frontier,
                searched: checked.searched,
                nodes: checked.nodes,
                table_seeds,
                seconds: round3(checked.seconds),
            })
        );
    }
    outln!(
        "{}: correct: {} boards of the first {} turns agree with their moves, {} boards where the next starts held, {} of {} entries solved again alike ({} nodes, {:.1} s; tables up to {} seeds)",
        found.path().display(),
        checked.inner,
        found.turns(),
        checked.frontier,
        checked.searched,
        checked.entries,
        checked.nodes,
        checked.seconds,
        table_seeds.unwrap_or(0)
    )
}

fn build(args: &BuildBookArgs) -> Result<(), CliError> {
    let (pits, seeds, rules, total) = args.book.resolve()?;
    let tables = prepare_tables(&args.book.tables.policy(), pits, rules, total, true)?;
    let dir = args.book.tables.dir();
    dir.ensure(true, &Stderr)?;
    let built = run_build(
        &args.book.tables,
        &args.book.search,
        pits,
        seeds,
        rules,
        args.turns,
        tables.clone(),
    )?;
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
    if args.json {
        return outln!(
            "{}",
            json_line(&BuiltJson {
                file: built.path.display().to_string(),
                pits,
                seeds,
                rules: rules.slug(),
                turns: args.turns,
                boards: built.boards,
                bytes: built.bytes,
                searched: built.searched,
                to_search: built.to_search,
                nodes: built.nodes,
                table_seeds,
                seconds: round3(built.seconds),
            })
        );
    }
    outln!(
        "opening book of Kalah({pits},{seeds}), {rules}: {} boards for the first {} turns, {} bytes, in {:.1} s ({} boards searched now, {} in all, {} nodes; tables up to {} seeds)",
        built.boards,
        args.turns,
        built.bytes,
        built.seconds,
        built.searched,
        built.to_search,
        built.nodes,
        table_seeds.unwrap_or(0)
    )?;
    outln!("written to {}", built.path.display())
}

fn run_build(
    tables_args: &TableArgs,
    search: &SearchArgs,
    pits: usize,
    seeds: usize,
    rules: kalah_solver::Rules,
    turns: u32,
    tables: Option<Arc<Tables>>,
) -> Result<Built, CliError> {
    let total = (2 * pits * seeds) as u32;
    let table_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    let req = BuildRequest {
        dir: tables_args.dir().path,
        pits,
        seeds,
        rules,
        turns,
        config: search.config(setup::default_tt_mb(total, table_seeds, true)),
    };
    Ok(book::build(&req, tables, &Stderr)?)
}

/// The book of `game` whose start holds `total` seeds, for `play` and
/// `analyze`: the one in the table directory, else (for Kalah(6,3), with
/// tables, without `--no-book`: [`book::is_built_on_first_need`]) built
/// first with a message, as missing tables are; a damaged one is built
/// again, saying so. For Kalah(6,4) and (6,5) a missing book is named
/// with the command that builds it.
///
/// # Errors
/// A damaged book that is not rebuilt (naming the file), a build that
/// fails or is interrupted.
pub fn for_game(
    tables_args: &TableArgs,
    book_args: &BookUse,
    search: &SearchArgs,
    game: &Game,
    total: u32,
    tables: Option<Arc<Tables>>,
) -> Result<Option<Arc<Book>>, CliError> {
    if book_args.no_book {
        return Ok(None);
    }
    let pits = game.pits();
    let rules = game.rules();
    let dir = tables_args.dir().path;
    let Some(seeds) = book::game_seeds(pits, total) else {
        return Ok(None);
    };
    let buildable = book::is_built_on_first_need(pits, seeds) && !tables_args.no_tables;
    match book::open(&dir, pits, rules, total) {
        Ok(Some(b)) => return Ok(Some(b)),
        Ok(None) if book::is_default_game(pits, seeds) && !buildable => {
            note(&format!(
                "no opening book of Kalah({pits},{seeds}) {} in {}: its first turns are searched; `kalah book build --pits {pits} --seeds {seeds}{}` builds it once (minutes to hours: docs/book.md)",
                rules.slug(),
                dir.display(),
                if rules.capture == kalah_solver::CaptureRule::Empty { " --empty-capture" } else { "" }
            ));
            return Ok(None);
        }
        Ok(None) if !buildable => return Ok(None),
        Ok(None) => note(&format!(
            "no opening book of Kalah({pits},{seeds}) {} in {}: building it once ({DEFAULT_TURNS} turns; Ctrl-C stops it and a rerun goes on; --no-book skips it)",
            rules.slug(),
            dir.display()
        )),
        Err(e) if !buildable => return Err(e.into()),
        Err(e) => note(&format!("{e}: building it again")),
    }
    let built = run_build(
        tables_args,
        search,
        pits,
        seeds,
        rules,
        DEFAULT_TURNS,
        tables,
    )?;
    note(&format!(
        "opening book written: {} ({} boards, {:.1} s)",
        built.path.display(),
        built.boards,
        built.seconds
    ));
    Ok(book::open(&dir, pits, rules, total)?)
}
