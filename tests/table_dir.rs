//! Where the tables live and `kalah tables` (issue 12, first hour): the
//! directory comes from --tables, then $KALAH_TABLES; a directory someone
//! named is never created behind their back; `kalah tables` lists sets,
//! tiers, gaps and sizes; `clean` removes only what it is told to, never
//! the files of a build that is running.

mod common;

use common::temp_dir;
use std::path::Path;
use std::process::{Command, Output};

fn kalah(args: &[&str], env_tables: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kalah"));
    cmd.args(args);
    match env_tables {
        Some(dir) => cmd.env("KALAH_TABLES", dir),
        None => cmd.env_remove("KALAH_TABLES"),
    };
    cmd.output().expect("kalah runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tier_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tbl"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_variable_names_the_directory_and_a_named_directory_is_never_invented() {
    let dir = temp_dir("env");
    // Built through $KALAH_TABLES, then found again through it by query.
    let o = kalah(&["build", "--pits", "3", "--max-seeds", "6"], Some(&dir));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(tier_files(&dir).len(), 7);
    let o = kalah(&["query", "1 0 0 0 0 1 0 0 S", "--json"], Some(&dir));
    assert!(o.status.success(), "{}", text(&o));
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON answer");
    assert_eq!(answer["source"], "table", "{}", text(&o));
    // The flag wins over the variable.
    let other = temp_dir("env-flag");
    let o = kalah(
        &[
            "build",
            "--pits",
            "3",
            "--max-seeds",
            "2",
            "--tables",
            other.to_str().unwrap(),
        ],
        Some(&dir),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(tier_files(&other).len(), 3);
    assert_eq!(tier_files(&dir).len(), 7);

    // A mistyped directory: solve and play refuse (exit 2) and create
    // nothing; so does the variable; build, whose job it is, creates it.
    let missing = dir.join("no").join("such");
    for args in [
        vec![
            "solve",
            "--pits",
            "3",
            "--seeds",
            "2",
            "--table-seeds",
            "4",
            "--tables",
            missing.to_str().unwrap(),
        ],
        vec![
            "verify",
            "--pits",
            "3",
            "--tables",
            missing.to_str().unwrap(),
        ],
    ] {
        let o = kalah(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("does not exist"), "{}", text(&o));
        assert!(!missing.exists());
    }
    let o = kalah(&["solve", "--pits", "3", "--seeds", "6"], Some(&missing));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!missing.exists());
    let o = kalah(
        &[
            "build",
            "--pits",
            "3",
            "--max-seeds",
            "1",
            "--tables",
            missing.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("creating table directory"),
        "{}",
        text(&o)
    );
    assert_eq!(tier_files(&missing).len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn tables_lists_sets_gaps_sizes_and_cleans_what_it_is_told() {
    let dir = temp_dir("list");
    let d = dir.to_str().unwrap();
    for rules in [&[][..], &["--empty-capture"][..]] {
        let mut args = vec!["build", "--pits", "3", "--max-seeds", "8", "--tables", d];
        args.extend_from_slice(rules);
        let o = kalah(&args, None);
        assert!(o.status.success(), "{}", text(&o));
    }
    // A gap in the standard set, and a temporary file left by a dead build.
    std::fs::remove_file(dir.join("kalah-m3-std-k5.tbl")).unwrap();
    std::fs::write(dir.join("kalah-m3-ec-k9.tbl.tmp.999999.0"), [0u8; 100]).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();

    let o = kalah(&["tables", "--tables", d], None);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(&format!("table directory: {d} (from --tables)")),
        "{out}"
    );
    let std_line = out.lines().find(|l| l.contains(" std ")).expect(&out);
    assert!(std_line.contains("0..=4, 6..=8 (gap)"), "{std_line}");
    let ec_line = out.lines().find(|l| l.contains(" ec ")).expect(&out);
    assert!(
        ec_line.contains("0..=8") && ec_line.contains("1 file, 100 B"),
        "{ec_line}"
    );

    let o = kalah(&["tables", "--tables", d, "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON listing");
    let set = |rules: &str| {
        json["sets"]
            .as_array()
            .and_then(|sets| sets.iter().find(|s| s["rules"] == rules))
            .unwrap_or_else(|| panic!("no {rules} set: {json}"))
            .clone()
    };
    let std_set = set("std");
    assert_eq!(
        std_set["tiers"],
        serde_json::json!([0, 1, 2, 3, 4, 6, 7, 8]),
        "{json}"
    );
    assert_eq!(std_set["complete_up_to"], 4, "{json}");
    let ec_set = set("ec");
    assert_eq!(ec_set["temporary_files"], 1, "{json}");
    assert_eq!(ec_set["temporary_bytes"], 100, "{json}");

    // No filter: refused. A dry run removes nothing.
    let o = kalah(&["tables", "clean", "--tables", d], None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let before = tier_files(&dir);
    let o = kalah(
        &[
            "tables",
            "clean",
            "--above",
            "6",
            "--dry-run",
            "--tables",
            d,
        ],
        None,
    );
    assert!(
        o.status.success() && text(&o).contains("would remove"),
        "{}",
        text(&o)
    );
    assert_eq!(tier_files(&dir), before);
    // Tiers above 6 of every set, with their stamps and the temporary file.
    let o = kalah(&["tables", "clean", "--above", "6", "--tables", d], None);
    assert!(o.status.success(), "{}", text(&o));
    let left = tier_files(&dir);
    assert!(
        left.iter()
            .all(|n| !n.ends_with("k7.tbl") && !n.ends_with("k8.tbl")),
        "{left:?}"
    );
    assert!(left.contains(&"kalah-m3-ec-k6.tbl".to_string()));
    assert!(!dir.join("kalah-m3-ec-k9.tbl.tmp.999999.0").exists());
    assert!(!dir.join("kalah-m3-ec-k8.tbl.checked").exists());
    // One rule set, all of it; the other stays; a file of the user's stays.
    let o = kalah(&["tables", "clean", "--rules", "std", "--tables", d], None);
    assert!(o.status.success(), "{}", text(&o));
    let left = tier_files(&dir);
    assert!(left.iter().all(|n| n.contains("-ec-")), "{left:?}");
    assert_eq!(left.len(), 7);
    let o = kalah(&["tables", "clean", "--all", "--tables", d], None);
    assert!(o.status.success(), "{}", text(&o));
    assert!(tier_files(&dir).is_empty());
    assert!(dir.join("notes.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clean_leaves_a_running_build_alone() {
    let dir = temp_dir("lock");
    let d = dir.to_str().unwrap();
    let o = kalah(
        &["build", "--pits", "3", "--max-seeds", "4", "--tables", d],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    // Hold the set's lock as a running build does.
    let lock = std::fs::File::create(dir.join("kalah-m3-std.lock")).unwrap();
    lock.lock().unwrap();
    let o = kalah(&["tables", "clean", "--all", "--tables", d], None);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("is running"), "{}", text(&o));
    assert_eq!(tier_files(&dir).len(), 5);
    drop(lock);
    let o = kalah(&["tables", "clean", "--all", "--tables", d], None);
    assert!(o.status.success(), "{}", text(&o));
    assert!(tier_files(&dir).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tier file of an older format version (refused when opened) is named
/// by `kalah tables`, which says `kalah build` rebuilds it; the JSON lists
/// the tiers.
#[test]
fn tables_names_files_of_an_older_format() {
    let dir = temp_dir("old-format");
    let d = dir.to_str().unwrap();
    let o = kalah(
        &["build", "--pits", "3", "--max-seeds", "6", "--tables", d],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    // Bytes 8..12 hold the version after the 8-byte magic.
    for k in [4, 6] {
        let path = dir.join(format!("kalah-m3-std-k{k}.tbl"));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
    }
    let o = kalah(&["tables", "--tables", d], None);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let line = out.lines().find(|l| l.contains(" std ")).expect(&out);
    assert!(
        line.contains("2 files from tier 4 in an older format: `kalah build` rebuilds them"),
        "{line}"
    );
    let o = kalah(&["tables", "--tables", d, "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON listing");
    assert_eq!(
        json["sets"][0]["old_format_tiers"],
        serde_json::json!([4, 6]),
        "{json}"
    );
    // The build replaces them; then the listing is clean.
    let o = kalah(
        &["build", "--pits", "3", "--max-seeds", "6", "--tables", d],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = kalah(&["tables", "--tables", d, "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON listing");
    assert_eq!(
        json["sets"][0]["old_format_tiers"],
        serde_json::json!([]),
        "{json}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
