//! The top of the tree: which units the solve needs next, given what is
//! known.
//!
//! The coordinator never searches below the frontier itself. It replays a
//! deterministic search over the top of the tree against the facts known
//! so far ([`Facts`]: unit results, endgame tables, finished games) and
//! collects the frontier tests that search cannot decide yet: those are
//! the units it needs. The replay is the coordinator's whole state: after
//! a restart, the same facts (read back from the work directory) give the
//! same plan, and only units never answered are issued again.
//!
//! # The search
//!
//! 1. A first guess: the value of an iterative-deepening shallow search
//!    of the start ([`TopTree::first_guess`]), deepened one sowing at a
//!    time until its searches together have visited [`GUESS_NODES`]
//!    boards. It costs no unit, so the first test starts with the first
//!    plan.
//! 2. MTD(f) at the root with boolean tests: `value >= beta` for a
//!    sequence of bounds that starts at the guess and moves away from it
//!    one step at a time until a test goes the other way (the bounds then
//!    close on the value, bisecting what is left:
//!    [`BoolMtdf`](kalah_solver::search::mtdf::BoolMtdf)).
//!    Values step by 2 when every seed ends in a store (the value has the
//!    parity of the seeds on the board). While a test waits on units, the
//!    tests that would come after it, whichever way it goes, are planned
//!    as speculation ([`TopTree::ahead`] tests deep).
//! 3. Each test is an AND/OR evaluation of the top tree in alpha-beta
//!    order, children best first by a shallow search: a node expected to
//!    hold (a cut node) takes its children one at a time, the next only
//!    once the previous one failed (its later children are speculation,
//!    run only by workers with nothing needed to do, and stopped when
//!    the first child holds); a node expected to fail (an all node) takes
//!    all of its children at once. A frontier board (`frontier` sowings
//!    from the root, or one whose unit was split) is a unit, and so is a
//!    cut node up to [`TopTree::cut_early`] sowings above it: its worker tries
//!    the children itself, in its own order, where the top tree would
//!    take them one round trip each (a unit that runs long is split like
//!    any other).
//!    A node decided learns the bound its children's facts give, which
//!    may be tighter than its test's ([`TopTree::fail_soft`]).
//!    Transpositions meet in [`Facts`] and
//!    in the set of units needed, so each test is asked once. A unit that
//!    has run long (a *hot* one, named by the coordinator) may be split
//!    at its budget: its children's tests are planned too, beside it, as
//!    speculation, so that idle workers have them under way (or done)
//!    when the split comes; the unit's own answer, if it comes first,
//!    makes them unnecessary.
//! 4. A perfect game: from the root, the first child in that order whose
//!    value keeps the parent's value is played, until the game ends (tests
//!    of the top tree again; most are already decided by the value's
//!    proof, the rest are units). While a move waits on units, the walk
//!    goes on below it as speculation, the move assumed to keep the value.
//!
//! # Files
//!
//! * this one: the top tree's settings, the plan a replay gives
//!   ([`TopTree`], [`Plan`], [`RootState`]);
//! * `pass`: one replay, the search above step by step (`Pass`);
//! * `above`: the top-tree boards kept above each unit ([`Above`]).
//!
//! The shallow search (first guess, children's order) and the root's
//! MTD(f) over boolean tests are the solver's:
//! [`kalah_solver::search::shallow`],
//! [`BoolMtdf`](kalah_solver::search::mtdf::BoolMtdf).

use std::cell::{Cell, OnceCell};

use foldhash::{HashSet as FoldSet, HashSetExt};

use kalah_solver::search::ordering::Child;
use kalah_solver::search::shallow;
use kalah_solver::search::PvMove;
use kalah_solver::{Board, EndRule, Game, Position, Probe};

use crate::facts::Facts;
use crate::unit::UnitKey;

mod above;
mod pass;

pub use above::{Above, PATH_KEPT};
use pass::Pass;

/// A test's outcome as far as the facts go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// Decided.
    Known(bool),
    /// Waits on units (added to [`Plan::needed`]).
    Pending,
}

/// Where the root search stands, for progress lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootState {
    /// The first guess, once known.
    pub guess: Option<i32>,
    /// The root tests decided so far, in order: `(beta, value >= beta)`.
    pub tests: Vec<(i32, bool)>,
    /// The value is in `[lower, upper]` (after the tests decided so far).
    pub lower: i32,
    pub upper: i32,
    /// The test running: `value >= beta`; `None` during the guess and the
    /// perfect game.
    pub beta: Option<i32>,
    /// Moves of the perfect game found so far.
    pub pv_moves: usize,
}

