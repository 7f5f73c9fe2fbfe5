//! The input of `query --batch`: lines read in chunks, as many as are
//! ready, with their physical line numbers.
//!
//! Three rules keep a batch usable as a pipe and safe on any input:
//! - A chunk ends early when the input has nothing more ready (a client that
//!   sends one line and waits gets its answer), and holds at most
//!   [`BATCH_CHUNK`] lines otherwise (a big file is answered in large
//!   parallel passes).
//! - A line longer than [`MAX_LINE`] bytes is reported and skipped to its
//!   newline without being kept, and a chunk holds at most about
//!   [`CHUNK_BYTES`] plus one read: memory stays bounded whatever the input.
//! - Blank lines and comments (`#` after optional leading whitespace) are
//!   skipped; the numbers count every physical line, so errors name the
//!   line as an editor shows it.
//!
//! Lines are bytes: one that is not UTF-8 is reported by the batch like any
//! other bad line.

use std::io::{self, BufRead};

/// Lines a chunk holds at most: parsed and answered in parallel, printed
/// in order.
pub(super) const BATCH_CHUNK: usize = 1 << 15;

/// The longest line read, in bytes (a position takes under 100).
pub(super) const MAX_LINE: usize = 4096;

/// A chunk stops taking lines once it holds this many bytes: with lines of
/// up to [`MAX_LINE`] bytes, [`BATCH_CHUNK`] of them could take 128 MiB.
/// Positions (under 100 bytes a line) fill a chunk by its line count first.
const CHUNK_BYTES: usize = 4 << 20;

/// One input line: where its bytes lie in the chunk (its newline, and a
/// carriage return before it, left out) and its number in the input.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line {
    pub start: usize,
    pub end: usize,
    /// 1-based, counting every physical line.
    pub number: u64,
    /// Longer than [`MAX_LINE`]: its bytes were dropped (`start == end`).
    pub too_long: bool,
}

/// Lines as read, and the bytes they lie in.
#[derive(Default)]
pub(super) struct Chunk {
    pub data: Vec<u8>,
    pub lines: Vec<Line>,
}

impl Chunk {
    /// The bytes of `line` (empty for a line too long to keep).
    pub fn bytes(&self, line: &Line) -> &[u8] {
        &self.data[line.start..line.end]
    }
}

/// Whether an input may make a read wait, so that a chunk ends where the
/// lines ready end (a client that sends a line and waits gets its answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// A file: a read never waits for more.
    Always,
    /// Standard input (a pipe or a terminal): asked with `poll`.
    Stdin,
    /// Any other stream (a socket): a chunk ends where each read ends.
    Unknown,
}

/// Reads an input's lines chunk by chunk.
pub(super) struct LineReader {
    input: Box<dyn BufRead + Send>,
    /// Whether a read may wait for more input, and how to tell it will not.
    readiness: Readiness,
    /// Bytes read but not yet given out: the start of a line whose newline
    /// has not come, or whole lines beyond a full chunk.
    pending: Vec<u8>,
    /// The number of the line being read.
    number: u64,
    /// The rest of an over-long line is being dropped up to its newline.
    skipping: bool,
    eof: bool,
}

impl LineReader {
    /// Lines of `input`, read as `readiness` says.
    pub fn new(input: Box<dyn BufRead + Send>, readiness: Readiness) -> LineReader {
        LineReader {
            input,
            readiness,
            pending: Vec::new(),
            number: 1,
            skipping: false,
            eof: false,
        }
    }

