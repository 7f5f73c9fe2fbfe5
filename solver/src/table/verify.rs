//! Verifying tables: every file's checksum, then entries re-derived from
//! their children (the one-step recurrence over the stored values), then, on
//! small tiers, an independent memoized negamax that uses no table at all.
//!
//! When every entry of every tier passes the one-step check, the tables are
//! exactly the values (the recurrence has one solution, the tiers being
//! acyclic); sampling trades that proof for time.

use super::format::{file_name, Check};
use super::reader::TierTable;
use super::{Ranker, TableError, MAX_TIER};
use crate::board::{Board, Game};
use crate::index::Index;
use crate::rules::Rules;
use crate::sample::SplitMix64;
use memmap2::Mmap;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// What to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyConfig {
    pub pits: usize,
    pub rules: Rules,
    /// Tiers `0..=K`; `None`: every tier file present from 0 up.
    pub max_seeds: Option<u32>,
    /// Entries per tier re-derived by the one-step recurrence; `None`: all.
    pub sample: Option<u64>,
    /// Tiers up to this many seeds are also checked against plain search.
    pub reference_max_seeds: u32,
    /// Entries per tier checked against plain search.
    pub reference_sample: u64,
    /// Worker threads (0: as many as the machine has).
    pub threads: usize,
}

impl VerifyConfig {
    /// Defaults: all present tiers, 100 000 entries a tier re-derived, and
    /// 2 000 entries a tier up to 10 seeds (8 for more than 6 pits) checked
    /// against plain search.
    pub fn new(pits: usize, rules: Rules) -> VerifyConfig {
        VerifyConfig {
            pits,
            rules,
            max_seeds: None,
            sample: Some(100_000),
            reference_max_seeds: if pits <= 6 { 10 } else { 8 },
            reference_sample: 2_000,
            threads: 0,
        }
    }
}

/// What [`verify_tables`] checked (everything passed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Tier files whose checksum was verified.
    pub files: u32,
    /// Bytes checksummed.
    pub bytes: u64,
    /// Entries re-derived from their children.
    pub rederived: u64,
    /// Entries compared with plain search.
    pub searched: u64,
}

/// Verifies the tables in `dir`; the first problem found is the error.
pub fn verify_tables(dir: &Path, config: &VerifyConfig) -> Result<VerifyReport, TableError> {
    let VerifyConfig { pits, rules, .. } = *config;
    if !(1..=crate::rules::MAX_PITS).contains(&pits) {
        return Err(TableError::Unsupported {
            reason: format!("{pits} pits a side"),
        });
    }
    // Every tier up to the largest asked for, or the largest file present:
    // a tier missing below it is a failure (named), not the end of the set.
    let max = match config.max_seeds {
        Some(k) => k.min(MAX_TIER),
        None => match highest_tier_present(dir, pits, rules)? {
            Some(k) => k,
            None => {
                return Err(TableError::Missing {
                    path: dir.join(file_name(pits, rules, 0)),
                })
            }
        },
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| TableError::Unsupported {
            reason: format!("thread pool: {e}"),
        })?;
    pool.install(|| verify_in_pool(dir, config, max))
}

/// The largest tier of `pits` and `rules` with a file in `dir`, if any.
fn highest_tier_present(dir: &Path, pits: usize, rules: Rules) -> Result<Option<u32>, TableError> {
    let entries = std::fs::read_dir(dir).map_err(|e| TableError::io(dir, "list", e))?;
    Ok(entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| tier_of(n, pits, rules)))
        .max())
}

/// The tier whose file is named `name` for `pits` and `rules`, if it is one.
fn tier_of(name: &str, pits: usize, rules: Rules) -> Option<u32> {
    let k: u32 = name
        .strip_prefix(&format!("kalah-m{pits}-{}-k", rules.slug()))?
        .strip_suffix(".tbl")?
        .parse()
        .ok()?;
    (k <= MAX_TIER && file_name(pits, rules, k) == name).then_some(k)
}

