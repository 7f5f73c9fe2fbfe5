//! A tier's file, written so that a final name only ever holds a complete
//! file: under a temporary name of the writer's own
//! (`<name>.tmp.<pid>.<n>`, created exclusively), synced, renamed and the
//! directory synced. After the rename the writer stamps the file as checked
//! (see [`crate::table::stamp`]): its image was checked in memory.

use crate::table::format::stored_checksum;
use crate::table::stamp::{self, FileId};
use crate::table::TableError;
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

/// Writes one tier file safely: a temporary name of this writer's own
/// (created exclusively), fsync, rename, directory sync; then the stamp
/// that records its checksum as checked. `image` is the whole file, checked.
pub(super) fn write_tier(path: &Path, image: &[u8]) -> Result<(), TableError> {
    let tmp = stamp::temp_name(path);
    let write = || -> std::io::Result<File> {
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        f.write_all(image)?;
        f.sync_all()?;
        Ok(f)
    };
    let file = match write() {
        Ok(f) => f,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(TableError::io(&tmp, "write", e));
        }
    };
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(TableError::io(path, "rename into place", e));
    }
    if let Some(parent) = path.parent() {
        // Make the rename durable; not every platform can open a directory.
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    // The identity of the file just renamed, read from the open file (the
    // name could already hold another build's file).
    if let Some(id) = file.metadata().ok().and_then(|m| FileId::of(&m)) {
        stamp::record(path, &id, stored_checksum(image));
    }
    Ok(())
}