    /// Fills `chunk` (emptied first) with the next lines: up to
    /// [`BATCH_CHUNK`], fewer when the input has nothing more ready or
    /// ends. No lines: the end of the input.
    ///
    /// # Errors
    /// A read error of the input.
    pub fn read_chunk(&mut self, chunk: &mut Chunk) -> io::Result<()> {
        chunk.data.clear();
        chunk.lines.clear();
        chunk.data.append(&mut self.pending);
        // The current line starts at `start`; `data[start..scanned]` has no
        // newline.
        let mut start = 0;
        let mut scanned = 0;
        let result = loop {
            self.scan(chunk, &mut start, &mut scanned);
            if chunk.lines.len() >= BATCH_CHUNK
                || (!chunk.lines.is_empty() && chunk.data.len() >= CHUNK_BYTES)
            {
                break Ok(());
            }
            if self.eof {
                // A last line without a newline.
                if chunk.data.len() > start {
                    self.push(chunk, start, chunk.data.len());
                    start = chunk.data.len();
                }
                break Ok(());
            }
            if !chunk.lines.is_empty() && !self.ready() {
                break Ok(());
            }
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            };
            if buf.is_empty() {
                self.eof = true;
                self.skipping = false;
                continue;
            }
            let n = buf.len();
            if self.skipping {
                // Drop the over-long line's bytes up to its newline; keep
                // what follows.
                if let Some(k) = buf.iter().position(|&b| b == b'\n') {
                    self.skipping = false;
                    self.number += 1;
                    chunk.data.extend_from_slice(&buf[k + 1..]);
                }
            } else {
                chunk.data.extend_from_slice(buf);
            }
            // The whole buffer is always taken: an empty buffer means
            // readiness is the input's own (see `ready`).
            self.input.consume(n);
        };
        self.pending.extend_from_slice(&chunk.data[start..]);
        chunk.data.truncate(start);
        result
    }

    /// Takes the whole lines of `data[scanned..]` into `chunk.lines` (up to
    /// a full chunk), and drops an unfinished line once it is too long.
    fn scan(&mut self, chunk: &mut Chunk, start: &mut usize, scanned: &mut usize) {
        while chunk.lines.len() < BATCH_CHUNK {
            match chunk.data[*scanned..].iter().position(|&b| b == b'\n') {
                Some(k) => {
                    let newline = *scanned + k;
                    let mut end = newline;
                    if end > *start && chunk.data[end - 1] == b'\r' {
                        end -= 1;
                    }
                    self.push(chunk, *start, end);
                    *start = newline + 1;
                    *scanned = *start;
                }
                None => {
                    if chunk.data.len() - *start > MAX_LINE {
                        // Reported now; its newline ends the skip and the
                        // line.
                        chunk.lines.push(Line {
                            start: *start,
                            end: *start,
                            number: self.number,
                            too_long: true,
                        });
                        chunk.data.truncate(*start);
                        self.skipping = true;
                    }
                    *scanned = chunk.data.len();
                    return;
                }
            }
        }
    }

    /// Adds the line `data[start..end]`, unless it is blank or a comment,
    /// and counts it.
    fn push(&mut self, chunk: &mut Chunk, start: usize, end: usize) {
        let number = self.number;
        self.number += 1;
        let text = &chunk.data[start..end];
        if end - start > MAX_LINE {
            chunk.lines.push(Line {
                start,
                end: start,
                number,
                too_long: true,
            });
            return;
        }
        match text.iter().find(|b| !b.is_ascii_whitespace()) {
            None | Some(b'#') => {}
            Some(_) => chunk.lines.push(Line {
                start,
                end,
                number,
                too_long: false,
            }),
        }
    }

    /// Whether a read would return at once: always for a file; for standard
    /// input, whether it has bytes (or its end) waiting; never assumed for
    /// another stream.
    fn ready(&self) -> bool {
        match self.readiness {
            Readiness::Always => true,
            Readiness::Stdin => ready::stdin_ready(),
            Readiness::Unknown => false,
        }
    }
}

mod ready {
    pub use kalah_solver::platform::stdin_ready;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], capacity: usize) -> Vec<(u64, Option<String>)> {
        let reader = io::BufReader::with_capacity(capacity, io::Cursor::new(input.to_vec()));
        let mut lines = LineReader::new(Box::new(reader), Readiness::Always);
        let mut chunk = Chunk::default();
        let mut out = Vec::new();
        loop {
            lines.read_chunk(&mut chunk).expect("in memory");
            if chunk.lines.is_empty() {
                return out;
            }
            for l in &chunk.lines {
                let text = (!l.too_long).then(|| String::from_utf8_lossy(chunk.bytes(l)).into());
                out.push((l.number, text));
            }
        }
    }

    #[test]
    fn lines_comments_blank_lines_and_numbers_at_any_buffer_size() {
        let long = "7".repeat(MAX_LINE + 1);
        let input = format!("a\n\n # c\r\nb\r\n{long}\nc\n\t\nd");
        let want = vec![
            (1, Some("a".to_string())),
            (4, Some("b".to_string())),
            (5, None),
            (6, Some("c".to_string())),
            (8, Some("d".to_string())),
        ];
        for capacity in [1, 2, 3, 7, 64, 4096, 1 << 20] {
            assert_eq!(read_all(input.as_bytes(), capacity), want, "{capacity}");
        }
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let line = "7".repeat(MAX_LINE);
        let got = read_all(format!("{line}\n{line}7").as_bytes(), 100);
        assert_eq!(got, vec![(1, Some(line)), (2, None)]);
    }

    #[test]
    fn long_lines_fill_a_chunk_by_its_bytes() {
        let line = "7".repeat(MAX_LINE);
        let input = format!("{line}\n").repeat(3 * CHUNK_BYTES / MAX_LINE);
        let reader = io::BufReader::with_capacity(1 << 20, io::Cursor::new(input.into_bytes()));
        let mut lines = LineReader::new(Box::new(reader), Readiness::Always);
        let mut chunk = Chunk::default();
        let mut total = 0;
        loop {
            lines.read_chunk(&mut chunk).expect("in memory");
            if chunk.lines.is_empty() {
                break;
            }
            assert!(chunk.data.len() < CHUNK_BYTES + (1 << 20) + MAX_LINE);
            assert!(chunk.lines.len() < BATCH_CHUNK);
            total += chunk.lines.len();
        }
        assert_eq!(total, 3 * CHUNK_BYTES / MAX_LINE);
    }

    #[test]
    fn many_lines_make_several_chunks_in_order() {
        let input: String = (0..BATCH_CHUNK * 2 + 5).map(|i| format!("{i}\n")).collect();
        let got = read_all(input.as_bytes(), 1000);
        assert_eq!(got.len(), BATCH_CHUNK * 2 + 5);
        for (i, (n, text)) in got.iter().enumerate() {
            assert_eq!(*n, i as u64 + 1);
            assert_eq!(text.as_deref(), Some(i.to_string().as_str()));
        }
    }
}
