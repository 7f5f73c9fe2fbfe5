//! The compact value encoding of tier files (format version 2, encoding 2:
//! Rice-coded blocks): about 3.5 bits a board instead of 8, with O(1)
//! random access. The byte layout is documented in [`super::format`]; this
//! module encodes and decodes the two sections it describes (the block
//! index and the bit stream).
//!
//! # Why this code
//!
//! Measured on the 6-house tables (lab/journal/tables.md, "Compact tables"):
//!
//! * Every value of tier `k` has the parity of `k` under the standard and
//!   empty-capture rules (all `k` seeds end in a store, so the mover's
//!   share `u` gives `v = 2u - k`): storing `u = (v + k) / 2` saves one bit
//!   of the 4 that the order-0 entropy of `v` asks. Tiers where some value
//!   breaks the parity (the end rule where seeds left count for nobody)
//!   store `u = v + k` instead; the header says which.
//! * Neighbouring ranks differ in the mover's far houses only, so values
//!   within a run of ranks sit in a narrow band: a block of 256 boards
//!   coded around its own centre costs about 3.6 bits a board at tier 22
//!   with a Rice code (one parameter per block), against 3.9 for plain
//!   min/max bit packing at 64-board blocks and 3.9 for fixed-width codes
//!   with an exception list. A Rice code also gives O(1) access: the low
//!   bits of every value are a fixed-width array, and the high parts are a
//!   unary bit string in which the `i`-th one ends value `i` (a rank/select
//!   over a few words).
//!
//! # Access cost
//!
//! One 16-byte index entry (a cache line), one read of the low bits, and a
//! scan of the unary string with `popcount` up to the value's one (on
//! average about 4 words of 64 bits): a few memory reads in one or two
//! cache lines of a block of about 110 bytes.

/// Boards a block holds (the last block of a tier may hold fewer).
pub const BLOCK: usize = 256;
/// Blocks an index entry describes.
pub const BLOCKS_PER_ENTRY: usize = 4;
/// Boards an index entry describes.
pub const ENTRY_BOARDS: usize = BLOCK * BLOCKS_PER_ENTRY;
/// Bytes of one index entry.
pub const ENTRY_LEN: usize = 16;
/// Zero bytes that end the bit stream (a reader may read a whole word
/// past the last bit of the last block).
pub const PADDING: usize = 16;

/// Largest high part of a valid code (a symbol is at most 255, its
/// zigzag at most 510).
const MAX_UNARY: u32 = 512;
/// Largest Rice parameter.
const MAX_RICE: u32 = 7;
/// Bits of the offset of an entry's first block in the stream.
const OFFSET_BITS: u32 = 40;
/// Bits of a block's length in the stream.
const LEN_BITS: u32 = 12;
/// Bits of a block's parameters: centre (8), Rice parameter (3), sign (1).
const PARAM_BITS: u32 = 12;
/// Where the parameters of the first block start in an entry.
const PARAMS_AT: u32 = OFFSET_BITS + 3 * LEN_BITS;

/// Index entries of a tier of `count` boards.
pub fn entries(count: u64) -> u64 {
    count.div_ceil(ENTRY_BOARDS as u64)
}

/// The stored symbol of value `v` of tier `tier`: the mover's share
/// `(v + tier) / 2` when `halved`, else `v + tier`; `None` if `v` is not a
/// possible value (`|v| > tier`, or the wrong parity when `halved`).
#[inline]
fn symbol(v: i8, tier: u32, halved: bool) -> Option<u32> {
    let u = v as i32 + tier as i32;
    if !(0..=2 * tier as i32).contains(&u) || (halved && u % 2 != 0) {
        return None;
    }
    Some(if halved { u as u32 / 2 } else { u as u32 })
}

/// Whether every value of the tier has the parity of `tier` (see the module
/// documentation), so that symbols can be halved.
pub fn parity_holds(values: &(impl Fn(usize) -> i8 + Sync), count: usize, tier: u32) -> bool {
    use rayon::prelude::*;
    (0..count.div_ceil(1 << 16)).into_par_iter().all(|c| {
        let lo = c << 16;
        (lo..(lo + (1 << 16)).min(count)).all(|i| (values(i) as i32 + tier as i32) % 2 == 0)
    })
}

