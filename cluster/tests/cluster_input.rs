//! The cluster's command line refuses a game size out of range as `kalah`
//! and the HTTP API do (the solver's `GameSize`): exit status 2, the same
//! message, no panic and no arithmetic that wraps.

use std::process::Command;

use kalah_solver::GameSize;

#[test]
fn sizes_out_of_range_are_refused_with_the_solvers_message() {
    let work = std::env::temp_dir().join(format!("kalah-cluster-input-{}", std::process::id()));
    for (pits, seeds) in [
        (6u64, 0u64),
        (0, 4),
        (9, 4),
        (6, 22),
        (6, 3_074_457_345_618_258_603),
        (2, 4_611_686_018_427_387_908),
        (usize::MAX as u64, usize::MAX as u64),
    ] {
        let want = GameSize::new(pits, seeds)
            .expect_err("out of range")
            .to_string();
        let out = Command::new(env!("CARGO_BIN_EXE_kalah-cluster"))
            .args(["solve", "--local", "--no-tables", "--pits"])
            .arg(pits.to_string())
            .arg("--seeds")
            .arg(seeds.to_string())
            .arg("--work")
            .arg(&work)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "Kalah({pits},{seeds}): {stderr}"
        );
        assert_eq!(
            stderr.trim(),
            format!("kalah-cluster: {want}"),
            "Kalah({pits},{seeds})"
        );
    }
    // Nothing was made of a game that does not exist.
    assert!(!work.exists(), "{}", work.display());
}
