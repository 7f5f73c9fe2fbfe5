//! `kalah query`: the exact value of any position, its moves and a perfect
//! game: from the endgame tables when the board is inside them (one probe a
//! move, no loading wait: the tables are memory-mapped), by search with
//! table probes otherwise. `--batch` answers a file of positions, one JSON
//! line each.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Instant;

use clap::Args;
use kalah_solver::query::{self, pv_line};
use kalah_solver::search::{MoveValue, PvMove, Solver};
use kalah_solver::table::{Check, TableError, Tables};
use kalah_solver::{Game, Position, Rules, Side};
use rayon::prelude::*;

use super::common::{parse_position, signed, CliError, RulesArgs};
use super::engine::{make_solver, SearchArgs, TableArgs};
use crate::json::{write_escaped, write_int, write_millis, Json, LineBuf, Sink};

/// Arguments of `kalah query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The position: 2m+2 counts in sowing order (S1..Sm, South store,
    /// N1..Nm, North store) and the side to move, e.g.
    /// "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S".
    #[arg(num_args = 1.., allow_negative_numbers = true, required_unless_present = "batch")]
    pub position: Vec<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Answer every line of FILE ('-' for standard input), one JSON line
    /// each, in order. Bad lines get an error object naming the line and do
    /// not stop the batch.
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    pub batch: Option<String>,
    /// In batch mode, also give each answer's principal variation.
    #[arg(long)]
    pub pv: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Table,
    Search,
    Finished,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Table => "table",
            Source::Search => "search",
            Source::Finished => "finished",
        }
    }
}

/// One answered position.
pub(crate) struct Answer {
    pub(crate) position: Position,
    pub(crate) value: i32,
    pub(crate) moves: Vec<MoveValue>,
    pub(crate) best: Vec<usize>,
    pub(crate) pv: Option<Vec<PvMove>>,
    pub(crate) source: Source,
    pub(crate) nodes: u64,
    pub(crate) ms: f64,
}

/// The start of a move's JSON object, by house.
const HOUSE_KEYS: [&str; 9] = [
    "{\"house\":0,\"value\":",
    "{\"house\":1,\"value\":",
    "{\"house\":2,\"value\":",
    "{\"house\":3,\"value\":",
    "{\"house\":4,\"value\":",
    "{\"house\":5,\"value\":",
    "{\"house\":6,\"value\":",
    "{\"house\":7,\"value\":",
    "{\"house\":8,\"value\":",
];

/// What one JSON answer line says, borrowed: the batch query writes its
/// table answers straight from fixed storage through this.
struct AnswerView<'a> {
    position: &'a Position,
    /// The position's display form, when the input line is exactly that.
    text: Option<&'a [u8]>,
    value: i32,
    moves: &'a [MoveValue],
    /// `None`: the houses of `moves` whose value is `value`.
    best: Option<&'a [usize]>,
    pv: Option<&'a [PvMove]>,
    source: Source,
    nodes: u64,
    ms: f64,
}