/// Zigzag: 0, -1, 1, -2, 2, ... to 0, 1, 2, 3, 4, ...
#[inline]
fn zigzag(d: i32) -> u32 {
    ((d << 1) ^ (d >> 31)) as u32
}

/// How one block is coded: symbol `s` is stored as `z = zigzag(±(s -
/// centre))` (minus when `negate`), its `rice` low bits in the low-bit
/// array and `z >> rice` in unary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Params {
    centre: u32,
    rice: u32,
    negate: bool,
}

impl Params {
    fn pack(self) -> u128 {
        (self.centre as u128) | (self.rice as u128) << 8 | (self.negate as u128) << 11
    }

    fn unpack(bits: u128) -> Params {
        Params {
            centre: (bits & 0xFF) as u32,
            rice: ((bits >> 8) & 7) as u32,
            negate: (bits >> 11) & 1 == 1,
        }
    }

    #[inline]
    fn z(self, s: u32) -> u32 {
        let d = s as i32 - self.centre as i32;
        zigzag(if self.negate { -d } else { d })
    }

    /// The value whose code has the high part `q` and low bits `low`, in a
    /// tier `tier` stored `halved` or not; `None` if it is not an `i8`.
    #[inline(always)]
    fn value(self, q: u32, low: u64, tier: u32, halved: bool) -> Option<i8> {
        let z = (q as u64) << self.rice | low;
        let d = (z >> 1) as i64 ^ -((z & 1) as i64);
        let s = self.centre as i64 + if self.negate { -d } else { d };
        i8::try_from(if halved { 2 * s } else { s } - tier as i64).ok()
    }

    /// The cheapest code of a block: centre within 1 of the median, either
    /// sign, any Rice parameter (the first of equal cost, in that order).
    fn best(symbols: &[u32]) -> Params {
        // Counts by symbol (symbols are below 256), then the median.
        let mut counts = [0u16; 256];
        let (mut lo, mut hi) = (u32::MAX, 0);
        for &s in symbols {
            counts[s as usize & 255] += 1;
            lo = lo.min(s);
            hi = hi.max(s);
        }
        let hist: Vec<(u32, u32)> = (lo..=hi)
            .filter(|&s| counts[s as usize] > 0)
            .map(|s| (s, counts[s as usize] as u32))
            .collect();
        let half = symbols.len() as u32 / 2;
        let mut seen = 0;
        let median = hist
            .iter()
            .find(|&&(_, c)| {
                seen += c;
                seen > half
            })
            .map_or(0, |&(s, _)| s);
        let mut best = (u64::MAX, Params::default());
        for centre in median.saturating_sub(1)..=(median + 1).min(255) {
            for negate in [false, true] {
                // The cost of every Rice parameter in one pass.
                let mut cost = [0u64; MAX_RICE as usize + 1];
                let p = Params {
                    centre,
                    rice: 0,
                    negate,
                };
                for &(s, c) in &hist {
                    let z = p.z(s);
                    for (rice, total) in cost.iter_mut().enumerate() {
                        *total += c as u64 * (rice as u64 + 1 + (z >> rice) as u64);
                    }
                }
                for (rice, &c) in cost.iter().enumerate() {
                    if c < best.0 {
                        best = (
                            c,
                            Params {
                                centre,
                                rice: rice as u32,
                                negate,
                            },
                        );
                    }
                }
            }
        }
        best.1
    }
}

/// A bit stream being written, 64 bits a word, lowest bit first.
struct Bits {
    words: Vec<u64>,
    len: u64,
}

impl Bits {
    fn new() -> Bits {
        Bits {
            words: Vec::new(),
            len: 0,
        }
    }

    /// Appends the `n <= 57` low bits of `x`.
    fn push(&mut self, x: u64, n: u32) {
        if n == 0 {
            return;
        }
        let at = (self.len % 64) as u32;
        if at == 0 {
            self.words.push(0);
        }
        let last = self.words.len() - 1;
        self.words[last] |= x << at;
        if at + n > 64 {
            self.words.push(x >> (64 - at));
        }
        self.len += n as u64;
    }

