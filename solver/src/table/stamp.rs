//! Stamps: the record, beside a tier file, that the checksum of that very
//! file was checked, so that the next process to open it need not read all
//! of it again ([`Check::Remembered`](super::Check::Remembered)).
//!
//! # What a stamp proves, and when it is trusted
//!
//! A stamp names the file it was made for by its identity: device, inode,
//! size, modification time and change time (nanoseconds). It is trusted
//! only when the file opened now has exactly that identity. Replacing the
//! file (a rebuild renames a new file into place) gives another inode;
//! writing into it changes its change time (ctime), which no program can
//! set back, even when it resets the modification time. A stamp that does
//! not match is ignored: the file is checked in full again and, when it
//! passes, stamped anew.
//!
//! The residual risk is a write into the file within the granularity of
//! the file system's timestamps after the stamp's identity was read. On
//! Linux 6.13 and later, ext4, xfs, btrfs and tmpfs give a change time that
//! was read a fine-grained successor on the next change, so even that is
//! seen; elsewhere the window is a clock tick (or a second, on file systems
//! with coarse times). Writing a table file in place breaks the reader's
//! contract anyway (see [`TierTable::open`](super::TierTable::open)); to
//! recheck every byte regardless of stamps, run `kalah verify`, which
//! reads every file in full. A stamp does not protect against the storage
//! itself changing bytes later without the file system noticing.
//!
//! Writes through a shared writable memory map are the one kind of write
//! that can leave the change time alone: the kernel updates it when a
//! mapped page is first written after it was clean, not on later writes to
//! a page still dirty. A writer that dirtied its pages just before a check
//! could therefore change them after it unseen. So a reader stamps only a
//! file whose change time is at least [`SETTLED`] old: by then the kernel
//! has written back and write-protected every page dirtied before (its
//! default is to do so within about 35 s), and any later write through a
//! map is seen again. On file systems without write-back (tmpfs) or with
//! write-back delayed beyond that, such writes stay unseen: the reader's
//! contract (never write a table file in place) is what rules them out,
//! and answers from the tables are also checked against the entries they
//! read (see [`crate::query::FixedAnswer::consistent`]).
//!
//! Stamps are written by the builder right after it renames a file into
//! place (it computed the checksum from the values it wrote, and no one
//! can have mapped a file that new) and by a reader after a full check
//! passed on a settled file, in both cases under a temporary name
//! of the writer's own, then renamed: a stamp is whole or absent. Writing
//! one is best effort: in a read-only directory, files are simply checked
//! in full on every open.
//!
//! # Stamp format
//!
//! `<table file name>.checked`, 72 bytes, integers little-endian:
//!
//! ```text
//! offset  size  content
//! 0       8     magic = b"KTBLSTMP"
//! 8       4     version = 1 (u32)
//! 12      4     zero
//! 16      8     device (u64)
//! 24      8     inode (u64)
//! 32      8     size in bytes (u64)
//! 40      8     modification time, ns since the Unix epoch (i64)
//! 48      8     change time, ns since the Unix epoch (i64)
//! 56      8     the file's checksum (its trailer's XXH64), as checked
//! 64      8     XXH64 (seed 0) of bytes 0..64: a torn or altered stamp is
//!               ignored
//! ```

use super::format::xxh64;
use std::fs::{self, File, Metadata};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const MAGIC: [u8; 8] = *b"KTBLSTMP";
const VERSION: u32 = 1;
const LEN: usize = 72;
/// What a stamp's name adds to its table file's name.
pub const SUFFIX: &str = ".checked";

/// The identity of an open file, as a stamp records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

impl FileId {
    /// The identity of the file `meta` describes; `None` where the
    /// platform does not give inode and change time (no stamps there).
    pub fn of(meta: &Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s.checked_mul(1_000_000_000)?.checked_add(n);
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.size(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec())?,
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec())?,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// The identity of the file now at `path`, if it can be read.
    pub fn at(path: &Path) -> Option<FileId> {
        FileId::of(&fs::metadata(path).ok()?)
    }
}

/// The stamp file of the table file `table`.
pub fn stamp_path(table: &Path) -> PathBuf {
    let mut s = table.as_os_str().to_owned();
    s.push(SUFFIX);
    PathBuf::from(s)
}

