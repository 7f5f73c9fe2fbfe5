//! `kalah-dist`: one exact solve spread over MPI ranks (rank 0 coordinates,
//! the others answer units), its table preparation, a replay of a recorded
//! run on simulated workers, and the engine's dispatch measurement.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use kalah::cli::engine::{prepare_tables, TableArgs};
use kalah::cli::{CliError, RulesArgs};
use kalah_solver::table::Tables;
use kalah_solver::{Game, Position, Probe};

use kalah_dist::coordinator::{coordinate, Finished, Policy, Settings};
use kalah_dist::emulate::{emulate, EmuSettings};
use kalah_dist::fill::{fill, FillSettings, Simulation};
use kalah_dist::plan::{TopTree, AHEAD_TESTS, CUT_EARLY};
use kalah_dist::report;
use kalah_dist::sim_report::{EmuReport, EmuRun, SimReport};
use kalah_dist::store::{Busy, RunConfig, StoreError, WorkDir};
use kalah_dist::unit::RunIdentity;
use kalah_dist::worker::UnitSolver;

/// One exact Kalah solve spread over many processes: run `solve` under
/// `mpirun -n W+1` (or Slurm's `srun`); rank 0 holds the top of the tree
/// and its state in the work directory, ranks 1..W answer units.
/// scripts/dist-local.sh does all of it on one machine.
#[derive(Parser, Debug)]
#[command(name = "kalah-dist", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open (and build when missing) the endgame tables a solve will use,
    /// before the ranks start: run once, on one machine of the cluster.
    Prepare(GameSpec),
    /// Solve Kalah(M,N) from the start: every rank runs this command.
    /// Killed, the same command resumes from the work directory.
    Solve(SolveArgs),
    /// Where the run in a work directory stands, without running it: the
    /// game, the root's bounds so far, units and nodes recorded, CPU
    /// time, whether a process runs on it now.
    Status(StatusArgs),
    /// Pack the loose records of a work directory (units/,
    /// cancelled.jsonl) into its next sealed segment (segments/NNNNNN.jsonl.gz):
    /// one small file to commit at the end of a stretch of a long run.
    Pack(PackArgs),
    /// Write the certificate of the run in a work directory: the facts its
    /// records establish, the top of the tree above them, and the bounds
    /// on the value they prove (the value and a perfect game once solved).
    /// `kalah certify FILE` checks it.
    Certificate(CertificateArgs),
    /// Replay the run recorded in a work directory on simulated workers.
    Simulate(SimArgs),
    /// Measure the engine: round trips of empty units through MPI.
    Ping(PingArgs),
}

#[derive(Args, Debug)]
struct GameSpec {
    /// Houses a side.
    #[arg(short = 'm', long, default_value_t = 6)]
    pits: usize,
    /// Seeds a house at the start.
    #[arg(short = 'n', long)]
    seeds: usize,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    tables: TableArgs,
}

#[derive(Args, Debug)]
struct SolveArgs {
    #[command(flatten)]
    game: GameSpec,
    /// The work directory: the coordinator's whole state (created when
    /// new; must be the same command's to resume).
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
    /// Boards this many sowings below the start are units (default: 6,
    /// 8 from 50 seeds on).
    #[arg(long, value_name = "PLIES")]
    frontier: Option<u32>,
    /// A test expected to hold (a cut node) up to this many sowings above the
    /// frontier is a unit too: its worker tries the board's children in
    /// its own order, where the top tree would take them one at a time,
    /// an answer and a plan each (0: units only at the frontier). Default:
    /// 2 with a --unit-budget (a unit that runs long is split), 0 without
    /// (such a unit would hold up the run whole). Part of the run, as the
    /// frontier is.
    #[arg(long, value_name = "PLIES")]
    cut_early: Option<u32>,
    /// A test that searches more nodes than this is stopped and its board's
    /// children become units instead (0: never).
    #[arg(long, value_name = "NODES", default_value_t = 0)]
    unit_budget: u64,
    #[command(flatten)]
    policy: PolicyArgs,
    /// Root MTD(f) tests planned ahead of the pending one, for idle
    /// workers: the next test whichever way the pending one goes, and so
    /// on this many tests deep; the perfect game's moves after one that
    /// waits (0: neither).
    #[arg(long, value_name = "TESTS", default_value_t = AHEAD_TESTS)]
    ahead: usize,
    /// A top-tree node learns only the bound its test asked, not the
    /// tighter one its children's facts give (fail-hard; by default
    /// fail-soft, which can decide later tests without units). To
    /// measure what that saves.
    #[arg(long)]
    fail_hard: bool,
    /// Each worker's transposition table, MiB (default: `kalah solve`'s
    /// for the same game and tables, 2048 for Kalah(6,5) over 24 seeds);
    /// with --rank-workers N, each worker's share of its rank's table of
    /// N times this.
    #[arg(long, value_name = "MB")]
    tt_mb: Option<usize>,
    /// Workers a worker rank runs (MPI): N units searched at once, on one
    /// transposition table shared by the N, as one rank a cluster node
    /// with N cores (`mpirun -n NODES+1 --map-by node`, or Slurm's
    /// `--ntasks-per-node 1 --cpus-per-task N`). Every worker sees what the
    /// others of its rank stored. The same on every rank; the work
    /// directory does not depend on it.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = at_least_one)]
    rank_workers: usize,
    /// Worker ranks send each other the table entries of at least this
    /// much work (log2 of a subtree's nodes, plus one) that their
    /// searches store, and store the others' in their own tables (MPI,
    /// two worker ranks or more): a subtree one rank searched is not
    /// searched again on another. 0: each rank's table is its own. The
    /// same on every rank; the work directory does not depend on it.
    #[arg(long, value_name = "WORK", default_value_t = 0)]
    share_work: u8,
    /// Without MPI: answer the units in this process, one at a time.
    #[arg(long)]
    local: bool,
    /// Search threads of the --local worker (0: all cores). Each unit is
    /// searched by this many threads on one table.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "local")]
    threads: usize,
    /// When another process runs on the work directory, wait for it to
    /// end instead of refusing at once.
    #[arg(long)]
    wait: bool,
    /// When the run ends or is stopped (Ctrl-C, SIGTERM), pack its loose
    /// records into the work directory's next sealed segment (as
    /// `kalah-dist pack`): the files a long run commits at each stop.
    #[arg(long)]
    pack: bool,
    /// Print one JSON object: `kalah solve --json`'s fields and the units'.
    #[arg(long)]
    json: bool,
    /// Progress lines on stderr every this many seconds (0: none).
    #[arg(long, default_value_t = 5.0)]
    progress: f64,
}

