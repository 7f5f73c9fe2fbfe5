//! `kalah solve`: the exact value of Kalah(m,n) from the start, the best
//! first turn, a perfect game, and optionally every first turn and the pie
//! rule.

use std::time::Instant;

use clap::Args;
use kalah_solver::search::{Solution, TurnAnalysis};
use kalah_solver::{Game, Line, Side};

use super::common::{count, signed, start_position, CliError, GameArgs};
use super::output;
use crate::flags::{RulesArgs, SearchArgs, TableArgs};
use crate::outln;
use crate::output::json_line;
use crate::progress::build::prepare_tables;
use crate::progress::{clock, note, with_search_estimate};
use crate::service::answer::{round3, Outcome, SolvedGame};
use crate::service::cost;
use crate::service::setup::solver_for;
use serde::Serialize;

/// Arguments of `kalah solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Also give the value of every first turn.
    #[arg(long)]
    pub all_moves: bool,
    /// Also give the pie-rule value: North may swap sides after South's
    /// first turn (implies solving every first turn).
    #[arg(long)]
    pub pie: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What `solve` found, for printing.
pub struct SolveReport {
    pub solution: Solution,
    pub turns: Option<TurnAnalysis>,
    pub table_seeds: Option<u32>,
    pub build_seconds: f64,
    pub solve_seconds: f64,
}

/// "3.6": a turn in docs/RULES.md notation.
pub fn turn_text(houses: &[usize]) -> String {
    Line {
        turns: vec![houses.to_vec()],
    }
    .to_string()
}

/// What a solve far beyond its tables is likely to cost, said before it
/// starts: the cost model's nodes ([`cost::predicted_nodes`]) and the time
/// they take at [`cost::NODES_PER_SECOND_A_THREAD`] on each of `threads`.
pub fn cost_warning(
    pits: usize,
    seeds: usize,
    table_seeds: u32,
    nodes: f64,
    threads: usize,
) -> String {
    let rate = cost::NODES_PER_SECOND_A_THREAD * threads.max(1) as f64;
    let secs = std::time::Duration::from_secs_f64((nodes / rate).min(1e12));
    format!(
        "warning: Kalah({pits},{seeds}) is {} seeds beyond the endgame tables (up to {table_seeds} seeds): the cost model (docs/performance.md) predicts about {nodes:.1e} nodes, about {} on {threads} thread{} at {:.0e} nodes/s a thread, and its error grows this far out; deeper tables (`kalah build --max-seeds K`) cut it, and Ctrl-C stops",
        (2 * pits * seeds) as u32 - table_seeds.min((2 * pits * seeds) as u32),
        clock(secs),
        if threads == 1 { "" } else { "s" },
        cost::NODES_PER_SECOND_A_THREAD,
    )
}

/// Solves Kalah(pits, seeds) under the flags' rules: the shared core of
/// `solve` and `reproduce`. `ready` is called once the endgame tables are
/// open (or built), before the search, with their size in seeds and the
/// seconds that took, so the caller can say so at once; while the search
/// runs, a progress line is drawn on stderr when it is a terminal.
///
/// # Errors
/// Bad sizes, a table build that fails, an error from `ready`, or an
/// interruption.
pub fn solve_start(
    pits: usize,
    seeds: usize,
    rules: &RulesArgs,
    tables: &TableArgs,
    search: &SearchArgs,
    with_turns: bool,
    ready: impl FnOnce(Option<u32>, f64) -> Result<(), CliError>,
) -> Result<SolveReport, CliError> {
    let start = start_position(pits, seeds)?;
    let rules = rules.rules();
    let t0 = Instant::now();
    let tables = prepare_tables(&tables.policy(), pits, rules, start.total_seeds(), true)?;
    let build_seconds = t0.elapsed().as_secs_f64();
    let table_seeds = tables
        .as_ref()
        .map(|t| kalah_solver::Probe::max_seeds(&**t));
    ready(table_seeds, build_seconds)?;
    let predicted = cost::predicted_nodes(pits, seeds, rules, table_seeds.unwrap_or(0));
    if let Some(n) = predicted {
        note(&cost_warning(
            pits,
            seeds,
            table_seeds.unwrap_or(0),
            n,
            search.threads(),
        ));
    }
    let solver = solver_for(
        Game::new(pits, rules),
        start.total_seeds(),
        with_turns,
        search.policy(),
        tables,
    )?;
    let t1 = Instant::now();
    let interrupted = |e: kalah_solver::search::AnalysisError| CliError::Failure(e.to_string());
    let label = format!("solving Kalah({pits},{seeds})");
    let (turns, mut solution) = with_search_estimate(
        &label,
        || solver.stats().nodes,
        predicted,
        || -> Result<_, CliError> {
            let turns = if with_turns {
                Some(solver.analyse_turns(&start).map_err(interrupted)?)
            } else {
                None
            };
            Ok((turns, solver.solve_line(&start).map_err(interrupted)?))
        },
    )?;
    solution.stats = solver.stats();
    Ok(SolveReport {
        solution,
        turns,
        table_seeds,
        build_seconds,
        solve_seconds: t1.elapsed().as_secs_f64(),
    })
}

