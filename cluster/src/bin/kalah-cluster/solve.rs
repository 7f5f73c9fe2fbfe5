//! `prepare` and `solve`: the tables a solve reads, the coordinator over
//! its engine (MPI ranks or this process), the worker ranks, the answer.

use std::sync::Arc;

use kalah::progress::build::prepare_tables;
use kalah::service::Error;
use kalah_solver::table::Tables;
use kalah_solver::{Game, Position, Probe};

use kalah_cluster::coordinator::{coordinate, Finished, Settings};
use kalah_cluster::plan::{TopTree, CUT_EARLY};
use kalah_cluster::report;
use kalah_cluster::store::{Busy, RunConfig, StoreError, WorkDir};
use kalah_cluster::unit::RunIdentity;
use kalah_cluster::worker::UnitSolver;

use crate::args::{GameSpec, SolveArgs};
use crate::{failure, print_json, print_line};

pub(crate) fn start_of(g: &GameSpec) -> Result<Position, Error> {
    // The solver's one check of a game's size: the message `kalah` and
    // the HTTP API give for the same counts.
    kalah_solver::GameSize::new(g.pits as u64, g.seeds as u64)
        .map(kalah_solver::GameSize::start)
        .map_err(|e| Error::Input(e.to_string()))
}

pub(crate) fn tables_of(g: &GameSpec, build: bool) -> Result<Option<Arc<Tables>>, Error> {
    let start = start_of(g)?;
    prepare_tables(
        &g.tables.policy(),
        g.pits,
        g.rules.rules(),
        start.total_seeds(),
        build,
    )
}

pub(crate) fn prepare(g: &GameSpec) -> Result<(), Error> {
    let t = tables_of(g, true)?;
    match t {
        Some(t) => print_line(format_args!(
            "endgame tables of up to {} seeds ready in {}",
            t.max_seeds(),
            t.dir().display()
        ))?,
        None => print_line(format_args!("no endgame tables for this game"))?,
    }
    Ok(())
}

/// The default frontier: deep enough that the units outnumber the workers
/// of a cluster many times over.
pub(crate) fn default_frontier(total_seeds: u32) -> u32 {
    if total_seeds >= 50 {
        8
    } else {
        6
    }
}

/// A worker's transposition table: `--tt-mb`, else the size `kalah solve`
/// gives the whole game over the same tables (a worker searches boards of
/// that game, and one machine's solve is what its cost is measured
/// against).
pub(crate) fn worker_tt_mb(a: &SolveArgs, start: Position, tables: Option<&Tables>) -> usize {
    a.tt_mb.unwrap_or_else(|| {
        let table_seeds = tables.map_or(0, |t| t.max_seeds());
        kalah::service::setup::default_tt_mb(start.total_seeds(), table_seeds, false)
    })
}

pub(crate) fn solve(a: &SolveArgs) -> Result<(), Error> {
    let start = start_of(&a.game)?;
    if a.local {
        if a.rank_workers > 1 {
            return Err(Error::Input(format!(
                "--rank-workers {} is for MPI worker ranks; --local answers one unit at a time",
                a.rank_workers
            )));
        }
        if a.share_work > 0 {
            return Err(Error::Input(format!(
                "--share-work {} is for MPI worker ranks; --local has one table",
                a.share_work
            )));
        }
        return coordinate_here(a, start, None);
    }
    mpi_solve(a, start)
}

#[cfg(not(feature = "mpi"))]
pub(crate) fn mpi_solve(_: &SolveArgs, _: Position) -> Result<(), Error> {
    Err(Error::Input(
        "this kalah-cluster was built without MPI: build it with `cargo build --release -p kalah-cluster --features mpi`, or answer the units in this process with --local".into(),
    ))
}

