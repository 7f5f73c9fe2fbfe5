//! The one hook a search calls: its node count, at each look at its stop
//! flag.
//!
//! Every worker of a search adds the nodes it visited to the search's
//! shared count every 1,024 nodes, where it also looks at the stop flag;
//! a [`NodeHook`] set on the solver ([`Solver::set_node_hook`]) is called
//! there with the count. A search without a hook pays one test of an
//! `Option` every 1,024 nodes. The cluster crate holds a unit's test at
//! its node budget with one (`kalah_cluster::gate::NodeGate`), and the
//! laboratory runs emulated workers up to a simulated clock with the same.
//!
//! [`Solver::set_node_hook`]: super::Solver::set_node_hook

/// Called by a searching thread with the search's node count (all its
/// workers together, counted from [`Solver::reset_stats`]) at each look at
/// its stop flag.
///
/// [`Solver::reset_stats`]: super::Solver::reset_stats
pub trait NodeHook: Send + Sync {
    /// The search has counted `nodes`. It may block: the search stands
    /// still meanwhile, its stack and its table entries as they were; a
    /// search stopped through its stop flag returns once the hook does.
    fn reached(&self, nodes: u64);
}
