//! Ctrl-C as a request to stop: long commands poll [`requested`] (or pass
//! [`flag`] to the engine) and stop cleanly, so a table being written is
//! abandoned before its rename and every finished file stays intact.
//!
//! The handlers are the `signal-hook` crate's (no unsafe code here). For
//! SIGINT and SIGTERM each, in this order: if `KILL` is set, the signal's
//! default action ends the process at once; otherwise the signal sets
//! `STOP`, then `KILL`. So the first signal asks to stop, and a second
//! one ends a process that is stuck. While a command waits for the user to
//! type ([`with_default_action`], `play`'s prompt), `KILL` is set: the
//! handler would only set the flag, and the C library restarts the
//! interrupted read, so the first Ctrl-C at a prompt would seem to do
//! nothing.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first SIGINT or SIGTERM.
static STOP: AtomicBool = AtomicBool::new(false);

/// Whether the next SIGINT or SIGTERM takes its default action (ends the
/// process): after a first one, and while a command waits for input.
static KILL: AtomicBool = AtomicBool::new(false);

/// The flag set by Ctrl-C.
pub fn flag() -> &'static AtomicBool {
    &STOP
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Installs the handlers (once, at start-up). If they cannot be installed
/// the signals keep their default action (ending the process), which is
/// what a program without the handlers does.
pub fn install() {
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered in this order, so run in this order (see the module
        // documentation).
        let _ = signal_hook::flag::register_conditional_default(signal, &KILL)
            .and_then(|_| signal_hook::flag::register(signal, &STOP))
            .and_then(|_| signal_hook::flag::register(signal, &KILL));
    }
}

/// Runs `wait` (a blocking read of what the user types) with the default
/// action for Ctrl-C and SIGTERM, which end the process at once, then puts
/// the handler back unless a stop was already requested (a second Ctrl-C
/// must still kill). Nothing is being written while a command waits for
/// input, so nothing is left half done.
pub fn with_default_action<T>(wait: impl FnOnce() -> T) -> T {
    KILL.store(true, Ordering::SeqCst);
    let out = wait();
    if !requested() {
        KILL.store(false, Ordering::SeqCst);
    }
    out
}
