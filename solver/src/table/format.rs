//! The on-disk format of one tier file: the only module that knows it
//! (the value encoding inside it is `super::compact`'s).
//!
//! # Tier file format, version 2
//!
//! One file holds the values of every board of one tier: `m` pits a side,
//! one rule set, exactly `k` seeds in the houses. Its name is
//! `kalah-m{m}-{slug}-k{k}.tbl`, with `slug` = [`Rules::slug`]
//! (e.g. `kalah-m6-ec-k20.tbl`). All integers are little-endian.
//!
//! ```text
//! offset        size   content
//! 0             36     header record, bincode 1.3.3 (fixed-width integers,
//!                      little-endian), fields in this order:
//!     0         8        magic    = b"KALAHTBL"
//!     8         4        version  = 2 (u32)
//!     12        1        pits m   (u8, 1..=8)
//!     13        1        rules    = Rules::code() (u8)
//!     14        1        encoding = 2: Rice-coded blocks (u8)
//!     15        4        tier k   = seeds on the board (u32)
//!     19        8        count    = C(k + 2m - 1, 2m - 1), boards in the tier (u64)
//!     27        1        halved   = 1: symbols are (v + k) / 2; 0: v + k (u8)
//!     28        8        data_len = D, bytes of the bit stream section (u64)
//! 36            28     zero padding (must be zero)
//! 64            16 E    index: E = ceil(count / 1024) entries of 16 bytes
//! 64 + 16 E     D      bit stream: the blocks, then 16 zero bytes (D >= 16)
//! 64 + 16 E + D 8      checksum: XXH64 (seed 0) of every byte before it (u64)
//! 72 + 16 E + D 8      end marker = b"KTBLDONE"
//! ```
//!
//! The file length is therefore exactly `80 + 16 E + D`.
//!
//! ## Values and symbols
//!
//! The value of a board (`v`, an `i8`: the net future store gain for the
//! player to move, stores excluded, `|v| <= k`) is stored as the symbol
//! `s = (v + k) / 2` when `halved` (every value of the tier then has the
//! parity of `k`, as under the standard and empty-capture rules where every
//! seed ends in a store), else `s = v + k`; `0 <= s <= 2k <= 254`.
//!
//! ## Blocks
//!
//! Boards are taken in rank order ([`crate::index`], `Index::rank`) in
//! blocks of 256 (the last block of the tier holds the rest, `count mod
//! 256` if not zero). Block `b` holds ranks `256 b ..`; index entry `e`
//! describes blocks `4e .. 4e + 3` (ranks `1024 e ..`; the last entry may
//! describe fewer blocks; the fields of blocks that do not exist are zero).
//! A block of `n` boards with parameters `(c, r, g)` (centre, Rice
//! parameter 0..=7, sign) codes each symbol `s` as
//! `z = zigzag(g ? c - s : s - c)` (zigzag: 0, -1, 1, -2, 2 .. to
//! 0, 1, 2, 3, 4 ..) and lies in the stream, from its first bit, as:
//!
//! ```text
//! n x r bits     the low r bits of z of each board in turn (board i at
//!                bits i r .. i r + r of the block, lowest bit first)
//! n unary codes  for each board in turn: (z >> r) zero bits, then a one
//! ```
//!
//! Bits are numbered from the stream's first byte, lowest bit of each byte
//! first (bit `p` is bit `p mod 8` of byte `p / 8`). The blocks of an entry
//! follow one another without gaps; an entry's first block starts at its
//! offset (entries need not be adjacent: the encoder pads to 64 bits now
//! and then; padding bits are zero).
//!
//! ## Index entry (16 bytes, one u128, bits from the lowest)
//!
//! ```text
//! bits 0..40     offset: bit of the stream where block 4e starts
//! bits 40..52    bit length of block 4e
//! bits 52..64    bit length of block 4e + 1
//! bits 64..76    bit length of block 4e + 2
//! bits 76..88    parameters of block 4e: centre c (8 bits), then Rice
//!                parameter r (3 bits), then sign g (1 bit)
//! bits 88..100   parameters of block 4e + 1 (same layout)
//! bits 100..112  parameters of block 4e + 2
//! bits 112..124  parameters of block 4e + 3
//! bits 124..128  zero
//! ```
//!
//! A probe of rank `R` reads entry `R / 1024`, adds the lengths of the
//! blocks before its own to the offset, reads `r` low bits at board
//! `i = R mod 256`, and finds the `i`-th one of the block's unary codes
//! (a popcount scan over a few 64-bit words): O(1), within one block.
//!
//! # Old files
//!
//! Version 1 (one `i8` a board, 80 + count bytes) is refused with
//! [`TableError::BadVersion`], whose message says to rebuild; a build treats
//! such a file as damaged and builds the tier anew. Reading both would put
//! a second decoder behind every probe for tables that take minutes to
//! rebuild.
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
//! `80 + 16 E + D`, the end marker is present and the checksum of the whole
//! file matches: on every open ([`Check::Full`]), or once per file, the
//! check being remembered by a stamp beside it that is only trusted for the
//! very same file ([`Check::Remembered`], see [`super::stamp`]). A
//! truncated, partially written or altered file is thus detected and never
//! used; a build that finds one rebuilds that tier and every tier above it.
//! A file whose checksum passes but whose stream is not a valid encoding
//! (only a deliberately forged one) gives no value where it is invalid,
//! never a panic.

