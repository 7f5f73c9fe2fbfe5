//! The coordinator's loop as a value: [`Run::run_to_end`] plans the top tree,
//! hands its units out, takes the answers in, and again, until the plan
//! says the start is solved.
//!
//! One turn of the loop, in the order a reader follows it:
//! 1. [`Run::plan`] (when answers call for one): the top tree replayed
//!    against the facts so far; units no longer needed are stopped.
//! 2. [`Run::hand_out`]: idle workers take the plan's units; preemption.
//! 3. The engine's next answer, or the moment the next unit turns hot.
//! 4. [`Run::take_in`]: that answer and every other one already in.
//! 5. [`Run::note`]: a progress line now and then.

use std::time::Instant;

use foldhash::{HashMap as Map, HashSet as Set};

use super::accounts::{chain, count};
use super::dispatch::{preempt, Hand};
use super::flight::{take, Flight};
use super::progress::{root_steps, Note};
use super::wanted::{Want, Wanted};
use super::{Finished, Link, OwnWork, Reply, Settings, Sink, UnitCounts, Watched};
use crate::error::ClusterError;
use crate::facts::Facts;
use crate::plan::{Plan, RootState, Solved, TopTree};
use crate::unit::{impossible_known, RunIdentity, Stop, UnitKey, UnitRecord, Verdict, EXACT};

/// A run of the coordinator over its engine, between two turns of the
/// loop.
pub(super) struct Run<'r, 't> {
    tree: &'r TopTree<'t>,
    identity: &'r RunIdentity,
    engine: &'r mut dyn Watched,
    sink: &'r mut dyn Sink,
    settings: Settings,
    /// What the answers so far say about boards of the top tree.
    facts: Facts,
    /// What the run found and spent so far.
    done: Finished,
    /// The root's steps already in [`Finished::timeline`].
    steps: usize,
    /// Each worker's unit, if it has one.
    flight: Vec<Option<Flight>>,
    /// The engine's clock at the start.
    started: f64,
    wanted: Wanted,
    last_answer: Option<u64>,
    /// This run's answers, by seq: the critical chain's links and what
    /// each waited on.
    answers: Map<u64, (Link, Option<u64>)>,
    /// By index into the last plan's units: running, or answered since
    /// the plan (not handed out again).
    busy: Vec<bool>,
    last_note: Instant,
    /// The node rate of this run's answers: nodes and seconds.
    rate_nodes: u64,
    rate_seconds: f64,
    /// Every node this run's workers searched, answered or not.
    run_nodes: u64,
    hand: Hand,
    /// The last plan, whether the answers since call for a new one
    /// ([`super::Policy::lazy`]), and the units it was made with as hot.
    last: Option<Plan>,
    replan: bool,
    hot: Set<UnitKey>,
}

impl<'r, 't> Run<'r, 't> {
    /// A run resuming `earlier` (the records of the runs before it: their
    /// units are not issued again).
    ///
    /// # Errors
    /// A record of another run, or one that does not fit its unit.
    pub(super) fn new(
        tree: &'r TopTree<'t>,
        identity: &'r RunIdentity,
        earlier: &[UnitRecord],
        engine: &'r mut dyn Watched,
        sink: &'r mut dyn Sink,
        settings: Settings,
    ) -> Result<Run<'r, 't>, ClusterError> {
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
        let workers = engine.workers();
        let started = engine.now();
        Ok(Run {
            tree,
            identity,
            engine,
            sink,
            settings,
            facts,
            done,
            steps: 0,
            flight: (0..workers).map(|_| None).collect(),
            started,
            wanted: Wanted::default(),
            last_answer: None,
            answers: Map::default(),
            busy: Vec::new(),
            last_note: Instant::now(),
            rate_nodes: 0,
            rate_seconds: 0.0,
            run_nodes: 0,
            hand: Hand {
                seq,
                settings,
                owners: Map::default(),
                owned: vec![Vec::new(); workers],
                idle_owners: Map::default(),
                last_worker: Map::default(),
                resume: Map::default(),
            },
            last: None,
            replan: true,
            hot: Set::default(),
        })
    }

