//! What the examples share: a recorded run's configuration, its game and
//! its tables.

use std::path::Path;

use kalah_cluster::store::RunConfig;
use kalah_solver::table::{Check, Tables};
use kalah_solver::Game;

/// The run in work directory `work` (its `run.json`), its game, and the
/// tables in `tables_dir` it was solved with.
pub fn open_run(work: &Path, tables_dir: &str) -> Result<(RunConfig, Game, Tables), String> {
    let (config, rules) = RunConfig::read(work).map_err(|e| e.to_string())?;
    let id = &config.identity;
    let game = Game::new(id.pits, rules);
    let tables = Tables::open_with(
        tables_dir,
        id.pits,
        rules,
        Some(id.table_seeds),
        Check::Remembered,
    )
    .map_err(|e| e.to_string())?;
    Ok((config, game, tables))
}
