//! `query --batch` as a client and an operator meet it: bad bytes, long
//! lines, comments, answers streamed to a client that waits, a stop by
//! signal, a closed or full standard output and a time limit. Through the
//! binary, on tiny games without tables (searched in microseconds) and one
//! long search (Kalah(6,4) from the start without tables: hours).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{is_answer, is_answer_to, is_error, kalah_command as kalah, run_with_input};

/// A position of Kalah(3,1) (answered at once by search).
const TINY: &str = "1 1 1 0 1 1 1 0 S";
/// A board of Kalah(6,4) that no game reaches (48 seeds on the board, off
/// the start), so no opening book holds it: hours of search without tables.
const LONG: &str = "5 4 4 4 4 4 0 4 4 4 4 4 3 0 S";
/// How long a test waits for something that should come at once before it
/// calls it a hang (generous: the machine may be busy).
const PATIENCE: Duration = Duration::from_secs(30);

const BATCH: [&str; 8] = [
    "query",
    "--batch",
    "-",
    "--no-tables",
    "--tt-mb",
    "8",
    "--threads",
    "1",
];

fn batch_with_input(input: &[u8], extra: &[&str]) -> Output {
    let args: Vec<&str> = BATCH.iter().chain(extra).copied().collect();
    run_with_input(&args, input)
}

