//! `query --batch`: the service's batch ([`crate::service::batch`]) over
//! a file or standard input, answers on standard output, and its summary
//! and exit status.
//!
//! A signal (Ctrl-C, SIGTERM) stops the batch: every answer before the
//! line being searched is written, in order, and the batch fails saying it
//! was interrupted. A closed stdout ends it quietly (status 0), any other
//! write error fails it (status 1). Bad lines make the status 2, searches
//! stopped by `--time-limit` 1, once the whole input is answered.

use std::io;
use std::path::Path;

use super::QueryArgs;
use crate::cli::common::CliError;
use crate::progress::{self, Stderr};
use crate::service::batch::{answer_batch, BatchConfig, End, Input};
use crate::service::position::seconds;

/// `n` and its noun, singular or plural: "1 bad line", "2 bad lines".
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub(super) fn batch(args: &QueryArgs, file: &str) -> Result<(), CliError> {
    let input = if file == "-" {
        Input::stdin()
    } else {
        Input::file(Path::new(file))?
    };
    let name = if file == "-" { "standard input" } else { file };
    let config = BatchConfig {
        tables: args.tables.policy_with(&args.book),
        rules: args.rules.rules(),
        budget: args.budget(),
        pv: args.pv,
        value_only: args.value_only,
    };
    let b = answer_batch(input, || io::stdout().lock(), &config, &Stderr)?;
    progress::note(&format!(
        "{} answered, {}, {:.2} s ({:.0} positions a second)",
        count(b.answered, "position"),
        count(b.bad, "bad line"),
        b.seconds,
        b.answered as f64 / b.seconds.max(1e-9)
    ));
    match b.end {
        End::Failed(e) => return Err(e.into()),
        End::Interrupted => {
            return Err(CliError::Failure(format!(
                "interrupted: stopped by a signal after {} (every answer before the stop is written, in order)",
                count(b.answered, "answer")
            )))
        }
        End::Finished => {}
    }
    let limit = (b.over_limit > 0).then(|| {
        format!(
            "{} not answered within the time limit (--time-limit {} s)",
            count(b.over_limit, "position"),
            seconds(args.time_limit.unwrap_or_default())
        )
    });
    if b.bad > 0 {
        let also = limit.map(|l| format!("; {l}")).unwrap_or_default();
        return Err(CliError::Input(format!(
            "{} in {name}{also}",
            count(b.bad, "bad line")
        )));
    }
    match limit {
        Some(l) => Err(CliError::Failure(l)),
        None => Ok(()),
    }
}
