//! The coordinator's loop: replay the top tree, hand the units it needs to
//! idle workers, stop the ones it no longer needs, store each answer.
//!
//! The loop is the same for every engine ([`Engine`]): MPI ranks, the
//! coordinator's own process, or the simulated workers of the laboratory
//! (`kalah-lab`), which also hear where the coordinator's own work ends
//! ([`Watched`]).

use std::time::Instant;

use foldhash::{HashMap as Map, HashSet as Set};

use serde::Serialize;

use kalah_solver::Board;

use crate::facts::Facts;
use crate::plan::{Plan, RootState, Solved, TopTree};
use crate::store::WorkDir;
use crate::unit::{check_known, Known, RunIdentity, Stop, UnitKey, UnitRecord, Verdict, EXACT};

/// A unit handed to a worker.
#[derive(Clone, Copy, Debug)]
pub struct Issue {
    pub key: UnitKey,
    /// Issue order, unique over the run and its resumptions.
    pub seq: u64,
    /// Nodes after which a test is split (0: never).
    pub budget: u64,
    /// Whether the top tree expects the test to hold.
    pub expect: bool,
}

/// A worker's reply to an [`Issue`].
#[derive(Clone, Debug)]
pub struct Reply {
    pub worker: usize,
    pub seq: u64,
    /// `None`: cancelled.
    pub verdict: Option<Verdict>,
    pub nodes: u64,
    pub seconds: f64,
    /// Bounds the worker's table held afterwards near the unit's board
    /// ([`crate::worker::known`]), whatever the verdict.
    pub known: Vec<Known>,
    /// A split test's child its search was in ([`crate::worker::inside`]):
    /// its house.
    pub inside: Option<u8>,
}

/// Workers the coordinator hands units to.
pub trait Engine {
    /// Workers, numbered `0..workers()`.
    fn workers(&self) -> usize;
    /// Hands `issue` to the idle `worker`.
    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), String>;
    /// Asks `worker` to stop unit `seq` (it replies either way).
    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), String>;
    /// The next reply (blocks); `None` once [`Engine::now`] passes
    /// `until` without one. An engine may wait past `until` (one that
    /// runs its unit in the caller's thread does).
    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, String>;
    /// Seconds since the engine started (simulated time for a simulation).
    fn now(&self) -> f64;
    /// Tells every worker the run is over (all are idle).
    fn finish(&mut self) -> Result<(), String>;
    /// A reply already in, without waiting for one.
    fn ready(&mut self) -> Result<Option<Reply>, String> {
        Ok(None)
    }
}

/// A stretch of the coordinator's own work, between its engine's calls
/// ([`Watched::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnWork {
    /// Before a plan: which running units are hot.
    Setup,
    /// A plan of the top tree.
    Plan,
    /// Handing units out: what each unit of a new plan waits on, stopping
    /// the units no longer needed, assigning units to idle workers,
    /// preemption.
    HandOut,
    /// Taking answers in: storing each, taking in its facts.
    Intake,
}

/// An engine that also hears where the coordinator's own work ends and
/// which running units the search needs: the laboratory's (`kalah-lab`),
/// whose simulated clock passes the coordinator's work on and whose
/// what-ifs search the needed units faster. [`coordinate`] runs a plain
/// [`Engine`] as one that ignores both.
pub trait Watched: Engine {
    /// A stretch of the coordinator's own work of kind `work` ends here;
    /// it began at the last mark, or at the run's start (the time inside
    /// this engine's calls meanwhile is not the coordinator's).
    fn mark(&mut self, work: OwnWork);
    /// Unit `seq` on `worker` is one the search needs now (`needed`), or
    /// speculation; told of every running unit after each hand-out.
    fn needed(&mut self, worker: usize, seq: u64, needed: bool);
}

/// A plain engine, deaf to the marks of [`Watched`].
struct Unwatched<'e>(&'e mut dyn Engine);

impl Engine for Unwatched<'_> {
    fn workers(&self) -> usize {
        self.0.workers()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), String> {
        self.0.start(worker, issue)
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), String> {
        self.0.cancel(worker, seq)
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, String> {
        self.0.wait(until)
    }

    fn now(&self) -> f64 {
        self.0.now()
    }

    fn finish(&mut self) -> Result<(), String> {
        self.0.finish()
    }

    fn ready(&mut self) -> Result<Option<Reply>, String> {
        self.0.ready()
    }
}

impl Watched for Unwatched<'_> {
    fn mark(&mut self, _: OwnWork) {}

    fn needed(&mut self, _: usize, _: u64, _: bool) {}
}

/// How the coordinator chooses, hands out and stops units: `solve`'s
/// tuning flags ([`Policy::DEFAULT`] without them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Policy {
    /// A test unanswered after this fraction of the time its budget
    /// takes (at the node rate of the answers so far) is hot: its
    /// children's tests are planned beside it for idle workers
    /// ([`TopTree::plan_hot`]). A test handed out from below a hot unit
    /// turns hot sooner ([`BELOW_HOT_SOONER`]). 0: never; no effect
    /// without a budget.
    pub presplit: f64,
    /// A unit the search needs that finds no idle worker takes the worker
    /// of the speculative unit issued last (which is stopped; it is asked
    /// again when a worker is free and it is still wanted).
    pub preempt: bool,
    /// An idle worker takes, of the units the search needs, one near the
    /// last units it was handed ([`assign`]): its transposition table
    /// holds much of that subtree.
    pub affinity: bool,
    /// Takes in the bounds workers report beyond each unit's verdict
    /// ([`Reply::known`]): the children a split unit decided need no
    /// units, and an answered test's own bound may decide later tests of
    /// its board. Off only to measure what they save.
    pub known: bool,
    /// A worker whose test was split at its budget is handed back the
    /// child its search was in ([`Reply::inside`]), whose subtree its
    /// table holds, if the plan needs that child's test and no other
    /// worker runs it. Off only to measure what it saves.
    pub resume: bool,
    /// Of the units the search needs, those needed since the latest plan
    /// are handed out first ([`assign`]): when more wait than workers are
    /// idle, the next unit of a chain of answers (a cut node's next child
    /// after one failed, the units below a test that went against its
    /// expectation) starts before the test's first fan-out, which can
    /// wait. Off only to measure what it saves.
    pub recent_first: bool,
    /// Answers only of units the last plan had as speculation (none of
    /// them split) make no new plan: their workers take the last plan's
    /// units not yet answered or running. Such an answer changes what
    /// the search needs only through a unit it needs, whose answer makes
    /// the next plan (or through the speculation, which then waits for
    /// it). Measured no faster (fewer plans, more units split), so off by
    /// default.
    pub lazy: bool,
}

