//! The opening book of a game: opened beside the tables, answered from
//! (with the tables under it, as one probe), and built: every board of the
//! game's first turns solved ([`kalah_solver::book`] has the file and
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

/// The default turns a book covers: each player's first turn (every
/// sowing of it, extra turns included), each position of them answered
/// with every move's value, and the positions where the third turn starts
/// by their value (docs/book.md, "Turns", says why two and what it costs).
pub const DEFAULT_TURNS: u32 = 2;

/// The games the page opens on and whose opening a book is for:
/// Kalah(6,3), (6,4) and (6,5).
pub fn is_default_game(pits: usize, seeds: usize) -> bool {
    pits == 6 && (3..=5).contains(&seeds)
}

/// Of the default games, those whose book `play` and `analyze` build on
/// first need (when neither the table directory nor books/ has one), as
/// they build missing tables: Kalah(6,3), seconds on 2 cores
/// (docs/book.md). The books of Kalah(6,4) and (6,5) take minutes to
/// hours there: the commands say how to build them (`kalah book build`)
/// and go on searching, rather than keep a player waiting.
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

/// The books shipped with the source tree: `books/` beside its
/// `Cargo.toml`, each built by `kalah book build` (books/README.md gives
/// the command, the tables and the cost of each). A table directory's own
/// book of a game comes first; a shipped one serves where it has none.
const SHIPPED_BOOKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books");

/// The directory that holds the book of Kalah(`pits`,`seeds`) under
/// `rules` for the table directory `dir`: `dir` itself, else the shipped
/// books; `None` when neither has the file.
fn locate(dir: &Path, pits: usize, rules: Rules, seeds: usize) -> Option<PathBuf> {
    let name = format::file_name(pits, rules, seeds);
    [dir, Path::new(SHIPPED_BOOKS)]
        .into_iter()
        .find(|d| d.join(&name).is_file())
        .map(Path::to_path_buf)
}

