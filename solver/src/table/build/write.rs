//! A tier's file, written so that a final name only ever holds a complete
//! file: under a temporary name of the writer's own
//! (`<name>.tmp.<pid>.<n>`, created exclusively), synced, renamed and the
//! directory synced. After the rename the writer stamps the file as checked
//! (see [`crate::table::stamp`]): it computed the checksum from the values
//! it wrote.

use crate::rules::Rules;
use crate::table::format::{trailer, Header, Xxh64};
use crate::table::stamp::{self, FileId};
use crate::table::TableError;
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicI8, Ordering::Relaxed};

/// Bytes a tier file is written in at a time.
const WRITE_CHUNK: usize = 1 << 20;

/// Writes one tier file safely: a temporary name of this writer's own
/// (created exclusively), fsync, rename, directory sync; then the stamp
/// that records its checksum as checked.
pub(super) fn write_tier(
    path: &Path,
    pits: usize,
    rules: Rules,
    tier: u32,
    values: &[AtomicI8],
) -> Result<(), TableError> {
    let tmp = stamp::temp_name(path);
    let header = Header::new(pits, rules, tier, values.len() as u64).to_bytes();
    let mut hash = Xxh64::new(0);
    let mut write = || -> std::io::Result<File> {
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        hash.update(&header);
        f.write_all(&header)?;
        let mut bytes = vec![0u8; WRITE_CHUNK.min(values.len())];
        for chunk in values.chunks(WRITE_CHUNK) {
            let out = &mut bytes[..chunk.len()];
            for (b, v) in out.iter_mut().zip(chunk) {
                *b = v.load(Relaxed) as u8;
            }
            hash.update(out);
            f.write_all(out)?;
        }
        f.write_all(&trailer(&hash))?;
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
        stamp::record(path, &id, hash.finish());
    }
    Ok(())
}
