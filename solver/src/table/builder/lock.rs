//! One build at a time per directory, board size and rule set: a build
//! holds an exclusive lock on `kalah-m{m}-{slug}.lock` in the directory for
//! its whole run (the lock file itself stays). A second build waits for it
//! ([`Progress::waiting`]), then resumes from what the first left. Once the
//! lock is held, temporary files of that board size and rule set can only
//! be a dead build's, and are removed. Readers take no lock: a final name
//! only ever appears by an atomic rename.

use super::Progress;
use crate::rules::Rules;
use crate::table::{TableError, TableFile};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

/// The lock file of builds of `pits` and `rules` in `dir`.
pub fn lock_path(dir: &Path, pits: usize, rules: Rules) -> PathBuf {
    dir.join(format!("kalah-m{pits}-{}.lock", rules.slug()))
}

/// Opens (creating it if need be) the lock file at `path`.
fn open_lock(path: &Path) -> Result<File, TableError> {
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| TableError::io(path, "create the lock file", e))
}

/// Takes the lock of the open lock file `file` at `path` if no one holds
/// it: `false` while another process does.
fn try_take(file: &File, path: &Path) -> Result<bool, TableError> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(TableError::io(path, "lock", e)),
    }
}

/// Takes the build lock of `pits` and `rules` in `dir` if no one holds it:
/// `None` while a build does (what `kalah tables clean` asks before it
/// removes a set's files). The lock lasts as long as the returned file is
/// open.
pub fn try_lock_build(dir: &Path, pits: usize, rules: Rules) -> Result<Option<File>, TableError> {
    let path = lock_path(dir, pits, rules);
    let file = open_lock(&path)?;
    Ok(try_take(&file, &path)?.then_some(file))
}

/// Takes the build lock of `pits` and `rules` in `dir`, waiting for
/// another build that holds it (saying so through `progress`) until it
/// ends or `stop` is set. The lock lasts as long as the returned file is
/// open (the operating system releases it when the process dies). The
/// file is opened once: a waiter keeps waiting on the lock the holder has,
/// even if someone removes the lock file meanwhile.
pub(super) fn lock_build(
    dir: &Path,
    pits: usize,
    rules: Rules,
    progress: &dyn Progress,
    stop: &AtomicBool,
) -> Result<File, TableError> {
    let path = lock_path(dir, pits, rules);
    let file = open_lock(&path)?;
    let mut said = false;
    while !try_take(&file, &path)? {
        if !said {
            progress.waiting(&path);
            said = true;
        }
        if stop.load(Relaxed) {
            return Err(TableError::StoppedWaiting { lock: path });
        }
        // Polled rather than blocked on, so that a stop is seen.
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(file)
}

/// Removes the temporary files of `pits` and `rules` in `dir`: table files
/// and stamps being written (`<name>.tmp.<pid>.<n>`, and `<name>.tmp` of
/// older versions). Called with the build lock held, when no live build of
/// them exists; a reader writing a stamp at that moment only loses it.
pub(super) fn remove_stale_temps(dir: &Path, pits: usize, rules: Rules) -> Result<(), TableError> {
    let entries = fs::read_dir(dir).map_err(|e| TableError::io(dir, "list", e))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if TableFile::parse(name) == Some(TableFile::Temp(pits, rules)) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| TableError::io(&path, "remove stale file", e))?;
        }
    }
    Ok(())
}
