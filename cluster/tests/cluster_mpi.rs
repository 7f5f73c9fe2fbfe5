//! The distributed solve over MPI (`mpirun` must be installed; `.ci/run`
//! installs Open MPI): Kalah(6,4) with empty capture (+10) over small
//! tables, with a worker killed mid-run and with the coordinator killed
//! mid-run; rerunning the same command resumes from the work directory,
//! asks only for the units it has no answer to, and gives the same value.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use kalah_solver::{Game, Line, Numbering, Position, Rules};

const BIN: &str = env!("CARGO_BIN_EXE_kalah-cluster");
const GAME: [&str; 7] = [
    "--pits",
    "6",
    "--seeds",
    "4",
    "--empty-capture",
    "--table-seeds",
    "16",
];

/// One MPI job at a time (2 cores), and the tables built once.
fn tables() -> &'static Mutex<PathBuf> {
    static T: OnceLock<Mutex<PathBuf>> = OnceLock::new();
    T.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("kalah-cluster-mpi-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(BIN)
            .arg("prepare")
            .args(GAME)
            .arg("--tables")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Mutex::new(dir)
    })
}

fn mpirun(tables: &Path, work: &Path, workers: usize) -> Child {
    mpirun_with(tables, work, workers, &[])
}

/// `workers` worker ranks, with `extra` options to `solve`.
fn mpirun_with(tables: &Path, work: &Path, workers: usize, extra: &[&str]) -> Child {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false);
    let mut c = Command::new("mpirun");
    if root {
        c.arg("--allow-run-as-root");
    }
    c.args(["--oversubscribe", "--bind-to", "none", "-n"])
        .arg((workers + 1).to_string())
        .arg(BIN)
        .arg("solve")
        .args(GAME)
        .arg("--tables")
        .arg(tables)
        .arg("--work")
        .arg(work)
        .args(["--frontier", "4", "--json", "--progress", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs (install Open MPI: apt-get install openmpi-bin libopenmpi-dev)")
}

fn units(work: &Path) -> usize {
    std::fs::read_dir(work.join("units"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
            })
            .count()
        })
        .unwrap_or(0)
}

/// Runs the solve, SIGKILLs rank `victim` once `after` units are stored,
/// checks the job failed, then reruns it to the end and checks the answer.
fn kill_and_resume(name: &str, victim: u32, after: usize) {
    let guard = tables().lock().unwrap_or_else(|e| e.into_inner());
    let work = std::env::temp_dir().join(format!("kalah-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let mut job = mpirun(&guard, &work, 2);
    let t0 = Instant::now();
    while units(&work) < after {
        assert!(
            job.try_wait().unwrap().is_none(),
            "the run ended before {after} units were stored"
        );
        assert!(t0.elapsed() < Duration::from_secs(300), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(work.join(format!("ranks/{victim}.pid"))).unwrap();
    let killed = Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    let first = job.wait_with_output().unwrap();
    assert!(
        !first.status.success(),
        "the job goes down with its rank {victim}"
    );
    let stored = units(&work);
    assert!(stored >= after);
    let second = mpirun(&guard, &work, 2).wait_with_output().unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(j["value"], 10, "{j}");
    let (all, now) = (
        j["units"].as_u64().unwrap(),
        j["units_this_run"].as_u64().unwrap(),
    );
    assert_eq!(
        all - now,
        stored as u64,
        "every unit stored before the kill is used, none asked again: {j}"
    );
    assert!(now > 0, "{j}");
    assert!(String::from_utf8_lossy(&second.stderr)
        .contains(&format!("{stored} units answered before")));
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
fn a_worker_killed_mid_unit_loses_only_its_unit() {
    kill_and_resume("worker", 1, 3);
}

#[test]
fn a_killed_coordinator_resumes_from_the_work_directory() {
    kill_and_resume("coordinator", 0, 5);
}

/// Two worker ranks of three workers each, on one shared table a rank,
/// with a unit budget small enough to split tests: the value and a
/// perfect game that replays to it, the units spread over more workers
/// than ranks.
#[test]
fn worker_ranks_of_several_workers_give_the_value() {
    let guard = tables().lock().unwrap_or_else(|e| e.into_inner());
    let work = std::env::temp_dir().join(format!("kalah-cluster-ranks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let extra = ["--rank-workers", "3", "--unit-budget", "3000"];
    let out = mpirun_with(&guard, &work, 2, &extra)
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["value"], 10, "{j}");
    let game = Game::new(6, Rules::EMPTY_CAPTURE);
    let line = Line::parse(j["pv"].as_str().unwrap(), Numbering::FromOne).unwrap();
    let end = line.replay(&game, Position::start(6, 4).unwrap()).unwrap();
    let score = end
        .final_score(game.rules())
        .expect("the perfect game ends the game");
    assert_eq!(score, 10, "{j}");
    assert!(j["split_units"].as_u64().unwrap() > 0, "{j}");
    assert_eq!(j["threads"], 6, "the workers of the two ranks: {j}");
    std::fs::remove_dir_all(&work).unwrap();
}

/// Worker ranks that send each other their table entries (`--share-work`)
/// give the value and a perfect game that replays to it, and every rank
/// both sent entries and took the others' in, then left (a rank waits for
/// every other's last share before it leaves).
#[test]
fn worker_ranks_sharing_table_entries_give_the_value() {
    let guard = tables().lock().unwrap_or_else(|e| e.into_inner());
    let work = std::env::temp_dir().join(format!("kalah-cluster-share-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let extra = [
        "--rank-workers",
        "2",
        "--share-work",
        "6",
        "--unit-budget",
        "3000",
    ];
    let out = mpirun_with(&guard, &work, 3, &extra)
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["value"], 10, "{j}");
    let game = Game::new(6, Rules::EMPTY_CAPTURE);
    let line = Line::parse(j["pv"].as_str().unwrap(), Numbering::FromOne).unwrap();
    let end = line.replay(&game, Position::start(6, 4).unwrap()).unwrap();
    assert_eq!(end.final_score(game.rules()), Some(10), "{j}");
    // One line a worker rank: "shared S table entries ..., took T ...".
    let tallies: Vec<(u64, u64)> = stderr
        .lines()
        .filter(|l| l.contains("table entries with the other worker ranks"))
        .map(|l| {
            // The numbers after "shared" (a line another rank's output
            // ran into keeps its own numbers before it).
            let at = l.rfind("shared ").unwrap_or(0);
            let n: Vec<u64> = l[at..]
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            (n[0], n[1])
        })
        .collect();
    assert_eq!(tallies.len(), 3, "{stderr}");
    let sent: u64 = tallies.iter().map(|t| t.0).sum();
    let taken: u64 = tallies.iter().map(|t| t.1).sum();
    assert!(tallies.iter().all(|&(s, t)| s > 0 && t > 0), "{stderr}");
    assert_eq!(
        taken,
        2 * sent,
        "each entry reaches both other ranks: {stderr}"
    );
    std::fs::remove_dir_all(&work).unwrap();
}
