//! Building the tables, tier by tier; each tier in parallel.
//!
//! Tier `k` lives in a buffer of `AtomicI8`, every entry starting at
//! [`UNKNOWN`]. Rayon threads take chunks of ranks and walk them with the
//! colex successor; a board whose same-tier child is not known yet solves
//! that child first, recursively (the potential argument of the module
//! [`super`] bounds the depth). Two threads may solve one board at once; they
//! store the same number, so the output is the same for any thread count.
//!
//! Children are resolved a block of boards at a time: first every child's
//! tier and rank is computed and its entry prefetched, then the values are
//! read, so the random reads of the lower tiers overlap. Finished children
//! are read from the tables like any other (every board has its entry).
//!
//! Memory: every tier, once solved, stays in memory for the tiers above it,
//! in anonymous memory that asks for transparent huge pages (with 4 KiB
//! pages nearly every random read would also miss the TLB; this halved the
//! build time). Tiers kept from an earlier run are checked, then copied in
//! from their files. Peak memory is thus about the size of the tables being
//! built (plus the page cache of the files written, which the kernel may
//! drop at will).
//!
//! Files are written as `<name>.tmp`, synced, renamed and the directory
//! synced. A rerun keeps every tier from 0 up whose final file passes the
//! full check (header, size, end marker, checksum), and rebuilds from the
//! first tier that does not; stray `.tmp` files are ignored and replaced.

use super::format::{file_len, file_name, trailer, Check, Header};
use super::reader::TierTable;
use super::{Ranker, TableError, MAX_TIER};
use crate::board::{Board, Game};
use crate::index::Index;
use crate::rules::{Rules, MAX_PITS};
use memmap2::{MmapMut, MmapOptions};
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI8, Ordering::Relaxed};
use std::time::Instant;

/// The entry of a board not solved yet.
pub const UNKNOWN: i8 = i8::MIN;

/// Boards a rayon task takes at once.
const CHUNK: usize = 1 << 14;

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
    /// Seconds spent (computing and writing; checking when reused).
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
    /// Tier `stats.tier` is complete (computed, or reused when `stats.reused`).
    fn tier_finished(&self, _stats: &TierStats) {}
}

/// No progress reports.
impl Progress for () {}

/// Builds (or completes) the tables of `config` in `dir`, creating it if
/// needed. Checks `stop` between chunks; once it is set, the current tier is
/// abandoned (no file of it is left) and [`TableError::Stopped`] returned.
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
    let mut lower: Vec<HugeBuf> = Vec::new();
    let mut report = BuildReport {
        tiers: Vec::new(),
        seconds: 0.0,
        built_boards: 0,
        bytes: 0,
    };
    let mut reusing = true;
    for k in 0..=max_seeds {
        let t0 = Instant::now();
        let path = dir.join(file_name(pits, rules, k));
        let size = index.tier_size(k) as u64;
        if reusing && path.is_file() {
            if let Ok(t) = TierTable::open(&path, pits, rules, k, Check::Full) {
                let buf =
                    HugeBuf::copy_of(t.raw()).map_err(|e| TableError::io(&path, "allocate", e))?;
                let stats = TierStats {
                    tier: k,
                    boards: size,
                    seconds: t0.elapsed().as_secs_f64(),
                    reused: true,
                    path,
                };
                progress.tier_finished(&stats);
                report.tiers.push(stats);
                report.bytes += file_len(size);
                lower.push(buf);
                continue;
            }
        }
        reusing = false;
        progress.tier_started(k, size);
        let lower_values: Vec<&[AtomicI8]> = lower.iter_mut().map(|t| t.atomics()).collect();
        let values =
            pool.install(|| solve_tier(&game, &ranker, &index, k, &lower_values, progress, stop));
        let values = match values {
            Some(v) => v.map_err(|e| TableError::io(&path, "allocate", e))?,
            None => {
                return Err(TableError::Stopped {
                    dir: dir.to_path_buf(),
                    tier: k,
                })
            }
        };
        write_tier(&path, pits, rules, k, values.as_slice())?;
        let stats = TierStats {
            tier: k,
            boards: size,
            seconds: t0.elapsed().as_secs_f64(),
            reused: false,
            path,
        };
        progress.tier_finished(&stats);
        report.tiers.push(stats);
        report.built_boards += size;
        report.bytes += file_len(size);
        lower.push(values);
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Writes one tier file safely: temporary name, fsync, rename, directory sync.
fn write_tier(
    path: &Path,
    pits: usize,
    rules: Rules,
    tier: u32,
    values: &[u8],
) -> Result<(), TableError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let header = Header::new(pits, rules, tier, values.len() as u64).to_bytes();
    let trailer = trailer(&header, values);
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(&header)?;
        f.write_all(values)?;
        f.write_all(&trailer)?;
        f.sync_all()?;
        Ok(())
    };
    if let Err(e) = write() {
        let _ = fs::remove_file(&tmp);
        return Err(TableError::io(&tmp, "write", e));
    }
    fs::rename(&tmp, path).map_err(|e| TableError::io(path, "rename into place", e))?;
    if let Some(parent) = path.parent() {
        // Make the rename durable; not every platform can open a directory.
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Solves one tier of `M` pits a side.
struct TierSolver<'a, const M: usize> {
    game: &'a Game,
    ranker: &'a Ranker,
    tier: u32,
    /// `lower[t]`: the values of tier `t < tier`.
    lower: &'a [&'a [AtomicI8]],
    cur: &'a [AtomicI8],
}

