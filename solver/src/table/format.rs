//! The on-disk format of one tier file: the only module that knows it.
//!
//! # Tier file format, version 1
//!
//! One file holds the values of every board of one tier: `m` pits a side,
//! one rule set, exactly `k` seeds in the houses. Its name is
//! `kalah-m{m}-{slug}-k{k}.tbl`, with `slug` = [`Rules::slug`]
//! (e.g. `kalah-m6-ec-k20.tbl`). All integers are little-endian.
//!
//! ```text
//! offset        size   content
//! 0             27     header record, bincode 1.3.3 (fixed-width integers,
//!                      little-endian), fields in this order:
//!     0         8        magic    = b"KALAHTBL"
//!     8         4        version  = 1 (u32)
//!     12        1        pits m   (u8, 1..=8)
//!     13        1        rules    = Rules::code() (u8)
//!     14        1        encoding = 1: one i8 per board (u8)
//!     15        4        tier k   = seeds on the board (u32)
//!     19        8        count    = C(k + 2m - 1, 2m - 1), boards in the tier (u64)
//! 27            37     zero padding (must be zero)
//! 64            count  values: byte r is the value (i8, two's complement) of
//!                      the board of rank r (crate::index, `Index::rank`), for
//!                      the player to move: net future store gain, stores
//!                      excluded, |value| <= k
//! 64 + count    8      checksum: XXH64 (seed 0) of bytes 0 .. 64 + count (u64)
//! 72 + count    8      end marker = b"KTBLDONE"
//! ```
//!
//! The file length is therefore exactly `80 + count`. The header record goes
//! through `bincode` (pinned at 1.3.3, used for nothing else); the value
//! array is raw bytes so that it can be memory-mapped and indexed directly.
//!
//! # Partial files
//!
//! A file is written under a temporary name of its writer's own
//! (`<name>.tmp.<pid>.<n>`, created exclusively: no writer ever truncates
//! another's), flushed with `fsync`, then renamed to its final name (and
//! the directory synced), so a final name only ever holds a complete file,
//! and a file once renamed into place is never written again: it is only
//! replaced, by another rename. Independently of that, a file is accepted
//! only if its header matches what the reader expects (magic, version,
//! pits, rule set, encoding, tier, count), its length is exactly
//! `80 + count`, the end marker is present and the checksum of the whole
//! file matches: on every open ([`Check::Full`]), or once per file, the
//! check being remembered by a stamp beside it that is only trusted for the
//! very same file ([`Check::Remembered`], see [`super::stamp`]). A
//! truncated, partially written or altered file is thus detected and never
//! used; a build that finds one rebuilds that tier and every tier above it.

use serde::{Deserialize, Serialize};

use super::TableError;
use crate::rules::Rules;
use std::path::Path;

/// First bytes of every tier file.
pub const MAGIC: [u8; 8] = *b"KALAHTBL";
/// Last bytes of every complete tier file.
pub const END_MARKER: [u8; 8] = *b"KTBLDONE";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
/// Entry encoding 1: one `i8` value per board, in rank order.
pub const ENCODING_I8: u8 = 1;
/// Bytes before the value array (header record and padding).
pub const HEADER_LEN: usize = 64;
/// Bytes after the value array (checksum and end marker).
pub const TRAILER_LEN: usize = 16;

/// The header record (see the module documentation).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub magic: [u8; 8],
    pub version: u32,
    pub pits: u8,
    pub rules: u8,
    pub encoding: u8,
    pub tier: u32,
    pub count: u64,
}

impl Header {
    /// The header of the tier file of `(pits, rules, tier)` with `count`
    /// boards.
    pub fn new(pits: usize, rules: Rules, tier: u32, count: u64) -> Header {
        Header {
            magic: MAGIC,
            version: VERSION,
            pits: pits as u8,
            rules: rules.code(),
            encoding: ENCODING_I8,
            tier,
            count,
        }
    }