/// The coordinator's policy ([`Policy`]): the same flags for `solve` and
/// `simulate`.
#[derive(Args, Debug)]
struct PolicyArgs {
    /// A test still unanswered after this fraction of the time its unit
    /// budget takes is likely to be split: its board's children are
    /// handed to idle workers beside it; such a child turns hot after
    /// half the fraction (0: never; no effect without a unit budget).
    #[arg(long, value_name = "FRACTION", default_value_t = Policy::DEFAULT.presplit, value_parser = fraction)]
    presplit: f64,
    /// Never stop a speculative unit to free its worker for a unit the
    /// search needs (by default the one issued last is stopped).
    #[arg(long)]
    no_preempt: bool,
    /// Hand units to idle workers in the search's order only (by default
    /// an idle worker takes a needed unit at or just below the boards of
    /// the units it had, whose subtrees its transposition table holds).
    #[arg(long)]
    no_affinity: bool,
    /// Ignore the bounds a worker's table holds after a unit beyond its
    /// verdict (by default they are facts like verdicts: the children a
    /// split unit decided need no units of their own). To measure what
    /// they save.
    #[arg(long)]
    no_known: bool,
    /// Do not hand a worker whose test was split at its budget the child
    /// its search was in (by default it resumes that child, whose subtree
    /// its table holds). To measure what that saves.
    #[arg(long)]
    no_resume: bool,
    /// Hand out the units the search needs in the top tree's order only
    /// (by default, when more wait than workers are idle, those needed
    /// since the latest answers go first: the next unit of a chain of
    /// answers before a test's first fan-out). To measure what that saves.
    #[arg(long)]
    no_recent_first: bool,
    /// A batch of answers only of units the last plan had as speculation
    /// makes no new plan: their workers take the last plan's units (by
    /// default every batch makes a plan). Measured no faster: fewer
    /// plans, but more units split (docs/PERFORMANCE.md).
    #[arg(long)]
    lazy_plans: bool,
}

impl PolicyArgs {
    fn policy(&self) -> Policy {
        Policy {
            presplit: self.presplit,
            preempt: !self.no_preempt,
            affinity: !self.no_affinity,
            known: !self.no_known,
            resume: !self.no_resume,
            recent_first: !self.no_recent_first,
            lazy: self.lazy_plans,
        }
    }
}

