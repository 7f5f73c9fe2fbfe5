//! A single `query` as a newcomer meets it: what it says before a long
//! search, its time limit, and a closed or full standard output. Through
//! the binary, on a tiny game and one long search (Kalah(6,4) from the
//! start without tables: hours).

mod common;

use common::{kalah_command as kalah, temp_dir};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const TINY: &str = "1 1 1 0 1 1 1 0 S";
/// A board of Kalah(6,4) that no game reaches (48 seeds on the board, off
/// the start), so no opening book holds it: hours of search without tables.
const LONG: &str = "5 4 4 4 4 4 0 4 4 4 4 4 3 0 S";
/// How long a test waits for something that should come at once before it
/// calls it a hang (generous: the machine may be busy).
const PATIENCE: Duration = Duration::from_secs(30);

#[test]
fn a_search_over_the_time_limit_fails_naming_the_limit_without_a_value() {
    let out = kalah()
        .args([
            "query",
            LONG,
            "--no-tables",
            "--threads",
            "1",
            "--tt-mb",
            "8",
        ])
        .args(["--time-limit", "0.2"])
        .output()
        .expect("run kalah");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--time-limit 0.2"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A table or finished answer is never limited.
    let out = kalah()
        .args(["query", TINY, "--no-tables", "--time-limit", "0.001"])
        .output()
        .expect("run kalah");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_bad_time_limit_is_refused_with_status_2() {
    for bad in ["0", "-1", "soon", "NaN", "inf"] {
        let out = kalah()
            .args(["query", TINY, "--no-tables", "--time-limit", bad])
            .output()
            .expect("run kalah");
        assert_eq!(out.status.code(), Some(2), "--time-limit {bad}");
    }
}

/// The child's standard error, line by line, from a thread: a test waits on
/// it with a timeout while the child runs.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn missing_tables_and_a_search_are_announced_before_the_search() {
    let dir = temp_dir("empty");
    let mut child = kalah()
        .args(["query", LONG, "--threads", "1", "--tt-mb", "8", "--tables"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let rx = stderr_lines(&mut child);
    let mut seen = Vec::new();
    let start = Instant::now();
    while !seen.iter().any(|l: &String| l.contains("searching")) {
        match rx.recv_timeout(PATIENCE.saturating_sub(start.elapsed())) {
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    let running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(running, "the search ended early: {seen:?}");
    let text = seen.join("\n");
    assert!(text.contains("no endgame tables for 6 houses"), "{text}");
    assert!(text.contains("searching"), "{text}");
}

#[test]
fn a_full_stdout_fails_with_a_message_not_a_panic() {
    for json in [false, true] {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return; // no /dev/full on this system
        };
        let mut cmd = kalah();
        cmd.args(["query", TINY, "--no-tables"]);
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("run kalah");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "json {json}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    for json in [false, true] {
        let mut cmd = kalah();
        cmd.args(["query", TINY, "--no-tables"]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run kalah");
        // Closed before the answer is printed (the process has barely
        // started).
        drop(child.stdout.take());
        let mut stderr = String::new();
        let _ = child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr);
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "json {json}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn sigterm_stops_a_single_search_with_a_failure() {
    let mut child = kalah()
        .args([
            "query",
            LONG,
            "--no-tables",
            "--threads",
            "1",
            "--tt-mb",
            "8",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let rx = stderr_lines(&mut child);
    // The search has started once it is announced.
    let first = rx.recv_timeout(PATIENCE);
    assert!(
        first.as_deref().is_ok_and(|l| l.contains("searching")),
        "{first:?}"
    );
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("still searching after SIGTERM");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let rest: Vec<String> = rx.iter().collect();
    let mut stdout = String::new();
    let _ = child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout);
    assert_eq!(status.code(), Some(1), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("interrupted")), "{rest:?}");
    assert!(stdout.is_empty(), "{stdout}");
}
