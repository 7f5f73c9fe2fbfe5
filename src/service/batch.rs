//! A batch: a file (or standard input) of positions answered one JSON line
//! each, in input order, bad lines answered by error lines (`query
//! --batch`, and any front end that answers a stream).
//!
//! Reading, answering and writing overlap: a reader thread hands over
//! chunks of lines (see `lines`: as many as are ready, so a client
//! that sends one line and waits gets its answer at once), this thread
//! answers them, a writer thread prints and flushes them in order. Inside a
//! chunk, one parallel pass answers the lines inside the tables straight
//! into output buffers; the lines it leaves (bad lines, the first position
//! of a board size, searches) are then answered here, in order, and put in
//! their places.
//!
//! A signal (Ctrl-C, SIGTERM) stops the batch within a search's next look
//! at its stop flag: every answer before the line being searched is
//! written, in order, nothing after it, and the summary says it was
//! interrupted. A failed write ends it with that error.

mod lines;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use kalah_solver::query;
use kalah_solver::search::Solver;
use kalah_solver::table::Tables;
use kalah_solver::{Game, Position, Rules};
use rayon::prelude::*;

pub use self::lines::Readiness;
use self::lines::{Chunk, Line, LineReader, MAX_LINE};
use super::answer::{
    write_json, AnswerLine, Best, Detail, ErrorLine, Millis, Moves, PositionText, Source,
};
use super::book::Books;
use super::fast_line::{write_table_line, LineBuf};
use super::position::{
    finished, from_tables, over_limit, query_solver, search_within, Budget, Stopped, WATCH_TICK,
};
use super::setup::{open_present, TablePolicy};
use super::{Error, Observer};

/// What a batch answers with.
#[derive(Clone, Debug)]
pub struct BatchConfig {
    /// The tables present are used (none is built).
    pub tables: TablePolicy,
    pub rules: Rules,
    /// Each search's solver configuration and time limit.
    pub budget: Budget,
    /// Give each answer's principal variation.
    pub pv: bool,
    /// Give each position's value alone, not every move's (`--value-only`):
    /// a search solves the position only.
    pub value_only: bool,
}

impl BatchConfig {
    /// What each answer holds.
    pub fn detail(&self) -> Detail {
        Detail {
            moves: !self.value_only,
            pv: self.pv,
        }
    }
}

/// Where a batch's lines come from.
pub struct Input {
    reader: Box<dyn BufRead + Send>,
    /// Whether reading can wait, so that a chunk ends where the lines
    /// ready end.
    readiness: Readiness,
    /// What the input is called in messages.
    name: String,
}

impl Input {
    /// Standard input. Reads of the whole buffer go to the file descriptor
    /// directly (standard input's own buffer stays empty), so that an empty
    /// buffer here means nothing is waiting but what `poll` sees.
    pub fn stdin() -> Input {
        Input {
            reader: Box::new(BufReader::with_capacity(1 << 20, io::stdin())),
            readiness: Readiness::Stdin,
            name: "standard input".to_string(),
        }
    }

    /// Any reader (a socket, a request body), called `name` in messages;
    /// `readiness` says whether a read may wait for more.
    pub fn reader(reader: Box<dyn BufRead + Send>, readiness: Readiness, name: &str) -> Input {
        Input {
            reader,
            readiness,
            name: name.to_string(),
        }
    }

    /// A file.
    ///
    /// # Errors
    /// When it cannot be opened (an input error naming it).
    pub fn file(path: &Path) -> Result<Input, Error> {
        let f = File::open(path)
            .map_err(|e| Error::Input(format!("cannot read batch file {}: {e}", path.display())))?;
        Ok(Input {
            reader: Box::new(BufReader::with_capacity(1 << 20, f)),
            readiness: Readiness::Always,
            name: path.display().to_string(),
        })
    }
}

