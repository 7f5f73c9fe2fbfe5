//! Building endgame tables for a front end: a build refused when it would
//! not fit in this machine's memory or the directory's free disk space
//! ([`check_build_size`]), else run with the front end's display of its
//! progress and stopped by Ctrl-C ([`build`]).

use std::path::Path;

use kalah_solver::table::{
    build_memory_bytes, build_tables, file_name, tables_bytes, BuildConfig, BuildReport, Progress,
};

use super::Error;
use crate::interrupt;

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
pub fn check_build_size(dir: &Path, config: &BuildConfig) -> Result<(), Error> {
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
    let houses = if config.pits == 1 {
        "1 house".to_string()
    } else {
        format!("{} houses", config.pits)
    };
    let what = format!(
        "tiers 0..={} of {houses} a side take about {total} bytes ({:.1} GB) on disk and {memory_needed} bytes ({:.1} GB) of memory to build",
        config.max_seeds,
        total as f64 / 1e9,
        memory_needed as f64 / 1e9
    );
    let hint = "pass --no-size-limit to `kalah build` to build them anyway";
    if let Some(m) = memory.filter(|&m| memory_needed > m as u128) {
        return Err(Error::Input(format!(
            "{what}; this machine has {m} bytes of memory ({hint})"
        )));
    }
    if let Some(f) = free.filter(|&f| disk_needed > f as u128) {
        return Err(Error::Input(format!(
            "{what}; {} has {f} bytes free, {disk_needed} more are needed ({hint})",
            dir.display()
        )));
    }
    if memory.is_none() && free.is_none() && memory_needed.max(total) > FALLBACK_SIZE_LIMIT {
        return Err(Error::Input(format!(
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

/// Builds (or completes) tiers `0..=config.max_seeds` in `dir`, showing
/// its progress through `progress`. Ctrl-C ([`crate::interrupt`]) stops
/// it between chunks, keeping every complete tier; a rerun resumes. The
/// size is not checked here: [`check_build_size`] first, unless the
/// person asked for no limit.
///
/// # Errors
/// Unsupported sizes, I/O errors, an interruption (failures).
pub fn build(
    dir: &Path,
    config: &BuildConfig,
    progress: &dyn Progress,
) -> Result<BuildReport, Error> {
    build_tables(dir, config, progress, interrupt::flag())
        .map_err(|e| Error::Failure(e.to_string()))
}
