//! Helpers shared by the integration tests: the engine's deterministic
//! random source and random positions.
#![allow(dead_code)]

use kalah::{Board, CaptureRule, Index, Rules};

/// The engine's sampling generator, under the name the tests use.
pub use kalah::sample::SplitMix64 as Rng;

/// A uniformly random board of `pits` houses a side with exactly `seeds`
/// seeds (uniform over the tier, through the index).
pub fn random_board(rng: &mut Rng, index: &Index, seeds: u32) -> Board {
    let size = index.tier_size(seeds) as u64;
    index.unrank(seeds, rng.below(size))
}

/// (position text, a phrase the error must contain)
pub const MALFORMED: &[(&str, &str)] = &[
    ("", "empty position"),
    ("   ", "empty position"),
    (",,,", "two separators in a row"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0", "side to move is missing"),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 0 X",
        "token 15 'X' is not a side",
    ),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 East", "'East' is not a side"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 S", "13 counts is odd"),
    ("4 4 4 -1 4 4 0 4 4 4 4 4 4 0 S", "token 4 '-1' is negative"),
    (
        "4 4 4 4 four 4 0 4 4 4 4 4 4 0 S",
        "token 5 'four' is not a seed count",
    ),
    (
        "4 4 4 4 4 4.5 0 4 4 4 4 4 4 0 S",
        "token 6 '4.5' is not a seed count",
    ),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 256 S",
        "token 14 '256' is too large",
    ),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 99999999999999999999 S",
        "'99999999999999999999' is too large",
    ),
    ("4 4 S 4 4 4 0 4 4 4 4 4 4 0 S", "token 3 'S' is a side"),
    ("4,,4,4,4,4,0,4,4,4,4,4,4,0,S", "token 2 is empty"),
    ("1 S", "1 counts is odd"),
    ("1 0 S", "2 counts is too few"),
    ("S", "0 counts is too few"),
    (
        "1 1 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 0 S",
        "9 houses a side",
    ),
    ("200 0 0 0 100 0 0 0 S", "300 seeds in all"),
    ("50 50 50 50 50 50 0 50 0 0 0 0 0 0 N", "350 seeds in all"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 S N", "token 15 'S' is a side"),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 0 s extra",
        "'extra' is not a side",
    ),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 SN", "'SN' is not a side"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 1", "side to move is missing"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 -S", "'-S' is not a side"),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 ½ S",
        "token 14 '½' is not a seed count",
    ),
    (
        "4 4 4 4 4 4 0 4 4 4 4 4 4 0x1 S",
        "token 14 '0x1' is not a seed count",
    ),
    (
        "4;4;4;4;4;4;0;4;4;4;4;4;4;0;S",
        "token 1 '4;4;4;4;4;4;0;4;4;4;4;4;4;0;S' is not a side",
    ),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 S,,", "token 16 is empty"),
    ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 ?", "'?' is not a side"),
    (
        "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 S",
        "21 counts is odd",
    ),
    ("128 0 128 0 S", "256 seeds in all"),
];

/// Sows house `h` of the mover seed by seed, straight from the rule text
/// (independent of the engine): (own houses, opponent's houses, store gain,
/// extra turn), not turned round.
pub fn model_sow(
    m: usize,
    rules: Rules,
    b: kalah::Board,
    h: usize,
) -> (Vec<u8>, Vec<u8>, u32, bool) {
    let mut own: Vec<u8> = (0..m).map(|i| b.own_house(i)).collect();
    let mut opp: Vec<u8> = (0..m).map(|i| b.opp_house(i)).collect();
    let mut store = 0u32;
    let mut seeds = own[h];
    own[h] = 0;
    // Pits in sowing order from the mover: own 0..m, store (m), opp 0..m.
    let mut at = h; // index in 0..2m+1
    let mut last = 0;
    while seeds > 0 {
        at = (at + 1) % (2 * m + 1);
        match at {
            a if a < m => own[a] += 1,
            a if a == m => store += 1,
            a => opp[a - m - 1] += 1,
        }
        seeds -= 1;
        last = at;
    }
    if last == m {
        return (own, opp, store, true);
    }
    if last < m && own[last] == 1 {
        let facing = m - 1 - last;
        if opp[facing] > 0 || rules.capture == CaptureRule::Empty {
            store += 1 + opp[facing] as u32;
            own[last] = 0;
            opp[facing] = 0;
        }
    }
    (own, opp, store, false)
}

/// The `kalah` binary under test, as a command to add arguments to.
pub fn kalah_command() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
}

/// Runs `kalah args` with `input` on stdin (written from a thread: a
/// command may exit, or stop reading, before it has read it all) and
/// captures stdout and stderr.
pub fn run_with_input<S: AsRef<std::ffi::OsStr>>(args: &[S], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = kalah_command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalah");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = feeder.join();
    out
}

/// A new empty directory under the system's temporary directory, unique to
/// this process and call.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "kalah-test-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A temporary path as a command-line argument.
pub fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// A line of `query --batch`'s output, parsed (every line is one JSON
/// object: an answer or an error line).
pub fn parsed(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// Whether the line is an answer (it has a value).
pub fn is_answer(line: &str) -> bool {
    parsed(line).get("value").is_some()
}

/// Whether the line is the answer to `position`.
pub fn is_answer_to(line: &str, position: &str) -> bool {
    let answer = parsed(line);
    answer["position"] == position && answer.get("value").is_some()
}

/// Whether the line is the error line of input line `n`, with a message that
/// contains `message`.
pub fn is_error(line: &str, n: u64, message: &str) -> bool {
    let error = parsed(line);
    error["line"] == n && error["error"].as_str().is_some_and(|e| e.contains(message))
}
