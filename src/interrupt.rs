//! Ctrl-C as a request to stop: long commands poll [`requested`] (or pass
//! [`flag`] to the engine) and stop cleanly, so a table being written is
//! abandoned before its rename and every finished file stays intact.
//!
//! No dependency: on Unix the handler is installed with the C library's
//! `signal`, and only stores to an atomic (async-signal-safe). A second
//! Ctrl-C restores the default action, so a stuck process can still be
//! killed. While a command waits for the user to type ([`with_default_action`],
//! `play`'s prompt), Ctrl-C ends the process at once: the handler would
//! only set the flag, and the C library restarts the interrupted read, so
//! the first Ctrl-C at a prompt would seem to do nothing.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// The flag set by Ctrl-C.
pub fn flag() -> &'static AtomicBool {
    &STOP
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

#[cfg(unix)]
mod imp {
    use super::STOP;
    use std::sync::atomic::Ordering;

    const SIGINT: i32 = 2;
    const SIGTERM: i32 = 15;
    const SIG_DFL: usize = 0;

    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }

    extern "C" fn on_signal(signum: i32) {
        STOP.store(true, Ordering::SeqCst);
        // SAFETY: `signal` is async-signal-safe; restoring the default action
        // lets a second signal end the process at once.
        unsafe {
            signal(signum, SIG_DFL);
        }
    }

    pub fn install() {
        // SAFETY: the handler only touches an atomic and calls `signal`, both
        // async-signal-safe; the function pointer lives for the whole program.
        unsafe {
            signal(SIGINT, on_signal as extern "C" fn(i32) as usize);
            signal(SIGTERM, on_signal as extern "C" fn(i32) as usize);
        }
    }

    pub fn restore_default() {
        // SAFETY: setting the default action has no handler to be unsafe.
        unsafe {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn install() {}
    pub fn restore_default() {}
}

/// Installs the handler (once, at start-up).
pub fn install() {
    imp::install();
}

/// Runs `wait` (a blocking read of what the user types) with the default
/// action for Ctrl-C and SIGTERM, which end the process at once, then puts
/// the handler back unless a stop was already requested (a second Ctrl-C
/// must still kill). Nothing is being written while a command waits for
/// input, so nothing is left half done.
pub fn with_default_action<T>(wait: impl FnOnce() -> T) -> T {
    imp::restore_default();
    let out = wait();
    if !requested() {
        imp::install();
    }
    out
}
