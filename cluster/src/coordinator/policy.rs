//! How the coordinator chooses, hands out and stops units ([`Policy`]),
//! and how it runs ([`Settings`]).

use serde::Serialize;

/// How the coordinator chooses, hands out and stops units: `solve`'s
/// tuning flags ([`Policy::DEFAULT`] without them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Policy {
    /// A test unanswered after this fraction of the time its budget
    /// takes (at the node rate of the answers so far) is hot: its
    /// children's tests are planned beside it for idle workers
    /// ([`TopTree::plan_hot`](crate::plan::TopTree::plan_hot)). A test handed out from below a hot unit
    /// turns hot sooner ([`BELOW_HOT_SOONER`](super::BELOW_HOT_SOONER)). 0: never; no effect
    /// without a budget.
    pub presplit: f64,
    /// A unit the search needs that finds no idle worker takes the worker
    /// of the speculative unit issued last (which is stopped; it is asked
    /// again when a worker is free and it is still wanted).
    pub preempt: bool,
    /// An idle worker takes, of the units the search needs, one near the
    /// last units it was handed (see `dispatch::assign`): its transposition table
    /// holds much of that subtree.
    pub affinity: bool,
    /// Takes in the bounds workers report beyond each unit's verdict
    /// ([`Reply::known`](super::Reply::known)): the children a split unit decided need no
    /// units, and an answered test's own bound may decide later tests of
    /// its board. Off only to measure what they save.
    pub known: bool,
    /// A worker whose test was split at its budget is handed back the
    /// child its search was in ([`Reply::inside`](super::Reply::inside)), whose subtree its
    /// table holds, if the plan needs that child's test and no other
    /// worker runs it. Off only to measure what it saves.
    pub resume: bool,
    /// Of the units the search needs, those needed since the latest plan
    /// are handed out first (see `dispatch::assign`): when more wait than workers are
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
    /// Node budget of a test (0: none), see [`Issue::budget`](super::Issue::budget).
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