impl AnswerView<'_> {
    /// Appends the answer as one line of JSON (no newline). Written
    /// directly rather than through a [`Json`] tree: the batch query
    /// prints a million of these a second.
    fn write(&self, o: &mut impl Sink, note: Option<&str>) {
        o.put(b"{\"position\":\"");
        let pos = self.position;
        let letter = pos.to_move().letter() as u8;
        if let Some(text) = self.text {
            o.put(text);
        } else {
            for side in [Side::South, Side::North] {
                for &x in pos.houses(side) {
                    write_int(o, x as i64);
                    o.byte(b' ');
                }
                write_int(o, pos.store(side) as i64);
                o.byte(b' ');
            }
            o.byte(letter);
        }
        o.put(b"\",\"to_move\":\"");
        o.byte(letter);
        o.put(b"\",\"value\":");
        write_int(o, self.value as i64);
        // Fixed-length pieces are copied inline.
        o.put(match self.value.signum() {
            1 => b",\"result\":\"win\",\"moves\":[",
            0 => b",\"result\":\"draw\",\"moves\":[",
            _ => b",\"result\":\"loss\",\"moves\":[",
        });
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                o.byte(b',');
            }
            match HOUSE_KEYS.get(m.house) {
                Some(key) => o.put(key.as_bytes()),
                None => {
                    o.put(b"{\"house\":");
                    write_int(o, m.house as i64);
                    o.put(b",\"value\":");
                }
            }
            write_int(o, m.value as i64);
            o.put(if m.extra_turn {
                b",\"extra_turn\":true}"
            } else {
                b",\"extra_turn\":false}"
            });
        }
        o.put(b"],\"best\":[");
        let mut first = true;
        let mut best = |h: usize| {
            if !first {
                o.byte(b',');
            }
            first = false;
            write_int(o, h as i64);
        };
        match self.best {
            Some(b) => b.iter().for_each(|&h| best(h)),
            None => self
                .moves
                .iter()
                .filter(|m| m.value == self.value)
                .for_each(|m| best(m.house)),
        }
        o.byte(b']');
        if let Some(pv) = self.pv {
            o.put(b",\"pv\":");
            if pv.is_empty() {
                o.put(b"\"\"");
            } else {
                write_escaped(o, &pv_line(pv).to_string());
            }
        }
        o.put(match self.source {
            Source::Table => b",\"source\":\"table\",\"nodes\":",
            Source::Search => b",\"source\":\"search\",\"nodes\":",
            Source::Finished => b",\"source\":\"finished\",\"nodes\":",
        });
        write_int(o, self.nodes as i64);
        o.put(b",\"ms\":");
        write_millis(o, self.ms);
        if let Some(n) = note {
            o.put(b",\"note\":");
            write_escaped(o, n);
        }
        o.byte(b'}');
    }
}

impl Answer {
    fn view(&self) -> AnswerView<'_> {
        AnswerView {
            position: &self.position,
            text: None,
            value: self.value,
            moves: &self.moves,
            best: Some(&self.best),
            pv: self.pv.as_deref(),
            source: self.source,
            nodes: self.nodes,
            ms: self.ms,
        }
    }

    /// Appends the answer as one line of JSON (no newline).
    fn write(&self, o: &mut Vec<u8>, note: Option<&str>) {
        self.view().write(o, note);
    }

    /// The answer as one line of JSON.
    fn render(&self, note: Option<&str>) -> String {
        let mut o = Vec::with_capacity(320);
        self.write(&mut o, note);
        // Only ASCII and the note's (UTF-8) text were written.
        String::from_utf8(o).expect("JSON text is UTF-8")
    }
}

/// The tables for these rules, if present. The reason they are not used
/// is returned otherwise, for the output to say so.
fn open_tables(
    args: &QueryArgs,
    pits: usize,
    rules: Rules,
) -> (Option<Arc<Tables>>, Option<String>) {
    if args.tables.no_tables {
        return (None, None);
    }
    // Each tier is checked when first used: header, size, end marker, and
    // the checksum of the whole file once per file (remembered by a stamp).
    match Tables::open_with(
        &args.tables.tables,
        pits,
        rules,
        args.tables.table_seeds,
        Check::Remembered,
    ) {
        Ok(t) => (Some(Arc::new(t)), None),
        Err(TableError::Missing { .. }) => (
            None,
            Some(format!(
                "no endgame tables for {pits} houses and these rules in {}: searching without them",
                args.tables.tables.display()
            )),
        ),
        Err(e) => (None, Some(format!("endgame tables not used: {e}"))),
    }
}