    /// Appends `zeros` zero bits, then a one.
    fn unary(&mut self, mut zeros: u32) {
        while zeros > 56 {
            self.push(0, 56);
            zeros -= 56;
        }
        self.push(1 << zeros, zeros + 1);
    }
}

/// The encoded values of one tier: the index and the bit stream (with its
/// [`PADDING`]) as they lie in the file.
pub struct Encoded {
    pub index: Vec<u8>,
    pub data: Vec<u8>,
}

/// Encodes the symbols of boards `lo..hi` (whole entries, `lo` a multiple
/// of [`ENTRY_BOARDS`]) into a stream starting at bit 0; returns the
/// entries (offsets relative to that start) and the stream, its length a
/// multiple of 64 bits.
fn encode_part(
    values: &(impl Fn(usize) -> i8 + Sync),
    tier: u32,
    halved: bool,
    lo: usize,
    hi: usize,
) -> Result<(Vec<u128>, Bits), (usize, i8)> {
    let mut bits = Bits::new();
    let mut entries = Vec::with_capacity((hi - lo).div_ceil(ENTRY_BOARDS));
    let mut symbols = Vec::with_capacity(BLOCK);
    let mut start = lo;
    while start < hi {
        let mut entry = bits.len as u128;
        for j in 0..BLOCKS_PER_ENTRY {
            let b = start + j * BLOCK;
            if b >= hi {
                break;
            }
            symbols.clear();
            for i in b..(b + BLOCK).min(hi) {
                let v = values(i);
                symbols.push(symbol(v, tier, halved).ok_or((i, v))?);
            }
            let p = Params::best(&symbols);
            let before = bits.len;
            for &s in &symbols {
                bits.push((p.z(s) & ((1 << p.rice) - 1)) as u64, p.rice);
            }
            for &s in &symbols {
                bits.unary(p.z(s) >> p.rice);
            }
            let len = bits.len - before;
            debug_assert!(len < 1 << LEN_BITS, "a block is at most 256 x 11 bits");
            if j < 3 {
                entry |= (len as u128) << (OFFSET_BITS + LEN_BITS * j as u32);
            }
            entry |= p.pack() << (PARAMS_AT + PARAM_BITS * j as u32);
        }
        entries.push(entry);
        start += ENTRY_BOARDS;
    }
    bits.len = bits.len.div_ceil(64) * 64;
    Ok((entries, bits))
}

/// Why a tier cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The value at `rank` is not a value of the tier (`|v| > tier`).
    BadValue { rank: usize, value: i8 },
    /// The stream would not fit the 40-bit offsets of the index.
    TooLarge,
}

/// Encodes the `count` values `values(0..count)` of tier `tier` (in
/// parallel on the current rayon pool); `halved` as [`parity_holds`] says.
/// Deterministic: the same values give the same bytes on any pool.
pub fn encode(
    values: &(impl Fn(usize) -> i8 + Sync),
    count: usize,
    tier: u32,
    halved: bool,
) -> Result<Encoded, EncodeError> {
    use rayon::prelude::*;
    /// Boards a task encodes (whole entries).
    const PART: usize = ENTRY_BOARDS * 256;
    let parts: Vec<_> = (0..count.div_ceil(PART))
        .into_par_iter()
        .map(|p| encode_part(values, tier, halved, p * PART, ((p + 1) * PART).min(count)))
        .collect::<Result<_, _>>()
        .map_err(|(rank, value)| EncodeError::BadValue { rank, value })?;
    let total_bits: u64 = parts.iter().map(|(_, b)| b.len).sum();
    if total_bits >= 1 << OFFSET_BITS {
        return Err(EncodeError::TooLarge);
    }
    let mut index = Vec::with_capacity(entries(count as u64) as usize * ENTRY_LEN);
    let mut data = Vec::with_capacity((total_bits / 8) as usize + PADDING);
    let mut at = 0u64;
    for (ents, bits) in &parts {
        for e in ents {
            index.extend_from_slice(&(e + at as u128).to_le_bytes());
        }
        for w in &bits.words[..(bits.len / 64) as usize] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        at += bits.len;
    }
    data.resize(data.len() + PADDING, 0);
    Ok(Encoded { index, data })
}

