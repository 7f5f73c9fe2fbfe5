//! `kalah-cluster turns`: every first turn solved over the root solve's
//! work directory. Each turn's value is the solver's own analysis of the
//! start's turns; its perfect game replays from the start to it; its
//! certificate (a start that is not the game's) passes `kalah certify
//! --all`, and a fact of it turned to its opposite is caught; a turns run
//! killed at random moments resumes to the same values; the root's units
//! are reused.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use kalah::certificate::{Certificate, Fact, FORMAT_FROM};
use kalah::cli::certify::{certify, CertifyArgs};
use kalah::flags::TableArgs;
use kalah_solver::sample::SplitMix64;
use kalah_solver::search::SearchConfig;
use kalah_solver::{Game, Line, Numbering, Position, Rules, Solver};
use serde_json::Value;

const PITS: usize = 5;
const SEEDS: usize = 3;

fn work_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kalah-cluster-turns-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn command(sub: &str, work: &Path, rules: Rules) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kalah-cluster"));
    c.args([sub, "--no-tables", "--local", "--pits"])
        .arg(PITS.to_string())
        .arg("--seeds")
        .arg(SEEDS.to_string())
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
    if rules == Rules::EMPTY_CAPTURE {
        c.arg("--empty-capture");
    }
    c
}

fn json_of(c: &mut Command) -> Value {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        c,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The solver's analysis of the start: each turn's houses and its value
/// for the first player.
fn expected(rules: Rules) -> Vec<(String, i32)> {
    let game = Game::new(PITS, rules);
    let solver = Solver::new(game, SearchConfig::default(), None).unwrap();
    let start = Position::start(PITS, SEEDS).unwrap();
    let mut turns: Vec<(String, i32)> = solver
        .analyse_turns(&start)
        .unwrap()
        .turns
        .into_iter()
        .map(|t| {
            let label: Vec<String> = t.houses.iter().map(|h| h.to_string()).collect();
            (label.join("."), t.value)
        })
        .collect();
    turns.sort();
    turns
}

fn values(j: &Value) -> Vec<(String, i32)> {
    let mut v: Vec<(String, i32)> = j["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["turn"].as_str().unwrap().to_string(),
                t["value"].as_i64().unwrap() as i32,
            )
        })
        .collect();
    v.sort();
    v
}

/// The final score for South of `line` played from the start.
fn replay(rules: Rules, line: &str) -> i32 {
    let game = Game::new(PITS, rules);
    let mut pos = Position::start(PITS, SEEDS).unwrap();
    let line = Line::parse(line, Numbering::FromOne).unwrap();
    for turn in &line.turns {
        for &h in turn {
            pos.play(&game, h).unwrap();
        }
    }
    pos.final_score(rules).expect("the line ends the game")
}

fn holds(solver: &Solver, f: &Fact) -> bool {
    f.lower
        .is_none_or(|l| solver.board_at_least(f.board, l).unwrap())
        && f.upper
            .is_none_or(|u| !solver.board_at_least(f.board, u + 1).unwrap())
}

fn certify_all(file: &Path) -> bool {
    certify(&CertifyArgs {
        file: file.to_path_buf(),
        sample: 0,
        all: true,
        seed: 1,
        threads: 1,
        tt_mb: 16,
        tables: TableArgs {
            tables: None,
            table_seeds: None,
            no_tables: true,
        },
        json: true,
    })
    .is_ok()
}

