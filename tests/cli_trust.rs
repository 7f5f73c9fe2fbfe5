//! The commands `show`, `play-line`, `perft`, `solve`, `play` and
//! `reproduce` against what the first hour and an adversarial tester throw
//! at them (issue 12): standard output that is full or closed, flag values
//! out of range, odd arguments and odd input, and what a newcomer needs to
//! see (labelled stores, an in-game hint, a note before a long wait).
//! Never a panic (exit status 101): bad input exits 2, a failure exits 1.

mod common;

use common::{kalah_command as kalah, path, run_with_input, temp_dir};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `kalah args` with `input` on stdin, capturing stdout and stderr.
fn run(args: &[&str], input: &str) -> Output {
    run_with_input(args, input.as_bytes())
}

fn run_os(args: &[OsString], input: &str) -> Output {
    run_with_input(args, input.as_bytes())
}

/// A command line's arguments, split at spaces (none holds a space).
fn words(line: &str) -> Vec<&str> {
    line.split(' ').collect()
}

/// Runs a command line (split at spaces) that must succeed; its stdout.
fn run_ok(line: &str, input: &str) -> String {
    let out = run(&words(line), input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every printing path of every command this file covers, each small
/// enough to run in well under a second, with the input `play` reads.
fn printing_commands() -> Vec<(Vec<&'static str>, &'static str)> {
    let start = "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S";
    let tiny = ["--pits", "2", "--seeds", "2", "--no-tables", "--tt-mb", "8"];
    let with = |head: &[&'static str], tail: &[&'static str]| -> Vec<&'static str> {
        head.iter().chain(tail).copied().collect()
    };
    vec![
        (vec!["show", start], ""),
        (vec!["show", start, "--json"], ""),
        (vec!["show", "0 0 1 1 0 2 S"], ""),
        (vec!["play-line", "36-2"], ""),
        (vec!["play-line", "36-2", "--json"], ""),
        (vec!["perft", "--depth", "3"], ""),
        (vec!["perft", "--depth", "3", "--json"], ""),
        (with(&["solve"], &tiny), ""),
        (with(&["solve", "--json", "--pie"], &tiny), ""),
        (with(&["solve", "--all-moves", "--pie"], &tiny), ""),
        (
            with(&["play", "--hints"], &tiny),
            "h\n?\nx\n1\n1\n2\n1\n2\n",
        ),
        (with(&["play", "--side", "n"], &tiny), "q\n"),
        (
            vec![
                "reproduce",
                "--max-pits",
                "2",
                "--max-seeds",
                "2",
                "--no-tables",
            ],
            "",
        ),
        (
            vec![
                "reproduce",
                "--max-pits",
                "2",
                "--max-seeds",
                "1",
                "--no-tables",
                "--json",
            ],
            "",
        ),
        (
            vec![
                "reproduce",
                "--max-pits",
                "2",
                "--max-seeds",
                "1",
                "--no-tables",
                "--markdown",
            ],
            "",
        ),
    ]
}

/// `>/dev/full`: every command says it cannot write and exits 1 (it
/// panicked with status 101 before).
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_a_failure_with_a_message_not_a_panic() {
    for (args, input) in printing_commands() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let mut child = kalah()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::from(full))
            .stderr(Stdio::piped())
            .spawn()
            .expect("run kalah");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes());
        let out = child.wait_with_output().expect("wait");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Help and version text that cannot be written is a failure too (clap's
/// own exit reported success).
#[cfg(target_os = "linux")]
#[test]
fn help_to_a_full_disk_is_a_failure() {
    for args in [&["--help"][..], &["solve", "--help"], &["--version"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = kalah()
            .args(args)
            .stdout(Stdio::from(full))
            .output()
            .expect("run kalah");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}

/// A reader that stops reading (`| head -c0`): every command ends quietly
/// with status 0, as `grep | head` does, instead of panicking.
#[test]
fn a_closed_stdout_ends_quietly() {
    for (args, input) in printing_commands() {
        let mut child = kalah()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run kalah");
        // Close the only read end before the command writes anything.
        drop(child.stdout.take());
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes());
        let out = child.wait_with_output().expect("wait");
        let stderr = text(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

/// Flag values out of range are usage errors: status 2 and a message that
/// names the flag or the count (the size of a game in the words every
/// front end shares, issue 54: `pits 9`, `seeds 0`) (`solve --seeds 0` solved an empty game, `--pits 9` and
/// `reproduce --end delayed` exited 1 or were taken).
#[test]
fn bad_flag_values_exit_2_naming_the_flag() {
    for (args, phrase) in [
        (vec!["solve", "--pits", "0"], "pits 0 is not in 1..=8"),
        (vec!["solve", "--pits", "9"], "9 is not in 1..=8"),
        (
            vec!["solve", "--seeds", "0", "--pits", "2"],
            "seeds 0 is not at least 1",
        ),
        (
            vec!["solve", "--seeds", "128"],
            "Kalah(6,128) is out of range",
        ),
        (
            vec!["solve", "--pits", "8", "--seeds", "16"],
            "Kalah(8,16) is out of range",
        ),
        (vec!["play", "--pits", "9"], "pits 9 is not in 1..=8"),
        (vec!["play", "--seeds", "-1"], "unexpected argument '-1'"),
        (
            vec!["perft", "--pits", "99999999999999999999"],
            "pits 99999999999999999999 is not in 1..=8",
        ),
        (
            vec!["perft", "--seeds", "four"],
            "seeds 'four' is not a whole number",
        ),
        (
            vec!["play-line", "--pits", "0", "1"],
            "pits 0 is not in 1..=8",
        ),
        (vec!["reproduce", "--max-pits", "9"], "--max-pits"),
        (vec!["reproduce", "--max-seeds", "0"], "--max-seeds"),
        (
            vec!["reproduce", "--max-pits", "8", "--max-seeds", "20"],
            "out of range",
        ),
        (vec!["reproduce", "--end", "delayed"], "sweep end rule"),
        (
            vec!["reproduce", "--empty-capture", "--rules", "standard"],
            "cannot be used with",
        ),
        (vec!["play", "--side", "east"], "--side"),
    ] {
        let out = run(&args, "");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(phrase), "{args:?}: '{phrase}' in {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{args:?} printed before refusing: {}",
            text(&out.stdout)
        );
    }
}

/// The README writes `--side S|N`; clap took only `s|n`.
#[test]
fn play_takes_the_side_in_any_case_and_in_words() {
    for (side, human) in [
        ("S", "You play South"),
        ("s", "You play South"),
        ("south", "You play South"),
        ("N", "You play North"),
        ("North", "You play North"),
    ] {
        let out = run(
            &[
                "play",
                "--pits",
                "2",
                "--seeds",
                "1",
                "--no-tables",
                "--tt-mb",
                "8",
                "--side",
                side,
            ],
            "q\n",
        );
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{side}: {}", text(&out.stderr));
        assert!(stdout.contains(human), "{side}: {stdout}");
    }
}

/// `--idu 3.18446744073709551615` added 1 to usize::MAX: house 0 in a
/// release build, an overflow panic in a debug one.
#[test]
fn play_line_refuses_a_house_past_the_largest_number() {
    for line in ["3.18446744073709551615", "2-18446744073709551615.0"] {
        let out = run(&["play-line", "--idu", line], "");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{line}: {stderr}");
        assert!(
            stderr.contains("'18446744073709551615' is not a house number"),
            "{line}: {stderr}"
        );
    }
}

/// `play-line --from POS --pits 5` played on POS's board and ignored
/// `--pits`: the two now cannot be given together.
#[test]
fn play_line_from_a_position_refuses_a_board_size() {
    for flag in ["--pits", "--seeds"] {
        let out = run(&["play-line", "--from", "1 0 1 0 S", flag, "5", "1"], "");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains("'--from <FROM>' cannot be used with"),
            "{flag}: {stderr}"
        );
    }
    let out = run(&["play-line", "--from", "1 0 1 0 S", "1"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `solve` said nothing until the search was over: the header and the
/// tables line now come first, and `--json` (whose stdout is one object)
/// says on stderr what it is solving, over which tables.
#[test]
fn solve_says_what_it_is_doing_before_the_search() {
    let dir = temp_dir("solve");
    let base = [
        "solve",
        "--pits",
        "4",
        "--seeds",
        "2",
        "--tables",
        path(&dir),
        "--table-seeds",
        "6",
        "--tt-mb",
        "8",
    ];
    let out = run(&base, "");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("Kalah(4,2), standard capture"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("endgame tables: boards with up to 6 seeds"),
        "{stdout}"
    );
    assert!(lines[2].starts_with("value: "), "{stdout}");

    let mut json = base.to_vec();
    json.push("--json");
    let out = run(&json, "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "solving Kalah(4,2), standard capture, end: sweep, over endgame tables of up to 6 seeds from {}",
            dir.display()
        )),
        "{stderr}"
    );
    assert_eq!(text(&out.stdout).lines().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `play` waited silently for its first answer (12 s for Kalah(6,4)); it
/// now says on stderr that it is valuing the moves of the start, after the
/// welcome and the board.
#[test]
fn play_says_it_is_valuing_the_start_before_the_first_prompt() {
    let out = run(
        &words("play --pits 2 --seeds 2 --no-tables --tt-mb 8"),
        "q\n",
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("valuing every move from the start (without endgame tables"),
        "{stderr}"
    );
}

/// `h` during the game shows every option's value (there was no way to
/// ask without `--hints`), `?` lists every command.
#[test]
fn play_has_a_hint_command_and_help_lists_every_command() {
    // Kalah(2,1) standard: South's house 1 is worth -2 for South, house 2
    // +2 (2 sows into the store and the game ends 3-1).
    let stdout = run_ok(
        "play --pits 2 --seeds 1 --no-tables --tt-mb 8",
        "h\nhint\n?\nq\n",
    );
    assert_eq!(
        stdout
            .matches("hints (house:value for you, + = extra turn): 1:-2  2:+2+")
            .count(),
        2,
        "{stdout}"
    );
    for command in ["h, hint", "u, undo", "q, quit", "?, help", "1..2"] {
        assert!(stdout.contains(command), "{command} not in help: {stdout}");
    }
}

/// The drawing named the houses but not the stores.
#[test]
fn show_labels_both_stores_and_every_house() {
    let out = run(&["show", "1 2 7 3 4 9 S"], "");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("N2  N1"), "{stdout}");
    assert!(lines[1].ends_with("4   3"), "{stdout}");
    // North's store (9) on the left, South's (7) on the right.
    assert!(lines[2].starts_with("North store   9"), "{stdout}");
    assert!(lines[2].ends_with("7   South store"), "{stdout}");
    assert!(lines[3].ends_with("1   2"), "{stdout}");
    assert!(lines[4].ends_with("S1  S2"), "{stdout}");
}

/// "1 houses a side", "(1 turns)", "1 instances solved".
#[test]
fn counts_of_one_are_singular() {
    let out = run(&["show", "1 0 1 0 S"], "");
    assert!(
        text(&out.stdout).contains("1 house a side, 2 seeds in houses"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["play-line", "--pits", "1", "--seeds", "1", "1"], "");
    assert!(
        text(&out.stdout).contains("(1 turn)"),
        "{}",
        text(&out.stdout)
    );
    let stdout = run_ok(
        "reproduce --max-pits 1 --max-seeds 1 --no-tables --empty-capture",
        "",
    );
    assert!(
        stdout.contains("1 instance solved, 1 match the literature, 0 disagreements"),
        "{stdout}"
    );
}

/// README: every command takes the rule flags. `reproduce --empty-capture`
/// solves only the empty-capture rows; `--end sweep` (what the literature
/// used) is taken.
#[test]
fn reproduce_takes_the_rule_flags() {
    let stdout = run_ok("reproduce --max-pits 2 --max-seeds 2 --no-tables --no-pie --empty-capture --end sweep --json", "");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    let rules: Vec<&str> = report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["rules"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(rules, ["ec"; 4], "{stdout}");
}

/// `scripts/reproduce.sh` rewrote the committed results/ on every run: it
/// now writes where it is told (target/reproduce by default) and leaves
/// results/ alone.
#[cfg(unix)]
#[test]
fn reproduce_script_leaves_the_committed_results_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = |name: &str| std::fs::read(root.join("results").join(name)).ok();
    let before: Vec<_> = ["reproduce.md", "reproduce.json", "reproduce.svg"]
        .iter()
        .map(|n| committed(n))
        .collect();
    let dir = temp_dir("script");
    let out = Command::new("bash")
        .arg(root.join("scripts/reproduce.sh"))
        .args([
            "--out",
            path(&dir),
            "--max-pits",
            "2",
            "--max-seeds",
            "2",
            "--no-tables",
            "--no-pie",
        ])
        .env("KALAH", env!("CARGO_BIN_EXE_kalah"))
        .output()
        .expect("run reproduce.sh");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(dir.join("reproduce.md").is_file(), "{stdout}");
    assert!(dir.join("reproduce.json").is_file());
    assert!(
        stdout.contains("against results/reproduce.md: 8 rows compared, 0 differ"),
        "{stdout}"
    );
    let after: Vec<_> = ["reproduce.md", "reproduce.json", "reproduce.svg"]
        .iter()
        .map(|n| committed(n))
        .collect();
    assert!(before == after, "results/ was rewritten");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Odd arguments to every command and odd input to `play`: huge and
/// negative numbers, empty and blank strings, separators only, non-UTF-8
/// bytes, a flag with no value. Each is answered with a status of 0, 1 or
/// 2 and never a panic.
#[test]
fn odd_arguments_and_input_never_panic() {
    let odd: Vec<OsString> = {
        let mut v: Vec<OsString> = [
            "",
            " ",
            "-",
            "--",
            ".",
            "-.-",
            "0",
            "-1",
            "1e9",
            "255",
            "256",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999999999999",
            "0 0 0 0 S",
            "1 0 1 0 N",
            "255 0 0 0 S",
            "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S",
            "S",
            "\u{fffd}",
            "3.18446744073709551615",
            "1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            v.push(OsString::from_vec(vec![0xff, 0xfe, b'1']));
        }
        v
    };
    let quick = ["--no-tables", "--tt-mb", "8"];
    let mut cases: Vec<Vec<OsString>> = Vec::new();
    let os = |s: &[&str]| s.iter().map(OsString::from).collect::<Vec<_>>();
    for o in &odd {
        for head in [
            os(&["show"]),
            os(&["show", "--json"]),
            os(&["play-line"]),
            os(&["play-line", "--idu"]),
            os(&["play-line", "--from", "1 0 1 0 S"]),
        ] {
            let mut c = head;
            c.push(o.clone());
            cases.push(c);
        }
        for flag in ["--pits", "--seeds", "--depth"] {
            let mut c = os(&["perft", "--pits", "2", "--seeds", "1"]);
            c.retain(|a| a != flag);
            c.push(OsString::from(flag));
            c.push(o.clone());
            cases.push(c);
        }
        for cmd in ["solve", "play"] {
            for flag in ["--pits", "--seeds", "--side", "--end"] {
                let mut c = os(&[cmd]);
                c.extend(os(&quick));
                c.push(OsString::from(flag));
                c.push(o.clone());
                if flag != "--pits" {
                    c.extend(os(&["--pits", "2"]));
                }
                if flag != "--seeds" {
                    c.extend(os(&["--seeds", "1"]));
                }
                cases.push(c);
            }
        }
        for flag in ["--max-pits", "--max-seeds", "--rules", "--end"] {
            let mut c = os(&["reproduce", "--no-tables", "--no-pie"]);
            c.extend([OsString::from(flag), o.clone()]);
            if flag != "--max-pits" {
                c.extend(os(&["--max-pits", "1"]));
            }
            if flag != "--max-seeds" {
                c.extend(os(&["--max-seeds", "1"]));
            }
            cases.push(c);
        }
    }
    // A flag with no value at the end of the line.
    for cmd in ["show", "play-line", "perft", "solve", "play", "reproduce"] {
        cases.push(os(&[cmd, "--pits"]));
    }
    for args in &cases {
        // play reads odd lines too: blank, huge, not UTF-8, then EOF.
        let out = run_os(args, "\n \n99999999999999999999999\n-3\n\u{fffd}\nundo\n");
        let stderr = text(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0..=2)),
            "{args:?}: status {:?}: {stderr}",
            out.status.code()
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// The end of input (Ctrl-D) at the prompt abandons the game, status 0;
/// a line of bytes that are not UTF-8 is refused as a move and the game
/// goes on (it ended the game with a read error before).
#[test]
fn play_survives_end_of_input_and_bytes_that_are_not_text() {
    let args = [
        "play",
        "--pits",
        "2",
        "--seeds",
        "1",
        "--no-tables",
        "--tt-mb",
        "8",
    ];
    let out = run(&args, "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("end of input: game abandoned"));

    let mut child = kalah()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"\xff\xfe\n2\n");
    let out = child.wait_with_output().expect("wait");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains("is not a house number"), "{stdout}");
    assert!(stdout.contains("you play 2"), "{stdout}");
}

/// Ctrl-C at `play`'s prompt did nothing: the handler only set the stop
/// flag and the read went on. Now it ends the game at once, as in any
/// program that waits for a line.
#[cfg(unix)]
#[test]
fn ctrl_c_at_the_play_prompt_ends_the_game() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut child = kalah()
        .args([
            "play",
            "--pits",
            "2",
            "--seeds",
            "1",
            "--no-tables",
            "--tt-mb",
            "8",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run kalah");
    // Wait for the prompt: the program is then blocked reading stdin
    // (which stays open: `_stdin` is held to the end).
    let _stdin = child.stdin.take();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("your move: ") {
        let n = stdout.read(&mut byte).expect("read stdout");
        assert_eq!(n, 1, "stdout ended before the prompt: {}", text(&seen));
        seen.push(byte[0]);
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    // A guard, not a measurement: a game still waiting after a minute
    // ignored the Ctrl-C.
    let mut status = None;
    for _ in 0..600 {
        status = child.try_wait().expect("try_wait");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let Some(status) = status else {
        let _ = child.kill();
        panic!("play still waits for input after Ctrl-C");
    };
    assert_eq!(status.signal(), Some(2), "{status:?}");
}
