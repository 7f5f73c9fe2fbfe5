//! `kalah certify`: checks a solve's certificate (src/certificate/) in
//! this process: its logic in full, its perfect game, and the facts it
//! rests on searched again (a sample, or all).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::certificate::{Certificate, Fact};
use crate::cli::CliError;
use crate::flags::TableArgs;
use crate::outln;
use crate::output::json_line;
use crate::service::setup::{self, StopBy};
use kalah_solver::sample::SplitMix64;
use kalah_solver::search::SearchConfig;
use kalah_solver::{Position, Probe};

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// The certificate (`kalah-cluster certificate` writes one; a finished
    /// long solve leaves one under results/).
    pub file: PathBuf,
    /// Search again this many of its facts, chosen at random (with
    /// --seed), each from nothing: they must agree with the certificate.
    #[arg(long, value_name = "N", default_value_t = 200, conflicts_with = "all")]
    pub sample: usize,
    /// Search every fact again.
    #[arg(long)]
    pub all: bool,
    /// Seed of the sample's choice (the same seed, the same facts).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table, MiB.
    #[arg(long, value_name = "MB", default_value_t = 1024)]
    pub tt_mb: usize,
    #[command(flatten)]
    pub tables: TableArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report {
    file: String,
    pits: usize,
    seeds: usize,
    rules: String,
    /// The position the claim is about when it is not the game's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<String>,
    lower: i32,
    upper: i32,
    facts: usize,
    expanded: usize,
    logic_boards: usize,
    logic_facts_used: usize,
    perfect_game: Option<i32>,
    searched: usize,
    search_nodes: u64,
    search_seconds: f64,
    table_seeds: u32,
    ok: bool,
}