#[test]
fn every_first_turn_is_solved_certified_and_reuses_the_root() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
        let name = rules.slug();
        let work = work_dir(&format!("values-{name}"));
        let root = json_of(&mut command("solve", &work, rules));
        let turns = json_of(&mut command("turns", &work, rules));
        let want = expected(rules);
        assert_eq!(values(&turns), want, "{name}");
        // The best turn is the root's value.
        assert_eq!(turns["best"], root["value"], "{name}");
        let rows = turns["turns"].as_array().unwrap();
        let reused: u64 = rows
            .iter()
            .map(|t| t["units_reused"].as_u64().unwrap())
            .sum();
        assert!(reused > 0, "{name}: no unit of the root reused");
        let game = Game::new(PITS, rules);
        let solver = Solver::new(game, SearchConfig::default(), None).unwrap();
        for t in rows {
            let label = t["turn"].as_str().unwrap();
            let value = t["value"].as_i64().unwrap() as i32;
            assert_eq!(
                replay(rules, t["line"].as_str().unwrap()),
                value,
                "{name} {label}"
            );
            let file = work.join("turns").join(t["certificate"].as_str().unwrap());
            let cert = Certificate::read(&file).unwrap();
            assert_eq!(cert.header.kalah_certificate, FORMAT_FROM, "{name} {label}");
            assert_eq!(
                cert.header.start.as_deref(),
                t["position"].as_str(),
                "{name} {label}"
            );
            assert_eq!((cert.header.lower, cert.header.upper), (value, value));
            assert!(
                certify_all(&file),
                "{name} {label}: kalah certify --all fails"
            );
            // Another value claimed: refused.
            let mut wrong = cert.clone();
            wrong.header.lower = value + 1;
            wrong.header.upper = value + 1;
            assert!(wrong.check_logic().is_err(), "{name} {label}");
        }
        // Each fact of the first turn's certificate with facts, turned to
        // its opposite: the logic fails, or searching it again does.
        let file = rows
            .iter()
            .map(|t| work.join("turns").join(t["certificate"].as_str().unwrap()))
            .find(|f| !Certificate::read(f).unwrap().facts.is_empty())
            .expect("a turn whose proof rests on facts");
        let cert = Certificate::read(&file).unwrap();
        let (mut by_logic, mut by_search) = (0, 0);
        for i in 0..cert.facts.len() {
            let mut changed = cert.clone();
            let f = &mut changed.facts[i];
            let (lower, upper) = match (f.lower, f.upper) {
                (Some(l), _) => (None, Some(l - 1)),
                (None, Some(u)) => (Some(u + 1), None),
                (None, None) => unreachable!("a fact bounds its board"),
            };
            f.lower = lower;
            f.upper = upper;
            if changed.check_logic().is_err() {
                by_logic += 1;
            } else {
                assert!(!holds(&solver, &changed.facts[i]), "{name}: fact {i}");
                by_search += 1;
            }
            if i == 0 {
                // Written and checked as a file: `kalah certify --all` fails.
                let bad = work.join("flipped.jsonl.gz");
                changed.write(&bad).unwrap();
                assert!(!certify_all(&bad), "{name}: a flipped fact passed");
            }
        }
        assert!(by_logic > 0, "{name}: no flipped fact broke the logic");
        eprintln!(
            "{name}: {} turns; flipped facts caught: {by_logic} by the logic, {by_search} by the search",
            rows.len()
        );
        // Written again from the records (`certificate --first-turns`),
        // the same claims.
        let again = json_of(
            Command::new(env!("CARGO_BIN_EXE_kalah-cluster"))
                .args(["certificate", "--json", "--first-turns", "--work"])
                .arg(&work)
                .args(["--out"])
                .arg(work.join("again")),
        );
        for c in again["turns"].as_array().unwrap() {
            let t = rows.iter().find(|t| t["turn"] == c["turn"]).unwrap();
            assert_eq!(c["lower"], t["value"], "{name}");
            assert_eq!(c["upper"], t["value"], "{name}");
        }
        // `status --first-turns` says the same of every turn.
        let status = json_of(
            Command::new(env!("CARGO_BIN_EXE_kalah-cluster"))
                .args(["status", "--json", "--first-turns", "--work"])
                .arg(&work),
        );
        let said = status["first_turns"].as_array().unwrap();
        assert_eq!(said.len(), rows.len(), "{name}: {status}");
        for c in said {
            let t = rows.iter().find(|t| t["turn"] == c["turn"]).unwrap();
            assert_eq!(
                (&c["lower"], &c["upper"]),
                (&t["value"], &t["value"]),
                "{name}"
            );
        }
        std::fs::remove_dir_all(&work).unwrap();
    }
}

/// Whether a turn's ledger says its solve started and has no result.
fn a_turn_under_way(work: &Path) -> bool {
    std::fs::read_dir(work.join("turns"))
        .map(|d| {
            d.flatten().any(|e| {
                let p = e.path();
                p.extension().is_some_and(|x| x == "json")
                    && std::fs::read_to_string(&p)
                        .ok()
                        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                        .is_some_and(|j| j.get("result").is_none())
            })
        })
        .unwrap_or(false)
}

#[test]
fn a_killed_turns_run_resumes_to_the_same_values() {
    let rules = Rules::EMPTY_CAPTURE;
    let work = work_dir("kill");
    json_of(&mut command("solve", &work, rules));
    let mut rng = SplitMix64::new(20261207);
    let (mut kills, mut mid_turn) = (0, 0);
    for _ in 0..40 {
        let mut child = command("turns", &work, rules)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(30 + rng.next_u64() % 400));
        let finished = child.try_wait().unwrap().is_some();
        if !finished {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        mid_turn += usize::from(!finished && a_turn_under_way(&work));
        if finished || kills >= 8 {
            break;
        }
    }
    assert!(kills > 0, "the run was never killed");
    assert!(mid_turn > 0, "no kill stopped a turn under way");
    let turns = json_of(&mut command("turns", &work, rules));
    assert_eq!(values(&turns), expected(rules));
    eprintln!("killed {kills} times ({mid_turn} in a turn under way), resumed to the values");
    std::fs::remove_dir_all(&work).unwrap();
}
