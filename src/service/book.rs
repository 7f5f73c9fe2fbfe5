//! The opening book of a game: opened beside the tables, answered from
//! (with the tables under it, as one probe), and built: every board within
//! a depth of the start solved ([`kalah_solver::book`] has the file and
//! what it holds).
//!
//! A build records every value it finds at once in the book's progress
//! file (`<book>.partial`), so that Ctrl-C (or a crash) loses at most the
//! search under way: the same build, run again, goes on from the record.
//! The book itself is written under a temporary name, synced and renamed
//! into place at the end, so its final name only ever holds a complete,
//! checksummed file.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use kalah_solver::book::format::{self, Expect};
use kalah_solver::book::progress::{self, Progress};
use kalah_solver::book::{tree, Book, BookError, WithBook};
use kalah_solver::search::{AnalysisError, SearchConfig};
use kalah_solver::table::Tables;
use kalah_solver::{Board, Game, Position, Probe, Rules, Setup, Side};

use super::answer::{Answer, Detail, Source};
use super::position::{from_probe, inconsistent, Contradiction};
use super::setup::{new_solver, StopBy};
use super::{Error, Observer};

/// The default depth of a book, in plies (sowings) from the start: every
/// position of the first four sowings is answered with every move's value,
/// and the positions one sowing further by their value (docs/book.md,
/// "Depth", says why four and what it costs).
pub const DEFAULT_DEPTH: u32 = 4;

/// The games the page opens on and whose opening a book is for:
/// Kalah(6,3), (6,4) and (6,5).
pub fn is_default_game(pits: usize, seeds: usize) -> bool {
    pits == 6 && (3..=5).contains(&seeds)
}

/// Of the default games, those whose book `play` and `analyze` build on
/// first need, as they build missing tables: Kalah(6,3), a few minutes on
/// 2 cores (docs/book.md). The books of Kalah(6,4) and (6,5) take hours
/// there: the commands say how to build them (`kalah book build`) and go
/// on searching, rather than keep a player waiting.
pub fn is_built_on_first_need(pits: usize, seeds: usize) -> bool {
    is_default_game(pits, seeds) && seeds == 3
}

/// The seeds a house at the start of the game whose positions hold
/// `total_seeds` seeds on `pits` houses a side (stores included), when
/// there is such a game.
pub fn game_seeds(pits: usize, total_seeds: u32) -> Option<usize> {
    let total = total_seeds as usize;
    (pits > 0 && total > 0 && total.is_multiple_of(2 * pits)).then(|| total / (2 * pits))
}

/// The book of the game of `pits` houses and `total_seeds` seeds under
/// `rules` in `dir`, when there is one.
///
/// # Errors
/// A book file that is there but fails its checks (naming it): it is
/// refused, never read.
pub fn open(
    dir: &Path,
    pits: usize,
    rules: Rules,
    total_seeds: u32,
) -> Result<Option<Arc<Book>>, Error> {
    let Some(seeds) = game_seeds(pits, total_seeds) else {
        return Ok(None);
    };
    match Book::open(dir, pits, rules, seeds) {
        Ok(b) => Ok(Some(Arc::new(b))),
        Err(BookError::Missing { .. }) => Ok(None),
        Err(e) => Err(refused(&e)),
    }
}

/// The failure for a book that cannot be used.
pub fn refused(e: &BookError) -> Error {
    Error::Failure(format!(
        "{e}; remove it or build it again with `kalah book build` (a damaged book is never read)"
    ))
}

/// The answer for `pos` from `book` with the tables under it, with
/// `detail`: `Ok(None)` when the book (with the tables) does not hold the
/// position and each of its moves. Checked as a table answer is: the
/// position's value is the best of its moves', and a perfect game keeps
/// it (the perfect game follows the book's boards into the tables; when
/// it cannot, there is no book answer).
///
/// # Errors
/// A book and tables that contradict themselves at `pos`.
pub fn answer(
    book: &Book,
    tables: Option<&Tables>,
    game: &Game,
    pos: &Position,
    detail: Detail,
) -> Result<Option<Answer>, Error> {
    if book.pits() != pos.pits() || book.rules() != game.rules() {
        return Ok(None);
    }
    let probe = WithBook {
        book,
        tables: tables.map(|t| t as &dyn Probe),
    };
    from_probe(&probe, game, pos, detail, Source::Book).map_err(|Contradiction| match tables {
        Some(t) if pos.board().seeds() <= t.max_seeds() => inconsistent(t, pos),
        _ => Error::Failure(format!(
            "opening book {} contradicts itself at {pos}: the file was changed after it was checked; build it again with `kalah book build`",
            book.path().display()
        )),
    })
}