/// The solve's value and a perfect game.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    /// Final store difference for South, the first player.
    pub value: i32,
    pub pv: Vec<PvMove>,
}

/// What one replay found.
#[derive(Debug)]
pub struct Plan {
    /// The units needed now, most urgent first, without repeats; after
    /// those the test needs, speculative ones: the later children of cut
    /// nodes still waiting on their first child (needed if that child
    /// fails), for workers that would otherwise be idle.
    pub needed: Vec<UnitKey>,
    /// How many of [`Plan::needed`] after the required ones are tests
    /// below hot units (see [`TopTree::plan_hot`]); then [`Plan::ahead`]
    /// units of the root tests after the pending one; the rest after
    /// those are the later children of cut nodes.
    pub hot: usize,
    /// How many of [`Plan::needed`] after the tests below hot units are
    /// units planned ahead ([`TopTree::ahead`]): of the root tests after
    /// the pending one, or of the perfect game's moves after one that
    /// waits.
    pub ahead: usize,
    /// For each of [`Plan::needed`]: whether its test is expected to hold
    /// (exact units: true).
    pub expect: Vec<bool>,
    /// For each of [`Plan::needed`]: the last [`PATH_KEPT`] top-tree boards
    /// the replay went through to reach it, outermost first (for a
    /// transposition, the way it was first listed). Units with a common
    /// ancestor share much of their subtrees, so a worker that searched
    /// one has much of the next in its transposition table (see the
    /// coordinator's dispatch).
    pub paths: Vec<Above>,
    /// How many of [`Plan::needed`] (the first ones) the search needs; the
    /// rest are speculation.
    pub required: usize,
    pub root: RootState,
    /// The answer, once everything is known.
    pub solved: Option<Solved>,
}

/// Why a plan cannot be made.
#[derive(Debug)]
pub enum PlanError {
    /// No move of a position keeps its value: the facts contradict each
    /// other (a wrong table or a corrupted unit record).
    Inconsistent { position: Position, value: i32 },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::Inconsistent { position, value } => write!(
                f,
                "inconsistent results: no sowing of {position} keeps its value {value} (check the tables with `kalah verify` and the unit records)"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// The fixed parts of the top-tree search.
pub struct TopTree<'a> {
    pub game: &'a Game,
    /// Endgame tables the coordinator answers small boards from.
    pub probe: Option<&'a dyn Probe>,
    /// Boards this many sowings below the root are units.
    pub frontier: u32,
    /// The start of the game.
    pub start: Position,
    /// At most this many speculative units (see [`Plan::needed`]); 0: none.
    pub speculate: usize,
    /// Root tests planned ahead of the pending one, in depth
    /// ([`Pass::look_ahead`]; 0: none, and no perfect-game moves ahead
    /// either). [`AHEAD_TESTS`] by default.
    pub ahead: usize,
    /// A cut node (a test expected to hold) this many sowings above the
    /// frontier, or deeper, is a unit (0: only frontier boards; never the
    /// root). Part of the run, as the frontier is: another value asks for
    /// other units.
    pub cut_early: u32,
    /// A node the walk decides learns the bound its children's facts give
    /// (fail-soft: at least the best child's lower bound when one child
    /// reaches the test's bound, at most the best child's upper bound when
    /// none does), not only the test's own bound. Workers report bounds
    /// tighter than their tests asked ([`crate::unit::Known`]); carried
    /// up, they decide later tests (a root test among them) without
    /// units. `false`: the test's bound only (fail-hard).
    pub fail_soft: bool,
    /// [`TopTree::first_guess`], computed once.
    guess: OnceCell<i32>,
    /// The last plan's count of units and of boards with a path: the next
    /// pass starts with room for as many.
    sizes: Cell<(usize, usize)>,
}

impl<'a> TopTree<'a> {
    /// The top tree of the game from `start`.
    pub fn new(
        game: &'a Game,
        probe: Option<&'a dyn Probe>,
        frontier: u32,
        start: Position,
        speculate: usize,
    ) -> TopTree<'a> {
        TopTree {
            game,
            probe,
            frontier,
            start,
            speculate,
            ahead: AHEAD_TESTS,
            cut_early: 0,
            fail_soft: true,
            sizes: Cell::new((0, 0)),
            guess: OnceCell::new(),
        }
    }

