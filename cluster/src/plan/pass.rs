//! One replay of the top-tree search ([`Pass`]): the root's first guess
//! and MTD(f) tests, each test's walk over the top tree against the facts
//! (cut nodes a child at a time, all nodes all at once, units at the
//! frontier), and the perfect game once the value is known. It takes in
//! the facts it derives and lists the units it needs: required first,
//! then the tests below hot units, the root tests planned ahead, and the
//! later children of cut nodes (the parent module says how the search
//! goes).

use std::collections::hash_map::Entry;
use std::collections::HashSet;
use std::ops::Range;

use foldhash::{HashMap as FoldMap, HashMapExt, HashSet as FoldSet, HashSetExt};

use kalah_solver::search::mtdf::BoolMtdf;
use kalah_solver::search::shallow;
use kalah_solver::search::PvMove;
use kalah_solver::Board;

use super::{Above, Plan, PlanError, RootState, Solved, Status, TopTree};
use crate::facts::{Facts, Kid, Node};
use crate::unit::{UnitKey, EXACT};

/// One replay: a walk over the top tree that learns derived facts and
/// collects the units needed.
pub(super) struct Pass<'a, 'f> {
    tree: &'a TopTree<'a>,
    facts: &'f mut Facts,
    needed: Vec<UnitKey>,
    expect: Vec<bool>,
    seen: FoldSet<UnitKey>,
    /// Speculative units, with their expectations (repeats allowed).
    spec: Vec<(UnitKey, bool)>,
    /// Inside a speculative subtree.
    speculating: u32,
    /// Units running long (see [`TopTree::plan_hot`]).
    hot: &'a FoldSet<UnitKey>,
    /// Tests below hot units, with their expectations (repeats allowed).
    below_hot: Vec<(UnitKey, bool)>,
    /// Inside the subtree of a hot unit.
    heating: u32,
    /// Units of the root tests after the pending one (see
    /// [`Pass::look_ahead`]), with their expectations (repeats allowed).
    ahead_units: Vec<(UnitKey, bool)>,
    /// Inside a root test after the pending one.
    ahead: u32,
    /// The top-tree boards being expanded, outermost first.
    path: Vec<Board>,
    /// Each unit's [`Pass::path`] when first needed, its last
    /// [`PATH_KEPT`](super::PATH_KEPT) boards (see [`Plan::paths`]).
    paths: FoldMap<UnitKey, Above>,
}

impl<'a, 'f> Pass<'a, 'f> {
    /// A replay of `tree` against `facts`, the units in `hot` running
    /// long ([`TopTree::plan_hot`]), with room for `(units, paths)`: the
    /// last plan's sizes ([`TopTree::sizes`]).
    pub(super) fn new(
        tree: &'a TopTree<'a>,
        facts: &'f mut Facts,
        hot: &'a FoldSet<UnitKey>,
        (units, paths): (usize, usize),
    ) -> Pass<'a, 'f> {
        Pass {
            tree,
            facts,
            needed: Vec::with_capacity(units),
            expect: Vec::with_capacity(units),
            seen: FoldSet::with_capacity(units),
            spec: Vec::new(),
            speculating: 0,
            hot,
            below_hot: Vec::new(),
            heating: 0,
            ahead_units: Vec::new(),
            ahead: 0,
            path: Vec::new(),
            paths: FoldMap::with_capacity(paths),
        }
    }

