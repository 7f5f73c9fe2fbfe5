//! The transposition table: typed bounds on board values, shared lock-free
//! between threads.
//!
//! # What an entry says
//!
//! An entry holds the full [`Index::key`](crate::Index::key) of a board and
//! an interval `[lower, upper]` that contains the board's exact value (net
//! future store gain of the mover, stores excluded). A board's value depends
//! only on the board, never on the window or the stores of the search that
//! found it, so every bound ever stored is a true fact about that board and
//! bounds from different searches can be merged by intersection. The
//! interval reads as a [`Bound`]: `Exact` when `lower == upper`, `Lower` or
//! `Upper` when one side is open.
//!
//! # Layout and lock-free access
//!
//! Buckets of [`SLOTS`] slots, 64 bytes: one cache line, read by one
//! memory access (a bucket starts at a multiple of 64 in the table's
//! memory, which starts on a page). A slot is two
//! `AtomicU64`s: `check = key ^ data` and `data`. A reader accepts a slot only
//! when `check ^ data == key`, the data has its valid bit, and the data's
//! 11-bit key hash agrees, so an entry torn by two threads writing at once
//! (Hyatt & Mann's lock-less scheme) is rejected rather than misread; a
//! torn pair that passes would need two independent coincidences.
//!
//! ```text
//! data bits  0..15  lower (i16)         16..31 upper (i16)
//!           32..35  best house + 1 (0 = none)
//!           36..43  work: log2 of the nodes the search under it took
//!           44..51  generation of the search that wrote it
//!           52..62  hash of the key (11 bits)     63  valid
//! ```
//!
//! # Replacement
//!
//! An entry for a key already present is merged into its own slot. A new
//! key always goes in, into the bucket's least valuable slot: an empty one,
//! else one from an older generation (a finished search), else the one
//! whose search took the fewest nodes. The entries that cost the most work
//! of the current search thus stay, and each bucket still takes every new
//! entry, as an always-replace slot would.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use crate::platform::{prefetch, AnonArray, Locality};

/// Which side of a board's value a search result bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value itself.
    Exact,
    /// The value is at least this.
    Lower,
    /// The value is at most this.
    Upper,
}

/// What the table knows about a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// The value is at least this (`i32::from(i16::MIN)` when unknown).
    pub lower: i32,
    /// The value is at most this (`i32::from(i16::MAX)` when unknown).
    pub upper: i32,
    /// The house (0-based) that produced the best result.
    pub best_move: Option<u8>,
    /// log2 of the nodes the search that stored it took (plus one).
    pub work: u8,
}

/// Unknown lower bound.
pub const NO_LOWER: i32 = i16::MIN as i32;
/// Unknown upper bound.
pub const NO_UPPER: i32 = i16::MAX as i32;

impl TtEntry {
    /// The bound this entry gives, as a typed value: `Exact` when both
    /// sides meet, otherwise the tighter-known side (`Lower` first).
    /// `None` for an entry that bounds nothing.
    pub fn bound(&self) -> Option<(Bound, i32)> {
        if self.lower == self.upper {
            Some((Bound::Exact, self.lower))
        } else if self.lower != NO_LOWER {
            Some((Bound::Lower, self.lower))
        } else if self.upper != NO_UPPER {
            Some((Bound::Upper, self.upper))
        } else {
            None
        }
    }
}

const VALID: u64 = 1 << 63;
const HASH_SHIFT: u32 = 52;
const HASH_MASK: u64 = 0x7FF;

