//! Table entries a search hands to other machines' tables.
//!
//! Searches on different machines cannot share one transposition table,
//! but they can hand each other the entries that save the most: those
//! whose subtree took many nodes. A search with a [`Publisher`] copies every
//! entry it stores with at least [`Publisher::min_work`] work (log2 of the
//! subtree's nodes, plus one) into the publisher's list; whoever drives
//! the machines takes the list ([`Publisher::take`]) and stores the
//! entries into the other machines' tables ([`crate::search::Solver::learn`]),
//! where they merge as any store does. An entry is a true bound of its
//! board's value whatever search stored it, so a table that takes in
//! another's entries stays exact (the same argument as for threads sharing
//! one table, see [`crate::search::tt`]); only which entries a table holds,
//! and so the nodes a search takes, changes.
//!
//! The higher [`Publisher::min_work`], the fewer entries qualify (a
//! subtree of `2^(min_work - 1)` nodes or more each), and the fewer each
//! other machine must store. The check on every store is one comparison;
//! an entry that qualifies is appended under a lock, which is not
//! contended when each search thread has a publisher of its own.

use std::sync::Mutex;

use super::tt::{Bound, NO_LOWER, NO_UPPER};

/// One stored entry, as the search stored it: replayed with
/// [`crate::search::TranspositionTable::store`]'s arguments, it merges into
/// another table exactly as it did into the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Published {
    /// The board's table key (the same for every solver of one game:
    /// [`crate::index::Index::key`]).
    pub key: u64,
    pub value: i32,
    pub bound: Bound,
    pub best_move: Option<u8>,
    pub work: u8,
}

impl Published {
    /// The entry as two words, for a message between machines:
    ///
    /// ```text
    /// word 0  the key
    /// word 1  bits  0..16  the value as i16
    ///         bits 16..18  the bound: 0 exact, 1 lower, 2 upper
    ///         bits 24..32  the best house plus one, 0 for none
    ///         bits 32..40  the work
    /// ```
    pub fn to_words(&self) -> [u64; 2] {
        let bound = match self.bound {
            Bound::Exact => 0u64,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let house = self.best_move.map_or(0, |h| u64::from(h) + 1);
        [
            self.key,
            u64::from(self.value as i16 as u16)
                | bound << 16
                | house << 24
                | u64::from(self.work) << 32,
        ]
    }

    /// The entry [`Published::to_words`] wrote; `None` for words it never
    /// writes (an unknown bound, bits set outside the fields, a value that
    /// is the table's mark of an unknown bound).
    pub fn from_words(w: [u64; 2]) -> Option<Published> {
        let bound = match (w[1] >> 16) & 0xFF {
            0 => Bound::Exact,
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => return None,
        };
        if w[1] >> 40 != 0 {
            return None;
        }
        let value = i32::from(w[1] as u16 as i16);
        if value == NO_LOWER || value == NO_UPPER {
            return None;
        }
        let house = ((w[1] >> 24) & 0xFF) as u8;
        Some(Published {
            key: w[0],
            value,
            bound,
            best_move: house.checked_sub(1),
            work: (w[1] >> 32) as u8,
        })
    }
}

/// The entries of high work that searches stored since the last
/// [`Publisher::take`].
#[derive(Debug)]
pub struct Publisher {
    min_work: u8,
    out: Mutex<Vec<Published>>,
}

impl Publisher {
    /// A publisher of the entries with at least `min_work` work.
    pub fn new(min_work: u8) -> Publisher {
        Publisher {
            min_work,
            out: Mutex::new(Vec::new()),
        }
    }

    /// The least work of an entry published.
    pub fn min_work(&self) -> u8 {
        self.min_work
    }

    /// Appends `entry` if its work is at least [`Publisher::min_work`].
    #[inline]
    pub(crate) fn offer(&self, entry: Published) {
        if entry.work >= self.min_work {
            self.lock().push(entry);
        }
    }

    /// The entries published since the last call, oldest first.
    pub fn take(&self) -> Vec<Published> {
        std::mem::take(&mut *self.lock())
    }

    /// The list; a search that panicked while appending left it whole
    /// (a push either happened or not), so a poisoned lock is taken as is.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Published>> {
        self.out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_entries_of_enough_work_are_published_and_taken_once() {
        let p = Publisher::new(10);
        let entry = |work| Published {
            key: 7,
            value: 3,
            bound: Bound::Lower,
            best_move: Some(2),
            work,
        };
        p.offer(entry(9));
        p.offer(entry(10));
        p.offer(entry(20));
        assert_eq!(p.take(), vec![entry(10), entry(20)]);
        assert!(p.take().is_empty());
    }

    #[test]
    fn an_entry_comes_back_from_its_words_and_bad_words_are_refused() {
        for (value, bound, best_move, work) in [
            (-72, Bound::Upper, None, 0),
            (0, Bound::Exact, Some(0), 1),
            (71, Bound::Lower, Some(5), 63),
            (-1, Bound::Lower, Some(254), 255),
        ] {
            let e = Published {
                key: u64::MAX - 3,
                value,
                bound,
                best_move,
                work,
            };
            assert_eq!(Published::from_words(e.to_words()), Some(e));
        }
        let w = Published {
            key: 1,
            value: 2,
            bound: Bound::Exact,
            best_move: None,
            work: 3,
        }
        .to_words();
        assert_eq!(Published::from_words([w[0], w[1] | 3 << 16]), None);
        assert_eq!(Published::from_words([w[0], w[1] | 1 << 40]), None);
        let unknown = |v: i16| (w[1] & !0xFFFF) | u64::from(v as u16);
        assert_eq!(Published::from_words([w[0], unknown(i16::MIN)]), None);
        assert_eq!(Published::from_words([w[0], unknown(i16::MAX)]), None);
    }
}
