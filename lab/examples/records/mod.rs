//! A recorded run's answered tests, for the examples that solve them
//! again.

use std::path::Path;

use kalah_cluster::store::{read_records, RunConfig};
use kalah_cluster::unit::{UnitRecord, Verdict};

/// The tests the run in `work` answered (not split, not filled), in issue
/// order.
pub fn answered_tests(work: &Path, config: &RunConfig) -> Result<Vec<UnitRecord>, String> {
    let mut records = read_records(work, &config.identity)
        .map_err(|e| e.to_string())?
        .records;
    records.retain(|r| !r.filled && matches!(r.verdict, Verdict::AtLeast | Verdict::Below));
    records.sort_by_key(|r| r.seq);
    Ok(records)
}