    /// The plan after [`Pass::drive`] (which gave `root` and `solved`):
    /// the units the search needs, then the tests below hot units, the
    /// units planned ahead and the later children of cut nodes, each unit
    /// once, where it was first listed; and the sizes the next pass starts
    /// with room for ([`TopTree::sizes`]).
    pub(super) fn into_plan(
        mut self,
        root: RootState,
        solved: Option<Solved>,
    ) -> (Plan, (usize, usize)) {
        let required = self.needed.len();
        for (key, expect) in std::mem::take(&mut self.below_hot) {
            if self.seen.insert(key) {
                self.needed.push(key);
                self.expect.push(expect);
            }
        }
        let below_hot = self.needed.len() - required;
        for (key, expect) in std::mem::take(&mut self.ahead_units) {
            if self.seen.insert(key) {
                self.needed.push(key);
                self.expect.push(expect);
            }
        }
        let ahead = self.needed.len() - required - below_hot;
        for (key, expect) in std::mem::take(&mut self.spec) {
            if self.seen.insert(key) {
                self.needed.push(key);
                self.expect.push(expect);
            }
        }
        let sizes = (self.needed.len(), self.paths.len());
        let paths = self
            .needed
            .iter()
            .map(|k| self.paths.get(k).copied().unwrap_or_default())
            .collect();
        let plan = Plan {
            paths,
            needed: self.needed,
            hot: below_hot,
            ahead,
            expect: self.expect,
            required,
            root,
            solved,
        };
        (plan, sizes)
    }
}

impl Pass<'_, '_> {
    fn need(&mut self, key: UnitKey, expect: bool) {
        let listed = if self.ahead > 0 {
            // Only what the later test itself would need first: not its
            // own speculation.
            self.speculating == 0
                && push_below(&mut self.ahead_units, key, expect, self.tree.speculate)
        } else if self.speculating > 0 {
            push_below(&mut self.spec, key, expect, self.tree.speculate)
        } else if self.heating > 0 {
            push_below(&mut self.below_hot, key, expect, self.tree.speculate)
        } else if self.seen.insert(key) {
            self.needed.push(key);
            self.expect.push(expect);
            true
        } else {
            false
        };
        // The path of a unit on no list would never be read: a full
        // speculation list turns many units away on every pass.
        if listed {
            if let Entry::Vacant(e) = self.paths.entry(key) {
                e.insert(Above::of(&self.path));
            }
        }
    }

    /// Where the lists of units stand, for [`Pass::unneed`].
    fn mark(&self) -> [usize; 4] {
        [
            self.needed.len(),
            self.spec.len(),
            self.below_hot.len(),
            self.ahead_units.len(),
        ]
    }

    /// Forgets the units added since `mark`: the node they were for is
    /// decided without them.
    fn unneed(&mut self, [mark, spec, below_hot, ahead]: [usize; 4]) {
        self.spec.truncate(spec);
        self.below_hot.truncate(below_hot);
        self.ahead_units.truncate(ahead);
        self.expect.truncate(mark);
        for key in self.needed.drain(mark..) {
            self.seen.remove(&key);
        }
    }

    /// The exact value from a finished game or the endgame tables.
    fn settled(&self, board: Board) -> Option<i32> {
        shallow::exact(self.tree.game, self.tree.probe, board)
    }

    /// `value(board) >= beta` without searching: exact values, the trivial
    /// bounds, facts (one look-up: meeting bounds decide as an exact
    /// value would).
    fn quick(&self, n: Node, board: Board, beta: i32) -> Option<bool> {
        if let Some(v) = self.settled(board) {
            return Some(v >= beta);
        }
        let s = board.seeds() as i32;
        if beta <= -s {
            return Some(true);
        }
        if beta > s {
            return Some(false);
        }
        self.facts.test(n, beta)
    }

    /// The children of node `n` (of `board`) in order ([`TopTree::order`]),
    /// where they are in the facts ([`Facts::kid`]).
    fn kids(&mut self, n: Node, board: Board) -> Range<usize> {
        match self.facts.kids(n) {
            Some(kids) => kids,
            None => {
                let order = self.tree.order(board);
                self.facts.set_kids(n, &order)
            }
        }
    }

