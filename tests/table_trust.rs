//! No value from unchecked table bytes, through the binary: damaged tier
//! files (random byte flips in header, values and trailer) under `solve`,
//! `query`, `query --batch`, `play` and `reproduce`; builds into one
//! directory killed at random moments; and tables deleted, rebuilt and
//! replaced under a running batch query.
//!
//! Every command either prints exactly what it prints over clean tables,
//! or fails with status 1 naming the damaged file; never a panic (status
//! 101), never another value.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{path, run_with_input, temp_dir, Rng};
use kalah::table::{file_name, Check, TierTable};
use kalah::{Game, Index, Position, Rules};

/// Houses a side of the tables under test, and their depth.
const PITS: usize = 4;
const K: u32 = 10;

fn kalah_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kalah"));
    c.args(args);
    c
}

fn run(args: &[&str], input: &str) -> Output {
    run_with_input(args, input.as_bytes())
}

fn tier_path(dir: &Path, k: u32) -> PathBuf {
    dir.join(file_name(PITS, Rules::STANDARD, k))
}

fn build(dir: &Path, k: u32) {
    let out = run(
        &[
            "build",
            "--pits",
            &PITS.to_string(),
            "--max-seeds",
            &k.to_string(),
            "--tables",
            path(dir),
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A random position of `PITS` houses a side with `seeds` seeds in the
/// houses, as query text.
fn random_position(rng: &mut Rng, seeds: u32) -> String {
    let mut houses = [0u32; 2 * PITS];
    for _ in 0..seeds {
        houses[rng.below(2 * PITS as u64) as usize] += 1;
    }
    let store = |rng: &mut Rng| rng.below(6).to_string();
    let mut words: Vec<String> = houses[..PITS].iter().map(u32::to_string).collect();
    words.push(store(rng));
    words.extend(houses[PITS..].iter().map(u32::to_string));
    words.push(store(rng));
    words.push(if rng.below(2) == 0 { "S" } else { "N" }.to_string());
    words.join(" ")
}

/// `count` random positions from the generator seeded with `seed`, each with
/// a number of seeds in the houses drawn from `seeds`.
fn random_positions(seed: u64, count: usize, seeds: std::ops::Range<u32>) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let k = seeds.start + rng.below(u64::from(seeds.end - seeds.start)) as u32;
            random_position(&mut rng, k)
        })
        .collect()
}

/// What a JSON answer line says about values (value, result, moves, best,
/// and pv when given), as JSON; an error line, or one that is not a JSON
/// answer, whole.
fn values_of(line: &str) -> String {
    match serde_json::from_str(line) {
        Ok(serde_json::Value::Object(mut answer)) if answer.contains_key("value") => {
            answer.retain(|k, _| ["value", "result", "moves", "best", "pv"].contains(&k.as_str()));
            serde_json::Value::Object(answer).to_string()
        }
        _ => line.to_string(),
    }
}

/// The rows of `reproduce`'s table without their time and node columns.
fn reproduce_rows(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w[..w.len().saturating_sub(2)].join(" ")
        })
        .collect()
}

/// What `solve --json` says about values (`null` where it says nothing).
fn solve_values(text: &str) -> String {
    let answer: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    format!("value {} pv {}", answer["value"], answer["pv"])
}

/// Where in the tier files the values that a query of `positions` reads
/// are found: (tier, byte offset) of a byte of the index entry of each
/// position's board and of its children (format version 2: the 64-byte
/// header, then 16 bytes for each 1024 boards), which every probe of the
/// board reads first.
fn entries_read(positions: &[String]) -> Vec<(u32, u64)> {
    let game = Game::new(PITS, Rules::STANDARD);
    let index = Index::new(PITS);
    let mut out = Vec::new();
    for text in positions {
        let board = text.parse::<Position>().expect("position").board();
        let mut boards = vec![board];
        let mut moves = game.moves(board);
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            boards.push(game.sow(board, house).board);
        }
        for b in boards {
            if b.seeds() <= K && game.terminal_value(b).is_none() {
                let rank = index.rank(b);
                out.push((b.seeds(), 64 + 16 * (rank / 1024) + rank % 16));
            }
        }
    }
    out
}

/// The commands run against the tables in `dir`, each with what it
/// prints that must not change.
struct Commands {
    dir: PathBuf,
    query_position: String,
    batch_input: String,
    play_input: String,
}

impl Commands {
    fn table_flags(&self) -> Vec<String> {
        vec![
            "--tables".into(),
            path(&self.dir).into(),
            "--table-seeds".into(),
            K.to_string(),
            "--tt-mb".into(),
            "8".into(),
            "--threads".into(),
            "1".into(),
        ]
    }