/// Answers from the tables alone; `None` when the position is outside them
/// (or its tier file is unusable: then the search answers).
pub(crate) fn from_tables(
    tables: &Tables,
    game: &Game,
    pos: &Position,
    with_pv: bool,
) -> Option<Answer> {
    let t = Instant::now();
    let a = query::answer(tables, game, pos)?;
    let pv = if with_pv {
        Some(query::principal_variation(tables, game, pos)?)
    } else {
        None
    };
    Some(Answer {
        position: *pos,
        value: a.value,
        moves: a.moves,
        best: a.best,
        pv,
        source: Source::Table,
        nodes: 0,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

pub(crate) fn finished(game: &Game, pos: &Position) -> Option<Answer> {
    let rules = game.rules();
    let score = pos.final_score(rules)?;
    let value = if pos.to_move() == kalah_solver::Side::South {
        score
    } else {
        -score
    };
    Some(Answer {
        position: *pos,
        value,
        moves: Vec::new(),
        best: Vec::new(),
        pv: Some(Vec::new()),
        source: Source::Finished,
        nodes: 0,
        ms: 0.0,
    })
}

/// The answer for `pos`: the final score of a finished game, else from the
/// tables when the board is inside them, else `search` (the solver is only
/// built when needed).
pub(crate) fn answer_position(
    game: &Game,
    tables: Option<&Tables>,
    pos: &Position,
    with_pv: bool,
    search: impl FnOnce(&Position) -> Result<Answer, CliError>,
) -> Result<Answer, CliError> {
    if let Some(a) = finished(game, pos) {
        return Ok(a);
    }
    if let Some(a) = tables.and_then(|t| from_tables(t, game, pos, with_pv)) {
        return Ok(a);
    }
    search(pos)
}

pub(crate) fn by_search(solver: &Solver, pos: &Position) -> Result<Answer, CliError> {
    let t = Instant::now();
    let a = solver
        .analyse(pos)
        .map_err(|e| CliError::Failure(e.to_string()))?;
    Ok(Answer {
        position: *pos,
        value: a.value,
        moves: a.moves,
        best: a.best,
        pv: Some(a.pv),
        source: Source::Search,
        nodes: a.stats.nodes,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

/// `kalah query`.
pub fn query(args: &QueryArgs) -> Result<(), CliError> {
    if let Some(file) = &args.batch {
        return batch(args, file);
    }
    let pos = parse_position(&args.position)?;
    let rules = args.rules.rules();
    let game = Game::new(pos.pits(), rules);
    let (tables, note) = open_tables(args, pos.pits(), rules);
    let answer = answer_position(&game, tables.as_deref(), &pos, true, |p| {
        let solver = make_solver(game.clone(), &args.search, tables.clone())?;
        by_search(&solver, p)
    })?;
    if args.json {
        println!("{}", answer.render(note.as_deref()));
        return Ok(());
    }
    if let Some(n) = note {
        eprintln!("kalah: {n}");
    }
    print_answer(&answer, rules);
    Ok(())
}

fn print_answer(a: &Answer, rules: Rules) {
    let pos = &a.position;
    print!("{}", pos.diagram());
    println!("position: {pos}");
    let side = pos.to_move();
    println!(
        "value: {} for {side} ({}), final store difference under perfect play [{}]",
        signed(a.value),
        match a.value.signum() {
            1 => format!("{side} wins"),
            0 => "draw".to_string(),
            _ => format!("{side} loses"),
        },
        a.source.name()
    );
    if a.source == Source::Finished {
        if let Some([s, n]) = pos.final_stores(rules) {
            println!("the game is over: South {s}, North {n} after the sweep");
        }
        return;
    }
    println!("moves ({side}):");
    for m in &a.moves {
        println!(
            "  house {:>2}: {:>4}{}{}",
            m.house,
            signed(m.value),
            if m.extra_turn { "  extra turn" } else { "" },
            if m.value == a.value { "  best" } else { "" }
        );
    }
    let best: Vec<String> = a.best.iter().map(|h| h.to_string()).collect();
    println!("best: {}", best.join(" "));
    if let Some(pv) = &a.pv {
        println!("principal variation: {}", pv_line(pv));
    }
    println!("nodes: {}  time: {:.2} ms", a.nodes, a.ms);
}

/// One input line's outcome, for the lines the parallel pass could not
/// answer alone.
enum Outcome {
    Done(String),
    /// The first position of a board size: its game is not set up yet.
    NeedsSetup,
    NeedsSearch(Position),
    Bad(String),
}

/// The game of one board size and its tables, once a line of that size
/// has been read.
type GameSlot = Option<(Game, Option<Arc<Tables>>)>;

/// Lines a batch chunk holds: parsed and answered in parallel, printed in
/// order.
const BATCH_CHUNK: usize = 1 << 15;

/// Lines one parallel task answers into one output buffer.
const BATCH_PART: usize = 1 << 10;

/// Input lines as read: the bytes and where each line lies in them, its
/// newline (and a carriage return before it) left out, as
/// [`BufRead::lines`] gives them.
#[derive(Default)]
struct Chunk {
    data: Vec<u8>,
    lines: Vec<(usize, usize)>,
}

impl Chunk {
    /// Line `i`'s text. The whole chunk is checked to be UTF-8 when read,
    /// and lines start and end at ASCII bytes.
    fn text(&self, i: usize) -> &str {
        std::str::from_utf8(self.line(i)).unwrap_or_default()
    }

    /// Line `i`'s bytes.
    fn line(&self, i: usize) -> &[u8] {
        let (s, e) = self.lines[i];
        &self.data[s..e]
    }
}

/// The error [`BufRead::lines`] gives for a line that is not UTF-8.
fn invalid_utf8() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "stream did not contain valid UTF-8",
    )
}

/// Fills `chunk` (emptied first) with the next `BATCH_CHUNK` lines, or as
/// many as are left; the errors are those `BufRead::lines` reports.
fn read_chunk(reader: &mut dyn BufRead, chunk: &mut Chunk) -> io::Result<()> {
    chunk.data.clear();
    chunk.lines.clear();
    // Start of the line being read.
    let mut start = 0;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // A complete line that is not UTF-8 is reported first.
                if std::str::from_utf8(&chunk.data[..start]).is_err() {
                    return Err(invalid_utf8());
                }
                return Err(e);
            }
        };
        if buf.is_empty() {
            if chunk.data.len() > start {
                chunk.lines.push((start, chunk.data.len()));
            }
            break;
        }
        // Take whole lines up to the chunk's size, or the whole buffer.
        let from = chunk.data.len();
        chunk.data.extend_from_slice(buf);
        let mut take = buf.len();
        let mut next = from;
        while let Some(k) = chunk.data[next..].iter().position(|&b| b == b'\n') {
            let newline = next + k;
            let mut end = newline;
            if end > start && chunk.data[end - 1] == b'\r' {
                end -= 1;
            }
            chunk.lines.push((start, end));
            start = newline + 1;
            next = start;
            if chunk.lines.len() == BATCH_CHUNK {
                take = start - from;
                break;
            }
        }
        chunk.data.truncate(from + take);
        reader.consume(take);
        if chunk.lines.len() == BATCH_CHUNK {
            break;
        }
    }
    if std::str::from_utf8(&chunk.data).is_err() {
        return Err(invalid_utf8());
    }
    Ok(())
}

/// The position on a batch line, as `line.trim().parse()` reads it, or
/// `None` for a bad line; the usual form without allocating.
fn parse_line(line: &[u8]) -> Option<Position> {
    Position::parse_common(line).or_else(|| {
        std::str::from_utf8(line)
            .ok()
            .and_then(|t| t.trim().parse::<Position>().ok())
    })
}

/// Answers one line without allocating when it is a position inside the
/// tables or a finished game (the usual case), appending its JSON line to
/// `out`. `false` (nothing written) for every other line: bad lines, board
/// sizes not set up yet, positions for the search.
fn write_answer_line(
    games: &[GameSlot],
    line: &[u8],
    with_pv: bool,
    out: &mut Vec<u8>,
    scratch: &mut LineBuf<2048>,
) -> bool {
    let Some((pos, canonical)) =
        Position::parse_common_form(line).or_else(|| parse_line(line).map(|p| (p, false)))
    else {
        return false;
    };
    let Some((game, tables)) = &games[pos.pits()] else {
        return false;
    };
    match tables.as_deref() {
        Some(tables) if !with_pv => {
            let t = Instant::now();
            let Some(a) = query::answer_fixed(tables, game, &pos) else {
                return false;
            };
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if a.over {
                // A finished game: `finished` sees the same end of the game.
                let Some(a) = finished(game, &pos) else {
                    return false;
                };
                a.write(out, None);
            } else {
                // A table answer's line is at most about 800 bytes (8 houses
                // a side, counts below 256, a time of a few hundred digits at
                // most).
                scratch.clear();
                AnswerView {
                    position: &pos,
                    text: canonical.then_some(line),
                    value: a.value,
                    moves: a.moves(),
                    best: None,
                    pv: None,
                    source: Source::Table,
                    nodes: 0,
                    ms,
                }
                .write(scratch, None);
                out.extend_from_slice(scratch.as_bytes());
            }
        }
        tables => {
            if let Some(a) = finished(game, &pos) {
                a.write(out, None);
            } else {
                let Some(a) = tables.and_then(|t| from_tables(t, game, &pos, true)) else {
                    return false;
                };
                a.write(out, None);
            }
        }
    }
    out.push(b'\n');
    true
}

/// Line `n` (1-based) answered as far as it can be without setting up its
/// board size or searching.
fn answer_line(games: &[GameSlot], n: usize, line: &str, with_pv: bool) -> Outcome {
    let pos = match line.trim().parse::<Position>() {
        Ok(p) => p,
        Err(e) => return Outcome::Bad(format!("line {n}: {e}")),
    };
    let Some((game, tables)) = &games[pos.pits()] else {
        return Outcome::NeedsSetup;
    };
    let answer = finished(game, &pos).or_else(|| {
        tables
            .as_deref()
            .and_then(|t| from_tables(t, game, &pos, with_pv))
    });
    match answer {
        Some(a) => Outcome::Done(a.render(None)),
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
    out: Vec<u8>,
    holes: Vec<(usize, usize)>,
}

fn batch(args: &QueryArgs, file: &str) -> Result<(), CliError> {
    let reader: Box<dyn BufRead + Send> = if file == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        let f = File::open(file)
            .map_err(|e| CliError::Input(format!("cannot read batch file {file}: {e}")))?;
        Box::new(BufReader::with_capacity(1 << 20, f))
    };
    let rules = args.rules.rules();
    let mut games: Vec<GameSlot> = vec![None; 9];
    let mut solvers: Vec<Option<Solver>> = (0..9).map(|_| None).collect();
    let mut bad = 0u64;
    let mut answered = 0u64;
    let started = Instant::now();

    // Reading, answering and writing overlap: a reader thread hands over
    // chunks of lines, this thread answers them (in parallel), a writer
    // thread prints the answers in order. Chunks and output buffers go
    // back to be reused.
    let (line_tx, line_rx) = mpsc::sync_channel::<io::Result<Chunk>>(2);
    let (free_tx, free_rx) = mpsc::channel::<Chunk>();
    let read_name = file.to_string();
    thread::spawn(move || {
        let mut reader = reader;
        loop {
            let mut chunk = free_rx.try_recv().unwrap_or_default();
            match read_chunk(&mut *reader, &mut chunk) {
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
        // another buffer first.
        let mut out = io::stdout().lock();
        for buffers in out_rx {
            for mut b in buffers {
                out.write_all(&b)?;
                b.clear();
                if let Ok(mut p) = writer_pool.lock() {
                    p.push(b);
                }
            }
        }
        out.flush()
    });

    let mut first_line = 1;
    for chunk in line_rx {
        let chunk = chunk.map_err(|e| CliError::Failure(format!("reading {read_name}: {e}")))?;
        // One parallel pass answers the lines inside the tables; the others
        // (bad lines, the first position of each board size, searches) are
        // left for this thread, in order. The first position of a board size
        // has its game and tables set up here, in line order; the pass is
        // then made again (once per board size in a whole batch).
        let mut parts = loop {
            let games_ref = &games;
            let parts: Vec<Part> = if games.iter().all(Option::is_none) {
                // Nothing is set up yet: every line is left.
                chunk
                    .lines
                    .chunks(BATCH_PART)
                    .enumerate()
                    .map(|(p, lines)| Part {
                        out: take_buffer(&pool),
                        holes: (0..lines.len()).map(|j| (0, p * BATCH_PART + j)).collect(),
                    })
                    .collect()
            } else {
                chunk
                    .lines
                    .par_chunks(BATCH_PART)
                    .enumerate()
                    .map(|(p, lines)| {
                        let mut out = take_buffer(&pool);
                        let mut holes = Vec::new();
                        let mut scratch = Box::default();
                        for (j, &(s, e)) in lines.iter().enumerate() {
                            let line = &chunk.data[s..e];
                            if !write_answer_line(games_ref, line, args.pv, &mut out, &mut scratch)
                            {
                                holes.push((out.len(), p * BATCH_PART + j));
                            }
                        }
                        Part { out, holes }
                    })
                    .collect()
            };
            let mut set_up = false;
            for &(_, i) in parts.iter().flat_map(|p| &p.holes) {
                let Some(pos) = parse_line(chunk.line(i)) else {
                    continue;
                };
                let slot = &mut games[pos.pits()];
                if slot.is_none() {
                    let game = Game::new(pos.pits(), rules);
                    let (tables, note) = open_tables(args, pos.pits(), rules);
                    if let Some(n) = note {
                        eprintln!("kalah: {n}");
                    }
                    *slot = Some((game, tables));
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
        let left: usize = parts.iter().map(|p| p.holes.len()).sum();
        answered += (chunk.lines.len() - left) as u64;
        let outcomes: Vec<Outcome> = parts
            .iter()
            .flat_map(|p| &p.holes)
            .map(|&(_, i)| answer_line(&games, first_line + i, chunk.text(i), args.pv))
            .collect();
        // ...then answer or report them, in order.
        let mut texts = Vec::with_capacity(left);
        for (&(_, i), outcome) in parts.iter().flat_map(|p| &p.holes).zip(outcomes) {
            let n = first_line + i;
            texts.push(match outcome {
                Outcome::Done(s) => {
                    answered += 1;
                    s
                }
                Outcome::NeedsSearch(pos) => {
                    let slot = &mut solvers[pos.pits()];
                    if slot.is_none() {
                        let (game, tables) = games[pos.pits()]
                            .clone()
                            .expect("set up for every parsed line");
                        *slot = Some(make_solver(game, &args.search, tables)?);
                    }
                    let solver = slot.as_ref().expect("just set");
                    let mut a = by_search(solver, &pos)?;
                    if !args.pv {
                        a.pv = None;
                    }
                    answered += 1;
                    a.render(None)
                }
                Outcome::NeedsSetup => unreachable!("set up above"),
                Outcome::Bad(msg) => {
                    bad += 1;
                    eprintln!("kalah: {msg}");
                    Json::object().with("line", n).with("error", msg).render()
                }
            });
        }
        // Put the lines left into their places.
        let mut texts = texts.into_iter();
        for part in parts.iter_mut().filter(|p| !p.holes.is_empty()) {
            let mut out = take_buffer(&pool);
            let mut from = 0;
            for &(at, _) in &part.holes {
                out.extend_from_slice(&part.out[from..at]);
                out.extend_from_slice(texts.next().unwrap_or_default().as_bytes());
                out.push(b'\n');
                from = at;
            }
            out.extend_from_slice(&part.out[from..]);
            std::mem::swap(&mut part.out, &mut out);
            out.clear();
            if let Ok(mut p) = pool.lock() {
                p.push(out);
            }
        }
        first_line += chunk.lines.len();
        let _ = free_tx.send(chunk);
        if out_tx
            .send(parts.into_iter().map(|p| p.out).collect())
            .is_err()
        {
            break;
        }
    }
    drop(out_tx);
    writer
        .join()
        .map_err(|_| CliError::Failure("the writer thread failed".to_string()))?
        .map_err(|e| CliError::Failure(format!("writing: {e}")))?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "kalah: {answered} positions answered, {bad} bad lines, {:.2} s ({:.0} positions/s)",
        secs,
        answered as f64 / secs.max(1e-9)
    );
    if bad > 0 {
        return Err(CliError::Input(format!("{bad} bad lines in {file}")));
    }
    Ok(())
}