    /// Tests `value(board) >= beta` for a board `depth` sowings below the
    /// root; `expect` is whether it is expected to hold (a cut node: its
    /// children are taken one at a time) or not (an all node: all at once).
    fn test(&mut self, n: Node, board: Board, beta: i32, depth: u32, expect: bool) -> Status {
        if let Some(b) = self.quick(n, board, beta) {
            return Status::Known(b);
        }
        if depth >= self.tree.unit_depth(expect) && !self.facts.split(n) {
            let key = UnitKey { board, beta };
            let mark = self.mark();
            self.need(key, expect);
            if self.speculating > 0
                || self.ahead > 0
                || !self.hot.contains(&key)
                || self.below_hot.len() >= self.tree.speculate
            {
                return Status::Pending;
            }
            // A hot unit: its children's tests beside it, as if split. If
            // the facts decide it through them, the unit is not needed.
            self.heating += 1;
            let status = self.expand(n, board, beta, depth, expect);
            self.heating -= 1;
            if let Status::Known(_) = status {
                self.unneed(mark);
            }
            return status;
        }
        // A walk ends where the list it feeds is full. Inside a root test
        // planned ahead, a cut node's later children feed no list (see
        // [`Pass::need`]): walking them would cost the move order of every
        // board below, and nothing would end it; the test walks them once
        // it is the pending one.
        if self.speculating > 0 && (self.ahead > 0 || self.spec.len() >= self.tree.speculate) {
            return Status::Pending;
        }
        if self.ahead > 0 && self.ahead_units.len() >= self.tree.speculate {
            return Status::Pending;
        }
        self.expand(n, board, beta, depth, expect)
    }

    /// [`Pass::test`] of `board`, found by board (the root).
    fn test_board(&mut self, board: Board, beta: i32, depth: u32, expect: bool) -> Status {
        let n = self.facts.node(board);
        self.test(n, board, beta, depth, expect)
    }

    /// [`Pass::test`] of a board above the frontier (or split): its
    /// children in order.
    fn expand(&mut self, n: Node, board: Board, beta: i32, depth: u32, expect: bool) -> Status {
        self.path.push(board);
        let status = self.expand_children(n, board, beta, depth, expect);
        self.path.pop();
        status
    }

    /// [`Pass::expand`] inside the path.
    fn expand_children(
        &mut self,
        n: Node,
        board: Board,
        beta: i32,
        depth: u32,
        expect: bool,
    ) -> Status {
        if self.heating > 0 && self.below_hot.len() >= self.tree.speculate {
            return Status::Pending;
        }
        let mark = self.mark();
        let kids = self.kids(n, board);
        let mut pending = false;
        for i in kids.clone() {
            match self.child(i, beta, depth, expect) {
                Status::Known(true) => {
                    self.unneed(mark);
                    self.learn_holds(n, i, beta);
                    return Status::Known(true);
                }
                Status::Known(false) => {}
                Status::Pending => {
                    pending = true;
                    if expect {
                        // A cut node waits on this child; the later ones
                        // are speculation (and one already known to hold
                        // decides the node now).
                        self.speculating += 1;
                        let holds = (i + 1..kids.end)
                            .find(|&j| self.child(j, beta, depth, expect) == Status::Known(true));
                        self.speculating -= 1;
                        if let Some(j) = holds {
                            self.unneed(mark);
                            self.learn_holds(n, j, beta);
                            return Status::Known(true);
                        }
                        break;
                    }
                }
            }
        }
        if pending {
            return Status::Pending;
        }
        // Every child fails: the value is at most the best child's upper
        // bound (below `beta`, as each child's test decided).
        let upper = if self.tree.fail_soft {
            kids.map(|i| self.kid_bounds(i).1)
                .max()
                .map_or(beta - 1, |u| u.min(beta - 1))
        } else {
            beta - 1
        };
        self.facts.learn(n, upper + 1, false);
        Status::Known(false)
    }

    /// Node `n` holds at `beta` through its child at `i`: its value is at
    /// least that child's lower bound (at least `beta`, as the child's test
    /// decided).
    fn learn_holds(&mut self, n: Node, i: usize, beta: i32) {
        let lower = if self.tree.fail_soft {
            self.kid_bounds(i).0.max(beta)
        } else {
            beta
        };
        self.facts.learn(n, lower, true);
    }