/// How a batch ended, besides reaching the end of its input.
#[derive(Debug)]
pub enum End {
    Finished,
    /// A signal stopped it: every answer before the line being searched is
    /// written, in order, nothing after it.
    Interrupted,
    /// Reading the input failed, or a search or solver failed.
    Failed(Error),
}

/// What a batch did.
#[derive(Debug)]
pub struct Summary {
    /// Positions answered (error lines not counted).
    pub answered: u64,
    /// Bad lines, each answered by an error line.
    pub bad: u64,
    /// Searches stopped by the time limit, each answered by an error line.
    pub over_limit: u64,
    pub seconds: f64,
    pub end: End,
}

/// One input line's outcome, for the lines the parallel pass could not
/// answer alone.
enum Outcome {
    Done(Vec<u8>),
    /// The first position of a board size: its game is not set up yet.
    NeedsSetup(usize),
    NeedsSearch(Position),
    Bad(String),
    /// The tables cannot be trusted: the batch stops.
    Failed(String),
}

/// The game of one board size and its tables, once a line of that size
/// has been read.
type GameSlot = Option<GameSetup>;

/// A board size's game, its tables and its rules' name.
#[derive(Clone)]
struct GameSetup {
    game: Game,
    tables: Option<Arc<Tables>>,
    /// The opening books of this board size (one a game).
    books: Books,
    /// [`Rules::slug`], written on every answer line.
    rules: String,
}

/// Lines one parallel task answers into one output buffer.
const BATCH_PART: usize = 1 << 10;

/// The position on a batch line, as `line.trim().parse()` reads it, or
/// `None` for a bad line; the usual form without allocating.
fn parse_line(line: &[u8]) -> Option<Position> {
    Position::parse_common(line).or_else(|| {
        std::str::from_utf8(line)
            .ok()
            .and_then(|t| t.trim().parse::<Position>().ok())
    })
}

/// The JSON error line of input line `n` (no newline).
fn error_line(n: u64, msg: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + 32);
    write_json(
        &mut out,
        &ErrorLine {
            line: n,
            error: msg,
        },
    );
    out
}

/// Answers one line without allocating when it is a position inside the
/// tables or a finished game (the usual case), appending its JSON line to
/// `out`. `false` (nothing written) for every other line: bad lines, board
/// sizes not set up yet, positions for the search. `scratch` holds a line
/// while it is written.
fn write_answer_line(
    games: &[GameSlot],
    line: &[u8],
    detail: Detail,
    out: &mut Vec<u8>,
    scratch: &mut LineBuf,
) -> bool {
    let Some((pos, canonical)) =
        Position::parse_common_form(line).or_else(|| parse_line(line).map(|p| (p, false)))
    else {
        return false;
    };
    let Some(slot) = &games[pos.pits()] else {
        return false;
    };
    let game = &slot.game;
    match slot.tables.as_deref() {
        Some(tables) if !detail.pv => {
            let t = Instant::now();
            // An inconsistent answer takes the slow path, which refuses it.
            let Some(a) = query::answer_fixed(tables, game, &pos).filter(|a| a.consistent()) else {
                return false;
            };
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if a.over {
                // A finished game: `finished` sees the same end of the game.
                let Some(a) = finished(game, &pos) else {
                    return false;
                };
                let line = a.line(&slot.rules, None);
                if !write_table_line(out, &line, scratch) {
                    write_json(out, &line);
                }
            } else {
                // The usual form is ASCII: the line itself is the position.
                let given = canonical.then_some(line);
                let line = AnswerLine {
                    position: given.map_or(PositionText::Position(&pos), PositionText::Given),
                    to_move: pos.to_move().letter(),
                    rules: &slot.rules,
                    value: a.value,
                    result: super::answer::Outcome::of(a.value),
                    moves: detail.moves.then_some(Moves(a.moves())),
                    best: detail.moves.then_some(Best::Of(a.moves(), a.value)),
                    pv: None,
                    source: Source::Table,
                    nodes: 0,
                    ms: Millis(ms),
                    note: None,
                };
                if !write_table_line(out, &line, scratch) {
                    write_json(out, &line);
                }
            }
        }
        tables => {
            if let Some(a) = finished(game, &pos) {
                a.write(out, &slot.rules, None);
            } else {
                let Some(Ok(Some(a))) = tables.map(|t| from_tables(t, game, &pos, detail)) else {
                    return false;
                };
                a.write(out, &slot.rules, None);
            }
        }
    }
    out.push(b'\n');
    true
}

