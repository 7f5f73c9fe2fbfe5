//! Building the tables, tier by tier, and resuming a build.
//!
//! * `tier`: the algorithm that solves one tier from the ones below it.
//! * `write`: a tier's file, written durably in the background.
//! * `lock`: one build at a time per directory, board size and rule set.
//!
//! Memory (what is resident while tier `k` is built):
//!
//! * tier `k` itself, one `AtomicI8` a board, as it is solved (anonymous
//!   memory asking for huge pages: read and written at random, see
//!   [`crate::platform::AnonArray`]); then, while it is encoded, its file
//!   image (about 0.45 bytes a board);
//! * tiers `k - 1`, `k - 2`, `k - 3` (`NEAR` tiers; fewer, down to
//!   none, where that would pass two thirds of the machine's memory:
//!   [`near_tiers`]), one byte a board: most children below a tier are
//!   one tier down (a move that drops one seed in the store), and most
//!   captures take a few seeds;
//! * every tier `0..k`, as its file image (encoded: under half a byte a
//!   board, see [`super::compact`]), copied into huge-page memory; the
//!   children further down (captures of many seeds, laps round the board)
//!   are read from these by decoding one value
//!   ([`super::compact::Compact::get`]), their bytes prefetched a batch
//!   ahead.
//!
//! So tier `k` needs about `size(k) + size(k-1) + size(k-2) + size(k-3)`
//! bytes plus the encoded tables below it ([`build_memory_bytes`] at the
//! top tier). The tiers grow by a factor of about 1.4 a seed (6 houses,
//! near 28 seeds), so the top four tiers are most of the one-byte total:
//! the three near tiers buy speed with memory, and are dropped when memory
//! is short. With none, tier `k` needs `size(k)` plus the encoded tables:
//! 6 houses, 28 seeds: about 4.3 GB against 5.6 GB for every tier at one
//! byte; 34 seeds (the depth of the published Kalah(6,6) solution): about
//! 30 GB against 39 GB. Tiers kept from an earlier run are checked and
//! copied in from their files (and the near tiers below the first tier
//! built are decoded to one byte a board).
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

use super::compact::{self, Compact};
use super::format::{file_image, file_name, Check, HEADER_LEN, TRAILER_LEN};
use super::reader::TierTable;
use super::{Ranker, TableError, MAX_TIER};
use crate::board::Game;
use crate::index::Index;
use crate::platform::{self, AnonArray};
use crate::rules::{Rules, MAX_PITS};
use memmap2::Mmap;
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

/// Tiers below the one being built kept at one byte a board (the others
/// are read encoded): tier `k - 1` holds the children of moves that drop
/// one seed in the store, tiers `k - 2` and `k - 3` those of most
/// captures. Each tier more costs its size in memory and saves decoding
/// (lab/journal/tables.md, "Compact tables").
const NEAR: usize = 3;

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
    /// Bytes of the tier's file.
    pub bytes: u64,
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

/// Bits a board that [`tables_bytes`] and [`build_memory_bytes`] count for
/// an encoded tier: above what 6-house tables take (3.3 to 3.8).
const ESTIMATE_BITS: u128 = 4;

/// About the bytes of the encoded tier `k` of `index` (an estimate at
/// [`ESTIMATE_BITS`] a board: the exact size depends on the values).
fn encoded_bytes(index: &Index, k: u32) -> u128 {
    let size = index.tier_size(k);
    let entries = size.div_ceil(compact::ENTRY_BOARDS as u128) * compact::ENTRY_LEN as u128;
    (HEADER_LEN + TRAILER_LEN + compact::PADDING) as u128 + entries + size * ESTIMATE_BITS / 8
}

/// About the bytes of the files of tiers `0..=max_seeds` of `pits` houses
/// a side (an estimate: 4 bits a board, slightly above what is measured).
pub fn tables_bytes(pits: usize, max_seeds: u32) -> u128 {
    let index = Index::new(pits);
    (0..=max_seeds)
        .map(|k| encoded_bytes(&index, k))
        .fold(0u128, u128::saturating_add)
}

/// About the memory a build of tiers `0..=max_seeds` needs at its peak, the
/// top tier (see the module documentation), keeping `near` tiers below the
/// one built at one byte a board: those tiers and the top one at one byte
/// a board, every tier encoded (its own included).
pub fn build_memory_bytes(pits: usize, max_seeds: u32, near: usize) -> u128 {
    let index = Index::new(pits);
    (max_seeds.saturating_sub(near as u32)..=max_seeds)
        .map(|k| index.tier_size(k))
        .fold(tables_bytes(pits, max_seeds), u128::saturating_add)
}

