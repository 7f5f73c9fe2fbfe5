//! A table answer's JSON line written byte by byte: the batch's hot path.
//!
//! serde_json spends about as long on a table answer's line as the probes
//! that make it (every key is scanned for characters to escape, every piece
//! is a separate call), which halved `query --batch`'s throughput. This
//! writer covers only what an answer without a principal variation holds (counts, small integers, an
//! ASCII position, a rules slug, milliseconds) and writes exactly the bytes
//! serde_json writes for the same [`AnswerLine`]: the tests below compare
//! the two over random answers. Anything else goes through serde_json.

use kalah_solver::search::MoveValue;
use kalah_solver::Side;

use super::answer::{AnswerLine, Best, PositionText, Source};

/// The most moves (and best moves) a line covered here holds: houses a
/// side ([`kalah_solver::rules::MAX_PITS`]).
const MAX_MOVES: usize = kalah_solver::rules::MAX_PITS;

/// The longest given position and rules slug covered here.
const MAX_TEXT: usize = 128;

/// The start of a move's object, by house: fixed-length pieces, copied
/// inline (a table of `&str` would make each a call to `memcpy`).
const HOUSE_KEYS: [[u8; 19]; 9] = {
    let mut keys = [*b"{\"house\":0,\"value\":"; 9];
    let mut h = 0;
    while h < keys.len() {
        keys[h][9] = b'0' + h as u8;
        h += 1;
    }
    keys
};

/// Room for a line, more than the longest covered: two texts of
/// [`MAX_TEXT`] bytes, 18 counts, [`MAX_MOVES`] moves of at most 70 bytes
/// and as many best houses of at most 21, the fixed keys, and three numbers
/// of at most 24 bytes.
const LINE_BYTES: usize = 2048;

/// A line in fixed storage, reused from line to line and copied out whole
/// once written: the checks of a growing buffer on every piece cost as
/// much as the rest of the line.
pub(crate) struct LineBuf {
    bytes: [u8; LINE_BYTES],
}

impl Default for LineBuf {
    fn default() -> Self {
        LineBuf {
            bytes: [0; LINE_BYTES],
        }
    }
}

/// Writes into a [`LineBuf`]. The length lives here, a local the compiler
/// keeps in a register, not in the buffer: a byte stored through the
/// buffer could otherwise be the length, which would be read back from
/// memory after every piece.
struct Cursor<'a> {
    bytes: &'a mut [u8; LINE_BYTES],
    len: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn extend_from_slice(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }

    /// Appends the first `len` bytes of `b` (at most `N`): all `N` are
    /// copied, a fixed length the compiler copies inline rather than by a
    /// call to `memcpy`, and those past `len` are overwritten by what
    /// follows (or left unused after the line).
    #[inline(always)]
    fn extend_from_prefix<const N: usize>(&mut self, b: &[u8; N], len: usize) {
        self.bytes[self.len..self.len + N].copy_from_slice(b);
        self.len += len.min(N);
    }

    #[inline(always)]
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }
}

/// Appends `line` as serde_json would write it, when this writer covers it:
/// no principal variation but a finished game's empty one, no note, a rules
/// slug that needs no escaping (a given position never does: see
/// [`PositionText::Given`]). `false` (nothing written) otherwise. `scratch`
/// holds the line while it is written.
#[inline]
pub(crate) fn write_table_line(
    into: &mut Vec<u8>,
    line: &AnswerLine<'_>,
    scratch: &mut LineBuf,
) -> bool {
    let plain = |s: &str| s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
    if line.pv.as_ref().is_some_and(|pv| !pv.0.is_empty())
        || line.note.is_some()
        || !plain(line.rules)
    {
        return false;
    }
    if line.moves.as_ref().is_some_and(|m| m.0.len() > MAX_MOVES)
        || matches!(line.best, Some(Best::Houses(h)) if h.len() > MAX_MOVES)
        || line.rules.len() > MAX_TEXT
        || matches!(line.position, PositionText::Given(t) if t.len() > MAX_TEXT)
    {
        return false;
    }
    let mut out = Cursor {
        bytes: &mut scratch.bytes,
        len: 0,
    };
    let written = write_line(&mut out, line);
    if written {
        into.extend_from_slice(&out.bytes[..out.len]);
    }
    written
}

