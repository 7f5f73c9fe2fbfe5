//! Building the tables, tier by tier, and resuming a build.
//!
//! * `tier`: the algorithm that solves one tier from the ones below it.
//! * `write`: a tier's file, written durably in the background.
//! * `lock`: one build at a time per directory, board size and rule set.
//!
//! Memory: every tier, once solved, stays in memory for the tiers above it,
//! as `TierValues` (anonymous memory asking for huge pages: the tiers
//! are read at random, see [`crate::platform::AnonArray`]). Tiers kept from
//! an earlier run are checked, then copied in from their files. Peak memory
//! is thus about the size of the tables being built (plus the page cache of
//! the files written, which the kernel may drop at will).
//!
//! The file of each tier is written by a thread of its own while the next
//! tier is solved (a stop or an error waits for it, so every tier before
//! the one abandoned has its file).
//!
//! A rerun keeps every tier from 0 up whose final file passes the check
//! (header, size, end marker, checksum: in full, or by its stamp), and
//! rebuilds from the first tier that does not ([`Progress::rejected`] says
//! why when the file is there but unusable).

mod lock;
mod tier;
mod write;

pub use lock::{lock_path, try_lock_build};

use super::format::{file_len, file_name, Check};
use super::reader::TierTable;
use super::{Ranker, TableError, MAX_TIER};
use crate::board::Game;
use crate::index::Index;
use crate::platform::AnonArray;
use crate::rules::{Rules, MAX_PITS};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// The values of one tier, one entry per board in rank order, shared by
/// the threads that solve the tiers above it and the one writing its file.
type TierValues = AnonArray<AtomicI8>;

/// The entry of a board not solved yet.
pub const UNKNOWN: i8 = i8::MIN;

/// What to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildConfig {
    /// Houses a side, 1..=8.
    pub pits: usize,
    pub rules: Rules,
    /// Tiers `0..=max_seeds` are built; at most [`MAX_TIER`].
    pub max_seeds: u32,
    /// Worker threads (0: as many as the machine has).
    pub threads: usize,
}

/// What happened to one tier.
#[derive(Clone, Debug)]
pub struct TierStats {
    pub tier: u32,
    pub boards: u64,
    /// Seconds spent computing (the file is written in the background,
    /// while the next tier is computed); checking and loading when reused.
    pub seconds: f64,
    /// The complete file was already there and was kept.
    pub reused: bool,
    pub path: PathBuf,
}

/// The outcome of [`build_tables`].
#[derive(Clone, Debug)]
pub struct BuildReport {
    pub tiers: Vec<TierStats>,
    /// Wall time of the whole build.
    pub seconds: f64,
    /// Boards computed by this run (not counting reused tiers).
    pub built_boards: u64,
    /// Bytes of all tier files.
    pub bytes: u64,
}

/// Progress reports; every method has an empty default. Called from worker
/// threads, hence `Sync`.
pub trait Progress: Sync {
    /// Tier `tier` with `boards` boards is about to be computed.
    fn tier_started(&self, _tier: u32, _boards: u64) {}
    /// `boards` more boards of the current tier are done.
    fn advanced(&self, _boards: u64) {}
    /// Tier `stats.tier` is computed (or reused when `stats.reused`). A
    /// computed tier's file may still be being written: it is complete when
    /// [`build_tables`] returns, with success or not.
    fn tier_finished(&self, _stats: &TierStats) {}
    /// Another build holds the lock file `lock`: this one waits for it.
    fn waiting(&self, _lock: &Path) {}
    /// The file of a tier is there but unusable (`error` names it and
    /// says why): it and every tier above it are built anew.
    fn rejected(&self, _error: &TableError) {}
}

/// Bytes of the files of tiers `0..=max_seeds` of `pits` houses a side;
/// the build needs about as much memory (every tier stays in memory for
/// the tiers above it).
pub fn tables_bytes(pits: usize, max_seeds: u32) -> u128 {
    let index = Index::new(pits);
    (0..=max_seeds)
        .map(|k| index.tier_size(k).saturating_add(file_len(0) as u128))
        .fold(0u128, u128::saturating_add)
}

/// No progress reports.
impl Progress for () {}

