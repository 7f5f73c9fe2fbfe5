//! The top-tree boards kept above each unit of a plan ([`Above`]). Units
//! with a common ancestor share much of their subtrees, so a worker that
//! searched one has much of the next in its transposition table: the
//! coordinator's dispatch compares these paths.

use kalah_solver::Board;

/// How many of the boards above a unit [`Plan::paths`](super::Plan::paths)
/// keeps: as many as the coordinator's dispatch looks at
/// ([`crate::coordinator::NEAR_PLIES`]).
pub const PATH_KEPT: usize = crate::coordinator::NEAR_PLIES;

/// The last [`PATH_KEPT`] (or fewer) top-tree boards above a unit,
/// outermost first ([`Plan::paths`](super::Plan::paths)): held in place,
/// since a plan keeps one for each of thousands of units and is made again
/// on every answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Above {
    boards: [Board; PATH_KEPT],
    len: u8,
}

impl Above {
    /// The last [`PATH_KEPT`] boards of `path`.
    pub fn of(path: &[Board]) -> Above {
        let kept = &path[path.len().saturating_sub(PATH_KEPT)..];
        let mut above = Above::default();
        above.boards[..kept.len()].copy_from_slice(kept);
        above.len = kept.len() as u8;
        above
    }

    /// The boards, outermost first.
    pub fn as_slice(&self) -> &[Board] {
        &self.boards[..usize::from(self.len)]
    }
}
