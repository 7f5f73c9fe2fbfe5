//! Ctrl-C and SIGTERM (`kalah::interrupt`): the first asks to stop, a
//! second one, or one while a command waits for input, ends the process at
//! once. Each case runs in a child process (this test binary again, one
//! test selected), since a signal that ends the process would end the
//! test harness.
#![cfg(unix)]

use signal_hook::consts::{SIGINT, SIGTERM};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

/// The environment variable that makes a test below act as the child.
const CHILD: &str = "KALAH_INTERRUPT_TEST_CHILD";

/// In the child process (this test binary run again with `test` alone):
/// runs `child`, which should end in a signal, and returns `None`. In the
/// test process: runs that child and checks that it printed each of
/// `printed`, none of `not_printed`, and ended by `signal`.
fn in_child(test: &str, child: impl FnOnce(), printed: &[&str], not_printed: &[&str], signal: i32) {
    if std::env::var_os(CHILD).is_some() {
        kalah::interrupt::install();
        child();
        return;
    }
    let out: Output = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in printed {
        assert!(stdout.contains(line), "{line:?} missing: {stdout}");
    }
    for line in not_printed {
        assert!(!stdout.contains(line), "{line:?} printed: {stdout}");
    }
    assert_eq!(out.status.signal(), Some(signal), "{stdout}");
}

fn raise(signal: i32) {
    signal_hook::low_level::raise(signal).expect("raise");
}

#[test]
fn a_first_signal_asks_to_stop_and_a_second_ends_the_process() {
    in_child(
        "a_first_signal_asks_to_stop_and_a_second_ends_the_process",
        || {
            assert!(!kalah::interrupt::requested());
            raise(SIGINT);
            assert!(kalah::interrupt::requested());
            println!("after the first");
            raise(SIGTERM);
            println!("after the second");
        },
        &["after the first"],
        &["after the second"],
        SIGTERM,
    );
}

#[test]
fn a_signal_while_waiting_for_input_ends_the_process_at_once() {
    in_child(
        "a_signal_while_waiting_for_input_ends_the_process_at_once",
        || {
            kalah::interrupt::with_default_action(|| println!("waited"));
            // After the wait, the handler is back: a signal asks to stop.
            raise(SIGTERM);
            assert!(kalah::interrupt::requested());
            println!("after a signal outside a wait");
            kalah::interrupt::with_default_action(|| {
                raise(SIGINT);
                println!("after a signal in a wait");
            });
        },
        &["waited", "after a signal outside a wait"],
        &["after a signal in a wait"],
        SIGINT,
    );
}

#[test]
fn a_first_signal_during_a_wait_ends_the_process() {
    in_child(
        "a_first_signal_during_a_wait_ends_the_process",
        || {
            kalah::interrupt::with_default_action(|| {
                raise(SIGTERM);
                println!("after a signal in a wait");
            });
        },
        &[],
        &["after a signal in a wait"],
        SIGTERM,
    );
}
