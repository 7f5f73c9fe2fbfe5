//! MTD(f)'s bounds: the values a board can have ([`Lattice`]), and the two
//! ways the searches close them on its value, one null-window test after
//! another.
//!
//! * `Bracket` (crate-private): from fail-soft test results, each a bound
//!   that may be tighter than its test asked (the solver's MTD(f),
//!   [`Solver`](super::Solver)).
//! * [`BoolMtdf`]: from tests that say only whether they held (the
//!   cluster's root, whose tests are answered by units of work); it steps
//!   one value at a time away from the guess, then bisects.
//!
//! A board of `s` seeds has a value in `[-s, s]`; when every seed ends in
//! some store (every end rule but
//! [`EndRule::NoSweep`](crate::EndRule::NoSweep)) it also has the parity
//! of `s`, and the values step by 2. Both walks take `beta` on that
//! lattice only, so no test is spent on a value the board cannot have.

/// The values a board of `s` seeds can have: `-s, -s + step, ..., s`.
///
/// `step` is 1, or 2 when the value has the parity of the seeds; it
/// divides `2s`, so the lattice holds both `-s` and `s`, and `x` is on it
/// exactly when `x == s (mod step)`, or equally `x == -s (mod step)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lattice {
    s: i32,
    step: i32,
}

impl Lattice {
    /// The lattice of a board of `s` seeds (`s >= 0`), values `step` apart
    /// (1 or 2).
    pub fn new(s: i32, step: i32) -> Lattice {
        debug_assert!(s >= 0 && (step == 1 || step == 2), "s {s}, step {step}");
        Lattice { s, step }
    }

    /// The seeds on the board: the values lie in `[-s, s]`.
    pub fn s(&self) -> i32 {
        self.s
    }

    /// The distance between two neighbouring values.
    pub fn step(&self) -> i32 {
        self.step
    }

    /// The smallest possible value at least `x`.
    pub fn up(&self, x: i32) -> i32 {
        x + (self.s - x).rem_euclid(self.step)
    }

    /// The largest possible value at most `x`.
    pub fn down(&self, x: i32) -> i32 {
        x - (x - self.s).rem_euclid(self.step)
    }
}

/// What the solver's MTD(f) knows about a board's value `v`:
/// `lower <= v <= upper`, `v` on the [`Lattice`], and the current guess
/// `g`. The bounds stay on the lattice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bracket {
    lattice: Lattice,
    pub(crate) lower: i32,
    pub(crate) upper: i32,
    /// The guess: the first one, then the last test's result.
    pub(crate) g: i32,
}

impl Bracket {
    /// Nothing known yet of the value of a board of `s` seeds; guess 0.
    pub(crate) fn new(s: i32, step: i32) -> Bracket {
        Bracket {
            lattice: Lattice::new(s, step),
            lower: -s,
            upper: s,
            g: 0,
        }
    }

    /// Intersects with the bounds `[lower, upper]`.
    pub(crate) fn narrow(&mut self, lower: i32, upper: i32) {
        self.lower = self.lower.max(self.lattice.up(lower));
        self.upper = self.upper.min(self.lattice.down(upper));
    }

    /// Whether the bounds have met: `lower` is the value.
    pub(crate) fn settled(&self) -> bool {
        self.lower >= self.upper
    }

    /// The test MTD(f) runs next: `v >= beta` for the guess clamped into
    /// the bracket, or just above the lower bound.
    pub(crate) fn next_beta(&self) -> i32 {
        let g = self.lattice.down(self.g.clamp(self.lower, self.upper));
        if g <= self.lower {
            self.lower + self.lattice.step
        } else {
            g
        }
    }

    /// Takes in the fail-soft result `r` of the test `v >= beta`.
    pub(crate) fn record(&mut self, beta: i32, r: i32) {
        if r >= beta {
            self.lower = self.lower.max(self.lattice.up(r.min(self.upper)));
        } else {
            self.upper = self.upper.min(self.lattice.down(r.max(self.lower)));
        }
        self.g = r;
    }
}

