//! README.md is executable: every claim it shows as a command is run here.
//!
//! * Each ```` ```console ```` block is a session: lines starting with `$ `
//!   are commands, the lines after one are what it prints. A command is run
//!   as written (quotes and all, split as a shell would) with `kalah` being
//!   the binary under test, in a fresh table directory shared by the blocks
//!   (`KALAH_TABLES`); its expected lines must appear in its output in
//!   order, where `...` inside a line stands for any text and a line of
//!   `...` alone for any number of lines. A trailing `# exit N` says the
//!   status the command must end with (else 0).
//! * The first ```` ```sh ```` block holds the two commands a newcomer
//!   runs. The second is what `.ci/run` runs; the first (a release build
//!   and Kalah(6,4) from empty tables, a few minutes on 2 cores) runs in
//!   `fresh_clone_first_command`, `#[ignore]`d here and run by `.ci/run`,
//!   on a fresh `git clone` of this repository, exactly as written, and
//!   must print the value its comment states.
//! * README names no path outside the repository, and every repository
//!   path it puts in backquotes exists.

mod common;

use common::temp_dir;
use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable")
}

/// The fenced blocks of `text` whose info string is `lang`, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Inside a fence: whether it is of `lang`, and its text so far.
    let mut inside: Option<(bool, String)> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut inside, fence) {
            (None, true) => {
                let info = line.trim_start().trim_start_matches('`').trim();
                inside = Some((info == lang, String::new()));
            }
            (Some((wanted, body)), true) => {
                if *wanted {
                    out.push(std::mem::take(body));
                }
                inside = None;
            }
            (Some((_, body)), false) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, false) => {}
        }
    }
    out
}

/// Splits a command line as a POSIX shell would for the simple cases the
/// README uses: words, single and double quotes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether `line` matches `pattern`, where `...` stands for any text.
fn glob(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("...").collect();
    if parts.len() == 1 {
        return pattern.trim_end() == line.trim_end();
    }
    let mut rest = line;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.trim_end().ends_with(part.trim_end());
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

/// Checks that `expected` lines appear in `actual` in order (see the module
/// documentation for `...`).
fn matches(expected: &[String], actual: &str) -> Result<(), String> {
    let lines: Vec<&str> = actual.lines().collect();
    let mut at = 0;
    let mut gap = false;
    for e in expected {
        if e.trim() == "..." {
            gap = true;
            continue;
        }
        let found = if gap {
            (at..lines.len()).find(|&i| glob(e, lines[i]))
        } else {
            (at < lines.len() && glob(e, lines[at])).then_some(at)
        };
        match found {
            Some(i) => at = i + 1,
            None => {
                return Err(format!(
                    "expected line {e:?} {} line {}",
                    if gap { "at or after" } else { "at" },
                    at + 1
                ))
            }
        }
        gap = false;
    }
    Ok(())
}

struct Step {
    command: String,
    expected: Vec<String>,
    status: i32,
}

fn steps(block: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for line in block.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let (cmd, status) = match cmd.rsplit_once("# exit ") {
                Some((c, s)) => (c.trim_end(), s.trim().parse().expect("# exit N")),
                None => (cmd, 0),
            };
            out.push(Step {
                command: cmd.to_string(),
                expected: Vec::new(),
                status,
            });
        } else if let Some(s) = out.last_mut() {
            s.expected.push(line.to_string());
        }
    }
    out
}

