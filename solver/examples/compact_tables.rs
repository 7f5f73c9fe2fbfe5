//! Compact tier files (format version 2) against one-byte ones (version 1,
//! as built by `kalah` before the compact format): every value compared,
//! bytes a board, and the cost of a random probe.
//!
//! ```text
//! cargo run --release -p kalah-solver --example compact_tables -- \
//!     compare V1_DIR V2_DIR PITS RULES MAX_SEEDS
//! cargo run --release -p kalah-solver --example compact_tables -- \
//!     probe V1_DIR V2_DIR PITS RULES TIER [PROBES] [ROUNDS]
//! ```
//!
//! `RULES` is a rule slug (`std`, `ec`, ...). `compare` decodes every tier
//! of `V2_DIR` in full and compares it value by value with the version 1
//! file of `V1_DIR` (read here directly: 64-byte header, one `i8` a board
//! in rank order, 16-byte trailer; its checksum checked), then prints the
//! bytes a board of each tier. `probe` times random probes of one tier in
//! both forms, both resident in memory, in interleaved rounds, and prints
//! the median probes/s of each and their ratio. Exit status 1 on any
//! difference.

use kalah_solver::table::format::xxh64;
use kalah_solver::table::{file_name, Check, TierTable};
use kalah_solver::{sample::SplitMix64, Rules};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// The values of the version 1 file of tier `k`, its checksum checked.
fn read_v1(dir: &Path, pits: usize, rules: Rules, k: u32) -> Result<Vec<i8>, String> {
    let path = dir.join(file_name(pits, rules, k));
    let b = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |why: &str| format!("{}: not a version 1 tier file: {why}", path.display());
    if b.len() < 80 || &b[..8] != b"KALAHTBL" || b[8..12] != 1u32.to_le_bytes() {
        return Err(bad("header"));
    }
    let count = u64::from_le_bytes(b[19..27].try_into().expect("8 bytes")) as usize;
    if b.len() != 80 + count || &b[b.len() - 8..] != b"KTBLDONE" {
        return Err(bad("length or end marker"));
    }
    let stored = u64::from_le_bytes(b[64 + count..72 + count].try_into().expect("8 bytes"));
    if xxh64(&b[..64 + count]) != stored {
        return Err(bad("checksum"));
    }
    Ok(b[64..64 + count].iter().map(|&x| x as i8).collect())
}

fn open_v2(
    dir: &Path,
    pits: usize,
    rules: Rules,
    k: u32,
) -> Result<TierTable<memmap2::Mmap>, String> {
    TierTable::load(
        &dir.join(file_name(pits, rules, k)),
        pits,
        rules,
        k,
        Check::Full,
    )
    .map_err(|e| e.to_string())
}

fn compare(v1: &Path, v2: &Path, pits: usize, rules: Rules, max: u32) -> Result<bool, String> {
    println!("tier      boards   v2_bytes  bits/board  identical");
    let (mut boards, mut bytes, mut same) = (0u64, 0u64, true);
    for k in 0..=max {
        let old = read_v1(v1, pits, rules, k)?;
        let new = open_v2(v2, pits, rules, k)?;
        let mut decoded = vec![0i8; new.count() as usize];
        new.decode_all(&mut decoded).map_err(|e| e.to_string())?;
        let first_diff = old.iter().zip(&decoded).position(|(a, b)| a != b);
        let ok = old.len() == decoded.len() && first_diff.is_none();
        // Random probes too: the path a search takes.
        let mut rng = SplitMix64::new(k as u64);
        let probes_ok = (0..100_000.min(old.len())).all(|_| {
            let r = rng.below(old.len() as u64);
            new.value(r) == Some(old[r as usize] as i32)
        });
        let n = new.bytes().len() as u64;
        println!(
            "{k:4} {:11} {n:10} {:11.3}  {}",
            old.len(),
            n as f64 * 8.0 / old.len() as f64,
            if ok && probes_ok {
                "yes".to_string()
            } else {
                format!("NO (rank {first_diff:?})")
            }
        );
        same &= ok && probes_ok;
        boards += old.len() as u64;
        bytes += n;
    }
    println!(
        "all  {boards:11} {bytes:10} {:11.3}  {}",
        bytes as f64 * 8.0 / boards as f64,
        if same { "yes" } else { "NO" }
    );
    Ok(same)
}

/// CPU seconds of this thread (user + system, from /proc; 10 ms ticks):
/// the machine may be shared, and wall time then counts other programs.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the command name (which ends with the last ')').
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // utime and stime are fields 14 and 15, i.e. 11 and 12 after the state.
    (f.get(10).unwrap_or(&0.0) + f.get(11).unwrap_or(&0.0)) / 100.0
}

fn probe(
    v1: &Path,
    v2: &Path,
    pits: usize,
    rules: Rules,
    k: u32,
    n: usize,
    rounds: usize,
) -> Result<(), String> {
    let old = read_v1(v1, pits, rules, k)?;
    let new = open_v2(v2, pits, rules, k)?;
    let compact = new.compact();
    let mut rng = SplitMix64::new(42);
    let ranks: Vec<u64> = (0..n).map(|_| rng.below(old.len() as u64)).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut sink = 0i64;
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (t, c) = (Instant::now(), cpu_seconds());
        for &r in &ranks {
            sink += old[r as usize] as i64;
        }
        a.push(n as f64 / t.elapsed().as_secs_f64());
        ca.push(n as f64 / (cpu_seconds() - c).max(0.01));
        let (t, c) = (Instant::now(), cpu_seconds());
        for &r in &ranks {
            sink -= compact.get(r).unwrap_or(0) as i64;
        }
        b.push(n as f64 / t.elapsed().as_secs_f64());
        cb.push(n as f64 / (cpu_seconds() - c).max(0.01));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (ma, mb) = (median(&mut a), median(&mut b));
    let (mca, mcb) = (median(&mut ca), median(&mut cb));
    println!(
        "tier {k}: {} boards; random probes/s, median of {rounds} interleaved rounds of {n}: \
         wall: one byte {:.1} M, compact {:.1} M, ratio {:.2}x; CPU time: one byte {:.1} M, compact {:.1} M, ratio {:.2}x (check {sink})",
        old.len(),
        ma / 1e6,
        mb / 1e6,
        ma / mb,
        mca / 1e6,
        mcb / 1e6,
        mca / mcb
    );
    if sink != 0 {
        return Err("the two forms gave different values".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: compact_tables compare V1_DIR V2_DIR PITS RULES MAX_SEEDS\n       compact_tables probe V1_DIR V2_DIR PITS RULES TIER [PROBES] [ROUNDS]";
    let parse = || -> Option<(&str, &Path, &Path, usize, Rules, u32)> {
        let slug = args.get(4)?;
        let rules = Rules::from_slug(slug)?;
        Some((
            args.first()?.as_str(),
            Path::new(args.get(1)?),
            Path::new(args.get(2)?),
            args.get(3)?.parse().ok()?,
            rules,
            args.get(5)?.parse().ok()?,
        ))
    };
    let Some((cmd, v1, v2, pits, rules, k)) = parse() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let arg = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let result = match cmd {
        "compare" => compare(v1, v2, pits, rules, k),
        "probe" => probe(v1, v2, pits, rules, k, arg(6, 2_000_000), arg(7, 7)).map(|()| true),
        _ => Err(usage.to_string()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
