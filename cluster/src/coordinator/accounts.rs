//! What a run found and spent: its answer, its units and nodes, its
//! critical chain.

use foldhash::HashMap as Map;
use serde::Serialize;

use crate::plan::{RootState, Solved};
use crate::unit::{Stop, UnitKey, UnitRecord, Verdict};

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
/// seconds ([`Engine::now`](super::Engine::now)).
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

pub(super) fn count(done: &mut Finished, r: &UnitRecord) {
    done.counts.units += 1;
    done.counts.unit_nodes += r.nodes;
    if r.verdict == Verdict::Split {
        done.counts.split_units += 1;
        done.counts.split_nodes += r.nodes;
    }
}

/// The critical chain ending with the answer `last` (see
/// [`Finished::chain`]), first link first.
pub(super) fn chain(answers: &Map<u64, (Link, Option<u64>)>, last: Option<u64>) -> Vec<Link> {
    let mut out = Vec::new();
    let mut at = last;
    while let Some((link, before)) = at.and_then(|s| answers.get(&s)) {
        out.push(*link);
        at = *before;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unit::RunIdentity;
    use kalah_solver::Board;

    fn board(n: u128) -> Board {
        Board::from_packed(n)
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
}
