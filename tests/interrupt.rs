//! Ctrl-C and SIGTERM (`kalah::interrupt`): the first asks to stop, a
//! second one, or one while a command waits for input, ends the process at
//! once. Each case runs in a child process (this test binary again, one
//! test selected), since a signal that ends the process would end the
//! test harness.
#![cfg(unix)]

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

/// The environment variable that makes a test below act as the child.
const CHILD: &str = "KALAH_INTERRUPT_TEST_CHILD";

/// Runs `test` of this binary alone in a child process, as the child.
fn run_child(test: &str) -> Output {
    Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary")
}

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

#[test]
fn a_first_signal_asks_to_stop_and_a_second_ends_the_process() {
    if is_child() {
        kalah::interrupt::install();
        assert!(!kalah::interrupt::requested());
        signal_hook::low_level::raise(signal_hook::consts::SIGINT).expect("raise");
        assert!(kalah::interrupt::requested());
        println!("still running after the first signal");
        signal_hook::low_level::raise(signal_hook::consts::SIGTERM).expect("raise");
        println!("still running after the second signal");
        return;
    }
    let out = run_child("a_first_signal_asks_to_stop_and_a_second_ends_the_process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("after the first signal"), "{stdout}");
    assert!(!stdout.contains("after the second signal"), "{stdout}");
    assert_eq!(out.status.signal(), Some(signal_hook::consts::SIGTERM));
}

#[test]
fn a_signal_while_waiting_for_input_ends_the_process_at_once() {
    if is_child() {
        kalah::interrupt::install();
        // After the wait, the handler is back: a signal only asks to stop.
        kalah::interrupt::with_default_action(|| ());
        signal_hook::low_level::raise(signal_hook::consts::SIGTERM).expect("raise");
        assert!(kalah::interrupt::requested());
        println!("still running after a signal outside the wait");
        kalah::interrupt::with_default_action(|| {
            signal_hook::low_level::raise(signal_hook::consts::SIGINT).expect("raise");
            println!("still running after a signal in the wait");
        });
        return;
    }
    let out = run_child("a_signal_while_waiting_for_input_ends_the_process_at_once");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("outside the wait"), "{stdout}");
    assert!(!stdout.contains("in the wait"), "{stdout}");
    assert_eq!(out.status.signal(), Some(signal_hook::consts::SIGINT));
}

#[test]
fn a_first_signal_at_a_wait_ends_the_process() {
    if is_child() {
        kalah::interrupt::install();
        kalah::interrupt::with_default_action(|| {
            signal_hook::low_level::raise(signal_hook::consts::SIGTERM).expect("raise");
            println!("still running after a signal in the wait");
        });
        return;
    }
    let out = run_child("a_first_signal_at_a_wait_ends_the_process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("in the wait"), "{stdout}");
    assert_eq!(out.status.signal(), Some(signal_hook::consts::SIGTERM));
}
