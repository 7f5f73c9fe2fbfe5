//! The on-disk format of an opening book: the only module that knows it.
//!
//! # Book file format, version 2
//!
//! One file holds the exact values of the boards of one game's opening:
//! Kalah(`m`,`n`) under one rule set, every board met within the first
//! `turns` turns of the game and where the next turn starts, with the
//! boards of a perfect game from each (see [`super`]). Its name is `kalah-m{m}-{slug}-n{n}.book`, with `slug` =
//! [`Rules::slug`] (e.g. `kalah-m6-ec-n4.book`), in the table directory.
//! All integers are little-endian.
//!
//! ```text
//! offset     size   content
//! 0          8      magic    = b"KALAHBOK"
//! 8          4      version  = 2 (u32)
//! 12         1      pits m   (u8, 1..=8)
//! 13         1      rules    = Rules::code() (u8)
//! 14         1      seeds n  = seeds a house at the start (u8)
//! 15         1      turns    = turns from the start covered (u8)
//! 16         8      count C  = boards held (u64)
//! 24         40     zero padding (must be zero)
//! 64         16 C   boards: Board::packed() of each, as a u128, in strictly
//!                   increasing order (the board seen by the player to move:
//!                   byte i = own house i + 1, byte 8 + i = opponent's house
//!                   i + 1, other bytes zero)
//! 64 + 16 C  C      values: i8 each, in the boards' order: the board's value
//!                   for the player to move (net future store gain, stores
//!                   excluded; a position's value is its store difference
//!                   plus this)
//! 64 + 17 C  8      checksum: XXH64 (seed 0) of every byte before it (u64)
//! 72 + 17 C  8      end marker = b"KBOKDONE"
//! ```
//!
//! The file length is therefore exactly `80 + 17 C`. A reader finds a board
//! by binary search over the boards section (at most 64 comparisons).
//!
//! # Partial files
//!
//! As the tier files are: written under a temporary name of the writer's own
//! (`<name>.tmp.<pid>.<n>`, created exclusively), synced, renamed into place,
//! so a final name only ever holds a complete file. A file is accepted only
//! if its header matches what the reader expects (magic, version, pits, rule
//! set, seeds), its length is exactly `80 + 17 C`, the end marker is present,
//! the whole-file checksum matches (checked on every open: a book is a few
//! MB) and the boards are in strictly increasing order. Anything else is a
//! [`BookError`] naming the file, never a value.

use std::path::Path;

use super::BookError;
use crate::rules::Rules;
use crate::table::format::xxh64;

/// First bytes of every book file.
pub const MAGIC: [u8; 8] = *b"KALAHBOK";
/// Last bytes of every complete book file.
pub const END_MARKER: [u8; 8] = *b"KBOKDONE";
/// The format version this code reads and writes.
pub const VERSION: u32 = 2;
/// Bytes before the boards.
pub const HEADER_LEN: usize = 64;
/// Bytes after the values (checksum and end marker).
pub const TRAILER_LEN: usize = 16;
/// Bytes of one board key.
pub const KEY_LEN: usize = 16;

/// The book file name of Kalah(`pits`,`seeds`) under `rules`.
pub fn file_name(pits: usize, rules: Rules, seeds: usize) -> String {
    format!("kalah-m{pits}-{}-n{seeds}.book", rules.slug())
}

/// What a book file must be: its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub pits: usize,
    pub rules: Rules,
    pub seeds: usize,
}

/// What a checked file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub count: usize,
    /// Turns from the start the book covers.
    pub turns: u32,
}

/// The whole file image of a book of `expect`'s game covering `turns`
/// turns, from `(board, value)` pairs in strictly increasing board order.
///
/// # Panics
/// If the boards are not strictly increasing, or `turns` or the game's
/// numbers do not fit their byte (the builder's bugs, not a user's input).
pub fn encode(expect: &Expect, turns: u32, entries: &[(u128, i8)]) -> Vec<u8> {
    assert!(entries.windows(2).all(|w| w[0].0 < w[1].0), "unsorted");
    let c = entries.len();
    let mut out = Vec::with_capacity(80 + 17 * c);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(u8::try_from(expect.pits).expect("pits"));
    out.push(expect.rules.code());
    out.push(u8::try_from(expect.seeds).expect("seeds"));
    out.push(u8::try_from(turns).expect("turns"));
    out.extend_from_slice(&(c as u64).to_le_bytes());
    out.resize(HEADER_LEN, 0);
    for (key, _) in entries {
        out.extend_from_slice(&key.to_le_bytes());
    }
    out.extend(entries.iter().map(|&(_, v)| v as u8));
    let sum = xxh64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(&END_MARKER);
    out
}

