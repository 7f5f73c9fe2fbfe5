//! The commands' side of [`crate::output`]: `outln!`, `?`-able in a
//! command, and [`flush`], each with the write error as a [`CliError`].

use super::common::CliError;

/// Like `println!`, to standard output, but `?`-able in a command:
/// evaluates to `Result<(), CliError>` ([`crate::output::write_line`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::write_line(format_args!("")).map_err($crate::cli::CliError::from)
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*)).map_err($crate::cli::CliError::from)
    };
}

/// Flushes standard output.
///
/// # Errors
/// [`CliError::Stdout`] when the flush fails.
pub fn flush() -> Result<(), CliError> {
    Ok(crate::output::flush()?)
}
