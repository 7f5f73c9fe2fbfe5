//! The alpha-beta search over boards (one thread's worker).
//!
//! Values are board values: the net number of seeds the player to move
//! will still put into their store minus the opponent's, stores excluded. A
//! position's value is its store difference plus its board's value, so the
//! stores are an offset the caller adds, and every table entry is valid in
//! every position with the same houses.
//!
//! # Threads
//!
//! Several threads split the nodes of one null-window test (young brothers
//! wait, see [`Worker::search`]): a node with enough seeds above the
//! endgame tables that is expected to fail low (an all-node) searches its
//! first child alone and, when it did not cut off, hands the others out
//! in order to whichever threads are free; a cut-off among them cancels
//! the rest. Nodes expected to fail high do not split: the children
//! searched beside the one that cuts would be wasted.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use super::config::SearchConfig;
use super::hook::NodeHook;
use super::ordering::{Child, Children};
use super::share::{Published, Publisher};
use super::tt::{Bound, TranspositionTable};
use crate::board::{Board, Game};
use crate::index::Index;
use crate::Probe;

/// How many nodes pass between two looks at the stop flags (a power of
/// two, minus one); at each look a worker also adds the nodes it visited
/// since the last one to the shared counter.
const STOP_CHECK_MASK: u64 = 1023;

/// What every worker of one search shares.
pub(crate) struct Shared<'a> {
    pub game: &'a Game,
    pub index: &'a Index,
    pub config: &'a SearchConfig,
    pub tt: &'a TranspositionTable,
    /// The endgame tables, when given and switched on.
    pub probe: Option<&'a dyn Probe>,
    /// Boards with at most this many seeds are probed (0 without a probe).
    pub probe_seeds: u32,
    /// Boards with at most this many seeds have a key.
    pub key_seeds: u32,
    /// Boards with fewer seeds do not use the transposition table.
    pub tt_min_seeds: u32,
    /// The user's interruption.
    pub stop: &'a AtomicBool,
    /// Called with the node count at each look at the stop flag.
    pub hook: Option<&'a dyn NodeHook>,
    /// Nodes visited, all workers together: each adds its count at every
    /// look at the stop flags and when it ends, so that the count grows
    /// during a long test.
    pub nodes: &'a AtomicU64,
    /// Young brothers wait: nodes with at least this many seeds search
    /// their later children in parallel once the first have not cut off;
    /// `u32::MAX` never splits.
    pub split_seeds: u32,
    /// Where entries of much work are copied for other machines' tables.
    pub publish: Option<&'a Publisher>,
}

impl Shared<'_> {
    /// Whether boards with `seeds` seeds are looked up in and stored to
    /// the transposition table.
    #[inline]
    pub fn uses_tt(&self, seeds: u32) -> bool {
        seeds >= self.tt_min_seeds && seeds <= self.key_seeds
    }
}

/// A node whose younger children are being searched in parallel; `cut`
/// tells the searches below it that one of them cut the node off.
pub(crate) struct SplitPoint<'s> {
    cut: AtomicBool,
    parent: Option<&'s SplitPoint<'s>>,
}

impl SplitPoint<'_> {
    /// Whether this split point or one above it was cut off.
    fn cancelled(&self) -> bool {
        let mut at = Some(self);
        while let Some(sp) = at {
            if sp.cut.load(Relaxed) {
                return true;
            }
            at = sp.parent;
        }
        false
    }
}

/// What the parallel search of some children of one node found.
#[derive(Clone, Copy)]
struct Share {
    best: i32,
    best_move: u8,
    nodes: u64,
    probe_hits: u64,
    /// A search gave up (stop flag, or a split point cut off).
    aborted: bool,
}

impl Share {
    const NONE: Share = Share {
        best: i32::MIN,
        best_move: 0,
        nodes: 0,
        probe_hits: 0,
        aborted: false,
    };