    /// The game whose top tree this is.
    pub fn game(&self) -> &'a Game {
        self.game
    }

    /// Replays the whole search against `facts` (taking in what it derives)
    /// and says which units it needs, or the answer.
    ///
    /// # Errors
    /// Facts that contradict each other.
    pub fn plan(&self, facts: &mut Facts) -> Result<Plan, PlanError> {
        self.plan_hot(facts, &FoldSet::new())
    }

    /// [`TopTree::plan`], where the units in `hot` have run long enough
    /// that their split is likely: each one still needed stays needed,
    /// and the tests its board's children would need were it split come
    /// after the required units (and before the other speculation).
    /// Which units are hot changes only the speculation, never a value.
    ///
    /// # Errors
    /// Facts that contradict each other.
    pub fn plan_hot(&self, facts: &mut Facts, hot: &FoldSet<UnitKey>) -> Result<Plan, PlanError> {
        let empty = FoldSet::new();
        let hot = if hot.is_empty() { &empty } else { hot };
        let mut pass = Pass::new(self, facts, hot, self.sizes.get());
        let mut root = RootState::default();
        let solved = pass.drive(&mut root)?;
        let (plan, sizes) = pass.into_plan(root, solved);
        self.sizes.set(sizes);
        Ok(plan)
    }

    /// The children of a top-tree board, best first by a shallow search
    /// ([`ORDER_DEPTH`] sowings; ties in the engine's move order). Kept
    /// in the facts, once for each board ([`Pass::kids`]).
    fn order(&self, board: Board) -> Vec<Child> {
        let mut scored: Vec<(i32, Child)> = shallow::ordered(self.game, board)
            .as_slice()
            .iter()
            .map(|c| (shallow::score(self.game, self.probe, c, ORDER_DEPTH), *c))
            .collect();
        // Stable: equal scores keep the engine's order.
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        scored.into_iter().map(|(_, c)| c).collect()
    }

    /// The first guess of the root's value: a [`shallow::search`] of the
    /// start one sowing deeper at a time, until the searches together
    /// have visited [`GUESS_NODES`] boards; the last one's value
    /// ([`shallow::deepening`]). It depends on the game and the tables
    /// only (no clock), so every replay of a run makes the same guess;
    /// computed once.
    pub fn first_guess(&self) -> i32 {
        *self.guess.get_or_init(|| {
            shallow::deepening(self.game, self.probe, self.start.board(), GUESS_NODES)
        })
    }

    /// The depth from which a test expecting `expect` is a unit (unless
    /// split): the frontier, or [`TopTree::cut_early`] sowings above it
    /// for a cut node.
    fn unit_depth(&self, expect: bool) -> u32 {
        if expect {
            self.frontier.saturating_sub(self.cut_early).max(1)
        } else {
            self.frontier
        }
    }

    /// Whether tests are planned ahead at all ([`TopTree::ahead`], and
    /// speculation allowed).
    fn looks_ahead(&self) -> bool {
        self.speculate > 0 && self.ahead > 0
    }

    /// The value step: 2 when the value has the parity of the seeds on the
    /// board (every seed ends in a store), else 1.
    fn step(&self) -> i32 {
        if self.game.rules().end == EndRule::NoSweep {
            1
        } else {
            2
        }
    }
}

/// Root tests planned ahead of the pending one, in depth, by default
/// ([`TopTree::ahead`]).
pub const AHEAD_TESTS: usize = 2;

/// Sowings above the frontier up to which a cut node is a unit, by
/// default for a new run with a unit budget ([`TopTree::cut_early`];
/// `kalah-cluster solve --cut-early`): without a budget such a unit cannot
/// be split, and a big one holds up the run.
pub const CUT_EARLY: u32 = 2;

/// Boards the first guess's searches visit together before the last
/// one ([`TopTree::first_guess`]): a few hundredths of a second of the
/// coordinator's time, once a run.
pub const GUESS_NODES: u64 = 1 << 18;

/// Sowings of the shallow search that orders the top tree's children.
const ORDER_DEPTH: u32 = 4;

#[cfg(test)]
mod tests;