    /// Runs command `i` (0..5): its name, output, and what of its
    /// standard output must equal the clean run's.
    fn run(&self, i: usize) -> (&'static str, Output, String) {
        let flags = self.table_flags();
        let (name, mut args, input): (&str, Vec<String>, &str) = match i {
            0 => (
                "solve",
                vec!["solve", "--pits", "4", "--seeds", "2", "--json"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
                "",
            ),
            1 => (
                "query",
                vec!["query".into(), self.query_position.clone(), "--json".into()],
                "",
            ),
            2 => (
                "query --batch",
                vec!["query".into(), "--batch".into(), "-".into()],
                &self.batch_input,
            ),
            3 => (
                "play",
                vec!["play", "--pits", "4", "--seeds", "2", "--hints"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
                &self.play_input,
            ),
            _ => (
                "reproduce",
                vec![
                    "reproduce",
                    "--max-pits",
                    "4",
                    "--max-seeds",
                    "2",
                    "--rules",
                    "standard",
                    "--no-pie",
                ]
                .into_iter()
                .map(String::from)
                .collect(),
                "",
            ),
        };
        args.extend(flags);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args, input);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let kept = match i {
            0 => solve_values(&text),
            1 | 2 => text.lines().map(values_of).collect::<Vec<_>>().join("\n"),
            3 => text,
            _ => reproduce_rows(&text).join("\n"),
        };
        (name, out, kept)
    }
}

/// Flips random bytes of random tier files, one file at a time, and runs
/// every command over the damaged tables: each must print what it prints
/// over clean tables, or fail with status 1 naming the damaged file.
#[test]
fn damaged_tier_files_never_give_a_wrong_value_or_a_panic() {
    let dir = temp_dir("flip");
    build(&dir, K);
    let mut rng = Rng::new(0x5EED_F11B);
    // Positions inside the tables (every tier) and outside (a search).
    let mut batch: Vec<String> = (0..=K).map(|s| random_position(&mut rng, s)).collect();
    batch.push(random_position(&mut rng, K + 3));
    let commands = Commands {
        dir: dir.clone(),
        query_position: random_position(&mut rng, K),
        batch_input: batch.join("\n") + "\n",
        play_input: "1\n2\n3\n4\n".repeat(12) + "q\n",
    };
    // Clean runs (which also build the small tables `reproduce` needs).
    let clean: Vec<String> = (0..5)
        .map(|i| {
            let (name, out, kept) = commands.run(i);
            assert_eq!(
                out.status.code(),
                Some(0),
                "clean {name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            kept
        })
        .collect();
    assert!(clean[0].contains("value "), "{}", clean[0]);
    assert!(clean[2].lines().count() == batch.len(), "{}", clean[2]);
    // The entries the queries read: half of their flips go there.
    let read_by_query = entries_read(std::slice::from_ref(&commands.query_position));
    let read_by_batch = entries_read(&batch);
    let originals: Vec<Vec<u8>> = (0..=K)
        .map(|k| std::fs::read(tier_path(&dir, k)).expect("tier file"))
        .collect();

    let (mut failed, mut rebuilt) = (0, 0);
    for round in 0..40 {
        for (i, want) in clean.iter().enumerate() {
            let read = match i {
                1 => &read_by_query,
                2 => &read_by_batch,
                _ => &Vec::new(),
            };
            let mut k = rng.below(K as u64 + 1) as u32;
            let len = |k: u32| originals[k as usize].len() as u64;
            // The 64-byte header, the 16-byte trailer, any byte, or a byte
            // of an index entry the command reads.
            let at = match rng.below(4) {
                0 => rng.below(64),
                1 => len(k) - 1 - rng.below(16),
                3 if !read.is_empty() => {
                    let (tier, at) = read[rng.below(read.len() as u64) as usize];
                    k = tier;
                    at
                }
                _ => rng.below(len(k)),
            };
            let file = tier_path(&dir, k);
            let flip = 1 + rng.below(255) as u8;
            // One byte changed in place.
            let mut bytes = originals[k as usize].clone();
            bytes[at as usize] ^= flip;
            std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .and_then(|mut f| f.write_all(&bytes))
                .expect("flip");

            let (name, out, got) = commands.run(i);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!(
                "round {round}: {name} with byte {at} of {} xor {flip:#04x}",
                file.display()
            );
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
            match out.status.code() {
                Some(0) => {
                    assert_eq!(&got, want, "{what}: a different answer\n{stderr}");
                    if stderr.contains(&file_name(PITS, Rules::STANDARD, k)) {
                        rebuilt += 1;
                    }
                }
                Some(1) => {
                    assert!(
                        stderr.contains(&*file.to_string_lossy()),
                        "{what}: failed without naming the file: {stderr}"
                    );
                    // What the batch printed before it failed is right.
                    if i == 2 {
                        for (g, w) in got.lines().zip(want.lines()) {
                            assert_eq!(g, w, "{what}: a different answer");
                        }
                    }
                    failed += 1;
                }
                code => panic!("{what}: status {code:?}: {stderr}"),
            }
            // The clean file back (by rename, as a writer must).
            let fresh = dir.join("restore.tmp");
            std::fs::write(&fresh, &originals[k as usize]).expect("restore");
            std::fs::rename(&fresh, &file).expect("restore");
        }
    }
    // Both ways out were taken: the test is not vacuous.
    eprintln!("{failed} failures naming the file, {rebuilt} rebuilt");
    assert!(
        failed > 0 && rebuilt > 0,
        "{failed} failures, {rebuilt} rebuilt"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every tier file in `dir` passes the full check (header, size, end
/// marker, checksum of every byte, stamps ignored).
fn every_file_checks(dir: &Path) -> usize {
    let mut n = 0;
    for k in 0..=127 {
        let p = tier_path(dir, k);
        if p.exists() {
            if let Err(e) = TierTable::open(&p, PITS, Rules::STANDARD, k, Check::Full) {
                panic!("{e}");
            }
            n += 1;
        }
    }
    n
}

/// Answers of `query --batch` over `input` with the tables in `dir`.
fn batch_values(dir: &Path, input: &str) -> (Option<i32>, Vec<String>, String) {
    let out = run(&["query", "--batch", "-", "--tables", path(dir)], input);
    let text = String::from_utf8_lossy(&out.stdout);
    (
        out.status.code(),
        text.lines().map(values_of).collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Builds into one directory killed at random moments (SIGKILL), several
/// at a time: afterwards every file there is whole, `query` answers
/// correctly, and a build completes; builds that are not killed all
/// succeed.
#[test]
fn concurrent_builds_killed_at_random_leave_only_whole_files() {
    const DEPTH: u32 = 13;
    let clean = temp_dir("clean");
    build(&clean, DEPTH);
    let mut rng = Rng::new(0x00B1_11D5);
    let input: String = (0..60)
        .map(|i| random_position(&mut rng, 1 + (i % DEPTH as usize) as u32) + "\n")
        .collect();
    let (code, want, err) = batch_values(&clean, &input);
    assert_eq!(code, Some(0), "{err}");

    let dir = temp_dir("race");
    let args = [
        "build",
        "--pits",
        "4",
        "--max-seeds",
        &DEPTH.to_string(),
        "--tables",
        path(&dir),
    ];
    for round in 0..6 {
        let mut builds: Vec<Child> = (0..3)
            .map(|_| {
                kalah_cmd(&args)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("build")
            })
            .collect();
        for b in &mut builds {
            std::thread::sleep(Duration::from_millis(rng.below(250)));
            let _ = b.kill();
        }
        for mut b in builds {
            let _ = b.wait();
        }
        every_file_checks(&dir);
        let (code, got, err) = batch_values(&dir, &input);
        assert!(!err.contains("panicked"), "round {round}: {err}");
        assert_eq!(code, Some(0), "round {round}: {err}");
        assert_eq!(got, want, "round {round}: {err}");
    }
    build(&dir, DEPTH);
    assert_eq!(every_file_checks(&dir), DEPTH as usize + 1);
    assert_eq!(batch_values(&dir, &input).1, want);

    // Builds that run to the end, at once into one new directory: all
    // succeed, and the tables are whole.
    let dir2 = temp_dir("together");
    let args2 = [
        "build",
        "--pits",
        "4",
        "--max-seeds",
        &DEPTH.to_string(),
        "--tables",
        path(&dir2),
    ];
    let builds: Vec<Child> = (0..3)
        .map(|_| {
            kalah_cmd(&args2)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("build")
        })
        .collect();
    for b in builds {
        let out = b.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(every_file_checks(&dir2), DEPTH as usize + 1);
    assert_eq!(batch_values(&dir2, &input).1, want);
    for d in [clean, dir, dir2] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A batch query keeps answering correctly while its tables are deleted
/// and rebuilt, then replaced file by file, under it: it keeps the files
/// it mapped (a rebuild renames new files into place, never writes into
/// old ones).
#[test]
fn rebuild_under_a_running_batch_query_is_safe() {
    let dir = temp_dir("under");
    build(&dir, K);
    let spare = temp_dir("spare");
    build(&spare, K);
    let mut rng = Rng::new(0xBA7C);
    // More lines than the batch reads at once before answering (32 768),
    // so that the first part is answered, every tier mapped, before the
    // tables change.
    let part = |rng: &mut Rng| -> String {
        (0..33_000)
            .map(|i| random_position(rng, (i % (K as usize + 1)) as u32) + "\n")
            .collect()
    };
    let parts = [part(&mut rng), part(&mut rng), part(&mut rng)];
    let whole: String = parts.concat();
    let (code, want, err) = batch_values(&dir, &whole);
    assert_eq!(code, Some(0), "{err}");

    let mut child = kalah_cmd(&["query", "--batch", "-", "--tables", path(&dir)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("batch");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            lines.push(values_of(&line));
            let _ = tx.send(lines.len());
        }
        lines
    });
    let wait_for = |n: usize| {
        while let Ok(got) = rx.recv_timeout(Duration::from_secs(60)) {
            if got >= n {
                return;
            }
        }
        panic!("the batch answered fewer than {n} lines");
    };

    stdin.write_all(parts[0].as_bytes()).expect("part 1");
    wait_for(32_768);
    // Delete every file, rebuild while the batch reads on.
    for k in 0..=K {
        std::fs::remove_file(tier_path(&dir, k)).expect("delete");
    }
    let rebuild = kalah_cmd(&[
        "build",
        "--pits",
        "4",
        "--max-seeds",
        &K.to_string(),
        "--tables",
        path(&dir),
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .expect("rebuild");
    stdin.write_all(parts[1].as_bytes()).expect("part 2");
    let rebuilt = rebuild.wait_with_output().expect("rebuild");
    assert_eq!(rebuilt.status.code(), Some(0));
    wait_for(2 * 32_768);
    // Then replace every file by another copy, renamed over it.
    for k in 0..=K {
        let tmp = dir.join("replace.tmp");
        std::fs::copy(tier_path(&spare, k), &tmp).expect("copy");
        std::fs::rename(&tmp, tier_path(&dir, k)).expect("replace");
    }
    stdin.write_all(parts[2].as_bytes()).expect("part 3");
    drop(stdin);
    let status = child.wait().expect("wait");
    let got = reader.join().expect("reader");
    let mut err = String::new();
    let _ = stderr.read_to_string(&mut err);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(got.len(), want.len(), "{err}");
    assert!(got == want, "answers changed under the rebuild");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&spare);
}

/// Issue 12, defects 5, 8 and 9: small odd games run with their default
/// tables; a missing middle tier fails `verify`; a build larger than the
/// machine and absurd thread counts are refused as bad input.
#[test]
fn limits_gaps_and_odd_sizes() {
    let dir = temp_dir("limits");
    let tables = ["--tables", path(&dir)];
    let with = |args: &[&str]| -> Output {
        let mut a = args.to_vec();
        a.extend(tables);
        run(&a, "")
    };
    // One house a side (default depth 9 seeds) and eight houses over
    // small tables give the value plain search gives.
    for game in [
        ["--pits", "1", "--seeds", "5", "--table-seeds", "0"],
        ["--pits", "8", "--seeds", "1", "--table-seeds", "5"],
    ] {
        let value = |extra: &[&str]| {
            let mut a = vec!["solve", "--json", "--tt-mb", "8"];
            a.extend(&game[..4]);
            a.extend(extra);
            let out = with(&a);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(0), "{game:?} {extra:?}: {err}");
            // The value; a perfect game may differ in its ties.
            let text = solve_values(&String::from_utf8_lossy(&out.stdout));
            text.split(" pv").next().unwrap_or_default().to_string()
        };
        let searched = value(&["--no-tables"]);
        let tabled = if game[1] == "1" {
            value(&[])
        } else {
            value(&game[4..])
        };
        assert_eq!(tabled, searched, "{game:?}");
    }

    // A tier missing in the middle: verify fails and names it.
    build(&dir, 6);
    let gap = tier_path(&dir, 3);
    std::fs::remove_file(&gap).expect("delete");
    let out = with(&["verify", "--pits", "4"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&*gap.to_string_lossy()), "{err}");

    // 6 houses to 127 seeds: about 10^16 bytes.
    let out = with(&["build", "--pits", "6", "--max-seeds", "127"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(" bytes") && err.contains("--no-size-limit"),
        "{err}"
    );
    assert!(!dir.join(file_name(6, Rules::STANDARD, 0)).exists());
    // Solving with such tables asked for is refused the same way.
    let out = with(&[
        "solve",
        "--pits",
        "6",
        "--seeds",
        "30",
        "--table-seeds",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2));

    for args in [
        &[
            "solve",
            "--pits",
            "2",
            "--seeds",
            "1",
            "--threads",
            "100000",
        ][..],
        &[
            "build",
            "--pits",
            "2",
            "--max-seeds",
            "3",
            "--threads",
            "5000",
        ],
        &["verify", "--pits", "4", "--threads", "5000"],
        &["build", "--pits", "2", "--max-seeds", "128"],
        &[
            "solve",
            "--pits",
            "2",
            "--seeds",
            "1",
            "--table-seeds",
            "128",
        ],
    ] {
        let out = with(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Negates every entry of tier `k` and writes it back well-formed (encoded,
/// with a matching checksum): a table changed behind the checksum's back
/// (forged, or written in place through a memory map after it was checked
/// and stamped).
fn forge_negated_tier(dir: &Path, k: u32) {
    let p = tier_path(dir, k);
    let t = TierTable::open(&p, PITS, Rules::STANDARD, k, Check::Full).unwrap();
    let mut values = vec![0i8; t.count() as usize];
    t.decode_all(&mut values).unwrap();
    drop(t);
    let image = kalah::table::format::file_image(PITS, Rules::STANDARD, k, values.len(), &|i| {
        values[i].wrapping_neg()
    })
    .unwrap();
    std::fs::write(&p, &image).unwrap();
}

/// Tables whose checksums pass but whose values contradict each other (a
/// forged checksum, or bytes written in place after the check) are
/// refused where an answer reads entries that contradict each other: a
/// single query (two levels checked) and a batch (one level) fail with
/// status 1 saying so.
#[test]
fn tables_that_contradict_themselves_are_refused() {
    let dir = temp_dir("forged");
    build(&dir, 8);
    let positions = random_positions(12, 200, 5..9);
    let input = positions.join("\n") + "\n";
    let (status, _, err) = batch_values(&dir, &input);
    assert_eq!(status, Some(0), "{err}");
    forge_negated_tier(&dir, 7);
    for p in tier_paths_stamps(&dir) {
        let _ = std::fs::remove_file(p);
    }
    // The batch checks one level (a value is the best of its moves') in
    // its inner loop: it stops at the first entry that contradicts them.
    let (status, values, err) = batch_values(&dir, &input);
    assert_eq!(status, Some(1), "forged tables answered: {values:?}");
    assert!(err.contains("contradict themselves"), "{err}");
    // Single queries check two levels (each move's value against its own
    // moves'). Entries forged to agree with each other cannot be told from
    // the real ones by any local check, so this counts refusals; the
    // checksum and the stamps are what keep such bytes out.
    let mut refused = 0;
    for pos in positions.iter().take(60) {
        let out = run(
            &[
                "query",
                pos,
                "--json",
                "--tables",
                path(&dir),
                "--time-limit",
                "20",
            ],
            "",
        );
        match out.status.code() {
            Some(0) => {}
            Some(1) => {
                refused += 1;
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(err.contains("contradict themselves"), "{pos}: {err}");
            }
            other => panic!(
                "{pos}: status {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    assert!(refused > 0, "no query met the forged tier");
}

/// The stamps beside the tier files.
fn tier_paths_stamps(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".checked"))
        .collect()
}

/// An interactive batch opens every tier when it sets up a board size: the
/// tables deleted afterwards (before a line needed them) do not stop it.
#[test]
fn a_batch_keeps_answering_when_its_tables_are_deleted() {
    let dir = temp_dir("deleted");
    build(&dir, 8);
    let positions = random_positions(5, 40, 2..9);
    let input = positions.join("\n") + "\n";
    let (_, truth, _) = batch_values(&dir, &input);
    let mut child = kalah_cmd(&["query", "--batch", "-", "--json", "--tables", path(&dir)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "{}", positions[0]).unwrap();
    let first = lines.next().unwrap().unwrap();
    assert_eq!(values_of(&first), truth[0]);
    std::fs::remove_dir_all(&dir).unwrap();
    for (pos, want) in positions.iter().zip(&truth).skip(1) {
        writeln!(stdin, "{pos}").unwrap();
        let line = lines.next().expect("an answer").unwrap();
        assert_eq!(&values_of(&line), want, "{pos}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
