//! `kalah serve`: the flags of the HTTP server ([`crate::serve`]) and its
//! first line.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use super::common::CliError;
use crate::flags::values::usize_in;
use crate::flags::{BookUse, TableArgs};
use crate::output::write_line;
use crate::progress::Stderr;
use crate::serve::http::Limits;
use crate::serve::{self, Config};

/// What `kalah serve --help` ends with: the routes.
const ROUTES: &str = "Routes (GET or HEAD; JSON as in docs/json.md):
  /                                          the page: the board, each move's value, play, undo
  /api/v1/query?position=P&rules=std|ec&end=sweep|delayed|no-sweep
                                             what `kalah query --json P` prints, moves best first
  /api/v1/solve?pits=M&seeds=N&rules=&end=   the same for the start of Kalah(M,N)
  /api/v1/play?position=P&house=H&rules=&end=
                                             the position after playing house H
Bad input: 400 with the command line's message. A search over --time-limit,
or with every search worker busy: 503 with the reason. A search whose client
disconnects is stopped.

One client cannot keep the others out: connections are accepted first, then
counted; at --max-connections or --max-connections-per-client the connection
idle the longest (of that client) is closed to make room, and a connection
closes after --idle-timeout without a request, --max-requests-per-connection
requests, --max-connection-lifetime, or a write that makes no progress for
--write-timeout.

Example:
  kalah serve --bind 127.0.0.1:8080 --tables tables
  curl 'http://127.0.0.1:8080/api/v1/query?position=3+3+3+3+3+3+0+3+3+3+3+3+3+0+S'";

/// Arguments of `kalah serve`.
#[derive(Args, Debug)]
#[command(after_help = ROUTES)]
pub struct ServeArgs {
    /// The address and port to listen on. The default takes connections
    /// from this machine only; 0.0.0.0:8080 would take them from anywhere.
    /// Port 0 picks a free port (printed on the first line).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub book: BookUse,
    /// Searches (of positions outside the tables) run at once, one thread
    /// each; a request that finds them all busy gets 503 at once.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = usize_in(1..=64))]
    pub search_workers: usize,
    /// Give up a search after SECS seconds (decimals allowed): the answer
    /// is then 503 saying so. Answers from the tables are not limited.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub time_limit: f64,
    /// Boards whose values the searches found are kept, at most N (the
    /// least used go first; about 40 bytes each): a position asked again,
    /// or one a move of it leads to, is answered at once ("source":
    /// "kept"). 0 keeps none.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = usize_in(0..=1 << 32))]
    pub keep_answers: usize,
    /// Each search's transposition table, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64, value_parser = usize_in(1..=1 << 16))]
    pub tt_mb: usize,
    /// Threads serving connections and answering from the tables
    /// (default: one a core).
    #[arg(long, value_name = "N", value_parser = usize_in(1..=256))]
    pub http_threads: Option<usize>,
    /// Connections open at once. When all are open, a new connection
    /// closes the one idle the longest (no request in progress); only when
    /// every one is busy is it refused (503).
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_connections,
          value_parser = usize_in(1..=1 << 20))]
    pub max_connections: usize,
    /// Connections open at once from one client address (nginx's
    /// limit_conn): past it, that client's connection idle the longest is
    /// closed, or the new one refused (503) when all of its are busy.
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_per_client,
          value_parser = usize_in(1..=1 << 20))]
    pub max_connections_per_client: usize,
    /// Seconds a connection may wait without a complete request head, from
    /// its opening or its last answer (keep-alive idle time and the time
    /// to send a head in one); then it is closed.
    #[arg(long, value_name = "SECS", default_value_t = Limits::DEFAULT.idle_timeout.as_secs_f64())]
    pub idle_timeout: f64,
    /// Requests answered on one connection (nginx's keepalive_requests):
    /// the last is answered with `Connection: close`.
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_requests,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_requests_per_connection: u64,
    /// Seconds a connection may live (nginx's keepalive_time): past it, it
    /// finishes the request it is answering and closes.
    #[arg(long, value_name = "SECS", default_value_t = Limits::DEFAULT.max_lifetime.as_secs_f64())]
    pub max_connection_lifetime: f64,
    /// Seconds a write of an answer may make no progress (a client that
    /// does not read) before the connection is closed (nginx's
    /// send_timeout).
    #[arg(long, value_name = "SECS", default_value_t = Limits::DEFAULT.write_timeout.as_secs_f64())]
    pub write_timeout: f64,
}

/// `SECS` of flag `flag` as a duration: more than 0 and at most 1e6.
fn seconds(flag: &str, secs: f64) -> Result<Duration, CliError> {
    if secs > 0.0 && secs <= 1e6 {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err(CliError::Input(format!(
            "--{flag} {secs}: must be more than 0 and at most 1e6 seconds"
        )))
    }
}

/// `kalah serve`: prints where it listens and which tables it has, then
/// serves until Ctrl-C or SIGTERM.
pub fn serve(args: &ServeArgs) -> Result<(), CliError> {
    let secs = args.time_limit;
    if !(secs > 0.0 && secs <= 1e6) {
        return Err(CliError::Input(format!(
            "--time-limit {secs}: a search's budget must be more than 0 and at most 1e6 seconds"
        )));
    }
    let limits = Limits {
        max_connections: args.max_connections,
        max_per_client: args.max_connections_per_client,
        idle_timeout: seconds("idle-timeout", args.idle_timeout)?,
        max_requests: args.max_requests_per_connection,
        max_lifetime: seconds("max-connection-lifetime", args.max_connection_lifetime)?,
        write_timeout: seconds("write-timeout", args.write_timeout)?,
    };
    let config = Config {
        bind: args.bind,
        tables: args.tables.policy_with(&args.book),
        search_workers: args.search_workers,
        time_limit: Duration::from_secs_f64(secs),
        tt_mb: args.tt_mb,
        http_threads: args
            .http_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        limits,
        keep_answers: args.keep_answers,
    };
    let dir = config.tables.dir.path.display().to_string();
    // The server waits on these lines: their write errors are its own
    // (service::Error::Output), not a command's.
    serve::serve(&config, &Stderr, |addr, catalog| {
        write_line(format_args!("listening on http://{addr}/ (Ctrl-C stops)"))?;
        let present = catalog.present();
        if present.is_empty() {
            write_line(format_args!(
                "endgame tables: none in {dir}: every position is searched"
            ))?;
        }
        for (pits, rules, k) in present {
            write_line(format_args!(
                "endgame tables: {pits} houses, {}, up to {k} seeds, from {dir}",
                rules.slug()
            ))?;
        }
        for (pits, rules, seeds, boards, turns) in catalog.books() {
            write_line(format_args!(
                "opening book: Kalah({pits},{seeds}) {}, {boards} boards, first {turns} turns, from {dir}",
                rules.slug()
            ))?;
        }
        crate::output::flush()?;
        Ok(())
    })?;
    Ok(())
}