pub fn certify(a: &CertifyArgs) -> Result<(), CliError> {
    let cert = Certificate::read(&a.file).map_err(|e| CliError::Input(e.to_string()))?;
    let h = &cert.header;
    let (game, start) = cert.game().map_err(CliError::Input)?;
    let logic = cert
        .check_logic()
        .map_err(|e| CliError::Failure(format!("{}: {e}", a.file.display())))?;
    eprintln!(
        "kalah certify: logic holds: {} <= value <= {} for Kalah({},{}) {}{}, from {} of {} facts over {} boards",
        h.lower,
        h.upper,
        h.pits,
        h.seeds,
        h.rules,
        h.start.as_ref().map_or(String::new(), |s| format!(" from {s}")),
        logic.facts_used,
        h.facts,
        logic.boards
    );
    let perfect_game = if h.perfect_game.is_empty() {
        None
    } else {
        let end = replay(&game, start, &h.perfect_game)?;
        if h.lower != h.upper || end != h.lower {
            return Err(CliError::Failure(format!(
                "{}: the perfect game ends {end:+}, not the value {:+}",
                a.file.display(),
                h.lower
            )));
        }
        Some(end)
    };
    let chosen = choose(
        &cert.facts,
        if a.all { usize::MAX } else { a.sample },
        a.seed,
    );
    let tables = crate::progress::build::prepare_tables(
        &a.tables.policy(),
        h.pits,
        game.rules(),
        start.total_seeds(),
        false,
    )?;
    let table_seeds = tables.as_ref().map_or(0, |t| t.max_seeds());
    let config = SearchConfig {
        tt_mb: a.tt_mb,
        threads: a.threads.max(1),
        ..SearchConfig::default()
    };
    let solver = setup::new_solver(game.clone(), config, tables, StopBy::Interrupt)?;
    let started = std::time::Instant::now();
    let mut nodes = 0u64;
    let mut last = std::time::Instant::now();
    for (i, f) in chosen.iter().enumerate() {
        solver.reset_stats();
        check_fact(&solver, f).map_err(|e| match e {
            Check::Interrupted => CliError::Failure(format!(
                "stopped by a signal after {i} of {} facts searched",
                chosen.len()
            )),
            Check::Disagrees(what) => CliError::Failure(format!(
                "{}: unit {} is wrong: {what}",
                a.file.display(),
                f.unit
            )),
        })?;
        nodes += solver.stats().nodes;
        if last.elapsed().as_secs_f64() >= 10.0 {
            last = std::time::Instant::now();
            eprintln!(
                "kalah certify: {} of {} facts searched again, all agree ({} nodes, {:.0} s)",
                i + 1,
                chosen.len(),
                nodes,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let report = Report {
        file: a.file.display().to_string(),
        pits: h.pits,
        seeds: h.seeds,
        rules: h.rules.clone(),
        start: h.start.clone(),
        lower: h.lower,
        upper: h.upper,
        facts: h.facts,
        expanded: h.expanded,
        logic_boards: logic.boards,
        logic_facts_used: logic.facts_used,
        perfect_game,
        searched: chosen.len(),
        search_nodes: nodes,
        search_seconds: started.elapsed().as_secs_f64(),
        table_seeds,
        ok: true,
    };
    if a.json {
        outln!("{}", json_line(&report))?;
        return Ok(());
    }
    let claim = if h.lower == h.upper {
        format!("value {:+}", h.lower)
    } else {
        format!("{} <= value <= {}", h.lower, h.upper)
    };
    outln!(
        "certified: Kalah({},{}) {}, {claim} (for the first player){}",
        h.pits,
        h.seeds,
        h.rules,
        h.start
            .as_ref()
            .map_or(String::new(), |s| format!(" from {s}"))
    )?;
    outln!(
        "logic: {} facts and {} expanded boards prove it ({} facts used, {} boards evaluated)",
        h.facts,
        h.expanded,
        logic.facts_used,
        logic.boards
    )?;
    if let Some(end) = perfect_game {
        outln!(
            "perfect game: {} sowings, ends {end:+}",
            h.perfect_game.len()
        )?;
    }
    outln!(
        "facts searched again: {} of {} ({}), all agree; {} nodes in {:.1} s over {}",
        chosen.len(),
        h.facts,
        if a.all {
            "all".to_string()
        } else {
            format!("a sample, seed {}", a.seed)
        },
        nodes,
        report.search_seconds,
        if table_seeds > 0 {
            format!("tables of {table_seeds} seeds")
        } else {
            "no tables".to_string()
        }
    )?;
    Ok(())
}

/// Replays houses (1-based, one a sowing) from `start`: the final score
/// for the first player.
fn replay(game: &kalah_solver::Game, start: Position, houses: &[usize]) -> Result<i32, CliError> {
    let mut pos = start;
    for (i, &h) in houses.iter().enumerate() {
        pos.play(game, h).map_err(|e| {
            CliError::Failure(format!(
                "the perfect game's move {} (house {h}): {e}",
                i + 1
            ))
        })?;
    }
    pos.final_score(game.rules())
        .ok_or_else(|| CliError::Failure("the perfect game does not reach the end".into()))
}

enum Check {
    Interrupted,
    Disagrees(String),
}

/// Searches `f`'s bounds again.
fn check_fact(solver: &kalah_solver::Solver, f: &Fact) -> Result<(), Check> {
    if let Some(l) = f.lower {
        if !solver
            .board_at_least(f.board, l)
            .map_err(|_| Check::Interrupted)?
        {
            return Err(Check::Disagrees(format!(
                "it says value >= {l} of board {:032x}; searched again, value < {l}",
                f.board.packed()
            )));
        }
    }
    if let Some(u) = f.upper {
        if solver
            .board_at_least(f.board, u + 1)
            .map_err(|_| Check::Interrupted)?
        {
            return Err(Check::Disagrees(format!(
                "it says value <= {u} of board {:032x}; searched again, value > {u}",
                f.board.packed()
            )));
        }
    }
    Ok(())
}

/// `n` of `facts` (all when there are no more), chosen by the engine's
/// SplitMix64 from `seed` (a partial Fisher-Yates shuffle), in the
/// certificate's order.
fn choose(facts: &[Fact], n: usize, seed: u64) -> Vec<&Fact> {
    let mut index: Vec<usize> = (0..facts.len()).collect();
    let n = n.min(facts.len());
    let mut rng = SplitMix64::new(seed);
    for i in 0..n {
        let j = i + (rng.next_u64() % (facts.len() - i) as u64) as usize;
        index.swap(i, j);
    }
    let mut picked: Vec<usize> = index[..n].to_vec();
    picked.sort_unstable();
    picked.into_iter().map(|i| &facts[i]).collect()
}