impl Policy {
    /// `solve` without its tuning flags.
    pub const DEFAULT: Policy = Policy {
        presplit: 0.25,
        preempt: true,
        affinity: true,
        known: true,
        resume: true,
        recent_first: true,
        lazy: false,
    };
}

/// How the coordinator runs.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Node budget of a test (0: none), see [`Issue::budget`].
    pub budget: u64,
    /// How it chooses, hands out and stops units.
    pub policy: Policy,
    /// Progress lines on stderr every this many seconds (0: none).
    pub progress_every: f64,
    /// Progress lines as JSON objects, one a line, for scripts.
    pub progress_json: bool,
    /// What a cost model predicts the whole solve searches, for the
    /// progress line's estimate (`None`: no estimate).
    pub model_nodes: Option<f64>,
}

/// What a finished run found and spent.
#[derive(Clone, Debug)]
pub struct Finished {
    pub solved: Solved,
    pub counts: UnitCounts,
    /// Seconds from the first issue to the answer (engine time).
    pub seconds: f64,
    /// The root's first guess and tests.
    pub root: RootState,
    /// When each step of the root search was decided (engine seconds since
    /// the start): the guess, each test, the value, the perfect game.
    pub timeline: Vec<(f64, String)>,
    /// The critical chain of this run, first unit first: the answer that
    /// finished the search, the answer that made that unit needed, and so
    /// on back to a unit needed from the start (or answered by a run this
    /// one resumed). Its units ran one after another, so no number of
    /// workers finishes this schedule sooner than the sum of their
    /// running times; the rest of each link is a wait for a free worker.
    pub chain: Vec<Link>,
    /// Times the coordinator planned the top tree.
    pub plans: u64,
}

/// One unit of the critical chain ([`Finished::chain`]). Times are engine
/// seconds ([`Engine::now`]).
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub key: UnitKey,
    pub seq: u64,
    pub verdict: Verdict,
    /// When the answer it waited on came (the run's start for the first
    /// link), when it was issued and when it was answered.
    pub needed_at: f64,
    pub issued_at: f64,
    pub answered_at: f64,
}

/// The units of a run and their nodes.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct UnitCounts {
    /// Units answered (this run and the earlier ones it resumed), split
    /// ones included.
    pub units: u64,
    /// Their nodes.
    pub unit_nodes: u64,
    /// Of those, units split (their nodes are wasted: the children were
    /// searched again as units).
    pub split_units: u64,
    pub split_nodes: u64,
    /// Units stopped unanswered, and their nodes.
    pub cancelled_units: u64,
    pub cancelled_nodes: u64,
    /// Of those, units stopped because the search no longer needed them
    /// ([`Stop::Unneeded`]) and units stopped to free their worker
    /// ([`Stop::Preempted`]), with their nodes; the rest were running
    /// when the solve ended, or were stopped before records said why.
    pub unneeded_units: u64,
    pub unneeded_nodes: u64,
    pub preempted_units: u64,
    pub preempted_nodes: u64,
    /// Units answered by this run (the others came from the work directory).
    pub units_this_run: u64,
    /// Every node this run's workers searched (answered, split and
    /// stopped units): the work of this run, where the other counts take
    /// in the records of the runs it resumed.
    pub nodes_this_run: u64,
    /// Of this run's answered units, those handed out as speculation (the
    /// search did not need them yet when they were issued), and their
    /// nodes.
    pub speculative_units: u64,
    pub speculative_nodes: u64,
    /// This run's issues of a board that some worker had a unit of before
    /// (at any bound), and of those, the ones that went to the worker that
    /// had it last: the others start on a table that never saw the board.
    pub repeat_issues: u64,
    pub repeat_same_worker: u64,
}

impl UnitCounts {
    /// Counts a unit stopped unanswered (a record of `cancelled.jsonl`).
    pub fn add_cancelled(&mut self, r: &UnitRecord) {
        self.cancelled_units += 1;
        self.cancelled_nodes += r.nodes;
        match r.stopped {
            Some(Stop::Unneeded) => {
                self.unneeded_units += 1;
                self.unneeded_nodes += r.nodes;
            }
            Some(Stop::Preempted) => {
                self.preempted_units += 1;
                self.preempted_nodes += r.nodes;
            }
            Some(Stop::Solved | Stop::Interrupted) | None => {}
        }
    }

    /// Every node the workers searched.
    pub fn total_nodes(&self) -> u64 {
        self.unit_nodes + self.cancelled_nodes
    }
}

struct Flight {
    key: UnitKey,
    seq: u64,
    issued_at: f64,
    issued_after: u64,
    /// The unit whose answer made this one needed (see
    /// [`UnitRecord::waited_on`]).
    waited_on: Option<u64>,
    /// Asked to stop, and why.
    stopped: Option<Stop>,
    /// Handed out as speculation (see [`UnitRecord::speculative`]).
    speculative: bool,
    /// Handed out as a test below a hot unit ([`Plan::hot`]).
    below_hot: bool,
    /// The last plan's search needs it ([`Want::required`]); set when
    /// it is handed out and at each plan, so that the loops over every
    /// worker between plans look nothing up.
    required: bool,
    /// In the last plan's set of hot units (handed to
    /// [`TopTree::plan_hot`]); set at each plan and at hand-out.
    hot: bool,
}

/// How much sooner than [`Policy::presplit`] says a test handed out
/// below a hot unit turns hot itself: the child of a unit that ran long
/// is likely to run long too, and the sooner its own children are
/// planned, the sooner a descent through a large subtree reaches units
/// that answer (docs/PERFORMANCE.md, "tests below hot units hot sooner").
/// Every other unit waits the whole fraction: most of them answer before
/// their budget, and planning their children costs plans and nodes.
pub const BELOW_HOT_SOONER: f64 = 0.5;

impl Flight {
    /// When the flight turns hot, where a test turns hot `after` seconds
    /// after its issue ([`Policy::presplit`]); one below a hot unit
    /// sooner ([`BELOW_HOT_SOONER`]).
    fn hot_at(&self, after: f64) -> f64 {
        let after = if self.below_hot {
            after * BELOW_HOT_SOONER
        } else {
            after
        };
        self.issued_at + after
    }
}

/// Where answers go: the work directory (a real run) or nowhere (a
/// simulation).
pub trait Sink {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), String>;
    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), String>;
}

impl Sink for WorkDir {
    fn answered(&mut self, key: &UnitKey, record: &UnitRecord) -> Result<(), String> {
        self.write(key, record).map_err(|e| e.to_string())
    }

    fn cancelled(&mut self, record: &UnitRecord) -> Result<(), String> {
        self.append_cancelled(record).map_err(|e| e.to_string())
    }
}

