//! Progress of a long search on standard error: a spinner with the nodes
//! searched so far, nodes a second and the elapsed time, drawn only when
//! stderr is a terminal (scripts and pipes see nothing of it).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::service::ticker::with_ticks;

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(250);
/// Searches shorter than this never draw anything (no flicker on quick
/// answers).
const QUIET_START: Duration = Duration::from_millis(500);

/// Runs `work` while a line on stderr says `label` and how the search goes:
/// `nodes()` is polled a few times a second for the nodes searched so far
/// (the solver's counters advance at the end of each null-window test, so
/// the count moves in steps while the clock runs on).
pub fn with_search_progress<T>(
    label: &str,
    nodes: impl Fn() -> u64 + Sync,
    work: impl FnOnce() -> T,
) -> T {
    with_search_estimate(label, nodes, None, work)
}

/// [`with_search_progress`] for a search whose cost the cost model
/// predicts (`predicted` nodes, [`crate::service::cost`]): the line also
/// says how far along that is and the time left at the rate so far.
pub fn with_search_estimate<T>(
    label: &str,
    nodes: impl Fn() -> u64 + Sync,
    predicted: Option<f64>,
    work: impl FnOnce() -> T,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let first = nodes();
    let mut bar: Option<ProgressBar> = None;
    let tick = |elapsed: Option<Duration>| match elapsed {
        None => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
        Some(elapsed) if elapsed < QUIET_START => {}
        Some(elapsed) => {
            let bar = bar.get_or_insert_with(|| {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                    b.set_style(style);
                }
                b
            });
            let n = nodes().saturating_sub(first);
            let mut text = line(label, n, elapsed);
            if let Some(p) = predicted {
                text.push_str(&estimate(n, p, elapsed));
            }
            bar.set_message(text);
            bar.tick();
        }
    };
    with_ticks(TICK, tick, work)
}

/// The progress line after `elapsed` with `n` nodes counted. Before the
/// first null-window test ends no node is counted yet: the line then says
/// only how long it has been searching, rather than "0 nodes, 0/s", which
/// reads as a hang.
fn line(label: &str, n: u64, elapsed: Duration) -> String {
    if n == 0 {
        return format!("{label}: {}", clock(elapsed));
    }
    let rate = n as f64 / elapsed.as_secs_f64().max(1e-9);
    format!(
        "{label}: {} nodes, {}/s, {}",
        human(n as f64),
        human(rate),
        clock(elapsed)
    )
}

/// What the progress line adds for a search predicted to take `predicted`
/// nodes, `n` counted after `elapsed`: the share done and the time left at
/// the rate so far, or that it is past the prediction.
fn estimate(n: u64, predicted: f64, elapsed: Duration) -> String {
    if n == 0 {
        return format!(" (cost model: about {} nodes)", human(predicted));
    }
    let n = n as f64;
    if n >= predicted {
        return format!(
            " (past the cost model's {} nodes: its error grows far from the tables)",
            human(predicted)
        );
    }
    let rate = n / elapsed.as_secs_f64().max(1e-9);
    let left = Duration::from_secs_f64(((predicted - n) / rate).min(1e9));
    format!(
        " ({:.0}% of the cost model's {} nodes, about {} left at this rate)",
        100.0 * n / predicted,
        human(predicted),
        clock(left)
    )
}

/// `1234567.0` as `1.23 M`.
fn human(x: f64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")];
    for (scale, unit) in UNITS {
        if x >= scale {
            return format!("{:.2}{unit}", x / scale);
        }
    }
    format!("{x:.0}")
}

/// Elapsed time as `12.3 s`, `4 min 05 s` or `2 h 03 min`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{:.1} s", d.as_secs_f64())
    } else if s < 3600 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{} h {:02} min", s / 3600, s / 60 % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_times_read_well() {
        assert_eq!(human(999.0), "999");
        assert_eq!(human(1_234_567.0), "1.23 M");
        assert_eq!(human(5.5e9), "5.50 G");
        assert_eq!(clock(Duration::from_millis(12_340)), "12.3 s");
        assert_eq!(clock(Duration::from_secs(245)), "4 min 05 s");
        assert_eq!(clock(Duration::from_secs(7380)), "2 h 03 min");
    }

    #[test]
    fn a_predicted_search_says_how_far_along_it_is() {
        let t = Duration::from_secs(100);
        assert_eq!(
            estimate(1_000_000_000, 4e9, t),
            " (25% of the cost model's 4.00 G nodes, about 5 min 00 s left at this rate)"
        );
        assert_eq!(
            estimate(5_000_000_000, 4e9, t),
            " (past the cost model's 4.00 G nodes: its error grows far from the tables)"
        );
        assert_eq!(estimate(0, 4e9, t), " (cost model: about 4.00 G nodes)");
    }

    #[test]
    fn the_line_says_searching_until_nodes_are_counted() {
        let t = Duration::from_millis(2_500);
        assert_eq!(line("searching", 0, t), "searching: 2.5 s");
        assert_eq!(
            line("solving", 5_000_000, t),
            "solving: 5.00 M nodes, 2.00 M/s, 2.5 s"
        );
    }

    #[test]
    fn work_runs_and_returns_without_a_terminal() {
        assert_eq!(with_search_progress("test", || 0, || 41 + 1), 42);
    }
}