/// Whether the stamp beside `table` records that the file of identity `id`
/// passed its checksum, that checksum being `checksum`.
pub fn is_trusted(table: &Path, id: &FileId, checksum: u64) -> bool {
    match fs::read(stamp_path(table)) {
        Ok(bytes) => decode(&bytes) == Some((*id, checksum)),
        Err(_) => false,
    }
}

/// How old a file's change time must be before a reader stamps it (see
/// the module documentation).
pub const SETTLED: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether the file of identity `id` was last changed at least [`SETTLED`]
/// ago (a change time in the future counts as fresh).
pub fn is_settled(id: &FileId) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64);
    now.saturating_sub(id.ctime_ns) >= SETTLED.as_nanos() as i64
}

/// Records that the file `table` of identity `id` passed its checksum
/// `checksum`. Best effort: a failure (read-only directory, full disk)
/// only means the file is checked in full next time.
pub fn record(table: &Path, id: &FileId, checksum: u64) {
    let path = stamp_path(table);
    let tmp = temp_name(&path);
    let write = || -> std::io::Result<()> {
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        f.write_all(&encode(id, checksum))?;
        // No fsync: a stamp lost in a crash only costs a full check, and a
        // torn one fails its own checksum.
        drop(f);
        fs::rename(&tmp, &path)
    };
    if write().is_err() {
        let _ = fs::remove_file(&tmp);
    }
}

/// Removes the stamp of `table` (a file that failed its check).
pub fn remove(table: &Path) {
    let _ = fs::remove_file(stamp_path(table));
}

/// A temporary name for `path` of this writer's own:
/// `<path>.tmp.<pid>.<n>`, `n` counting the process's temporary files.
pub(crate) fn temp_name(path: &Path) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let mut s = path.as_os_str().to_owned();
    s.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        N.fetch_add(1, Relaxed)
    ));
    PathBuf::from(s)
}

fn encode(id: &FileId, checksum: u64) -> [u8; LEN] {
    let mut b = [0u8; LEN];
    b[0..8].copy_from_slice(&MAGIC);
    b[8..12].copy_from_slice(&VERSION.to_le_bytes());
    b[16..24].copy_from_slice(&id.dev.to_le_bytes());
    b[24..32].copy_from_slice(&id.ino.to_le_bytes());
    b[32..40].copy_from_slice(&id.size.to_le_bytes());
    b[40..48].copy_from_slice(&id.mtime_ns.to_le_bytes());
    b[48..56].copy_from_slice(&id.ctime_ns.to_le_bytes());
    b[56..64].copy_from_slice(&checksum.to_le_bytes());
    let own = xxh64(&b[..64]);
    b[64..72].copy_from_slice(&own.to_le_bytes());
    b
}

fn decode(b: &[u8]) -> Option<(FileId, u64)> {
    if b.len() != LEN || b[0..8] != MAGIC || b[12..16] != [0; 4] {
        return None;
    }
    let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    if u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")) != VERSION
        || u(64) != xxh64(&b[..64])
    {
        return None;
    }
    let id = FileId {
        dev: u(16),
        ino: u(24),
        size: u(32),
        mtime_ns: u(40) as i64,
        ctime_ns: u(48) as i64,
    };
    Some((id, u(56)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written moments ago is not stamped by a reader (a writer may
    /// still hold pages it can change unseen); one changed long ago is.
    #[test]
    fn only_settled_files_are_stamped_by_readers() {
        let dir = std::env::temp_dir().join(format!("kalah-stamp-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let fresh = dir.join("t.tbl");
        fs::write(&fresh, b"x").unwrap();
        let id = FileId::at(&fresh).unwrap();
        assert!(!is_settled(&id));
        let old = FileId {
            ctime_ns: id.ctime_ns - SETTLED.as_nanos() as i64 - 1,
            ..id
        };
        assert!(is_settled(&old));
        let future = FileId {
            ctime_ns: id.ctime_ns + 1_000_000_000_000,
            ..id
        };
        assert!(!is_settled(&future));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn stamps_round_trip_and_refuse_any_change() {
        let id = FileId {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: -4,
            ctime_ns: 5,
        };
        let b = encode(&id, 0xDEAD);
        assert_eq!(decode(&b), Some((id, 0xDEAD)));
        for i in 0..LEN {
            let mut c = b;
            c[i] ^= 0x10;
            assert_eq!(decode(&c), None, "byte {i}");
        }
        assert_eq!(decode(&b[..LEN - 1]), None);
    }
}
