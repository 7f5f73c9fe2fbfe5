//! One null-window test of a board as a public call: the work unit of the
//! distributed solve (the `kalah-cluster` crate), which decides the top of the
//! tree itself and hands each worker a board and a bound.

use crate::board::Board;
use crate::search::{Interrupted, Solver};

impl Solver {
    /// Whether the value of `board` (for its mover, stores excluded, as
    /// [`Solver::solve_board`]) is at least `beta`: one null-window test,
    /// exact, without a new table generation (entries from earlier tests of
    /// this solver help the next one). A finished board is answered from its
    /// final value.
    ///
    /// # Errors
    /// [`Interrupted`] when the stop flag was set.
    pub fn board_at_least(&self, board: Board, beta: i32) -> Result<bool, Interrupted> {
        self.at_least(board, beta)
    }
}
