//! `query --value-only`: the value alone, single and batch. Its value must
//! be the full query's on every position (inside the tables, searched,
//! finished; both capture rules), and its answers leave out exactly the
//! moves and the best moves.

mod common;

use common::{kalah_command as kalah, parsed, path, run_with_input, temp_dir, Rng};
use std::process::Output;

/// Random 6-house positions with 0 to 17 seeds on the board: over tables
/// to 8 seeds, some finished, some answered by the tables, most searched.
fn random_positions(rng: &mut Rng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let seeds = rng.below(18) as usize;
            let mut houses = [0u8; 12];
            for _ in 0..seeds {
                houses[rng.below(12) as usize] += 1;
            }
            let side = |h: &[u8]| h.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
            format!(
                "{} {} {} {} {}",
                side(&houses[..6]),
                rng.below(30),
                side(&houses[6..]),
                rng.below(30),
                if rng.below(2) == 0 { "S" } else { "N" }
            )
        })
        .collect()
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn value_only_gives_the_full_querys_value_without_the_moves() {
    for flag in [None, Some("--empty-capture")] {
        let dir = temp_dir("value-only");
        let mut build = vec!["build", "--pits", "6", "--max-seeds", "8"];
        build.extend(["--tables", path(&dir)]);
        build.extend(flag);
        ok(&kalah().args(&build).output().expect("build"));

        let positions = random_positions(&mut Rng::new(14), 300);
        let input = positions.join("\n") + "\n";
        let mut args = vec!["query", "--batch", "-", "--tables", path(&dir)];
        args.extend(["--tt-mb", "16", "--threads", "1"]);
        args.extend(flag);
        let full = ok(&run_with_input(&args, input.as_bytes()));
        args.push("--value-only");
        let value_only = ok(&run_with_input(&args, input.as_bytes()));
        let (full, value_only): (Vec<&str>, Vec<&str>) =
            (full.lines().collect(), value_only.lines().collect());
        assert_eq!(full.len(), positions.len());
        assert_eq!(value_only.len(), positions.len());
        let mut sources = std::collections::HashMap::new();
        for ((f, v), pos) in full.iter().zip(&value_only).zip(&positions) {
            let (f, v) = (parsed(f), parsed(v));
            assert_eq!(f["value"], v["value"], "{flag:?} {pos}: {f} / {v}");
            for key in ["position", "to_move", "rules", "result", "source"] {
                assert_eq!(f[key], v[key], "{key} of {pos}");
            }
            let source = v["source"].as_str().expect("source").to_string();
            if source == "finished" {
                assert_eq!(v["moves"], serde_json::json!([]), "{v}");
            } else {
                assert!(v.get("moves").is_none() && v.get("best").is_none(), "{v}");
                assert!(f["moves"].is_array() && f["best"].is_array(), "{f}");
            }
            *sources.entry(source).or_insert(0) += 1;
        }
        assert!(
            sources.get("table") > Some(&20) && sources.get("search") > Some(&100),
            "{sources:?}"
        );

        // A single query: the same value; no moves, and a perfect game
        // only when asked for.
        for pos in positions.iter().take(30) {
            let mut args = vec!["query", pos.as_str(), "--json", "--tables", path(&dir)];
            args.extend(["--tt-mb", "16", "--threads", "1"]);
            args.extend(flag);
            let f = parsed(ok(&kalah().args(&args).output().expect("query")).trim());
            args.push("--value-only");
            let v = parsed(ok(&kalah().args(&args).output().expect("query")).trim());
            assert_eq!(f["value"], v["value"], "{pos}");
            if v["source"] != "finished" {
                assert!(v.get("moves").is_none() && v.get("pv").is_none(), "{v}");
                args.push("--pv");
                let p = parsed(ok(&kalah().args(&args).output().expect("query")).trim());
                assert_eq!(p["value"], f["value"], "{pos}");
                assert!(p["pv"].is_string() && p.get("moves").is_none(), "{p}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn value_only_text_says_the_moves_are_left_out() {
    let pos = "2 0 1 3 0 1 0 1 2 0 0 2 1 0 S";
    let out = kalah()
        .args([
            "query",
            pos,
            "--no-tables",
            "--threads",
            "1",
            "--tt-mb",
            "8",
        ])
        .arg("--value-only")
        .output()
        .expect("query");
    let text = ok(&out);
    assert!(text.contains("value: "), "{text}");
    assert!(text.contains("moves: left out (--value-only)"), "{text}");
    assert!(
        !text.contains("best:") && !text.contains("principal variation"),
        "{text}"
    );
}