/// Writes `line` into `out` (covered by the checks of [`write_table_line`]);
/// `false` for a time too large for the fast form.
#[inline(always)]
fn write_line(out: &mut Cursor<'_>, line: &AnswerLine<'_>) -> bool {
    out.extend_from_slice(b"{\"position\":\"");
    match line.position {
        PositionText::Given(text) => out.extend_from_slice(text),
        PositionText::Position(pos) => {
            for side in [Side::South, Side::North] {
                for &x in pos.houses(side) {
                    uint(out, x as u64);
                    out.push(b' ');
                }
                uint(out, pos.store(side) as u64);
                out.push(b' ');
            }
            out.push(pos.to_move().letter() as u8);
        }
    }
    out.extend_from_slice(b"\",\"to_move\":\"");
    // Fixed-length pieces are copied inline, not by a call.
    if line.to_move.is_ascii() {
        out.push(line.to_move as u8);
    } else {
        let mut letter = [0; 4];
        out.extend_from_slice(line.to_move.encode_utf8(&mut letter).as_bytes());
    }
    out.extend_from_slice(b"\",\"rules\":\"");
    out.extend_from_slice(line.rules.as_bytes());
    out.extend_from_slice(b"\",\"value\":");
    int(out, line.value as i64);
    // Each piece a call with its own fixed length, copied inline (a
    // `match` choosing a slice would make the copy a call to `memcpy`).
    match line.value.signum() {
        1 => out.extend_from_slice(b",\"result\":\"win\""),
        0 => out.extend_from_slice(b",\"result\":\"draw\""),
        _ => out.extend_from_slice(b",\"result\":\"loss\""),
    }
    // A value-only answer has neither moves nor best moves.
    if let Some(moves) = &line.moves {
        write_moves(out, moves.0);
    }
    if let Some(best) = &line.best {
        out.extend_from_slice(b",\"best\":[");
        match *best {
            Best::Houses(h) => houses(out, h.iter().copied()),
            Best::Of(moves, value) => houses(
                out,
                moves.iter().filter(|m| m.value == value).map(|m| m.house),
            ),
        }
        out.push(b']');
    }
    if line.pv.is_some() {
        out.extend_from_slice(b",\"pv\":\"\"");
    }
    match line.source {
        Source::Table => out.extend_from_slice(b",\"source\":\"table\",\"nodes\":"),
        Source::Book => out.extend_from_slice(b",\"source\":\"book\",\"nodes\":"),
        Source::Kept => out.extend_from_slice(b",\"source\":\"kept\",\"nodes\":"),
        Source::Search => out.extend_from_slice(b",\"source\":\"search\",\"nodes\":"),
        Source::Finished => out.extend_from_slice(b",\"source\":\"finished\",\"nodes\":"),
    }
    uint(out, line.nodes);
    out.extend_from_slice(b",\"ms\":");
    if !millis(out, line.ms.0) {
        return false;
    }
    out.push(b'}');
    true
}

/// `,"moves":[...]`, as serde_json writes [`Moves`](super::answer::Moves).
#[inline(always)]
fn write_moves(out: &mut Cursor<'_>, moves: &[MoveValue]) {
    out.extend_from_slice(b",\"moves\":[");
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match HOUSE_KEYS.get(m.house) {
            Some(key) => out.extend_from_slice(key),
            None => {
                out.extend_from_slice(b"{\"house\":");
                uint(out, m.house as u64);
                out.extend_from_slice(b",\"value\":");
            }
        }
        int(out, m.value as i64);
        if m.extra_turn {
            out.extend_from_slice(b",\"extra_turn\":true}");
        } else {
            out.extend_from_slice(b",\"extra_turn\":false}");
        }
    }
    out.push(b']');
}

/// Appends `ms` rounded to three decimals as serde_json writes the double
/// `round3(ms)`: the shortest decimal that reads back as it, which below
/// 2^40 thousandths (distinct three-decimal numbers further apart than the
/// doubles' spacing) is the three-decimal form itself, trailing zeros
/// dropped, and `.0` for a whole number. `false` (nothing written) beyond
/// that, or for a negative time.
#[inline(always)]
fn millis(out: &mut Cursor<'_>, ms: f64) -> bool {
    // `round3(ms)` is this count over 1e3, which (below 2^40) times 1e3
    // rounds back to it.
    let thousandths = (ms * 1e3).round();
    if !(0.0..1_099_511_627_776.0).contains(&thousandths) {
        return false;
    }
    let n = thousandths as u64;
    uint(out, n / 1000);
    let frac = n % 1000;
    let digits = [
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ];
    let len = if frac.is_multiple_of(100) {
        2
    } else if frac.is_multiple_of(10) {
        3
    } else {
        4
    };
    out.extend_from_prefix(&digits, len);
    true
}

