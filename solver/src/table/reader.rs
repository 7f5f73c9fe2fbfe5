//! Reading tier files: [`TierTable`] over any byte source, and [`Tables`], a
//! directory of tiers opened lazily, which implements [`Probe`].
//!
//! # Contract with the other users of the files (mapped files)
//!
//! A tier file is memory-mapped. Once a reader has mapped it, nobody may
//! truncate it or write into it: the reader would see other values, or be
//! killed by SIGBUS when it touches a page past a new end. This program's
//! writers never do that: a file is written under a temporary name and
//! renamed into place, and a rebuild replaces a file by renaming a new one
//! over it, which leaves every existing map on the old file (its inode
//! lives until the last map goes). Deleting a file is safe for the same
//! reason. Other programs must follow the same rule: copy tables by writing
//! elsewhere and renaming, never with `cp` over a file that a `kalah`
//! process may have open, never `truncate` or edit one in place (see
//! [`platform::map_read_only`]). A file of another length than its tier's
//! is refused when it is opened, before any value is read; one that
//! shrinks after that cannot be detected.
//!
//! # No value from unchecked bytes
//!
//! A [`TierTable`] exists only for bytes whose header, length, end marker
//! and whole-file checksum passed (the checksum perhaps on an earlier open
//! of the same file, see [`Check`]); every value anyone reads from the
//! tables comes from one.

use super::compact::Compact;
use super::format::{check_file, file_name, stored_checksum, Check, Expect, Layout};
use super::stamp::{self, FileId};
use super::{Ranker, TableError};
use crate::board::Board;
use crate::index::tier_size;
use crate::platform::{self, Locality};
use crate::rules::Rules;
use crate::Probe;
use memmap2::Mmap;
use rayon::prelude::*;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

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
    layout: Layout,
}

/// What a tier file of `pits` and tier `tier` must be.
fn expect(pits: usize, rules: Rules, tier: u32) -> Result<Expect, TableError> {
    if !(1..=crate::rules::MAX_PITS).contains(&pits) {
        return Err(TableError::Unsupported {
            reason: format!("{pits} pits a side"),
        });
    }
    let count = u64::try_from(tier_size(pits, tier)).map_err(|_| TableError::Unsupported {
        reason: format!("tier {tier} of {pits} pits is too large"),
    })?;
    Ok(Expect {
        pits,
        rules,
        tier,
        count,
    })
}

/// Checks the image `bytes` of the file `path` (see [`Check`]), `id` being
/// the identity the file had when it was opened, before any of its bytes
/// were read (`None`: no identity, no stamp: the checksum is computed).
fn check_image(
    bytes: &[u8],
    path: &Path,
    expect: &Expect,
    check: Check,
    id: Option<FileId>,
) -> Result<Layout, TableError> {
    let Some(id) = id else {
        return check_file(bytes, path, expect, true);
    };
    if check == Check::Remembered {
        let layout = check_file(bytes, path, expect, false)?;
        if stamp::is_trusted(path, &id, stored_checksum(bytes)) {
            return Ok(layout);
        }
    }
    let layout = check_file(bytes, path, expect, true)?;
    // A file changed moments ago may still have pages a writer can change
    // unseen (see the stamp module): checked in full until it settles.
    if stamp::is_settled(&id) {
        stamp::record(path, &id, stored_checksum(bytes));
    }
    Ok(layout)
}

impl<B: AsRef<[u8]>> TierTable<B> {
    /// Checks `bytes` as the file `path` of tier `tier` for `pits` and
    /// `rules`: header, length, end marker and the checksum of the whole
    /// image (an image has no file identity, so no stamp can stand in for
    /// the checksum, whatever `check` says); never panics on any input.
    pub fn from_bytes(
        bytes: B,
        path: impl Into<PathBuf>,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<B>, TableError> {
        TierTable::checked(bytes, path.into(), pits, rules, tier, check, None)
    }

    /// [`TierTable::from_bytes`] for the image of a file that had identity
    /// `id` when opened.
    fn checked(
        bytes: B,
        path: PathBuf,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
        id: Option<FileId>,
    ) -> Result<TierTable<B>, TableError> {
        let expect = expect(pits, rules, tier)?;
        let layout = check_image(bytes.as_ref(), &path, &expect, check, id)?;
        Ok(TierTable {
            bytes,
            path,
            pits,
            rules,
            tier,
            count: expect.count,
            layout,
        })
    }

    /// The encoded values (see `super::compact`).
    #[inline]
    pub fn compact(&self) -> Compact<'_> {
        let bytes = self.bytes.as_ref();
        Compact {
            index: &bytes[self.layout.index.clone()],
            data: &bytes[self.layout.data.clone()],
            tier: self.tier,
            halved: self.layout.halved,
            count: self.count,
        }
    }