/// All values of tier `k`, or `None` if stopped.
#[allow(clippy::too_many_arguments)]
fn solve_tier(
    game: &Game,
    ranker: &Ranker,
    index: &Index,
    k: u32,
    lower: &[&[AtomicI8]],
    progress: &dyn Progress,
    stop: &AtomicBool,
) -> Option<std::io::Result<HugeBuf>> {
    let size = index.tier_size(k) as usize;
    let mut buf = match HugeBuf::new(size, UNKNOWN as u8) {
        Ok(b) => b,
        Err(e) => return Some(Err(e)),
    };
    let cur = buf.atomics();
    macro_rules! run {
        ($m:literal) => {
            TierSolver::<$m> {
                game,
                ranker,
                tier: k,
                lower,
                cur,
            }
            .solve_all(index, progress, stop)
        };
    }
    match game.pits() {
        1 => run!(1),
        2 => run!(2),
        3 => run!(3),
        4 => run!(4),
        5 => run!(5),
        6 => run!(6),
        7 => run!(7),
        _ => run!(8),
    }
    if stop.load(Relaxed) {
        return None;
    }
    Some(Ok(buf))
}

impl<'a, const M: usize> TierSolver<'a, M> {
    fn solve_all(&self, index: &Index, progress: &dyn Progress, stop: &AtomicBool) {
        let size = self.cur.len();
        let chunks = size.div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each(|c| {
            if stop.load(Relaxed) {
                return;
            }
            let lo = c * CHUNK;
            let hi = (lo + CHUNK).min(size);
            self.solve_range(index, lo, hi);
            progress.advanced((hi - lo) as u64);
        });
    }

    /// Solves the boards of ranks `lo..hi`, [`BLOCK`] at a time: every
    /// child of the block is expanded and its entry prefetched before any
    /// value is read.
    fn solve_range(&self, index: &Index, lo: usize, hi: usize) {
        let mut kids = [Kid::default(); BLOCK * MAX_PITS];
        // Per board of the block: its rank and the end of its kids.
        let mut owners = [(0usize, 0usize); BLOCK];
        let mut board = index.unrank(self.tier, lo as u64);
        let mut rank = lo;
        while rank < hi {
            let (mut nk, mut nb) = (0, 0);
            let block_end = (rank + BLOCK).min(hi);
            while rank < block_end {
                let (b, r) = (board, rank);
                rank += 1;
                if rank < hi {
                    board = colex_next::<M>(board);
                }
                if self.cur[r].load(Relaxed) != UNKNOWN {
                    continue;
                }
                if let Some(v) = self.game.terminal_value(b) {
                    self.cur[r].store(v as i8, Relaxed);
                    continue;
                }
                nk += self.expand(b, &mut kids[nk..]);
                owners[nb] = (r, nk);
                nb += 1;
            }
            let mut start = 0;
            for &(r, end) in &owners[..nb] {
                // Solved meanwhile through another board's recursion: the
                // value would be the same.
                if self.cur[r].load(Relaxed) == UNKNOWN {
                    let v = self.resolve(&kids[start..end]);
                    self.cur[r].store(v as i8, Relaxed);
                }
                start = end;
            }
        }
    }

    /// Writes the children of the unfinished board `b` to `out`, prefetching
    /// their entries; returns how many. Finished children are looked up like
    /// the others (every board of a tier has its entry).
    #[inline]
    fn expand(&self, b: Board, out: &mut [Kid<'a>]) -> usize {
        let mut n = 0;
        let mut moves = self.game.moves(b);
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let s = self.game.sow(b, house);
            let t = self.tier - s.gain as u32;
            let cells = if t < self.tier {
                self.lower[t as usize]
            } else {
                self.cur
            };
            let cell = &cells[self.ranker.rank_of::<M>(s.board) as usize];
            prefetch(cell as *const AtomicI8 as *const u8);
            out[n] = Kid {
                board: s.board,
                cell,
                base: s.gain as i32,
                sign: if s.extra_turn { 1 } else { -1 },
            };
            n += 1;
        }
        n
    }