/// Builds (or completes) the tables of `config` in `dir`, creating it if
/// needed, holding the build lock of the directory, board size and rule
/// set (see the module documentation) while it runs. Checks `stop` while
/// it waits for the lock, before each tier (kept or built) and between
/// the blocks of boards of a tier; once it is set, the current tier is
/// abandoned (no file of it is left) and [`TableError::Stopped`] returned,
/// after the file of the tier before it is complete.
pub fn build_tables(
    dir: &Path,
    config: &BuildConfig,
    progress: &dyn Progress,
    stop: &AtomicBool,
) -> Result<BuildReport, TableError> {
    let BuildConfig {
        pits,
        rules,
        max_seeds,
        threads,
    } = *config;
    if !(1..=MAX_PITS).contains(&pits) {
        return Err(TableError::Unsupported {
            reason: format!("{pits} pits a side (1..={MAX_PITS})"),
        });
    }
    if max_seeds > MAX_TIER {
        return Err(TableError::Unsupported {
            reason: format!("{max_seeds} seeds: entries are i8, at most {MAX_TIER} seeds"),
        });
    }
    let index = Index::new(pits);
    for k in 0..=max_seeds {
        let size = index.tier_size(k);
        if usize::try_from(size).is_err() || size > (isize::MAX as u128) {
            return Err(TableError::Unsupported {
                reason: format!("tier {k} of {pits} pits has {size} boards: too large"),
            });
        }
    }
    fs::create_dir_all(dir).map_err(|e| TableError::io(dir, "create directory", e))?;
    let _lock = lock::lock_build(dir, pits, rules, progress, stop)?;
    lock::remove_stale_temps(dir, pits, rules)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(64 << 20)
        .build()
        .map_err(|e| TableError::Unsupported {
            reason: format!("thread pool: {e}"),
        })?;

    let start = Instant::now();
    let game = Game::new(pits, rules);
    let ranker = Ranker::new(pits);
    let mut lower: Vec<Arc<TierValues>> = Vec::new();
    // The file of the tier solved last, written while the next is solved.
    let mut writing = Writing(None);
    let mut report = BuildReport {
        tiers: Vec::new(),
        seconds: 0.0,
        built_boards: 0,
        bytes: 0,
    };
    let mut reusing = true;
    for k in 0..=max_seeds {
        if stop.load(Relaxed) {
            // Also while tiers are only checked and loaded.
            writing.finish()?;
            return Err(TableError::Stopped {
                dir: dir.to_path_buf(),
                tier: k,
            });
        }
        let t0 = Instant::now();
        let path = dir.join(file_name(pits, rules, k));
        let size = index.tier_size(k) as u64;
        // A complete tier file already there is kept (its checksum checked);
        // from the first tier that is not, every tier is built.
        let mut kept = None;
        if reusing && path.is_file() {
            match TierTable::open(&path, pits, rules, k, Check::Remembered) {
                Ok(t) => {
                    let buf = TierValues::with(t.raw().len(), |b| b.copy_from_slice(t.raw()))
                        .map_err(|e| TableError::io(&path, "allocate", e))?;
                    kept = Some(Arc::new(buf));
                }
                Err(e) => progress.rejected(&e),
            }
        }
        let reused = kept.is_some();
        let values = match kept {
            Some(values) => values,
            None => {
                reusing = false;
                progress.tier_started(k, size);
                let lower_values: Vec<&[AtomicI8]> = lower.iter().map(|t| t.as_slice()).collect();
                let values = pool.install(|| {
                    tier::solve_tier(&game, &ranker, &index, k, &lower_values, progress, stop)
                });
                let values = match values {
                    Some(Ok(v)) => Arc::new(v),
                    // A failed write of the tier before is reported first: it
                    // means a file is missing.
                    Some(Err(e)) => {
                        writing.finish()?;
                        return Err(TableError::io(&path, "allocate", e));
                    }
                    None => {
                        writing.finish()?;
                        return Err(TableError::Stopped {
                            dir: dir.to_path_buf(),
                            tier: k,
                        });
                    }
                };
                writing.finish()?;
                let tier = Arc::clone(&values);
                let file = path.clone();
                writing.0 = Some(
                    std::thread::Builder::new()
                        .name(format!("kalah-write-{k}"))
                        .spawn(move || write::write_tier(&file, pits, rules, k, tier.as_slice()))
                        .map_err(|e| TableError::io(&path, "start the writer thread", e))?,
                );
                report.built_boards += size;
                values
            }
        };
        let stats = TierStats {
            tier: k,
            boards: size,
            seconds: t0.elapsed().as_secs_f64(),
            reused,
            path,
        };
        progress.tier_finished(&stats);
        report.tiers.push(stats);
        report.bytes += file_len(size);
        lower.push(values);
    }
    writing.finish()?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The thread writing a tier file, if any. Dropping it (a panic while the
/// next tier is solved) still waits for the file.
struct Writing(Option<std::thread::JoinHandle<Result<(), TableError>>>);

impl Writing {
    /// Waits for the file and returns how its writing went.
    fn finish(&mut self) -> Result<(), TableError> {
        match self.0.take() {
            None => Ok(()),
            Some(w) => w
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        }
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        if let Some(w) = self.0.take() {
            let _ = w.join();
        }
    }
}
