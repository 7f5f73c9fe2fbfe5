//! Reading tier files: [`TierTable`] over any byte source, and [`Tables`], a
//! directory of tiers opened lazily, which implements [`Probe`].

use super::format::{check_file, file_name, Check, Expect, HEADER_LEN};
use super::{Ranker, TableError};
use crate::board::Board;
use crate::index::Index;
use crate::rules::Rules;
use crate::Probe;
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One checked tier file. `B` is the file image: a `Vec<u8>` in tests, a
/// [`Mmap`] in production.
#[derive(Debug)]
pub struct TierTable<B> {
    bytes: B,
    path: PathBuf,
    pits: usize,
    rules: Rules,
    tier: u32,
    count: u64,
}

impl<B: AsRef<[u8]>> TierTable<B> {
    /// Checks `bytes` as the file `path` of tier `tier` for `pits` and
    /// `rules` (see [`Check`]); never panics on any input.
    pub fn from_bytes(
        bytes: B,
        path: impl Into<PathBuf>,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<B>, TableError> {
        let path = path.into();
        if !(1..=crate::rules::MAX_PITS).contains(&pits) {
            return Err(TableError::Unsupported {
                reason: format!("{pits} pits a side"),
            });
        }
        let count = u64::try_from(Index::new(pits).tier_size(tier)).map_err(|_| {
            TableError::Unsupported {
                reason: format!("tier {tier} of {pits} pits is too large"),
            }
        })?;
        let expect = Expect {
            pits,
            rules,
            tier,
            count,
        };
        check_file(bytes.as_ref(), &path, &expect, check)?;
        Ok(TierTable {
            bytes,
            path,
            pits,
            rules,
            tier,
            count,
        })
    }

    /// The stored values, one byte (an `i8`) per board in rank order.
    #[inline]
    pub fn raw(&self) -> &[u8] {
        &self.bytes.as_ref()[HEADER_LEN..HEADER_LEN + self.count as usize]
    }

    /// The value of the board of rank `rank`, if the rank is in the tier.
    #[inline]
    pub fn value(&self, rank: u64) -> Option<i32> {
        self.raw().get(rank as usize).map(|&b| b as i8 as i32)
    }

    /// Boards in the tier.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Seeds on the board in this tier.
    pub fn tier(&self) -> u32 {
        self.tier
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The rule set.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Where the file came from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Maps the file at `path` read-only.
fn map_file(path: &Path) -> Result<Mmap, TableError> {
    let file = File::open(path).map_err(|e| TableError::io(path, "open", e))?;
    // SAFETY: the file is only read through the map; table files are never
    // modified in place (they are replaced by rename), so the mapped bytes
    // stay valid while the map lives.
    unsafe { Mmap::map(&file) }.map_err(|e| TableError::io(path, "map", e))
}

impl TierTable<Mmap> {
    /// Maps and checks the file at `path`.
    pub fn open(
        path: &Path,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<Mmap>, TableError> {
        TierTable::from_bytes(map_file(path)?, path, pits, rules, tier, check)
    }

    /// Reads the file at `path` into anonymous memory that asks for
    /// transparent huge pages, then checks it. A search probes tables at
    /// random, and with 4 KiB pages of a file map nearly every probe misses
    /// the TLB (expensive under virtualisation); huge pages make most probes
    /// a single cache miss. Costs the file's size in memory.
    pub fn load(
        path: &Path,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<Mmap>, TableError> {
        let source = map_file(path)?;
        if source.len() <= HEADER_LEN {
            // Too short to be a table: the checker says why.
            return TierTable::from_bytes(source, path, pits, rules, tier, check);
        }
        let mut copy = memmap2::MmapOptions::new()
            .len(source.len())
            .map_anon()
            .map_err(|e| TableError::io(path, "allocate", e))?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages the table works the same.
            let _ = copy.advise(memmap2::Advice::HugePage);
        }
        copy[..source.len()].copy_from_slice(&source);
        let map = copy
            .make_read_only()
            .map_err(|e| TableError::io(path, "protect", e))?;
        drop(source);
        TierTable::from_bytes(map, path, pits, rules, tier, check)
    }
}

/// A directory of tier files for one board size and rule set, opened lazily:
/// [`Tables::open`] only looks at which files exist; a tier is mapped and
/// checked (fully, by default: see [`Check`]) on first use.
pub struct Tables {
    dir: PathBuf,
    pits: usize,
    rules: Rules,
    max_seeds: u32,
    check: Check,
    /// Tiers are copied into huge-page memory instead of mapped.
    resident: bool,
    ranker: Ranker,
    tiers: Vec<OnceLock<Result<TierTable<Mmap>, TableError>>>,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables")
            .field("dir", &self.dir)
            .field("pits", &self.pits)
            .field("rules", &self.rules)
            .field("max_seeds", &self.max_seeds)
            .finish()
    }
}

impl Tables {
    /// Opens the tiers `0..=K` of `dir` for `pits` and `rules`, `K` being the
    /// largest with every file `0..=K` present. Fails if tier 0 is missing.
    pub fn open(dir: impl AsRef<Path>, pits: usize, rules: Rules) -> Result<Tables, TableError> {
        Tables::open_with(dir, pits, rules, None, Check::Full)
    }

    /// As [`Tables::open`], using at most `limit` seeds and checking files
    /// as `check` says when they are first used.
    pub fn open_with(
        dir: impl AsRef<Path>,
        pits: usize,
        rules: Rules,
        limit: Option<u32>,
        check: Check,
    ) -> Result<Tables, TableError> {
        let dir = dir.as_ref().to_path_buf();
        if !(1..=crate::rules::MAX_PITS).contains(&pits) {
            return Err(TableError::Unsupported {
                reason: format!("{pits} pits a side"),
            });
        }
        let limit = limit.unwrap_or(super::MAX_TIER).min(super::MAX_TIER);
        let mut present = 0u32;
        while present <= limit && dir.join(file_name(pits, rules, present)).is_file() {
            present += 1;
        }
        if present == 0 {
            return Err(TableError::Missing {
                path: dir.join(file_name(pits, rules, 0)),
            });
        }
        Ok(Tables {
            dir,
            pits,
            rules,
            max_seeds: present - 1,
            check,
            resident: false,
            ranker: Ranker::new(pits),
            tiers: (0..present).map(|_| OnceLock::new()).collect(),
        })
    }

    /// Load each tier into memory (huge pages) on first use instead of
    /// mapping its file: faster probes for a long search, at the cost of the
    /// tables' size in memory and a read of each file. See [`TierTable::load`].
    pub fn resident(mut self) -> Tables {
        self.resident = true;
        self
    }

    /// The file of tier `k`.
    pub fn path(&self, k: u32) -> PathBuf {
        self.dir.join(file_name(self.pits, self.rules, k))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The rule set.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Tier `k`, mapped and checked on first use; `None` above
    /// [`Probe::max_seeds`]. A failure is remembered and returned again.
    pub fn tier(&self, k: u32) -> Option<Result<&TierTable<Mmap>, &TableError>> {
        let cell = self.tiers.get(k as usize)?;
        let t = cell.get_or_init(|| {
            let open = if self.resident {
                TierTable::load
            } else {
                TierTable::open
            };
            open(&self.path(k), self.pits, self.rules, k, self.check)
        });
        Some(t.as_ref())
    }

    /// The value of `board`: `Ok(None)` when it holds more seeds than the
    /// tables cover (or seeds in houses a board of this size does not
    /// have), an error when its tier's file is unusable.
    pub fn try_probe(&self, board: Board) -> Result<Option<i32>, &TableError> {
        let lanes = (1u128 << (8 * self.pits)) - 1;
        if board.packed() & !(lanes | lanes << 64) != 0 {
            return Ok(None);
        }
        let k = board.seeds();
        match self.tier(k) {
            None => Ok(None),
            Some(t) => Ok(t?.value(self.ranker.rank(board))),
        }
    }
}

impl Probe for Tables {
    fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// `None` also when the board's tier file turns out unusable (the error
    /// is available from [`Tables::try_probe`] and [`Tables::tier`]): never
    /// a wrong value.
    fn probe(&self, board: Board) -> Option<i32> {
        self.try_probe(board).ok().flatten()
    }

    #[inline]
    fn prefetch(&self, board: Board) {
        let Some(Ok(t)) = self.tiers.get(board.seeds() as usize).and_then(|c| c.get()) else {
            return;
        };
        if let Some(byte) = t.raw().get(self.ranker.rank(board) as usize) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: prefetching is a hint and never faults; the pointer is
            // into the live tier.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(byte as *const u8 as *const i8, _MM_HINT_T0);
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = byte;
        }
    }
}