/// The book of the game of `pits` houses and `total_seeds` seeds under
/// `rules` for the table directory `dir` (its own, else a shipped one),
/// when there is one.
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
    let Some(found) = locate(dir, pits, rules, seeds) else {
        return Ok(None);
    };
    match Book::open(&found, pits, rules, seeds) {
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
    /// Turns from the start.
    pub turns: u32,
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

/// Which boards a book keeps: those on the board, game not over, with more
/// seeds than `floor`. The floor is the table depth the game's positions
/// are answered over by default ([`super::setup::default_table_seeds`]),
/// or the build's tables where those are shallower, so that a book built
/// over deep tables still holds every board a server over the default
/// tables needs (a perfect game followed down to them).
#[derive(Clone, Copy, Debug)]
struct Keep {
    floor: u32,
}

impl Keep {
    fn new(pits: usize, total_seeds: u32, tables: Option<&Tables>) -> Keep {
        let default = super::setup::default_table_seeds(pits, total_seeds);
        Keep {
            floor: tables.map_or(0, |t| t.max_seeds().min(default)),
        }
    }

    fn keeps(self, game: &Game, board: Board) -> bool {
        game.terminal_value(board).is_none() && board.seeds() > self.floor
    }
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
    if req.turns > u32::from(u8::MAX) {
        return Err(Error::Input(format!(
            "--turns {}: at most {}",
            req.turns,
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
    let keep = Keep::new(req.pits, start.total_seeds(), t);
    let opening = tree::opening_turns(&game, start.board(), req.turns);
    let frontier: Vec<Board> = opening
        .frontier
        .iter()
        .copied()
        .filter(|&b| keep.keeps(&game, b))
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
            "opening book of Kalah({},{}) {}: {} boards within {} turns, {} where the next starts to solve by search ({} solved before, kept in {})",
            req.pits,
            req.seeds,
            req.rules.slug(),
            opening.inner.len(),
            req.turns,
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
                let found = solve_frontier(&solver, &game, keep, board);
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
    let inner: HashSet<u128> = opening.inner.iter().map(|b| b.packed()).collect();
    for &board in opening.inner.iter().rev() {
        if keep.keeps(&game, board) {
            inner_value(&game, t, board, &inner, &mut known)?;
        }
    }
    let mut entries: Vec<(u128, i8)> = known
        .into_iter()
        .filter(|&(b, _)| keep.keeps(&game, Board::from_packed(b)))
        .collect();
    entries.sort_unstable_by_key(|&(b, _)| b);
    let expect = Expect {
        pits: req.pits,
        rules: req.rules,
        seeds: req.seeds,
    };
    let image = format::encode(&expect, req.turns, &entries);
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

/// Solves `board` (one where a turn after the book's starts): its value
/// and those of the boards along a perfect game from it, down to the
/// floor of `keep`; the board itself last, so that a record that holds it
/// holds the rest (a torn write loses a suffix).
fn solve_frontier(
    solver: &kalah_solver::Solver,
    game: &Game,
    keep: Keep,
    board: Board,
) -> Result<Vec<(u128, i8)>, Error> {
    let pos = position_of(game.pits(), board)?;
    let line = solver.solve_line(&pos).map_err(|e| match e {
        AnalysisError::Interrupted => Error::Failure("interrupted".into()),
        e => Error::Failure(e.to_string()),
    })?;
    let mut out = Vec::new();
    for step in &line.pv {
        let p = &step.position;
        let for_mover = if p.to_move() == pos.to_move() {
            line.value
        } else {
            -line.value
        };
        if keep.keeps(game, p.board()) {
            out.push((p.board().packed(), to_i8(for_mover - p.store_difference())));
        }
    }
    out.push((board.packed(), to_i8(line.value)));
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

/// What a check of a book found (all of it agreed: a disagreement is an
/// error).
#[derive(Clone, Debug)]
pub struct Checked {
    /// Boards within the book's turns whose value was checked against
    /// their children's, and frontier boards found.
    pub inner: usize,
    pub frontier: usize,
    /// Entries solved again by search, of the book's.
    pub searched: usize,
    pub entries: usize,
    pub nodes: u64,
    pub seconds: f64,
}

/// Checks `book` over `tables`: every board within its turns is held (by
/// the book or the tables) with the value of the best of its moves, every
/// board where the next turn starts is held, and `sample` entries (spread
/// evenly over the file; all with `None`) are solved again by a search
/// that does not read the book.
///
/// # Errors
/// The first board missing or whose value disagrees (naming it and both
/// values), Ctrl-C, a search that fails.
pub fn verify(
    book: &Book,
    tables: Option<Arc<Tables>>,
    config: SearchConfig,
    sample: Option<usize>,
    observer: &dyn Observer,
) -> Result<Checked, Error> {
    let started = Instant::now();
    let game = Game::new(book.pits(), book.rules());
    let start = Position::start(book.pits(), book.seeds())
        .map_err(|e| Error::Input(format!("{}: {e}", book.path().display())))?;
    let probe = WithBook {
        book,
        tables: tables.as_deref().map(|t| t as &dyn Probe),
    };
    let name = book.path().display();
    let opening = tree::opening_turns(&game, start.board(), book.turns());
    for &board in &opening.inner {
        let held = probe.probe(board);
        let best = tree::from_children(&game, board, |c| probe.probe(c));
        match (held, best) {
            (Some(v), Some(b)) if v == b => {}
            (Some(v), Some(b)) => {
                return Err(Error::Failure(format!(
                    "{name}: board {board:?} holds {v}, the best of its moves gives {b}"
                )))
            }
            _ => {
                return Err(Error::Failure(format!(
                    "{name}: board {board:?} (within the first {} turns) or one of its moves is missing",
                    book.turns()
                )))
            }
        }
    }
    if let Some(b) = opening.frontier.iter().find(|&&b| probe.probe(b).is_none()) {
        return Err(Error::Failure(format!(
            "{name}: board {b:?}, where turn {} starts, is missing",
            book.turns() + 1
        )));
    }
    let entries: Vec<(Board, i32)> = book.entries().collect();
    let chosen: Vec<(Board, i32)> = match sample {
        None => entries.clone(),
        Some(n) if n < entries.len() => (0..n).map(|i| entries[i * entries.len() / n]).collect(),
        Some(_) => entries.clone(),
    };
    let solver = new_solver(game.clone(), config, tables, StopBy::Interrupt)?;
    let mut failure = None;
    let label = format!("book check: {} entries", chosen.len());
    observer.search(&label, &|| solver.stats().nodes, &mut || {
        for &(board, held) in &chosen {
            match solver.solve_board(board) {
                Ok(v) if v == held => {}
                Ok(v) => {
                    failure = Some(Error::Failure(format!(
                        "{name}: board {board:?} holds {held}, a search gives {v}"
                    )));
                    return;
                }
                Err(_) => {
                    failure = Some(Error::Failure(
                        "interrupted: the book's entries were not all checked".into(),
                    ));
                    return;
                }
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(Checked {
        inner: opening.inner.len(),
        frontier: opening.frontier.len(),
        searched: chosen.len(),
        entries: entries.len(),
        nodes: solver.stats().nodes,
        seconds: started.elapsed().as_secs_f64(),
    })
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
    /// Opens and checks every book of `pits` houses and `rules` for the
    /// policy's table directory, its own or shipped (none with
    /// `policy.no_book`).
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
            let Some(found) = locate(&policy.dir.path, pits, rules, seeds) else {
                continue;
            };
            match Book::open(&found, pits, rules, seeds) {
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

    /// Every book.
    pub fn list(&self) -> impl Iterator<Item = &Book> {
        self.0.iter().map(|b| &**b)
    }
}
