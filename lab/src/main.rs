//! `kalah-lab`: the laboratory of the cluster solve (never shipped). Its
//! `simulate` replays a run recorded by `kalah-cluster solve` (its work
//! directory) on simulated workers, fills the record for those schedules,
//! or emulates the run with every unit searched again.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use kalah::flags::TableArgs;
use kalah::service::setup::prepare_tables;
use kalah::service::{Error, Silent};
use kalah_solver::{Game, Position, Probe};

use kalah_cluster::coordinator::Policy;
use kalah_cluster::plan::{TopTree, AHEAD_TESTS};
use kalah_cluster::store::{Busy, RunConfig, WorkDir};
use kalah_lab::emulate::{emulate, EmuSettings};
use kalah_lab::fill::{fill, FillSettings, Simulation};
use kalah_lab::sim_report::{EmuReport, EmuRun, SimReport};

/// The laboratory of the cluster solve: what a run would take on other
/// numbers of workers and other policies, from its records.
#[derive(Parser, Debug)]
#[command(name = "kalah-lab", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay the run recorded in a work directory on simulated workers.
    Simulate(SimArgs),
}

/// The coordinator's policy ([`Policy`]): `kalah-cluster solve`'s flags
/// (`--presplit`, `--no-preempt`, `--no-affinity`), and the switches of
/// kept features, to measure what each saves.
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
    /// plans, but more units split (lab/journal/cluster.md).
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
    /// A top-tree node learns only the bound its test asked, not the tighter
    /// one its children's facts give (fail-hard; by default fail-soft, as
    /// `kalah-cluster solve` runs). To measure what fail-soft saves.
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
    /// kalah-lab --example cold_cost` measures the ratio). Filled and
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    kalah::interrupt::install();
    let result = match cli.command {
        Command::Simulate(a) => sim(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kalah-lab: {e}");
            ExitCode::from(if matches!(e, Error::Input(_)) { 2 } else { 1 })
        }
    }
}

fn failure(e: impl std::fmt::Display) -> Error {
    Error::Failure(e.to_string())
}

fn sim(a: &SimArgs) -> Result<(), Error> {
    if let Some(p) = a.workers.iter().find(|&&p| p == 0) {
        return Err(Error::Input(format!(
            "--workers {p}: a simulated run needs at least one worker"
        )));
    }
    if a.fill_threads == Some(0) {
        return Err(Error::Input("--fill-threads 0: at least one thread".into()));
    }
    let (config, rules) = RunConfig::read(&a.work).map_err(|e| Error::Input(e.to_string()))?;
    let pits = config.identity.pits;
    let start = Position::start(pits, config.identity.seeds).map_err(failure)?;
    let game = Game::new(pits, rules);
    // The run's tables: the same table arguments as `kalah-cluster
    // solve`'s, at the run's table size.
    let table_args = TableArgs {
        tables: a.tables.tables.clone(),
        table_seeds: Some(config.identity.table_seeds),
        no_tables: config.identity.table_seeds == 0,
    };
    let tables = prepare_tables(
        &table_args.policy(),
        pits,
        rules,
        start.total_seeds(),
        None,
        &Silent,
    )?;
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
    let dispatch_at = |rate: f64| kalah_lab::sim::Dispatch {
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
            .map_err(failure)?;
            eprintln!(
                "kalah-lab: emulated {p} workers: {:+}, {:.2} simulated s, {} units, {:.3e} nodes ({:.0} s here)",
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
        eprintln!("kalah-lab: refused (not used): {r}");
    }
    let mut records = loaded.records;
    let mut unanswered = loaded.cancelled;
    unanswered.extend(loaded.partial);
    // The run's own workers' rate: filled units ran here, under other load.
    let rate = a.rate.unwrap_or_else(|| {
        let run = records
            .iter()
            .filter(|r| !r.filled && r.verdict != kalah_cluster::unit::Verdict::Split);
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