/// House numbers separated by commas.
#[inline(always)]
fn houses(out: &mut Cursor<'_>, houses: impl Iterator<Item = usize>) {
    for (i, h) in houses.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        uint(out, h as u64);
    }
}

#[inline(always)]
fn int(out: &mut Cursor<'_>, x: i64) {
    if x < 0 {
        out.push(b'-');
    }
    uint(out, x.unsigned_abs());
}

/// The decimal form of `v`; the small numbers of a table answer (seed
/// counts, values, houses) take one or two steps.
#[inline(always)]
fn uint(out: &mut Cursor<'_>, v: u64) {
    if v < 10 {
        out.push(b'0' + v as u8);
    } else if v < 100 {
        out.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
    } else {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let mut v = v;
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        out.extend_from_slice(&buf[i..]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::answer::{write_json, Millis, Moves, Outcome, Pv};
    use super::*;
    use kalah_solver::sample::SplitMix64;
    use kalah_solver::search::MoveValue;
    use kalah_solver::Position;

    #[test]
    fn table_lines_are_byte_for_byte_serde_json() {
        let mut rng = SplitMix64::new(1);
        let mut fast_lines = 0;
        let mut scratch = Box::<LineBuf>::default();
        for i in 0..200_000u64 {
            let pits = 1 + rng.below(8) as usize;
            let mut counts: Vec<u8> = (0..2 * pits + 2).map(|_| rng.below(20) as u8).collect();
            counts[pits] = rng.below(120) as u8;
            let side = if rng.below(2) == 0 { "S" } else { "N" };
            let text: String = counts
                .iter()
                .map(|c| c.to_string())
                .chain([side.to_string()])
                .collect::<Vec<_>>()
                .join(" ");
            let Ok(pos) = text.parse::<Position>() else {
                continue;
            };
            let mut moves = Vec::new();
            for house in 1..=pits {
                if rng.below(3) > 0 {
                    moves.push(MoveValue {
                        house,
                        value: rng.below(200) as i32 - 100,
                        extra_turn: rng.below(4) == 0,
                    });
                }
            }
            let value = moves.iter().map(|m| m.value).max().unwrap_or(0);
            let ms = match i % 4 {
                0 => rng.below(1_000_000) as f64 * 1e-6,
                1 => rng.below(1 << 40) as f64 / 7.0,
                2 => rng.below(5) as f64,
                _ => f64::from_bits(rng.below(1 << 62)) % 1e9,
            };
            let houses: Vec<usize> = moves.iter().map(|m| m.house).collect();
            let best = if i % 2 == 0 {
                Best::Of(&moves, value)
            } else {
                Best::Houses(&houses)
            };
            let line = AnswerLine {
                position: if i % 3 == 0 {
                    PositionText::Position(&pos)
                } else {
                    PositionText::Given(text.as_bytes())
                },
                to_move: pos.to_move().letter(),
                rules: ["std", "ec", "ec-nosweep"][i as usize % 3],
                value,
                result: Outcome::of(value),
                // Every seventh a value-only answer.
                moves: (i % 7 != 0).then_some(Moves(&moves)),
                best: (i % 7 != 0).then_some(best),
                pv: (i % 5 == 0).then_some(Pv(&[])),
                source: [
                    Source::Table,
                    Source::Search,
                    Source::Finished,
                    Source::Book,
                ][i as usize % 4],
                nodes: rng.below(1 << 50),
                ms: Millis(ms),
                note: None,
            };
            let mut fast = Vec::new();
            let mut serde = Vec::new();
            write_json(&mut serde, &line);
            if write_table_line(&mut fast, &line, &mut scratch) {
                fast_lines += 1;
                assert_eq!(
                    String::from_utf8_lossy(&fast),
                    String::from_utf8_lossy(&serde)
                );
            } else {
                assert!(fast.is_empty());
            }
        }
        // Every valid position but the few too large for the fast form.
        assert!(fast_lines > 100_000, "{fast_lines}");
    }
}