    /// The first [`HEADER_LEN`] bytes of the file.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let rec = bincode::serialize(self).expect("a fixed-size record always serializes");
        let mut out = [0u8; HEADER_LEN];
        out[..rec.len()].copy_from_slice(&rec);
        out
    }

    /// Decodes and checks the header of `bytes` (a whole file) against what
    /// the reader expects. Checks are made in the order: length, magic,
    /// version, pits, rule set, encoding, tier, count, padding.
    fn decode(bytes: &[u8], path: &Path) -> Result<Header, TableError> {
        let path = path.to_path_buf();
        if bytes.len() < HEADER_LEN {
            if bytes.len() >= 8 && bytes[..8] != MAGIC {
                return Err(TableError::BadMagic { path });
            }
            return Err(TableError::Truncated {
                path,
                expected: HEADER_LEN as u64,
                found: bytes.len() as u64,
            });
        }
        if bytes[..8] != MAGIC {
            return Err(TableError::BadMagic { path });
        }
        let h: Header =
            bincode::deserialize(&bytes[..HEADER_LEN]).map_err(|e| TableError::BadHeader {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        if h.version != VERSION {
            return Err(TableError::BadVersion {
                path,
                found: h.version,
            });
        }
        Ok(h)
    }
}

/// How a file's checksum is checked when it is opened. Either way the
/// whole file's checksum has passed before any value of it is used; the
/// header, length and end marker are checked on every open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Check {
    /// The checksum of the whole file, on every open (one sequential pass
    /// at several GB/s; also warms the page cache). What `verify` does.
    Full,
    /// The checksum of the whole file on its first open; later opens trust
    /// the stamp that the first one left beside the file, as long as the
    /// file is still exactly the one checked (same device, inode, size,
    /// modification and change times: see [`super::stamp`]). Without a
    /// usable stamp (none yet, another file, a read-only directory) this is
    /// [`Check::Full`]. Default.
    #[default]
    Remembered,
}

/// What a reader expects a file to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub pits: usize,
    pub rules: Rules,
    pub tier: u32,
    pub count: u64,
}

/// Checks a whole file image and returns its header: the header, length
/// and end marker always, the checksum of the whole file when `checksum`
/// (the caller that skips it must know, from a stamp, that this very file
/// passed it before). On success the values are
/// `bytes[HEADER_LEN .. HEADER_LEN + count]`.
pub(crate) fn check_file(
    bytes: &[u8],
    path: &Path,
    expect: &Expect,
    checksum: bool,
) -> Result<Header, TableError> {
    let h = Header::decode(bytes, path)?;
    let p = || path.to_path_buf();
    if h.pits as usize != expect.pits {
        return Err(TableError::WrongPits {
            path: p(),
            expected: expect.pits,
            found: h.pits as usize,
        });
    }
    if h.rules != expect.rules.code() {
        return Err(TableError::WrongRules {
            path: p(),
            expected: expect.rules,
            found: Rules::from_code(h.rules),
            code: h.rules,
        });
    }
    if h.encoding != ENCODING_I8 {
        return Err(TableError::BadHeader {
            path: p(),
            reason: format!("unknown entry encoding {}", h.encoding),
        });
    }
    if h.tier != expect.tier {
        return Err(TableError::WrongTier {
            path: p(),
            expected: expect.tier,
            found: h.tier,
        });
    }
    if h.count != expect.count {
        return Err(TableError::BadHeader {
            path: p(),
            reason: format!(
                "entry count {} where tier {} has {}",
                h.count, h.tier, expect.count
            ),
        });
    }
    let rec_len = bincode::serialized_size(&h).unwrap_or(HEADER_LEN as u64) as usize;
    if bytes[rec_len..HEADER_LEN].iter().any(|&b| b != 0) {
        return Err(TableError::BadHeader {
            path: p(),
            reason: "non-zero header padding".into(),
        });
    }
    let want = file_len(h.count);
    if bytes.len() as u64 != want {
        return Err(TableError::Truncated {
            path: p(),
            expected: want,
            found: bytes.len() as u64,
        });
    }
    let end = bytes.len();
    if bytes[end - 8..] != END_MARKER {
        return Err(TableError::Unfinished { path: p() });
    }
    if checksum {
        let body = end - TRAILER_LEN;
        let stored = stored_checksum(bytes);
        let computed = xxh64(&bytes[..body]);
        if stored != computed {
            return Err(TableError::BadChecksum {
                path: p(),
                stored,
                computed,
            });
        }
    }
    Ok(h)
}

/// The checksum stored in the trailer of a file image whose length and end
/// marker [`check_file`] accepted.
pub(crate) fn stored_checksum(bytes: &[u8]) -> u64 {
    let body = bytes.len().saturating_sub(TRAILER_LEN);
    let mut b = [0u8; 8];
    if let Some(s) = bytes.get(body..body + 8) {
        b.copy_from_slice(s);
    }
    u64::from_le_bytes(b)
}

/// Total length of a file with `count` entries.
pub fn file_len(count: u64) -> u64 {
    HEADER_LEN as u64 + count + TRAILER_LEN as u64
}

/// The trailer of a file whose header and values went into `h` (seed 0),
/// in that order.
pub fn trailer(h: &Xxh64) -> [u8; TRAILER_LEN] {
    let mut out = [0u8; TRAILER_LEN];
    out[..8].copy_from_slice(&h.finish().to_le_bytes());
    out[8..].copy_from_slice(&END_MARKER);
    out
}

