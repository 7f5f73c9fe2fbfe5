//! Endgame tables against an independent memoized negamax, determinism over
//! thread counts, every kind of damaged file, and interrupted builds.

mod common;

use common::memo_value;
use kalah_solver::sample::SplitMix64;
use kalah_solver::table::format::{file_image, xxh64};
use kalah_solver::table::{
    build_tables, file_name, verify_tables, BuildConfig, Check, Progress, TableError, Tables,
    TierTable, VerifyConfig,
};
use kalah_solver::{Board, CaptureRule, EndRule, Game, Index, Probe, Rules};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A fresh, empty directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "kalah-tables-test-{}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        name
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn build(dir: &Path, pits: usize, rules: Rules, k: u32, threads: usize) {
    let cfg = BuildConfig {
        pits,
        rules,
        max_seeds: k,
        threads,
    };
    build_tables(dir, &cfg, &(), &AtomicBool::new(false)).unwrap();
}

/// Every board of every tier `0..=k` has the negamax value, through
/// `Tables::probe`.
fn check_all_against_negamax(pits: usize, rules: Rules, k: u32) {
    let dir = temp_dir(&format!("neg-m{pits}-{}", rules.slug()));
    build(&dir, pits, rules, k, 2);
    let tables = Tables::open(&dir, pits, rules).unwrap();
    assert_eq!(tables.max_seeds(), k);
    let game = Game::new(pits, rules);
    let index = Index::new(pits);
    let mut memo = HashMap::new();
    let mut checked = 0u64;
    for t in 0..=k {
        for b in index.tier_from(t, 0) {
            let want = memo_value(&game, b, &mut memo);
            assert_eq!(
                tables.probe(b),
                Some(want),
                "m={pits} {rules} board {b:?} tier {t}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked as u128, index.boards_up_to(k));
    // One seed more is not answered.
    let mut own = vec![0u8; pits];
    own[0] = k as u8 + 1;
    assert_eq!(tables.probe(Board::from_sides(&own, &vec![0; pits])), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn m4_standard_and_empty_capture_match_negamax_to_10_seeds() {
    check_all_against_negamax(4, Rules::STANDARD, 10);
    check_all_against_negamax(4, Rules::EMPTY_CAPTURE, 10);
}

#[test]
fn m6_standard_matches_negamax_to_10_seeds() {
    check_all_against_negamax(6, Rules::STANDARD, 10);
}

#[test]
fn m6_empty_capture_matches_negamax_to_10_seeds() {
    check_all_against_negamax(6, Rules::EMPTY_CAPTURE, 10);
}

#[test]
fn other_board_sizes_match_negamax() {
    // The builder is generic over the houses a side: the narrowest and
    // widest boards, and the odd sizes, under both capture rules.
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        check_all_against_negamax(1, rules, 12);
        check_all_against_negamax(5, rules, 8);
        check_all_against_negamax(7, rules, 6);
        check_all_against_negamax(8, rules, 6);
    }
}

#[test]
fn end_rule_variants_match_negamax() {
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for end in [EndRule::Delayed, EndRule::NoSweep] {
            let rules = Rules { capture, end };
            check_all_against_negamax(3, rules, 9);
            check_all_against_negamax(4, rules, 8);
        }
    }
}

#[test]
fn small_boards_match_reference_value() {
    // Game::reference_value: the crate's own plain (memoryless) negamax.
    let rules = Rules::EMPTY_CAPTURE;
    let dir = temp_dir("reference");
    build(&dir, 2, rules, 6, 1);
    let tables = Tables::open(&dir, 2, rules).unwrap();
    let game = Game::new(2, rules);
    let index = Index::new(2);
    for t in 0..=6 {
        for b in index.tier_from(t, 0) {
            assert_eq!(tables.probe(b), Some(game.reference_value(b)), "{b:?}");
        }
    }
    // A board with a third house is not a board of these tables.
    assert_eq!(
        tables.probe(Board::from_sides(&[0, 0, 1], &[0, 1, 0])),
        None
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Tables copied into memory ([`Tables::resident`], through
/// `platform::read_only_copy`) answer as the mapped files do, and outlive
/// the files' removal.
#[test]
fn resident_tables_answer_as_mapped_ones() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("resident");
    build(&dir, 4, rules, 8, 2);
    let mapped = Tables::open(&dir, 4, rules).unwrap();
    let resident = Tables::open(&dir, 4, rules).unwrap().resident();
    resident.open_all().unwrap();
    mapped.open_all().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let index = Index::new(4);
    for t in 0..=8 {
        for b in index.tier_from(t, 0) {
            let value = mapped.probe(b);
            assert!(value.is_some(), "{b:?}");
            assert_eq!(resident.probe(b), value, "{b:?}");
        }
    }
}

#[test]
fn one_and_two_threads_give_identical_files() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let d1 = temp_dir("t1");
        let d2 = temp_dir("t2");
        build(&d1, 6, rules, 12, 1);
        build(&d2, 6, rules, 12, 2);
        for k in 0..=12 {
            let name = file_name(6, rules, k);
            let a = std::fs::read(d1.join(&name)).unwrap();
            let b = std::fs::read(d2.join(&name)).unwrap();
            assert!(a == b, "{name} differs between 1 and 2 threads");
        }
        std::fs::remove_dir_all(&d1).unwrap();
        std::fs::remove_dir_all(&d2).unwrap();
    }
}

/// Builds m=4 tables to 6 seeds and damages tier 5 with `damage`; the tier
/// must then fail with `expect` from open, from probe and from verify.
fn damaged(name: &str, damage: impl Fn(&Path, &Path), expect: impl Fn(&TableError) -> bool) {
    let rules = Rules::STANDARD;
    let dir = temp_dir(name);
    build(&dir, 4, rules, 6, 2);
    let path = dir.join(file_name(4, rules, 5));
    damage(&dir, &path);

    let e = TierTable::open(&path, 4, rules, 5, Check::Full).unwrap_err();
    assert!(expect(&e), "{name}: open gave {e}");
    assert_eq!(e.path(), Some(path.as_path()));
    assert!(e.to_string().contains(&*path.to_string_lossy()), "{e}");

    let bytes = std::fs::read(&path).unwrap();
    let e = TierTable::from_bytes(bytes, &path, 4, rules, 5, Check::Full).unwrap_err();
    assert!(expect(&e), "{name}: from_bytes gave {e}");

    let tables = Tables::open(&dir, 4, rules).unwrap();
    let board = Board::from_sides(&[1, 1, 1, 1], &[0, 0, 0, 1]);
    let e = tables.try_probe(board).unwrap_err();
    assert!(expect(&e), "{name}: probe gave {e}");
    assert_eq!(tables.probe(board), None, "never a wrong value");
    // Other tiers still answer.
    let small = Board::from_sides(&[1, 0, 0, 0], &[0, 0, 0, 1]);
    assert!(tables.probe(small).is_some());

    let e = verify_tables(&dir, &VerifyConfig::new(4, rules)).unwrap_err();
    assert!(expect(&e), "{name}: verify gave {e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every value of the tier file at `path`, decoded.
fn decoded(path: &Path, pits: usize, rules: Rules, k: u32) -> Vec<i8> {
    let t = TierTable::open(path, pits, rules, k, Check::Full).unwrap();
    let mut values = vec![0i8; t.count() as usize];
    t.decode_all(&mut values).unwrap();
    values
}

/// Writes `values` as a well-formed file (encoded, its checksum right) at
/// `path`: a file written wrong, which no checksum can catch.
fn rewrite_values(path: &Path, pits: usize, rules: Rules, k: u32, values: &[i8]) {
    let image = file_image(pits, rules, k, values.len(), &|i| values[i]).unwrap();
    let _ = std::fs::remove_file(path);
    std::fs::write(path, image).unwrap();
}

fn rewrite(path: &Path, f: impl Fn(&mut Vec<u8>)) {
    let mut b = std::fs::read(path).unwrap();
    f(&mut b);
    std::fs::write(path, b).unwrap();
}

#[test]
fn truncated_file() {
    damaged(
        "trunc",
        |_, p| rewrite(p, |b| b.truncate(b.len() - 100)),
        |e| matches!(e, TableError::Truncated { .. }),
    );
}

#[test]
fn file_cut_inside_header() {
    damaged(
        "trunc-header",
        |_, p| rewrite(p, |b| b.truncate(20)),
        |e| matches!(e, TableError::Truncated { .. }),
    );
}

#[test]
fn flipped_value_byte() {
    damaged(
        "flip",
        // Tier 5 of 4 houses: 792 boards, one 16-byte index entry, then
        // the value stream: a byte of it.
        |_, p| rewrite(p, |b| b[64 + 16 + 17] ^= 0x04),
        |e| matches!(e, TableError::BadChecksum { .. }),
    );
}

#[test]
fn missing_end_marker() {
    damaged(
        "unfinished",
        |_, p| {
            rewrite(p, |b| {
                let n = b.len();
                b[n - 1] = 0;
            })
        },
        |e| matches!(e, TableError::Unfinished { .. }),
    );
}

#[test]
fn wrong_magic() {
    damaged(
        "magic",
        |_, p| rewrite(p, |b| b[0] = b'X'),
        |e| matches!(e, TableError::BadMagic { .. }),
    );
}

#[test]
fn wrong_version() {
    damaged(
        "version",
        |_, p| rewrite(p, |b| b[8] = 9),
        |e| matches!(e, TableError::BadVersion { found: 9, .. }),
    );
}

#[test]
fn file_of_the_other_rule_set() {
    damaged(
        "rules",
        |dir, p| {
            let other = temp_dir("rules-other");
            build(&other, 4, Rules::EMPTY_CAPTURE, 5, 1);
            std::fs::copy(other.join(file_name(4, Rules::EMPTY_CAPTURE, 5)), p).unwrap();
            std::fs::remove_dir_all(&other).unwrap();
            let _ = dir;
        },
        |e| {
            matches!(e, TableError::WrongRules { expected, found: Some(f), .. }
                if *expected == Rules::STANDARD && *f == Rules::EMPTY_CAPTURE)
        },
    );
}

#[test]
fn file_of_another_tier_or_board() {
    damaged(
        "tier",
        |dir, p| {
            std::fs::copy(dir.join(file_name(4, Rules::STANDARD, 4)), p)
                .map(|_| ())
                .unwrap()
        },
        |e| {
            matches!(
                e,
                TableError::WrongTier {
                    expected: 5,
                    found: 4,
                    ..
                }
            )
        },
    );
    damaged(
        "pits",
        |_, p| {
            let other = temp_dir("pits-other");
            build(&other, 3, Rules::STANDARD, 5, 1);
            std::fs::copy(other.join(file_name(3, Rules::STANDARD, 5)), p).unwrap();
            std::fs::remove_dir_all(&other).unwrap();
        },
        |e| {
            matches!(
                e,
                TableError::WrongPits {
                    expected: 4,
                    found: 3,
                    ..
                }
            )
        },
    );
}

#[test]
fn a_wrong_value_with_a_valid_checksum_fails_verify() {
    // Re-derivation catches what a checksum cannot: a file written wrong.
    let rules = Rules::STANDARD;
    let dir = temp_dir("wrong-value");
    build(&dir, 4, rules, 6, 2);
    let path = dir.join(file_name(4, rules, 6));
    let mut values = decoded(&path, 4, rules, 6);
    let r = values.len() / 3;
    values[r] += 2;
    rewrite_values(&path, 4, rules, 6, &values);
    let mut cfg = VerifyConfig::new(4, rules);
    cfg.sample = None;
    let e = verify_tables(&dir, &cfg).unwrap_err();
    // The entry itself, or a same-tier parent that reads it, disagrees.
    assert!(
        matches!(&e, TableError::WrongValue { path: p, .. } if *p == path),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sets the stop flag when a given tier starts.
struct StopAt<'a> {
    tier: u32,
    stop: &'a AtomicBool,
}

impl Progress for StopAt<'_> {
    fn tier_started(&self, tier: u32, _boards: u64) {
        if tier == self.tier {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn interrupted_build_resumes_and_verifies() {
    let rules = Rules::EMPTY_CAPTURE;
    let dir = temp_dir("resume");
    let cfg = BuildConfig {
        pits: 6,
        rules,
        max_seeds: 12,
        threads: 2,
    };
    let stop = AtomicBool::new(false);
    let e = build_tables(
        &dir,
        &cfg,
        &StopAt {
            tier: 9,
            stop: &stop,
        },
        &stop,
    )
    .unwrap_err();
    assert!(matches!(e, TableError::Stopped { tier: 9, .. }), "{e}");
    // Tiers 0..=8 complete, nothing of tier 9 (no final file, no temp file).
    for k in 0..=8 {
        assert!(dir.join(file_name(6, rules, k)).is_file());
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let tables = names.iter().filter(|n| n.ends_with(".tbl")).count();
    assert_eq!(tables, 9, "{names:?}");
    assert!(!names.iter().any(|n| n.contains(".tmp")), "{names:?}");

    // A leftover partial file of tier 9 and a damaged tier 8 are not trusted.
    std::fs::write(dir.join(file_name(6, rules, 9)), b"KALAHTBL partial").unwrap();
    rewrite(&dir.join(file_name(6, rules, 8)), |b| b[100] ^= 1);

    let report = build_tables(&dir, &cfg, &(), &AtomicBool::new(false)).unwrap();
    let reused: Vec<u32> = report
        .tiers
        .iter()
        .filter(|t| t.reused)
        .map(|t| t.tier)
        .collect();
    assert_eq!(reused, (0..=7).collect::<Vec<_>>());
    assert_eq!(report.tiers.len(), 13);

    let mut vcfg = VerifyConfig::new(6, rules);
    vcfg.sample = None;
    let v = verify_tables(&dir, &vcfg).unwrap();
    assert_eq!(v.files, 13);
    assert_eq!(v.rederived as u128, Index::new(6).boards_up_to(12));
    assert!(v.searched > 0);

    // A stop while complete tiers are only checked and loaded: the build
    // ends there too, and every file stays as it was.
    struct StopAfterKept<'a>(&'a AtomicBool);
    impl Progress for StopAfterKept<'_> {
        fn tier_finished(&self, stats: &kalah_solver::table::TierStats) {
            if stats.tier == 3 {
                self.0.store(true, Ordering::Relaxed);
            }
        }
    }
    let before: Vec<Vec<u8>> = (0..=12)
        .map(|k| std::fs::read(dir.join(file_name(6, rules, k))).unwrap())
        .collect();
    let stop = AtomicBool::new(false);
    let e = build_tables(&dir, &cfg, &StopAfterKept(&stop), &stop).unwrap_err();
    assert!(matches!(e, TableError::Stopped { tier: 4, .. }), "{e}");
    for (k, bytes) in before.iter().enumerate() {
        assert!(std::fs::read(dir.join(file_name(6, rules, k as u32))).unwrap() == *bytes);
    }

    // Same bytes as an uninterrupted build.
    let fresh = temp_dir("resume-fresh");
    build(&fresh, 6, rules, 12, 1);
    for k in 0..=12 {
        let name = file_name(6, rules, k);
        assert!(
            std::fs::read(dir.join(&name)).unwrap() == std::fs::read(fresh.join(&name)).unwrap()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&fresh).unwrap();
}

/// A tier file of the old format (version 1: one `i8` a board) is
/// refused with a message that says to rebuild, and a build rebuilds it
/// (and the tiers above it) like a damaged one.
#[test]
fn an_old_format_tier_is_refused_and_rebuilt() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("old-format");
    build(&dir, 4, rules, 6, 2);
    let path = dir.join(file_name(4, rules, 5));
    let values = decoded(&path, 4, rules, 5);
    // Version 1: the 27-byte header record, padding to 64, the values,
    // the checksum of all that, the end marker.
    let mut old = Vec::new();
    old.extend_from_slice(b"KALAHTBL");
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&[4, rules.code(), 1]);
    old.extend_from_slice(&5u32.to_le_bytes());
    old.extend_from_slice(&(values.len() as u64).to_le_bytes());
    old.resize(64, 0);
    old.extend(values.iter().map(|&v| v as u8));
    let sum = xxh64(&old);
    old.extend_from_slice(&sum.to_le_bytes());
    old.extend_from_slice(b"KTBLDONE");
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, &old).unwrap();

    let e = TierTable::open(&path, 4, rules, 5, Check::Full).unwrap_err();
    assert!(matches!(e, TableError::BadVersion { found: 1, .. }), "{e}");
    let message = e.to_string();
    assert!(message.contains(&*path.to_string_lossy()), "{message}");
    assert!(message.contains("kalah build"), "{message}");

    let rejected = Rejections::default();
    let cfg = BuildConfig {
        pits: 4,
        rules,
        max_seeds: 6,
        threads: 2,
    };
    let report = build_tables(&dir, &cfg, &rejected, &AtomicBool::new(false)).unwrap();
    let got = rejected.0.lock().unwrap().clone();
    assert!(
        matches!(got.as_slice(), [TableError::BadVersion { found: 1, path: p }] if *p == path),
        "{got:?}"
    );
    let reused: Vec<bool> = report.tiers.iter().map(|t| t.reused).collect();
    assert_eq!(reused, [true, true, true, true, true, false, false]);
    assert_eq!(decoded(&path, 4, rules, 5), values);
    verify_tables(&dir, &VerifyConfig::new(4, rules)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records the tiers a build rejects.
#[derive(Default)]
struct Rejections(std::sync::Mutex<Vec<TableError>>);

impl Progress for Rejections {
    fn rejected(&self, error: &TableError) {
        self.0.lock().unwrap().push(error.clone());
    }
}

#[test]
fn rerun_of_a_complete_build_keeps_everything() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("rerun");
    build(&dir, 5, rules, 8, 2);
    let cfg = BuildConfig {
        pits: 5,
        rules,
        max_seeds: 9,
        threads: 2,
    };
    let report = build_tables(&dir, &cfg, &(), &AtomicBool::new(false)).unwrap();
    assert!(report.tiers[..9].iter().all(|t| t.reused));
    assert!(!report.tiers[9].reused);
    assert_eq!(report.built_boards as u128, Index::new(5).tier_size(9));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn open_errors() {
    let dir = temp_dir("empty");
    let e = Tables::open(&dir, 6, Rules::STANDARD).unwrap_err();
    assert!(matches!(e, TableError::Missing { .. }), "{e}");
    let e = verify_tables(&dir, &VerifyConfig::new(6, Rules::STANDARD)).unwrap_err();
    assert!(matches!(e, TableError::Missing { .. }), "{e}");
    let cfg = BuildConfig {
        pits: 6,
        rules: Rules::STANDARD,
        max_seeds: 128,
        threads: 1,
    };
    let e = build_tables(&dir, &cfg, &(), &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, TableError::Unsupported { .. }), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn garbage_never_panics() {
    // Any prefix of a valid file, and random bytes, give an error.
    let rules = Rules::STANDARD;
    let dir = temp_dir("garbage");
    build(&dir, 3, rules, 4, 1);
    let path = dir.join(file_name(3, rules, 4));
    let good = std::fs::read(&path).unwrap();
    for n in 0..good.len() {
        assert!(TierTable::from_bytes(&good[..n], &path, 3, rules, 4, Check::Full).is_err());
        assert!(TierTable::from_bytes(&good[..n], &path, 3, rules, 4, Check::Remembered).is_err());
    }
    let mut rng = SplitMix64::new(12345);
    for _ in 0..200 {
        let bytes: Vec<u8> = (0..good.len()).map(|_| rng.next_u64() as u8).collect();
        assert!(TierTable::from_bytes(bytes, &path, 3, rules, 4, Check::Remembered).is_err());
    }
    assert!(TierTable::from_bytes(good, &path, 3, rules, 4, Check::Full).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Heavy: 6 pits to 16 seeds, every entry re-derived (about 30 M boards).
#[test]
#[ignore]
fn m6_to_16_seeds_verifies_completely() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let dir = temp_dir("heavy");
        build(&dir, 6, rules, 16, 2);
        let mut cfg = VerifyConfig::new(6, rules);
        cfg.sample = None;
        cfg.reference_sample = 20_000;
        verify_tables(&dir, &cfg).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Issue 12, defect 8: `verify` with a tier missing in the middle names the
/// gap as a failure instead of checking the tiers below it only.
#[test]
fn verify_reports_a_missing_middle_tier() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("gap");
    build(&dir, 3, rules, 6, 1);
    let gap = dir.join(file_name(3, rules, 3));
    std::fs::remove_file(&gap).unwrap();
    let e = verify_tables(&dir, &VerifyConfig::new(3, rules)).unwrap_err();
    assert!(
        matches!(&e, TableError::Missing { path } if *path == gap),
        "{e}"
    );
    assert!(e.to_string().contains(&*gap.to_string_lossy()), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file changed in place after its checksum was checked and stamped is
/// checked again, even when its modification time is set back: the
/// stamp holds for the very file checked (its change time moves on any
/// write), never for the bytes there now.
#[test]
fn a_stamp_never_vouches_for_a_file_changed_since() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("stamp");
    build(&dir, 4, rules, 6, 1);
    let path = dir.join(file_name(4, rules, 6));
    let stamp = kalah_solver::table::stamp::stamp_path(&path);
    assert!(stamp.is_file(), "the builder stamps what it wrote");
    // Trusted as it is.
    TierTable::open(&path, 4, rules, 6, Check::Remembered).unwrap();
    // One value changed in place, the modification time set back.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 0x01;
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut f, &bytes).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    let e = TierTable::open(&path, 4, rules, 6, Check::Remembered).unwrap_err();
    assert!(matches!(e, TableError::BadChecksum { .. }), "{e}");
    let tables = Tables::open(&dir, 4, rules).unwrap();
    assert!(matches!(
        tables.open_all(),
        Err(TableError::BadChecksum { .. })
    ));
    // Put back, the file is checked in full, passes and is stamped again.
    bytes[100] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    TierTable::open(&path, 4, rules, 6, Check::Remembered).unwrap();
    let tables = Tables::open(&dir, 4, rules).unwrap();
    tables.open_all().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tier that failed is tried again once its file is replaced (a
/// rebuild), not before.
#[test]
fn a_failed_tier_is_opened_again_once_replaced() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("retry");
    build(&dir, 3, rules, 5, 1);
    let path = dir.join(file_name(3, rules, 5));
    let good = std::fs::read(&path).unwrap();
    rewrite(&path, |b| b[70] ^= 4);
    let tables = Tables::open(&dir, 3, rules).unwrap();
    assert!(tables.tier(5).unwrap().is_err());
    assert!(tables.tier(5).unwrap().is_err());
    let tmp = dir.join("new.tmp");
    std::fs::write(&tmp, &good).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    assert!(tables.tier(5).unwrap().is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records what a build says while it runs.
#[derive(Default)]
struct Said {
    waiting: std::sync::Mutex<Vec<PathBuf>>,
    rejected: std::sync::Mutex<Vec<String>>,
    waited: std::sync::Mutex<Option<std::sync::mpsc::Sender<()>>>,
}

impl Progress for Said {
    fn waiting(&self, lock: &Path) {
        self.waiting.lock().unwrap().push(lock.to_path_buf());
        if let Some(tx) = self.waited.lock().unwrap().take() {
            tx.send(()).unwrap();
        }
    }
    fn rejected(&self, error: &TableError) {
        self.rejected.lock().unwrap().push(error.to_string());
    }
}

/// A build waits for the one that holds the directory's lock, says so,
/// then resumes from what is there; temporary files of a dead build are
/// removed once it holds the lock, and a damaged tier is named.
#[test]
fn a_build_waits_for_the_lock_then_cleans_up_and_resumes() {
    let rules = Rules::STANDARD;
    let dir = temp_dir("lock");
    build(&dir, 3, rules, 4, 1);
    // Leftovers of dead builds: this version's names, an older version's,
    // and a stamp being written; and one file of another rule set.
    let k2 = dir.join(file_name(3, rules, 2));
    let stale = [
        format!("{}.tmp.4242.0", file_name(3, rules, 5)),
        format!("{}.tmp", file_name(3, rules, 6)),
        format!("{}.checked.tmp.4242.3", file_name(3, rules, 1)),
    ];
    for s in &stale {
        std::fs::write(dir.join(s), b"partial").unwrap();
    }
    let other = dir.join(format!("{}.tmp.1.1", file_name(3, Rules::EMPTY_CAPTURE, 5)));
    std::fs::write(&other, b"not ours").unwrap();
    rewrite(&k2, |b| b[66] ^= 1);

    let lock = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(kalah_solver::table::lock_path(&dir, 3, rules))
        .unwrap();
    lock.lock().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let said = Said {
        waited: std::sync::Mutex::new(Some(tx)),
        ..Said::default()
    };
    let report = std::thread::scope(|s| {
        let builder = s.spawn(|| {
            let cfg = BuildConfig {
                pits: 3,
                rules,
                max_seeds: 6,
                threads: 1,
            };
            build_tables(&dir, &cfg, &said, &AtomicBool::new(false))
        });
        // The builder says it waits; nothing is touched meanwhile.
        rx.recv().unwrap();
        for s in &stale {
            assert!(dir.join(s).exists(), "{s} removed without the lock");
        }
        lock.unlock().unwrap();
        builder.join().unwrap().unwrap()
    });
    assert_eq!(said.waiting.lock().unwrap().len(), 1);
    let rejected = said.rejected.lock().unwrap().clone();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(rejected[0].contains(&*k2.to_string_lossy()), "{rejected:?}");
    let kept: Vec<u32> = report
        .tiers
        .iter()
        .filter(|t| t.reused)
        .map(|t| t.tier)
        .collect();
    assert_eq!(kept, vec![0, 1]);
    for s in &stale {
        assert!(!dir.join(s).exists(), "{s} left behind");
    }
    assert!(other.exists(), "another rule set's file removed");
    let mut cfg = VerifyConfig::new(3, rules);
    cfg.sample = None;
    assert_eq!(verify_tables(&dir, &cfg).unwrap().files, 7);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A probe that lies about one board: the value of the root, one more.
struct LyingProbe {
    game: Game,
    root: Board,
}

impl Probe for LyingProbe {
    fn max_seeds(&self) -> u32 {
        self.root.seeds()
    }
    fn probe(&self, board: Board) -> Option<i32> {
        (board.seeds() <= self.root.seeds())
            .then(|| self.game.reference_value(board) + i32::from(board == self.root))
    }
}

/// Issue 12, defect 2: tables that contradict themselves make the
/// principal variation fail with an error naming the position, never a
/// panic ("no sowing keeps the value" was an `unreachable!`).
#[test]
fn inconsistent_table_values_are_an_error_not_a_panic() {
    use kalah_solver::search::{AnalysisError, SearchConfig, Solver};
    use kalah_solver::Position;
    let game = Game::new(3, Rules::STANDARD);
    let start = Position::start(3, 2).unwrap();
    let probe = LyingProbe {
        game: game.clone(),
        root: start.board(),
    };
    let config = SearchConfig {
        tt_mb: 1,
        threads: 1,
        ..SearchConfig::default()
    };
    let solver = Solver::new(game, config, Some(std::sync::Arc::new(probe))).unwrap();
    let e = solver.solve_line(&start).unwrap_err();
    assert!(matches!(e, AnalysisError::Inconsistent { .. }), "{e}");
    assert!(e.to_string().contains("inconsistent"), "{e}");
    assert!(solver.analyse(&start).is_err());
}