/// `line` answered as far as it can be without setting up its board size
/// or searching.
fn answer_line(games: &[GameSlot], chunk: &Chunk, line: &Line, detail: Detail) -> Outcome {
    let n = line.number;
    if line.too_long {
        return Outcome::Bad(format!(
            "line {n}: longer than {MAX_LINE} bytes (a position takes under 100): skipped"
        ));
    }
    let text = match std::str::from_utf8(chunk.bytes(line)) {
        Ok(t) => t,
        Err(e) => {
            return Outcome::Bad(format!(
                "line {n}: not UTF-8 text (byte {} is not part of a UTF-8 character)",
                e.valid_up_to() + 1
            ))
        }
    };
    let pos = match text.trim().parse::<Position>() {
        Ok(p) => p,
        Err(e) => return Outcome::Bad(format!("line {n}: {e}")),
    };
    let Some(slot) = &games[pos.pits()] else {
        return Outcome::NeedsSetup(pos.pits());
    };
    let game = &slot.game;
    let answer = match finished(game, &pos) {
        Some(a) => Some(a),
        None => match slot
            .tables
            .as_deref()
            .map(|t| from_tables(t, game, &pos, detail))
        {
            Some(Ok(a)) => a,
            Some(Err(e)) => return Outcome::Failed(format!("line {n}: {e}")),
            None => None,
        },
    };
    let answer = match (answer, slot.books.get(pos.total_seeds())) {
        (None, Some(book)) => {
            match super::book::answer(book, slot.tables.as_deref(), game, &pos, detail) {
                Ok(a) => a,
                Err(e) => return Outcome::Failed(format!("line {n}: {e}")),
            }
        }
        (a, _) => a,
    };
    match answer {
        Some(a) => {
            let mut out = Vec::with_capacity(320);
            a.write(&mut out, &slot.rules, None);
            Outcome::Done(out)
        }
        None => Outcome::NeedsSearch(pos),
    }
}

/// Output buffers, reused from chunk to chunk.
type BufferPool = Arc<Mutex<Vec<Vec<u8>>>>;

fn take_buffer(pool: &BufferPool) -> Vec<u8> {
    let reused = pool.lock().ok().and_then(|mut p| p.pop());
    reused.unwrap_or_else(|| Vec::with_capacity(BATCH_PART * 320))
}

/// The answers of `BATCH_PART` lines: the JSON lines written in parallel,
/// and where the lines they left (with their index in the chunk) go.
struct Part {
    /// The index of its first line in the chunk.
    first: usize,
    out: Vec<u8>,
    holes: Vec<(usize, usize)>,
}

/// What a batch has done so far, and what it set up on the way.
struct Batch<'a> {
    config: &'a BatchConfig,
    observer: &'a dyn Observer,
    games: Vec<GameSlot>,
    solvers: Vec<Option<Solver>>,
    answered: u64,
    bad: u64,
    over_limit: u64,
}