    /// Runs the loop to the answer.
    ///
    /// # Errors
    /// An engine failure, a sink that cannot store, contradicting results,
    /// no workers, a signal.
    pub(super) fn run_to_end(mut self) -> Result<Finished, ClusterError> {
        loop {
            let hot_after = self.hot_after();
            let clock = self.engine.now();
            let fresh = self.replan || self.last.is_none();
            if fresh {
                if let Some(solved) = self.plan(hot_after, clock)? {
                    return self.solved(solved);
                }
            }
            self.hand_out()?;
            if self.flight.iter().all(Option::is_none) {
                if !fresh {
                    // The last plan's units are all answered: a new one.
                    self.replan = true;
                    continue;
                }
                return Err(ClusterError::NoWorkers);
            }
            // Wait for an answer, or until the next unit turns hot.
            let until = self.next_hot(hot_after, clock);
            // The next answer, then every other one already in: one plan
            // takes them all (a plan costs the coordinator milliseconds,
            // in which many workers answer).
            self.engine.mark(OwnWork::HandOut);
            let next = self.engine.wait(until)?;
            let interrupted = kalah::interrupt::requested();
            if interrupted {
                self.stop_all(Stop::Interrupted)?;
            }
            // No answer (a unit turned hot): a new plan.
            self.replan = !self.settings.policy.lazy || next.is_none();
            self.take_in(next)?;
            self.engine.mark(OwnWork::Intake);
            if interrupted {
                self.drain()?;
                self.engine.finish()?;
                return Err(ClusterError::Interrupted {
                    units: self.done.counts.units,
                    units_this_run: self.done.counts.units_this_run,
                });
            }
            self.note();
        }
    }

    /// How long a test runs before it is hot, at the rate seen so far.
    fn hot_after(&self) -> Option<f64> {
        let s = &self.settings;
        (s.policy.presplit > 0.0 && s.budget > 0 && self.rate_nodes > 0).then(|| {
            s.policy.presplit * s.budget as f64 * self.rate_seconds / self.rate_nodes as f64
        })
    }

    /// When the next running test turns hot, if after `clock`.
    fn next_hot(&self, hot_after: Option<f64>, clock: f64) -> Option<f64> {
        hot_after.and_then(|after| {
            self.flight
                .iter()
                .flatten()
                .filter(|f| f.stopped.is_none() && f.key.beta != EXACT && !f.hot)
                .map(|f| f.hot_at(after))
                .min_by(f64::total_cmp)
                .filter(|&t| t > clock)
        })
    }

    /// A new plan with the units hot at `clock`: the perfect game once the
    /// start is solved; else the plan kept as the last, and the running
    /// units it no longer needs stopped.
    fn plan(&mut self, hot_after: Option<f64>, clock: f64) -> Result<Option<Solved>, ClusterError> {
        self.hot.clear();
        for f in self.flight.iter_mut().flatten() {
            f.hot = hot_after.is_some_and(|after| {
                f.stopped.is_none() && f.key.beta != EXACT && f.hot_at(after) <= clock
            });
            if f.hot {
                self.hot.insert(f.key);
            }
        }
        self.engine.mark(OwnWork::Setup);
        let plan = self.tree.plan_hot(&mut self.facts, &self.hot)?;
        self.done.plans += 1;
        self.engine.mark(OwnWork::Plan);
        let now = self.engine.now() - self.started;
        let decided = root_steps(&plan.root);
        while self.steps < decided.len() {
            self.done.timeline.push((now, decided[self.steps].clone()));
            self.steps += 1;
        }
        if let Some(solved) = plan.solved {
            self.done.timeline.push((now, "perfect game".into()));
            self.done.root = plan.root;
            return Ok(Some(solved));
        }
        self.wanted.refill(&plan, self.last_answer, self.done.plans);
        self.busy.clear();
        self.busy.resize(plan.needed.len(), false);
        for (w, f) in self.flight.iter_mut().enumerate() {
            let Some(f) = f.as_mut() else { continue };
            let want = self.wanted.units.get(&f.key);
            f.required = want.is_some_and(Want::required);
            if let Some(want) = want {
                self.busy[want.index] = true;
            }
            if f.stopped.is_none() && want.is_none() {
                self.engine.cancel(w, f.seq)?;
                f.stopped = Some(Stop::Unneeded);
            }
        }
        self.last = Some(plan);
        Ok(None)
    }

    /// The last plan's units to the idle workers, preemption, and the
    /// engine told which running units the search needs.
    fn hand_out(&mut self) -> Result<(), ClusterError> {
        let plan = self.last.as_ref().expect("planned before a hand-out");
        if self.flight.iter().any(Option::is_none) {
            self.hand.out(
                plan,
                &mut self.busy,
                &mut self.flight,
                &mut *self.engine,
                (&self.wanted, &self.hot),
                &mut self.done.counts,
            )?;
        }
        if self.settings.policy.preempt {
            preempt(plan, &mut self.flight, &mut *self.engine)?;
        }
        for (w, f) in self.flight.iter().enumerate() {
            if let Some(f) = f.as_ref().filter(|f| f.stopped.is_none()) {
                self.engine.needed(w, f.seq, f.required);
            }
        }
        Ok(())
    }

