//! The perfect index of boards: a frozen contract between positions and
//! table slots.
//!
//! # The contract
//!
//! A board of `m` pits is read as the sequence of its `2m` houses in the
//! order `h_0 .. h_{2m-1}` = the mover's houses 1..m, then the opponent's
//! houses 1..m. With prefix sums `s_j = h_0 + .. + h_j`, the numbers
//! `b_j = s_j + j` are strictly increasing, so a board is a `2m`-subset of
//! the naturals and has a colex rank in the combinatorial number system:
//!
//! ```text
//! key(h)  = sum_{j=0}^{2m-1} C(s_j + j, j + 1)
//! rank(h) = sum_{j=0}^{2m-2} C(s_j + j, j + 1)       (tier rank)
//! ```
//!
//! * `key` is a bijection between boards with at most `K` seeds and
//!   `0 .. C(K + 2m, 2m)`: an exact, dense key (no collisions, nothing lost).
//!   For `m = 6` and 72 seeds the largest key is below 2^47.
//! * `rank` is a bijection between the boards with exactly `k` seeds (tier
//!   `k`) and `0 .. size(m, k)`, with
//!   `size(m, k) = C(k + 2m - 1, 2m - 1)`: every composition of `k` into
//!   `2m` houses, boards with an empty side included (they are finished
//!   games under the standard end rule but not under the delayed one, and
//!   keeping them costs `2 C(k+m-1, m-1)` slots, under 0.1% at k = 20).
//!   `key(h) = C(k + 2m - 1, 2m) + rank(h)`: tier `k` follows all boards
//!   with fewer seeds.
//!
//! Both cost `2m` table look-ups and adds. This order is frozen: table files
//! store values in rank order, and changing it changes every file.

use crate::board::{Board, OPP};
use crate::rules::{MAX_PITS, MAX_SEEDS};

const PARTS_MAX: usize = 2 * MAX_PITS;

/// Number of boards of `pits` houses a side (at least 1) with exactly `k`
/// seeds: `C(k + 2m - 1, 2m - 1)`, saturating at `u128::MAX`. What
/// [`Index::tier_size`] gives, without building an index's tables.
pub fn tier_size(pits: usize, k: u32) -> u128 {
    let parts = 2 * pits as u64;
    binomial(k as u64 + parts - 1, parts - 1)
}

/// `C(n, k)` in `u128`, saturating at `u128::MAX`.
pub fn binomial(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        // r * (n - i) / (i + 1) is exact at every step.
        r = match r.checked_mul((n - i) as u128) {
            Some(x) => x / (i as u128 + 1),
            None => return u128::MAX,
        };
    }
    r
}

/// Rank and unrank for one board size.
#[derive(Clone)]
pub struct Index {
    pits: usize,
    /// `table[j][s] = C(s + j, j + 1)`, saturated to `u64::MAX`.
    table: Box<[[u64; MAX_SEEDS + 1]; PARTS_MAX]>,
    /// Largest seed count whose keys all fit in a `u64`.
    key_seeds: u32,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("pits", &self.pits).finish()
    }
}

/// Lane of part `j` of the composition.
#[inline]
fn lane(pits: usize, j: usize) -> usize {
    if j < pits {
        j
    } else {
        OPP + j - pits
    }
}

