//! Reading a book: [`Book`] over any byte source (a `Vec` in tests, a
//! memory map in production), checked before any value is read, and
//! [`WithBook`], the book in front of the endgame tables as one [`Probe`].
//!
//! The file is mapped read-only ([`platform::map_read_only`]) under the
//! same contract as the tier files: the program's writers only ever
//! replace a book by renaming a new file over it, never write into it.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::{self, Expect, Layout};
use super::BookError;
use crate::board::Board;
use crate::platform;
use crate::rules::Rules;
use crate::Probe;

/// One checked book.
#[derive(Debug)]
pub struct Book<B = Mmap> {
    bytes: B,
    path: PathBuf,
    expect: Expect,
    layout: Layout,
}

impl<B: AsRef<[u8]>> Book<B> {
    /// Checks `bytes` as the book file `path` of Kalah(`pits`,`seeds`)
    /// under `rules` (see [`format::check`]); never panics on any input.
    ///
    /// # Errors
    /// The first check that fails, naming the file.
    pub fn from_bytes(
        bytes: B,
        path: impl Into<PathBuf>,
        pits: usize,
        rules: Rules,
        seeds: usize,
    ) -> Result<Book<B>, BookError> {
        let path = path.into();
        let expect = Expect { pits, rules, seeds };
        let layout = format::check(bytes.as_ref(), &path, &expect)?;
        Ok(Book {
            bytes,
            path,
            expect,
            layout,
        })
    }

    /// The value of `board` for the player to move (stores excluded), when
    /// the book holds it.
    pub fn get(&self, board: Board) -> Option<i32> {
        let bytes = self.bytes.as_ref();
        let want = board.packed();
        let (mut lo, mut hi) = (0, self.layout.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match format::key(bytes, mid).cmp(&want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some(i32::from(format::value(bytes, self.layout.count, mid)))
                }
            }
        }
        None
    }

    /// Every board and its value, in the file's order.
    pub fn entries(&self) -> impl Iterator<Item = (Board, i32)> + '_ {
        let bytes = self.bytes.as_ref();
        let n = self.layout.count;
        (0..n).map(move |i| {
            (
                Board::from_packed(format::key(bytes, i)),
                i32::from(format::value(bytes, n, i)),
            )
        })
    }

    /// Boards held.
    pub fn len(&self) -> usize {
        self.layout.count
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.layout.count == 0
    }

    /// Turns from the start it covers.
    pub fn turns(&self) -> u32 {
        self.layout.turns
    }

    /// Seeds a house at the start of its game.
    pub fn seeds(&self) -> usize {
        self.expect.seeds
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.expect.pits
    }

    /// Its rule set.
    pub fn rules(&self) -> Rules {
        self.expect.rules
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of the file.
    pub fn file_len(&self) -> usize {
        self.bytes.as_ref().len()
    }
}

impl Book<Mmap> {
    /// Opens and checks the book of Kalah(`pits`,`seeds`) under `rules` in
    /// `dir` ([`format::file_name`]).
    ///
    /// # Errors
    /// [`BookError::Missing`] when there is none; any failed check, naming
    /// the file.
    pub fn open(dir: &Path, pits: usize, rules: Rules, seeds: usize) -> Result<Book, BookError> {
        let path = dir.join(format::file_name(pits, rules, seeds));
        let file = File::open(&path).map_err(|e| BookError::io(&path, "open", e))?;
        let len = file
            .metadata()
            .map_err(|e| BookError::io(&path, "read the size of", e))?
            .len();
        if len < (format::HEADER_LEN + format::TRAILER_LEN) as u64 {
            // Too short to map usefully (an empty file cannot be mapped).
            return Err(BookError::Truncated {
                path,
                expected: (format::HEADER_LEN + format::TRAILER_LEN) as u64,
                found: len,
            });
        }
        // SAFETY: a book, once in place, is never written again: a build
        // writes a temporary file and renames it over the old one, which
        // leaves this map on the old file (the tables' rule, docs/trust.md).
        let map = unsafe { platform::map_read_only(&file) }
            .map_err(|e| BookError::io(&path, "map", e))?;
        Book::from_bytes(map, path, pits, rules, seeds)
    }
}

/// A book in front of the endgame tables: a board the tables hold is
/// answered by them, any other by the book when it holds it. Its
/// [`Probe::max_seeds`] is the tables' (the book answers some boards above
/// them, not all).
pub struct WithBook<'a, B: AsRef<[u8]>> {
    pub book: &'a Book<B>,
    pub tables: Option<&'a dyn Probe>,
}

impl<B: AsRef<[u8]> + Sync> Probe for WithBook<'_, B> {
    fn max_seeds(&self) -> u32 {
        self.tables.map_or(0, |t| t.max_seeds())
    }

    fn probe(&self, board: Board) -> Option<i32> {
        match self.tables {
            Some(t) if board.seeds() <= t.max_seeds() => t.probe(board),
            _ => self.book.get(board),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_finds_what_it_holds_and_nothing_else() {
        let entries: Vec<(u128, i8)> = (0..100u128)
            .map(|i| (i * 7 + 3, (i % 9) as i8 - 4))
            .collect();
        let expect = Expect {
            pits: 2,
            rules: Rules::STANDARD,
            seeds: 3,
        };
        let image = format::encode(&expect, 2, &entries);
        let book = Book::from_bytes(image, "x.book", 2, Rules::STANDARD, 3).unwrap();
        assert_eq!((book.len(), book.turns()), (100, 2));
        for (k, v) in &entries {
            assert_eq!(book.get(Board::from_packed(*k)), Some(i32::from(*v)));
            assert_eq!(book.get(Board::from_packed(k + 1)), None);
        }
        assert_eq!(book.get(Board::from_packed(0)), None);
        assert_eq!(book.entries().count(), 100);
    }
}
