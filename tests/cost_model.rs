//! The cost model the program uses (`kalah::service::cost`, for the
//! progress estimate of a long solve) is the fit `scripts/cost_model.sh`
//! computes from the measured rows in `docs/data/cost-rows.tsv`.

use std::path::Path;
use std::process::Command;

use kalah::service::cost;
use kalah::Rules;

#[test]
fn the_programs_fit_is_the_scripts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .args(["scripts/cost_model.sh", "fit", "docs/data/cost-rows.tsv"])
        .current_dir(root)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "cost_model.sh fit failed:\n{text}");
    for (slug, rules) in [("ec", Rules::EMPTY_CAPTURE), ("std", Rules::STANDARD)] {
        // "ec: 15 whole games from the start; ln(nodes) = -1.612 + 0.3798 (N-K) + 0.1466 N"
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{slug}: ")))
            .unwrap_or_else(|| panic!("no {slug} fit in:\n{text}"));
        let eq = line
            .split_once("ln(nodes) = ")
            .expect("the fit's equation")
            .1;
        let numbers: Vec<f64> = eq
            .replace("(N-K)", "")
            .replace(" N", "")
            .split(" + ")
            .map(|w| w.trim().parse().expect("a coefficient"))
            .collect();
        let fit = cost::fit(6, rules).expect("a fit for 6 houses");
        assert_eq!(numbers, vec![fit.a, fit.b, fit.c], "{slug}: {line}");
    }
}
