//! The progress lines of a run on stderr: units, the root's bounds, nodes,
//! rate, and the time left if the cost model holds.

use crate::plan::RootState;

/// One progress note of a run.
pub(super) struct Note<'r> {
    pub(super) units: u64,
    pub(super) units_this_run: u64,
    pub(super) running: usize,
    pub(super) waiting: usize,
    pub(super) root: &'r RootState,
    /// Every node of the run's records (earlier stretches included).
    pub(super) nodes: u64,
    /// This stretch's nodes and seconds: its rate.
    pub(super) run_nodes: u64,
    pub(super) run_seconds: f64,
    pub(super) model_nodes: Option<f64>,
}

impl Note<'_> {
    pub(super) fn rate(&self) -> f64 {
        if self.run_seconds > 0.0 {
            self.run_nodes as f64 / self.run_seconds
        } else {
            0.0
        }
    }

    /// Seconds left at this stretch's rate if the whole solve searches
    /// `total` nodes (0 once past it).
    pub(super) fn left(&self, total: f64) -> Option<f64> {
        let rate = self.rate();
        (rate > 0.0).then(|| (total - self.nodes as f64).max(0.0) / rate)
    }

    pub(super) fn text(&self) -> String {
        let mut line = format!(
            "{} units ({} this stretch), {} running, {} waiting; {}; {} nodes, {}/s this stretch, {} elapsed",
            self.units,
            self.units_this_run,
            self.running,
            self.waiting,
            root_text(self.root),
            si(self.nodes as f64),
            si(self.rate()),
            hours(self.run_seconds),
        );
        if let Some(model) = self.model_nodes {
            if let (Some(low), Some(high)) = (self.left(model), self.left(model * MODEL_LOW)) {
                line += &format!(
                    "; cost model {} nodes ({:.0} % done): {} left if it holds, {} if it is {MODEL_LOW}x low",
                    si(model),
                    100.0 * self.nodes as f64 / model,
                    hours(low),
                    hours(high)
                );
            }
        }
        line
    }

    pub(super) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "units": self.units,
            "units_this_stretch": self.units_this_run,
            "running": self.running,
            "waiting": self.waiting,
            "lower": self.root.lower,
            "upper": self.root.upper,
            "testing": self.root.beta,
            "tests": root_steps(self.root),
            "nodes": self.nodes,
            "stretch_nodes": self.run_nodes,
            "stretch_seconds": self.run_seconds,
            "nodes_per_second": self.rate(),
            "model_nodes": self.model_nodes,
            "seconds_left_model": self.model_nodes.and_then(|m| self.left(m)),
            "seconds_left_model_low": self.model_nodes.and_then(|m| self.left(m * MODEL_LOW)),
        })
    }
}

/// The factor the progress estimate's upper end puts on the cost model:
/// Kalah(6,6) positions along published perfect lines searched several
/// times what the model gives their sizes.
pub(super) const MODEL_LOW: f64 = 10.0;

/// `x` with an SI prefix: 1.23 G.
pub(super) fn si(x: f64) -> String {
    let (v, p) = [(1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")]
        .into_iter()
        .find(|&(s, _)| x >= s)
        .map_or((x, ""), |(s, p)| (x / s, p));
    format!("{v:.3}{p}")
}

/// Seconds as `1h02m` or `42.0 s`.
pub(super) fn hours(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{}h{:02}m", m / 60, m % 60)
    }
}

/// The root search's decided steps, in order.
pub(super) fn root_steps(r: &RootState) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(g) = r.guess {
        out.push(format!("guess {g:+}"));
    }
    for &(b, holds) in &r.tests {
        out.push(format!("{}{b}", if holds { ">=" } else { "<" }));
    }
    out
}

pub(super) fn root_text(r: &RootState) -> String {
    match r.beta {
        Some(b) => format!("value in [{}, {}], testing >= {b}", r.lower, r.upper),
        None if r.pv_moves > 0 => format!(
            "value {}, perfect game: {} sowings so far",
            r.lower, r.pv_moves
        ),
        None => "first guess".to_string(),
    }
}