use serde::{Deserialize, Serialize};

use super::{compact, TableError};
use crate::rules::Rules;
use std::path::Path;

/// First bytes of every tier file.
pub const MAGIC: [u8; 8] = *b"KALAHTBL";
/// Last bytes of every complete tier file.
pub const END_MARKER: [u8; 8] = *b"KTBLDONE";
/// The format version this code reads and writes.
pub const VERSION: u32 = 2;

/// Entry encoding 2: Rice-coded blocks (see the module documentation).
pub const ENCODING_RICE: u8 = 2;
/// Bytes before the index (header record and padding).
pub const HEADER_LEN: usize = 64;
/// Bytes after the bit stream (checksum and end marker).
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
    pub halved: u8,
    pub data_len: u64,
}

impl Header {
    /// The header of the tier file of `(pits, rules, tier)` with `count`
    /// boards, symbols `halved` or not, and a bit stream of `data_len`
    /// bytes.
    pub fn new(
        pits: usize,
        rules: Rules,
        tier: u32,
        count: u64,
        halved: bool,
        data_len: u64,
    ) -> Header {
        Header {
            magic: MAGIC,
            version: VERSION,
            pits: pits as u8,
            rules: rules.code(),
            encoding: ENCODING_RICE,
            tier,
            count,
            halved: halved as u8,
            data_len,
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
        if bytes.len() >= 8 && bytes[..8] != MAGIC {
            return Err(TableError::BadMagic { path });
        }
        // The version first: an older file's header is shorter.
        if let Some(v) = bytes.get(8..12) {
            let found = u32::from_le_bytes(v.try_into().expect("4 bytes"));
            if found != VERSION {
                return Err(TableError::BadVersion { path, found });
            }
        }
        if bytes.len() < HEADER_LEN {
            return Err(TableError::Truncated {
                path,
                expected: HEADER_LEN as u64,
                found: bytes.len() as u64,
            });
        }
        bincode::deserialize(&bytes[..HEADER_LEN]).map_err(|e| TableError::BadHeader {
            path: path.clone(),
            reason: e.to_string(),
        })
    }

    /// Bytes of the index.
    pub fn index_len(&self) -> u64 {
        compact::entries(self.count) * compact::ENTRY_LEN as u64
    }
}

/// Where the sections of a checked file lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub index: std::ops::Range<usize>,
    pub data: std::ops::Range<usize>,
    pub halved: bool,
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

/// Checks a whole file image and returns where its sections lie: the
/// header, length and end marker always, the checksum of the whole file
/// when `checksum` (the caller that skips it must know, from a stamp, that
/// this very file passed it before).
pub(crate) fn check_file(
    bytes: &[u8],
    path: &Path,
    expect: &Expect,
    checksum: bool,
) -> Result<Layout, TableError> {
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
    if h.encoding != ENCODING_RICE {
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
    if h.halved > 1 || (h.data_len as usize) < compact::PADDING {
        return Err(TableError::BadHeader {
            path: p(),
            reason: format!(
                "halved flag {} (0 or 1), stream of {} bytes (at least {})",
                h.halved,
                h.data_len,
                compact::PADDING
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
    let want = file_len(&h);
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
    let index = HEADER_LEN..HEADER_LEN + h.index_len() as usize;
    Ok(Layout {
        data: index.end..end - TRAILER_LEN,
        index,
        halved: h.halved == 1,
    })
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

/// The format version a table file says it is in (bytes 8..12 after the
/// magic), read from its first 12 bytes alone: what `kalah tables` shows
/// for files this program refuses (an older version). `None` when the
/// file is shorter or does not start with the magic.
///
/// # Errors
/// If the file cannot be opened or read.
pub fn file_version(path: &Path) -> std::io::Result<Option<u32>> {
    use std::io::Read;
    let mut head = [0u8; 12];
    match std::fs::File::open(path)?.read_exact(&mut head) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        r => r?,
    }
    let (magic, version) = head.split_at(8);
    Ok((magic == MAGIC).then(|| u32::from_le_bytes(version.try_into().expect("4 bytes"))))
}

/// Total length of the file of header `h` (saturating).
pub fn file_len(h: &Header) -> u64 {
    (HEADER_LEN as u64 + TRAILER_LEN as u64)
        .saturating_add(h.index_len())
        .saturating_add(h.data_len)
}

/// The whole file image of tier `tier` of `(pits, rules)` with the
/// `count` values `values(0..count)` in rank order (encoded in parallel on
/// the current rayon pool; see `compact::encode`).
///
/// # Errors
/// A value that is not one of the tier's (`|v| > tier`), or a tier too
/// large for the index's offsets.
pub fn file_image(
    pits: usize,
    rules: Rules,
    tier: u32,
    count: usize,
    values: &(impl Fn(usize) -> i8 + Sync),
) -> Result<Vec<u8>, compact::EncodeError> {
    let halved = compact::parity_holds(values, count, tier);
    let encoded = compact::encode(values, count, tier, halved)?;
    let h = Header::new(
        pits,
        rules,
        tier,
        count as u64,
        halved,
        encoded.data.len() as u64,
    );
    let mut out = Vec::with_capacity(file_len(&h) as usize);
    out.extend_from_slice(&h.to_bytes());
    out.extend_from_slice(&encoded.index);
    out.extend_from_slice(&encoded.data);
    let mut hash = Xxh64::new(0);
    hash.update(&out);
    out.extend_from_slice(&trailer(&hash));
    Ok(out)
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
        let h = Header::new(
            6,
            Rules::EMPTY_CAPTURE,
            20,
            0x0102_0304_0506_0708,
            true,
            0x1122,
        );
        let b = h.to_bytes();
        assert_eq!(&b[0..8], b"KALAHTBL");
        assert_eq!(&b[8..12], &2u32.to_le_bytes());
        assert_eq!(b[12], 6);
        assert_eq!(b[13], Rules::EMPTY_CAPTURE.code());
        assert_eq!(b[14], ENCODING_RICE);
        assert_eq!(&b[15..19], &20u32.to_le_bytes());
        assert_eq!(&b[19..27], &0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(b[27], 1);
        assert_eq!(&b[28..36], &0x1122u64.to_le_bytes());
        assert!(b[36..].iter().all(|&x| x == 0));
        assert_eq!(bincode::serialized_size(&h).unwrap(), 36);
    }

    #[test]
    fn a_version_1_file_is_refused_by_its_version() {
        // The old header: magic, version 1, pits, rules, encoding 1, ...
        let mut old = vec![0u8; 80 + 12];
        old[..8].copy_from_slice(&MAGIC);
        old[8..12].copy_from_slice(&1u32.to_le_bytes());
        let e = Header::decode(&old, Path::new("t.tbl")).unwrap_err();
        assert!(matches!(e, TableError::BadVersion { found: 1, .. }), "{e}");
        assert!(e.to_string().contains("kalah build"), "{e}");
    }
}