/// Read access to an encoded tier: the index and the stream of a file.
#[derive(Clone, Copy, Debug)]
pub struct Compact<'a> {
    pub index: &'a [u8],
    pub data: &'a [u8],
    pub tier: u32,
    pub halved: bool,
    pub count: u64,
}

/// 64 bits of `data` from bit `pos` on, `None` past the end.
#[inline(always)]
fn bits64(data: &[u8], pos: u64) -> Option<u64> {
    let byte = (pos / 8) as usize;
    let sh = (pos % 8) as u32;
    let lo = u64::from_le_bytes(data.get(byte..byte + 8)?.try_into().ok()?);
    if sh == 0 {
        return Some(lo);
    }
    let hi = *data.get(byte + 8)? as u64;
    Some(lo >> sh | hi << (64 - sh))
}

/// `SELECT_IN_BYTE[b][r]`: the position of the `r`-th set bit of byte `b`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut r) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[b][r] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// Position of the `r`-th (from 0) set bit of `w`; `r < w.count_ones()`.
/// Branch-free: the byte is found from the bytes' running popcounts.
#[inline(always)]
fn select64(w: u64, r: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte j: the set bits of bytes 0..=j (at most 64: no carry).
    let running = s.wrapping_mul(ONES);
    // High bit of byte j set where running_j <= r: the bytes before the one.
    let j = ((((r as u64 * ONES) | HIGH) - running) & HIGH).count_ones();
    let before = ((running << 8) >> (8 * j)) as u8 as u32;
    let byte = (w >> (8 * j)) as u8;
    8 * j + SELECT_IN_BYTE[byte as usize][((r - before) & 7) as usize] as u32
}

