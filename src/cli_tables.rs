//! The `build` and `verify` (tables) subcommands: argument parsing,
//! progress bars and summaries around [`kalah_solver::table`].

use indicatif::{ProgressBar, ProgressStyle};
use kalah_solver::table::{
    build_tables, verify_tables, BuildConfig, Progress, TierStats, VerifyConfig,
};
use kalah_solver::{CaptureRule, EndRule, Rules};
use std::path::PathBuf;
use std::sync::Mutex;

fn parse_end(s: &str) -> Result<EndRule, String> {
    s.parse()
}

/// Arguments of `kalah build`.
#[derive(clap::Args, Debug, Clone)]
pub struct BuildArgs {
    /// Houses a side.
    #[arg(long = "pits", short = 'm', default_value_t = 6)]
    pub pits: usize,
    /// Build tiers 0..=K seeds on the board (at most 127).
    #[arg(long = "max-seeds", short = 'k')]
    pub max_seeds: u32,
    /// A last seed in an empty own house always captures.
    #[arg(long)]
    pub empty_capture: bool,
    /// End rule: sweep, delayed or no-sweep.
    #[arg(long, default_value = "sweep", value_parser = parse_end)]
    pub end: EndRule,
    /// Directory of the table files.
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Worker threads (0: all cores).
    #[arg(long, short = 't', default_value_t = 0)]
    pub threads: usize,
}

/// Arguments of `kalah verify`.
#[derive(clap::Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Houses a side.
    #[arg(long = "pits", short = 'm', default_value_t = 6)]
    pub pits: usize,
    /// Verify tiers 0..=K (default: every tier file present).
    #[arg(long = "max-seeds", short = 'k')]
    pub max_seeds: Option<u32>,
    /// A last seed in an empty own house always captures.
    #[arg(long)]
    pub empty_capture: bool,
    /// End rule: sweep, delayed or no-sweep.
    #[arg(long, default_value = "sweep", value_parser = parse_end)]
    pub end: EndRule,
    /// Directory of the table files.
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Entries a tier re-derived from their children (0: all of them).
    #[arg(long, default_value_t = 100_000)]
    pub sample: u64,
    /// Also compare with plain search on tiers up to this many seeds.
    #[arg(long, default_value_t = 10)]
    pub search_seeds: u32,
    /// Entries a tier compared with plain search.
    #[arg(long, default_value_t = 2_000)]
    pub search_sample: u64,
    /// Worker threads (0: all cores).
    #[arg(long, short = 't', default_value_t = 0)]
    pub threads: usize,
}

fn rules(empty_capture: bool, end: EndRule) -> Rules {
    Rules {
        capture: if empty_capture {
            CaptureRule::Empty
        } else {
            CaptureRule::Standard
        },
        end,
    }
}

/// One progress bar per tier.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn tier_started(&self, tier: u32, boards: u64) {
        let bar = ProgressBar::new(boards);
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
        let how = if s.reused { "kept   " } else { "built  " };
        let rate = if s.reused || s.seconds <= 0.0 {
            String::new()
        } else {
            format!("  {:.1} M boards/s", s.boards as f64 / s.seconds / 1e6)
        };
        println!(
            "tier {:>3} {how}{:>13} boards {:>8.2} s{rate}",
            s.tier, s.boards, s.seconds
        );
    }
}

/// `kalah build`: builds or completes the tables, printing a bar per tier
/// and a summary. Ctrl-C ([`crate::interrupt`]) stops it between chunks,
/// keeping every complete tier; a rerun resumes.
pub fn build_command(args: &BuildArgs) -> Result<(), String> {
    let config = BuildConfig {
        pits: args.pits,
        rules: rules(args.empty_capture, args.end),
        max_seeds: args.max_seeds,
        threads: args.threads,
    };
    println!(
        "building tables for {} pits, {}, tiers 0..={} in {}",
        config.pits,
        config.rules,
        config.max_seeds,
        args.tables.display()
    );
    let bars = Bars {
        bar: Mutex::new(None),
    };
    let report = build_tables(&args.tables, &config, &bars, crate::interrupt::flag())
        .map_err(|e| e.to_string())?;
    let kept = report.tiers.iter().filter(|t| t.reused).count();
    println!(
        "done: {} tiers ({} kept), {} boards built in {:.2} s ({:.1} M boards/s), {:.1} MB of tables",
        report.tiers.len(),
        kept,
        report.built_boards,
        report.seconds,
        report.built_boards as f64 / report.seconds.max(1e-9) / 1e6,
        report.bytes as f64 / 1e6
    );
    Ok(())
}

/// `kalah verify`: checksums, the one-step recurrence and plain
/// search; fails with the first problem.
pub fn verify_command(args: &VerifyArgs) -> Result<(), String> {
    let config = VerifyConfig {
        pits: args.pits,
        rules: rules(args.empty_capture, args.end),
        max_seeds: args.max_seeds,
        sample: (args.sample > 0).then_some(args.sample),
        reference_max_seeds: args.search_seeds,
        reference_sample: args.search_sample,
        threads: args.threads,
    };
    let t0 = std::time::Instant::now();
    let report = verify_tables(&args.tables, &config).map_err(|e| e.to_string())?;
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
