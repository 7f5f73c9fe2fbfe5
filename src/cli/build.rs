//! `kalah build`: progress bars and a summary around the table builder
//! of [`kalah_solver::table`]. Progress goes to standard error, results to
//! standard output.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use kalah_solver::table::{
    build_memory_bytes, build_tables, file_name, tables_bytes, BuildConfig, BuildReport, Progress,
    TableError, TierStats,
};

use super::common::{parse_threads, plural, usize_in, CliError, RulesArgs, PITS_RANGE};
use crate::output::json_line;
use super::progress::Stderr;
use crate::service::table_dir;
use crate::outln;
use crate::service::answer::round3;
use serde::Serialize;

/// Arguments of `kalah build`.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// Houses a side (1..=8).
    #[arg(long, short = 'm', default_value_t = 6, value_parser = usize_in(PITS_RANGE))]
    pub pits: usize,
    /// Build tiers 0..=K: every board with up to K seeds on it (at most 127).
    #[arg(long, short = 'k', value_name = "K")]
    pub max_seeds: u32,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Directory of the endgame tables (default: $KALAH_TABLES, else the
    /// source tree's tables/, else ~/.local/share/kalah/tables; `kalah
    /// tables` shows which).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Worker threads (0: all cores; at most 1024). The files are the same
    /// for any count.
    #[arg(long, short = 't', default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
    /// Build even when the tables would not fit in this machine's memory
    /// or the directory's free disk space (or exceed 64 GB where neither
    /// is known). The build keeps every tier in memory.
    #[arg(long)]
    pub no_size_limit: bool,
    /// Print one JSON object with the build report.
    #[arg(long)]
    pub json: bool,
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

/// A table error as a command error: interruption and I/O are failures.
pub(super) fn table_error(e: TableError) -> CliError {
    CliError::Failure(e.to_string())
}

/// Tables larger than this are refused where neither the memory nor the
/// free disk space is known (bytes).
const FALLBACK_SIZE_LIMIT: u128 = 64_000_000_000;

/// Refuses (input error: status 2) a build of `config` into `dir` that
/// would not fit: the files need about their size on disk (less the tiers
/// already there; estimated at 4 bits a board), and the build at least the
/// memory of its top tier at one byte a board plus the encoded tiers
/// ([`build_memory_bytes`]). Unknown limits are not checked, but
/// with neither known, more than 64 GB is refused.
///
/// # Errors
/// A build larger than the memory or the free disk space.
pub fn check_build_size(dir: &Path, config: &BuildConfig) -> Result<(), CliError> {
    let total = tables_bytes(config.pits, config.max_seeds);
    // The least a build needs: no tier below the one built at one byte.
    let memory_needed = build_memory_bytes(config.pits, config.max_seeds, 0);
    let present: u128 = (0..=config.max_seeds)
        .filter_map(|k| std::fs::metadata(dir.join(file_name(config.pits, config.rules, k))).ok())
        .map(|m| m.len() as u128)
        .sum();
    let disk_needed = total.saturating_sub(present);
    let memory = kalah_solver::platform::physical_memory();
    let free = free_disk_space(dir);
    let houses = plural(config.pits as u64, "house", "houses");
    let what = format!(
        "tiers 0..={} of {houses} a side take about {total} bytes ({:.1} GB) on disk and {memory_needed} bytes ({:.1} GB) of memory to build",
        config.max_seeds,
        total as f64 / 1e9,
        memory_needed as f64 / 1e9
    );
    let hint = "pass --no-size-limit to `kalah build` to build them anyway";
    if let Some(m) = memory.filter(|&m| memory_needed > m as u128) {
        return Err(CliError::Input(format!(
            "{what}; this machine has {m} bytes of memory ({hint})"
        )));
    }
    if let Some(f) = free.filter(|&f| disk_needed > f as u128) {
        return Err(CliError::Input(format!(
            "{what}; {} has {f} bytes free, {disk_needed} more are needed ({hint})",
            dir.display()
        )));
    }
    if memory.is_none() && free.is_none() && memory_needed.max(total) > FALLBACK_SIZE_LIMIT {
        return Err(CliError::Input(format!(
            "{what}: more than {FALLBACK_SIZE_LIMIT} bytes ({hint})"
        )));
    }
    Ok(())
}

/// Bytes free for an unprivileged user on the file system of `dir` (or of
/// its nearest existing ancestor: the build creates it).
fn free_disk_space(dir: &Path) -> Option<u64> {
    kalah_solver::platform::free_disk_space(dir)
}

/// Builds (or completes) tiers `0..=max_seeds` in `dir` with progress bars
/// on standard error; the shared step of `build`, `solve`, `play` and
/// `reproduce`. Ctrl-C ([`crate::interrupt`]) stops it between chunks,
/// keeping every complete tier; a rerun resumes. Unless `no_size_limit`,
/// refuses a build that does not fit ([`check_build_size`]).
///
/// # Errors
/// A build too large, unsupported sizes, I/O errors, an interruption.
pub fn build_with_progress(
    dir: &Path,
    config: &BuildConfig,
    no_size_limit: bool,
) -> Result<BuildReport, CliError> {
    if !no_size_limit {
        check_build_size(dir, config)?;
    }
    eprintln!(
        "building endgame tables: {} a side, {}, tiers 0..={} in {}",
        plural(config.pits as u64, "house", "houses"),
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
    if args.max_seeds > kalah_solver::table::MAX_TIER {
        return Err(CliError::Input(format!(
            "--max-seeds {}: table values are one signed byte, at most {} seeds",
            args.max_seeds,
            kalah_solver::table::MAX_TIER
        )));
    }
    let config = BuildConfig {
        pits: args.pits,
        rules: args.rules.rules(),
        max_seeds: args.max_seeds,
        threads: args.threads,
    };
    let dir = table_dir::resolve(args.tables.as_deref());
    dir.ensure(true, &Stderr)?;
    let report = build_with_progress(&dir.path, &config, args.no_size_limit)?;
    let kept = report.tiers.iter().filter(|t| t.reused).count();
    let rate = report.built_boards as f64 / report.seconds.max(1e-9);
    if args.json {
        #[derive(Serialize)]
        struct Built {
            pits: usize,
            rules: String,
            max_seeds: u32,
            tiers: usize,
            kept: usize,
            built_boards: u64,
            seconds: f64,
            boards_per_second: u64,
            bytes: u64,
        }
        let j = Built {
            pits: args.pits,
            rules: config.rules.slug(),
            max_seeds: args.max_seeds,
            tiers: report.tiers.len(),
            kept,
            built_boards: report.built_boards,
            seconds: round3(report.seconds),
            boards_per_second: rate.round() as u64,
            bytes: report.bytes,
        };
        return outln!("{}", json_line(&j));
    }
    outln!(
        "done: {} ({} kept), {} built in {:.2} s ({:.1} M boards/s), {:.1} MB of tables",
        plural(report.tiers.len() as u64, "tier", "tiers"),
        kept,
        plural(report.built_boards, "board", "boards"),
        report.seconds,
        rate / 1e6,
        report.bytes as f64 / 1e6
    )
}
