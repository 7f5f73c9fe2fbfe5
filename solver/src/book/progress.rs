//! The record of a book build under way: `<book file>.partial`, beside
//! the book, append-only, from which an interrupted build resumes.
//!
//! # Format (all integers little-endian)
//!
//! ```text
//! offset      size  content
//! 0           8     magic = b"KALAHBKP"
//! 8           1     pits m (u8)
//! 9           1     rules = Rules::code() (u8)
//! 10          6     zero
//! 16 + 24 i   24    record i:
//!     0       16      board: Board::packed() (u128)
//!     16      1       value for the player to move, stores excluded (i8)
//!     17      7       check: the low 7 bytes of XXH64 (seed 0) of bytes 0..17
//! ```
//!
//! A board's value does not depend on the game it was reached in, so the
//! record serves every book of the same board size and rule set (a deeper
//! book resumes from a shallower one's record). Reading stops at the first
//! record that is torn (a build killed mid-write) or fails its check; the
//! file is cut back to the records before it, which are kept. A file with
//! another header is started anew. The finished book is written from the
//! records and the record is then removed.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::BookError;
use crate::rules::Rules;
use crate::table::format::xxh64;

/// First bytes of a progress record.
pub const MAGIC: [u8; 8] = *b"KALAHBKP";
const HEADER_LEN: usize = 16;
const RECORD_LEN: usize = 24;

/// The progress file of the book `book`.
pub fn path_of(book: &Path) -> PathBuf {
    let mut s = book.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// An open progress file, appended to as values are found.
#[derive(Debug)]
pub struct Progress {
    file: File,
    path: PathBuf,
}

fn header(pits: usize, rules: Rules) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8] = pits as u8;
    h[9] = rules.code();
    h
}

fn record(board: u128, value: i8) -> [u8; RECORD_LEN] {
    let mut r = [0u8; RECORD_LEN];
    r[..16].copy_from_slice(&board.to_le_bytes());
    r[16] = value as u8;
    let check = xxh64(&r[..17]).to_le_bytes();
    r[17..].copy_from_slice(&check[..7]);
    r
}

impl Progress {
    /// Opens (or creates) the progress file `path` for `pits` and `rules`,
    /// returning the records kept in it.
    ///
    /// # Errors
    /// The file cannot be read, created or cut back.
    pub fn open(
        path: &Path,
        pits: usize,
        rules: Rules,
    ) -> Result<(Progress, Vec<(u128, i8)>), BookError> {
        let io = |op, e| BookError::io(path, op, e);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io("open", e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| io("read", e))?;
        let want = header(pits, rules);
        let mut kept = Vec::new();
        let mut good = HEADER_LEN;
        if bytes.len() >= HEADER_LEN && bytes[..HEADER_LEN] == want {
            for r in bytes[HEADER_LEN..].chunks_exact(RECORD_LEN) {
                let board = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
                let value = r[16] as i8;
                if record(board, value) != r {
                    break;
                }
                kept.push((board, value));
                good += RECORD_LEN;
            }
        } else {
            good = 0;
        }
        if good != bytes.len() {
            file.set_len(good as u64).map_err(|e| io("cut back", e))?;
        }
        if good == 0 {
            file.write_all(&want).map_err(|e| io("write", e))?;
        }
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0))
            .map_err(|e| io("seek", e))?;
        Ok((
            Progress {
                file,
                path: path.to_path_buf(),
            },
            kept,
        ))
    }

    /// Appends `values` and syncs them to disk.
    ///
    /// # Errors
    /// The write fails (a full disk).
    pub fn append(&mut self, values: &[(u128, i8)]) -> Result<(), BookError> {
        let mut buf = Vec::with_capacity(values.len() * RECORD_LEN);
        for &(b, v) in values {
            buf.extend_from_slice(&record(b, v));
        }
        self.file
            .write_all(&buf)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| BookError::io(&self.path, "write", e))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_a_torn_tail_and_a_flipped_byte() {
        let dir = std::env::temp_dir().join(format!("kalah-progress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.book.partial");
        let _ = std::fs::remove_file(&path);
        let (mut p, kept) = Progress::open(&path, 6, Rules::STANDARD).unwrap();
        assert!(kept.is_empty());
        p.append(&[(1, 2), (3, -4)]).unwrap();
        p.append(&[(5, 6)]).unwrap();
        drop(p);
        let (_, kept) = Progress::open(&path, 6, Rules::STANDARD).unwrap();
        assert_eq!(kept, vec![(1, 2), (3, -4), (5, 6)]);
        // A torn record at the end is dropped, the others kept.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        drop(f);
        let (mut p, kept) = Progress::open(&path, 6, Rules::STANDARD).unwrap();
        assert_eq!(kept.len(), 3);
        p.append(&[(7, 8)]).unwrap();
        drop(p);
        // A flipped byte in record 1 keeps record 0 only.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_LEN + RECORD_LEN + 16] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let (_, kept) = Progress::open(&path, 6, Rules::STANDARD).unwrap();
        assert_eq!(kept, vec![(1, 2)]);
        // Another rule set's record starts anew.
        let (_, kept) = Progress::open(&path, 6, Rules::EMPTY_CAPTURE).unwrap();
        assert!(kept.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
