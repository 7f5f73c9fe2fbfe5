//! `kalah verify`: a table directory's files read in full (checksums),
//! entries re-derived from their children, small tiers compared with an
//! independent search.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use kalah_solver::table::{verify_tables, VerifyConfig};

use super::build::table_error;
use super::common::{plural, CliError, PITS_RANGE};
use crate::flags::values::{parse_threads, usize_in};
use crate::flags::RulesArgs;
use crate::outln;
use crate::service::table_dir;

/// Arguments of `kalah verify`.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Houses a side (1..=8).
    #[arg(long, short = 'm', default_value_t = 6, value_parser = usize_in(PITS_RANGE))]
    pub pits: usize,
    /// Verify tiers 0..=K (default: every tier file present).
    #[arg(long, short = 'k', value_name = "K")]
    pub max_seeds: Option<u32>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Directory of the endgame tables (default: $KALAH_TABLES, else the
    /// source tree's tables/, else ~/.local/share/kalah/tables; `kalah
    /// tables` shows which).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
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
    /// Worker threads (0: all cores; at most 1024).
    #[arg(long, short = 't', default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
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
    let dir = table_dir::resolve(args.tables.as_deref());
    dir.existing()?;
    let report = verify_tables(&dir.path, &config).map_err(table_error)?;
    outln!(
        "verified {} ({:.1} MB checksummed), {} re-derived, {} checked by search, in {:.2} s: all correct",
        plural(report.files, "file", "files"),
        report.bytes as f64 / 1e6,
        plural(report.rederived, "entry", "entries"),
        report.searched,
        t0.elapsed().as_secs_f64()
    )
}