impl Batch<'_> {
    /// Sets up the game of `pits` houses and its tables, saying at once
    /// when the tables are missing.
    ///
    /// # Errors
    /// Tables that cannot be used (see [`open_present`]).
    fn set_up(&mut self, pits: usize) -> Result<(), Error> {
        let slot = &mut self.games[pits];
        if slot.is_none() {
            let rules = self.config.rules;
            let (tables, note) = open_present(&self.config.tables, pits, rules, true)?;
            if let Some(n) = note {
                self.observer.note(&n);
            }
            let books = Books::open_all(&self.config.tables, pits, rules)?;
            *slot = Some(GameSetup {
                game: Game::new(pits, rules),
                tables,
                books,
                rules: rules.slug(),
            });
        }
        Ok(())
    }

    /// The JSON line (no newline) of a line the parallel pass left, or
    /// `None` when a signal stopped the batch before its answer.
    ///
    /// # Errors
    /// When a solver cannot be built.
    fn answer_left(&mut self, chunk: &Chunk, line: &Line) -> Result<Option<Vec<u8>>, Error> {
        let n = line.number;
        let detail = self.config.detail();
        let mut outcome = answer_line(&self.games, chunk, line, detail);
        if let Outcome::NeedsSetup(pits) = outcome {
            // Set up by the chunk's first pass; done here too for safety.
            self.set_up(pits)?;
            outcome = answer_line(&self.games, chunk, line, detail);
        }
        Ok(Some(match outcome {
            Outcome::Done(s) => {
                self.answered += 1;
                s
            }
            Outcome::NeedsSearch(pos) => {
                let pits = pos.pits();
                let solver = match &mut self.solvers[pits] {
                    Some(solver) => solver,
                    slot => {
                        let Some(setup) = self.games[pits].clone() else {
                            return Err(Error::Failure(format!(
                                "line {n}: no game set up for {pits} houses"
                            )));
                        };
                        let config = self.config.budget.config.clone();
                        slot.insert(query_solver(setup.game, config, setup.tables)?)
                    }
                };
                let label = format!("line {n}: searching");
                let limit = self.config.budget.time_limit;
                match search_within(solver, &pos, detail, limit, &label, self.observer) {
                    Ok(mut a) => {
                        if !self.config.pv {
                            a.pv = None;
                        }
                        self.answered += 1;
                        let mut out = Vec::with_capacity(320);
                        let rules = self.games[pits].as_ref().map_or("", |s| s.rules.as_str());
                        a.write(&mut out, rules, None);
                        out
                    }
                    Err(Stopped::Interrupted) => return Ok(None),
                    Err(Stopped::Failed(msg)) => {
                        return Err(Error::Failure(format!("line {n}: {msg}")))
                    }
                    Err(Stopped::TimeLimit) => {
                        self.over_limit += 1;
                        let msg = format!("line {n}: {}", over_limit(limit));
                        self.observer.note(&msg);
                        error_line(n, &msg)
                    }
                }
            }
            Outcome::Failed(msg) => return Err(Error::Failure(msg)),
            Outcome::NeedsSetup(pits) => {
                return Err(Error::Failure(format!(
                    "line {n}: no game set up for {pits} houses"
                )))
            }
            Outcome::Bad(msg) => {
                self.bad += 1;
                self.observer.note(&msg);
                error_line(n, &msg)
            }
        }))
    }
}