impl Index {
    /// The index for boards of `pits` houses a side.
    ///
    /// # Panics
    /// If `pits` is 0 or more than [`MAX_PITS`].
    pub fn new(pits: usize) -> Index {
        assert!((1..=MAX_PITS).contains(&pits), "pits must be 1..=8");
        let mut table = Box::new([[0u64; MAX_SEEDS + 1]; PARTS_MAX]);
        for (j, row) in table.iter_mut().enumerate() {
            for (s, cell) in row.iter_mut().enumerate() {
                let c = binomial((s + j) as u64, (j + 1) as u64);
                *cell = u64::try_from(c).unwrap_or(u64::MAX);
            }
        }
        let parts = 2 * pits as u64;
        let key_seeds = (0..=MAX_SEEDS as u64)
            .take_while(|&k| binomial(k + parts, parts) <= u64::MAX as u128)
            .last()
            .unwrap_or(0) as u32;
        Index {
            pits,
            table,
            key_seeds,
        }
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// Number of boards with exactly `k` seeds: `C(k + 2m - 1, 2m - 1)`.
    /// Saturates at `u128::MAX`.
    pub fn tier_size(&self, k: u32) -> u128 {
        tier_size(self.pits, k)
    }

    /// Number of boards with at most `k` seeds: `C(k + 2m, 2m)`, the bound of
    /// [`Index::key`].
    pub fn boards_up_to(&self, k: u32) -> u128 {
        let parts = 2 * self.pits as u64;
        binomial(k as u64 + parts, parts)
    }

    /// Largest seed count for which every key fits in a `u64`
    /// (72 for 6 pits is far inside it: the limit there is 255).
    pub fn key_seeds(&self) -> u32 {
        self.key_seeds
    }

    /// The dense key of a board (see the module documentation).
    ///
    /// Valid for boards with at most [`Index::key_seeds`] seeds; above that
    /// the result is meaningless (use [`Board::packed`] as the key there).
    #[inline]
    pub fn key(&self, board: Board) -> u64 {
        let bits = board.packed();
        let (own, opp) = (bits as u64, (bits >> 64) as u64);
        let mut s = 0usize;
        let mut key = 0u64;
        for j in 0..self.pits {
            s += ((own >> (8 * j)) & 0xFF) as usize;
            key = key.wrapping_add(self.table[j][s]);
        }
        for j in 0..self.pits {
            s += ((opp >> (8 * j)) & 0xFF) as usize;
            key = key.wrapping_add(self.table[self.pits + j][s]);
        }
        key
    }

    /// The rank of a board inside its tier (the boards with as many seeds).
    /// Valid for tiers whose size fits in a `u64`.
    #[inline]
    pub fn rank(&self, board: Board) -> u64 {
        let bits = board.packed();
        let (own, opp) = (bits as u64, (bits >> 64) as u64);
        let mut s = 0usize;
        let mut rank = 0u64;
        for j in 0..self.pits {
            s += ((own >> (8 * j)) & 0xFF) as usize;
            rank = rank.wrapping_add(self.table[j][s]);
        }
        // The last house is implied by the seed count.
        for j in 0..self.pits - 1 {
            s += ((opp >> (8 * j)) & 0xFF) as usize;
            rank = rank.wrapping_add(self.table[self.pits + j][s]);
        }
        rank
    }

    /// The board of tier `k` with rank `rank`.
    ///
    /// # Panics
    /// If `rank >= tier_size(k)`.
    pub fn unrank(&self, k: u32, rank: u64) -> Board {
        assert!((rank as u128) < self.tier_size(k), "rank out of range");
        let parts = 2 * self.pits;
        let mut houses = [0u8; PARTS_MAX];
        let mut rem = rank;
        let mut upper = k as usize; // s_{j+1}
        for j in (0..parts - 1).rev() {
            // Largest s <= upper with table[j][s] <= rem (the row is increasing).
            let row = &self.table[j];
            let (mut lo, mut hi) = (0usize, upper);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if row[mid] <= rem {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            rem -= row[lo];
            houses[j + 1] = (upper - lo) as u8;
            upper = lo;
        }
        houses[0] = upper as u8;
        self.from_parts(&houses[..parts])
    }

    /// The board whose key is `key`.
    ///
    /// # Panics
    /// If `key` is not below `boards_up_to(key_seeds())`.
    pub fn unkey(&self, key: u64) -> Board {
        let parts = 2 * self.pits as u64;
        // Seeds k: largest with C(k + 2m - 1, 2m) <= key.
        let mut k = 0u32;
        while binomial(k as u64 + parts, parts) <= key as u128 {
            k += 1;
            assert!(k <= self.key_seeds, "key out of range");
        }
        let offset = binomial(k as u64 + parts - 1, parts) as u64;
        self.unrank(k, key - offset)
    }

    /// The composition `h_0 .. h_{2m-1}` of a board.
    pub fn parts(&self, board: Board) -> [u8; PARTS_MAX] {
        let mut h = [0u8; PARTS_MAX];
        for (j, x) in h.iter_mut().enumerate().take(2 * self.pits) {
            *x = board.lane(lane(self.pits, j));
        }
        h
    }

    /// The board with composition `parts` (length `2m`).
    pub fn from_parts(&self, parts: &[u8]) -> Board {
        let mut bits = 0u128;
        for (j, &x) in parts.iter().enumerate() {
            bits |= (x as u128) << (8 * lane(self.pits, j));
        }
        Board::from_packed(bits)
    }

    /// Iterates over tier `k` in rank order, starting at `start`.
    pub fn tier_from(&self, k: u32, start: u64) -> TierIter {
        let size = self.tier_size(k);
        let parts = 2 * self.pits;
        let mut h = [0u8; PARTS_MAX];
        if (start as u128) < size {
            let b = self.unrank(k, start);
            h = self.parts(b);
        }
        TierIter {
            pits: self.pits,
            parts,
            h,
            left: size.saturating_sub(start as u128) as u64,
        }
    }
}

/// Boards of one tier in increasing rank; see [`Index::tier_from`].
pub struct TierIter {
    pits: usize,
    parts: usize,
    h: [u8; PARTS_MAX],
    left: u64,
}

impl Iterator for TierIter {
    type Item = Board;

    #[inline]
    fn next(&mut self) -> Option<Board> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut bits = 0u128;
        for j in 0..self.parts {
            bits |= (self.h[j] as u128) << (8 * lane(self.pits, j));
        }
        if self.left > 0 {
            // Colex successor: the smallest j with h_{j+1} > 0 gains the
            // seeds of h_0..h_j plus one from h_{j+1}.
            let mut acc = 0u8;
            let mut j = 0;
            while self.h[j + 1] == 0 {
                acc += self.h[j];
                self.h[j] = 0;
                j += 1;
            }
            self.h[j] += acc + 1;
            self.h[j + 1] -= 1;
        }
        Some(Board::from_packed(bits))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(0, 0), 1);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(84, 12), binomial(84, 72));
        assert_eq!(binomial(32, 12), 225_792_840);
    }
}