    /// Takes in the answer `next` and every other one the engine already
    /// has: each stored, its facts added, the next plan called for when
    /// the search needed it.
    fn take_in(&mut self, mut next: Option<Reply>) -> Result<(), ClusterError> {
        while let Some(reply) = next {
            self.run_nodes += reply.nodes;
            if reply.verdict.is_some() {
                self.rate_nodes += reply.nodes;
                self.rate_seconds += reply.seconds;
            }
            if let Some(problem) = impossible_known(&reply.known) {
                return Err(ClusterError::Worker {
                    worker: reply.worker,
                    problem: format!("reported {problem}: a fault in its solver or tables"),
                });
            }
            if self.settings.policy.known {
                reply.known.iter().for_each(|k| self.facts.add_known(k));
            }
            let (key, record) = self.take(&reply)?;
            if let Some(record) = record {
                self.answered(key, &record, &reply);
            } else if let Some(want) = self.wanted.units.get(&key) {
                // Stopped: no worker runs it any more (a unit runs on one
                // worker at a time).
                self.busy[want.index] = false;
            }
            next = self.engine.ready()?;
        }
        Ok(())
    }

    /// Takes in the answer `record` to unit `key` from `reply`: a new plan
    /// when the search needed it or it was split, the child a split
    /// worker was in kept for it, its fact, its link of the critical
    /// chain.
    fn answered(&mut self, key: UnitKey, record: &UnitRecord, reply: &Reply) {
        self.replan |= record.verdict == Verdict::Split
            || self.wanted.units.get(&key).is_none_or(Want::required);
        if let (Some(Verdict::Split), Some(house), true) =
            (reply.verdict, reply.inside, self.settings.policy.resume)
        {
            let game = self.tree.game;
            if usize::from(house) < game.pits() && game.moves(key.board) >> house & 1 == 1 {
                let child = game.sow(key.board, usize::from(house)).board;
                self.hand.resume.insert(child, reply.worker);
            }
        }
        self.facts.add(key, record.verdict);
        self.last_answer = Some(record.seq);
        let link = Link {
            key,
            seq: record.seq,
            verdict: record.verdict,
            needed_at: record
                .waited_on
                .and_then(|s| self.answers.get(&s))
                .map_or(self.started, |(l, _)| l.answered_at),
            issued_at: record.issued_at,
            answered_at: record.answered_at,
        };
        self.answers.insert(record.seq, (link, record.waited_on));
    }

    /// [`take`] of one reply into this run's sink and accounts.
    fn take(&mut self, reply: &Reply) -> Result<(UnitKey, Option<UnitRecord>), ClusterError> {
        let now = self.engine.now();
        take(
            &mut self.flight,
            reply,
            self.identity,
            now,
            &mut *self.sink,
            &mut self.done,
        )
    }

    /// Asks every running unit not yet stopped to stop, for `why`.
    fn stop_all(&mut self, why: Stop) -> Result<(), ClusterError> {
        for (w, f) in self.flight.iter_mut().enumerate() {
            if let Some(f) = f.as_mut().filter(|f| f.stopped.is_none()) {
                self.engine.cancel(w, f.seq)?;
                f.stopped = Some(why);
            }
        }
        Ok(())
    }

    /// Waits for every running unit's reply and takes it in.
    fn drain(&mut self) -> Result<(), ClusterError> {
        while self.flight.iter().any(Option::is_some) {
            let reply = self
                .engine
                .wait(None)?
                .ok_or_else(|| ClusterError::engine("no reply from a running unit"))?;
            self.run_nodes += reply.nodes;
            self.take(&reply)?;
        }
        Ok(())
    }

    /// The start solved: the running units stopped and taken in, the
    /// workers told, the account closed.
    fn solved(mut self, solved: Solved) -> Result<Finished, ClusterError> {
        self.stop_all(Stop::Solved)?;
        self.drain()?;
        self.engine.finish()?;
        let mut done = self.done;
        done.solved = solved;
        done.seconds = self.engine.now() - self.started;
        done.counts.nodes_this_run = self.run_nodes;
        done.chain = chain(&self.answers, self.last_answer);
        Ok(done)
    }

    /// A progress line on stderr, when one is due.
    fn note(&mut self) {
        let s = &self.settings;
        if s.progress_every <= 0.0 || self.last_note.elapsed().as_secs_f64() < s.progress_every {
            return;
        }
        self.last_note = Instant::now();
        let plan = self.last.as_ref().expect("planned before a note");
        let running = self.flight.iter().flatten().count();
        let note = Note {
            units: self.done.counts.units,
            units_this_run: self.done.counts.units_this_run,
            running,
            waiting: plan.needed.len().saturating_sub(running),
            root: &plan.root,
            nodes: self.done.counts.total_nodes(),
            run_nodes: self.run_nodes,
            run_seconds: self.engine.now() - self.started,
            model_nodes: s.model_nodes,
        };
        let line = if s.progress_json {
            serde_json::to_string(&note.json()).expect("plain struct")
        } else {
            format!("kalah-cluster: {}", note.text())
        };
        eprintln!("{line}");
    }
}
