//! Reading the examples' positional arguments.

/// The argument `arg` as a `T`, or `default` when it is absent; an error
/// names the argument (`what`) and the text that is not a number.
pub fn number<T: std::str::FromStr>(
    arg: Option<&String>,
    default: T,
    what: &str,
) -> Result<T, String> {
    match arg {
        Some(t) => t.parse().map_err(|_| format!("{what} {t}: a number")),
        None => Ok(default),
    }
}
