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
use crate::service::book::{self, BuildRequest, Built, DEFAULT_DEPTH};
use crate::service::setup;

/// What `kalah book --help` ends with.
const ABOUT_BOOK: &str = "An opening book holds the exact value of every board within --depth
plies (sowings) of a game's start, solved once, in a checksummed file beside
the endgame tables (kalah-m6-ec-n4.book: 6 houses, empty capture, 4 seeds).
`query`, `play`, `analyze`, `serve` and `query --batch` answer those
positions from it at once (\"source\": \"book\"); `play` and `analyze` build
the book of Kalah(6,3) on first need (minutes) and name the command for
Kalah(6,4) and (6,5) (hours on 2 cores). The file format is in docs/book.md.

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
    /// Solve every position within --depth plies of the start and write
    /// the book. Ctrl-C stops it; the boards solved are kept (in
    /// `<book>.partial`) and the same command goes on from them.
    Build(BuildBookArgs),
}

/// Arguments of `kalah book build`.
#[derive(Args, Debug)]
pub struct BuildBookArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Plies (sowings, an extra turn's included) from the start: every
    /// position within them is answered with every move's value. The
    /// boards to search grow about fivefold a ply (6 houses: 35, 185, 941,
    /// 4,671 at plies 2 to 5).
    #[arg(long, value_name = "D", default_value_t = DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(0..=40))]
    pub depth: u32,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What `kalah book build --json` prints.
#[derive(Serialize)]
struct BuiltJson {
    file: String,
    pits: usize,
    seeds: usize,
    rules: String,
    depth: u32,
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
    }
}

fn build(args: &BuildBookArgs) -> Result<(), CliError> {
    let size = args.game.size()?;
    let (pits, seeds) = (size.pits(), size.seeds());
    let rules = args.rules.rules();
    // Refused before any table is built for it.
    book::check_size(pits, seeds)?;
    let total = (2 * pits * seeds) as u32;
    let tables = prepare_tables(&args.tables.policy(), pits, rules, total, true)?;
    let dir = args.tables.dir();
    dir.ensure(true, &Stderr)?;
    let built = run_build(
        &args.tables,
        &args.search,
        pits,
        seeds,
        rules,
        args.depth,
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
                depth: args.depth,
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
        "opening book of Kalah({pits},{seeds}), {rules}: {} boards within {} plies, {} bytes, in {:.1} s ({} boards searched now, {} in all, {} nodes; tables up to {} seeds)",
        built.boards,
        args.depth,
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
    depth: u32,
    tables: Option<Arc<Tables>>,
) -> Result<Built, CliError> {
    let total = (2 * pits * seeds) as u32;
    let table_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    let req = BuildRequest {
        dir: tables_args.dir().path,
        pits,
        seeds,
        rules,
        depth,
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
                "no opening book of Kalah({pits},{seeds}) {} in {}: its first sowings are searched; `kalah book build --pits {pits} --seeds {seeds}{}` builds it once (hours on 2 cores: docs/book.md)",
                rules.slug(),
                dir.display(),
                if rules.capture == kalah_solver::CaptureRule::Empty { " --empty-capture" } else { "" }
            ));
            return Ok(None);
        }
        Ok(None) if !buildable => return Ok(None),
        Ok(None) => note(&format!(
            "no opening book of Kalah({pits},{seeds}) {} in {}: building it once ({DEFAULT_DEPTH} plies; Ctrl-C stops it and a rerun goes on; --no-book skips it)",
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
        DEFAULT_DEPTH,
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
