//! Parsers of flag values shared by several programs: a count in a range,
//! a thread count.

/// A clap parser for a `usize` flag in `range`: a value outside it (or not
/// a number, or too large for 64 bits) is a usage error, exit status 2,
/// with clap's message naming the flag and the range.
pub fn usize_in(
    range: std::ops::RangeInclusive<u64>,
) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(range)
}

/// The most threads any command starts: far more than any machine has
/// cores, far fewer than would exhaust memory with their stacks.
pub const MAX_THREADS: usize = 1024;

/// Parses a thread count: `0..=MAX_THREADS` (for the flags where 0 means
/// "all cores").
///
/// # Errors
/// Not a number, or more than [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a thread count"))?;
    if n > MAX_THREADS {
        return Err(format!("{n} threads: at most {MAX_THREADS}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_bounded() {
        assert_eq!(parse_threads("0"), Ok(0));
        assert_eq!(parse_threads("1024"), Ok(1024));
        assert!(parse_threads("1025").unwrap_err().contains("at most 1024"));
        assert!(parse_threads("100000").is_err());
        assert!(parse_threads("-1").is_err());
        assert!(parse_threads("lots").is_err());
    }
}
