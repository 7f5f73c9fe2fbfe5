//! The index contract on big boards: random 6-house positions (the small
//! boards are checked exhaustively in the crate's unit tests).

mod common;

use common::{random_board, Rng};
use kalah::{Board, Index};

#[test]
fn rank_unrank_and_key_round_trip_on_a_million_random_boards() {
    let index = Index::new(6);
    let mut rng = Rng::new(2024);
    for i in 0..1_000_000u64 {
        let k = rng.below(37) as u32;
        // Half the boards come uniformly from the tier through unrank; the
        // other half are drawn seed by seed, independently of the index.
        let b = if i % 2 == 0 {
            random_board(&mut rng, &index, k)
        } else {
            let mut parts = [0u8; 12];
            for _ in 0..k {
                parts[rng.below(12) as usize] += 1;
            }
            index.from_parts(&parts)
        };
        assert_eq!(b.seeds(), k);
        let r = index.rank(b);
        assert!((r as u128) < index.tier_size(k));
        assert_eq!(index.unrank(k, r), b, "rank {r} of tier {k}");
        let key = index.key(b);
        assert_eq!(
            key as u128,
            index.boards_up_to(k) - index.tier_size(k) + r as u128
        );
        assert_eq!(index.unkey(key), b);
        // The packed form is itself an exact key.
        assert_eq!(Board::from_packed(b.packed()), b);
    }
}

#[test]
fn keys_order_tiers_and_are_dense() {
    let index = Index::new(6);
    // The first and last board of each tier sit at the tier's ends.
    for k in 0..=72u32 {
        let size = index.tier_size(k) as u64;
        let first = index.unrank(k, 0);
        let last = index.unrank(k, size - 1);
        assert_eq!(index.rank(first), 0);
        assert_eq!(index.rank(last), size - 1);
        assert_eq!(
            index.key(first) as u128,
            index.boards_up_to(k) - size as u128
        );
        assert_eq!(index.key(last) as u128 + 1, index.boards_up_to(k));
    }
    // Size(6, 20) of IDU Table 8 excludes boards with an empty side.
    let with_empty_side: u128 = (0..=20u32).map(|k| index.tier_size(k)).sum();
    let one_side_empty: u128 = (0..=20u64).map(|k| kalah::index::binomial(k + 5, 5)).sum();
    assert_eq!(with_empty_side - 2 * one_side_empty + 1, 225_332_381);
}