/// Answers every line of `input` in order, one JSON line each written to
/// the writer `output` makes (on a thread of its own, so that it may be a
/// lock held for the whole batch, such as `io::stdout().lock()`; flushed
/// after each chunk), telling
/// `observer` about bad lines, missing tables and searches.
///
/// # Errors
/// Only a failed write; every other way a batch ends is in the
/// summary.
pub fn answer_batch<W: Write, O: FnOnce() -> W + Send + 'static>(
    input: Input,
    output: O,
    config: &BatchConfig,
    observer: &dyn Observer,
) -> Result<Summary, Error> {
    let Input {
        reader: input,
        readiness,
        name,
    } = input;
    let mut b = Batch {
        config,
        observer,
        games: vec![None; 9],
        solvers: (0..9).map(|_| None).collect(),
        answered: 0,
        bad: 0,
        over_limit: 0,
    };
    let started = Instant::now();

    // Chunks and output buffers go back to be reused.
    let (line_tx, line_rx) = mpsc::sync_channel::<io::Result<Chunk>>(2);
    let (free_tx, free_rx) = mpsc::channel::<Chunk>();
    thread::spawn(move || {
        let mut lines = LineReader::new(input, readiness);
        loop {
            let mut chunk = free_rx.try_recv().unwrap_or_default();
            match lines.read_chunk(&mut chunk) {
                Err(e) => {
                    let _ = line_tx.send(Err(e));
                    return;
                }
                Ok(()) if chunk.lines.is_empty() => return,
                Ok(()) => {
                    if line_tx.send(Ok(chunk)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let pool: BufferPool = Arc::default();
    let (out_tx, out_rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(2);
    let writer_pool = Arc::clone(&pool);
    let writer = thread::spawn(move || -> io::Result<()> {
        // Every buffer is whole lines: written as it is, not copied into
        // another buffer first; flushed after each chunk, so a client
        // waiting for an answer gets it.
        let mut out = output();
        for buffers in out_rx {
            for mut b in buffers {
                out.write_all(&b)?;
                b.clear();
                if let Ok(mut p) = writer_pool.lock() {
                    p.push(b);
                }
            }
            out.flush()?;
        }
        out.flush()
    });

    let end = loop {
        let chunk = match line_rx.recv_timeout(WATCH_TICK) {
            Ok(Ok(chunk)) => chunk,
            Ok(Err(e)) => break End::Failed(Error::Failure(format!("reading {name}: {e}"))),
            Err(RecvTimeoutError::Timeout) if crate::interrupt::requested() => {
                break End::Interrupted
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break End::Finished,
        };
        // The parallel pass is made again after the first position of a
        // board size has its game and tables set up (in line order; once
        // per board size in a whole batch).
        let parts = loop {
            let parts = first_pass(&b.games, &chunk, config.detail(), &pool);
            let mut set_up = false;
            for &(_, i) in parts.iter().flat_map(|p| &p.holes) {
                let Some(pos) = parse_line(chunk.bytes(&chunk.lines[i])) else {
                    continue;
                };
                if b.games[pos.pits()].is_none() {
                    b.set_up(pos.pits())?;
                    set_up = true;
                }
            }
            if !set_up {
                break parts;
            }
            if let Ok(mut p) = pool.lock() {
                for mut part in parts {
                    part.out.clear();
                    p.push(part.out);
                }
            }
        };
        // The lines left are answered in order and put into their places;
        // at a stop, the output ends before the line stopped.
        let mut outputs = Vec::with_capacity(parts.len());
        let mut stop = None;
        for part in parts {
            if part.holes.is_empty() {
                b.answered += (chunk.lines.len() - part.first).min(BATCH_PART) as u64;
                outputs.push(part.out);
                continue;
            }
            let mut out = take_buffer(&pool);
            let mut from = 0;
            let mut last = part.first;
            for &(at, i) in &part.holes {
                out.extend_from_slice(&part.out[from..at]);
                from = at;
                // The lines between the holes were answered by the pass.
                b.answered += (i - last) as u64;
                last = i + 1;
                match b.answer_left(&chunk, &chunk.lines[i]) {
                    Ok(Some(text)) => {
                        out.extend_from_slice(&text);
                        out.push(b'\n');
                    }
                    Ok(None) => {
                        stop = Some(End::Interrupted);
                        break;
                    }
                    Err(e) => {
                        stop = Some(End::Failed(e));
                        break;
                    }
                }
            }
            if stop.is_none() {
                out.extend_from_slice(&part.out[from..]);
                let part_end = (part.first + BATCH_PART).min(chunk.lines.len());
                b.answered += (part_end - last) as u64;
            }
            let mut used = part.out;
            used.clear();
            if let Ok(mut p) = pool.lock() {
                p.push(used);
            }
            outputs.push(out);
            if stop.is_some() {
                break;
            }
        }
        let _ = free_tx.send(chunk);
        if out_tx.send(outputs).is_err() {
            // The writer stopped: its error says why.
            break End::Finished;
        }
        if let Some(end) = stop {
            break end;
        }
        if crate::interrupt::requested() {
            break End::Interrupted;
        }
    };
    drop(out_tx);
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(Error::Output(e)),
        Err(_) => return Err(Error::Failure("the writer thread failed".to_string())),
    }
    Ok(Summary {
        answered: b.answered,
        bad: b.bad,
        over_limit: b.over_limit,
        seconds: started.elapsed().as_secs_f64(),
        end,
    })
}

/// Answers the lines of `chunk` inside the tables (and finished games) in
/// parallel, one [`Part`] of `BATCH_PART` lines per task, leaving holes for
/// the others. Before any board size is set up, every line is left.
fn first_pass(games: &[GameSlot], chunk: &Chunk, detail: Detail, pool: &BufferPool) -> Vec<Part> {
    if games.iter().all(Option::is_none) {
        return chunk
            .lines
            .chunks(BATCH_PART)
            .enumerate()
            .map(|(p, lines)| Part {
                first: p * BATCH_PART,
                out: take_buffer(pool),
                holes: (0..lines.len()).map(|j| (0, p * BATCH_PART + j)).collect(),
            })
            .collect();
    }
    chunk
        .lines
        .par_chunks(BATCH_PART)
        .enumerate()
        .map(|(p, lines)| {
            let mut out = take_buffer(pool);
            let mut holes = Vec::new();
            let mut scratch = Box::<LineBuf>::default();
            for (j, line) in lines.iter().enumerate() {
                let bytes = chunk.bytes(line);
                if line.too_long || !write_answer_line(games, bytes, detail, &mut out, &mut scratch)
                {
                    holes.push((out.len(), p * BATCH_PART + j));
                }
            }
            Part {
                first: p * BATCH_PART,
                out,
                holes,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::table_dir::{DirSource, TableDir};
    use crate::service::Silent;
    use kalah_solver::search::SearchConfig;

    /// A writer into shared memory, read back once the batch is done.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| io::ErrorKind::Other)?
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The layer a server calls: a stream in memory answered in order, one
    /// line each, a bad line answered by its error line, without the CLI.
    #[test]
    fn a_stream_in_memory_is_answered_in_order_with_error_lines() {
        let text = "0 1 0 1 0 0 N\n# comment\n1 2 3\n1 0 0 0 0 1 S\n0 0 5 0 0 0 S\n";
        let input = Input::reader(
            Box::new(io::Cursor::new(text.as_bytes().to_vec())),
            Readiness::Unknown,
            "memory",
        );
        let config = BatchConfig {
            tables: TablePolicy {
                dir: TableDir {
                    path: "/nonexistent".into(),
                    source: DirSource::User,
                },
                table_seeds: None,
                no_tables: true,
                no_book: true,
            },
            rules: Rules::STANDARD,
            budget: Budget {
                config: SearchConfig {
                    tt_mb: 1,
                    threads: 1,
                    ..SearchConfig::default()
                },
                time_limit: None,
            },
            pv: false,
            value_only: false,
        };
        let out = Shared::default();
        let writer = out.clone();
        let summary = answer_batch(input, move || writer, &config, &Silent).expect("written");
        assert!(matches!(summary.end, End::Finished), "{summary:?}");
        assert_eq!((summary.answered, summary.bad), (3, 1));
        let bytes = out.0.lock().expect("output").clone();
        let lines: Vec<serde_json::Value> = String::from_utf8(bytes)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["position"], "0 1 0 1 0 0 N");
        assert_eq!(lines[0]["rules"], "std");
        assert_eq!(lines[1]["line"], 3);
        assert!(lines[1]["error"]
            .as_str()
            .expect("error")
            .starts_with("line 3: "));
        assert_eq!(lines[2]["position"], "1 0 0 0 0 1 S");
        assert_eq!(lines[3]["source"], "finished");
        assert_eq!(lines[3]["value"], 5);
    }
}