    /// What is known of the value of sowing the child at `i`, for the
    /// parent's mover: `(lower, upper)`, from an exact value (tables,
    /// finished game) or else the child's facts, within what the seeds
    /// on its board allow.
    fn kid_bounds(&self, i: usize) -> (i32, i32) {
        let Kid { node, child: c } = self.facts.kid(i);
        let board = c.sown.board;
        let (lower, upper) = match self.settled(board) {
            Some(v) => (v, v),
            None => {
                let s = board.seeds() as i32;
                let (lower, upper) = self.facts.bounds(node);
                (lower.max(-s), upper.min(s))
            }
        };
        let g = c.sown.gain as i32;
        if c.sown.extra_turn {
            (g + lower, g + upper)
        } else {
            (g - upper, g - lower)
        }
    }

    /// Whether sowing the child at `i` ([`Facts::kid`]) reaches `beta`
    /// for the parent's mover: the child's own test, negated when the turn
    /// passes.
    fn child(&mut self, i: usize, beta: i32, depth: u32, expect: bool) -> Status {
        let kid = self.facts.kid(i);
        let (n, c) = (kid.node, kid.child);
        let g = c.sown.gain as i32;
        if c.sown.extra_turn {
            self.test(n, c.sown.board, beta - g, depth + 1, expect)
        } else {
            match self.test(n, c.sown.board, g - beta + 1, depth + 1, !expect) {
                Status::Known(b) => Status::Known(!b),
                Status::Pending => Status::Pending,
            }
        }
    }

    /// The whole search: guess, MTD(f), perfect game.
    pub(super) fn drive(&mut self, root: &mut RootState) -> Result<Option<Solved>, PlanError> {
        let start = self.tree.start;
        let board = start.board();
        let s = board.seeds() as i32;
        root.lower = -s;
        root.upper = s;
        let guess = self.tree.first_guess();
        root.guess = Some(guess);
        let mut mtdf = BoolMtdf::new(s, self.tree.step(), guess);
        while let Some(beta) = mtdf.beta() {
            root.beta = Some(beta);
            let holds = match self.test_board(board, beta, 0, beta <= guess) {
                Status::Pending => {
                    self.look_ahead(board, &mtdf, guess);
                    return Ok(None);
                }
                Status::Known(b) => b,
            };
            root.tests.push((beta, holds));
            mtdf.decide(holds);
            root.lower = mtdf.lower();
            root.upper = mtdf.upper();
        }
        root.beta = None;
        let value = root.lower + start.store_difference();
        let pv = match self.perfect_game(root)? {
            Some(pv) => pv,
            None => return Ok(None),
        };
        Ok(Some(Solved { value, pv }))
    }

    /// The root tests that come after the pending one, whichever way it
    /// and the next go ([`TopTree::ahead`] deep, breadth first, the
    /// outcome the guess expects first), planned as speculation
    /// ([`Plan::ahead`]): on many workers the next test's units are under
    /// way, or answered, when the pending test is decided.
    fn look_ahead(&mut self, board: Board, mtdf: &BoolMtdf, guess: i32) {
        if !self.tree.looks_ahead() {
            return;
        }
        let Some(now) = mtdf.beta() else { return };
        let mut tried = HashSet::from([now]);
        let mut level = vec![mtdf.clone()];
        for _ in 0..self.tree.ahead {
            let mut next = Vec::new();
            for m in &level {
                let Some(beta) = m.beta() else { continue };
                let expected = beta <= guess;
                for holds in [expected, !expected] {
                    let mut m = m.clone();
                    m.decide(holds);
                    if let Some(b) = m.beta() {
                        if tried.insert(b) {
                            self.root_test_ahead(board, b, guess);
                        }
                        next.push(m);
                    }
                }
            }
            level = next;
        }
    }

    /// Plans the root test `value >= beta` as look-ahead speculation (its
    /// outcome, if the facts already decide it, is not needed here).
    fn root_test_ahead(&mut self, board: Board, beta: i32, guess: i32) {
        self.ahead += 1;
        let _ = self.test_board(board, beta, 0, beta <= guess);
        self.ahead -= 1;
    }

    /// A perfect game from the start, once its value is known; `None` while
    /// it waits on units.
    fn perfect_game(&mut self, root: &mut RootState) -> Result<Option<Vec<PvMove>>, PlanError> {
        let base = self.path.len();
        let pv = self.walk_perfect_game(root);
        self.path.truncate(base);
        pv
    }