    fn join(&mut self, b: Share) {
        if b.best > self.best {
            self.best = b.best;
            self.best_move = b.best_move;
        }
        self.nodes += b.nodes;
        self.probe_hits += b.probe_hits;
        self.aborted |= b.aborted;
    }
}

/// One thread's (or one parallel task's) search state and counters.
pub(crate) struct Worker<'a, 's> {
    sh: &'a Shared<'a>,
    /// The innermost split point above this search, if it is a parallel task.
    split: Option<&'s SplitPoint<'s>>,
    /// Nodes under the searches of this worker, its parallel tasks
    /// included (the work recorded in the transposition table).
    pub nodes: u64,
    /// Nodes this worker visited itself (not counting its parallel tasks):
    /// the clock of its looks at the stop flags, added to the shared count
    /// at each look and by [`Worker::finish`].
    ticks: u64,
    pub probe_hits: u64,
    /// A stop flag was seen: every value since is meaningless and nothing
    /// more is stored.
    pub aborted: bool,
}

impl<'a, 's> Worker<'a, 's> {
    pub fn new(sh: &'a Shared<'a>, split: Option<&'s SplitPoint<'s>>) -> Worker<'a, 's> {
        Worker {
            sh,
            split,
            nodes: 0,
            ticks: 0,
            probe_hits: 0,
            aborted: false,
        }
    }

    /// Adds the nodes not yet counted to the shared count; call once, when
    /// the worker is done.
    pub fn finish(&mut self) {
        self.sh
            .nodes
            .fetch_add(self.ticks & STOP_CHECK_MASK, Relaxed);
        self.ticks = 0;
    }

    #[inline]
    fn probe(&mut self, board: Board, seeds: u32) -> Option<i32> {
        if seeds > self.sh.probe_seeds {
            return None;
        }
        let v = self.sh.probe?.probe(board);
        self.probe_hits += v.is_some() as u64;
        v
    }