impl Compact<'_> {
    /// The block of rank `rank < count`: where it starts in the stream, its
    /// parameters and its number of boards.
    #[inline(always)]
    fn block(&self, rank: u64) -> Option<(u64, Params, u64)> {
        let e = (rank / ENTRY_BOARDS as u64) as usize;
        let entry = u128::from_le_bytes(
            self.index
                .get(e * ENTRY_LEN..(e + 1) * ENTRY_LEN)?
                .try_into()
                .ok()?,
        );
        let j = ((rank / BLOCK as u64) % BLOCKS_PER_ENTRY as u64) as u32;
        let mut pos = (entry & ((1 << OFFSET_BITS) - 1)) as u64;
        for t in 0..j {
            pos += ((entry >> (OFFSET_BITS + LEN_BITS * t)) & ((1 << LEN_BITS) - 1)) as u64;
        }
        let p = Params::unpack(entry >> (PARAMS_AT + PARAM_BITS * j));
        let block_start = rank - rank % BLOCK as u64;
        let n = (self.count - block_start).min(BLOCK as u64);
        Some((pos, p, n))
    }

    /// The value of the board of rank `rank`; `None` out of the tier or
    /// where the bytes are not a valid encoding (never a panic).
    #[inline]
    pub fn get(&self, rank: u64) -> Option<i8> {
        if rank >= self.count {
            return None;
        }
        let (pos, p, n) = self.block(rank)?;
        let i = (rank % BLOCK as u64) as u32;
        let low = if p.rice == 0 {
            0
        } else {
            bits64(self.data, pos + i as u64 * p.rice as u64)? & ((1 << p.rice) - 1)
        };
        let q = unary_at(self.data, pos + n * p.rice as u64, i)?;
        p.value(q, low, self.tier, self.halved)
    }

    /// The bytes [`Compact::get`] of `rank` reads after the index entry
    /// ([`Compact::entry_of`]): the low bits of the board and the start of
    /// its block's unary codes (for a prefetch).
    #[inline]
    pub fn data_of(&self, rank: u64) -> Option<[&u8; 2]> {
        if rank >= self.count {
            return None;
        }
        let (pos, p, n) = self.block(rank)?;
        let i = rank % BLOCK as u64;
        let low = self.data.get(((pos + i * p.rice as u64) / 8) as usize)?;
        let unary = self.data.get(((pos + n * p.rice as u64) / 8) as usize)?;
        Some([low, unary])
    }

    /// Every value, in rank order, into `out` (`count` long), in parallel
    /// on the current rayon pool; `None` if the bytes are not a valid
    /// encoding.
    pub fn decode_all(&self, out: &mut [i8]) -> Option<()> {
        use rayon::prelude::*;
        if out.len() as u64 != self.count {
            return None;
        }
        out.par_chunks_mut(ENTRY_BOARDS * 64)
            .enumerate()
            .try_for_each(|(c, chunk)| {
                let first = (c * ENTRY_BOARDS * 64) as u64;
                for (b, block) in chunk.chunks_mut(BLOCK).enumerate() {
                    self.decode_block(first + (b * BLOCK) as u64, block)?;
                }
                Some(())
            })
    }

    /// Whether every block decodes (in parallel on the current rayon pool):
    /// then [`Compact::get`] gives a value for every rank of the tier.
    pub fn is_valid(&self) -> bool {
        use rayon::prelude::*;
        let blocks = self.count.div_ceil(BLOCK as u64);
        (0..blocks.div_ceil(256)).into_par_iter().all(|c| {
            let mut out = [0i8; BLOCK];
            (c * 256..((c + 1) * 256).min(blocks)).all(|b| {
                let start = b * BLOCK as u64;
                let n = (self.count - start).min(BLOCK as u64) as usize;
                self.decode_block(start, &mut out[..n]).is_some()
            })
        })
    }

    /// The values of the block starting at rank `start` into `out`.
    fn decode_block(&self, start: u64, out: &mut [i8]) -> Option<()> {
        // The first value finds the block; the rest follow in the stream.
        let (pos, p, n) = self.block(start)?;
        if n != out.len() as u64 {
            return None;
        }
        let mut upos = pos + n * p.rice as u64;
        let mut word = bits64(self.data, upos)?;
        let mut left = 64u32;
        for (i, o) in out.iter_mut().enumerate() {
            let low = if p.rice == 0 {
                0
            } else {
                bits64(self.data, pos + i as u64 * p.rice as u64)? & ((1 << p.rice) - 1)
            };
            let mut q = 0u32;
            while word == 0 {
                if q > MAX_UNARY {
                    return None;
                }
                q += left;
                upos += left as u64;
                word = bits64(self.data, upos)?;
                left = 64;
            }
            let tz = word.trailing_zeros();
            q += tz;
            if q > MAX_UNARY {
                return None;
            }
            upos += tz as u64 + 1;
            if tz + 1 >= left {
                word = bits64(self.data, upos)?;
                left = 64;
            } else {
                word >>= tz + 1;
                left -= tz + 1;
            }
            *o = p.value(q, low, self.tier, self.halved)?;
        }
        Some(())
    }

    /// The index entry holding `rank`: what a probe reads first (for a
    /// prefetch).
    #[inline]
    pub fn entry_of(&self, rank: u64) -> Option<&u8> {
        self.index
            .get((rank / ENTRY_BOARDS as u64) as usize * ENTRY_LEN)
    }
}

