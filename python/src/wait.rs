//! Long work off the interpreter: run it on another thread without the
//! GIL while this one waits, looking at Python's signals every
//! [`TICK`]. A pending Ctrl-C (or any signal whose handler raises) raises
//! the work's stop flag, waits for the work to stop, and raises the
//! handler's exception (`KeyboardInterrupt`): the interpreter is left as
//! it was, the engine's structures intact (an aborted search stores
//! nothing; an abandoned table tier leaves no file).
//!
//! The engine's own Ctrl-C handler (`kalah::interrupt`) is not installed:
//! in Python the interpreter owns SIGINT.

use std::panic;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use pyo3::prelude::*;

/// How often the waiting thread looks at Python's signals. With the
/// engine's stop latency (a watchdog tick of 20 ms, then about a thousand
/// nodes), a search stops well within a tenth of a second of Ctrl-C.
const TICK: Duration = Duration::from_millis(10);

/// Runs `work` on a new thread without the GIL and returns its result;
/// when a signal handler raises while it runs, sets `stop`, waits for
/// `work` to return, and gives the handler's exception instead.
///
/// # Errors
/// The exception of a signal handler (KeyboardInterrupt for Ctrl-C).
///
/// # Panics
/// A panic of `work` is carried over to this thread (PyO3 turns it into
/// `pyo3_runtime.PanicException`).
pub fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let done = AtomicBool::new(false);
    let waiter = thread::current();
    thread::scope(|scope| {
        let worker = scope.spawn(|| {
            // Said on the way out, a panic included.
            let _done = Done(&done, &waiter);
            work()
        });
        let mut raised = None;
        while !done.load(Ordering::SeqCst) {
            py.allow_threads(|| {
                if !done.load(Ordering::SeqCst) {
                    thread::park_timeout(TICK);
                }
            });
            if let Err(e) = py.check_signals() {
                stop.store(true, Ordering::SeqCst);
                raised = Some(e);
                break;
            }
        }
        let out = py.allow_threads(|| worker.join());
        match (out, raised) {
            (Err(p), _) => panic::resume_unwind(p),
            (Ok(_), Some(e)) => Err(e),
            (Ok(out), None) => Ok(out),
        }
    })
}

/// Sets its flag and wakes the waiting thread when dropped.
struct Done<'a>(&'a AtomicBool, &'a thread::Thread);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.unpark();
    }
}