    /// Fail-soft alpha-beta (negamax) over boards, `alpha < beta`.
    ///
    /// Returns `r` with the fail-soft guarantees, `v` the board's exact
    /// value (see the module documentation):
    ///
    /// * `r <= alpha`: `v <= r` (an upper bound; the search failed low);
    /// * `r >= beta`: `v >= r` (a lower bound; it failed high);
    /// * otherwise `r == v`.
    ///
    /// `cut` says whether the node is expected to fail high (a cut-node of
    /// the minimal tree: one child should reach `beta`) rather than low (an
    /// all-node: every child must be searched). Only the threads use it: an
    /// all-node splits after its first child, a cut-node never, since the
    /// children searched beside the one that cuts would be wasted.
    ///
    /// After an abort (see [`Worker::aborted`]) the result is meaningless.
    pub fn search(&mut self, board: Board, alpha: i32, beta: i32, cut: bool) -> i32 {
        debug_assert!(alpha < beta);
        let sh = self.sh;
        let cfg = sh.config;
        self.nodes += 1;
        self.ticks += 1;
        if self.ticks & STOP_CHECK_MASK == 0 {
            let nodes = sh.nodes.fetch_add(STOP_CHECK_MASK + 1, Relaxed) + STOP_CHECK_MASK + 1;
            if let Some(hook) = sh.hook {
                hook.reached(nodes);
            }
            if sh.stop.load(Relaxed) || self.split.is_some_and(SplitPoint::cancelled) {
                self.aborted = true;
                return 0;
            }
        }
        if let Some(v) = sh.game.terminal_value(board) {
            return v;
        }
        let seeds = board.seeds();
        // Near the split points, look at the flags at every node: a
        // parallel task may be too short to reach a periodic look, and a
        // cut-off at a split point makes the search below it pointless.
        if seeds >= sh.split_seeds
            && (sh.stop.load(Relaxed) || self.split.is_some_and(SplitPoint::cancelled))
        {
            self.aborted = true;
            return 0;
        }
        let s = seeds as i32;
        // Whatever happens, the mover's net share of the seeds on the board
        // lies in [-s, s].
        if cfg.futility {
            if s <= alpha {
                return s;
            }
            if -s >= beta {
                return -s;
            }
        }
        if let Some(v) = self.probe(board, seeds) {
            return v;
        }

        let (mut alpha, mut beta) = (alpha, beta);
        let key = sh.uses_tt(seeds).then(|| sh.index.key(board));
        let mut tt_move = None;
        if let Some(e) = key.and_then(|k| sh.tt.load(k)) {
            if e.lower >= beta {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            if e.lower == e.upper {
                return e.lower;
            }
            // v lies in [lower, upper]: a result outside the narrowed
            // window is still a true bound, and one at its edge is exact.
            alpha = alpha.max(e.lower);
            beta = beta.min(e.upper);
            if cfg.tt_move {
                tt_move = e.best_move;
            }
        }

        let mut kids = Children::generate(sh.game, board, tt_move, cfg.ordering);
        // Start the memory reads of every child's table entry now: by the
        // time the search reaches a child its entry is likely in cache (the
        // loads are otherwise most of the time of a node).
        for kid in kids.as_slice() {
            let child = kid.sown.board;
            let child_seeds = child.seeds();
            if child_seeds <= sh.probe_seeds {
                if let Some(p) = sh.probe {
                    p.prefetch(child);
                }
            } else if sh.uses_tt(child_seeds) {
                sh.tt.prefetch(sh.index.key(child));
            }
        }
        if cfg.futility || cfg.probe_cuts {
            if let Some(cut) = self.cut_before_search(&mut kids, beta) {
                if let Some(k) = key {
                    sh.tt.store(k, cut.0, Bound::Lower, Some(cut.1), 0);
                }
                return cut.0;
            }
        }
        kids.sort();

        let start_nodes = self.nodes;
        let alpha0 = alpha;
        let mut best = i32::MIN;
        let mut best_move = 0u8;
        let kids = kids.as_slice();
        // Young brothers wait: the children searched alone before the
        // others go in parallel (all of them when fewer than two would be
        // left: handing out one child gains nothing). A cut-node never
        // splits: the children searched beside the one that cuts it off
        // would be wasted.
        let mut alone = if seeds < sh.split_seeds || cut {
            kids.len()
        } else {
            1
        };
        if alone + 2 > kids.len() {
            alone = kids.len();
        }
        for kid in &kids[..alone] {
            let v = self.child_value(kid, alpha, beta, cut);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = kid.house;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if alpha < beta && alone < kids.len() {
            let share = self.split_rest(&kids[alone..], alpha, beta);
            if self.aborted {
                return 0;
            }
            if share.best > best {
                best = share.best;
                best_move = share.best_move;
            }
        }
        if let Some(k) = key {
            let bound = if best >= beta {
                Bound::Lower
            } else if best <= alpha0 {
                Bound::Upper
            } else {
                Bound::Exact
            };
            let work = (64 - (self.nodes - start_nodes).leading_zeros()) as u8;
            let mv = (bound != Bound::Upper).then_some(best_move);
            sh.tt.store(k, best, bound, mv, work);
            if let Some(p) = sh.publish {
                p.offer(Published {
                    key: k,
                    value: best,
                    bound,
                    best_move: mv,
                    work,
                });
            }
        }
        best
    }

    /// The value of the node through `kid` (searched with the node's window
    /// `(alpha, beta)`, fail-soft), the node expected to be a cut-node when
    /// `cut`: the child is of the other kind after a plain move (the
    /// opponent moves next), of the same kind after an extra turn.
    #[inline]
    fn child_value(&mut self, kid: &Child, alpha: i32, beta: i32, cut: bool) -> i32 {
        let gain = kid.sown.gain as i32;
        match (kid.known, kid.sown.extra_turn) {
            (Some(c), true) => gain + c,
            (Some(c), false) => gain - c,
            (None, true) => gain + self.search(kid.sown.board, alpha - gain, beta - gain, cut),
            (None, false) => gain - self.search(kid.sown.board, gain - beta, gain - alpha, !cut),
        }
    }

    /// Searches `kids` of an all-node in parallel, each with the window
    /// `(alpha, beta)`: this thread and helper tasks (rayon, so only
    /// threads with nothing else to do join; one a child) take the
    /// children one at a time in order, so that with few free threads the
    /// likeliest cut-off is searched first; the first to reach `beta`
    /// cancels the others.
    /// Their best (fail-soft, as if searched in turn without raising
    /// alpha), with `self.aborted` set when a search gave up for another
    /// reason than that cut-off.
    fn split_rest(&mut self, kids: &[Child], alpha: i32, beta: i32) -> Share {
        let sp = SplitPoint {
            cut: AtomicBool::new(false),
            parent: self.split,
        };
        let sh = self.sh;
        let next = AtomicUsize::new(0);
        let found = Mutex::new(Share::NONE);
        let take_children = || {
            let mut share = Share::NONE;
            loop {
                let i = next.fetch_add(1, Relaxed);
                if i >= kids.len() {
                    break;
                }
                if sp.cancelled() || sh.stop.load(Relaxed) {
                    share.aborted = true;
                    break;
                }
                let kid = &kids[i];
                let mut w = Worker::new(sh, Some(&sp));
                let v = w.child_value(kid, alpha, beta, false);
                w.finish();
                if !w.aborted && v >= beta {
                    sp.cut.store(true, Relaxed);
                }
                share.join(Share {
                    best: if w.aborted { i32::MIN } else { v },
                    best_move: kid.house,
                    nodes: w.nodes,
                    probe_hits: w.probe_hits,
                    aborted: w.aborted,
                });
            }
            found.lock().unwrap_or_else(|e| e.into_inner()).join(share);
        };
        rayon::scope(|s| {
            for _ in 1..kids.len() {
                s.spawn(|_| take_children());
            }
            take_children();
        });
        let share = found.into_inner().unwrap_or_else(|e| e.into_inner());
        self.nodes += share.nodes;
        self.probe_hits += share.probe_hits;
        // A cut-off stands whatever else happened; without one, an aborted
        // search leaves the node unknown.
        if share.aborted && share.best < beta {
            self.aborted = true;
        }
        share
    }

    /// Looks at every child before searching any: a child whose value is
    /// already known (game over, endgame table) or bounded (transposition
    /// table, seeds left) well enough to reach `beta` cuts the node at once.
    /// Returns the cut's value (a lower bound of the node) and house.
    #[inline]
    fn cut_before_search(&mut self, kids: &mut Children, beta: i32) -> Option<(i32, u8)> {
        let sh = self.sh;
        let cfg = sh.config;
        for kid in kids.as_mut_slice() {
            let gain = kid.sown.gain as i32;
            let child = kid.sown.board;
            let child_seeds = child.seeds();
            // The child's value is at least -child_seeds, so the node's
            // value through it is at least gain - child_seeds either way.
            if cfg.futility && gain - child_seeds as i32 >= beta {
                return Some((gain - child_seeds as i32, kid.house));
            }
            let in_tables = child_seeds <= sh.probe_seeds;
            if !(cfg.probe_cuts && in_tables) {
                continue;
            }
            let known = match sh.game.terminal_value(child) {
                Some(v) => Some(v),
                None if in_tables => self.probe(child, child_seeds),
                None => None,
            };
            if let Some(c) = known {
                kid.known = Some(c);
                let v = if kid.sown.extra_turn {
                    gain + c
                } else {
                    gain - c
                };
                if v >= beta {
                    return Some((v, kid.house));
                }
            }
        }
        None
    }
}
