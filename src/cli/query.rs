//! `kalah query`: the exact value of any position, its moves and a perfect
//! game: from the endgame tables when the board is inside them (one probe a
//! move, no loading wait: the tables are memory-mapped), by search with
//! table probes otherwise. `--batch` answers a file of positions, one JSON
//! line each (the `batch` module).
//!
//! A search is announced on stderr before it starts (with a progress line
//! on a terminal), stops at Ctrl-C or SIGTERM, and, with `--time-limit`,
//! gives up after that long: the answer is then an error naming the limit,
//! never a value from an unfinished search.
//!
//! The answering is the service's ([`crate::service`]); this module parses
//! the flags and renders the answer as text or JSON.

mod batch;

use std::time::Duration;

use clap::Args;
use kalah_solver::query::pv_line;
use kalah_solver::{Game, Rules};

use super::common::{game_line, parse_position, signed, CliError};
use crate::flags::{BookUse, RulesArgs, SearchArgs, TableArgs};
use crate::outln;
use crate::progress::Stderr;
use crate::service::answer::{write_json, Answer, Detail, Source};
use crate::service::position::{answer_one, Budget};
use crate::service::setup::open_present;

/// Arguments of `kalah query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The position: 2m+2 counts in sowing order (S1..Sm, South store,
    /// N1..Nm, North store) and the side to move, e.g.
    /// "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S".
    #[arg(num_args = 1.., allow_negative_numbers = true, required_unless_present = "batch")]
    pub position: Vec<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub book: BookUse,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Answer every line of FILE ('-' for standard input), one JSON line
    /// each, in order, written as they are answered (a client that sends a
    /// line and waits gets its answer). Blank lines and lines starting with '#' are skipped. Bad
    /// lines (not a position, not UTF-8, over 4096 bytes) get an error
    /// object naming the line and do not stop the batch.
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    pub batch: Option<String>,
    /// In batch mode, also give each answer's principal variation; with
    /// --value-only, give it in a single query too.
    #[arg(long)]
    pub pv: bool,
    /// The position's exact value alone, not every move's: a search then
    /// solves the position only, not each move too (several times less
    /// work far from the tables). The answer has no moves and no best
    /// moves (and in a single query no principal variation unless --pv
    /// asks for one).
    #[arg(long)]
    pub value_only: bool,
    /// Give up a search after SECS seconds (decimals allowed): a position
    /// far outside the tables can take hours. The answer is then an error
    /// naming the limit, never a guess (in a batch, that line's error; the
    /// batch goes on). Answers from the tables are not limited.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `--time-limit`'s value: a positive, finite number of seconds.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 1e9) {
        return Err(format!(
            "'{text}': the time limit must be more than 0 and at most 1e9 seconds"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

impl QueryArgs {
    /// What a single query's answer holds: everything, or with
    /// `--value-only` the value (and the principal variation with `--pv`).
    fn detail(&self) -> Detail {
        Detail {
            moves: !self.value_only,
            pv: !self.value_only || self.pv,
        }
    }

    /// The budget of a query's search: a 256 MiB transposition table unless
    /// `--tt-mb` says otherwise, and `--time-limit`.
    fn budget(&self) -> Budget {
        Budget {
            config: self.search.config(256),
            time_limit: self.time_limit,
        }
    }
}

/// `kalah query`.
pub fn query(args: &QueryArgs) -> Result<(), CliError> {
    if let Some(file) = &args.batch {
        return batch::batch(args, file);
    }
    let pos = parse_position(&args.position)?;
    let rules = args.rules.rules();
    let game = Game::new(pos.pits(), rules);
    let policy = args.tables.policy_with(&args.book);
    let (tables, note) = open_present(&policy, pos.pits(), rules, false)?;
    let book = if policy.no_book {
        None
    } else {
        crate::service::book::open(&policy.dir.path, pos.pits(), rules, pos.total_seeds())?
    };
    // Said at once: a search without the tables may be long.
    if let Some(n) = &note {
        crate::progress::note(n);
    }
    let answer = answer_one(
        &game,
        tables.as_ref(),
        book.as_deref(),
        &pos,
        &args.budget(),
        args.detail(),
        &Stderr,
    )?;
    if args.json {
        let mut line = Vec::with_capacity(320);
        write_json(&mut line, &answer.line(&rules.slug(), note.as_deref()));
        return outln!("{}", String::from_utf8_lossy(&line));
    }
    print_answer(&answer, rules)
}

fn print_answer(a: &Answer, rules: Rules) -> Result<(), CliError> {
    let pos = &a.position;
    outln!("{}", game_line(pos, rules))?;
    outln!("{}", pos.diagram().trim_end_matches('\n'))?;
    outln!("position: {pos}")?;
    let side = pos.to_move();
    outln!(
        "value: {} for {side} ({}), final store difference under perfect play [{}]",
        signed(a.value),
        match a.value.signum() {
            1 => format!("{side} wins"),
            0 => "draw".to_string(),
            _ => format!("{side} loses"),
        },
        a.source.name()
    )?;
    if a.source == Source::Finished {
        if let Some([s, n]) = pos.final_stores(rules) {
            let how = match rules.end {
                kalah_solver::EndRule::Sweep => "after the sweep",
                kalah_solver::EndRule::Delayed => "each owner taking the seeds left on their side",
                kalah_solver::EndRule::NoSweep => "the seeds left in houses counting for nobody",
            };
            outln!("the game is over: South {s}, North {n}, {how}")?;
        }
        return Ok(());
    }
    if a.value_only {
        outln!("moves: left out (--value-only)")?;
    } else {
        print_moves(a)?;
    }
    if let Some(pv) = &a.pv {
        outln!("principal variation: {}", pv_line(pv))?;
    }
    outln!("nodes: {}  time: {:.2} ms", a.nodes, a.ms)
}

/// Every move's value and the best moves.
fn print_moves(a: &Answer) -> Result<(), CliError> {
    let side = a.position.to_move();
    outln!("moves ({side}):")?;
    for m in &a.moves {
        outln!(
            "  house {:>2}: {:>4}{}{}",
            m.house,
            signed(m.value),
            if m.extra_turn { "  extra turn" } else { "" },
            if m.value == a.value { "  best" } else { "" }
        )?;
    }
    let best: Vec<String> = a.best.iter().map(|h| h.to_string()).collect();
    outln!("best: {}", best.join(" "))
}