/// How many tiers below tier `max_seeds` its build keeps at one byte a
/// board: `NEAR` (three), or fewer where the peak ([`build_memory_bytes`])
/// would pass two thirds of `memory` (the machine's, when known; the
/// estimate leaves out the mapped files and the writer's buffers, which
/// took a 32-seed build on 24 GiB to 21.4 GB at three quarters). A
/// build asks for each tier in turn, so only its top tiers go with fewer.
/// Fewer tiers cost time (more children decoded), not correctness: the
/// files are the same.
pub fn near_tiers(pits: usize, max_seeds: u32, memory: Option<u64>) -> usize {
    let Some(memory) = memory else {
        return NEAR;
    };
    (0..=NEAR)
        .rev()
        .find(|&n| build_memory_bytes(pits, max_seeds, n) <= budget(memory))
        .unwrap_or(0)
}

/// The share of the machine's memory a build's estimate may take.
fn budget(memory: u64) -> u128 {
    memory as u128 / 3 * 2
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
    let memory = platform::physical_memory();
    let pits = config.pits;
    build_keeping(dir, config, progress, stop, &|k| {
        near_tiers(pits, k, memory)
    })
}

/// [`build_tables`], keeping `keep_near(k)` tiers below tier `k` at one
/// byte a board while it is built (the files are the same for any count).
fn build_keeping(
    dir: &Path,
    config: &BuildConfig,
    progress: &dyn Progress,
    stop: &AtomicBool,
    keep_near: &dyn Fn(u32) -> usize,
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
    // Every tier done, encoded (its file image), and the last one at one
    // byte a board while the next is built.
    let mut lower: Vec<Arc<TierTable<Mmap>>> = Vec::new();
    // `near[i]`: tier k - 1 - i at one byte a board, for the NEAR tiers
    // below the one being built (empty until needed after kept tiers).
    let mut near: Vec<TierValues> = Vec::new();
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
        // A complete tier file already there is kept (its checksum checked,
        // its stream decodable); from the first tier that is not, every
        // tier is built.
        let mut kept = None;
        if reusing && path.is_file() {
            let t = TierTable::load(&path, pits, rules, k, Check::Remembered).and_then(|t| {
                if pool.install(|| t.compact().is_valid()) {
                    Ok(t)
                } else {
                    Err(TableError::BadHeader {
                        path: path.clone(),
                        reason: "the value stream is not a valid encoding".into(),
                    })
                }
            });
            match t {
                Ok(t) => kept = Some(Arc::new(t)),
                Err(e) => progress.rejected(&e),
            }
        }
        let reused = kept.is_some();
        let table = match kept {
            Some(table) => {
                near.clear();
                table
            }
            None => {
                reusing = false;
                progress.tier_started(k, size);
                // The tiers below that were kept: decoded once to one
                // byte a board.
                // As many near tiers as tier k's build has memory for
                // (fewer, the higher the tier).
                let keep = keep_near(k);
                near.truncate(keep);
                while near.len() < (k as usize).min(keep) {
                    let t = k as usize - 1 - near.len();
                    near.push(decode_tier(&pool, &lower[t])?);
                }
                let near_cells: Vec<&[AtomicI8]> = near.iter().map(|t| t.as_slice()).collect();
                let deep: Vec<Compact> = lower.iter().map(|t| t.compact()).collect();
                let below = tier::Below {
                    near: &near_cells,
                    deep: &deep,
                };
                let values = pool.install(|| {
                    tier::solve_tier(&game, &ranker, &index, k, &below, progress, stop)
                });
                let values = match values {
                    Some(Ok(v)) => v,
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
                let table = Arc::new(encode_tier(&pool, &path, pits, rules, k, &values)?);
                writing.finish()?;
                let tier = Arc::clone(&table);
                let file = path.clone();
                writing.0 = Some(
                    std::thread::Builder::new()
                        .name(format!("kalah-write-{k}"))
                        .spawn(move || write::write_tier(&file, tier.bytes()))
                        .map_err(|e| TableError::io(&path, "start the writer thread", e))?,
                );
                report.built_boards += size;
                near.insert(0, values);
                near.truncate(keep_near(k + 1));
                table
            }
        };
        let stats = TierStats {
            tier: k,
            boards: size,
            seconds: t0.elapsed().as_secs_f64(),
            reused,
            bytes: table.bytes().len() as u64,
            path,
        };
        progress.tier_finished(&stats);
        report.tiers.push(stats);
        report.bytes += table.bytes().len() as u64;
        lower.push(table);
    }
    writing.finish()?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The values of a kept tier, one byte a board.
fn decode_tier(
    pool: &rayon::ThreadPool,
    table: &TierTable<Mmap>,
) -> Result<TierValues, TableError> {
    let mut failed = None;
    let values = TierValues::with(table.count() as usize, |bytes| {
        // An i8 is its byte: decode into the bytes as values.
        let mut out = vec![0i8; bytes.len()];
        failed = pool.install(|| table.decode_all(&mut out)).err();
        for (b, v) in bytes.iter_mut().zip(&out) {
            *b = *v as u8;
        }
    })
    .map_err(|e| TableError::io(table.path(), "allocate", e))?;
    match failed {
        Some(e) => Err(e),
        None => Ok(values),
    }
}

/// The checked file image of tier `k` with `values` (solved), in memory
/// that asks for huge pages.
fn encode_tier(
    pool: &rayon::ThreadPool,
    path: &Path,
    pits: usize,
    rules: Rules,
    k: u32,
    values: &TierValues,
) -> Result<TierTable<Mmap>, TableError> {
    let cells = values.as_slice();
    let get = |i: usize| cells[i].load(Relaxed);
    let image = pool
        .install(|| file_image(pits, rules, k, cells.len(), &get))
        .map_err(|e| TableError::Unsupported {
            reason: format!("tier {k} cannot be encoded: {e:?}"),
        })?;
    let map = platform::read_only_copy(&image).map_err(|e| TableError::io(path, "allocate", e))?;
    drop(image);
    TierTable::from_bytes(map, path, pits, rules, k, Check::Full)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A build that keeps no tier at one byte (every child below the tier
    /// decoded: a machine short of memory) writes the same files, byte for
    /// byte, as one that keeps every near tier; under both capture rules.
    #[test]
    fn the_files_do_not_depend_on_the_near_tiers() {
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            let config = BuildConfig {
                pits: 4,
                rules,
                max_seeds: 14,
                threads: 2,
            };
            // Always none, always one, always NEAR, and a count that
            // changes from tier to tier (tiers decoded again after a tier
            // built with none).
            let keeps: [&dyn Fn(u32) -> usize; 4] = [&|_| 0, &|_| 1, &|_| NEAR, &|k| {
                (k as usize * 7) % (NEAR + 1)
            }];
            let dirs: Vec<PathBuf> = keeps
                .iter()
                .enumerate()
                .map(|(i, keep)| {
                    let dir = std::env::temp_dir().join(format!(
                        "kalah-near-{i}-{}-{}",
                        rules.slug(),
                        std::process::id()
                    ));
                    let _ = fs::remove_dir_all(&dir);
                    build_keeping(&dir, &config, &(), &AtomicBool::new(false), *keep).unwrap();
                    dir
                })
                .collect();
            for k in 0..=config.max_seeds {
                let name = file_name(4, rules, k);
                let files: Vec<Vec<u8>> = dirs
                    .iter()
                    .map(|d| fs::read(d.join(&name)).unwrap())
                    .collect();
                assert!(files.iter().all(|f| f == &files[0]), "{name}");
            }
            for d in dirs {
                fs::remove_dir_all(d).unwrap();
            }
        }
    }

    #[test]
    fn near_tiers_fit_the_memory() {
        let gib = 1u64 << 30;
        // 6 houses, 28 seeds: every near tier fits in 24 GiB (2/3: 16 GiB).
        assert_eq!(near_tiers(6, 28, Some(24 * gib)), NEAR);
        assert_eq!(near_tiers(6, 28, None), NEAR);
        for memory in [4 * gib, 6 * gib, 8 * gib] {
            let n = near_tiers(6, 28, Some(memory));
            assert!(n < NEAR, "{memory}: {n}");
            assert!(n == 0 || build_memory_bytes(6, 28, n) <= budget(memory));
            if n < NEAR {
                assert!(build_memory_bytes(6, 28, n + 1) > budget(memory));
            }
        }
        assert_eq!(near_tiers(6, 28, Some(1)), 0);
        // Each near tier costs its tier's size.
        let index = Index::new(6);
        assert_eq!(
            build_memory_bytes(6, 28, 1) - build_memory_bytes(6, 28, 0),
            index.tier_size(27)
        );
    }
}