/// Refuses a game a book cannot hold: more than 127 seeds in all (a value
/// is one signed byte).
///
/// # Errors
/// [`Error::Input`] naming the game.
pub fn check_size(pits: usize, seeds: usize) -> Result<(), Error> {
    if 2 * pits * seeds > i8::MAX as usize {
        return Err(Error::Input(format!(
            "Kalah({pits},{seeds}): {} seeds; a book holds games of at most {} seeds (a value is one signed byte)",
            2 * pits * seeds,
            i8::MAX
        )));
    }
    Ok(())
}

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildRequest {
    /// The directory of the tables, where the book goes.
    pub dir: PathBuf,
    pub pits: usize,
    pub seeds: usize,
    pub rules: Rules,
    /// Plies from the start.
    pub depth: u32,
    /// The search's configuration (threads, transposition table).
    pub config: SearchConfig,
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct Built {
    pub path: PathBuf,
    /// Boards in the book.
    pub boards: usize,
    /// Bytes of the file.
    pub bytes: u64,
    /// Boards solved by search in this run, and in all (earlier runs'
    /// records included).
    pub searched: usize,
    pub to_search: usize,
    pub nodes: u64,
    pub seconds: f64,
}

/// A position whose board is `board`, South to move, stores empty: its
/// value is the board's.
fn position_of(pits: usize, board: Board) -> Result<Position, Error> {
    let setup = Setup {
        south: (0..pits).map(|i| u32::from(board.own_house(i))).collect(),
        north: (0..pits).map(|i| u32::from(board.opp_house(i))).collect(),
        stores: [0, 0],
        to_move: Side::South,
    };
    setup
        .validate()
        .map_err(|e| Error::Failure(format!("book: board {board:?}: {e}")))
}

/// Whether a board's value is worth keeping: on the board, outside the
/// tables (they answer it), game not over.
fn keep(game: &Game, tables: Option<&Tables>, board: Board) -> bool {
    game.terminal_value(board).is_none() && tables.is_none_or(|t| board.seeds() > t.max_seeds())
}

/// Builds the book `req` asks for over `tables` (those `play` and `solve`
/// use for the game), resuming from its progress record, and writes it.
/// A book file already there is replaced (a damaged one included).
///
/// # Errors
/// Ctrl-C (what was solved is kept for the next run), a search that
/// fails, a file that cannot be written.
pub fn build(
    req: &BuildRequest,
    tables: Option<Arc<Tables>>,
    observer: &dyn Observer,
) -> Result<Built, Error> {
    let started = Instant::now();
    let game = Game::new(req.pits, req.rules);
    let start = Position::start(req.pits, req.seeds)
        .map_err(|e| Error::Input(format!("Kalah({},{}): {e}", req.pits, req.seeds)))?;
    check_size(req.pits, req.seeds)?;
    if req.depth > u32::from(u8::MAX) {
        return Err(Error::Input(format!(
            "--depth {}: at most {} plies",
            req.depth,
            u8::MAX
        )));
    }
    let path = req
        .dir
        .join(format::file_name(req.pits, req.rules, req.seeds));
    let partial = progress::path_of(&path);
    let (mut record, kept) = Progress::open(&partial, req.pits, req.rules)
        .map_err(|e| Error::Failure(format!("book progress: {e}")))?;
    let mut known: HashMap<u128, i8> = kept.into_iter().collect();
    let t = tables.as_deref();
    let opening = tree::opening(&game, start.board(), req.depth);
    let frontier: Vec<Board> = opening
        .iter()
        .filter(|&&(b, d)| d == req.depth && keep(&game, t, b))
        .map(|&(b, _)| b)
        .collect();
    let to_search = frontier.len();
    let todo: Vec<Board> = frontier
        .iter()
        .copied()
        .filter(|b| !known.contains_key(&b.packed()))
        .collect();
    let mut searched = 0;
    let mut nodes = 0;
    if !todo.is_empty() {
        observer.note(&format!(
            "opening book of Kalah({},{}) {}: {} boards within {} plies, {} to solve by search ({} solved before, kept in {})",
            req.pits,
            req.seeds,
            req.rules.slug(),
            opening.len(),
            req.depth,
            todo.len(),
            to_search - todo.len(),
            partial.display()
        ));
        let solver = new_solver(
            game.clone(),
            req.config.clone(),
            tables.clone(),
            StopBy::Interrupt,
        )?;
        let mut failure = None;
        let label = format!("book: {} boards", todo.len());
        observer.search(&label, &|| solver.stats().nodes, &mut || {
            for &board in &todo {
                let found = solve_frontier(&solver, &game, t, board);
                match found.and_then(|values| {
                    record
                        .append(&values)
                        .map_err(|e| Error::Failure(format!("book progress: {e}")))
                        .map(|()| values)
                }) {
                    Ok(values) => {
                        known.extend(values);
                        searched += 1;
                    }
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            }
        });
        nodes = solver.stats().nodes;
        if let Some(e) = failure {
            // A search stopped by Ctrl-C: say what is kept and how to go on.
            if crate::interrupt::requested() {
                return Err(interrupted(searched, &todo, &partial));
            }
            return Err(e);
        }
        if searched < todo.len() {
            return Err(interrupted(searched, &todo, &partial));
        }
    }
    // The inner boards, from their children's values.
    let inner: HashSet<u128> = opening
        .iter()
        .filter(|&&(_, d)| d < req.depth)
        .map(|(b, _)| b.packed())
        .collect();
    for &(board, d) in opening.iter().rev() {
        if d < req.depth && keep(&game, t, board) {
            inner_value(&game, t, board, &inner, &mut known)?;
        }
    }
    let mut entries: Vec<(u128, i8)> = known
        .into_iter()
        .filter(|&(b, _)| keep(&game, t, Board::from_packed(b)))
        .collect();
    entries.sort_unstable_by_key(|&(b, _)| b);
    let expect = Expect {
        pits: req.pits,
        rules: req.rules,
        seeds: req.seeds,
    };
    let image = format::encode(&expect, req.depth, &entries);
    write_atomic(&path, &image)?;
    let _ = fs::remove_file(record.path());
    Ok(Built {
        path,
        boards: entries.len(),
        bytes: image.len() as u64,
        searched,
        to_search,
        nodes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn interrupted(done: usize, todo: &[Board], partial: &Path) -> Error {
    Error::Failure(format!(
        "interrupted: {done} of {} boards solved and kept in {}; run the same command again to go on",
        todo.len(),
        partial.display()
    ))
}

/// Solves `board` (a board at the book's depth): its value, its
/// children's, and those of the boards along a perfect game from it until
/// the tables; the board itself last, so that a record that holds it holds
/// the rest (a torn write loses a suffix).
fn solve_frontier(
    solver: &kalah_solver::Solver,
    game: &Game,
    tables: Option<&Tables>,
    board: Board,
) -> Result<Vec<(u128, i8)>, Error> {
    let pos = position_of(game.pits(), board)?;
    let a = solver.analyse(&pos).map_err(|e| match e {
        AnalysisError::Interrupted => Error::Failure("interrupted".into()),
        e => Error::Failure(e.to_string()),
    })?;
    let mut out = Vec::new();
    let mut push = |p: &Position, value_for_mover: i32| {
        let b = p.board();
        if keep(game, tables, b) {
            out.push((b.packed(), to_i8(value_for_mover - p.store_difference())));
        }
    };
    for m in &a.moves {
        let mut next = pos;
        if next.play(game, m.house).is_ok() {
            push(&next, if m.extra_turn { m.value } else { -m.value });
        }
    }
    for step in &a.pv {
        let v = if step.position.to_move() == pos.to_move() {
            a.value
        } else {
            -a.value
        };
        push(&step.position, v);
    }
    out.push((board.packed(), to_i8(a.value)));
    Ok(out)
}

/// A board value as the book stores it. A value is at most the seeds on
/// the board; [`build`] refuses games of more than 127 seeds, so every
/// value fits.
fn to_i8(v: i32) -> i8 {
    i8::try_from(v).unwrap_or(if v < 0 { i8::MIN } else { i8::MAX })
}

/// The value of the inner board `board` from its children's (each known,
/// in the tables, finished, or itself one of the `inner` boards: computed
/// first), put into `known`.
fn inner_value(
    game: &Game,
    tables: Option<&Tables>,
    board: Board,
    inner: &HashSet<u128>,
    known: &mut HashMap<u128, i8>,
) -> Result<i32, Error> {
    if let Some(&v) = known.get(&board.packed()) {
        return Ok(i32::from(v));
    }
    let mut stack = vec![board];
    while let Some(&b) = stack.last() {
        let mut missing = None;
        let v = tree::from_children(game, b, |c| {
            if let Some(t) = tables.filter(|t| c.seeds() <= t.max_seeds()) {
                return t.probe(c);
            }
            let v = known.get(&c.packed()).map(|&v| i32::from(v));
            if v.is_none() {
                missing = Some(c);
            }
            v
        });
        match (v, missing) {
            (Some(v), _) => {
                known.insert(b.packed(), to_i8(v));
                stack.pop();
            }
            (None, Some(c)) if inner.contains(&c.packed()) => stack.push(c),
            _ => {
                return Err(Error::Failure(format!(
                    "book: the value of board {b:?} cannot be derived (a table tier unreadable?)"
                )))
            }
        }
    }
    Ok(i32::from(known[&board.packed()]))
}

/// Writes `image` to `path` under a temporary name of this writer's own,
/// synced, renamed into place, the directory synced.
fn write_atomic(path: &Path, image: &[u8]) -> Result<(), Error> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let fail = |op: &str, e: std::io::Error| {
        let _ = fs::remove_file(&tmp);
        Error::Failure(format!("{}: cannot {op}: {e}", path.display()))
    };
    let mut f = File::options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(|e| fail("create", e))?;
    f.write_all(image)
        .and_then(|()| f.sync_all())
        .map_err(|e| fail("write", e))?;
    fs::rename(&tmp, path).map_err(|e| fail("rename into place", e))?;
    if let Some(parent) = path.parent() {
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The books present for one board size and rule set: one a game (seeds a
/// house), found by the file names [`format::file_name`] gives.
#[derive(Clone, Default)]
pub struct Books(Vec<Arc<Book>>);

impl Books {
    /// Opens and checks every book of `pits` houses and `rules` in `dir`
    /// (none with `policy.no_book`).
    ///
    /// # Errors
    /// A book file that fails its checks (naming it): refused, never read.
    pub fn open_all(
        policy: &super::setup::TablePolicy,
        pits: usize,
        rules: Rules,
    ) -> Result<Books, Error> {
        let mut out = Vec::new();
        if policy.no_book {
            return Ok(Books(out));
        }
        for seeds in 1..=(i8::MAX as usize / (2 * pits)) {
            if !policy
                .dir
                .path
                .join(format::file_name(pits, rules, seeds))
                .exists()
            {
                continue;
            }
            match Book::open(&policy.dir.path, pits, rules, seeds) {
                Ok(b) => out.push(Arc::new(b)),
                Err(BookError::Missing { .. }) => {}
                Err(e) => return Err(refused(&e)),
            }
        }
        Ok(Books(out))
    }

    /// The book of the game whose positions hold `total_seeds` seeds.
    pub fn get(&self, total_seeds: u32) -> Option<&Book> {
        let seeds = game_seeds(self.0.first()?.pits(), total_seeds)?;
        self.0.iter().find(|b| b.seeds() == seeds).map(|b| &**b)
    }

    /// Every book: (seeds a house, boards, depth).
    pub fn list(&self) -> impl Iterator<Item = &Book> {
        self.0.iter().map(|b| &**b)
    }
}
