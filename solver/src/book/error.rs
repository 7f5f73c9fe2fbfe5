//! The typed error of everything book-related: every variant names its file.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a book file could not be used.
#[derive(Debug, Clone)]
pub enum BookError {
    /// An I/O operation failed.
    Io {
        path: PathBuf,
        op: &'static str,
        source: Arc<std::io::Error>,
    },
    /// The file does not exist.
    Missing { path: PathBuf },
    /// The file is not a book of this format (magic, version), or its
    /// header says another game than the one asked for, or is malformed.
    BadHeader { path: PathBuf, reason: String },
    /// The file is shorter or longer than its header says.
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
    /// The boards are not in strictly increasing order.
    Unsorted { path: PathBuf, entry: u64 },
}

impl BookError {
    /// The file concerned.
    pub fn path(&self) -> &Path {
        use BookError::*;
        match self {
            Io { path, .. }
            | Missing { path }
            | BadHeader { path, .. }
            | Truncated { path, .. }
            | Unfinished { path }
            | BadChecksum { path, .. }
            | Unsorted { path, .. } => path,
        }
    }

    /// Whether the file is there but not a usable book (damaged, another
    /// version or game): a build replaces such a file.
    pub fn is_damaged(&self) -> bool {
        !matches!(self, BookError::Missing { .. } | BookError::Io { .. })
    }

    pub(crate) fn io(path: &Path, op: &'static str, source: std::io::Error) -> BookError {
        if source.kind() == std::io::ErrorKind::NotFound {
            return BookError::Missing {
                path: path.to_path_buf(),
            };
        }
        BookError::Io {
            path: path.to_path_buf(),
            op,
            source: Arc::new(source),
        }
    }
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BookError::*;
        match self {
            Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            Missing { path } => write!(f, "{}: no such book file", path.display()),
            BadHeader { path, reason } => {
                write!(f, "{}: not a usable opening book: {reason}", path.display())
            }
            Truncated {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: opening book truncated or of the wrong size: {found} bytes, expected {expected}",
                path.display()
            ),
            Unfinished { path } => write!(
                f,
                "{}: unfinished opening book (no end marker): partial write",
                path.display()
            ),
            BadChecksum {
                path,
                stored,
                computed,
            } => write!(
                f,
                "{}: opening book has a bad checksum: stored {stored:#018x}, contents give {computed:#018x} (file corrupted)",
                path.display()
            ),
            Unsorted { path, entry } => write!(
                f,
                "{}: opening book entry {entry} is out of order (file corrupted or forged)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Io { source, .. } => Some(&**source),
            _ => None,
        }
    }
}