#[derive(Args, Debug)]
struct SimArgs {
    /// A work directory of a finished run.
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
    #[command(flatten)]
    tables: TableArgs,
    /// Simulated worker counts, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,512,4096")]
    workers: Vec<usize>,
    /// Nodes a second of one worker (default: the recorded units' nodes
    /// over their seconds).
    #[arg(long)]
    rate: Option<f64>,
    /// Seconds to hand out a unit and get its answer back.
    #[arg(long, default_value_t = 0.0001)]
    latency: f64,
    #[command(flatten)]
    policy: PolicyArgs,
    /// The coordinator's `solve --ahead`.
    #[arg(long, value_name = "TESTS", default_value_t = AHEAD_TESTS)]
    ahead: usize,
    /// The coordinator's `solve --fail-hard`.
    #[arg(long)]
    fail_hard: bool,
    /// The run's `solve --cut-early` (default the run's; another value
    /// asks for units the run never recorded, whose costs a replay
    /// guesses).
    #[arg(long, value_name = "PLIES")]
    cut_early: Option<u32>,
    /// Dispatch in waves, as Slurm job arrays would: each wave costs this
    /// many seconds beyond its longest unit, and no unit is stopped.
    #[arg(long, value_name = "SECONDS")]
    waves: Option<f64>,
    /// Also predict a game this many times the recorded work (e.g. the
    /// ratio of Kalah(6,6)'s nodes to Kalah(6,5)'s): its units assumed
    /// like the recorded ones, that many times as many, so that on P
    /// workers it keeps the efficiency the recorded run has on P / GROWTH.
    #[arg(long)]
    growth: Option<f64>,
    /// Nodes a unit without a measured cost takes (a guessed unit; see
    /// the "guessed" column): default the unit budget, the most a test
    /// takes before it is split. 0 shows the other extreme.
    #[arg(long, value_name = "NODES")]
    guess_nodes: Option<u64>,
    /// Each answered unit of the recorded run costs this many times its
    /// recorded nodes (the run's workers had tables warm from related
    /// units, one among many workers has fewer; `cargo run --release -p
    /// kalah-dist --example cold_cost` measures the ratio). Filled and
    /// split units are as measured.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, value_parser = positive)]
    recorded_cost: f64,
    /// First make the record whole for these worker counts: solve for
    /// real, here, every unit a simulated schedule issues that the record
    /// lacks (stored in the work directory as filled records), simulate
    /// again, until no schedule lacks one. Stopped, it keeps what it
    /// solved; run again, it goes on.
    #[arg(long)]
    fill: bool,
    /// Threads solving units for --fill or --emulate (default: the
    /// machine's cores).
    #[arg(long, value_name = "N")]
    fill_threads: Option<usize>,
    /// --fill solves at most this many units, then stops and says so.
    #[arg(long, value_name = "UNITS", default_value_t = 20000)]
    fill_cap: usize,
    /// Each --fill thread's transposition table, or with --emulate each
    /// simulated worker's, MiB (a worker's `solve --tt-mb`).
    #[arg(long, default_value_t = 256)]
    tt_mb: usize,
    /// Do not replay the records: emulate the run on each worker count,
    /// every unit solved here, when the coordinator hands it out, on its
    /// simulated worker's own table (--tt-mb), its time its nodes at
    /// --rate (default 2e6). Measures what units cost on many workers,
    /// nothing guessed; costs about the nodes of a real run on that many
    /// workers, and --tt-mb of memory a worker.
    #[arg(long, conflicts_with_all = ["fill", "waves", "guess_nodes", "recorded_cost", "growth"])]
    emulate: bool,
    /// With --emulate: simulated workers a machine, searching on one
    /// shared table of N times --tt-mb (as one rank's search threads on a
    /// cluster node would); 1: each worker its own table.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "emulate", value_parser = at_least_one)]
    rank_workers: usize,
    /// With --emulate: the coordinator's own work (taking answers in,
    /// planning, handing units out), as long as its thread computes in
    /// this process, passes on the simulated clock, as a real
    /// coordinator's keeps answers waiting (without it, it takes no
    /// simulated time; its time is reported either way).
    #[arg(long, requires = "emulate")]
    charge_plans: bool,
    /// With --emulate: machines hand each other their table entries of at
    /// least this much work (log2 of a subtree's nodes, plus one), as
    /// ranks sharing high-work entries over MPI would; an entry reaches
    /// the other machines at the end of the step of the clock it was
    /// stored in. 0: each machine's table is its own.
    #[arg(long, value_name = "WORK", default_value_t = 0, requires = "emulate")]
    share_work: u8,
    /// With --emulate, a what-if (the figures are then no measurement):
    /// a unit searches at K times the rate while the search needs it
    /// (speculation at the rate), as if its machine gave it K cores at no
    /// cost to its other units and with nothing lost to splitting its
    /// search. An upper bound on what threads inside a unit could give.
    #[arg(long, value_name = "K", default_value_t = 1.0, requires = "emulate", value_parser = positive)]
    needed_speed: f64,
    /// With --charge-plans, a what-if (the figures are then no
    /// measurement): the coordinator's own work passes on the clock at
    /// FACTOR times the CPU time it took here (0.5: a coordinator twice
    /// as fast as this machine's; 0: as without --charge-plans).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, requires = "charge_plans", value_parser = non_negative)]
    plan_cost: f64,
    /// With --emulate: write every unit of each emulated run, answered or
    /// stopped, as one JSON record a line (a work directory's record
    /// fields, docs/json.md) to this file; with several worker counts,
    /// FILE.P for P workers.
    #[arg(long, value_name = "FILE", requires = "emulate")]
    records: Option<PathBuf>,
    /// With --emulate: the unit budget, nodes (default the run's; 0: none).
    #[arg(long, value_name = "NODES", requires = "emulate")]
    budget: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct StatusArgs {
    /// The work directory.
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
    /// Directory of the endgame tables the top tree reads small boards
    /// from (default: as `kalah`'s); none built: the replay goes without.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct CertificateArgs {
    /// The work directory.
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
    /// Where to write it (default: certificate.jsonl.gz in the work
    /// directory).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Directory of the endgame tables the run read small boards from
    /// (default: as `kalah`'s).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct PackArgs {
    /// The work directory (no run may be running on it).
    #[arg(long, value_name = "DIR")]
    work: PathBuf,
}

#[derive(Args, Debug)]
struct PingArgs {
    /// Empty units to send.
    #[arg(long, default_value_t = 20000)]
    units: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    kalah::interrupt::install();
    let result = match cli.command {
        Command::Prepare(g) => prepare(&g),
        Command::Solve(a) => solve(&a),
        Command::Status(a) => status(&a),
        Command::Pack(a) => pack(&a),
        Command::Certificate(a) => write_certificate(&a),
        Command::Simulate(a) => sim(&a),
        Command::Ping(a) => ping(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kalah-dist: {e}");
            ExitCode::from(if matches!(e, CliError::Input(_)) {
                2
            } else {
                1
            })
        }
    }
}

fn failure(e: impl std::fmt::Display) -> CliError {
    CliError::Failure(e.to_string())
}

fn start_of(g: &GameSpec) -> Result<Position, CliError> {
    // The solver's one check of a game's size: the message `kalah` and
    // the HTTP API give for the same counts.
    kalah_solver::GameSize::new(g.pits as u64, g.seeds as u64)
        .map(kalah_solver::GameSize::start)
        .map_err(|e| CliError::Input(e.to_string()))
}

fn tables_of(g: &GameSpec, build: bool) -> Result<Option<Arc<Tables>>, CliError> {
    let start = start_of(g)?;
    prepare_tables(
        &g.tables,
        g.pits,
        g.rules.rules(),
        start.total_seeds(),
        build,
    )
}

fn prepare(g: &GameSpec) -> Result<(), CliError> {
    let t = tables_of(g, true)?;
    match t {
        Some(t) => println!(
            "endgame tables of up to {} seeds ready in {}",
            t.max_seeds(),
            t.dir().display()
        ),
        None => println!("no endgame tables for this game"),
    }
    Ok(())
}

/// The default frontier: deep enough that the units outnumber the workers
/// of a cluster many times over.
fn default_frontier(total_seeds: u32) -> u32 {
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
fn worker_tt_mb(a: &SolveArgs, start: Position, tables: Option<&Tables>) -> usize {
    a.tt_mb.unwrap_or_else(|| {
        let table_seeds = tables.map_or(0, |t| t.max_seeds());
        kalah::service::setup::default_tt_mb(start.total_seeds(), table_seeds, false)
    })
}

fn solve(a: &SolveArgs) -> Result<(), CliError> {
    let start = start_of(&a.game)?;
    if a.local {
        if a.rank_workers > 1 {
            return Err(CliError::Input(format!(
                "--rank-workers {} is for MPI worker ranks; --local answers one unit at a time",
                a.rank_workers
            )));
        }
        if a.share_work > 0 {
            return Err(CliError::Input(format!(
                "--share-work {} is for MPI worker ranks; --local has one table",
                a.share_work
            )));
        }
        return coordinate_here(a, start, None);
    }
    mpi_solve(a, start)
}

#[cfg(not(feature = "mpi"))]
fn mpi_solve(_: &SolveArgs, _: Position) -> Result<(), CliError> {
    Err(CliError::Input(
        "this kalah-dist was built without MPI: build it with `cargo build --release -p kalah-dist --features mpi`, or answer the units in this process with --local".into(),
    ))
}

/// Writes `kalah-dist (rank R): TEXT` and a newline to stderr in one
/// write: `eprintln!` writes a line in pieces, and under mpirun the
/// ranks' stderr meet in one stream, where another rank's line could
/// land between the pieces.
#[cfg(feature = "mpi")]
fn rank_line(rank: i32, text: &str) {
    let line = format!("kalah-dist (rank {rank}): {text}\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}

#[cfg(feature = "mpi")]
fn mpi_solve(a: &SolveArgs, start: Position) -> Result<(), CliError> {
    use kalah_dist::mpi_engine::{MpiEngine, World};
    let world = World::init().map_err(failure)?;
    if world.size() < 2 {
        return Err(CliError::Input(
            "kalah-dist solve needs at least 2 ranks (a coordinator and a worker): mpirun -n W+1"
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
        Err(CliError::Input(format!("{}: {e}", pid_file.display())))
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
                let shared = world.serve(&slots).map_err(CliError::Failure)?;
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
        world.abort(if matches!(e, CliError::Input(_)) {
            2
        } else {
            1
        });
    }
    result
}

type EngineMaker<'m> = &'m mut dyn FnMut() -> Box<dyn kalah_dist::coordinator::Engine + 'm>;

/// The coordinator: opens the work directory and the tables, runs the top
/// tree over `engine` (the in-process one when `None`), prints the answer.
fn coordinate_here(
    a: &SolveArgs,
    start: Position,
    engine: Option<EngineMaker<'_>>,
) -> Result<(), CliError> {
    let rules = a.game.rules.rules();
    let game = Game::new(a.game.pits, rules);
    let t0 = std::time::Instant::now();
    let tables = tables_of(&a.game, false)?;
    let build_seconds = t0.elapsed().as_secs_f64();
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
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
        format: kalah_dist::store::FORMAT,
        identity: identity.clone(),
        frontier,
        budget: a.unit_budget,
        cut_early,
    };
    let busy = if a.wait { Busy::Wait } else { Busy::Refuse };
    let mut dir = WorkDir::open(&a.work, &config, busy).map_err(|e| match e {
        StoreError::Busy { .. } | StoreError::Io { .. } => failure(e),
        _ => CliError::Input(e.to_string()),
    })?;
    let loaded = dir.load().map_err(failure)?;
    for r in &loaded.refused {
        eprintln!("kalah-dist: refused (recomputed): {r}");
    }
    if !loaded.records.is_empty() {
        eprintln!(
            "kalah-dist: resuming from {}: {} units answered before",
            a.work.display(),
            loaded.records.len()
        );
    }
    let probe = tables.as_ref().map(|t| &**t as &dyn Probe);
    let mut engine: Box<dyn kalah_dist::coordinator::Engine + '_> = match engine {
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
            Box::new(kalah_dist::local::LocalEngine::new(solver))
        }
    };
    let workers = engine.workers();
    // Speculation only where workers would idle: never in this process.
    let speculate = if a.local { 0 } else { workers };
    let mut tree = TopTree::new(&game, probe, frontier, start, speculate);
    tree.ahead = a.ahead;
    tree.fail_soft = !a.fail_hard;
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
                eprintln!("kalah-dist: packed {n} records into {}", path.display())
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("kalah-dist: could not pack the records: {e} (they stay in units/)")
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

fn print_answer(
    a: &SolveArgs,
    game: &Game,
    start: Position,
    done: &Finished,
    (table_seeds, build_seconds): (Option<u32>, f64),
    workers: usize,
    frontier_cut_early: (u32, u32),
) -> Result<(), CliError> {
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
        println!("{}", serde_json::to_string(&j).expect("plain struct"));
        return Ok(());
    }
    println!("Kalah({},{}), {}", game.pits(), a.game.seeds, game.rules());
    println!(
        "value: {:+} ({})",
        j.game.value,
        match j.game.value.signum() {
            1 => "first player wins",
            0 => "draw",
            _ => "second player wins",
        }
    );
    println!("principal variation: {}", j.game.pv);
    println!(
        "units: {} answered ({} this run, {} split), {} cancelled",
        j.counts.units, j.counts.units_this_run, j.counts.split_units, j.counts.cancelled_units
    );
    println!(
        "nodes: {} ({} in answered units, {} in split ones, {} in cancelled ones)",
        j.game.nodes, j.counts.unit_nodes, j.counts.split_nodes, j.counts.cancelled_nodes
    );
    println!(
        "root: first guess {}, tests {}",
        j.guess.map_or("-".into(), |g| format!("{g:+}")),
        j.root_tests.join(" ")
    );
    println!(
        "time: {:.2} s with {} workers",
        j.game.solve_seconds, j.game.threads
    );
    Ok(())
}

fn pack(a: &PackArgs) -> Result<(), CliError> {
    let (config, _) = RunConfig::read(&a.work).map_err(CliError::Input)?;
    let dir = WorkDir::open(&a.work, &config, Busy::Refuse).map_err(failure)?;
    match dir.pack().map_err(failure)? {
        Some((path, n)) => println!("packed {n} records into {}", path.display()),
        None => println!("{}: no loose records to pack", a.work.display()),
    }
    Ok(())
}

/// A work directory read without its lock and replayed: its run, its
/// records, the tables it probes (when here), and the top tree's plan.
struct Replayed {
    config: RunConfig,
    game: Game,
    start: Position,
    loaded: kalah_dist::store::Loaded,
    tables: Option<Arc<Tables>>,
}

impl Replayed {
    fn open(work: &std::path::Path, tables: Option<PathBuf>) -> Result<Replayed, CliError> {
        let (config, rules) = RunConfig::read(work).map_err(CliError::Input)?;
        let id = &config.identity;
        let start = Position::start(id.pits, id.seeds).map_err(failure)?;
        let game = Game::new(id.pits, rules);
        let loaded = kalah_dist::store::read_records(work, id).map_err(failure)?;
        let table_args = TableArgs {
            tables,
            table_seeds: Some(id.table_seeds),
            no_tables: id.table_seeds == 0,
            no_book: true,
        };
        let (tables, _) =
            kalah::service::setup::open_present(&table_args.policy(), id.pits, rules, false)
                .unwrap_or((None, None));
        Ok(Replayed {
            config,
            game,
            start,
            loaded,
            tables,
        })
    }

    fn probe(&self) -> Option<&dyn Probe> {
        self.tables.as_ref().map(|t| &**t as &dyn Probe)
    }

    /// The coordinator's plan over the records.
    fn plan(&self) -> Result<kalah_dist::plan::Plan, CliError> {
        use kalah_dist::facts::Facts;
        let mut facts = Facts::default();
        for r in &self.loaded.records {
            facts.add(r.key().map_err(failure)?, r.verdict);
            r.known.iter().for_each(|k| facts.add_known(k));
        }
        let mut tree = TopTree::new(
            &self.game,
            self.probe(),
            self.config.frontier,
            self.start,
            0,
        );
        tree.cut_early = self.config.cut_early;
        tree.plan(&mut facts).map_err(failure)
    }
}

fn write_certificate(a: &CertificateArgs) -> Result<(), CliError> {
    let r = Replayed::open(&a.work, a.tables.clone())?;
    let plan = r.plan()?;
    let t0 = std::time::Instant::now();
    let cert = kalah_dist::certify::certificate(
        &r.game,
        r.start,
        r.config.identity.seeds,
        r.config.frontier,
        &r.loaded.records,
        r.probe(),
        (&plan.root, plan.solved.as_ref()),
    )
    .map_err(failure)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| a.work.join("certificate.jsonl.gz"));
    cert.write(&out).map_err(failure)?;
    let h = &cert.header;
    if a.json {
        kalah::cli::output::write_line(format_args!(
            "{}",
            serde_json::json!({
                "certificate": out.display().to_string(),
                "lower": h.lower,
                "upper": h.upper,
                "facts": h.facts,
                "expanded": h.expanded,
                "perfect_game": !h.perfect_game.is_empty(),
                "records": r.loaded.records.len(),
                "seconds": t0.elapsed().as_secs_f64(),
            })
        ))?;
        return Ok(());
    }
    kalah::cli::output::write_line(format_args!(
        "{}: {} <= value <= {} from {} facts of {} records over {} expanded boards{} ({:.1} s); check it with `kalah certify {}`",
        out.display(),
        h.lower,
        h.upper,
        h.facts,
        r.loaded.records.len(),
        h.expanded,
        if h.perfect_game.is_empty() { "" } else { ", with a perfect game" },
        t0.elapsed().as_secs_f64(),
        out.display()
    ))?;
    Ok(())
}

fn status(a: &StatusArgs) -> Result<(), CliError> {
    let r = Replayed::open(&a.work, a.tables.clone())?;
    let plan = r.plan()?;
    let (config, loaded, tables) = (&r.config, &r.loaded, &r.tables);
    let id = &config.identity;
    let running = kalah_dist::store::is_busy(&a.work).map_err(failure)?;
    let sum = |rs: &[kalah_dist::unit::UnitRecord]| {
        rs.iter()
            .fold((0u64, 0.0f64), |(n, s), r| (n + r.nodes, s + r.seconds))
    };
    let (unit_nodes, unit_seconds) = sum(&loaded.records);
    let (cancelled_nodes, cancelled_seconds) = sum(&loaded.cancelled);
    let split = loaded
        .records
        .iter()
        .filter(|r| r.verdict == kalah_dist::unit::Verdict::Split)
        .count();
    let j = serde_json::json!({
        "work": a.work.display().to_string(),
        "pits": id.pits,
        "seeds": id.seeds,
        "rules": id.rules,
        "table_seeds": id.table_seeds,
        "tables_open": tables.is_some(),
        "frontier": config.frontier,
        "cut_early": config.cut_early,
        "unit_budget": config.budget,
        "running": running,
        "segments": loaded.segments,
        "units": loaded.records.len(),
        "split_units": split,
        "cancelled_units": loaded.cancelled.len(),
        "refused": loaded.refused,
        "nodes": unit_nodes + cancelled_nodes,
        "cancelled_nodes": cancelled_nodes,
        "cpu_seconds": unit_seconds + cancelled_seconds,
        "guess": plan.root.guess,
        "tests": plan.root.tests.iter().map(|&(b, h)| serde_json::json!({"beta": b, "holds": h})).collect::<Vec<_>>(),
        "lower": plan.root.lower,
        "upper": plan.root.upper,
        "testing": plan.root.beta,
        "units_needed_next": plan.required,
        "solved": plan.solved.as_ref().map(|s| s.value),
    });
    if a.json {
        kalah::cli::output::write_line(format_args!(
            "{}",
            serde_json::to_string(&j).expect("plain struct")
        ))?;
        return Ok(());
    }
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "{}: Kalah({},{}), rules {}, frontier {}, cut nodes {} above it, unit budget {}; latest tables {} seeds{}",
        a.work.display(),
        id.pits,
        id.seeds,
        id.rules,
        config.frontier,
        config.cut_early,
        config.budget,
        id.table_seeds,
        if tables.is_some() { "" } else { " (not here: replayed without them)" }
    );
    let _ = writeln!(
        out,
        "{}",
        if running {
            "running now (a process holds its lock)"
        } else {
            "not running"
        }
    );
    let _ = writeln!(
        out,
        "records: {} units ({split} split) in {} segments and loose files, {} cancelled, {} refused",
        loaded.records.len(),
        loaded.segments,
        loaded.cancelled.len(),
        loaded.refused.len()
    );
    for r in &loaded.refused {
        let _ = writeln!(out, "  refused: {r}");
    }
    let _ = writeln!(
        out,
        "work: {} nodes ({} in cancelled units), {:.2} hours of unit search (wall, per unit; stretches.tsv has the CPU time)",
        unit_nodes + cancelled_nodes,
        cancelled_nodes,
        (unit_seconds + cancelled_seconds) / 3600.0
    );
    let tests: Vec<String> = plan
        .root
        .tests
        .iter()
        .map(|&(b, h)| format!("{}{b}", if h { ">=" } else { "<" }))
        .collect();
    let _ = writeln!(
        out,
        "root: first guess {}, tests {}; value in [{}, {}]",
        plan.root.guess.map_or("-".into(), |g| format!("{g:+}")),
        if tests.is_empty() {
            "none yet".into()
        } else {
            tests.join(" ")
        },
        plan.root.lower,
        plan.root.upper
    );
    let _ = match (&plan.solved, plan.root.beta) {
        (Some(s), _) => writeln!(out, "solved: value {:+}", s.value),
        (None, Some(b)) => writeln!(
            out,
            "next: the test value >= {b} waits on {} units",
            plan.required
        ),
        (None, None) => writeln!(out, "next: {} units", plan.required),
    };
    kalah::cli::output::write_line(format_args!("{}", out.trim_end()))?;
    Ok(())
}

fn sim(a: &SimArgs) -> Result<(), CliError> {
    if let Some(p) = a.workers.iter().find(|&&p| p == 0) {
        return Err(CliError::Input(format!(
            "--workers {p}: a simulated run needs at least one worker"
        )));
    }
    if a.fill_threads == Some(0) {
        return Err(CliError::Input(
            "--fill-threads 0: at least one thread".into(),
        ));
    }
    let (config, rules) = RunConfig::read(&a.work).map_err(CliError::Input)?;
    let pits = config.identity.pits;
    let start = Position::start(pits, config.identity.seeds).map_err(failure)?;
    let game = Game::new(pits, rules);
    let spec = GameSpec {
        pits,
        seeds: config.identity.seeds,
        rules: RulesArgs {
            empty_capture: rules.capture == kalah_solver::CaptureRule::Empty,
            end: match rules.end {
                kalah_solver::EndRule::Sweep => kalah::cli::common::EndArg::Sweep,
                kalah_solver::EndRule::Delayed => kalah::cli::common::EndArg::Delayed,
                kalah_solver::EndRule::NoSweep => kalah::cli::common::EndArg::NoSweep,
            },
        },
        tables: TableArgs {
            tables: a.tables.tables.clone(),
            table_seeds: Some(config.identity.table_seeds),
            no_tables: config.identity.table_seeds == 0,
            no_book: true,
        },
    };
    let tables = tables_of(&spec, false)?;
    let dir = WorkDir::open(&a.work, &config, Busy::Refuse).map_err(failure)?;
    let probe = tables.as_ref().map(|t| &**t as &dyn Probe);
    let trees: Vec<(usize, TopTree<'_>)> = a
        .workers
        .iter()
        .map(|&p| {
            let mut tree = TopTree::new(&game, probe, config.frontier, start, p);
            tree.ahead = a.ahead;
            tree.fail_soft = !a.fail_hard;
            tree.cut_early = a.cut_early.unwrap_or(config.cut_early);
            (p, tree)
        })
        .collect();
    let threads = a.fill_threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let dispatch_at = |rate: f64| kalah_dist::sim::Dispatch {
        rate,
        latency: a.latency,
        waves: a.waves,
        guess_nodes: a.guess_nodes,
        recorded_cost: a.recorded_cost,
        policy: a.policy.policy(),
    };
    let print = |out: &SimReport| {
        if a.json {
            println!("{}", serde_json::to_string(out).expect("plain struct"));
        } else {
            print!("{}", out.text());
        }
    };
    if a.emulate {
        // The records are not read: every unit is searched again.
        let dispatch = dispatch_at(a.rate.unwrap_or(2e6));
        let settings = EmuSettings {
            rate: dispatch.rate,
            latency: dispatch.latency,
            tt_mb: a.tt_mb,
            rank_workers: a.rank_workers,
            budget: a.budget.unwrap_or(config.budget),
            threads,
            policy: dispatch.policy,
            progress_every: 60.0,
            charge_plans: a.charge_plans,
            share_work: a.share_work,
            needed_speed: a.needed_speed,
            plan_cost: a.plan_cost,
        };
        let mut rows = Vec::new();
        let mut runs = Vec::new();
        for (p, tree) in &trees {
            let records = a.records.as_ref().map(|f| {
                if trees.len() > 1 {
                    let mut name = f.clone().into_os_string();
                    name.push(format!(".{p}"));
                    PathBuf::from(name)
                } else {
                    f.clone()
                }
            });
            let e = emulate(
                tree,
                &config.identity,
                &game,
                tables.as_ref(),
                *p,
                settings,
                records.as_deref(),
            )
            .map_err(CliError::Failure)?;
            eprintln!(
                "kalah-dist: emulated {p} workers: {:+}, {:.2} simulated s, {} units, {:.3e} nodes ({:.0} s here)",
                e.solved.value, e.sim.seconds,
                e.sim.counts.units,
                e.sim.counts.total_nodes() as f64,
                e.wall_seconds
            );
            runs.push(EmuRun {
                workers: *p,
                value: e.solved.value,
                pv: kalah_solver::query::pv_line(&e.solved.pv).to_string(),
                searched_nodes: e.searched_nodes,
                workers_used: e.workers_used,
                wall_seconds: e.wall_seconds,
                shared_entries: e.shared_entries,
                share_seconds: e.share_seconds,
            });
            rows.push(e.sim);
        }
        let out = SimReport::new(
            &a.work.display().to_string(),
            &[],
            &rows,
            dispatch,
            None,
            None,
        )
        .emulated(EmuReport {
            tt_mb: a.tt_mb,
            rank_workers: a.rank_workers,
            share_work: a.share_work,
            threads,
            needed_speed: a.needed_speed,
            plan_cost: a.plan_cost,
            runs,
        });
        print(&out);
        return Ok(());
    }
    let loaded = dir.load().map_err(failure)?;
    for r in &loaded.refused {
        eprintln!("kalah-dist: refused (not used): {r}");
    }
    let mut records = loaded.records;
    let mut unanswered = loaded.cancelled;
    unanswered.extend(loaded.partial);
    // The run's own workers' rate: filled units ran here, under other load.
    let rate = a.rate.unwrap_or_else(|| {
        let run = records
            .iter()
            .filter(|r| !r.filled && r.verdict != kalah_dist::unit::Verdict::Split);
        let (n, s) = run.fold((0u64, 0.0), |(n, s), r| (n + r.nodes, s + r.seconds));
        if s > 0.0 {
            n as f64 / s
        } else {
            1e6
        }
    });
    let dispatch = dispatch_at(rate);
    let simulation = Simulation {
        trees: &trees,
        identity: &config.identity,
        dispatch,
        budget: config.budget,
    };
    let (rows, filled) = if a.fill {
        let (rows, report) = fill(
            &simulation,
            &mut records,
            &mut unanswered,
            &game,
            tables.as_ref(),
            &dir,
            FillSettings {
                threads,
                tt_mb: a.tt_mb,
                cap: a.fill_cap,
                progress_every: 10.0,
            },
        )
        .map_err(failure)?;
        (rows, Some(report))
    } else {
        (
            simulation.run(&records, &unanswered).map_err(failure)?,
            None,
        )
    };
    let out = SimReport::new(
        &a.work.display().to_string(),
        &records,
        &rows,
        dispatch,
        a.growth,
        filled,
    );
    print(&out);
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn ping(_: &PingArgs) -> Result<(), CliError> {
    Err(CliError::Input(
        "this kalah-dist was built without MPI (cargo build --release -p kalah-dist --features mpi)"
            .into(),
    ))
}

#[cfg(feature = "mpi")]
fn ping(a: &PingArgs) -> Result<(), CliError> {
    use kalah_dist::coordinator::{Engine, Issue};
    use kalah_dist::mpi_engine::{MpiEngine, World};
    use kalah_dist::unit::UnitKey;
    let world = World::init().map_err(failure)?;
    let solver =
        UnitSolver::new(Game::new(6, kalah_solver::Rules::STANDARD), None, 1).map_err(failure)?;
    if world.rank() != 0 {
        world
            .serve(std::slice::from_ref(&solver))
            .map_err(CliError::Failure)?;
        return Ok(());
    }
    let mut e = MpiEngine::new(&world, 1);
    let w = e.workers();
    if w == 0 {
        return Err(CliError::Input("ping needs at least 2 ranks".into()));
    }
    // A finished board: each unit is answered without search.
    let key = UnitKey {
        board: kalah_solver::Board::EMPTY,
        beta: 0,
    };
    let issue = |seq| Issue {
        key,
        seq,
        budget: 0,
        expect: true,
    };
    let mut seq = 0;
    let t0 = std::time::Instant::now();
    for worker in 0..w {
        e.start(worker, &issue(seq)).map_err(failure)?;
        seq += 1;
    }
    let mut answered = 0;
    while answered < a.units {
        let r = e
            .wait(None)
            .map_err(failure)?
            .ok_or_else(|| failure("no reply".to_string()))?;
        answered += 1;
        if seq < a.units {
            e.start(r.worker, &issue(seq)).map_err(failure)?;
            seq += 1;
        }
    }
    let s = t0.elapsed().as_secs_f64();
    e.finish().map_err(failure)?;
    println!(
        "{} empty units over {} workers in {:.3} s: {:.0} units/s, {:.1} us a round trip per worker",
        a.units,
        w,
        s,
        a.units as f64 / s,
        s / (a.units as f64 / w as f64) * 1e6
    );
    Ok(())
}

/// A fraction in `[0, 1]` (clap's parser of `--presplit`).
fn fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        Ok(f) => Err(format!("{f} is not a fraction in [0, 1]")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}

/// A count of at least 1 (clap's parser for counts).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(n) => Err(format!("{n} is not a count of at least 1")),
        Err(e) => Err(format!("{s:?} is not a count: {e}")),
    }
}

/// A finite number above 0 (clap's parser for factors).
fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        Ok(f) => Err(format!("{f} is not a number above 0")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}

/// A finite number of at least 0 (clap's parser for factors that may be 0).
fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 => Ok(f),
        Ok(f) => Err(format!("{f} is not a number of at least 0")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}