    /// [`Pass::perfect_game`], the game's positions pushed on the path.
    fn walk_perfect_game(
        &mut self,
        root: &mut RootState,
    ) -> Result<Option<Vec<PvMove>>, PlanError> {
        let game = self.tree.game;
        let mut pos = self.tree.start;
        let mut node = self.facts.node(pos.board());
        let mut vb = root.lower;
        let mut pv = Vec::new();
        let mut depth = 0;
        // Past the first move that waits on units, the walk goes on as
        // speculation: each move waiting on units is assumed to keep the
        // value, and the tests of the moves after it are planned ahead.
        let mut guessing = false;
        while !pos.is_over(game.rules()) {
            self.path.push(pos.board());
            let kids = self.kids(node, pos.board());
            // A child the facts already say keeps the value (below the
            // frontier, from an exact unit's perfect game) goes first.
            let mut chosen = kids.clone().map(|i| self.facts.kid(i)).find(|k| {
                let (c, n) = (k.child, k.node);
                let g = c.sown.gain as i32;
                if c.sown.extra_turn {
                    self.quick(n, c.sown.board, vb - g) == Some(true)
                } else {
                    self.quick(n, c.sown.board, g - vb + 1) == Some(false)
                }
            });
            if chosen.is_none() && depth >= self.tree.frontier && !self.facts.solved(node) {
                // Below the frontier a move found by tests would cost a
                // unit a move, one after another: one exact unit instead,
                // whose worker reports a perfect game below this board.
                self.need(
                    UnitKey {
                        board: pos.board(),
                        beta: EXACT,
                    },
                    true,
                );
                if guessing {
                    break;
                }
                return Ok(None);
            }
            if chosen.is_none() {
                for i in kids {
                    // The child keeps the value: its own value is exactly what
                    // the parent's value leaves it (bounded above by it always).
                    let k = self.facts.kid(i);
                    let (c, n) = (k.child, k.node);
                    let g = c.sown.gain as i32;
                    let keeps = if c.sown.extra_turn {
                        self.test(n, c.sown.board, vb - g, depth + 1, true)
                    } else {
                        match self.test(n, c.sown.board, g - vb + 1, depth + 1, false) {
                            Status::Known(b) => Status::Known(!b),
                            Status::Pending => Status::Pending,
                        }
                    };
                    match keeps {
                        Status::Known(true) => {
                            chosen = Some(k);
                            break;
                        }
                        Status::Known(false) => {}
                        Status::Pending if guessing => {
                            chosen = Some(k);
                            break;
                        }
                        Status::Pending => {
                            if !self.tree.looks_ahead() {
                                return Ok(None);
                            }
                            guessing = true;
                            self.ahead += 1;
                            chosen = Some(k);
                            break;
                        }
                    }
                }
            }
            if guessing && (chosen.is_none() || self.ahead_units.len() >= self.tree.speculate) {
                // An assumption was wrong, or enough is planned.
                break;
            }
            let Some(Kid { child: c, node: n }) = chosen else {
                return Err(PlanError::Inconsistent {
                    position: pos,
                    value: vb + pos.store_difference(),
                });
            };
            let side = pos.to_move();
            let g = c.sown.gain as i32;
            let played = pos
                .play(game, c.house as usize + 1)
                .expect("a child of the board is a legal move");
            pv.push(PvMove {
                side,
                house: c.house as usize + 1,
                extra_turn: played.extra_turn,
                position: pos,
            });
            vb = if c.sown.extra_turn { vb - g } else { g - vb };
            depth += 1;
            debug_assert_eq!(pos.board(), c.sown.board);
            node = n;
            if !guessing {
                root.pv_moves = pv.len();
            }
        }
        if guessing {
            self.ahead -= 1;
            return Ok(None);
        }
        Ok(Some(pv))
    }
}

/// Pushes `(key, expect)` on `list` if it holds fewer than `cap`; whether
/// it did.
fn push_below(list: &mut Vec<(UnitKey, bool)>, key: UnitKey, expect: bool, cap: usize) -> bool {
    let room = list.len() < cap;
    if room {
        list.push((key, expect));
    }
    room
}