/// A sink that keeps nothing.
pub struct Discard;

impl Sink for Discard {
    fn answered(&mut self, _: &UnitKey, _: &UnitRecord) -> Result<(), String> {
        Ok(())
    }

    fn cancelled(&mut self, _: &UnitRecord) -> Result<(), String> {
        Ok(())
    }
}

/// Runs the solve to its end: `earlier` are the records of the runs it
/// resumes (their units are not issued again).
///
/// # Errors
/// An engine failure, a sink that cannot store, contradicting results.
pub fn coordinate(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    earlier: &[UnitRecord],
    engine: &mut dyn Engine,
    sink: &mut dyn Sink,
    settings: Settings,
) -> Result<Finished, String> {
    let mut engine = Unwatched(engine);
    coordinate_watched(tree, identity, earlier, &mut engine, sink, settings)
}

/// [`coordinate`] over an engine that hears where the coordinator's own
/// work ends and which running units the search needs ([`Watched`]).
///
/// # Errors
/// As [`coordinate`].
pub fn coordinate_watched(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    earlier: &[UnitRecord],
    engine: &mut dyn Watched,
    sink: &mut dyn Sink,
    settings: Settings,
) -> Result<Finished, String> {
    let mut facts = Facts::default();
    let mut done = Finished {
        solved: Solved {
            value: 0,
            pv: Vec::new(),
        },
        counts: UnitCounts::default(),
        seconds: 0.0,
        root: RootState::default(),
        timeline: Vec::new(),
        chain: Vec::new(),
        plans: 0,
    };
    let mut steps = 0;
    let mut seq = 0;
    for r in earlier {
        let key = r.check(identity)?;
        facts.add(key, r.verdict);
        if settings.policy.known {
            r.known.iter().for_each(|k| facts.add_known(k));
        }
        count(&mut done, r);
        seq = seq.max(r.seq + 1);
    }
    let mut flight: Vec<Option<Flight>> = (0..engine.workers()).map(|_| None).collect();
    let started = engine.now();
    let mut wanted = Wanted::default();
    let mut last_answer: Option<u64> = None;
    // This run's answers, by seq: the critical chain's links and what
    // each waited on.
    let mut answers: Map<u64, (Link, Option<u64>)> = Map::default();
    // By index into the last plan's units: running, or answered since
    // the plan (not handed out again).
    let mut busy: Vec<bool> = Vec::new();
    let mut last_note = Instant::now();
    // The node rate of this run's answers: nodes and seconds.
    let (mut rate_nodes, mut rate_seconds) = (0u64, 0.0f64);
    // Every node this run's workers searched, answered or not.
    let mut run_nodes = 0u64;
    let mut hand = Hand {
        seq,
        settings,
        owners: Map::default(),
        owned: vec![Vec::new(); engine.workers()],
        idle_owners: Map::default(),
        last_worker: Map::default(),
        resume: Map::default(),
    };
    // The last plan, whether the answers since call for a new one
    // ([`Policy::lazy`]), and the units it was made with as hot.
    let mut last: Option<Plan> = None;
    let mut replan = true;
    let mut hot: Set<UnitKey> = Set::default();
    loop {
        // How long a test runs before it is hot, at the rate seen so far.
        let hot_after = (settings.policy.presplit > 0.0 && settings.budget > 0 && rate_nodes > 0)
            .then(|| {
                settings.policy.presplit * settings.budget as f64 * rate_seconds / rate_nodes as f64
            });
        let clock = engine.now();
        let fresh = replan || last.is_none();
        if fresh {
            hot.clear();
            for f in flight.iter_mut().flatten() {
                f.hot = hot_after.is_some_and(|after| {
                    f.stopped.is_none() && f.key.beta != EXACT && f.hot_at(after) <= clock
                });
                if f.hot {
                    hot.insert(f.key);
                }
            }
            engine.mark(OwnWork::Setup);
            let plan = tree.plan_hot(&mut facts, &hot).map_err(|e| e.to_string())?;
            done.plans += 1;
            engine.mark(OwnWork::Plan);
            let now = engine.now() - started;
            let decided = root_steps(&plan.root);
            while steps < decided.len() {
                done.timeline.push((now, decided[steps].clone()));
                steps += 1;
            }
            if let Some(solved) = plan.solved {
                done.timeline.push((now, "perfect game".into()));
                for (w, f) in flight.iter_mut().enumerate() {
                    if let Some(f) = f.as_mut().filter(|f| f.stopped.is_none()) {
                        engine.cancel(w, f.seq)?;
                        f.stopped = Some(Stop::Solved);
                    }
                }
                while flight.iter().any(Option::is_some) {
                    let reply = engine.wait(None)?.ok_or("no reply from a running unit")?;
                    run_nodes += reply.nodes;
                    take(&mut flight, &reply, identity, engine.now(), sink, &mut done)?;
                }
                engine.finish()?;
                done.solved = solved;
                done.root = plan.root;
                done.seconds = engine.now() - started;
                done.counts.nodes_this_run = run_nodes;
                done.chain = chain(&answers, last_answer);
                return Ok(done);
            }
            wanted.refill(&plan, last_answer, done.plans);
            busy.clear();
            busy.resize(plan.needed.len(), false);
            for (w, f) in flight.iter_mut().enumerate() {
                let Some(f) = f.as_mut() else { continue };
                let want = wanted.units.get(&f.key);
                f.required = want.is_some_and(Want::required);
                if let Some(want) = want {
                    busy[want.index] = true;
                }
                if f.stopped.is_none() && want.is_none() {
                    engine.cancel(w, f.seq)?;
                    f.stopped = Some(Stop::Unneeded);
                }
            }
            last = Some(plan);
        }
        let plan = last.as_ref().expect("planned above");
        if flight.iter().any(Option::is_none) {
            hand.out(
                plan,
                &mut busy,
                &mut flight,
                engine,
                (&wanted, &hot),
                &mut done.counts,
            )?;
        }
        if settings.policy.preempt {
            preempt(plan, &mut flight, engine)?;
        }
        for (w, f) in flight.iter().enumerate() {
            if let Some(f) = f.as_ref().filter(|f| f.stopped.is_none()) {
                engine.needed(w, f.seq, f.required);
            }
        }
        if flight.iter().all(Option::is_none) {
            if !fresh {
                // The last plan's units are all answered: a new one.
                replan = true;
                continue;
            }
            return Err(
                "no workers: start at least two ranks (one coordinator, one worker)".into(),
            );
        }
        // Wait for an answer, or until the next unit turns hot.
        let until = hot_after.and_then(|after| {
            flight
                .iter()
                .flatten()
                .filter(|f| f.stopped.is_none() && f.key.beta != EXACT && !f.hot)
                .map(|f| f.hot_at(after))
                .min_by(f64::total_cmp)
                .filter(|&t| t > clock)
        });
        // The next answer, then every other one already in: one plan
        // takes them all (a plan costs the coordinator milliseconds, in
        // which many workers answer).
        engine.mark(OwnWork::HandOut);
        let mut next = engine.wait(until)?;
        let interrupted = kalah::interrupt::requested();
        if interrupted {
            for (w, f) in flight.iter_mut().enumerate() {
                if let Some(f) = f.as_mut().filter(|f| f.stopped.is_none()) {
                    engine.cancel(w, f.seq)?;
                    f.stopped = Some(Stop::Interrupted);
                }
            }
        }
        // No answer (a unit turned hot): a new plan.
        replan = !settings.policy.lazy || next.is_none();
        while let Some(reply) = next {
            run_nodes += reply.nodes;
            if reply.verdict.is_some() {
                rate_nodes += reply.nodes;
                rate_seconds += reply.seconds;
            }
            check_known(&reply.known).map_err(|e| {
                format!(
                    "worker {} reported {e}: a fault in its solver or tables",
                    reply.worker
                )
            })?;
            if settings.policy.known {
                reply.known.iter().for_each(|k| facts.add_known(k));
            }
            let (key, record) = take(&mut flight, &reply, identity, engine.now(), sink, &mut done)?;
            if let Some(record) = record {
                // The answer of a unit the search needed, or of a split
                // one: a new plan.
                replan |= record.verdict == Verdict::Split
                    || wanted.units.get(&key).is_none_or(Want::required);
                if let (Some(Verdict::Split), Some(house), true) =
                    (reply.verdict, reply.inside, settings.policy.resume)
                {
                    let game = tree.game;
                    if usize::from(house) < game.pits() && game.moves(key.board) >> house & 1 == 1 {
                        let child = game.sow(key.board, usize::from(house)).board;
                        hand.resume.insert(child, reply.worker);
                    }
                }
                facts.add(key, record.verdict);
                last_answer = Some(record.seq);
                let link = Link {
                    key,
                    seq: record.seq,
                    verdict: record.verdict,
                    needed_at: record
                        .waited_on
                        .and_then(|s| answers.get(&s))
                        .map_or(started, |(l, _)| l.answered_at),
                    issued_at: record.issued_at,
                    answered_at: record.answered_at,
                };
                answers.insert(record.seq, (link, record.waited_on));
            } else if let Some(want) = wanted.units.get(&key) {
                // Stopped: no worker runs it any more (a unit runs on one
                // worker at a time).
                busy[want.index] = false;
            }
            next = engine.ready()?;
        }
        engine.mark(OwnWork::Intake);
        if interrupted {
            while flight.iter().any(Option::is_some) {
                let reply = engine.wait(None)?.ok_or("no reply from a running unit")?;
                take(&mut flight, &reply, identity, engine.now(), sink, &mut done)?;
            }
            engine.finish()?;
            return Err(format!(
                "stopped by a signal after {} units ({} this run); every answered unit is recorded: run the same command again to resume",
                done.counts.units, done.counts.units_this_run
            ));
        }
        if settings.progress_every > 0.0
            && last_note.elapsed().as_secs_f64() >= settings.progress_every
        {
            last_note = Instant::now();
            let running = flight.iter().flatten().count();
            let note = Note {
                units: done.counts.units,
                units_this_run: done.counts.units_this_run,
                running,
                waiting: plan.needed.len().saturating_sub(running),
                root: &plan.root,
                nodes: done.counts.total_nodes(),
                run_nodes,
                run_seconds: engine.now() - started,
                model_nodes: settings.model_nodes,
            };
            let line = if settings.progress_json {
                serde_json::to_string(&note.json()).expect("plain struct")
            } else {
                format!("kalah-cluster: {}", note.text())
            };
            eprintln!("{line}");
        }
    }
}

