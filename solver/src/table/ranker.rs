//! A faster form of [`Index::rank`](crate::index::Index::rank) for the table builder: the prefix sums
//! of both sides come from one multiplication each (bytes never carry, as a
//! board holds at most 255 seeds), then `2m - 1` look-ups in a flat table.
//! Same numbers as [`Index::rank`](crate::index::Index::rank) (tested).

use crate::board::Board;
use crate::index::{binomial, tier_size};
use crate::rules::{MAX_PITS, MAX_SEEDS};

const LOW_BYTES: u64 = 0x0101_0101_0101_0101;
const ROW: usize = MAX_SEEDS + 1;

/// Rank of boards within their tier; see the module documentation.
#[derive(Clone)]
pub struct Ranker {
    pits: usize,
    /// `table[j][s] = C(s + j, j + 1)`, saturated, for parts `j < 2m - 1`.
    table: Box<[[u64; ROW]; 2 * MAX_PITS - 1]>,
}

impl std::fmt::Debug for Ranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranker").field("pits", &self.pits).finish()
    }
}

impl Ranker {
    /// # Panics
    /// If `pits` is 0 or more than [`MAX_PITS`].
    pub fn new(pits: usize) -> Ranker {
        assert!((1..=MAX_PITS).contains(&pits), "pits must be 1..=8");
        let mut table = Box::new([[0u64; ROW]; 2 * MAX_PITS - 1]);
        for (j, row) in table.iter_mut().enumerate() {
            for (s, cell) in row.iter_mut().enumerate() {
                let c = binomial((s + j) as u64, (j + 1) as u64);
                *cell = u64::try_from(c).unwrap_or(u64::MAX);
            }
        }
        Ranker { pits, table }
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The rank of `board` in its tier, equal to [`Index::rank`](crate::index::Index::rank).
    #[inline]
    pub fn rank(&self, board: Board) -> u64 {
        match self.pits {
            1 => self.rank_of::<1>(board),
            2 => self.rank_of::<2>(board),
            3 => self.rank_of::<3>(board),
            4 => self.rank_of::<4>(board),
            5 => self.rank_of::<5>(board),
            6 => self.rank_of::<6>(board),
            7 => self.rank_of::<7>(board),
            _ => self.rank_of::<8>(board),
        }
    }

    /// [`Ranker::rank`] for a ranker of `M` pits (`M` must be
    /// [`Ranker::pits`]; other values give other numbers, never a panic).
    #[inline(always)]
    pub fn rank_of<const M: usize>(&self, board: Board) -> u64 {
        let bits = board.packed();
        let own = bits as u64;
        let below = own.wrapping_mul(LOW_BYTES) >> 56;
        self.own_part::<M>(own)
            .wrapping_add(self.opp_part::<M>(below, (bits >> 64) as u64))
    }

    /// The share of the mover's side (lanes of `own`) in the rank: with
    /// `below` the seeds of that side, `rank_of(b) = own_part(own) +
    /// opp_part(below, opp)`. It depends on the side alone, so a builder
    /// walking many boards with one side can compute it once.
    #[inline(always)]
    pub fn own_part<const M: usize>(&self, own: u64) -> u64 {
        let sums = own.wrapping_mul(LOW_BYTES);
        let t = &*self.table;
        let mut r = 0u64;
        for (j, row) in t.iter().enumerate().take(M) {
            r = r.wrapping_add(row[((sums >> (8 * j)) & 0xFF) as usize]);
        }
        r
    }

    /// The share of the opponent's side (lanes of `opp`) in the rank, for a
    /// mover's side of `below` seeds; see [`Ranker::own_part`].
    #[inline(always)]
    pub fn opp_part<const M: usize>(&self, below: u64, opp: u64) -> u64 {
        let sums = opp
            .wrapping_mul(LOW_BYTES)
            .wrapping_add(below.wrapping_mul(LOW_BYTES));
        let t = &*self.table;
        let mut r = 0u64;
        for j in 0..M - 1 {
            r = r.wrapping_add(t[M + j][((sums >> (8 * j)) & 0xFF) as usize]);
        }
        r
    }

    /// Number of boards of tier `k`, if it fits in a `usize`.
    pub fn tier_len(&self, k: u32) -> Option<usize> {
        usize::try_from(tier_size(self.pits, k)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Index;

    #[test]
    fn same_as_index_rank() {
        for m in 1..=MAX_PITS {
            let index = Index::new(m);
            let ranker = Ranker::new(m);
            for k in [0u32, 1, 2, 5, 9, 30, 255] {
                let size = index.tier_size(k);
                if size > u64::MAX as u128 / 4 {
                    continue;
                }
                let step = (size / 2000).max(1) as u64;
                let mut r = 0u64;
                while (r as u128) < size && r < u64::MAX / 2 {
                    let b = index.unrank(k, r);
                    assert_eq!(ranker.rank(b), index.rank(b), "m={m} k={k} r={r}");
                    r = r.saturating_add(step);
                }
            }
        }
    }
}