/// MTD(f)'s root bounds from boolean tests: the next test `value >= beta`,
/// from the outcomes of the tests decided so far.
///
/// The sequence starts at the guess and moves away from it one step at a
/// time until a test goes the other way, as the one-machine solve's
/// MTD(f) does from its fail-soft bounds (a test here has only its
/// outcome): a fail-low test, every root move refuted, is the dearest
/// kind, and a longer stride would overshoot the value with one. Once
/// tests have gone both ways, it bisects what is left. Values lie on the
/// [`Lattice`] `-s, -s + step, ..., s`; [`BoolMtdf::beta`] is always on
/// it, in `(lower, upper]`, until `lower == upper` (the value).
///
/// The sequence is a function of `s`, `step`, the guess and the outcomes
/// alone: a replay asks the same tests in the same order.
#[derive(Clone, Debug)]
pub struct BoolMtdf {
    lattice: Lattice,
    lower: i32,
    upper: i32,
    rose: bool,
    fell: bool,
    /// The next test; `None` once the value is known.
    beta: Option<i32>,
}

impl BoolMtdf {
    /// Before any test, for a board of `s` seeds (`s >= 0`) whose values
    /// are `step` apart (1 or 2; see [`Lattice`]): the first test is at
    /// the guess (clamped to `[-s, s]`, down to the lattice), or one step
    /// above `-s` when that is where it lands. A board with no seeds has
    /// value 0 and no test.
    pub fn new(s: i32, step: i32, guess: i32) -> BoolMtdf {
        let lattice = Lattice::new(s, step);
        let mut beta = lattice.down(guess.clamp(-s, s));
        if beta <= -s {
            beta = -s + step;
        }
        BoolMtdf {
            lattice,
            lower: -s,
            upper: s,
            rose: false,
            fell: false,
            beta: (s > 0).then_some(beta),
        }
    }

    /// The next test, `value >= beta`; `None` once the value is known
    /// (`lower == upper`).
    pub fn beta(&self) -> Option<i32> {
        self.beta
    }

    /// The value is at least this (on the lattice).
    pub fn lower(&self) -> i32 {
        self.lower
    }

    /// The value is at most this (on the lattice).
    pub fn upper(&self) -> i32 {
        self.upper
    }

    /// Takes in the outcome of the test at [`BoolMtdf::beta`] (nothing once
    /// the value is known).
    pub fn decide(&mut self, holds: bool) {
        let Some(beta) = self.beta else { return };
        let step = self.lattice.step;
        if holds {
            self.lower = beta;
            self.rose = true;
        } else {
            self.upper = beta - step;
            self.fell = true;
        }
        if self.lower >= self.upper {
            self.beta = None;
            return;
        }
        let n = (self.upper - self.lower) / step;
        self.beta = Some(match (self.rose, self.fell) {
            (true, true) => self.lower + step * ((n + 1) / 2),
            (true, false) => (beta + step).min(self.upper),
            (false, _) => (beta - step).max(self.lower + step),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{BoolMtdf, Lattice};

    /// The lattice's rounding, written from `-s` (as the cluster's root
    /// search wrote it) and from `s` (as the solver's), agree for every
    /// step the searches use: `step` divides `2s`.
    #[test]
    fn rounding_from_either_end_agrees() {
        for step in [1, 2] {
            for s in 0..=255 {
                let lattice = Lattice::new(s, step);
                for x in -300..=300 {
                    let from_below = x - (x + s).rem_euclid(step);
                    assert_eq!(lattice.down(x), from_below, "s {s} step {step} x {x}");
                    let d = lattice.down(x);
                    let u = lattice.up(x);
                    assert!(d <= x && x <= u && u - d <= step);
                    assert_eq!((d - s).rem_euclid(step), 0);
                    assert_eq!((u + s).rem_euclid(step), 0);
                }
            }
        }
    }

    /// Every guess and every value of a small lattice: the tests end at
    /// the value, each `beta` on the lattice and inside the bounds, in
    /// few tests when the guess is close.
    #[test]
    fn bool_mtdf_bounds_close_on_the_value() {
        for step in [1, 2] {
            let s = 12;
            let lattice: Vec<i32> = (-s..=s).filter(|x| (x + s) % step == 0).collect();
            for &guess in &lattice {
                for &value in &lattice {
                    let mut m = BoolMtdf::new(s, step, guess);
                    let mut tests = 0;
                    while let Some(beta) = m.beta() {
                        assert!(
                            m.lower() < beta && beta <= m.upper(),
                            "{beta} in ({}, {}]",
                            m.lower(),
                            m.upper()
                        );
                        assert_eq!((beta + s) % step, 0);
                        m.decide(value >= beta);
                        tests += 1;
                        assert!(tests <= 2 * lattice.len());
                    }
                    assert_eq!((m.lower(), m.upper()), (value, value), "guess {guess}");
                    if guess == value {
                        assert!(tests <= 2, "guess {guess}: {tests} tests");
                    }
                }
            }
        }
    }
}