#[inline]
fn mix(key: u64) -> u64 {
    // A multiplicative mix: dense keys spread over all buckets.
    (key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline]
fn key_hash(key: u64) -> u64 {
    (mix(key) >> 20) & HASH_MASK
}

#[inline]
fn encode(key: u64, e: &TtEntry, generation: u8) -> u64 {
    (e.lower as i16 as u16 as u64)
        | ((e.upper as i16 as u16 as u64) << 16)
        | ((e.best_move.map_or(0, |m| m as u64 + 1) & 0xF) << 32)
        | ((e.work as u64) << 36)
        | ((generation as u64) << 44)
        | (key_hash(key) << HASH_SHIFT)
        | VALID
}

#[inline]
fn decode(data: u64) -> TtEntry {
    let mv = ((data >> 32) & 0xF) as u8;
    TtEntry {
        lower: data as u16 as i16 as i32,
        upper: (data >> 16) as u16 as i16 as i32,
        best_move: mv.checked_sub(1),
        work: (data >> 36) as u8,
    }
}

#[inline]
fn generation_of(data: u64) -> u8 {
    (data >> 44) as u8
}

/// Slots a bucket.
pub const SLOTS: usize = 4;

/// `[check0, data0, check1, data1, ..]`: 64 bytes, at a multiple of 64 in
/// the table's memory (an [`AnonArray`] starts on a page): one cache line.
type Bucket = [AtomicU64; 2 * SLOTS];

/// A fixed-size, lock-free transposition table keyed by exact board keys.
///
/// The memory is an anonymous mapping (zero pages, so a fresh table costs
/// nothing until touched) with transparent huge pages requested on Linux:
/// a probe is a random access into a large table, and with 4 KiB pages most
/// probes would also miss the TLB.
pub struct TranspositionTable {
    memory: AnonArray<Bucket>,
    generation: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("buckets", &self.memory.len())
            .finish()
    }
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least one bucket).
    ///
    /// # Errors
    /// If the memory cannot be mapped.
    pub fn new(megabytes: usize) -> std::io::Result<TranspositionTable> {
        let len = (megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        let memory = AnonArray::zeroed(len)?;
        Ok(TranspositionTable {
            memory,
            generation: AtomicU8::new(0),
        })
    }

    #[inline]
    fn buckets(&self) -> &[Bucket] {
        self.memory.as_slice()
    }

    /// Number of slots ([`SLOTS`] a bucket).
    pub fn slots(&self) -> usize {
        SLOTS * self.memory.len()
    }

    /// Starts a new generation: older entries are replaced before any of
    /// the new one, whatever their work (they stay readable).
    pub fn new_generation(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for b in self.buckets() {
            for w in b {
                w.store(0, Relaxed);
            }
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Fast range reduction of the mixed key onto the bucket count.
        let i = ((mix(key) as u128 * self.memory.len() as u128) >> 64) as usize;
        &self.buckets()[i]
    }

    /// Prefetches the bucket of `key` (a hint; no effect on results).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.bucket(key), Locality::L1);
    }

    #[inline]
    fn read_slot(b: &Bucket, slot: usize, key: u64) -> Option<u64> {
        let check = b[2 * slot].load(Relaxed);
        let data = b[2 * slot + 1].load(Relaxed);
        (data & VALID != 0
            && check ^ data == key
            && (data >> HASH_SHIFT) & HASH_MASK == key_hash(key))
        .then_some(data)
    }

    #[inline]
    fn write_slot(b: &Bucket, slot: usize, key: u64, data: u64) {
        b[2 * slot + 1].store(data, Relaxed);
        b[2 * slot].store(key ^ data, Relaxed);
    }

    /// What the table knows about the board with key `key`.
    #[inline]
    pub fn load(&self, key: u64) -> Option<TtEntry> {
        let b = self.bucket(key);
        (0..SLOTS)
            .find_map(|s| Self::read_slot(b, s, key))
            .map(decode)
    }

    /// Records that the value of the board with key `key` is `bound`-bounded
    /// by `value`, with the best house found and the work it took. Merges
    /// with what the table already holds for that key.
    #[inline]
    pub fn store(&self, key: u64, value: i32, bound: Bound, best_move: Option<u8>, work: u8) {
        debug_assert!((NO_LOWER + 1..NO_UPPER).contains(&value));
        let (lower, upper) = match bound {
            Bound::Exact => (value, value),
            Bound::Lower => (value, NO_UPPER),
            Bound::Upper => (NO_LOWER, value),
        };
        let mut new = TtEntry {
            lower,
            upper,
            best_move,
            work,
        };
        let generation = self.generation.load(Relaxed);
        let b = self.bucket(key);
        for slot in 0..SLOTS {
            if let Some(data) = Self::read_slot(b, slot, key) {
                let old = decode(data);
                let (lo, hi) = (old.lower.max(new.lower), old.upper.min(new.upper));
                // Both are true bounds of one value, so they overlap; a
                // clash can only come from a torn read, and then the new
                // result wins.
                if lo <= hi {
                    new.lower = lo;
                    new.upper = hi;
                }
                new.work = new.work.max(old.work);
                if new.best_move.is_none() {
                    new.best_move = old.best_move;
                }
                Self::write_slot(b, slot, key, encode(key, &new, generation));
                return;
            }
        }
        // The least valuable slot: empty (-1), else from an older
        // generation (its work), else from this one (256 + its work).
        let value = |slot: usize| {
            let data = b[2 * slot + 1].load(Relaxed);
            if data & VALID == 0 {
                -1
            } else if generation_of(data) != generation {
                i32::from(decode(data).work)
            } else {
                256 + i32::from(decode(data).work)
            }
        };
        let victim = (1..SLOTS).fold(0, |v, s| if value(s) < value(v) { s } else { v });
        Self::write_slot(b, victim, key, encode(key, &new, generation));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_merge_into_exact_and_keys_are_verified() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.load(12345), None);
        tt.store(12345, 4, Bound::Lower, Some(2), 3);
        let e = tt.load(12345).unwrap();
        assert_eq!(e.bound(), Some((Bound::Lower, 4)));
        assert_eq!(e.best_move, Some(2));
        tt.store(12345, 4, Bound::Upper, None, 1);
        let e = tt.load(12345).unwrap();
        assert_eq!(e.bound(), Some((Bound::Exact, 4)));
        assert_eq!(e.best_move, Some(2), "a store without a move keeps the old");
        assert_eq!(e.work, 3);
        // Negative values and an empty key survive the packing.
        tt.store(0, -17, Bound::Upper, Some(0), 0);
        assert_eq!(tt.load(0).unwrap().bound(), Some((Bound::Upper, -17)));
        assert_eq!(tt.load(0).unwrap().best_move, Some(0));
    }

    #[test]
    fn a_one_bucket_table_keeps_the_most_work_and_the_latest() {
        // One bucket: every key collides, and a wrong key must never load.
        let tt = TranspositionTable::new(0).unwrap();
        assert_eq!(tt.slots(), SLOTS);
        assert_eq!(SLOTS, 4);
        for (key, work) in [(1, 20), (2, 5), (3, 9), (4, 7)] {
            tt.store(key, key as i32, Bound::Exact, None, work);
        }
        // Full: a new key replaces the least work (key 2), then the next.
        tt.store(5, 5, Bound::Exact, None, 0);
        assert_eq!(tt.load(2), None, "least work replaced");
        tt.store(6, 6, Bound::Exact, None, 30);
        assert_eq!(tt.load(5), None, "least work replaced, new or not");
        for key in [1, 3, 4, 6] {
            assert_eq!(tt.load(key).map(|e| e.lower), Some(key as i32));
        }
        for k in 7..1000 {
            assert_eq!(tt.load(k), None);
        }
        // A new generation makes the heavy entries replaceable, the one
        // of least work first.
        tt.new_generation();
        tt.store(7, -7, Bound::Lower, None, 0);
        assert_eq!(tt.load(4), None);
        assert_eq!(tt.load(7).map(|e| e.lower), Some(-7));
        tt.store(8, 8, Bound::Exact, None, 0);
        assert_eq!(tt.load(3), None);
        assert_eq!(tt.load(6).map(|e| e.lower), Some(6));
    }
}
