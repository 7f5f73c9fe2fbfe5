//! The typed error of everything table-related.

use crate::rules::Rules;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a table file or a table operation failed. Every variant that concerns
/// a file names it. Cheap to clone: a reader remembers the failure of a tier
/// and returns it again on every later use of that file.
#[derive(Debug, Clone)]
pub enum TableError {
    /// An I/O operation failed.
    Io {
        path: PathBuf,
        op: &'static str,
        source: Arc<std::io::Error>,
    },
    /// The file does not exist.
    Missing { path: PathBuf },
    /// The file does not start with the table magic bytes.
    BadMagic { path: PathBuf },
    /// The file is of a format version this code does not read.
    BadVersion { path: PathBuf, found: u32 },
    /// The header is malformed (undecodable, unknown encoding, wrong count).
    BadHeader { path: PathBuf, reason: String },
    /// The file is for another board size.
    WrongPits {
        path: PathBuf,
        expected: usize,
        found: usize,
    },
    /// The file is for another rule set.
    WrongRules {
        path: PathBuf,
        expected: Rules,
        found: Option<Rules>,
        code: u8,
    },
    /// The file holds another tier.
    WrongTier {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
    /// The file is shorter (or longer) than its header says.
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    /// The file lacks its end marker: it was never finished.
    Unfinished { path: PathBuf },
    /// The stored checksum does not match the contents.
    BadChecksum {
        path: PathBuf,
        stored: u64,
        computed: u64,
    },
    /// Verification found an entry that disagrees with its re-derivation.
    WrongValue {
        path: PathBuf,
        rank: u64,
        stored: i32,
        derived: i32,
        check: &'static str,
    },
    /// The build was stopped by its stop flag; complete tiers are kept.
    Stopped { dir: PathBuf, tier: u32 },
    /// The build was stopped by its stop flag while it waited for another
    /// build holding the lock file `lock`; nothing was changed.
    StoppedWaiting { lock: PathBuf },
    /// The request cannot be served (e.g. a tier beyond what an `i8` holds).
    Unsupported { reason: String },
}

impl TableError {
    /// The file concerned, if any.
    pub fn path(&self) -> Option<&Path> {
        use TableError::*;
        match self {
            Io { path, .. }
            | Missing { path }
            | BadMagic { path }
            | BadVersion { path, .. }
            | BadHeader { path, .. }
            | WrongPits { path, .. }
            | WrongRules { path, .. }
            | WrongTier { path, .. }
            | Truncated { path, .. }
            | Unfinished { path }
            | BadChecksum { path, .. }
            | WrongValue { path, .. } => Some(path),
            Stopped { dir, .. } => Some(dir),
            StoppedWaiting { lock } => Some(lock),
            Unsupported { .. } => None,
        }
    }

    pub(crate) fn io(path: &Path, op: &'static str, source: std::io::Error) -> TableError {
        if source.kind() == std::io::ErrorKind::NotFound {
            return TableError::Missing {
                path: path.to_path_buf(),
            };
        }
        TableError::Io {
            path: path.to_path_buf(),
            op,
            source: Arc::new(source),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TableError::*;
        match self {
            Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            Missing { path } => write!(f, "{}: no such table file", path.display()),
            BadMagic { path } => write!(
                f,
                "{}: not a kalah table file (wrong magic bytes)",
                path.display()
            ),
            BadVersion { path, found } if *found < super::format::VERSION => write!(
                f,
                "{}: table format version {found} (an older, larger format), this program reads version {}: \
                 rebuild the tables with `kalah build` (it replaces old-format tiers) or delete the file",
                path.display(),
                super::format::VERSION
            ),
            BadVersion { path, found } => write!(
                f,
                "{}: table format version {found}, this program reads version {}",
                path.display(),
                super::format::VERSION
            ),
            BadHeader { path, reason } => write!(f, "{}: bad header: {reason}", path.display()),
            WrongPits {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: table for {found} pits a side, expected {expected}",
                path.display()
            ),
            WrongRules {
                path,
                expected,
                found,
                code,
            } => match found {
                Some(r) => write!(
                    f,
                    "{}: table for rule set '{r}', expected '{expected}'",
                    path.display()
                ),
                None => write!(
                    f,
                    "{}: unknown rule set code {code}, expected '{expected}'",
                    path.display()
                ),
            },
            WrongTier {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: table of tier {found} (seeds on board), expected tier {expected}",
                path.display()
            ),
            Truncated {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: truncated or wrong size: {found} bytes, expected {expected}",
                path.display()
            ),
            Unfinished { path } => write!(
                f,
                "{}: unfinished file (no end marker): partial write",
                path.display()
            ),
            BadChecksum {
                path,
                stored,
                computed,
            } => write!(
                f,
                "{}: bad checksum: stored {stored:#018x}, contents give {computed:#018x} (file corrupted)",
                path.display()
            ),
            WrongValue {
                path,
                rank,
                stored,
                derived,
                check,
            } => write!(
                f,
                "{}: entry of rank {rank} holds {stored} but {check} gives {derived}",
                path.display()
            ),
            Stopped { dir, tier } => write!(
                f,
                "{}: build stopped during tier {tier}; complete tiers are kept, rerun to resume",
                dir.display()
            ),
            StoppedWaiting { lock } => write!(
                f,
                "{}: build stopped while waiting for another build to release this lock",
                lock.display()
            ),
            Unsupported { reason } => write!(f, "unsupported: {reason}"),
        }
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableError::Io { source, .. } => Some(&**source),
            _ => None,
        }
    }
}