    /// The best of the children `kids` of one board.
    #[inline]
    fn resolve(&self, kids: &[Kid]) -> i32 {
        let mut best = i32::MIN;
        for k in kids {
            let mut cv = k.cell.load(Relaxed);
            if cv == UNKNOWN {
                // Only a board of this tier not solved yet (no stored value
                // is UNKNOWN).
                cv = match self.game.terminal_value(k.board) {
                    Some(v) => v as i8,
                    None => self.solve_board(k.board) as i8,
                };
                k.cell.store(cv, Relaxed);
            }
            best = best.max(k.base + k.sign * cv as i32);
        }
        best
    }

    /// The value of an unfinished board of this tier.
    fn solve_board(&self, b: Board) -> i32 {
        let mut kids = [Kid::default(); MAX_PITS];
        let n = self.expand(b, &mut kids);
        self.resolve(&kids[..n])
    }
}

/// The board of the next rank in the same tier (`b` must not be the last
/// board of its tier): [`Index::tier_from`]'s colex successor, done on the
/// packed board. With parts `h_0 .. h_{2m-1}` (lanes `0..m`, then
/// `8..8+m`): the lowest part `h_{j+1} > 0` with `j + 1 >= 1` gives one seed
/// to `h_j`, which also collects all the seeds of `h_0 .. h_j`.
#[inline(always)]
fn colex_next<const M: usize>(b: Board) -> Board {
    const LOW_BYTES: u64 = 0x0101_0101_0101_0101;
    let bits = b.packed();
    let (own, opp) = (bits as u64, (bits >> 64) as u64);
    let own_rest = own & !0xFF;
    // Lane of the lowest non-empty part after part 0.
    let lane = if own_rest != 0 {
        own_rest.trailing_zeros() / 8
    } else {
        8 + opp.trailing_zeros() / 8
    };
    let below_mask = (1u128 << (8 * lane)) - 1;
    let below = bits & below_mask;
    let sum = (((below as u64).wrapping_mul(LOW_BYTES) >> 56)
        + (((below >> 64) as u64).wrapping_mul(LOW_BYTES) >> 56)) as u128;
    let prev = if lane == 8 { M as u32 - 1 } else { lane - 1 };
    let bits = (bits & !below_mask) - (1u128 << (8 * lane)) + ((sum + 1) << (8 * prev));
    Board::from_packed(bits)
}

/// Boards whose children are expanded together.
const BLOCK: usize = 64;

static ZERO: AtomicI8 = AtomicI8::new(0);

/// A child: its value for the parent is `base + sign * V(child)`, with
/// `V(child)` in `cell`.
#[derive(Clone, Copy)]
struct Kid<'a> {
    board: Board,
    cell: &'a AtomicI8,
    base: i32,
    sign: i32,
}

impl Default for Kid<'_> {
    fn default() -> Self {
        Kid {
            board: Board::EMPTY,
            cell: &ZERO,
            base: 0,
            sign: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_next_is_the_tier_order() {
        fn check<const M: usize>() {
            let index = Index::new(M);
            for k in [0u32, 1, 2, 3, 7, 9] {
                let mut it = index.tier_from(k, 0);
                let mut b = it.next().unwrap();
                for next in it {
                    b = colex_next::<M>(b);
                    assert_eq!(b, next, "m={M} k={k}");
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
        check::<4>();
        check::<5>();
        check::<6>();
        check::<7>();
        check::<8>();
    }
}

/// Asks for the cache line of `p` (a hint: no effect on results). Into L2
/// (T1): with L1 hints, the lines of a block and the rank table evict each
/// other (measured ~8% slower).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T1);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A byte buffer in anonymous memory, asking for transparent huge pages:
/// the tiers are read at random, and with 4 KiB pages nearly every read
/// would also miss the TLB.
struct HugeBuf {
    map: MmapMut,
    len: usize,
}

impl HugeBuf {
    /// `len` bytes, all `fill`.
    fn new(len: usize, fill: u8) -> std::io::Result<HugeBuf> {
        let mut map = MmapOptions::new().len(len.max(1)).map_anon()?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        if fill != 0 {
            map.fill(fill);
        }
        Ok(HugeBuf { map, len })
    }

    /// A copy of `bytes`.
    fn copy_of(bytes: &[u8]) -> std::io::Result<HugeBuf> {
        let mut b = HugeBuf::new(bytes.len(), 0)?;
        b.map[..bytes.len()].copy_from_slice(bytes);
        Ok(b)
    }

    fn as_slice(&self) -> &[u8] {
        &self.map[..self.len]
    }

    /// The bytes as atomics, for the threads solving the tier.
    fn atomics(&mut self) -> &[AtomicI8] {
        let p = self.map.as_mut_ptr();
        // SAFETY: AtomicI8 has the same size, alignment and bit validity as
        // u8; the pointer comes from an exclusive borrow that the returned
        // slice keeps alive, so all access goes through the atomics.
        unsafe { std::slice::from_raw_parts(p as *const AtomicI8, self.len) }
    }
}
