//! A node limit a search waits at: the search runs until its node count
//! reaches the limit, then stands still until the limit is raised (or the
//! gate is released), with its stack and its table entries as they were.
//!
//! A worker holds a unit's test at its node budget with one
//! ([`crate::worker`]), so that a split comes at the same node count
//! however fast the worker polls; the laboratory (`kalah-lab simulate
//! --emulate`) runs each emulated worker's search only as far as a
//! simulated clock allows. The gate is the solver's [`NodeHook`]: the
//! search calls it where it looks at its stop flag (every 1,024 nodes), so
//! one with a gate stops within 1,024 nodes past the limit.

use std::sync::{Condvar, Mutex, MutexGuard};

use kalah_solver::search::NodeHook;

/// Where a gated search stands (see [`NodeGate::run_to`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateStop {
    /// Waiting at the limit, after this many nodes.
    Paused(u64),
    /// The search returned.
    Finished,
}

#[derive(Debug)]
struct State {
    /// The search waits once its node count reaches this.
    limit: u64,
    /// The count it waits at, while it waits.
    paused_at: Option<u64>,
    finished: bool,
}

/// A node limit shared by a search (which waits at it) and its controller
/// (which raises it). Invariant: at most one search uses a gate at a time.
#[derive(Debug)]
pub struct NodeGate {
    state: Mutex<State>,
    changed: Condvar,
}

impl Default for NodeGate {
    fn default() -> Self {
        NodeGate::new()
    }
}

impl NodeGate {
    /// A gate closed at 0 nodes: a search started behind it waits at its
    /// first look until [`NodeGate::run_to`] raises the limit.
    pub fn new() -> NodeGate {
        NodeGate {
            state: Mutex::new(State {
                limit: 0,
                paused_at: None,
                finished: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking search cannot leave the state half written: every
        // change is one assignment.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Called by the search at each look, with its node count: waits while
    /// the count is at or past the limit.
    fn pass(&self, nodes: u64) {
        let mut s = self.lock();
        if nodes < s.limit {
            return;
        }
        s.paused_at = Some(nodes);
        self.changed.notify_all();
        while nodes >= s.limit {
            s = self
                .changed
                .wait(s)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        s.paused_at = None;
    }

    /// Marks the search returned (its controller's wrapper calls this when
    /// the search function returns, whatever its result).
    pub fn finish(&self) {
        let mut s = self.lock();
        s.finished = true;
        self.changed.notify_all();
    }

    /// Closes the gate at 0 nodes for the next search. No search may be
    /// using the gate.
    pub fn rearm(&self) {
        let mut s = self.lock();
        *s = State {
            limit: 0,
            paused_at: None,
            finished: false,
        };
    }

    /// Raises the limit to `limit` nodes (a lower one changes nothing) and
    /// lets the search go on; [`NodeGate::stopped`] then waits for it. A
    /// search paused at or past the new limit (it looks only every 1,024
    /// nodes, so it may stand past the old one) stays paused where it is.
    pub fn open_to(&self, limit: u64) {
        let mut s = self.lock();
        if limit > s.limit {
            s.limit = limit;
            if s.paused_at.is_some_and(|n| n < limit) {
                s.paused_at = None;
            }
            self.changed.notify_all();
        }
    }

    /// Waits until the search waits at the limit or returns.
    pub fn stopped(&self) -> GateStop {
        let mut s = self.lock();
        loop {
            if s.finished {
                return GateStop::Finished;
            }
            if let Some(n) = s.paused_at {
                return GateStop::Paused(n);
            }
            s = self
                .changed
                .wait(s)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// Where the search stands now, without waiting: `None` while it
    /// runs.
    pub fn peek(&self) -> Option<GateStop> {
        let s = self.lock();
        if s.finished {
            Some(GateStop::Finished)
        } else {
            s.paused_at.map(GateStop::Paused)
        }
    }

    /// [`NodeGate::open_to`] `limit`, then [`NodeGate::stopped`].
    pub fn run_to(&self, limit: u64) -> GateStop {
        self.open_to(limit);
        self.stopped()
    }

    /// Lets the search run on without a limit (after its stop flag was set,
    /// to let it see the flag and return).
    pub fn release(&self) {
        let mut s = self.lock();
        s.limit = u64::MAX;
        s.paused_at = None;
        self.changed.notify_all();
    }
}

impl NodeHook for NodeGate {
    fn reached(&self, nodes: u64) {
        self.pass(nodes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A stand-in search: counts in steps of 1,024, looking at the gate
    /// at each step, and returns at `total`.
    fn search(gate: &NodeGate, total: u64) {
        let mut n = 0;
        while n < total {
            n += 1024;
            gate.pass(n);
        }
        gate.finish();
    }

    #[test]
    fn a_search_stops_at_each_limit_and_finishes() {
        let gate = Arc::new(NodeGate::new());
        let g = Arc::clone(&gate);
        let t = std::thread::spawn(move || search(&g, 10 * 1024));
        assert_eq!(gate.run_to(3000), GateStop::Paused(3072));
        // A lower limit than the one reached changes nothing.
        assert_eq!(gate.run_to(1000), GateStop::Paused(3072));
        // Nor does a higher one that the search has already passed.
        assert_eq!(gate.run_to(3050), GateStop::Paused(3072));
        assert_eq!(gate.run_to(8192), GateStop::Paused(8192));
        assert_eq!(gate.run_to(1 << 20), GateStop::Finished);
        t.join().unwrap();
    }

    #[test]
    fn a_released_search_runs_to_its_end() {
        let gate = Arc::new(NodeGate::new());
        let g = Arc::clone(&gate);
        let t = std::thread::spawn(move || search(&g, 5 * 1024));
        assert_eq!(gate.run_to(1), GateStop::Paused(1024));
        gate.release();
        t.join().unwrap();
        assert_eq!(gate.run_to(0), GateStop::Finished);
        // Rearmed, it holds the next search at its first look.
        gate.rearm();
        let g = Arc::clone(&gate);
        let t = std::thread::spawn(move || search(&g, 4 * 1024));
        assert_eq!(gate.stopped(), GateStop::Paused(1024));
        assert_eq!(gate.run_to(u64::MAX), GateStop::Finished);
        t.join().unwrap();
    }
}
