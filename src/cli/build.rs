//! `kalah build`: a table build with its progress on standard error
//! ([`crate::progress::build`]) and a summary on standard output.

use std::path::PathBuf;

use clap::Args;
use kalah_solver::table::{BuildConfig, TableError};

use super::common::{plural, CliError, PITS_RANGE};
use crate::flags::values::{parse_threads, usize_in};
use crate::flags::RulesArgs;
use crate::outln;
use crate::output::json_line;
use crate::progress::build::build_with_progress;
use crate::progress::Stderr;
use crate::service::answer::round3;
use crate::service::table_dir;
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

/// A table error as a command error: interruption and I/O are failures.
pub(super) fn table_error(e: TableError) -> CliError {
    CliError::Failure(e.to_string())
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