fn verify_in_pool(dir: &Path, config: &VerifyConfig, max: u32) -> Result<VerifyReport, TableError> {
    let VerifyConfig { pits, rules, .. } = *config;
    let mut report = VerifyReport::default();
    // 1. Every file: header, size, end marker and checksum, in full, stamps
    // ignored (in parallel). The first failure in tier order is reported.
    let tiers: Vec<Result<TierTable<Mmap>, TableError>> = (0..=max)
        .into_par_iter()
        .map(|k| {
            TierTable::open(
                &dir.join(file_name(pits, rules, k)),
                pits,
                rules,
                k,
                Check::Full,
            )
        })
        .collect();
    let tiers = tiers.into_iter().collect::<Result<Vec<_>, _>>()?;
    // Every block of every stream decodes (only a forged file whose
    // checksum passes fails here).
    if let Some(t) = tiers.iter().find(|t| !t.compact().is_valid()) {
        return Err(TableError::BadHeader {
            path: t.path().to_path_buf(),
            reason: "the value stream is not a valid encoding".into(),
        });
    }
    debug_assert_eq!(tiers.len() as u32, max + 1);
    report.files = tiers.len() as u32;
    report.bytes = tiers.iter().map(|t| t.bytes().len() as u64).sum();

    let game = Game::new(pits, rules);
    let ranker = Ranker::new(pits);
    let index = Index::new(pits);
    let values: Vec<_> = tiers.iter().map(|t| t.compact()).collect();
    let stored = |b: Board| {
        values[b.seeds() as usize]
            .get(ranker.rank(b))
            .map_or(0, i32::from) // every stream decodes (checked above)
    };

    // 2. The one-step recurrence on sampled (or all) entries.
    for t in &tiers {
        let k = t.tier();
        let check = |r: u64, b: Board| {
            let derived = match game.terminal_value(b) {
                Some(v) => v,
                None => one_step(&game, b, stored),
            };
            let s = t.value(r).unwrap_or(i32::MIN);
            (s != derived).then_some((r, s, derived))
        };
        let count = t.count();
        let (bad, n) = match config.sample {
            Some(n) if n < count => {
                let ranks = sample_ranks(count, n, k as u64);
                let bad = ranks
                    .par_iter()
                    .find_map_any(|&r| check(r, index.unrank(k, r)));
                (bad, n)
            }
            _ => {
                // All entries: walk the tier in chunks (no unranking).
                const CHUNK: u64 = 1 << 16;
                let bad = (0..count.div_ceil(CHUNK))
                    .into_par_iter()
                    .find_map_any(|c| {
                        let lo = c * CHUNK;
                        let hi = (lo + CHUNK).min(count);
                        (lo..hi)
                            .zip(index.tier_from(k, lo))
                            .find_map(|(r, b)| check(r, b))
                    });
                (bad, count)
            }
        };
        if let Some((rank, stored, derived)) = bad {
            return Err(TableError::WrongValue {
                path: t.path().to_path_buf(),
                rank,
                stored,
                derived,
                check: "the one-step recurrence",
            });
        }
        report.rederived += n;
    }

    // 3. Plain memoized negamax on small tiers (no table used).
    let mut memo = HashMap::new();
    for t in tiers
        .iter()
        .take_while(|t| t.tier() <= config.reference_max_seeds)
    {
        let k = t.tier();
        let ranks = sample_ranks(t.count(), config.reference_sample, 7 + k as u64);
        for &r in &ranks {
            let v = negamax(&game, index.unrank(k, r), &mut memo);
            let s = t.value(r).unwrap_or(i32::MIN);
            if s != v {
                return Err(TableError::WrongValue {
                    path: t.path().to_path_buf(),
                    rank: r,
                    stored: s,
                    derived: v,
                    check: "plain search",
                });
            }
        }
        report.searched += ranks.len() as u64;
    }
    Ok(report)
}

/// The value of an unfinished board from the values of its children.
pub fn one_step(game: &Game, b: Board, value: impl Fn(Board) -> i32) -> i32 {
    let mut best = i32::MIN;
    let mut moves = game.moves(b);
    while moves != 0 {
        let house = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let s = game.sow(b, house);
        let cv = match game.terminal_value(s.board) {
            Some(v) => v,
            None => value(s.board),
        };
        best = best.max(s.gain as i32 + if s.extra_turn { cv } else { -cv });
    }
    best
}

/// Plain negamax with a memo, independent of any table.
fn negamax(game: &Game, b: Board, memo: &mut HashMap<Board, i32>) -> i32 {
    if let Some(v) = game.terminal_value(b) {
        return v;
    }
    if let Some(&v) = memo.get(&b) {
        return v;
    }
    let mut best = i32::MIN;
    let mut moves = game.moves(b);
    while moves != 0 {
        let house = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let s = game.sow(b, house);
        let cv = negamax(game, s.board, memo);
        best = best.max(s.gain as i32 + if s.extra_turn { cv } else { -cv });
    }
    memo.insert(b, best);
    best
}

/// `min(n, count)` ranks spread over `0..count`: one at random in each of
/// `n` equal strata, reproducibly (all of them when `n >= count`).
fn sample_ranks(count: u64, n: u64, seed: u64) -> Vec<u64> {
    if n >= count {
        return (0..count).collect();
    }
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let lo = (i as u128 * count as u128 / n as u128) as u64;
            let hi = ((i + 1) as u128 * count as u128 / n as u128) as u64;
            // `n < count`, so every stratum holds at least one rank.
            lo + rng.below(hi - lo)
        })
        .collect()
}