#[test]
fn console_blocks_print_what_readme_shows() {
    let text = readme();
    let sessions = blocks(&text, "console");
    assert!(!sessions.is_empty(), "README has console examples");
    let tables = temp_dir("readme-tables");
    let mut ran = 0;
    for block in &sessions {
        for step in steps(block) {
            let words = shell_words(&step.command);
            assert_eq!(
                words.first().map(String::as_str),
                Some("kalah"),
                "{}",
                step.command
            );
            let out = Command::new(env!("CARGO_BIN_EXE_kalah"))
                .args(&words[1..])
                .env("KALAH_TABLES", &tables)
                .output()
                .expect("kalah runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let both = format!("{stdout}{stderr}");
            assert_eq!(
                out.status.code(),
                Some(step.status),
                "README command `{}` exit status\n{both}",
                step.command
            );
            if let Err(e) = matches(&step.expected, &both) {
                panic!(
                    "README command `{}`: {e}; it printed:\n{both}",
                    step.command
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 5, "only {ran} README commands found");
    let _ = std::fs::remove_dir_all(&tables);
}

#[test]
fn every_command_in_the_table_has_help() {
    let text = readme();
    let mut seen = 0;
    for line in text.lines().filter(|l| l.starts_with("| `kalah ")) {
        let cmd = line["| `kalah ".len()..].split([' ', '`']).next().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_kalah"))
            .args([cmd, "--help"])
            .output()
            .expect("kalah runs");
        assert!(out.status.success(), "`kalah {cmd} --help` fails");
        seen += 1;
    }
    assert!(seen >= 8, "the command table lists {seen} commands");
}

#[test]
fn readme_stays_inside_the_repository() {
    let text = readme();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(
        !text.contains("../"),
        "README points outside the repository"
    );
    for (i, piece) in text.split('`').enumerate() {
        // Odd pieces are inside backquotes; a path is a word with a slash
        // that starts with one of the top-level entries.
        if i % 2 == 0 || piece.contains(' ') {
            continue;
        }
        let top = [
            "src/",
            "solver/",
            "cluster/",
            "lab/",
            "python/",
            "examples/",
            "tests/",
            "scripts/",
            "docs/",
            "tables/",
            "results/",
            ".ci/",
        ];
        if top.iter().any(|t| piece.starts_with(t)) {
            let path = piece.trim_end_matches(['.', ',', ':']);
            for path in expand_braces(path) {
                let path = path.split('*').next().unwrap();
                assert!(
                    root.join(path).exists(),
                    "README names `{path}`, which is not in the tree"
                );
            }
        }
    }
}

/// `a-{x,y}.json` as `a-x.json` and `a-y.json` (one brace group).
fn expand_braces(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{alt}{}", &path[..open], &path[close + 1..]))
            .collect(),
        _ => vec![path.to_string()],
    }
}

/// The first command of README's first `sh` block, run as written on a
/// fresh clone of the repository's HEAD, prints the value of its comment.
#[test]
#[ignore = "a release build and a 22-seed table build on a fresh clone: minutes; .ci/run runs it"]
fn fresh_clone_first_command() {
    let text = readme();
    let first = blocks(&text, "sh")
        .into_iter()
        .next()
        .expect("README starts with a sh block");
    let line = first.lines().next().expect("a first command").to_string();
    let (cmd, comment) = line
        .split_once('#')
        .expect("the first command has a comment");
    let want = comment
        .split_whitespace()
        .find(|w| w.starts_with('+') || w.starts_with('-'))
        .expect("the comment states the value, e.g. +10")
        .trim_end_matches([',', '.', ';']);
    let dir = temp_dir("readme-clone");
    let root = env!("CARGO_MANIFEST_DIR");
    let status = Command::new("git")
        .args(["clone", "-q", root])
        .arg(&dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git clone");
    let out = Command::new("sh")
        .args(["-c", cmd])
        .current_dir(&dir)
        .env_remove("KALAH_TABLES")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "`{cmd}` failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("value: ") && l.contains(want)),
        "`{cmd}` should print value {want}:\n{stdout}"
    );
    // The tables went into the clone's own tables/, nowhere else.
    assert!(dir.join("tables").read_dir().unwrap().count() > 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_matcher_itself() {
    assert!(glob("value: +8 (...)", "value: +8 (South wins by 8)"));
    assert!(!glob("value: +8 (...)", "value: +6 (South wins by 6)"));
    assert!(glob("nodes: ...", "nodes: 123"));
    assert!(glob("a...c...e", "abcde"));
    assert!(!glob("a...c...e", "abdef"));
    let exp: Vec<String> = ["x", "...", "z"].iter().map(|s| s.to_string()).collect();
    assert!(matches(&exp, "x\ny\nz\n").is_ok());
    assert!(matches(&exp, "y\nx\nz\n").is_err());
    assert_eq!(
        shell_words(r#"kalah query "4 4 0 S" --json"#),
        ["kalah", "query", "4 4 0 S", "--json"]
    );
}

/// The cost model in docs/performance.md ("Toward Kalah(6,6)") is what `scripts/cost_model.sh
/// fit` computes from the measured rows kept in `docs/data/cost-rows.tsv`:
/// the nodes per seed of table depth and the Kalah(6,6) predictions, as
/// README rounds them.
#[test]
fn cost_model_tables_come_from_the_kept_rows() {
    let fit = cost_model_fit();
    // Per rule set: e^b, then (K, nodes, CPU-hours) for each prediction.
    let section = |rules: &str| {
        // The rule set's line and the indented lines under it.
        let lines: Vec<&str> = fit
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{rules}: ")))
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
            .map(|(_, l)| l)
            .collect();
        assert!(!lines.is_empty(), "no {rules} fit in:\n{fit}");
        let text = lines[1..].join("\n");
        let per_seed = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix('x'))
            .and_then(|w| w.parse::<f64>().ok())
            .expect("a factor per seed of table depth");
        let predictions: Vec<(u32, String, f64)> = text
            .lines()
            .filter_map(|l| {
                let l = l.trim().strip_prefix("Kalah(6,6) over ")?;
                let (k, rest) = l.split_once("-seed tables: ")?;
                let (nodes, rest) = rest.split_once(" nodes, ")?;
                let hours = rest.split_whitespace().next()?.parse().ok()?;
                let (m, e) = nodes.split_once("e+")?;
                let nodes = format!("{:.1} x 10^{}", m.parse::<f64>().ok()?, e);
                Some((k.parse().ok()?, nodes, hours))
            })
            .collect();
        (per_seed, predictions)
    };
    let (ec, std) = (section("ec"), section("std"));
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/performance.md"))
            .expect("docs/performance.md is readable");
    let row = format!(
        "| nodes per seed of table depth removed (e^b) | x{:.2} | x{:.2} |",
        ec.0, std.0
    );
    assert!(text.contains(&row), "README lacks `{row}`");
    // Two significant figures, as README writes hours.
    let hours = |h: f64| {
        if h < 10.0 {
            format!("{h:.1}")
        } else {
            format!("{h:.0}")
        }
    };
    assert_eq!(ec.1.len(), 3, "three predictions:\n{fit}");
    for ((k, ec_nodes, ec_h), (_, std_nodes, std_h)) in ec.1.iter().zip(&std.1) {
        let tail = format!(
            "| {ec_nodes} | {} | {std_nodes} | {} |",
            hours(*ec_h),
            hours(*std_h)
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("| {k} |")) && l.ends_with(&tail)),
            "README's prediction for {k} seeds should end `{tail}`"
        );
    }
}

/// What `scripts/cost_model.sh fit docs/data/cost-rows.tsv` prints.
fn cost_model_fit() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .args(["scripts/cost_model.sh", "fit", "docs/data/cost-rows.tsv"])
        .current_dir(root)
        .output()
        .expect("bash runs");
    let fit = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "cost_model.sh fit failed:\n{fit}");
    fit
}

/// The cost model the program uses (`kalah::service::cost`, for the
/// progress estimate of a long solve) is the same fit, coefficient for
/// coefficient.
#[test]
fn the_programs_cost_model_is_the_scripts() {
    let text = cost_model_fit();
    for (slug, rules) in [
        ("ec", kalah::Rules::EMPTY_CAPTURE),
        ("std", kalah::Rules::STANDARD),
    ] {
        // "ec: 15 whole games from the start; ln(nodes) = -1.612 + 0.3798 (N-K) + 0.1466 N"
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{slug}: ")))
            .unwrap_or_else(|| panic!("no {slug} fit in:\n{text}"));
        let eq = line.split_once("ln(nodes) = ").expect("the equation").1;
        let numbers: Vec<f64> = eq
            .replace("(N-K)", "")
            .replace(" N", "")
            .split(" + ")
            .map(|w| w.trim().parse().expect("a coefficient"))
            .collect();
        let fit = kalah::service::cost::fit(6, rules).expect("a fit for 6 houses");
        assert_eq!(numbers, vec![fit.a, fit.b, fit.c], "{slug}: {line}");
    }
}

/// README is a user's guide read in ten minutes: measurements and the
/// history of the work live in docs/performance.md and lab/journal/.
#[test]
fn readme_is_a_short_guide() {
    let lines = readme().lines().count();
    assert!(
        lines <= 360,
        "README.md has {lines} lines; keep it near 350"
    );
}
