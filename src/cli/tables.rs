//! `kalah build` and `kalah verify`: progress bars and summaries around
//! [`kalah_solver::table`]. Progress goes to standard error, results to
//! standard output.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kalah_solver::table::{
    build_tables, verify_tables, BuildConfig, BuildReport, Progress, TableError, TierStats,
    VerifyConfig,
};

use super::common::{CliError, RulesArgs};
use crate::json::Json;

/// Arguments of `kalah build`.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// Houses a side.
    #[arg(long, short = 'm', default_value_t = 6)]
    pub pits: usize,
    /// Build tiers 0..=K: every board with up to K seeds on it (at most 127).
    #[arg(long, short = 'k', value_name = "K")]
    pub max_seeds: u32,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Directory of the table files.
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Worker threads (0: all cores). The files are the same for any count.
    #[arg(long, short = 't', default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON object with the build report.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `kalah verify`.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Houses a side.
    #[arg(long, short = 'm', default_value_t = 6)]
    pub pits: usize,
    /// Verify tiers 0..=K (default: every tier file present).
    #[arg(long, short = 'k', value_name = "K")]
    pub max_seeds: Option<u32>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Directory of the table files.
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Entries of each tier re-derived from their children (0: all).
    #[arg(long, default_value_t = 100_000)]
    pub sample: u64,
    /// Also compare with an independent plain search on tiers up to this
    /// many seeds.
    #[arg(long, default_value_t = 10)]
    pub search_seeds: u32,
    /// Entries of each such tier compared with plain search.
    #[arg(long, default_value_t = 2_000)]
    pub search_sample: u64,
    /// Worker threads (0: all cores).
    #[arg(long, short = 't', default_value_t = 0)]
    pub threads: usize,
}

/// One progress bar per tier, on standard error.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn tier_started(&self, tier: u32, boards: u64) {
        let bar = ProgressBar::with_draw_target(Some(boards), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "tier {prefix:>3} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
            )
            .expect("valid template")
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
            "tier {:>3} {how} {:>13} boards {:>8.2} s{rate}",
            s.tier, s.boards, s.seconds
        );
    }
}

/// A table error as a command error: interruption and I/O are failures.
fn table_error(e: TableError) -> CliError {
    CliError::Failure(e.to_string())
}

/// Builds (or completes) tiers `0..=max_seeds` in `dir` with progress bars
/// on standard error; the shared step of `build`, `solve`, `play` and
/// `reproduce`. Ctrl-C ([`crate::interrupt`]) stops it between chunks,
/// keeping every complete tier; a rerun resumes.
///
/// # Errors
/// Unsupported sizes, I/O errors, an interruption.
pub fn build_with_progress(dir: &Path, config: &BuildConfig) -> Result<BuildReport, CliError> {
    eprintln!(
        "building endgame tables: {} houses, {}, tiers 0..={} in {}",
        config.pits,
        config.rules,
        config.max_seeds,
        dir.display()
    );
    let bars = Bars {
        bar: Mutex::new(None),
    };
    build_tables(dir, config, &bars, crate::interrupt::flag()).map_err(table_error)
}

/// `kalah build`.
pub fn build_command(args: &BuildArgs) -> Result<(), CliError> {
    let config = BuildConfig {
        pits: args.pits,
        rules: args.rules.rules(),
        max_seeds: args.max_seeds,
        threads: args.threads,
    };
    let report = build_with_progress(&args.tables, &config)?;
    let kept = report.tiers.iter().filter(|t| t.reused).count();
    let rate = report.built_boards as f64 / report.seconds.max(1e-9);
    if args.json {
        let j = Json::object()
            .with("pits", args.pits)
            .with("rules", config.rules.slug())
            .with("max_seeds", args.max_seeds)
            .with("tiers", report.tiers.len())
            .with("kept", kept)
            .with("built_boards", report.built_boards)
            .with("seconds", report.seconds)
            .with("boards_per_second", rate)
            .with("bytes", report.bytes);
        println!("{}", j.render());
        return Ok(());
    }
    println!(
        "done: {} tiers ({} kept), {} boards built in {:.2} s ({:.1} M boards/s), {:.1} MB of tables",
        report.tiers.len(),
        kept,
        report.built_boards,
        report.seconds,
        rate / 1e6,
        report.bytes as f64 / 1e6
    );
    Ok(())
}

/// `kalah verify`: checksums, the one-step recurrence and plain search;
/// fails (exit status 1) with the first problem.
pub fn verify_command(args: &VerifyArgs) -> Result<(), CliError> {
    let config = VerifyConfig {
        pits: args.pits,
        rules: args.rules.rules(),
        max_seeds: args.max_seeds,
        sample: (args.sample > 0).then_some(args.sample),
        reference_max_seeds: args.search_seeds,
        reference_sample: args.search_sample,
        threads: args.threads,
    };
    let t0 = Instant::now();
    let report = verify_tables(&args.tables, &config).map_err(table_error)?;
    println!(
        "verified {} files ({:.1} MB checksummed), {} entries re-derived, {} checked by search, in {:.2} s: all correct",
        report.files,
        report.bytes as f64 / 1e6,
        report.rederived,
        report.searched,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