    /// The value of the board of rank `rank`, if the rank is in the tier
    /// (and, in a forged file whose checksum passes, where its encoding is
    /// valid).
    #[inline]
    pub fn value(&self, rank: u64) -> Option<i32> {
        self.compact().get(rank).map(i32::from)
    }

    /// Every value in rank order, decoded (in parallel on the current rayon
    /// pool) into `out`, `count` long.
    ///
    /// # Errors
    /// [`TableError::BadHeader`] naming the file if the stream is not a
    /// valid encoding (only a forged file whose checksum passes).
    pub fn decode_all(&self, out: &mut [i8]) -> Result<(), TableError> {
        self.compact()
            .decode_all(out)
            .ok_or_else(|| TableError::BadHeader {
                path: self.path.clone(),
                reason: "the value stream is not a valid encoding".into(),
            })
    }

    /// The whole file image.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
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

/// Maps the file at `path` read-only; also returns its identity, read
/// from the open file before the map (so that it is the identity of the
/// bytes mapped).
fn map_file(path: &Path) -> Result<(Mmap, Option<FileId>), TableError> {
    let file = File::open(path).map_err(|e| TableError::io(path, "open", e))?;
    let id = file.metadata().ok().and_then(|m| FileId::of(&m));
    // SAFETY: a table file, once in place, is never written again: every
    // writer (this crate's builder) writes a temporary file and renames it
    // over the old one, which leaves this map on the old file; the module's
    // contract (above) asks the same of other programs.
    let map =
        unsafe { platform::map_read_only(&file) }.map_err(|e| TableError::io(path, "map", e))?;
    Ok((map, id))
}

impl TierTable<Mmap> {
    /// Maps and checks the file at `path` (see [`Check`]).
    ///
    /// # Contract
    /// The map stays valid only while nobody truncates the file or writes
    /// into it (see the module documentation): a truncation under a live
    /// map kills the process with SIGBUS when it touches the lost pages.
    /// Replace table files by renaming a new file over them, as the
    /// builder does.
    pub fn open(
        path: &Path,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<Mmap>, TableError> {
        let (map, id) = map_file(path)?;
        TierTable::checked(map, path.to_path_buf(), pits, rules, tier, check, id)
    }

    /// Reads the file at `path` into anonymous memory that asks for
    /// transparent huge pages, after checking it (see [`Check`]). A search
    /// probes tables at random, and with 4 KiB pages of a file map nearly
    /// every probe misses the TLB (expensive under virtualisation); huge
    /// pages make most probes a single cache miss. Costs the file's size in
    /// memory. The same contract as [`TierTable::open`] holds while the
    /// file is being read.
    pub fn load(
        path: &Path,
        pits: usize,
        rules: Rules,
        tier: u32,
        check: Check,
    ) -> Result<TierTable<Mmap>, TableError> {
        let (source, id) = map_file(path)?;
        let source = TierTable::checked(source, path.to_path_buf(), pits, rules, tier, check, id)?;
        let map = platform::read_only_copy(source.bytes.as_ref())
            .map_err(|e| TableError::io(path, "allocate", e))?;
        Ok(TierTable {
            bytes: map,
            path: source.path,
            pits,
            rules,
            tier,
            count: source.count,
            layout: source.layout,
        })
    }
}

/// One tier of [`Tables`]: the table once opened, or the last failure.
#[derive(Default)]
struct Slot {
    table: OnceLock<TierTable<Mmap>>,
    /// The last failure to open the tier, and the identity its file had
    /// before that attempt (`None`: none, e.g. no such file). It is
    /// returned again as long as the file keeps that identity: a damaged
    /// file is not read again and again, and one replaced (a rebuild) is
    /// tried again.
    failure: Mutex<Option<(Option<FileId>, TableError)>>,
}

/// A directory of tier files for one board size and rule set, opened lazily:
/// [`Tables::open`] only looks at which files exist; a tier is mapped and
/// checked (see [`Check`]) on first use, or by [`Tables::open_all`].
///
/// # Contract
/// As for [`TierTable::open`]: nobody may truncate or write into a table
/// file while a `Tables` may have it mapped; files are replaced by rename.
/// A probe of a tier whose file turns out unusable gives no value (see
/// [`Tables::probe`](Probe::probe)); a search must therefore open every
/// tier it may probe first, with [`Tables::open_all`], and fail on an
/// error there rather than search on without a tier.
pub struct Tables {
    dir: PathBuf,
    pits: usize,
    rules: Rules,
    max_seeds: u32,
    check: Check,
    /// Tiers are copied into huge-page memory instead of mapped.
    resident: bool,
    ranker: Ranker,
    tiers: Vec<Slot>,
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
    /// Each file's checksum is checked once ([`Check::Remembered`]).
    ///
    /// # Contract
    /// Tier files are memory-mapped when first used (unless
    /// [`Tables::resident`]): while these tables live, nobody may write
    /// into or truncate a file of `dir`, or the process may read other
    /// values or die of SIGBUS (see the module documentation). Replacing a
    /// file by a rename, or deleting it, is safe.
    pub fn open(dir: impl AsRef<Path>, pits: usize, rules: Rules) -> Result<Tables, TableError> {
        Tables::open_with(dir, pits, rules, None, Check::Remembered)
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
        let present = present_tiers(&dir, pits, rules, limit);
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
            tiers: (0..present).map(|_| Slot::default()).collect(),
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
    /// [`Probe::max_seeds`]. A failure is returned again on later calls as
    /// long as the file is the same (same identity); a file replaced since
    /// (a rebuild) is opened again.
    pub fn tier(&self, k: u32) -> Option<Result<&TierTable<Mmap>, TableError>> {
        let slot = self.tiers.get(k as usize)?;
        if let Some(t) = slot.table.get() {
            return Some(Ok(t));
        }
        // One thread opens (and perhaps checksums) a file at a time; the
        // others wait for its result.
        let mut failure = slot.failure.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(t) = slot.table.get() {
            return Some(Ok(t));
        }
        let path = self.path(k);
        let before = FileId::at(&path);
        if let Some((id, e)) = &*failure {
            if *id == before {
                return Some(Err(e.clone()));
            }
        }
        let open = if self.resident {
            TierTable::load
        } else {
            TierTable::open
        };
        match open(&path, self.pits, self.rules, k, self.check) {
            Ok(t) => {
                *failure = None;
                Some(Ok(slot.table.get_or_init(|| t)))
            }
            Err(e) => {
                *failure = Some((before, e.clone()));
                Some(Err(e))
            }
        }
    }

    /// Opens and checks every tier now (in parallel), so that no probe can
    /// meet an unusable file later: what a search must do before it starts.
    ///
    /// # Errors
    /// The failure of the lowest tier that cannot be used.
    pub fn open_all(&self) -> Result<(), TableError> {
        let failures: Vec<(u32, TableError)> = (0..=self.max_seeds)
            .into_par_iter()
            .filter_map(|k| match self.tier(k) {
                Some(Err(e)) => Some((k, e)),
                _ => None,
            })
            .collect();
        match failures.into_iter().min_by_key(|(k, _)| *k) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// The value of `board`: `Ok(None)` when it holds more seeds than the
    /// tables cover (or seeds in houses a board of this size does not
    /// have), an error when its tier's file is unusable.
    pub fn try_probe(&self, board: Board) -> Result<Option<i32>, TableError> {
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

/// The number of tiers `0..N` of `pits` and `rules` whose files are all in
/// `dir`, up to `limit` seeds (and [`super::MAX_TIER`]).
pub(crate) fn present_tiers(dir: &Path, pits: usize, rules: Rules, limit: Option<u32>) -> u32 {
    let limit = limit.unwrap_or(super::MAX_TIER).min(super::MAX_TIER);
    let mut present = 0u32;
    while present <= limit && dir.join(file_name(pits, rules, present)).is_file() {
        present += 1;
    }
    present
}

impl Probe for Tables {
    fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// `None` also when the board's tier file turns out unusable (the error
    /// is available from [`Tables::try_probe`] and [`Tables::tier`]): never
    /// a wrong value. A search opens every tier first
    /// ([`Tables::open_all`]), so that this cannot happen during it.
    fn probe(&self, board: Board) -> Option<i32> {
        self.try_probe(board).ok().flatten()
    }

    #[inline]
    fn prefetch(&self, board: Board) {
        let Some(t) = self
            .tiers
            .get(board.seeds() as usize)
            .and_then(|c| c.table.get())
        else {
            return;
        };
        if let Some(entry) = t.compact().entry_of(self.ranker.rank(board)) {
            platform::prefetch(entry, Locality::L1);
        }
    }
}