/// Lines of a child's stdout, handed over by a thread, so that a test can
/// wait for one with a timeout.
fn line_channel(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn spawn_batch(extra: &[&str]) -> Child {
    kalah()
        .args(BATCH)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah")
}

/// Waits for `child` to end, at most `PATIENCE`; kills it and fails
/// otherwise.
fn wait_ended(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("{what}: still running after {PATIENCE:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s
}

#[test]
fn a_line_that_is_not_utf8_gets_an_error_line_and_the_batch_goes_on() {
    let mut input = Vec::new();
    input.extend_from_slice(TINY.as_bytes());
    input.extend_from_slice(b"\n1 1 \xff\xfe 0 S\n");
    input.extend_from_slice(TINY.as_bytes());
    input.push(b'\n');
    let out = batch_with_input(&input, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(is_answer_to(lines[0], "1 1 1 0 1 1 1 0 S"));
    assert!(
        is_error(lines[1], 2, "line 2: not UTF-8 text"),
        "{}",
        lines[1]
    );
    assert!(is_answer_to(lines[2], "1 1 1 0 1 1 1 0 S"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn comments_and_blank_lines_are_skipped_and_lines_keep_their_numbers() {
    let input = format!("# positions\n\n   \n{TINY}\n  # indented comment\r\nx\n\t\n{TINY}\n");
    let out = batch_with_input(input.as_bytes(), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(is_answer(lines[0]));
    assert!(is_error(lines[1], 6, ""), "{}", lines[1]);
    assert!(is_answer(lines[2]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Singular where it is one.
    assert!(
        stderr.contains("2 positions answered, 1 bad line,"),
        "{stderr}"
    );
    assert!(stderr.contains("1 bad line in standard input"), "{stderr}");
}

#[test]
fn a_very_long_line_is_refused_and_skipped_without_being_kept() {
    let mut input = Vec::new();
    input.extend_from_slice(TINY.as_bytes());
    input.push(b'\n');
    // 20 MB of digits and spaces: never a position.
    input.extend(std::iter::repeat_n(b"1 ", 10_000_000).flatten());
    input.push(b'\n');
    input.extend_from_slice(TINY.as_bytes());
    input.push(b'\n');
    let out = batch_with_input(&input, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", &stdout[..stdout.len().min(500)]);
    assert!(is_answer(lines[0]));
    assert!(
        is_error(lines[1], 2, "line 2: longer than 4096 bytes"),
        "{}",
        &lines[1][..lines[1].len().min(200)]
    );
    assert!(is_answer(lines[2]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn answers_come_as_each_line_arrives_while_the_input_stays_open() {
    let mut child = spawn_batch(&[]);
    let mut stdin = child.stdin.take().expect("stdin");
    let answers = line_channel(child.stdout.take().expect("stdout"));
    for (i, pos) in [TINY, "2 0 1 0 0 1 1 0 N", "not a position"]
        .iter()
        .enumerate()
    {
        writeln!(stdin, "{pos}").expect("write a line");
        stdin.flush().expect("flush");
        let got = answers.recv_timeout(PATIENCE);
        let Ok(line) = got else {
            let _ = child.kill();
            panic!("no answer to line {} while stdin is open", i + 1);
        };
        if i < 2 {
            assert!(is_answer_to(&line, pos), "{line}");
        } else {
            assert!(is_error(&line, 3, ""), "{line}");
        }
    }
    drop(stdin);
    let status = wait_ended(&mut child, "batch after end of input");
    assert_eq!(status.code(), Some(2));
}

/// Sends `signal` to a batch in the middle of a long search: it stops
/// promptly, having written the answers before it in order, and says so
/// with a failure status.
fn signal_stops_a_batch_mid_search(signal: &str) {
    let mut child = spawn_batch(&[]);
    let mut stdin = child.stdin.take().expect("stdin");
    let answers = line_channel(child.stdout.take().expect("stdout"));
    // Two quick answers, then a search of hours, then more lines.
    writeln!(stdin, "{TINY}\n2 0 1 0 0 1 1 0 N").expect("write");
    stdin.flush().expect("flush");
    for _ in 0..2 {
        if answers.recv_timeout(PATIENCE).is_err() {
            let _ = child.kill();
            panic!("the quick answers did not come");
        }
    }
    writeln!(stdin, "{LONG}\n{TINY}").expect("write");
    stdin.flush().expect("flush");
    // Let the search start (a signal before it stops the batch as well).
    thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = wait_ended(&mut child, "batch after a signal");
    let rest: Vec<String> = answers.try_iter().collect();
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(rest.is_empty(), "answers after the stop: {rest:?}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    drop(stdin);
}

#[test]
fn sigterm_stops_a_batch_mid_search_with_the_answers_before_it() {
    signal_stops_a_batch_mid_search("-TERM");
}

#[test]
fn sigint_stops_a_batch_mid_search_with_the_answers_before_it() {
    signal_stops_a_batch_mid_search("-INT");
}

#[test]
fn a_search_over_the_time_limit_is_an_error_line_and_the_batch_goes_on() {
    let input = format!("{TINY}\n{LONG}\n{TINY}\n");
    let out = batch_with_input(input.as_bytes(), &["--time-limit", "0.2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(is_answer(lines[0]));
    assert!(
        is_error(lines[1], 2, "line 2: no answer within the time limit"),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("--time-limit 0.2"), "{}", lines[1]);
    assert!(!is_answer(lines[1]));
    assert!(is_answer(lines[2]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("1 position not answered"), "{stderr}");
}

/// Enough lines that the answers overflow a pipe's buffer.
fn many_lines() -> String {
    format!("{TINY}\n").repeat(20_000)
}

#[test]
fn a_closed_stdout_ends_the_batch_quietly() {
    let mut child = kalah()
        .args(BATCH)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    // The reader goes away before the first answer.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(many_lines().as_bytes());
    drop(stdin);
    let status = wait_ended(&mut child, "batch into a closed pipe");
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn a_full_stdout_fails_the_batch_with_a_message() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    let mut child = kalah()
        .args(BATCH)
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(many_lines().as_bytes());
    drop(stdin);
    let status = wait_ended(&mut child, "batch into /dev/full");
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write to standard output"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_batch_file_gets_the_same_line_rules_as_standard_input() {
    let path = std::env::temp_dir().join(format!("kalah-query-batch-{}.txt", std::process::id()));
    let mut input = b"# a comment\n\n".to_vec();
    input.extend_from_slice(format!("{TINY}\n").as_bytes());
    input.extend_from_slice(b"\xff\n");
    input.extend(std::iter::repeat_n(b'1', 5000));
    input.extend_from_slice(format!("\n  # {TINY}\n{TINY}").as_bytes());
    std::fs::write(&path, &input).expect("write batch file");
    let out = kalah()
        .args(["query", "--batch"])
        .arg(&path)
        .args(["--no-tables", "--tt-mb", "8", "--threads", "1"])
        .output()
        .expect("run kalah");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(is_answer(lines[0]));
    assert!(is_error(lines[1], 4, "line 4: not UTF-8"));
    assert!(is_error(lines[2], 5, "line 5: longer than 4096"));
    // The last line has no newline.
    assert!(is_answer(lines[3]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 bad lines in"), "{stderr}");
    assert_eq!(out.status.code(), Some(2));
}