/// Checks `bytes` as the book file `path` of `expect`'s game: header,
/// length, end marker, checksum, order. Never panics on any input.
///
/// # Errors
/// The first check that fails, naming the file.
pub fn check(bytes: &[u8], path: &Path, expect: &Expect) -> Result<Layout, BookError> {
    let bad = |reason: String| BookError::BadHeader {
        path: path.to_path_buf(),
        reason,
    };
    if bytes.len() < HEADER_LEN {
        return Err(BookError::Truncated {
            path: path.to_path_buf(),
            expected: (HEADER_LEN + TRAILER_LEN) as u64,
            found: bytes.len() as u64,
        });
    }
    if bytes[..8] != MAGIC {
        return Err(bad("wrong magic bytes".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(bad(format!(
            "format version {version}, this program reads version {VERSION}: build it again with `kalah book build`"
        )));
    }
    let (pits, code, seeds, turns) = (bytes[12], bytes[13], bytes[14], bytes[15]);
    if usize::from(pits) != expect.pits
        || code != expect.rules.code()
        || usize::from(seeds) != expect.seeds
    {
        let rules = Rules::from_code(code).map_or(format!("rule code {code}"), |r| r.slug());
        return Err(bad(format!(
            "a book of Kalah({pits},{seeds}) {rules}, expected Kalah({},{}) {}",
            expect.pits,
            expect.seeds,
            expect.rules.slug()
        )));
    }
    if bytes[24..HEADER_LEN].iter().any(|&b| b != 0) {
        return Err(bad("non-zero header padding".into()));
    }
    let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let expected = count
        .checked_mul(17)
        .and_then(|n| n.checked_add((HEADER_LEN + TRAILER_LEN) as u64));
    if expected != Some(bytes.len() as u64) {
        return Err(BookError::Truncated {
            path: path.to_path_buf(),
            expected: expected.unwrap_or(u64::MAX),
            found: bytes.len() as u64,
        });
    }
    let end = bytes.len();
    if bytes[end - 8..] != END_MARKER {
        return Err(BookError::Unfinished {
            path: path.to_path_buf(),
        });
    }
    let stored = u64::from_le_bytes(bytes[end - 16..end - 8].try_into().expect("8 bytes"));
    let computed = xxh64(&bytes[..end - TRAILER_LEN]);
    if stored != computed {
        return Err(BookError::BadChecksum {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    let count = count as usize;
    let mut last = None;
    for i in 0..count {
        let k = key(bytes, i);
        if last.is_some_and(|l| l >= k) {
            return Err(BookError::Unsorted {
                path: path.to_path_buf(),
                entry: i as u64,
            });
        }
        last = Some(k);
    }
    Ok(Layout {
        count,
        turns: u32::from(turns),
    })
}

/// Board `i` of a checked image.
#[inline]
pub fn key(bytes: &[u8], i: usize) -> u128 {
    let at = HEADER_LEN + KEY_LEN * i;
    u128::from_le_bytes(bytes[at..at + KEY_LEN].try_into().expect("16 bytes"))
}

/// Value `i` of a checked image of `count` boards.
#[inline]
pub fn value(bytes: &[u8], count: usize, i: usize) -> i8 {
    bytes[HEADER_LEN + KEY_LEN * count + i] as i8
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: Expect = Expect {
        pits: 3,
        rules: Rules::EMPTY_CAPTURE,
        seeds: 2,
    };

    #[test]
    fn an_image_reads_back_and_every_damage_is_refused() {
        let entries = [(5u128, -3i8), (9, 0), (1 << 100, 7)];
        let image = encode(&GAME, 4, &entries);
        assert_eq!(image.len(), 80 + 17 * 3);
        let p = Path::new("b.book");
        let layout = check(&image, p, &GAME).unwrap();
        assert_eq!(layout, Layout { count: 3, turns: 4 });
        for (i, &(k, v)) in entries.iter().enumerate() {
            assert_eq!((key(&image, i), value(&image, 3, i)), (k, v));
        }
        // Every single flipped byte is refused, naming the file.
        for at in 0..image.len() {
            let mut bad = image.clone();
            bad[at] ^= 0x10;
            let e = check(&bad, p, &GAME).unwrap_err();
            assert_eq!(e.path(), p, "{e}");
            assert!(e.to_string().starts_with("b.book: "), "{e}");
        }
        for len in 0..image.len() {
            assert!(check(&image[..len], p, &GAME).is_err());
        }
        let other = Expect { seeds: 3, ..GAME };
        let e = check(&image, p, &other).unwrap_err().to_string();
        assert!(e.contains("Kalah(3,2) ec, expected Kalah(3,3) ec"), "{e}");
    }
}