/// The number of zeros before the `i`-th one (from 0) of the unary string
/// starting at bit `start`, back to the one before it (or the start).
#[inline(always)]
fn unary_at(data: &[u8], start: u64, i: u32) -> Option<u32> {
    let mut at = start;
    let mut r = i;
    // The position of the last one seen before the current word (start - 1
    // when none).
    let mut prev = start as i64 - 1;
    loop {
        let w = bits64(data, at)?;
        let c = w.count_ones();
        if r < c {
            let b = select64(w, r);
            let below = w & ((1u64 << b) - 1);
            let last = if below != 0 {
                at as i64 + 63 - below.leading_zeros() as i64
            } else {
                prev
            };
            return u32::try_from(at as i64 + b as i64 - last - 1)
                .ok()
                .filter(|&q| q <= MAX_UNARY);
        }
        if c > 0 {
            prev = at as i64 + 63 - w.leading_zeros() as i64;
        }
        r -= c;
        at += 64;
        if at > start + BLOCK as u64 * (MAX_UNARY as u64 + 1) {
            // Longer than any block: not a valid encoding.
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SplitMix64;

    fn round_trip(values: &[i8], tier: u32) -> usize {
        let halved = parity_holds(&|i| values[i], values.len(), tier);
        let enc = encode(&|i| values[i], values.len(), tier, halved).expect("encodes");
        let c = Compact {
            index: &enc.index,
            data: &enc.data,
            tier,
            halved,
            count: values.len() as u64,
        };
        for (r, &v) in values.iter().enumerate() {
            assert_eq!(c.get(r as u64), Some(v), "rank {r} of {}", values.len());
        }
        assert_eq!(c.get(values.len() as u64), None);
        let mut out = vec![0i8; values.len()];
        c.decode_all(&mut out).expect("decodes");
        assert_eq!(out, values);
        enc.index.len() + enc.data.len()
    }

    #[test]
    fn every_value_comes_back() {
        let mut rng = SplitMix64::new(7);
        for tier in [0u32, 1, 2, 5, 30, 127] {
            for len in [0usize, 1, 2, 255, 256, 257, 1023, 1024, 1025, 5000, 300_000] {
                // Narrow bands with outliers, both parities, extremes.
                let t = tier as i32;
                let values: Vec<i8> = (0..len)
                    .map(|i| {
                        let x = match rng.below(10) {
                            0 => rng.below(2 * tier as u64 + 1) as i32 - t,
                            1 => {
                                if i % 2 == 0 {
                                    t
                                } else {
                                    -t
                                }
                            }
                            _ => ((i / 300) as i32 % (2 * t + 1)) - t + rng.below(3) as i32,
                        };
                        x.clamp(-t, t) as i8
                    })
                    .collect();
                round_trip(&values, tier);
                let even: Vec<i8> = values
                    .iter()
                    .map(|&v| {
                        if (v as i32 + t) % 2 != 0 {
                            (v as i32 - v.signum() as i32) as i8
                        } else {
                            v
                        }
                    })
                    .collect();
                round_trip(&even, tier);
            }
        }
    }

    #[test]
    fn bad_values_are_refused() {
        assert_eq!(
            encode(&|i| [0i8, 3, 0][i], 3, 2, false).err(),
            Some(EncodeError::BadValue { rank: 1, value: 3 })
        );
        assert_eq!(
            encode(&|i| [0i8, 1][i], 2, 2, true).err(),
            Some(EncodeError::BadValue { rank: 1, value: 1 })
        );
    }

    #[test]
    fn narrow_bands_cost_few_bits() {
        // Blocks of one value each cost one bit a board (the unary ones).
        let values: Vec<i8> = (0..1 << 16).map(|i| ((i / 256) % 21) as i8 - 10).collect();
        let bytes = round_trip(&values, 20);
        assert!(bytes * 8 < values.len() * 2, "{bytes} bytes");
    }

    #[test]
    fn garbage_never_panics() {
        let mut rng = SplitMix64::new(99);
        for _ in 0..200 {
            let index: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
            let data: Vec<u8> = (0..rng.below(400)).map(|_| rng.next_u64() as u8).collect();
            let c = Compact {
                index: &index,
                data: &data,
                tier: rng.below(128) as u32,
                halved: rng.below(2) == 1,
                count: 4096,
            };
            for r in 0..4100 {
                let _ = c.get(r);
            }
            let mut out = vec![0i8; 4096];
            let _ = c.decode_all(&mut out);
        }
    }

    #[test]
    fn select_finds_each_set_bit() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..1000 {
            let w = rng.next_u64();
            let mut seen = 0;
            for b in 0..64 {
                if w >> b & 1 == 1 {
                    assert_eq!(select64(w, seen), b);
                    seen += 1;
                }
            }
        }
    }
}
