//! What the coordinator knows of the top tree: bounds on board values from
//! unit results and from the top-tree nodes they decided, and the children
//! in order of each board a replay expanded.
//!
//! Every board met gets a [`Node`], a dense index: a replay walks from a
//! board to its children's nodes through the children's list kept here,
//! and reads their bounds by index, without hashing a board (a replay of a
//! big top tree meets thousands of boards, and a plan is made after every
//! batch of answers). Only a unit's answer, coming in by board, is looked
//! up.

use std::ops::Range;

use foldhash::HashMap as FoldMap;

use kalah_solver::search::ordering::Child;
use kalah_solver::Board;

use crate::unit::{Known, UnitKey, Verdict, EXACT};

/// A board's place in [`Facts`]: stable for the life of the facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node(u32);

/// A child in a board's order, with its own node.
#[derive(Clone, Copy, Debug)]
pub struct Kid {
    pub child: Child,
    pub node: Node,
}

/// Bounds on one board's value: `lower <= value <= upper`; `split` when a
/// unit of this board ran past its budget (its children are searched as
/// units instead); `solved` when an exact unit of it was answered (its
/// worker reported a perfect game below it). `kids`: where its children
/// are in [`Facts::kids`], once a replay expanded it.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: i32,
    upper: i32,
    split: bool,
    solved: bool,
    kids: Option<(u32, u8)>,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            lower: i32::MIN,
            upper: i32::MAX,
            split: false,
            solved: false,
            kids: None,
        }
    }
}

/// Every bound known, by board. Values are exact facts of the game, so a
/// bound never has to be taken back: facts only accumulate.
#[derive(Default)]
pub struct Facts {
    nodes: FoldMap<Board, Node>,
    bounds: Vec<Bounds>,
    /// The children of expanded boards, each board's together, in order.
    kids: Vec<Kid>,
}

impl Facts {
    /// The node of `board`, made (nothing known) if it has none.
    pub fn node(&mut self, board: Board) -> Node {
        let next = Node(self.bounds.len() as u32);
        let node = *self.nodes.entry(board).or_insert(next);
        if node == next {
            self.bounds.push(Bounds::default());
        }
        node
    }

    /// Boards met so far.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether no board was met.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// The node of `board`, if it has one.
    pub fn find(&self, board: Board) -> Option<Node> {
        self.nodes.get(&board).copied()
    }

    /// Boards whose children are set ([`Facts::set_kids`]).
    pub fn expanded(&self) -> usize {
        self.bounds.iter().filter(|b| b.kids.is_some()).count()
    }

    /// Takes in a unit's verdict.
    pub fn add(&mut self, key: UnitKey, verdict: Verdict) {
        let n = self.node(key.board);
        match verdict {
            Verdict::AtLeast => self.learn(n, key.beta, true),
            Verdict::Below => self.learn(n, key.beta, false),
            Verdict::Exact(v) => {
                debug_assert_eq!(key.beta, EXACT);
                self.learn(n, v, true);
                self.learn(n, v + 1, false);
                self.at_mut(n).solved = true;
            }
            Verdict::Split => self.at_mut(n).split = true,
        }
    }

    /// Takes in the bounds a worker's table held ([`Known`]).
    pub fn add_known(&mut self, k: &Known) {
        let n = self.node(k.board);
        if let Some(lower) = k.lower {
            self.learn(n, lower, true);
        }
        if let Some(upper) = k.upper {
            self.learn(n, upper + 1, false);
        }
    }

    /// Takes in `value >= beta` (`holds`) or its negation for node `n`.
    pub fn learn(&mut self, n: Node, beta: i32, holds: bool) {
        let b = self.at_mut(n);
        if holds {
            b.lower = b.lower.max(beta);
        } else {
            b.upper = b.upper.min(beta - 1);
        }
    }

    /// Whether `value >= beta` for node `n`, when the bounds decide it.
    pub fn test(&self, n: Node, beta: i32) -> Option<bool> {
        let b = self.at(n);
        if b.lower >= beta {
            Some(true)
        } else if b.upper < beta {
            Some(false)
        } else {
            None
        }
    }

    /// Node `n`'s bounds `(lower, upper)`: `i32::MIN` and `i32::MAX` where
    /// nothing is known.
    pub fn bounds(&self, n: Node) -> (i32, i32) {
        let b = self.at(n);
        (b.lower, b.upper)
    }

    /// The value of node `n`, when its bounds meet.
    pub fn exact(&self, n: Node) -> Option<i32> {
        let b = self.at(n);
        (b.lower == b.upper).then_some(b.lower)
    }

    /// Whether an exact unit of node `n`'s board was answered.
    pub fn solved(&self, n: Node) -> bool {
        self.at(n).solved
    }

    /// Whether a unit of node `n`'s board was split.
    pub fn split(&self, n: Node) -> bool {
        self.at(n).split
    }

    /// Where node `n`'s children are in [`Facts::kid`], once set
    /// ([`Facts::set_kids`]).
    pub fn kids(&self, n: Node) -> Option<Range<usize>> {
        self.at(n)
            .kids
            .map(|(at, len)| at as usize..at as usize + usize::from(len))
    }

    /// The child at `i` of a range from [`Facts::kids`].
    pub fn kid(&self, i: usize) -> Kid {
        self.kids[i]
    }

    /// Sets node `n`'s children, in order (each gets a node); where they
    /// are.
    pub fn set_kids(&mut self, n: Node, children: &[Child]) -> Range<usize> {
        let at = self.kids.len();
        for &child in children {
            let node = self.node(child.sown.board);
            self.kids.push(Kid { child, node });
        }
        self.at_mut(n).kids = Some((at as u32, children.len() as u8));
        at..self.kids.len()
    }

    fn at(&self, n: Node) -> &Bounds {
        &self.bounds[n.0 as usize]
    }

    fn at_mut(&mut self, n: Node) -> &mut Bounds {
        &mut self.bounds[n.0 as usize]
    }
}