/// Writes `kalah-cluster (rank R): TEXT` and a newline to stderr in one
/// write: `eprintln!` writes a line in pieces, and under mpirun the
/// ranks' stderr meet in one stream, where another rank's line could
/// land between the pieces.
#[cfg(feature = "mpi")]
pub(crate) fn rank_line(rank: i32, text: &str) {
    let line = format!("kalah-cluster (rank {rank}): {text}\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}

#[cfg(feature = "mpi")]
pub(crate) fn mpi_solve(a: &SolveArgs, start: Position) -> Result<(), Error> {
    use kalah_cluster::mpi_engine::{MpiEngine, World};
    let world = World::init().map_err(failure)?;
    if world.size() < 2 {
        return Err(Error::Input(
            "kalah-cluster solve needs at least 2 ranks (a coordinator and a worker): mpirun -n W+1"
                .into(),
        ));
    }
    // Which process is which rank: for people (and the fault tests) who
    // want to stop one.
    let ranks = a.work.join("ranks");
    let pid_file = ranks.join(format!("{}.pid", world.rank()));
    let noted = std::fs::create_dir_all(&ranks)
        .and_then(|()| std::fs::write(&pid_file, format!("{}\n", std::process::id())));
    let result = if let Err(e) = noted {
        Err(Error::Input(format!("{}: {e}", pid_file.display())))
    } else if world.rank() == 0 {
        coordinate_here(
            a,
            start,
            Some(&mut || Box::new(MpiEngine::new(&world, a.rank_workers))),
        )
    } else {
        tables_of(&a.game, false)
            .and_then(|t| {
                let tt_mb = worker_tt_mb(a, start, t.as_deref());
                let game = Game::new(a.game.pits, a.game.rules.rules());
                UnitSolver::sharing(game, t, tt_mb, a.rank_workers).map_err(failure)
            })
            .and_then(|mut slots| {
                // Sharing needs another worker rank to share with.
                let sharing = a.share_work > 0 && world.size() > 2;
                if sharing {
                    for slot in &mut slots {
                        slot.publish(a.share_work);
                    }
                }
                let shared = world.serve(&slots).map_err(failure)?;
                if sharing {
                    rank_line(
                        world.rank(),
                        &format!(
                            "shared {} table entries with the other worker ranks, took {} from them",
                            shared.sent, shared.taken
                        ),
                    );
                }
                Ok(())
            })
    };
    if let Err(e) = &result {
        // One rank failing ends them all: the others would wait forever.
        rank_line(world.rank(), &e.to_string());
        world.abort(if matches!(e, Error::Input(_)) { 2 } else { 1 });
    }
    result
}

pub(crate) type EngineMaker<'m> =
    &'m mut dyn FnMut() -> Box<dyn kalah_cluster::coordinator::Engine + 'm>;

/// The run's identity and settings from the flags, and its work directory
/// opened (locked) under them: a directory of another game or settings is
/// refused, naming it.
///
/// # Errors
/// A busy or unreadable directory (failure), one of another run (input).
pub(crate) fn open_run(
    a: &SolveArgs,
    start: Position,
    table_seeds: Option<u32>,
) -> Result<(RunIdentity, RunConfig, WorkDir), Error> {
    let rules = a.game.rules.rules();
    let identity = RunIdentity {
        pits: a.game.pits,
        seeds: a.game.seeds,
        rules: rules.slug(),
        table_seeds: table_seeds.unwrap_or(0),
    };
    let frontier = a
        .frontier
        .unwrap_or_else(|| default_frontier(start.total_seeds()));
    let cut_early = a
        .cut_early
        .unwrap_or(if a.unit_budget > 0 { CUT_EARLY } else { 0 });
    let config = RunConfig {
        format: kalah_cluster::store::FORMAT,
        identity: identity.clone(),
        frontier,
        budget: a.unit_budget,
        cut_early,
    };
    let busy = if a.wait { Busy::Wait } else { Busy::Refuse };
    let dir = WorkDir::open(&a.work, &config, busy).map_err(|e| match e {
        StoreError::Busy { .. } | StoreError::Io { .. } => failure(e),
        _ => Error::Input(e.to_string()),
    })?;
    Ok((identity, config, dir))
}

/// The coordinator: opens the work directory and the tables, runs the top
/// tree over `engine` (the in-process one when `None`), prints the answer.
pub(crate) fn coordinate_here(
    a: &SolveArgs,
    start: Position,
    engine: Option<EngineMaker<'_>>,
) -> Result<(), Error> {
    let rules = a.game.rules.rules();
    let game = Game::new(a.game.pits, rules);
    let t0 = std::time::Instant::now();
    let tables = tables_of(&a.game, false)?;
    let build_seconds = t0.elapsed().as_secs_f64();
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
    let (identity, config, mut dir) = open_run(a, start, table_seeds)?;
    let (frontier, cut_early) = (config.frontier, config.cut_early);
    let loaded = dir.load().map_err(failure)?;
    for r in &loaded.refused {
        eprintln!("kalah-cluster: refused (recomputed): {r}");
    }
    if !loaded.records.is_empty() {
        eprintln!(
            "kalah-cluster: resuming from {}: {} units answered before",
            a.work.display(),
            loaded.records.len()
        );
    }
    let probe = tables.as_ref().map(|t| &**t as &dyn Probe);
    let mut engine: Box<dyn kalah_cluster::coordinator::Engine + '_> = match engine {
        Some(make) => make(),
        None => {
            let tt_mb = worker_tt_mb(a, start, tables.as_deref());
            let threads = if a.threads == 0 {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            } else {
                a.threads
            };
            let solver = UnitSolver::threaded(game.clone(), tables.clone(), tt_mb, threads)
                .map_err(failure)?;
            Box::new(kalah_cluster::local::LocalEngine::new(solver))
        }
    };
    let workers = engine.workers();
    // Speculation only where workers would idle: never in this process.
    let speculate = if a.local { 0 } else { workers };
    let mut tree = TopTree::new(&game, probe, frontier, start, speculate);
    tree.ahead = a.ahead;
    tree.cut_early = cut_early;
    let settings = Settings {
        budget: a.unit_budget,
        policy: a.policy.policy(),
        progress_every: a.progress,
        progress_json: a.json,
        model_nodes: kalah::service::cost::predicted_nodes(
            a.game.pits,
            a.game.seeds,
            rules,
            table_seeds.unwrap_or(0),
        ),
    };
    let result = coordinate(
        &tree,
        &identity,
        &loaded.records,
        &mut *engine,
        &mut dir,
        settings,
    );
    if a.pack {
        match dir.pack() {
            Ok(Some((path, n))) => {
                eprintln!("kalah-cluster: packed {n} records into {}", path.display())
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("kalah-cluster: could not pack the records: {e} (they stay in units/)")
            }
        }
    }
    let mut done = result.map_err(failure)?;
    for r in &loaded.cancelled {
        done.counts.add_cancelled(r);
    }
    print_answer(
        a,
        &game,
        start,
        &done,
        (table_seeds, build_seconds),
        workers,
        (frontier, cut_early),
    )
}

pub(crate) fn print_answer(
    a: &SolveArgs,
    game: &Game,
    start: Position,
    done: &Finished,
    (table_seeds, build_seconds): (Option<u32>, f64),
    workers: usize,
    frontier_cut_early: (u32, u32),
) -> Result<(), Error> {
    let houses: Vec<usize> = done.solved.pv.iter().map(|m| m.house).collect();
    let replayed = report::replay(game, start, &houses).map_err(|e| failure(e.0))?;
    if replayed != done.solved.value {
        return Err(failure(format!(
            "the perfect game found ends {replayed:+}, not the value {:+}: refused",
            done.solved.value
        )));
    }
    let j = report::json(
        game,
        a.game.seeds,
        done,
        table_seeds,
        build_seconds,
        workers,
        frontier_cut_early,
        &a.work.display().to_string(),
    );
    if a.json {
        print_json(&j)?;
        return Ok(());
    }
    print_line(format_args!(
        "Kalah({},{}), {}",
        game.pits(),
        a.game.seeds,
        game.rules()
    ))?;
    print_line(format_args!(
        "value: {:+} ({})",
        j.game.value,
        match j.game.value.signum() {
            1 => "first player wins",
            0 => "draw",
            _ => "second player wins",
        }
    ))?;
    print_line(format_args!("principal variation: {}", j.game.pv))?;
    print_line(format_args!(
        "units: {} answered ({} this run, {} split), {} cancelled",
        j.counts.units, j.counts.units_this_run, j.counts.split_units, j.counts.cancelled_units
    ))?;
    print_line(format_args!(
        "nodes: {} ({} in answered units, {} in split ones, {} in cancelled ones)",
        j.game.nodes, j.counts.unit_nodes, j.counts.split_nodes, j.counts.cancelled_nodes
    ))?;
    print_line(format_args!(
        "root: first guess {}, tests {}",
        j.guess.map_or("-".into(), |g| format!("{g:+}")),
        j.root_tests.join(" ")
    ))?;
    print_line(format_args!(
        "time: {:.2} s with {} workers",
        j.game.solve_seconds, j.game.threads
    ))?;
    Ok(())
}
