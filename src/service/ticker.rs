//! Work with a clock beside it: what a front end needs to show a long
//! search's progress without a thread of its own.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Runs `work` while another thread calls `tick(Some(elapsed))` every
/// `period`, then `tick(None)` once when `work` is done. The ticker is
/// woken as soon as `work` ends, so a quick answer is not held up by it.
pub fn with_ticks<T>(
    period: Duration,
    mut tick: impl FnMut(Option<Duration>) + Send,
    work: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    thread::scope(|scope| {
        let ticker = scope.spawn(|| {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                thread::park_timeout(period);
                if !done.load(Ordering::Relaxed) {
                    tick(Some(start.elapsed()));
                }
            }
            tick(None);
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        ticker.thread().unpark();
        out
    })
}
