//! A resumable solve killed with SIGKILL at random moments: every stretch
//! resumes from the records, no recorded unit is searched again (its
//! record is never rewritten), and the last stretch ends at the value of
//! an independent solve with a perfect game that replays to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use kalah_solver::sample::SplitMix64;
use kalah_solver::search::SearchConfig;
use kalah_solver::{Game, Line, Numbering, Position, Rules, Solver};

const KILLS: usize = 20;

fn solve_command(work: &Path) -> Command {
    game_command(work, 5, 4)
}

fn game_command(work: &Path, pits: usize, seeds: usize) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kalah-cluster"));
    c.args(["solve", "--no-tables", "--local", "--pits"])
        .arg(pits.to_string())
        .arg("--seeds")
        .arg(seeds.to_string())
        .args([
            "--unit-budget",
            "20000",
            "--progress",
            "0",
            "--json",
            "--work",
        ])
        .arg(work)
        .stdin(Stdio::null());
    c
}

/// Every record file of the work directory and its bytes.
fn records(work: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(work.join("units"))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .map(|p| {
                    let bytes = std::fs::read(&p).unwrap();
                    (p, bytes)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn killed_at_random_moments_it_resumes_to_the_value() {
    let work = std::env::temp_dir().join(format!("kalah-cluster-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let mut rng = SplitMix64::new(20261207);
    let mut before: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    let mut kills = 0;
    let mut stretches = 0;
    while kills < KILLS {
        let mut child = solve_command(&work)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        stretches += 1;
        let wait = Duration::from_millis(50 + rng.next_u64() % 1500);
        std::thread::sleep(wait);
        let finished = child.try_wait().unwrap().is_some();
        if !finished {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        let after = records(&work);
        for (path, bytes) in &before {
            assert_eq!(
                after.get(path),
                Some(bytes),
                "{} was rewritten by stretch {stretches} (a recorded unit searched again)",
                path.display()
            );
        }
        if finished {
            // Solved before the kill: start again from nothing, so every
            // kill lands in a run.
            std::fs::remove_dir_all(&work).unwrap();
            before.clear();
        } else {
            before = after;
        }
    }
    let recorded = before.len();
    let out = solve_command(&work).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("refused"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (path, bytes) in &before {
        assert_eq!(records(&work).get(path), Some(bytes), "{}", path.display());
    }
    let units = j["units"].as_u64().unwrap();
    let this_run = j["units_this_run"].as_u64().unwrap();
    assert_eq!(
        units,
        recorded as u64 + this_run,
        "the last stretch searched only units without a record"
    );
    // The value of an independent solve, and a perfect game that ends there.
    let game = Game::new(5, Rules::STANDARD);
    let start = Position::start(5, 4).unwrap();
    let solver = Solver::new(game.clone(), SearchConfig::default(), None).unwrap();
    let value = solver.solve(&start).unwrap();
    assert_eq!(j["value"].as_i64(), Some(i64::from(value)));
    let line = Line::parse(j["pv"].as_str().unwrap(), Numbering::FromOne).unwrap();
    let end = line.replay(&game, start).unwrap();
    assert_eq!(end.final_score(game.rules()), Some(value));
    eprintln!(
        "{KILLS} kills over {stretches} stretches; {recorded} units recorded before the last, which searched {this_run}: value {value:+}"
    );
    std::fs::remove_dir_all(&work).unwrap();
}

/// Two runs on one work directory, 20 trials: the second is refused at
/// once, exit 1, naming the directory as busy (or, with `--wait`, waits
/// and then finds every unit recorded); the first is never disturbed: it
/// ends at the value and leaves no record that is refused. A resumed run
/// that searched nothing reports no node rate of others' work.
///
/// The second starts up to 300 ms after the first took the lock. On a
/// fast machine the first may have finished by then: the directory is no
/// longer busy, and the second must then resume to the end having searched
/// nothing. Most trials must still meet a busy directory, or the test
/// would not test refusal.
#[test]
fn a_second_run_on_a_busy_directory_is_refused_or_waits() {
    let mut rng = SplitMix64::new(54);
    let mut refused = 0;
    let mut not_waiting = 0;
    for trial in 0..20 {
        let work =
            std::env::temp_dir().join(format!("kalah-cluster-busy-{}-{trial}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        // Kalah(4,6): a run of one to three seconds, which the second
        // starts beside.
        let first = game_command(&work, 4, 6)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Until the first has taken the lock (its work directory exists).
        while !work.join("run.json").exists() {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(rng.next_u64() % 300));
        let wait = trial % 4 == 3;
        let mut second = game_command(&work, 4, 6);
        if wait {
            second.arg("--wait");
        }
        let second = second.output().unwrap();
        let first = first.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&first.stderr);
        assert!(
            first.status.success(),
            "trial {trial}: the first run: {stderr}"
        );
        assert!(!stderr.contains("refused"), "trial {trial}: {stderr}");
        let said = String::from_utf8_lossy(&second.stderr);
        if !wait {
            not_waiting += 1;
        }
        if wait || second.status.success() {
            // It waited, or the first had finished: every unit recorded.
            assert!(second.status.success(), "trial {trial}: {said}");
            let j: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
            assert_eq!(j["units_this_run"], 0, "trial {trial}: {j}");
            assert_eq!(j["nodes_per_second"], 0, "trial {trial}: {j}");
            assert!(!said.contains("refused"), "trial {trial}: {said}");
        } else {
            assert_eq!(second.status.code(), Some(1), "trial {trial}: {said}");
            assert!(
                said.contains("busy") && said.contains(&work.display().to_string()),
                "trial {trial}: {said}"
            );
            refused += 1;
        }
        std::fs::remove_dir_all(&work).unwrap();
    }
    assert!(
        2 * refused > not_waiting,
        "only {refused} of {not_waiting} second runs met a busy directory"
    );
}
