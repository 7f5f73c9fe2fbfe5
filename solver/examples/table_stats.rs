//! What the values of table tiers would cost under candidate block codes:
//! the measurement behind the compact format (lab/journal/tables.md,
//! "Compact tables").
//!
//! ```text
//! cargo run --release -p kalah-solver --example table_stats -- DIR PITS RULES KMIN KMAX
//! ```
//!
//! For each tier, on the symbol `u = (v + k) / 2` (every value has the
//! parity of `k` under the standard and empty-capture rules), in bits a
//! board, without any index or header: the order-0 entropy, the entropy
//! given the previous rank's symbol, the mean empirical entropy inside
//! blocks of 64, min/max bit packing in blocks of 64, a fixed width with an
//! exception list (8 bits an exception) in blocks of 64, and a Rice code
//! around the block's median (centre within 3, either sign, parameter
//! 0..=7) in blocks of 128 and 256.

use kalah_solver::table::{file_name, Check, TierTable};
use kalah_solver::Rules;
use std::path::Path;

fn entropy(counts: &[u64], n: f64) -> f64 {
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64) * (c as f64 / n).log2())
        .sum()
}

fn bits(range: u32) -> u32 {
    32 - range.leading_zeros()
}

fn minmax(block: &[u32]) -> (u32, u32) {
    let lo = *block.iter().min().expect("a block is not empty");
    let hi = *block.iter().max().expect("a block is not empty");
    (lo, hi)
}

/// Fixed width `w` (the top code escapes) and 8 bits an exception.
fn exceptions(block: &[u32]) -> u64 {
    let (lo, hi) = minmax(block);
    let mut counts = [0u64; 256];
    for &u in block {
        counts[u as usize] += 1;
    }
    let n = block.len() as u64;
    let mut best = u64::MAX;
    for w in 0..8u32 {
        if w >= bits(hi - lo) {
            return best.min(n * w as u64);
        }
        let span = if w == 0 { 0 } else { (1u32 << w) - 1 };
        let inside = (lo..=hi)
            .map(|b| {
                (b..(b + span).min(256))
                    .map(|i| counts[i as usize])
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0);
        best = best.min(n * w as u64 + (n - inside) * 8);
    }
    best
}

fn rice(block: &[u32]) -> u64 {
    let mut sorted = block.to_vec();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2] as i64;
    let mut best = u64::MAX;
    for centre in median - 3..=median + 3 {
        for sign in [1i64, -1] {
            for r in 0..8u32 {
                let c: u64 = block
                    .iter()
                    .map(|&u| {
                        let d = sign * (u as i64 - centre);
                        let z = if d >= 0 { 2 * d } else { -2 * d - 1 } as u64;
                        r as u64 + 1 + (z >> r)
                    })
                    .sum();
                best = best.min(c);
            }
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: table_stats DIR PITS RULES KMIN KMAX";
    let parsed = (|| {
        let slug = args.get(2)?;
        let rules = Rules::from_slug(slug)?;
        Some((
            Path::new(args.first()?),
            args.get(1)?.parse::<usize>().ok()?,
            rules,
            args.get(3)?.parse::<u32>().ok()?,
            args.get(4)?.parse::<u32>().ok()?,
        ))
    })();
    let Some((dir, pits, rules, kmin, kmax)) = parsed else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    println!("tier   H0  H1|prev  H(block64)  minmax64  exceptions64  rice128  rice256");
    for k in kmin..=kmax {
        let path = dir.join(file_name(pits, rules, k));
        let t = TierTable::open(&path, pits, rules, k, Check::Full).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        let mut v = vec![0i8; t.count() as usize];
        t.decode_all(&mut v).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        let u: Vec<u32> = v
            .iter()
            .map(|&x| (x as i32 + k as i32) as u32 / 2)
            .collect();
        let n = u.len() as f64;
        let mut counts = vec![0u64; 256];
        let mut pairs = vec![0u64; 256 * 256];
        for (i, &x) in u.iter().enumerate() {
            counts[x as usize] += 1;
            if i > 0 {
                pairs[u[i - 1] as usize * 256 + x as usize] += 1;
            }
        }
        let h1: f64 = pairs
            .chunks(256)
            .map(|row| entropy(row, row.iter().sum::<u64>().max(1) as f64))
            .sum();
        let per =
            |size: usize, cost: &dyn Fn(&[u32]) -> f64| u.chunks(size).map(cost).sum::<f64>() / n;
        let block_entropy = per(64, &|b| {
            let mut c = [0u64; 256];
            for &x in b {
                c[x as usize] += 1;
            }
            entropy(&c, b.len() as f64)
        });
        let packed = per(64, &|b| {
            let (lo, hi) = minmax(b);
            (b.len() as u32 * bits(hi - lo)) as f64
        });
        println!(
            "{k:4} {:5.2} {:7.2} {:11.2} {:9.2} {:13.2} {:8.2} {:8.2}",
            entropy(&counts, n) / n,
            h1 / n,
            block_entropy,
            packed,
            per(64, &|b| exceptions(b) as f64),
            per(128, &|b| rice(b) as f64),
            per(256, &|b| rice(b) as f64),
        );
    }
}