/// The file name of a tier.
pub fn file_name(pits: usize, rules: Rules, tier: u32) -> String {
    format!("kalah-m{pits}-{}-k{tier}.tbl", rules.slug())
}

// ---------------------------------------------------------------------------
// XXH64 (Yann Collet's xxHash, 64-bit), written out here to avoid a dependency.

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

#[inline]
fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

#[inline]
fn merge(acc: u64, v: u64) -> u64 {
    (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
}

#[inline]
fn read64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Streaming XXH64.
#[derive(Clone, Debug)]
pub struct Xxh64 {
    v: [u64; 4],
    seed: u64,
    buf: [u8; 32],
    buf_len: usize,
    total: u64,
}

impl Xxh64 {
    pub fn new(seed: u64) -> Xxh64 {
        Xxh64 {
            v: [
                seed.wrapping_add(P1).wrapping_add(P2),
                seed.wrapping_add(P2),
                seed,
                seed.wrapping_sub(P1),
            ],
            seed,
            buf: [0; 32],
            buf_len: 0,
            total: 0,
        }
    }

    #[inline]
    fn stripe(v: &mut [u64; 4], s: &[u8]) {
        v[0] = round(v[0], read64(&s[0..]));
        v[1] = round(v[1], read64(&s[8..]));
        v[2] = round(v[2], read64(&s[16..]));
        v[3] = round(v[3], read64(&s[24..]));
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.buf_len > 0 {
            let take = (32 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 32 {
                return;
            }
            let buf = self.buf;
            Self::stripe(&mut self.v, &buf);
            self.buf_len = 0;
        }
        let mut chunks = data.chunks_exact(32);
        for s in &mut chunks {
            Self::stripe(&mut self.v, s);
        }
        let rest = chunks.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    pub fn finish(&self) -> u64 {
        let mut h = if self.total >= 32 {
            let v = self.v;
            let mut h = v[0]
                .rotate_left(1)
                .wrapping_add(v[1].rotate_left(7))
                .wrapping_add(v[2].rotate_left(12))
                .wrapping_add(v[3].rotate_left(18));
            for x in v {
                h = merge(h, x);
            }
            h
        } else {
            self.seed.wrapping_add(P5)
        };
        h = h.wrapping_add(self.total);
        let mut rest = &self.buf[..self.buf_len];
        while rest.len() >= 8 {
            h ^= round(0, read64(rest));
            h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
            rest = &rest[8..];
        }
        if rest.len() >= 4 {
            let w = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as u64;
            h ^= w.wrapping_mul(P1);
            h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
            rest = &rest[4..];
        }
        for &b in rest {
            h ^= (b as u64).wrapping_mul(P5);
            h = h.rotate_left(11).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^= h >> 29;
        h = h.wrapping_mul(P3);
        h ^= h >> 32;
        h
    }
}

/// XXH64 with seed 0 of `data`.
pub fn xxh64(data: &[u8]) -> u64 {
    let mut h = Xxh64::new(0);
    h.update(data);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_known_vectors() {
        assert_eq!(xxh64(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"abc"), 0x44BC_2CF5_AD77_0999);
    }

    #[test]
    fn xxh64_streaming_matches_one_shot() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 3, 4, 7, 8, 31, 32, 33, 64, 100, 999, 1000] {
            let want = xxh64(&data[..len]);
            for cut in [0, 1, 5, 31, 32, 40] {
                let cut = cut.min(len);
                let mut h = Xxh64::new(0);
                h.update(&data[..cut]);
                h.update(&data[cut..len]);
                assert_eq!(h.finish(), want, "len {len} cut {cut}");
            }
        }
        // Every byte matters.
        let mut d = data.clone();
        d[500] ^= 1;
        assert_ne!(xxh64(&d), xxh64(&data));
    }

    #[test]
    fn header_layout_is_as_documented() {
        let h = Header::new(6, Rules::EMPTY_CAPTURE, 20, 0x0102_0304_0506_0708);
        let b = h.to_bytes();
        assert_eq!(&b[0..8], b"KALAHTBL");
        assert_eq!(&b[8..12], &1u32.to_le_bytes());
        assert_eq!(b[12], 6);
        assert_eq!(b[13], Rules::EMPTY_CAPTURE.code());
        assert_eq!(b[14], ENCODING_I8);
        assert_eq!(&b[15..19], &20u32.to_le_bytes());
        assert_eq!(&b[19..27], &0x0102_0304_0506_0708u64.to_le_bytes());
        assert!(b[27..].iter().all(|&x| x == 0));
        assert_eq!(bincode::serialized_size(&h).unwrap(), 27);
    }
}
