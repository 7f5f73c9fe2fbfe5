//! A small deterministic random source for sampling: table verification
//! draws its sample ranks from it, and the tests and benches their random
//! positions, so a failure reproduces from its seed alone.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014): a 64-bit counter stepped by
//! the golden-ratio constant, then a bijective mix. Every seed, zero
//! included, gives a full-period sequence of 2^64 values; that is ample for
//! sampling and it needs no dependency. It is not cryptographic.

/// SplitMix64: `next_u64` is the mix of a counter stepped by a fixed odd
/// constant, so the sequence is a pure function of the seed.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The generator whose sequence is determined by `seed` (any value).
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n`, by the high half of a 64x64-bit product (no
    /// division). The bias is below `n / 2^64`, far under what a sample can
    /// show. `n == 0` gives 0 (there is nothing to choose from).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// A board of `pits` houses a side with `seeds` seeds, each dropped into
/// one of the `2 * pits` houses uniformly at random (so boards with the
/// seeds spread are likelier than lopsided ones, as in play).
pub fn random_board(rng: &mut SplitMix64, pits: usize, seeds: u32) -> crate::Board {
    let mut own = vec![0u8; pits];
    let mut opp = vec![0u8; pits];
    for _ in 0..seeds {
        let i = rng.below(2 * pits as u64) as usize;
        if i < pits {
            own[i] += 1;
        } else {
            opp[i - pits] += 1;
        }
    }
    crate::Board::from_sides(&own, &opp)
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    /// The first outputs for seed 0, as the reference implementation
    /// (Vigna's splitmix64.c) gives them: the tests' positions and the
    /// verification samples depend on this exact sequence.
    #[test]
    fn matches_the_reference_sequence() {
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(g.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range() {
        let mut g = SplitMix64::new(7);
        for n in [1u64, 2, 3, 10, 1 << 40, u64::MAX] {
            for _ in 0..1000 {
                assert!(g.below(n) < n);
            }
        }
        assert_eq!(g.below(0), 0);
    }
}
