//! The answer of a distributed solve: checked against its own perfect
//! game, then as the JSON object of `kalah solve --json` plus the units.

use kalah::service::answer::{round3, Outcome, SolvedGame};
use kalah_solver::{Game, Position, Side};
use serde::Serialize;

use crate::coordinator::{Finished, UnitCounts};

/// `kalah solve --json`'s fields, then the distributed run's.
#[derive(Serialize, Debug)]
pub struct SolvedJson {
    /// `nodes`: every node the workers searched (answered, split and
    /// cancelled units); `threads`: worker processes.
    #[serde(flatten)]
    pub game: SolvedGame,
    #[serde(flatten)]
    pub counts: UnitCounts,
    /// Sowings from the start to the frontier.
    pub frontier: u32,
    /// Sowings above the frontier up to which a cut node is a unit.
    pub cut_early: u32,
    /// The root's first guess (value for South) and its tests in order:
    /// `">=B"` held, `"<B"` did not.
    pub guess: Option<i32>,
    pub root_tests: Vec<String>,
    pub work: String,
}

/// Why an answer is refused.
#[derive(Debug)]
pub struct ReplayError(pub String);

/// Plays `houses` (1-based) from `start` and returns the final store
/// difference for South.
///
/// # Errors
/// An illegal move, or a game not over at the end of the line.
pub fn replay(game: &Game, start: Position, houses: &[usize]) -> Result<i32, ReplayError> {
    let mut pos = start;
    for (i, &h) in houses.iter().enumerate() {
        pos.play(game, h)
            .map_err(|e| ReplayError(format!("move {} (house {h}): {e}", i + 1)))?;
    }
    pos.final_score(game.rules())
        .ok_or_else(|| ReplayError("the perfect game does not reach the end".into()))
}

/// The JSON answer of a finished run.
#[allow(clippy::too_many_arguments)]
pub fn json(
    game: &Game,
    seeds: usize,
    done: &Finished,
    table_seeds: Option<u32>,
    build_seconds: f64,
    workers: usize,
    (frontier, cut_early): (u32, u32),
    work: &str,
) -> SolvedJson {
    let line = kalah_solver::query::pv_line(&done.solved.pv);
    let nodes = done.counts.total_nodes();
    // This run's work over this run's time: a resumed run's records were
    // searched in other runs' time.
    let rate = if done.seconds > 0.0 {
        done.counts.nodes_this_run as f64 / done.seconds
    } else {
        0.0
    };
    SolvedJson {
        game: SolvedGame {
            pits: game.pits(),
            seeds,
            rules: game.rules().slug(),
            to_move: Side::South.letter(),
            value: done.solved.value,
            result: Outcome::of(done.solved.value),
            best_turn: line.turns.first().cloned().unwrap_or_default(),
            pv: line.to_string(),
            nodes,
            nodes_per_second: rate.round() as u64,
            table_seeds,
            build_seconds: round3(build_seconds),
            solve_seconds: round3(done.seconds),
            threads: workers,
        },
        counts: done.counts,
        frontier,
        cut_early,
        guess: done.root.guess,
        root_tests: done
            .root
            .tests
            .iter()
            .map(|&(b, holds)| format!("{}{b}", if holds { ">=" } else { "<" }))
            .collect(),
        work: work.to_string(),
    }
}