/// One progress note of a run.
struct Note<'r> {
    units: u64,
    units_this_run: u64,
    running: usize,
    waiting: usize,
    root: &'r RootState,
    /// Every node of the run's records (earlier stretches included).
    nodes: u64,
    /// This stretch's nodes and seconds: its rate.
    run_nodes: u64,
    run_seconds: f64,
    model_nodes: Option<f64>,
}

impl Note<'_> {
    fn rate(&self) -> f64 {
        if self.run_seconds > 0.0 {
            self.run_nodes as f64 / self.run_seconds
        } else {
            0.0
        }
    }

    /// Seconds left at this stretch's rate if the whole solve searches
    /// `total` nodes (0 once past it).
    fn left(&self, total: f64) -> Option<f64> {
        let rate = self.rate();
        (rate > 0.0).then(|| (total - self.nodes as f64).max(0.0) / rate)
    }

    fn text(&self) -> String {
        let mut line = format!(
            "{} units ({} this stretch), {} running, {} waiting; {}; {} nodes, {}/s this stretch, {} elapsed",
            self.units,
            self.units_this_run,
            self.running,
            self.waiting,
            root_text(self.root),
            si(self.nodes as f64),
            si(self.rate()),
            hours(self.run_seconds),
        );
        if let Some(model) = self.model_nodes {
            if let (Some(low), Some(high)) = (self.left(model), self.left(model * MODEL_LOW)) {
                line += &format!(
                    "; cost model {} nodes ({:.0} % done): {} left if it holds, {} if it is {MODEL_LOW}x low",
                    si(model),
                    100.0 * self.nodes as f64 / model,
                    hours(low),
                    hours(high)
                );
            }
        }
        line
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "units": self.units,
            "units_this_stretch": self.units_this_run,
            "running": self.running,
            "waiting": self.waiting,
            "lower": self.root.lower,
            "upper": self.root.upper,
            "testing": self.root.beta,
            "tests": root_steps(self.root),
            "nodes": self.nodes,
            "stretch_nodes": self.run_nodes,
            "stretch_seconds": self.run_seconds,
            "nodes_per_second": self.rate(),
            "model_nodes": self.model_nodes,
            "seconds_left_model": self.model_nodes.and_then(|m| self.left(m)),
            "seconds_left_model_low": self.model_nodes.and_then(|m| self.left(m * MODEL_LOW)),
        })
    }
}

/// The factor the progress estimate's upper end puts on the cost model:
/// Kalah(6,6) positions along published perfect lines searched several
/// times what the model gives their sizes.
const MODEL_LOW: f64 = 10.0;

