//! Random positions in the docs/RULES.md text form, for the tests and the
//! load generator of `kalah serve`.

use kalah::sample::SplitMix64;

/// A random position of `pits` houses a side with `board` seeds in the
/// houses (each seed in a house drawn uniformly), stores of up to
/// `max_store` seeds each, and a random side to move. Positions with no
/// seeds on the mover's side are finished games.
pub fn random_position(rng: &mut SplitMix64, pits: usize, board: u32, max_store: u32) -> String {
    let mut houses = vec![0u32; 2 * pits];
    for _ in 0..board {
        houses[rng.below(2 * pits as u64) as usize] += 1;
    }
    let store = |rng: &mut SplitMix64| rng.below(u64::from(max_store) + 1) as u32;
    let (s, n) = (store(rng), store(rng));
    let mut words: Vec<String> = houses[..pits].iter().map(u32::to_string).collect();
    words.push(s.to_string());
    words.extend(houses[pits..].iter().map(u32::to_string));
    words.push(n.to_string());
    words.push(if rng.below(2) == 0 { "S" } else { "N" }.to_string());
    words.join(" ")
}