#[cfg(test)]
mod contract {
    use super::*;

    /// Every composition of `k` into `parts` parts, in any order.
    fn compositions(k: u8, parts: usize, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if prefix.len() == parts - 1 {
            prefix.push(k);
            out.push(prefix.clone());
            prefix.pop();
            return;
        }
        for x in 0..=k {
            prefix.push(x);
            compositions(k - x, parts, prefix, out);
            prefix.pop();
        }
    }

    #[test]
    fn exhaustive_small_boards() {
        for m in 1..=4 {
            let index = Index::new(m);
            let mut key_seen = std::collections::HashSet::new();
            for k in 0..=8u32 {
                let size = index.tier_size(k) as u64;
                let mut all = Vec::new();
                compositions(k as u8, 2 * m, &mut Vec::new(), &mut all);
                assert_eq!(all.len() as u64, size, "size formula m={m} k={k}");
                let mut seen = vec![false; size as usize];
                for parts in &all {
                    let b = index.from_parts(parts);
                    let r = index.rank(b);
                    assert!(r < size);
                    assert!(!seen[r as usize], "rank collision");
                    seen[r as usize] = true;
                    assert_eq!(index.unrank(k, r), b);
                    let key = index.key(b);
                    assert_eq!(key, index.boards_up_to(k) as u64 - size + r);
                    assert!(key_seen.insert(key));
                    assert_eq!(index.unkey(key), b);
                }
                // Iteration visits the tier in rank order.
                for (r, b) in index.tier_from(k, 0).enumerate() {
                    assert_eq!(index.rank(b), r as u64);
                }
                let mid = size / 2;
                let tail: Vec<Board> = index.tier_from(k, mid).collect();
                assert_eq!(tail.len() as u64, size - mid);
                if let Some(first) = tail.first() {
                    assert_eq!(index.rank(*first), mid);
                }
            }
            assert_eq!(key_seen.len() as u128, index.boards_up_to(8));
        }
    }

    #[test]
    fn key_limits() {
        assert!(Index::new(6).key_seeds() >= 72);
        assert!(Index::new(8).key_seeds() >= 96);
        assert_eq!(Index::new(6).boards_up_to(72), binomial(84, 12));
    }
}
