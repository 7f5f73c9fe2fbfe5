//! Helpers shared by the integration tests: a small deterministic random
//! source (no dependency) and random positions.
#![allow(dead_code)]

use kalah::{Board, Index};

/// SplitMix64: tiny, fast, and good enough for sampling test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// A uniformly random board of `pits` houses a side with exactly `seeds`
/// seeds (uniform over the tier, through the index).
pub fn random_board(rng: &mut Rng, index: &Index, seeds: u32) -> Board {
    let size = index.tier_size(seeds) as u64;
    index.unrank(seeds, rng.below(size))
}
