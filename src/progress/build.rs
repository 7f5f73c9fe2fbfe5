//! A table build as a terminal shows it, on standard error: a line saying
//! what is built, a progress bar a tier, a line a tier finished. The
//! shared step of every front end that builds tables for a game (`kalah
//! build`, `solve`, `play`, `reproduce`, `book build`, `kalah-cluster
//! prepare`); which tables, and whether they fit, is the service's
//! ([`crate::service::setup`], [`crate::service::table_build`]).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use kalah_solver::table::{BuildConfig, BuildReport, Progress, TableError, Tables, TierStats};
use kalah_solver::Rules;

use super::Stderr;
use crate::service::setup::{self, TablePolicy};
use crate::service::{table_build, Error};

/// One progress bar per tier, on standard error.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn tier_started(&self, tier: u32, boards: u64) {
        let bar = ProgressBar::with_draw_target(Some(boards), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "tier {prefix:>3} [{bar:30}] {human_pos}/{human_len} {per_sec}{sane_eta}",
            )
            .expect("valid template")
            .with_key("sane_eta", sane_eta)
            .progress_chars("=> "),
        );
        bar.set_prefix(tier.to_string());
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn advanced(&self, boards: u64) {
        if let Some(bar) = &*self.bar.lock().unwrap_or_else(|e| e.into_inner()) {
            bar.inc(boards);
        }
    }

    fn tier_finished(&self, s: &TierStats) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
        let how = if s.reused { "kept " } else { "built" };
        let rate = if s.reused || s.seconds <= 0.0 {
            String::new()
        } else {
            format!("  {:.1} M boards/s", s.boards as f64 / s.seconds / 1e6)
        };
        eprintln!(
            "tier {:>3} {how} {:>13} {:<6} {:>8.2} s  {:>5.2} bits/board{rate}",
            s.tier,
            s.boards,
            if s.boards == 1 { "board" } else { "boards" },
            s.seconds,
            s.bytes as f64 * 8.0 / s.boards as f64
        );
    }

    fn waiting(&self, lock: &Path) {
        eprintln!(
            "kalah: waiting for another build in {} (lock {})",
            lock.parent().unwrap_or(Path::new(".")).display(),
            lock.display()
        );
    }

    fn rejected(&self, error: &TableError) {
        eprintln!("kalah: {error}: building that tier and the tiers above it again");
    }
}

/// " ETA 3m 05s": the time left at the average rate so far, once there is
/// one to speak of (a second of work); nothing when it is unknown or above
/// 100 hours (at the start of a tier, a rate measured on a few boards gave
/// estimates like "52w").
fn sane_eta(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let (Some(len), pos, elapsed) = (state.len(), state.pos(), state.elapsed()) else {
        return;
    };
    if pos == 0 || pos >= len || elapsed < Duration::from_secs(1) {
        return;
    }
    let left = elapsed.as_secs_f64() * (len - pos) as f64 / pos as f64;
    if left.is_finite() && left < 100.0 * 3600.0 {
        let _ = write!(w, " ETA {}", short_duration(left));
    }
}

/// "12s", "3m 05s", "2h 10m".
fn short_duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

/// Builds (or completes) tiers `0..=max_seeds` in `dir` with progress bars
/// on standard error ([`table_build::build`]). Unless `no_size_limit`,
/// refuses a build that does not fit ([`table_build::check_build_size`]).
///
/// # Errors
/// A build too large, unsupported sizes, I/O errors, an interruption.
pub fn build_with_progress(
    dir: &Path,
    config: &BuildConfig,
    no_size_limit: bool,
) -> Result<BuildReport, Error> {
    if !no_size_limit {
        table_build::check_build_size(dir, config)?;
    }
    eprintln!(
        "building endgame tables: {} a side, {}, tiers 0..={} in {}",
        if config.pits == 1 {
            "1 house".to_string()
        } else {
            format!("{} houses", config.pits)
        },
        config.rules,
        config.max_seeds,
        dir.display()
    );
    let bars = Bars {
        bar: Mutex::new(None),
    };
    table_build::build(dir, config, &bars)
}

/// The tables for `pits` and `rules` by `policy`
/// ([`setup::prepare_tables`]), the missing tiers built first with
/// progress bars when `build` is set (the size checked first, the
/// directory created first when it is a default one, saying so).
///
/// # Errors
/// As [`setup::prepare_tables`].
pub fn prepare_tables(
    policy: &TablePolicy,
    pits: usize,
    rules: Rules,
    total_seeds: u32,
    build: bool,
) -> Result<Option<Arc<Tables>>, Error> {
    let builder = |dir: &Path, config: &BuildConfig| -> Result<(), Error> {
        build_with_progress(dir, config, false).map(drop)
    };
    let builder: setup::Builder<'_> = &builder;
    setup::prepare_tables(
        policy,
        pits,
        rules,
        total_seeds,
        build.then_some(builder),
        &Stderr,
    )
}
