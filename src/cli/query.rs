//! `kalah query`: the exact value of any position, its moves and a perfect
//! game: from the endgame tables when the board is inside them (one probe a
//! move, no loading wait: the tables are memory-mapped), by search with
//! table probes otherwise. `--batch` answers a file of positions, one JSON
//! line each.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::sync::{mpsc, Arc};
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
use crate::json::{push_escaped, push_int, Json};

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

fn result_word(value: i32) -> &'static str {
    match value.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

impl Answer {
    /// The answer as one line of JSON. Written directly rather than through
    /// a [`Json`] tree: the batch query prints a million of these a second.
    fn render(&self, note: Option<&str>) -> String {
        let mut o = String::with_capacity(320);
        o.push_str("{\"position\":\"");
        let pos = &self.position;
        for side in [Side::South, Side::North] {
            for &x in pos.houses(side) {
                push_int(&mut o, x as i64);
                o.push(' ');
            }
            push_int(&mut o, pos.store(side) as i64);
            o.push(' ');
        }
        o.push(pos.to_move().letter());
        o.push_str("\",\"to_move\":\"");
        o.push(pos.to_move().letter());
        o.push_str("\",\"value\":");
        push_int(&mut o, self.value as i64);
        o.push_str(",\"result\":\"");
        o.push_str(result_word(self.value));
        o.push_str("\",\"moves\":[");
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            o.push_str("{\"house\":");
            push_int(&mut o, m.house as i64);
            o.push_str(",\"value\":");
            push_int(&mut o, m.value as i64);
            o.push_str(if m.extra_turn {
                ",\"extra_turn\":true}"
            } else {
                ",\"extra_turn\":false}"
            });
        }
        o.push_str("],\"best\":[");
        for (i, &h) in self.best.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            push_int(&mut o, h as i64);
        }
        o.push(']');
        if let Some(pv) = &self.pv {
            o.push_str(",\"pv\":");
            push_escaped(&mut o, &pv_line(pv).to_string());
        }
        o.push_str(",\"source\":\"");
        o.push_str(self.source.name());
        o.push_str("\",\"nodes\":");
        push_int(&mut o, self.nodes as i64);
        o.push_str(",\"ms\":");
        o.push_str(&Json::Float((self.ms * 1e3).round() / 1e3).render());
        if let Some(n) = note {
            o.push_str(",\"note\":");
            push_escaped(&mut o, n);
        }
        o.push('}');
        o
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
    // Headers, sizes and end markers are checked when a tier is first used;
    // whole-file checksums are `kalah verify`'s job (reading a 20-seed set
    // in full would cost more than the answer).
    match Tables::open_with(
        &args.tables.tables,
        pits,
        rules,
        args.tables.table_seeds,
        Check::Quick,
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
        .map_err(|_| CliError::Failure("interrupted".to_string()))?;
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

/// One input line's outcome.
enum Outcome {
    Done(String),
    /// The first position of a board size: its game is not set up yet.
    NeedsSetup(Position),
    NeedsSearch(Position),
    Bad(String),
}

/// The game of one board size and its tables, once a line of that size
/// has been read.
type GameSlot = Option<(Game, Option<Arc<Tables>>)>;

/// Lines a batch chunk holds: parsed and answered in parallel, printed in
/// order.
const BATCH_CHUNK: usize = 1 << 15;

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
    // thread prints the answers in order.
    let (line_tx, line_rx) = mpsc::sync_channel::<io::Result<Vec<(usize, String)>>>(2);
    let read_name = file.to_string();
    thread::spawn(move || {
        let mut lines = reader.lines().enumerate();
        loop {
            let mut chunk = Vec::with_capacity(BATCH_CHUNK);
            for (i, line) in lines.by_ref() {
                match line {
                    Ok(l) => chunk.push((i + 1, l)),
                    Err(e) => {
                        let _ = line_tx.send(Err(e));
                        return;
                    }
                }
                if chunk.len() == BATCH_CHUNK {
                    break;
                }
            }
            if chunk.is_empty() || line_tx.send(Ok(chunk)).is_err() {
                return;
            }
        }
    });
    let (out_tx, out_rx) = mpsc::sync_channel::<Vec<String>>(2);
    let writer = thread::spawn(move || -> io::Result<()> {
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
        for texts in out_rx {
            for t in texts {
                out.write_all(t.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    });

    for chunk in line_rx {
        let chunk = chunk.map_err(|e| CliError::Failure(format!("reading {read_name}: {e}")))?;
        // One parallel pass: parse and answer. The first position of each
        // board size comes back for its game and tables to be set up here.
        let answer_line = |games: &[GameSlot], n: usize, line: &str| {
            let pos = match line.trim().parse::<Position>() {
                Ok(p) => p,
                Err(e) => return Outcome::Bad(format!("line {n}: {e}")),
            };
            let Some((game, tables)) = &games[pos.pits()] else {
                return Outcome::NeedsSetup(pos);
            };
            let answer = finished(game, &pos).or_else(|| {
                tables
                    .as_deref()
                    .and_then(|t| from_tables(t, game, &pos, args.pv))
            });
            match answer {
                Some(a) => Outcome::Done(a.render(None)),
                None => Outcome::NeedsSearch(pos),
            }
        };
        let games_ref = &games;
        let mut outcomes: Vec<Outcome> = chunk
            .par_iter()
            .map(|(n, line)| answer_line(games_ref, *n, line))
            .collect();
        for ((n, line), outcome) in chunk.iter().zip(outcomes.iter_mut()) {
            if let Outcome::NeedsSetup(pos) = outcome {
                let slot = &mut games[pos.pits()];
                if slot.is_none() {
                    let game = Game::new(pos.pits(), rules);
                    let (tables, note) = open_tables(args, pos.pits(), rules);
                    if let Some(n) = note {
                        eprintln!("kalah: {n}");
                    }
                    *slot = Some((game, tables));
                }
                *outcome = answer_line(&games, *n, line);
            }
        }
        let mut texts = Vec::with_capacity(outcomes.len());
        for ((n, _), outcome) in chunk.iter().zip(outcomes) {
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
                Outcome::NeedsSetup(_) => unreachable!("set up above"),
                Outcome::Bad(msg) => {
                    bad += 1;
                    eprintln!("kalah: {msg}");
                    Json::object().with("line", *n).with("error", msg).render()
                }
            });
        }
        if out_tx.send(texts).is_err() {
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