/// `x` with an SI prefix: 1.23 G.
fn si(x: f64) -> String {
    let (v, p) = [(1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")]
        .into_iter()
        .find(|&(s, _)| x >= s)
        .map_or((x, ""), |(s, p)| (x / s, p));
    format!("{v:.3}{p}")
}

/// Seconds as `1h02m` or `42.0 s`.
fn hours(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{}h{:02}m", m / 60, m % 60)
    }
}

/// A unit a plan needs: the answer it has waited on since it became
/// needed (the last answer before the first plan that has needed it
/// without a break; of the answers one plan took together, the last one
/// taken), and, if the search needs it (not speculation), the plan since
/// which it has without a break ([`Policy::recent_first`]).
#[derive(Clone, Copy, Debug)]
struct Want {
    since: Option<u64>,
    born: Option<u64>,
    /// The last plan that needed it.
    plan: u64,
    /// Its index in that plan's [`Plan::needed`].
    index: usize,
}

impl Want {
    /// Whether the search needs it (not as speculation).
    fn required(&self) -> bool {
        self.born.is_some()
    }
}

/// The units the last plan needs.
#[derive(Default)]
struct Wanted {
    /// Each one's [`Want`].
    units: Map<UnitKey, Want>,
    /// [`Want::born`] of each required unit, in plan order.
    born: Vec<u64>,
}

impl Wanted {
    /// Takes in the units of `plan` (no unit twice), the coordinator's
    /// plan number `plans`, made after the answer `last_answer`: one
    /// look-up a unit, each unit the plan before needed updated in place,
    /// then the units it no longer needs dropped.
    fn refill(&mut self, plan: &Plan, last_answer: Option<u64>, plans: u64) {
        self.born.clear();
        for (i, k) in plan.needed.iter().enumerate() {
            let required = i < plan.required;
            let want = self
                .units
                .entry(*k)
                .and_modify(|w| {
                    w.born = required.then(|| w.born.unwrap_or(plans));
                    w.plan = plans;
                    w.index = i;
                })
                .or_insert(Want {
                    since: last_answer,
                    born: required.then_some(plans),
                    plan: plans,
                    index: i,
                });
            self.born.extend(want.born);
        }
        self.units.retain(|_, w| w.plan == plans);
    }
}

/// What the coordinator keeps to hand units out.
struct Hand {
    /// The next issue's number.
    seq: u64,
    settings: Settings,
    /// The worker last handed a unit at or just below each top-tree board
    /// (see [`assign`]).
    owners: Map<Board, usize>,
    /// The boards each worker was made the owner of in [`Hand::owners`]
    /// (some since taken over by another worker; weeded out when the
    /// worker is next idle).
    owned: Vec<Vec<Board>>,
    /// The part of [`Hand::owners`] whose workers are idle, for one
    /// hand-out: [`assign`] looks each ready unit's near boards up in it,
    /// a map of a few boards a worker instead of every board handed out.
    idle_owners: Map<Board, usize>,
    /// The worker last handed a unit of each board.
    last_worker: Map<Board, usize>,
    /// Children of split tests whose worker's search was in them
    /// ([`Reply::inside`]): that worker takes their unit first ([`assign`]).
    /// Kept only until the next hand-out: the worker is idle since its
    /// split, and takes other units after it.
    resume: Map<Board, usize>,
}

impl Hand {
    /// Hands units of `plan`, none of those `busy` (by index into
    /// [`Plan::needed`]; the units handed out are marked), to the idle
    /// workers ([`assign`]); `wanted` says what each has waited on and
    /// since when each required one is required, `hot` which units the
    /// plan was made with as hot.
    fn out(
        &mut self,
        plan: &Plan,
        busy: &mut [bool],
        flight: &mut [Option<Flight>],
        engine: &mut dyn Engine,
        (wanted, hot): (&Wanted, &Set<UnitKey>),
        counts: &mut UnitCounts,
    ) -> Result<(), String> {
        let idle: Vec<usize> = (0..flight.len()).filter(|&w| flight[w].is_none()).collect();
        let owners = if self.settings.policy.affinity {
            idle_owners(&self.owners, &mut self.owned, &idle, &mut self.idle_owners);
            Some(&self.idle_owners)
        } else {
            None
        };
        let resume = std::mem::take(&mut self.resume);
        let born = self
            .settings
            .policy
            .recent_first
            .then_some(&wanted.born[..]);
        for (w, i) in assign(plan, busy, &idle, owners, &resume, born) {
            busy[i] = true;
            let (key, expect) = (plan.needed[i], plan.expect[i]);
            let issue = Issue {
                key,
                seq: self.seq,
                budget: self.settings.budget,
                expect,
            };
            self.seq += 1;
            engine.start(w, &issue)?;
            flight[w] = Some(Flight {
                key,
                seq: issue.seq,
                issued_at: engine.now(),
                issued_after: counts.units,
                waited_on: wanted.units.get(&key).and_then(|w| w.since),
                stopped: None,
                speculative: i >= plan.required,
                below_hot: (plan.required..plan.required + plan.hot).contains(&i),
                required: i < plan.required,
                hot: hot.contains(&key),
            });
            if let Some(before) = self.last_worker.insert(key.board, w) {
                counts.repeat_issues += 1;
                counts.repeat_same_worker += u64::from(before == w);
            }
            if self.settings.policy.affinity {
                for &b in near(&key.board, plan.paths[i].as_slice()) {
                    if self.owners.insert(b, w) != Some(w) {
                        self.owned[w].push(b);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The boards of `owners` whose worker is in `idle`, into `out` (cleared
/// first), from each idle worker's list of boards it was made the owner
/// of (`owned`), which loses the boards another worker took over since.
fn idle_owners(
    owners: &Map<Board, usize>,
    owned: &mut [Vec<Board>],
    idle: &[usize],
    out: &mut Map<Board, usize>,
) {
    out.clear();
    for &w in idle {
        let owned = &mut owned[w];
        owned.retain(|b| owners.get(b) == Some(&w));
        out.extend(owned.iter().map(|&b| (b, w)));
    }
}

/// How many sowings above a unit its ancestors count as near it, for
/// [`assign`]: its own board (the same board at another bound), its
/// parent, grandparent and great-grandparent: boards a few sowings apart
/// meet the same positions below them. Three is the only depth measured
/// (docs/PERFORMANCE.md); near the root every unit would be near every
/// worker's, and the preference would mean nothing.
pub const NEAR_PLIES: usize = 3;

/// The boards near a unit of `board` reached through `path`
/// ([`Plan::paths`]), nearest first: the board, then its ancestors up to
/// [`NEAR_PLIES`] sowings above it.
fn near<'a>(board: &'a Board, path: &'a [Board]) -> impl Iterator<Item = &'a Board> {
    std::iter::once(board).chain(path[path.len().saturating_sub(NEAR_PLIES)..].iter().rev())
}

/// Most required units an idle worker looks through for one near its
/// own work (the first ones are the most urgent).
const AFFINITY_WINDOW: usize = 4096;

/// Which idle worker takes which unit of `plan` (indices into
/// [`Plan::needed`]): `min(idle, ready)` pairs, never a unit `busy` (by
/// index: running, or answered since the plan).
///
/// First, a unit whose board is in `resume` (the child a split test's
/// search was in) goes to the worker named there if it is idle: its table
/// holds that child's subtree. Then required units go first, then
/// speculative ones in order; with `born` (the plan since which each
/// required unit has been required, [`Want::born`], in plan order) and
/// more required units ready than
/// idle workers, the required ones needed most recently first, in plan
/// order among those needed since the same plan. Without `owners` (the
/// worker last handed a unit at or below each board; only the idle
/// workers' boards need be in it, see [`idle_owners`]), in order to the
/// idle workers in order.
/// With it, first each ready unit, in order, goes to the idle worker that
/// owns its nearest board ([`near`]: the board itself, then its
/// ancestors) among the idle ones, if any; the idle workers left then
/// take the units left, in order. A worker's transposition table then
/// holds much of the subtrees of the units it gets, as one machine's
/// table holds the whole tree. This reorders which needed unit starts
/// first, never whether one starts: as many units are handed out as
/// without it (of the speculative units only the first as many as the
/// idle workers are looked at, so speculation keeps its order).
fn assign(
    plan: &Plan,
    busy: &[bool],
    idle: &[usize],
    owners: Option<&Map<Board, usize>>,
    resume: &Map<Board, usize>,
    born: Option<&[u64]>,
) -> Vec<(usize, usize)> {
    let mut pick = Pick::new(idle, owners);
    // Without owners or ages, only the units that can be handed out are
    // looked at.
    let required_window = if owners.is_some() || born.is_some() {
        AFFINITY_WINDOW.max(idle.len())
    } else {
        idle.len()
    };
    let mut groups: Vec<Vec<usize>> = [
        (0..plan.required, required_window),
        (plan.required..plan.needed.len(), idle.len()),
    ]
    .into_iter()
    .map(|(range, window)| range.filter(|&i| !busy[i]).take(window).collect())
    .collect();
    if let Some(born) = born.filter(|_| groups[0].len() > idle.len()) {
        // Stable: plan order among units needed since the same plan.
        groups[0].sort_by_key(|&i| std::cmp::Reverse(born[i]));
    }
    let mut taken: Vec<Vec<bool>> = groups.iter().map(|g| vec![false; g.len()]).collect();
    if !resume.is_empty() {
        for (group, taken) in groups.iter().zip(&mut taken) {
            for (t, &i) in group.iter().enumerate() {
                if let Some(&w) = resume.get(&plan.needed[i].board) {
                    if pick.is_free(w) {
                        pick.take(w, i);
                        taken[t] = true;
                    }
                }
            }
        }
    }
    for (group, taken) in groups.iter().zip(&mut taken) {
        if pick.left == 0 {
            break;
        }
        if let Some(owners) = owners {
            for (t, &i) in group.iter().enumerate() {
                // No idle worker left that owns a board.
                if pick.owning == 0 {
                    break;
                }
                if taken[t] {
                    continue;
                }
                let home = near(&plan.needed[i].board, plan.paths[i].as_slice())
                    .filter_map(|b| owners.get(b).copied())
                    .find(|&w| pick.is_free(w));
                if let Some(w) = home {
                    pick.take(w, i);
                    taken[t] = true;
                }
            }
        }
        for (t, &i) in group.iter().enumerate() {
            if pick.left == 0 {
                break;
            }
            if !taken[t] {
                let w = pick.next_free();
                pick.take(w, i);
            }
        }
    }
    pick.out
}

/// The idle workers [`assign`] hands units to, and the pairs so far.
struct Pick<'a> {
    idle: &'a [usize],
    /// By worker: idle and not handed a unit yet.
    free: Vec<bool>,
    /// By worker: owns a board (see [`assign`]'s `owners`).
    owns: Vec<bool>,
    /// Free workers, and of those, the ones that own a board.
    left: usize,
    owning: usize,
    /// Where the next free worker in order is looked for.
    cursor: usize,
    out: Vec<(usize, usize)>,
}

impl<'a> Pick<'a> {
    fn new(idle: &'a [usize], owners: Option<&Map<Board, usize>>) -> Pick<'a> {
        let n = idle.iter().max().map_or(0, |&w| w + 1);
        let mut free = vec![false; n];
        for &w in idle {
            free[w] = true;
        }
        let mut owns = vec![false; n];
        for &w in owners.into_iter().flat_map(Map::values) {
            if free.get(w) == Some(&true) {
                owns[w] = true;
            }
        }
        let owning = owns.iter().filter(|&&o| o).count();
        Pick {
            idle,
            free,
            owns,
            left: idle.len(),
            owning,
            cursor: 0,
            out: Vec::new(),
        }
    }

    fn is_free(&self, w: usize) -> bool {
        self.free.get(w) == Some(&true)
    }

    /// The next free worker in order (one is left).
    fn next_free(&mut self) -> usize {
        while !self.free[self.idle[self.cursor]] {
            self.cursor += 1;
        }
        self.idle[self.cursor]
    }

    /// Hands unit `i` to the free worker `w`.
    fn take(&mut self, w: usize, i: usize) {
        self.out.push((w, i));
        self.free[w] = false;
        self.left -= 1;
        if self.owns[w] {
            self.owning -= 1;
        }
    }
}

/// Stops speculative units, the ones issued last first, while units the
/// search needs wait for a worker: one stop for each such unit that no
/// stop already under way will serve. A flight's [`Flight::required`]
/// says whether `plan`'s search needs it.
fn preempt(
    plan: &Plan,
    flight: &mut [Option<Flight>],
    engine: &mut dyn Engine,
) -> Result<(), String> {
    // The required units no live unit runs: a unit is never issued twice
    // while a worker holds it, so each live required unit is one of them.
    let (mut live_required, mut stopping) = (0, 0);
    for f in flight.iter().flatten() {
        match f.stopped {
            None => live_required += usize::from(f.required),
            Some(_) => stopping += 1,
        }
    }
    let waiting = plan.required.saturating_sub(live_required);
    let stops = waiting.saturating_sub(stopping);
    if stops == 0 {
        return Ok(());
    }
    let mut speculative: Vec<(f64, usize)> = flight
        .iter()
        .enumerate()
        .filter_map(|(w, f)| {
            f.as_ref()
                .filter(|f| f.stopped.is_none() && !f.required)
                .map(|f| (f.issued_at, w))
        })
        .collect();
    speculative.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    for (_, w) in speculative.into_iter().take(stops) {
        if let Some(f) = flight[w].as_mut() {
            engine.cancel(w, f.seq)?;
            f.stopped = Some(Stop::Preempted);
        }
    }
    Ok(())
}

/// The root search's decided steps, in order.
fn root_steps(r: &RootState) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(g) = r.guess {
        out.push(format!("guess {g:+}"));
    }
    for &(b, holds) in &r.tests {
        out.push(format!("{}{b}", if holds { ">=" } else { "<" }));
    }
    out
}

fn root_text(r: &RootState) -> String {
    match r.beta {
        Some(b) => format!("value in [{}, {}], testing >= {b}", r.lower, r.upper),
        None if r.pv_moves > 0 => format!(
            "value {}, perfect game: {} sowings so far",
            r.lower, r.pv_moves
        ),
        None => "first guess".to_string(),
    }
}

fn count(done: &mut Finished, r: &UnitRecord) {
    done.counts.units += 1;
    done.counts.unit_nodes += r.nodes;
    if r.verdict == Verdict::Split {
        done.counts.split_units += 1;
        done.counts.split_nodes += r.nodes;
    }
}

/// The critical chain ending with the answer `last` (see
/// [`Finished::chain`]), first link first.
fn chain(answers: &Map<u64, (Link, Option<u64>)>, last: Option<u64>) -> Vec<Link> {
    let mut out = Vec::new();
    let mut at = last;
    while let Some((link, before)) = at.and_then(|s| answers.get(&s)) {
        out.push(*link);
        at = *before;
    }
    out.reverse();
    out
}

/// Takes in one reply: frees its worker, stores the answer (or the
/// cancelled unit's cost). The reply's unit, and its record when
/// answered.
fn take(
    flight: &mut [Option<Flight>],
    reply: &Reply,
    identity: &RunIdentity,
    now: f64,
    sink: &mut dyn Sink,
    done: &mut Finished,
) -> Result<(UnitKey, Option<UnitRecord>), String> {
    let f = match flight.get_mut(reply.worker).and_then(Option::take) {
        Some(f) if f.seq == reply.seq => f,
        other => {
            return Err(format!(
                "worker {} answered unit {} it was not running ({:?})",
                reply.worker,
                reply.seq,
                other.map(|f| f.seq)
            ))
        }
    };
    let record = UnitRecord {
        worker: reply.worker,
        seq: f.seq,
        issued_after: f.issued_after,
        waited_on: f.waited_on,
        issued_at: f.issued_at,
        answered_at: now,
        stopped: f.stopped.filter(|_| reply.verdict.is_none()),
        speculative: f.speculative,
        known: reply.known.clone(),
        ..UnitRecord::answer(identity, &f.key, reply.verdict, reply.nodes, reply.seconds)
    };
    match reply.verdict {
        Some(_) => {
            sink.answered(&f.key, &record)?;
            count(done, &record);
            done.counts.units_this_run += 1;
            if f.speculative {
                done.counts.speculative_units += 1;
                done.counts.speculative_nodes += record.nodes;
            }
            Ok((f.key, Some(record)))
        }
        None => {
            sink.cancelled(&record)?;
            done.counts.add_cancelled(&record);
            Ok((f.key, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Above;
    use std::hash::Hash;

    fn set<T: Hash + Eq, const N: usize>(items: [T; N]) -> Set<T> {
        items.into_iter().collect()
    }

    fn map<K: Hash + Eq, V, const N: usize>(items: [(K, V); N]) -> Map<K, V> {
        items.into_iter().collect()
    }

    fn board(n: u128) -> Board {
        Board::from_packed(n)
    }

    /// Units 0..5 of boards 10..15, all required; units 0..2 below
    /// ancestor 1, units 3..5 below ancestor 2 (both below the root 0).
    fn plan() -> Plan {
        let needed: Vec<UnitKey> = (0..6)
            .map(|i| UnitKey {
                board: board(10 + i),
                beta: 0,
            })
            .collect();
        let paths = (0..6)
            .map(|i| Above::of(&[board(0), board(if i < 3 { 1 } else { 2 })]))
            .collect();
        Plan {
            expect: vec![true; needed.len()],
            paths,
            required: 4,
            hot: 0,
            ahead: 0,
            needed,
            root: RootState::default(),
            solved: None,
        }
    }

    /// [`assign`]'s `busy` for the units `running`.
    fn busy(plan: &Plan, running: &Set<UnitKey>) -> Vec<bool> {
        plan.needed.iter().map(|k| running.contains(k)).collect()
    }

    fn check(plan: &Plan, running: &Set<UnitKey>, idle: &[usize], got: &[(usize, usize)]) {
        let ready = plan.needed.iter().filter(|k| !running.contains(k)).count();
        assert_eq!(got.len(), idle.len().min(ready));
        let workers: Set<usize> = got.iter().map(|g| g.0).collect();
        let units: Set<usize> = got.iter().map(|g| g.1).collect();
        assert_eq!(workers.len(), got.len(), "a worker takes one unit");
        assert_eq!(units.len(), got.len(), "a unit goes to one worker");
        assert!(workers.iter().all(|w| idle.contains(w)));
        assert!(units.iter().all(|&i| !running.contains(&plan.needed[i])));
    }

    /// A test handed out below a hot unit turns hot sooner than others
    /// issued at the same time; a test of neither kind waits the whole
    /// fraction of its budget's time.
    #[test]
    fn tests_below_hot_units_turn_hot_sooner() {
        let flight = |below_hot| Flight {
            key: UnitKey {
                board: board(10),
                beta: 2,
            },
            seq: 0,
            issued_at: 1.0,
            issued_after: 0,
            waited_on: None,
            stopped: None,
            speculative: true,
            below_hot,
            required: false,
            hot: false,
        };
        assert_eq!(flight(false).hot_at(0.2), 1.2);
        assert_eq!(flight(true).hot_at(0.2), 1.0 + 0.2 * BELOW_HOT_SOONER);
        assert!(flight(true).hot_at(0.2) < flight(false).hot_at(0.2));
    }

    /// A unit keeps the answer it waited on and the plan since which it is
    /// required while plans go on needing it; one a plan drops starts
    /// afresh when a later plan needs it again.
    #[test]
    fn wanted_units_keep_their_wait_and_age_while_plans_need_them() {
        let key = |n| UnitKey {
            board: board(n),
            beta: 2,
        };
        let (a, b, c, d) = (key(1), key(2), key(3), key(4));
        let mut p = plan();
        let mut wanted = Wanted::default();
        let want = |w: &Wanted, k| w.units.get(&k).map(|w| (w.since, w.born));
        p.needed = vec![a, b, c];
        p.required = 2;
        wanted.refill(&p, Some(5), 1);
        assert_eq!(want(&wanted, a), Some((Some(5), Some(1))));
        assert_eq!(want(&wanted, c), Some((Some(5), None)));
        assert_eq!(wanted.born, [1, 1]);
        p.needed = vec![c, a, d];
        wanted.refill(&p, Some(9), 2);
        assert_eq!(want(&wanted, c), Some((Some(5), Some(2))));
        assert_eq!(want(&wanted, a), Some((Some(5), Some(1))));
        assert_eq!(want(&wanted, d), Some((Some(9), None)));
        assert_eq!(want(&wanted, b), None);
        assert_eq!(wanted.born, [2, 1]);
        p.needed = vec![b, a];
        p.required = 1;
        wanted.refill(&p, Some(11), 3);
        assert_eq!(want(&wanted, b), Some((Some(11), Some(3))));
        assert_eq!(want(&wanted, a), Some((Some(5), None)));
        assert_eq!(wanted.units.len(), 2);
        assert_eq!(wanted.born, [3]);
    }

    #[test]
    fn stopped_units_are_counted_by_why() {
        let identity = RunIdentity {
            pits: 6,
            seeds: 4,
            rules: "ec".into(),
            table_seeds: 0,
        };
        let key = UnitKey {
            board: board(10),
            beta: 0,
        };
        let mut counts = UnitCounts::default();
        for (stopped, nodes) in [
            (Some(Stop::Unneeded), 5),
            (Some(Stop::Preempted), 7),
            (Some(Stop::Unneeded), 11),
            (Some(Stop::Solved), 13),
            (None, 17),
        ] {
            counts.add_cancelled(&UnitRecord {
                stopped,
                ..UnitRecord::answer(&identity, &key, None, nodes, 0.0)
            });
        }
        assert_eq!((counts.cancelled_units, counts.cancelled_nodes), (5, 53));
        assert_eq!((counts.unneeded_units, counts.unneeded_nodes), (2, 16));
        assert_eq!((counts.preempted_units, counts.preempted_nodes), (1, 7));
        assert_eq!(counts.total_nodes(), 53);
    }

    #[test]
    fn idle_owners_are_the_owners_among_the_idle_workers() {
        // Worker 0 was made the owner of boards 1, 2 and 3, and worker 1
        // took board 2 over; worker 2 owns board 4.
        let owners = map([(board(1), 0), (board(2), 1), (board(3), 0), (board(4), 2)]);
        let mut owned = vec![
            vec![board(1), board(2), board(3)],
            vec![board(2)],
            vec![board(4)],
        ];
        let mut out = map([(board(9), 9)]);
        idle_owners(&owners, &mut owned, &[0, 2], &mut out);
        assert_eq!(out, map([(board(1), 0), (board(3), 0), (board(4), 2)]));
        assert_eq!(owned[0], vec![board(1), board(3)], "board 2 weeded out");
        idle_owners(&owners, &mut owned, &[1], &mut out);
        assert_eq!(out, map([(board(2), 1)]));
    }

    #[test]
    fn without_owners_units_go_in_order() {
        let p = plan();
        let running = set([p.needed[0]]);
        let got = assign(
            &p,
            &busy(&p, &running),
            &[3, 1],
            None,
            &Map::default(),
            None,
        );
        check(&p, &running, &[3, 1], &got);
        assert_eq!(got, vec![(3, 1), (1, 2)]);
    }

    #[test]
    fn an_idle_worker_takes_a_unit_near_its_own() {
        let p = plan();
        // Worker 1 had a unit below ancestor 2, worker 0 one of board 11.
        let owners = map([(board(2), 1), (board(11), 0)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[1],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(1, 3)], "the first required unit below 2");
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            Some(&owners),
            &Map::default(),
            None,
        );
        check(&p, &Set::default(), &[0, 1], &got);
        assert_eq!(got, vec![(0, 1), (1, 3)], "the same board before a sibling");
        // An owner that is busy: the idle worker takes the first unit.
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[2],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(2, 0)]);
    }

    #[test]
    fn required_units_go_before_speculative_ones() {
        let p = plan();
        // Worker 1 owns ancestor 2 (units 3..5; 4 and 5 speculative); with
        // units 0..3 running it takes speculation near it, and with only
        // unit 3 running, the required units 0..3 (near no one) in order
        // before speculative unit 4.
        let owners = map([(board(2), 1)]);
        let running: Set<UnitKey> = p.needed[..4].iter().copied().collect();
        let got = assign(
            &p,
            &busy(&p, &running),
            &[1],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(1, 4)]);
        let running = set([p.needed[3]]);
        let got = assign(
            &p,
            &busy(&p, &running),
            &[1, 5, 6, 7],
            Some(&owners),
            &Map::default(),
            None,
        );
        check(&p, &running, &[1, 5, 6, 7], &got);
        assert_eq!(got, vec![(1, 0), (5, 1), (6, 2), (7, 4)]);
    }

    #[test]
    fn a_split_worker_takes_back_the_child_it_was_in() {
        let p = plan();
        // Worker 1 owns ancestor 2 and was searching unit 5's board (a
        // speculative unit) when its test was split: it takes unit 5 before
        // the required units near its own; the others go in order.
        let owners = map([(board(2), 1)]);
        let resume = map([(p.needed[5].board, 1)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            Some(&owners),
            &resume,
            None,
        );
        check(&p, &Set::default(), &[0, 1], &got);
        assert_eq!(got, vec![(1, 5), (0, 0)]);
        // A child already running elsewhere, or a worker not idle, changes
        // nothing.
        let running = set([p.needed[5]]);
        let got = assign(&p, &busy(&p, &running), &[1], Some(&owners), &resume, None);
        assert_eq!(got, vec![(1, 3)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0],
            Some(&owners),
            &resume,
            None,
        );
        assert_eq!(got, vec![(0, 0)]);
    }

    #[test]
    fn units_needed_last_go_first_when_workers_are_short() {
        let p = plan();
        // Units 0..4 required since plan 1, unit 2 since plan 5.
        let born = [1, 1, 5, 1];
        let none = Map::default();
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            None,
            &none,
            Some(&born[..]),
        );
        assert_eq!(got, vec![(0, 2), (1, 0)]);
        // Workers for every required unit: the plan's order.
        let idle = [0, 1, 2, 3, 4];
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &idle,
            None,
            &none,
            Some(&born[..]),
        );
        check(&p, &Set::default(), &idle, &got);
        assert_eq!(got[..4], [(0, 0), (1, 1), (2, 2), (3, 3)]);
    }
}