/// Solves and prints. In text the header and the tables line come at once,
/// before the search; with `--json` stdout holds only the final object, and
/// what is being done is said on stderr instead.
pub fn solve(args: &SolveArgs) -> Result<(), CliError> {
    let with_turns = args.all_moves || args.pie;
    let rules = args.rules.rules();
    // A game out of range is refused before anything is printed.
    let size = args.game.size()?;
    let (pits, seeds) = (size.pits(), size.seeds());
    let dir = args.tables.dir().path;
    let dir = dir.display();
    if !args.json {
        outln!("Kalah({pits},{seeds}), {rules}")?;
        output::flush()?;
    }
    let r = solve_start(
        pits,
        seeds,
        &args.rules,
        &args.tables,
        &args.search,
        with_turns,
        |table_seeds, seconds| {
            let over = match table_seeds {
                Some(k) => format!(
                    "over endgame tables of up to {} from {dir}",
                    count(k as usize, "seed")
                ),
                None => "without endgame tables".to_string(),
            };
            if args.json {
                note(&format!(
                    "solving Kalah({pits},{seeds}), {rules}, {over} ..."
                ));
                return Ok(());
            }
            match table_seeds {
                Some(k) => outln!(
                    "endgame tables: boards with up to {}, from {dir} ({seconds:.2} s to open or build)",
                    count(k as usize, "seed")
                )?,
                None => outln!("endgame tables: none")?,
            }
            output::flush()
        },
    )?;
    let a = &r.solution;
    let value = a.value;
    let result = match value.signum() {
        1 => "first player wins",
        0 => "draw",
        _ => "second player wins",
    };
    let pv = a.pv_line();
    let best_turn: Vec<usize> = pv.turns.first().cloned().unwrap_or_default();
    let stats = &a.stats;
    if args.json {
        #[derive(Serialize)]
        struct TurnValue<'a> {
            turn: &'a [usize],
            value: i32,
        }
        #[derive(Serialize)]
        struct Pie<'a> {
            value: i32,
            fairest: &'a [Vec<usize>],
        }
        #[derive(Serialize)]
        struct Solved<'a> {
            #[serde(flatten)]
            game: SolvedGame,
            #[serde(skip_serializing_if = "Option::is_none")]
            turns: Option<Vec<TurnValue<'a>>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pie: Option<Pie<'a>>,
        }
        let j = Solved {
            game: SolvedGame {
                pits,
                seeds,
                rules: rules.slug(),
                to_move: Side::South.letter(),
                value,
                result: Outcome::of(value),
                best_turn: best_turn.clone(),
                pv: pv.to_string(),
                nodes: stats.nodes,
                nodes_per_second: stats.nodes_per_second().round() as u64,
                table_seeds: r.table_seeds,
                build_seconds: round3(r.build_seconds),
                solve_seconds: round3(r.solve_seconds),
                threads: args.search.threads(),
            },
            turns: r.turns.as_ref().map(|t| {
                t.turns
                    .iter()
                    .map(|tv| TurnValue {
                        turn: &tv.houses,
                        value: tv.value,
                    })
                    .collect()
            }),
            pie: r.turns.as_ref().filter(|_| args.pie).map(|t| Pie {
                value: t.pie.value,
                fairest: &t.pie.fairest,
            }),
        };
        outln!("{}", json_line(&j))?;
        return Ok(());
    }
    outln!("value: {} ({result})", signed(value))?;
    outln!("best first turn: {}", turn_text(&best_turn))?;
    if let Some(t) = &r.turns {
        if args.all_moves {
            outln!("first turns (value for South):")?;
            for tv in &t.turns {
                outln!("  {:<12} {:>4}", turn_text(&tv.houses), signed(tv.value))?;
            }
        }
        if args.pie {
            let fairest: Vec<String> = t.pie.fairest.iter().map(|h| turn_text(h)).collect();
            outln!(
                "pie rule (North may swap after South's first turn): {} for South; fairest opening: {}",
                signed(t.pie.value),
                fairest.join(", ")
            )?;
        }
    }
    outln!("principal variation: {pv}")?;
    outln!(
        "nodes: {}  ({:.2} M nodes/s, {} probe hits)",
        stats.nodes,
        stats.nodes_per_second() / 1e6,
        stats.probe_hits
    )?;
    outln!(
        "time: {:.2} s solving, {:.2} s total",
        r.solve_seconds,
        r.solve_seconds + r.build_seconds
    )?;
    Ok(())
}
