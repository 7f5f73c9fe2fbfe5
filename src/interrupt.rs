//! Ctrl-C as a request to stop: long commands poll [`requested`] (or pass
//! [`flag`] to the engine) and stop cleanly, so a table being written is
//! abandoned before its rename and every finished file stays intact.
//!
//! No dependency: on Unix the handler is installed with the C library's
//! `signal`, and only stores to an atomic (async-signal-safe). A second
//! Ctrl-C restores the default action, so a stuck process can still be
//! killed.

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
}

#[cfg(not(unix))]
mod imp {
    pub fn install() {}
}

/// Installs the handler (once, at start-up).
pub fn install() {
    imp::install();
}
