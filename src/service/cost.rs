//! What a solve from the start is likely to cost: the cost model of
//! `scripts/cost_model.sh`, for a warning before a long search and the
//! estimate of a long run's progress.
//!
//! The model is a least-squares fit, for each capture rule, of
//!
//! ```text
//! ln(nodes) = a + b (N - K) + c N
//! ```
//!
//! over solves of 6-house games from the start (Kalah(6,3), (6,4) and
//! (6,5) over tables of 12 to 30 seeds: the rows of
//! `docs/data/cost-rows.tsv`), where `N` is the game's seeds and `K` the
//! table depth. `scripts/cost_model.sh fit docs/data/cost-rows.tsv`
//! prints the same coefficients (a test checks that they agree). Its
//! error over the games it was fitted on is about x1.2; beyond them it
//! is an extrapolation, and positions of Kalah(6,6) along published
//! perfect lines have searched several times what it gives their size.

use kalah_solver::{CaptureRule, EndRule, Rules};

/// The search speed a warning assumes for each thread: the node rate the
/// cost model measured, 1.94 to 2.16 M nodes a CPU-second
/// (docs/performance.md, "What will Kalah(6,6) cost?").
pub const NODES_PER_SECOND_A_THREAD: f64 = 2.0e6;

/// The fitted coefficients `(a, b, c)` of one rule set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

/// The fit for 6-house games under `rules` (the sweep end rule only:
/// the rows were measured under it), or `None`.
pub fn fit(pits: usize, rules: Rules) -> Option<Fit> {
    if pits != 6 || rules.end != EndRule::Sweep {
        return None;
    }
    Some(match rules.capture {
        CaptureRule::Empty => Fit {
            a: -1.612,
            b: 0.3798,
            c: 0.1466,
        },
        CaptureRule::Standard => Fit {
            a: -1.274,
            b: 0.4385,
            c: 0.1257,
        },
    })
}

/// The nodes the model predicts for a solve of Kalah(`pits`,`seeds`)
/// from the start over tables of `table_seeds` seeds, or `None` where it
/// has no fit (other board sizes or end rules) or the game is small
/// (within 28 seeds of the tables: seconds, where start-up dominates).
pub fn predicted_nodes(pits: usize, seeds: usize, rules: Rules, table_seeds: u32) -> Option<f64> {
    let f = fit(pits, rules)?;
    let n = (2 * pits).checked_mul(seeds)? as f64;
    let k = f64::from(table_seeds);
    (n > k + 28.0).then(|| (f.a + f.b * (n - k) + f.c * n).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's predictions for Kalah(6,6) (6.5 x 10^10 nodes under
    /// empty capture over 30 seeds, 9.9 x 10^10 standard over 32).
    #[test]
    fn kalah_6_6_as_the_fit_says() {
        let ec = predicted_nodes(6, 6, Rules::EMPTY_CAPTURE, 30).unwrap();
        assert!((6.3e10..6.7e10).contains(&ec), "{ec:e}");
        let std = predicted_nodes(6, 6, Rules::STANDARD, 32).unwrap();
        assert!((9.6e10..1.02e11).contains(&std), "{std:e}");
        assert_eq!(predicted_nodes(6, 4, Rules::STANDARD, 22), None);
        assert_eq!(predicted_nodes(5, 6, Rules::STANDARD, 22), None);
    }
}
