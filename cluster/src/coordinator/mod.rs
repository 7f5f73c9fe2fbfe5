//! The coordinator's loop: replay the top tree, hand the units it needs to
//! idle workers, stop the ones it no longer needs, store each answer.
//!
//! The loop is the same for every engine ([`Engine`]): MPI ranks, the
//! coordinator's own process, or the simulated workers of the laboratory
//! (`kalah-lab`), which also hear where the coordinator's own work ends
//! ([`Watched`]).

mod accounts;
mod dispatch;
mod engine;
mod flight;
mod policy;
mod progress;
mod sink;
mod wanted;

pub use accounts::{Finished, Link, UnitCounts};
pub use dispatch::NEAR_PLIES;
pub use engine::{Engine, Issue, OwnWork, Reply, Watched};
pub use flight::BELOW_HOT_SOONER;
pub use policy::{Policy, Settings};
pub use sink::{Discard, Sink};

use std::time::Instant;

use foldhash::{HashMap as Map, HashSet as Set};

use crate::error::ClusterError;
use crate::facts::Facts;
use crate::plan::{Plan, RootState, Solved, TopTree};
use crate::unit::{impossible_known, RunIdentity, Stop, UnitKey, UnitRecord, Verdict, EXACT};

use accounts::{chain, count};
use dispatch::{preempt, Hand};
use engine::Unwatched;
use flight::{take, Flight};
use progress::{root_steps, Note};
use wanted::{Want, Wanted};

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
) -> Result<Finished, ClusterError> {
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
) -> Result<Finished, ClusterError> {
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
            let plan = tree.plan_hot(&mut facts, &hot)?;
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
                    let reply = engine
                        .wait(None)?
                        .ok_or_else(|| ClusterError::engine("no reply from a running unit"))?;
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
            return Err(ClusterError::NoWorkers);
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
            if let Some(problem) = impossible_known(&reply.known) {
                return Err(ClusterError::Worker {
                    worker: reply.worker,
                    problem: format!("reported {problem}: a fault in its solver or tables"),
                });
            }
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
                let reply = engine
                    .wait(None)?
                    .ok_or_else(|| ClusterError::engine("no reply from a running unit"))?;
                take(&mut flight, &reply, identity, engine.now(), sink, &mut done)?;
            }
            engine.finish()?;
            return Err(ClusterError::Interrupted {
                units: done.counts.units,
                units_this_run: done.counts.units_this_run,
            });
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
