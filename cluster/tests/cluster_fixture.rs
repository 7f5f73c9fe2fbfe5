//! A work directory recorded by the program under its old name
//! (`kalah-dist`, tests/fixtures/README.md) resumes under `kalah-cluster`:
//! every record is taken (none refused, none searched again), the run ends
//! at the value of an independent solve, and nothing in the directory
//! names the program, so that a rename cannot break a run on disk.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kalah_solver::search::SearchConfig;
use kalah_solver::{Game, Line, Numbering, Position, Rules, Solver};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded-4-4")
}

/// Copies `from` into `to`, a directory tree of plain files.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Every file of the tree, gzip ones decompressed, as text.
fn texts(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            texts(&p, out);
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let text = if p.extension().is_some_and(|x| x == "gz") {
            let mut s = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut s)
                .unwrap();
            s
        } else {
            String::from_utf8(bytes).unwrap()
        };
        out.push((p, text));
    }
}

/// Unit records in the fixture: the lines of its segments, and its loose
/// files (one record each).
fn record_count(files: &[(PathBuf, String)]) -> usize {
    files
        .iter()
        .map(|(p, t)| match p.extension().and_then(|x| x.to_str()) {
            Some("gz") => t.lines().filter(|l| !l.trim().is_empty()).count(),
            Some("json") if !p.ends_with("run.json") => 1,
            _ => 0,
        })
        .sum()
}

#[test]
fn nothing_on_disk_names_the_program() {
    let mut files = Vec::new();
    texts(&fixture(), &mut files);
    assert!(record_count(&files) > 0);
    for (p, text) in &files {
        for name in ["kalah-dist", "kalah-cluster", "kalah_dist", "kalah_cluster"] {
            assert!(!text.contains(name), "{} names {name}", p.display());
        }
    }
}

#[test]
fn a_run_recorded_under_the_old_name_resumes() {
    let work = std::env::temp_dir().join(format!("kalah-cluster-fixture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    copy_tree(&fixture(), &work);
    let mut files = Vec::new();
    texts(&work, &mut files);
    let recorded = record_count(&files) as u64;
    let out = Command::new(env!("CARGO_BIN_EXE_kalah-cluster"))
        .args([
            "solve",
            "--no-tables",
            "--local",
            "--pits",
            "4",
            "--seeds",
            "4",
        ])
        .args([
            "--unit-budget",
            "20000",
            "--progress",
            "0",
            "--json",
            "--work",
        ])
        .arg(&work)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("refused"), "{stderr}");
    assert!(
        stderr.contains(&format!("{recorded} units answered before")),
        "{stderr}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let this_run = j["units_this_run"].as_u64().unwrap();
    assert!(this_run > 0, "the fixture lacks units: {j}");
    assert_eq!(j["units"].as_u64(), Some(recorded + this_run), "{j}");
    // The value of an independent solve, and a perfect game that ends there.
    let game = Game::new(4, Rules::STANDARD);
    let start = Position::start(4, 4).unwrap();
    let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
    let value = solver.solve(&start).unwrap();
    assert_eq!(j["value"].as_i64(), Some(i64::from(value)));
    let line = Line::parse(j["pv"].as_str().unwrap(), Numbering::FromOne).unwrap();
    let end = line.replay(&game, start).unwrap();
    assert_eq!(end.final_score(game.rules()), Some(value));
    std::fs::remove_dir_all(&work).unwrap();
}

/// Output as `kalah`'s (issue 52): `status` into a pipe whose reader has
/// gone (`| head -c0`) ends quietly with status 0; into a full disk it
/// says it cannot write and exits 1; never a panic.
#[test]
fn status_into_a_closed_pipe_ends_quietly_and_into_a_full_disk_fails() {
    let work = std::env::temp_dir().join(format!("kalah-cluster-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    copy_tree(&fixture(), &work);
    let status = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kalah-cluster"));
        c.arg("status").arg("--work").arg(&work);
        c
    };
    let mut child = status()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah-cluster");
    // Close the only read end before the command writes anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "closed pipe: {stderr}");
    assert!(stderr.trim().is_empty(), "closed pipe: {stderr}");
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = status()
            .stdout(Stdio::from(full))
            .output()
            .expect("run kalah-cluster");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "/dev/full: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output") && !stderr.contains("panicked"),
            "/dev/full: {stderr}"
        );
    }
    std::fs::remove_dir_all(&work).unwrap();
}
