//! A unit in flight: handed to a worker, until its reply is taken in
//! (stored, counted).

use super::accounts::count;
use super::{Finished, Reply, Sink};
use crate::error::ClusterError;
use crate::unit::{RunIdentity, Stop, UnitKey, UnitRecord};

pub(super) struct Flight {
    pub(super) key: UnitKey,
    pub(super) seq: u64,
    pub(super) issued_at: f64,
    pub(super) issued_after: u64,
    /// The unit whose answer made this one needed (see
    /// [`UnitRecord::waited_on`]).
    pub(super) waited_on: Option<u64>,
    /// Asked to stop, and why.
    pub(super) stopped: Option<Stop>,
    /// Handed out as speculation (see [`UnitRecord::speculative`]).
    pub(super) speculative: bool,
    /// Handed out as a test below a hot unit ([`Plan::hot`]).
    pub(super) below_hot: bool,
    /// The last plan's search needs it ([`Want::required`]); set when
    /// it is handed out and at each plan, so that the loops over every
    /// worker between plans look nothing up.
    pub(super) required: bool,
    /// In the last plan's set of hot units (handed to
    /// [`TopTree::plan_hot`]); set at each plan and at hand-out.
    pub(super) hot: bool,
}

/// How much sooner than [`Policy::presplit`](super::Policy::presplit) says a test handed out
/// below a hot unit turns hot itself: the child of a unit that ran long
/// is likely to run long too, and the sooner its own children are
/// planned, the sooner a descent through a large subtree reaches units
/// that answer (lab/journal/cluster.md, "tests below hot units hot sooner").
/// Every other unit waits the whole fraction: most of them answer before
/// their budget, and planning their children costs plans and nodes.
pub const BELOW_HOT_SOONER: f64 = 0.5;

impl Flight {
    /// When the flight turns hot, where a test turns hot `after` seconds
    /// after its issue ([`Policy::presplit`](super::Policy::presplit)); one below a hot unit
    /// sooner ([`BELOW_HOT_SOONER`]).
    pub(super) fn hot_at(&self, after: f64) -> f64 {
        let after = if self.below_hot {
            after * BELOW_HOT_SOONER
        } else {
            after
        };
        self.issued_at + after
    }
}

/// Takes in one reply: frees its worker, stores the answer (or the
/// cancelled unit's cost). The reply's unit, and its record when
/// answered.
pub(super) fn take(
    flight: &mut [Option<Flight>],
    reply: &Reply,
    identity: &RunIdentity,
    now: f64,
    sink: &mut dyn Sink,
    done: &mut Finished,
) -> Result<(UnitKey, Option<UnitRecord>), ClusterError> {
    let f = match flight.get_mut(reply.worker).and_then(Option::take) {
        Some(f) if f.seq == reply.seq => f,
        other => {
            return Err(ClusterError::Worker {
                worker: reply.worker,
                problem: format!(
                    "answered unit {} it was not running ({:?})",
                    reply.seq,
                    other.map(|f| f.seq)
                ),
            })
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
    use kalah_solver::Board;

    fn board(n: u128) -> Board {
        Board::from_packed(n)
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
}
